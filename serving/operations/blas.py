"""BLAS threads for the runtime's linear algebra.

Everything the selector multiplies is one request against one catalog: a matrix-vector
product over ~1,000 cards x 384 dimensions, a few small heads. A thread pool only adds
synchronisation there, and on a busy CPU (the gateway's workers, an ONNX session, another
process) it costs far more: a 1280 x 384 float32 product took 7.8 ms with OpenBLAS's 2
threads on a loaded 2-core machine and 30 us with one. The limit is process-wide
(OpenBLAS keeps one setting), so it is set when a selector is assembled.
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits


def pin_blas_threads(threads: int) -> None:
    """Limit the process's BLAS libraries to `threads` threads from now on (0: leave
    them as they are)."""
    if threads > 0:
        threadpool_limits(limits=threads, user_api="blas")

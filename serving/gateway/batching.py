"""Dynamic batching of an encoder: concurrent `encode` calls merged into one model call.

Every `search_tools` embeds its subgoals on its own discovery worker. One text at a time
an ONNX encoder spends most of a call on fixed costs (session dispatch, small matrices
that leave the cores idle); the same texts in one call cost a fraction per text. Here
callers on any thread hand their texts to one batching thread, which waits at most
`window_s` after the first arrival (or until `max_batch` texts wait), encodes them all in
one call and hands each caller its own rows. Each caller's rows are the ones it would
get alone: the tokenizer pads to the longest text of the batch and the graph pools under
the attention mask, so padding changes no vector beyond float rounding.

When a batch fails, each of its callers runs again alone, so an error reaches only the
caller whose texts raise it (in that caller's thread). A caller never waits on a batch
that will not come: the thread runs until `close`, and `close` drains what is queued;
later calls encode on the caller's own thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from serving.bundle.encoder import TextEncoder

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """`max_batch`: texts in one model call at most (1: no batching); `window_s`: how long
    the first text of a batch waits for company."""

    max_batch: int = 32
    window_s: float = 0.001

    def __post_init__(self) -> None:
        if self.max_batch < 1 or self.window_s < 0:
            raise ValueError("batching: max_batch >= 1 and window_s >= 0")

    @property
    def enabled(self) -> bool:
        return self.max_batch > 1


@dataclass(slots=True)
class BatchStats:
    """What the batching thread did: model calls by their number of texts."""

    calls: int = 0  # encode calls that went through a batch
    sizes: Counter[int] = field(default_factory=Counter)  # texts per model call -> count

    def snapshot(self) -> dict[str, Any]:
        batches = sum(self.sizes.values())
        texts = sum(size * n for size, n in self.sizes.items())
        return {
            "calls": self.calls, "batches": batches, "texts": texts,
            "mean_batch": round(texts / batches, 2) if batches else 0.0,
            "max_batch": max(self.sizes, default=0),
            "sizes": {str(size): n for size, n in sorted(self.sizes.items())},
        }


class _Pending:
    """One caller's texts and, once its batch ran, its rows or the batch's error."""

    __slots__ = ("done", "error", "texts", "vectors")

    def __init__(self, texts: tuple[str, ...]) -> None:
        self.texts = texts
        self.done = threading.Event()
        self.vectors: np.ndarray | None = None
        self.error: BaseException | None = None


class BatchingEncoder:
    """A `TextEncoder` over `inner` whose concurrent calls are merged into batches."""

    def __init__(self, inner: TextEncoder, settings: BatchSettings, *,
                 name: str = "encoder") -> None:
        self.inner = inner
        self.model_path = inner.model_path
        self.batch_size = inner.batch_size
        self.settings = settings
        self.name = name
        self.stats = BatchStats()
        self._queue: deque[_Pending] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name=f"batch-{name}", daemon=True)
        self._thread.start()

    @property
    def key(self) -> str:
        return self.inner.key

    def report(self) -> dict[str, Any]:
        """The stats as JSON-ready numbers (read under the lock the thread writes under)."""
        with self._cond:
            return self.stats.snapshot()

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """The rows `inner.encode(texts)` gives, computed in a batch with other callers'.
        A call of `max_batch` texts or more is a batch already and runs here."""
        if not texts or len(texts) >= self.settings.max_batch:
            return self.inner.encode(texts, show_progress=show_progress)
        pending = _Pending(tuple(texts))
        with self._cond:
            if self._closed:
                return self.inner.encode(texts, show_progress=show_progress)
            self._queue.append(pending)
            self.stats.calls += 1
            self._cond.notify()
        pending.done.wait()
        if pending.error is not None:
            raise pending.error
        assert pending.vectors is not None
        return pending.vectors

    def close(self) -> None:
        """Stop the thread once what is queued has run; later calls encode unbatched."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def _loop(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            self._run(batch)

    def _next_batch(self) -> list[_Pending] | None:
        """Callers whose texts go in the next model call: waits for a first one, then up
        to `window_s` for more (not once `max_batch` texts wait or the encoder closes)."""
        limit = self.settings.max_batch
        with self._cond:
            while not self._queue:
                if self._closed:
                    return None
                self._cond.wait()
            deadline = time.monotonic() + self.settings.window_s
            while not self._closed and sum(len(p.texts) for p in self._queue) < limit:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            batch = [self._queue.popleft()]
            n = len(batch[0].texts)
            while self._queue and n + len(self._queue[0].texts) <= limit:
                n += len(self._queue[0].texts)
                batch.append(self._queue.popleft())
            self.stats.sizes[n] += 1
            return batch

    def _run(self, batch: list[_Pending]) -> None:
        texts = [t for p in batch for t in p.texts]
        try:
            vectors = self._encode(texts)
        except BaseException as err:  # noqa: BLE001 - raised again in the callers' threads
            if len(batch) > 1:  # one caller's bad text must not fail the others: each alone
                log.debug("a batch of %d callers failed (%s); running each alone", len(batch), err)
                for p in batch:
                    self._run([p])
                return
            batch[0].error = err
            batch[0].done.set()
            return
        start = 0
        for p in batch:
            p.vectors = vectors[start : start + len(p.texts)].copy()  # no view of the batch
            start += len(p.texts)
            p.done.set()

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.inner.encode(texts)
        if len(vectors) != len(texts):
            raise RuntimeError(f"{self.name}: {len(vectors)} rows for {len(texts)} texts")
        return vectors

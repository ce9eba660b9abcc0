"""Discovery bounded by the cores, with backpressure: many sessions, a fixed amount of work.

Every `search_tools` runs a discovery (encode, retrieve, rerank) on a worker thread. Left
alone, each call gets its own thread from anyio's pool of 40, every ONNX session asks for
every core, and 32 concurrent discoveries on 2 cores fight until each takes seconds. Here
at most `workers` run at once (the gateway sizes the ONNX threads so workers x threads
<= cores), at most `queue` wait, and none waits past `deadline_s`: past either bound the
caller is told at once that the gateway is busy (`Busy`, with a retry hint) instead of
getting a late answer. A call once admitted to a worker always runs to its end.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio

log = logging.getLogger(__name__)
T = TypeVar("T")


class Busy(Exception):
    """The gateway is at capacity: retry after `retry_after_s`."""

    def __init__(self, why: str, retry_after_s: float) -> None:
        super().__init__(why)
        self.why = why
        self.retry_after_s = retry_after_s


def default_workers() -> int:
    """One discovery per core (each single-threaded) on a small machine."""
    return max(1, os.cpu_count() or 1)


@dataclass
class AdmissionStats:
    admitted: int = 0
    refused_full: int = 0  # the queue was full
    refused_late: int = 0  # waited past the deadline
    most_waiting: int = 0


class Admission:
    """At most `workers` calls at once, `queue` waiting, each waiting at most `deadline_s`."""

    def __init__(self, workers: int, queue: int, deadline_s: float) -> None:
        if workers < 1 or queue < 0 or deadline_s <= 0:
            raise ValueError("admission: workers >= 1, queue >= 0, deadline_s > 0")
        self.workers, self.queue, self.deadline_s = workers, queue, deadline_s
        self._limiter = anyio.CapacityLimiter(workers)
        self._waiting = 0
        self.stats = AdmissionStats()

    @property
    def waiting(self) -> int:
        return self._waiting

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on a worker thread once a worker is free; `Busy` when the queue is
        full or no worker frees up within the deadline."""
        if self._limiter.available_tokens < 1 and self._waiting >= self.queue:
            self.stats.refused_full += 1
            log.warning("overloaded: %d discoveries running, %d waiting; refused a search",
                        self.workers, self._waiting)
            raise Busy("the gateway is at capacity", self.deadline_s)
        self._waiting += 1
        self.stats.most_waiting = max(self.stats.most_waiting, self._waiting)
        try:
            with anyio.fail_after(self.deadline_s):
                await self._limiter.acquire()
        except TimeoutError:
            self.stats.refused_late += 1
            log.warning("overloaded: a search waited %.1fs for a worker; refused",
                        self.deadline_s)
            raise Busy("no worker was free in time", self.deadline_s) from None
        finally:
            self._waiting -= 1
        self.stats.admitted += 1
        try:
            # admitted: shielded, so a client that goes away cannot strand the worker
            with anyio.CancelScope(shield=True):
                result = await anyio.to_thread.run_sync(lambda: fn(*args))
        finally:
            self._limiter.release()
        return result

"""One client's view: the active set (what tools/list shows and the gate lets through),
where each active tool was found, and the observations kept behind handles.

The active set holds at most `size` tools; a tool leaves it `ttl_s` after it was last
found or called, and when the set is full the least recently used leaves first.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from serving.calls.gate import ActiveSet
from serving.calls.observe import ObservationStore
from serving.selector import Discovery, StepResult


@dataclass(frozen=True, slots=True)
class Origin:
    """The discovery that surfaced a tool and its step (the call's subgoal and trace)."""

    discovery: Discovery
    step: StepResult


def origin_of(discovery: Discovery, tool_id: str) -> Origin:
    """The step whose menu (else wider list) holds `tool_id`; the first step otherwise."""
    steps = [*discovery.steps, *([discovery.request_step] if discovery.request_step else [])]
    for pick in (lambda s: s.menu_ids, lambda s: s.final_order()):
        for step in steps:
            if tool_id in pick(step):
                return Origin(discovery, step)
    return Origin(discovery, steps[0])


class SessionState:
    """Mutable per client; the gateway's event loop is its only writer."""

    def __init__(self, *, size: int, ttl_s: float, clock=time.monotonic) -> None:
        self.size = size
        self.ttl_s = ttl_s
        self.clock = clock
        # what traces name the client by: random, never the transport's session id (an
        # HTTP client's key to its session) nor stdio's shared "default"
        self.id = uuid.uuid4().hex[:16]
        self.store = ObservationStore()
        self._used: dict[str, float] = {}  # tool id -> last found or called
        self._origin: dict[str, Origin] = {}
        self.peer: object | None = None  # the client's MCP session, for list_changed

    def active(self) -> ActiveSet:
        self._expire()
        return ActiveSet.of(self._used)

    def activate(self, tool_ids: Iterable[str], discovery: Discovery) -> bool:
        """Make these tools active (refreshing their clock); True if the set changed."""
        before = self.active()
        now = self.clock()
        ids = list(dict.fromkeys(tool_ids))[: self.size]
        for tool_id in ids:
            self._used.pop(tool_id, None)
            self._used[tool_id] = now
            self._origin[tool_id] = origin_of(discovery, tool_id)
        while len(self._used) > self.size:  # oldest first: dicts keep insertion order
            self._forget(next(iter(self._used)))
        return self.active() != before

    def touch(self, tool_id: str) -> None:
        if tool_id in self._used:
            self._used.pop(tool_id)
            self._used[tool_id] = self.clock()

    def retain(self, served: Iterable[str]) -> bool:
        """Drop tools no longer served (quarantined, server down); True if any left."""
        keep = set(served)
        gone = [t for t in self._used if t not in keep]
        for tool_id in gone:
            self._forget(tool_id)
        return bool(gone)

    def origin(self, tool_id: str) -> Origin | None:
        return self._origin.get(tool_id)

    def _expire(self) -> None:
        cutoff = self.clock() - self.ttl_s
        for tool_id in [t for t, used in self._used.items() if used < cutoff]:
            self._forget(tool_id)

    def _forget(self, tool_id: str) -> None:
        self._used.pop(tool_id, None)
        self._origin.pop(tool_id, None)

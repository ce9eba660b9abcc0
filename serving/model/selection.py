"""Values that flow through the runtime pipeline for one request, and the stage protocol.

A `Selection` is one subgoal's candidates on their way from retrieval to the menu; every
stage (`Stage`: retrieve, fuse, filter, rerank) takes one and returns the next, recording
each removal with its reason. `run_stages` runs stages in order and records each one's
wall time in `Selection.timings_ms`, which the trace reports as per-stage latency.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from serving.model.schema import ToolCard


@dataclass(frozen=True, slots=True)
class SessionContext:
    """The session's static predicates, pushed into every retriever's query."""

    connections: frozenset[str] = frozenset()
    scopes: frozenset[str] = frozenset()
    env: str = "prod"
    # False: every connection is available (no `connections` given); True: only those listed
    restrict_connections: bool = False
    # False: no scope check (no `scopes` given); True: a tool needs all its scopes listed
    restrict_scopes: bool = False
    # the tools an application offers with its requests (`"tools": [...]`): only those are
    # callable, whatever the connections say; not a grant the user can widen, so a tool
    # outside them is never named as missing access
    tools: frozenset[str] = frozenset()
    restrict_tools: bool = False

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> SessionContext:
        """A key that is present restricts (`"connections": []` = nothing is callable); a
        missing key does not. Wrong types raise `TypeError` naming the key, since reading
        `"connections": "slack"` as no restriction (or as letters) would fail open."""
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise TypeError(f"context: expected a mapping, got {type(data).__name__}")
        for key in ("connections", "scopes", "tools"):
            value = data.get(key, [])
            if not isinstance(value, list | tuple | set | frozenset) or not all(
                isinstance(v, str) for v in value
            ):
                raise TypeError(f"context.{key}: expected a list of strings, got {value!r:.60}")
        env = data.get("env")
        if env is not None and not isinstance(env, str):
            raise TypeError(f"context.env: expected a string, got {env!r:.60}")
        return cls(
            connections=frozenset(data.get("connections", ())),
            scopes=frozenset(data.get("scopes", ())),
            env=env or "prod",
            restrict_connections="connections" in data,
            restrict_scopes="scopes" in data,
            tools=frozenset(data.get("tools", ())),
            restrict_tools="tools" in data,
        )

    def to_dict(self) -> dict[str, Any]:
        """Only the restrictions the session has: an unrestricted key is left out, so the
        record reads back as unrestricted (not as `[]`, which would allow nothing)."""
        out: dict[str, Any] = {}
        if self.restrict_connections:
            out["connections"] = sorted(self.connections)
        if self.restrict_scopes:
            out["scopes"] = sorted(self.scopes)
        if self.restrict_tools:
            out["tools"] = sorted(self.tools)
        out["env"] = self.env
        return out


def resolve_connections(
    ctx: SessionContext, cards: Iterable[ToolCard]
) -> tuple[SessionContext, tuple[str, ...]]:
    """`ctx` with its connections read as the catalog's names: a name some card requires
    (`requires.connection`) stays as it is; a server's name (`ToolCard.server`) that is no
    connection stands for the connections its tools require (`k8s` -> `kubernetes`), so a
    config naming servers selects as one naming connections. Also returns the names that
    are neither, sorted: kept (they match no tool) for the caller to warn about. A session
    that does not restrict connections comes back as it is."""
    if not ctx.restrict_connections:
        return ctx, ()
    by_server: dict[str, set[str]] = {}
    for card in cards:
        by_server.setdefault(card.server, set()).add(card.requires.connection)
    known = {c for connections in by_server.values() for c in connections}
    resolved, unknown = set(), []
    for name in ctx.connections:
        if name in known:  # a connection name wins over a server of the same name
            resolved.add(name)
        elif name in by_server:
            resolved |= by_server[name]
        else:
            resolved.add(name)
            unknown.append(name)
    return replace(ctx, connections=frozenset(resolved)), tuple(sorted(unknown))


@dataclass(frozen=True, slots=True)
class Subgoal:
    """One step of a request: what to do, to what, and whether it changes anything."""

    text: str
    operations: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    required_access: tuple[str, ...] = ()  # connections the step needs (e.g. "slack")
    mutation: bool = False
    # the connections the step's own words name, outside quotes: `required_access` also
    # holds those carried from a request's "In Jira:" prefix or a context clause
    named_access: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "operations": list(self.operations),
            "entities": list(self.entities),
            "required_access": list(self.required_access),
            "mutation": self.mutation,
            "named_access": list(self.named_access),
        }


@dataclass(frozen=True, slots=True)
class Candidate:
    """A tool under consideration: its current score and the per-source scores or ranks."""

    tool_id: str
    score: float = 0.0
    scores: Mapping[str, float] = field(default_factory=dict)  # per-source score or rank

    def with_score(self, score: float, **extra: float) -> Candidate:
        # the constructor, not `dataclasses.replace`: ~100 calls a step, replace is 3x slower
        return Candidate(self.tool_id, score, {**self.scores, **extra})


@dataclass(frozen=True, slots=True)
class Selection:
    """One subgoal's candidates between two stages, with every removal and stage time."""

    subgoal: Subgoal
    candidates: tuple[Candidate, ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()  # (tool_id, "filter:write_tool_for_read")
    timings_ms: Mapping[str, float] = field(default_factory=dict)

    def ids(self) -> list[str]:
        return [c.tool_id for c in self.candidates]


Stage = Callable[[Selection], Selection]


def run_stages(sel: Selection, stages: Sequence[tuple[str, Stage]]) -> Selection:
    """Run `(name, stage)` pairs in order; each stage's wall time (ms) lands in
    `timings_ms[name]` of the selection it returns."""
    for name, stage in stages:
        t0 = time.perf_counter()
        sel = stage(sel)
        sel = replace(sel, timings_ms={**sel.timings_ms, name: (time.perf_counter() - t0) * 1e3})
    return sel

"""Name what a session lacks: the connection, scope or environment that would enable the
tools that fit a step better than anything the session has.

The selector asks only when a step's best in-session relevance is low (or the step
abstained, or names a product the session is not connected to): one more retrieval and
rerank of the step's vector with the session's access predicates left out. The tools
outside the session that out-score everything left are grouped by what they need.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from serving.model.schema import ToolCard
from serving.model.selection import Candidate, SessionContext, Subgoal

MAX_TOOLS_NAMED = 3  # tools listed per missing connection, scope or environment


@dataclass(frozen=True, slots=True)
class MissingAccess:
    """One thing the session lacks and the tools it would enable, best first."""

    kind: str  # connection | scope | env
    name: str
    tool_ids: tuple[str, ...]
    relevance: float  # the best of those tools' relevance (1.0: the step names the product)

    def line(self) -> str:
        verb = {"connection": "connect", "scope": "grant the scope", "env": "switch to env"}
        tools = ", ".join(self.tool_ids) if self.tool_ids else "its tools"
        return f"{verb[self.kind]} {self.name} to use {tools}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "tool_ids": list(self.tool_ids),
            "relevance": round(self.relevance, 4),
        }


def lacked(card: ToolCard, ctx: SessionContext) -> tuple[str, str] | None:
    """(kind, name) of what the session lacks to call `card`, or None if it can."""
    if ctx.restrict_connections and card.requires.connection not in ctx.connections:
        return "connection", card.requires.connection
    if ctx.restrict_scopes and not set(card.requires.scopes) <= ctx.scopes:
        return "scope", ",".join(sorted(set(card.requires.scopes) - ctx.scopes))
    if card.env and ctx.env not in card.env:
        return "env", "|".join(card.env)
    return None


def closest_cosine(candidates: Sequence[Candidate]) -> float:
    """The best retriever cosine (`score_dense`) among `candidates`; -1 where the dense
    retriever found none of them."""
    return max((c.scores.get("score_dense", -1.0) for c in candidates), default=-1.0)


def close_enough(candidate: Candidate, *, closest: float, margin: float) -> bool:
    """Whether the candidate's retriever cosine (`score_dense`; -1 where the dense
    retriever missed it) reaches `closest` (the session's closest tool for the step,
    `closest_cosine` of its filtered candidates) plus `margin`."""
    return candidate.scores.get("score_dense", -1.0) >= closest + margin


def closer_than_session(
    fit: Sequence[Candidate],
    cards: Mapping[str, ToolCard],
    ctx: SessionContext,
    *,
    closest: float,
    margin: float,
) -> list[Candidate]:
    """`fit` less the tools the session lacks that are not `close_enough`."""
    return [c for c in fit if lacked(cards[c.tool_id], ctx) is None
            or close_enough(c, closest=closest, margin=margin)]


def unconnected_products(
    subgoal: Subgoal, distinctive: Collection[str], ctx: SessionContext
) -> list[str]:
    """The distinctive products the step's own words name that the session lacks. A
    product whose family the session has is not lacked: "the old Jira" names jira, and a
    session connected to jira_legacy may mean its own (the family shares the name)."""
    if not ctx.restrict_connections:
        return []
    return [a for a in subgoal.named_access if a in distinctive and a not in ctx.connections
            and not any(same_family(a, c) for c in ctx.connections)]


def same_family(one: str, other: str) -> bool:
    """Two connections of one product family: one's name is the other's plus a suffix
    (jira, jira_legacy)."""
    return one != other and (one.startswith(other + "_") or other.startswith(one + "_"))


def missing_access(
    outside: Sequence[Candidate],
    cards: Mapping[str, ToolCard],
    ctx: SessionContext,
    *,
    above: float,
    named: Collection[str] = (),
    at_most: int = 0,
) -> tuple[MissingAccess, ...]:
    """`outside`: the open lookup's reranked candidates, best first. Every tool the
    session cannot call whose relevance beats `above` (the best in-session relevance),
    grouped by what it lacks, the group with the best tool first; a product in `named`
    (the step names it) is reported even when its tools score lower, and first;
    `at_most`: the most groups named (0: every one)."""
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for c in outside:
        need = lacked(cards[c.tool_id], ctx)
        if need is None:
            continue
        if c.score > above or (need[0] == "connection" and need[1] in named):
            groups.setdefault(need, []).append(c)
    for product in named:  # named, but nothing of it was retrieved for this step
        groups.setdefault(("connection", product), [])
    out = [
        MissingAccess(
            kind,
            name,
            tuple(c.tool_id for c in found[:MAX_TOOLS_NAMED]),
            1.0 if name in named and kind == "connection" else max(c.score for c in found),
        )
        for (kind, name), found in groups.items()
    ]
    ordered = sorted(out, key=lambda m: -m.relevance)
    return tuple(ordered[:at_most] if at_most else ordered)

"""What one request's discovery returns: each step's way through the pipeline
(`StepResult`) and the request as a whole (`Discovery`), with its trace record."""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from serving.calls.policy import PolicyDecision
from serving.model.config import utc_now
from serving.model.selection import Candidate, Selection, SessionContext, Subgoal
from serving.stages.abstain import SIGNAL_NAMES, Abstention
from serving.stages.disclose import Disclosure
from serving.stages.missing_access import MissingAccess
from serving.stages.retrieve import relevance_first, weighted_rrf


@dataclass(frozen=True, slots=True)
class StepResult:
    """One subgoal's way through the pipeline: the four stage sets and their costs."""

    subgoal: Subgoal
    retrieved: tuple[Candidate, ...]
    filtered: tuple[Candidate, ...]
    menu: tuple[Candidate, ...]
    dropped: tuple[tuple[str, str], ...]
    discovery: Disclosure
    selection: Disclosure
    decisions: Mapping[str, PolicyDecision]
    timings_ms: Mapping[str, float]
    # the reranker's first `menu_size` above the ranker's own calibrated floor, before the
    # menu's bars and the no-tool decision: the request-level order reads these, so a
    # menu sized by relevance leaves that order as it was
    shortlist: tuple[Candidate, ...] = ()
    signals: tuple[float, ...] = ()  # `serving.stages.abstain.step_signals`, SIGNAL_NAMES order
    abstention: Abstention | None = None  # why the menu is empty, when it is
    missing: tuple[MissingAccess, ...] = ()  # what the session lacks for better tools
    # the first `PAIR_TOP` reranked tools, which the `pair_served` signal reads (the
    # offline replays refit the pair head on them)
    pair_tools: tuple[str, ...] = ()

    @property
    def menu_ids(self) -> list[str]:
        return [c.tool_id for c in self.menu]

    @property
    def abstained(self) -> bool:
        """No tool in the session fits: the agent answers, asks, or reports `missing`."""
        return not self.menu

    @property
    def wider(self) -> list[str]:
        """The menu followed by what the rerank cut, for recovery and `search_tools`."""
        return self.menu_ids + [t for t, why in self.dropped if why.startswith("rerank:")]

    def final_order(self) -> list[str]:
        """Every candidate that passed the filters, in the runtime's order: the menu, what
        the rerank cut (its order), then what it did not score (fused order)."""
        ranked = self.wider
        seen = set(ranked)
        return ranked + [c.tool_id for c in self.filtered if c.tool_id not in seen]

    def to_dict(self) -> dict[str, Any]:
        return {
            "subgoal": self.subgoal.to_dict(),
            "retrieved": [c.tool_id for c in self.retrieved],
            "filtered": [c.tool_id for c in self.filtered],
            "menu": [{"tool_id": c.tool_id, "score": round(c.score, 4)} for c in self.menu],
            "dropped": [
                {"tool_id": t, "reason": r} for t, r in self.dropped if not r.startswith("rerank:")
            ],
            "discovery": self.discovery.to_dict(),
            "selection": self.selection.to_dict(),
            "policy": {t: d.to_dict() for t, d in self.decisions.items()},
            "abstention": None if self.abstention is None else self.abstention.to_dict(),
            "missing": [m.to_dict() for m in self.missing],
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
        }


DEFAULT_RANKED = 20  # request-level tools listed by `Discovery.to_dict`

INTENT_COLUMN = SIGNAL_NAMES.index("request_intent")


@dataclass(frozen=True, slots=True)
class RankedStep:
    """One step after the rerank, before its menu: what `Selector._finish_one` needs."""

    vector: np.ndarray
    selection: Selection  # after the rerank
    retrieved: tuple[Candidate, ...]
    filtered: tuple[Candidate, ...]
    lacking: tuple[str, ...]  # products the step names that the session lacks
    signals: np.ndarray
    p_served: float | None  # the no-tool model's; None: it does not decide this step
    depth: int
    decide_ms: float
    # the whole request's stock embedding, which the pair head reads (None: no pair head)
    request_vector: np.ndarray | None = None
    pair_tools: tuple[str, ...] = ()  # the first reranked tools, which `pair_served` reads


@dataclass(frozen=True, slots=True)
class Discovery:
    request_id: str
    request: str
    context: SessionContext
    steps: tuple[StepResult, ...]
    timings_ms: Mapping[str, float]
    # the whole request through the same stages, when it was split (or rephrased) into
    # subgoals and `request_weight` > 0: request-level results fuse it with the subgoals'
    request_step: StepResult | None = None
    request_weight: float = 0.0
    rrf_k: int = 60
    request_order: str = "rrf"  # `RuntimeParams.request_order`
    # what the runtime's bounds cut from this request (`bounded_request`, `rerank_depth`)
    warnings: tuple[str, ...] = ()

    @property
    def menu_tokens(self) -> int:
        return sum(s.discovery.tokens + s.selection.tokens for s in self.steps)

    def ranked(self) -> list[str]:
        """The request-level order of tools: reciprocal rank fusion of each subgoal's order
        (together weight 1) and the whole request's (weight `request_weight`), so a
        request split into parts still ranks what the request as a whole asks for first,
        and one part's tail never pushes another part's best tool down. `relevance`: the
        tools of every menu (subgoals' and the request's) first, by the best relevance any
        of them gives a tool, then that fused order."""
        steps = [*self.steps, *([] if self.request_step is None else [self.request_step])]
        weights = [1.0 / max(1, len(self.steps))] * len(self.steps) + [self.request_weight] * (
            len(steps) - len(self.steps)
        )
        fused = weighted_rrf([s.final_order() for s in steps], weights, k=self.rrf_k)
        if self.request_order == "rrf":
            return fused
        return relevance_first([[(c.tool_id, c.score) for c in s.shortlist] for s in steps], fused)

    @property
    def abstained(self) -> bool:
        """Every step abstained: no tool in the session serves any part of the request."""
        return all(s.abstained for s in self.steps)

    def missing(self) -> list[MissingAccess]:
        """What the session lacks, over every step (first mention of each), best first."""
        seen: dict[tuple[str, str], MissingAccess] = {}
        for step in self.steps:
            for m in step.missing:
                seen.setdefault((m.kind, m.name), m)
        return sorted(seen.values(), key=lambda m: -m.relevance)

    def menu_ranked(self) -> list[str]:
        """`ranked` restricted to the tools on some step's menu: what a search offers."""
        on_menu = {t for s in self.steps for t in s.menu_ids}
        return [t for t in self.ranked() if t in on_menu]

    def search_hits(self, limit: int, among: Container[str] | None = None) -> list[str]:
        """What a `search_tools` call offers, for the selector's meta-tool and the gateway
        alike: the menus' tools in request order (a tool no menu kept never pads a
        search, and a search that abstains offers nothing), those in `among` only (e.g.
        the tools the gateway serves, quarantine aside), at most `limit`."""
        found = [t for t in self.menu_ranked() if among is None or t in among]
        return found[:limit]

    def trace_record(
        self,
        chosen: Sequence[str | None] | None = None,
        success: Sequence[bool | None] | None = None,
        *,
        outcome: str = "",
    ) -> dict[str, Any]:
        """The JSONL trace line for this request: the four stage sets per subgoal, what the
        model chose and whether it worked (a step is a training event only when both are
        known), and per-stage latency."""
        n = len(self.steps)
        chosen = list(chosen or [None] * n)
        success = list(success or [None] * n)
        steps = []
        for step, tool_id, ok in zip(self.steps, chosen, success, strict=True):
            event = tool_id is not None and ok is not None
            steps.append(
                {
                    "subgoal": step.subgoal.text,
                    "operations": list(step.subgoal.operations),
                    "mutation": step.subgoal.mutation,
                    "retrieved": [c.tool_id for c in step.retrieved],
                    "filtered": [c.tool_id for c in step.filtered],
                    "menu": step.menu_ids,
                    "abstained": step.abstained,
                    "chosen": tool_id,
                    "tool_id": tool_id if event else None,
                    "success": ok,
                    "latency_ms": {k: round(v, 3) for k, v in step.timings_ms.items()},
                }
            )
        return {
            "request_id": self.request_id,
            "ts": utc_now(),
            "request": self.request,
            "context": self.context.to_dict(),
            "steps": steps,
            "outcome": outcome,
            "latency_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "request": self.request,
            "context": self.context.to_dict(),
            "steps": [s.to_dict() for s in self.steps],
            "request_step": None if self.request_step is None else self.request_step.to_dict(),
            "ranked": self.ranked()[:DEFAULT_RANKED],
            "menu_tokens": self.menu_tokens,
            "abstained": self.abstained,
            "missing": [m.to_dict() for m in self.missing()],
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "warnings": list(self.warnings),
        }

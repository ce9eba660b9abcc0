"""After the model picks: gate, validate, then the risk policy, in that order; then the
call runs and its result comes back capped.

Each check runs in code whatever the prompt or any tool description says; the first
that fails answers the model with a structured, verbatim error. Only an `allow` verdict
runs (`run_call`), through the agent's own executor; what the tool returns is normalised
and capped for the prompt (`serving.calls.observe`), and the whole payload stays in the
session's `ObservationStore` behind the observation's handle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from serving.calls.gate import SEARCH_TOOLS_DEFINITION, SEARCH_TOOLS_NAME, ActiveSet, gate
from serving.calls.observe import CappedObservation, ObservationStore, cap_observation
from serving.calls.policy import Decision, RiskPolicy
from serving.calls.validate import schema_errors, validate_arguments
from serving.model.schema import ToolCard
from serving.model.selection import SessionContext, Subgoal


@dataclass(frozen=True, slots=True)
class CallVerdict:
    tool_id: str
    status: str  # "not_available" | "invalid_arguments" | allow | confirm | dry_run | deny
    errors: tuple[str, ...] = ()
    reason: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def may_execute(self) -> bool:
        return self.status == Decision.ALLOW.value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool_id": self.tool_id, "status": self.status}
        if self.errors:
            out["errors"] = list(self.errors)
        if self.reason:
            out["reason"] = self.reason
        if self.detail:
            out.update(self.detail)
        return out


def check_call(
    tool_id: str,
    args: Mapping[str, Any],
    *,
    active: ActiveSet,
    cards: Mapping[str, ToolCard],
    subgoal: Subgoal,
    context: SessionContext,
    policy: RiskPolicy,
) -> CallVerdict:
    gated = gate(tool_id, active)
    if not gated.allowed:
        return CallVerdict(gated.tool_id, "not_available", detail=dict(gated.error))
    if not isinstance(args, Mapping):
        problem = f"arguments: expected an object, got {type(args).__name__}"
        return CallVerdict(tool_id, "invalid_arguments", errors=(problem,))
    if tool_id == SEARCH_TOOLS_NAME:  # the meta-tool only reads the catalog
        errors = schema_errors(SEARCH_TOOLS_DEFINITION["input_schema"], args)
        status = "invalid_arguments" if errors else Decision.ALLOW.value
        return CallVerdict(tool_id, status, errors=tuple(errors), reason="meta-tool")
    card = cards.get(tool_id)
    if card is None:  # in the active set but not in this catalog: refuse, never KeyError
        detail = {"error": "tool_not_available", "tool_id": tool_id, "available": []}
        return CallVerdict(tool_id, "not_available", detail=detail)
    errors = validate_arguments(card, args, subgoal_mutates=subgoal.mutation, context=context)
    if errors:
        return CallVerdict(tool_id, "invalid_arguments", errors=tuple(errors))
    decision = policy.decide(card)
    return CallVerdict(tool_id, decision.decision.value, reason=decision.reason)


# --- the result comes back --------------------------------------------------------------

ToolRunner = Callable[[str, Mapping[str, Any]], Any]  # (tool_id, args) -> the tool's result


@dataclass(frozen=True, slots=True)
class ObservationLimits:
    """How much of a tool's result the model sees; the rest stays behind the handle.

    The defaults (about 1,000 prompt tokens) are a starting point, not a measured optimum.
    """

    max_bytes: int = 4_000
    max_items: int = 20
    max_depth: int = 3


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """A call's verdict and, when the call ran, what came back (capped)."""

    verdict: CallVerdict
    observation: CappedObservation | None = None  # None: the call did not run

    def to_dict(self) -> dict[str, Any]:
        """The reply for the model: the verdict, plus the capped result and its handle."""
        out = self.verdict.to_dict()
        if self.observation is not None:
            out.update(self.observation.to_dict())
        return out


def run_call(
    verdict: CallVerdict,
    args: Mapping[str, Any],
    runner: ToolRunner,
    *,
    store: ObservationStore,
    limits: ObservationLimits | None = None,
) -> CallOutcome:
    """Run a call the checks allowed and cap its result; any other verdict runs nothing.

    `confirm`, `dry_run`, `deny` and the errors come back as the verdict alone: the agent
    asks the user, or the model corrects its call. The runner's whole result is kept in
    `store` (fetch it by `observation.handle`); the model sees the capped view, within
    `limits` (default `ObservationLimits()`).
    """
    if not verdict.may_execute:
        return CallOutcome(verdict)
    limits = limits or ObservationLimits()
    result = runner(verdict.tool_id, args)
    observation = cap_observation(
        result,
        max_bytes=limits.max_bytes,
        max_items=limits.max_items,
        max_depth=limits.max_depth,
        store=store,
    )
    return CallOutcome(verdict, observation)

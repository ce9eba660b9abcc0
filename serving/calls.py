"""After the model picks: gate, validate, then the risk policy, in that order.

Each check runs in code whatever the prompt or any tool description says; the first
that fails answers the model with a structured, verbatim error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from serving.gate import SEARCH_TOOLS_DEFINITION, SEARCH_TOOLS_NAME, ActiveSet, gate
from serving.policy import Decision, RiskPolicy
from serving.schema import ToolCard
from serving.types import SessionContext, Subgoal
from serving.validate import schema_errors, validate_arguments


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
        return CallVerdict(tool_id, "not_available", detail=dict(gated.error))
    if tool_id == SEARCH_TOOLS_NAME:  # the meta-tool only reads the catalog
        errors = schema_errors(SEARCH_TOOLS_DEFINITION["input_schema"], args)
        status = "invalid_arguments" if errors else Decision.ALLOW.value
        return CallVerdict(tool_id, status, errors=tuple(errors), reason="meta-tool")
    card = cards[tool_id]
    errors = validate_arguments(card, args, subgoal_mutates=subgoal.mutation, context=context)
    if errors:
        return CallVerdict(tool_id, "invalid_arguments", errors=tuple(errors))
    decision = policy.decide(card)
    return CallVerdict(tool_id, decision.decision.value, reason=decision.reason)

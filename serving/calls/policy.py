"""The risk policy: allow, confirm, dry-run or deny a tool call, whatever the text says.

Tool descriptions are attacker-controlled, so a decision reads only a card's `tool_id`
and `risk` and the policy's own config, never its description, summary or examples.
Precedence, first match wins:
1. `denylist`: the tool id is denied, always;
2. `risk_ceiling`: a tool riskier than the ceiling is denied (an override cannot lift it);
3. `by_tool`: a per-tool decision, stricter or looser than its risk level's;
4. `by_risk`: the decision for the card's risk level.
A risk level the policy does not know is denied (fail closed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from serving.model.schema import RISKS, TOOL_ID_RE, FieldError, ToolCard


class Decision(StrEnum):
    ALLOW = "allow"
    CONFIRM = "confirm"  # a human approves this call before it runs
    DRY_RUN = "dry_run"  # run without side effects, show the model what would happen
    DENY = "deny"


DEFAULT_BY_RISK: Mapping[str, Decision] = {
    "read_only": Decision.ALLOW,
    "write": Decision.CONFIRM,
    "destructive": Decision.DENY,
}
POLICY_KEYS = ("by_risk", "by_tool", "denylist", "risk_ceiling")


class PolicyConfigError(FieldError):
    """A policy config key is unknown or holds a bad value; `field` names the key."""


@dataclass(frozen=True, slots=True)
class PolicyDecision:
    decision: Decision
    reason: str  # "<rule>: <why>", rule in denylist | risk_ceiling | by_tool | by_risk

    def to_dict(self) -> dict[str, str]:
        return {"decision": self.decision.value, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class RiskPolicy:
    by_risk: Mapping[str, Decision] = field(default_factory=lambda: dict(DEFAULT_BY_RISK))
    by_tool: Mapping[str, Decision] = field(default_factory=dict)
    denylist: frozenset[str] = frozenset()
    risk_ceiling: str = "destructive"

    def __post_init__(self) -> None:
        if self.risk_ceiling not in RISKS:
            raise PolicyConfigError("risk_ceiling", _unknown(self.risk_ceiling, RISKS))
        for name, table in (("by_risk", self.by_risk), ("by_tool", self.by_tool)):
            for key, value in table.items():
                if not isinstance(value, Decision):
                    raise PolicyConfigError(f"{name}.{key}", f"expected a Decision, got {value!r}")
        for level in self.by_risk:
            if level not in RISKS:
                raise PolicyConfigError(f"by_risk.{level}", _unknown(level, RISKS))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> RiskPolicy:
        """Build from a config section (e.g. `runtime.policy` in params.yaml).

        Every key is optional; `by_risk` entries override the defaults one level at a
        time. Unknown keys, risk levels or decisions raise `PolicyConfigError`.
        """
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise PolicyConfigError("<policy>", "expected a mapping")
        unknown = sorted(set(data) - set(POLICY_KEYS))
        if unknown:
            raise PolicyConfigError(
                ", ".join(map(str, unknown)), f"unknown key (expected {', '.join(POLICY_KEYS)})"
            )

        by_risk = dict(DEFAULT_BY_RISK)
        for level, value in _mapping(data, "by_risk").items():
            if level not in RISKS:
                raise PolicyConfigError(f"by_risk.{level}", _unknown(level, RISKS))
            by_risk[level] = _decision(f"by_risk.{level}", value)

        by_tool = {}
        for tool_id, value in _mapping(data, "by_tool").items():
            _check_tool_id(f"by_tool.{tool_id}", tool_id)
            by_tool[tool_id] = _decision(f"by_tool.{tool_id}", value)

        denylist = data.get("denylist") or []
        if not isinstance(denylist, list | tuple):
            raise PolicyConfigError("denylist", "expected a list of tool ids")
        for i, tool_id in enumerate(denylist):
            _check_tool_id(f"denylist[{i}]", tool_id)

        ceiling = data.get("risk_ceiling", "destructive")
        if ceiling not in RISKS:
            raise PolicyConfigError("risk_ceiling", _unknown(ceiling, RISKS))
        return cls(
            by_risk=by_risk, by_tool=by_tool, denylist=frozenset(denylist), risk_ceiling=ceiling
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "by_risk": {k: v.value for k, v in sorted(self.by_risk.items())},
            "by_tool": {k: v.value for k, v in sorted(self.by_tool.items())},
            "denylist": sorted(self.denylist),
            "risk_ceiling": self.risk_ceiling,
        }

    def decide(self, card: ToolCard) -> PolicyDecision:
        """The decision for calling `card`; reads only its tool id and risk."""
        return self.decide_for(card.tool_id, card.risk)

    def decide_for(self, tool_id: str, risk: str) -> PolicyDecision:
        if tool_id in self.denylist:
            return PolicyDecision(Decision.DENY, f"denylist: {tool_id} is on the policy denylist")
        if risk not in RISKS or risk not in self.by_risk:
            return PolicyDecision(Decision.DENY, f"by_risk: unknown risk level {risk!r}")
        if RISKS.index(risk) > RISKS.index(self.risk_ceiling):
            return PolicyDecision(
                Decision.DENY, f"risk_ceiling: risk {risk} is above the ceiling {self.risk_ceiling}"
            )
        if tool_id in self.by_tool:
            decision = self.by_tool[tool_id]
            return PolicyDecision(decision, f"by_tool: {tool_id} -> {decision.value}")
        decision = self.by_risk[risk]
        return PolicyDecision(decision, f"by_risk: {risk} -> {decision.value}")

    def unknown_tools(self, catalog_ids: Iterable[str]) -> list[str]:
        """Tool ids the policy names that the catalog lacks (typos, removed tools)."""
        return sorted((set(self.by_tool) | self.denylist) - set(catalog_ids))


def _unknown(value: object, choices: Iterable[str]) -> str:
    return f"unknown value {value!r} (expected one of {', '.join(choices)})"


def _mapping(data: Mapping[str, Any], key: str) -> Mapping[Any, Any]:
    value = data.get(key) or {}
    if not isinstance(value, Mapping):
        raise PolicyConfigError(key, "expected a mapping")
    return value


def _decision(key: str, value: Any) -> Decision:
    try:
        return Decision(value)
    except ValueError:
        raise PolicyConfigError(key, _unknown(value, [d.value for d in Decision])) from None


def _check_tool_id(key: str, tool_id: Any) -> None:
    if not isinstance(tool_id, str) or not TOOL_ID_RE.match(tool_id):
        raise PolicyConfigError(key, f"{tool_id!r} is not a tool id of the form 'server.tool'")

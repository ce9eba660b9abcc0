"""Deterministic hard filters: every removal carries its reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from serving.calls.policy import Decision, RiskPolicy
from serving.model.schema import RISKS, ToolCard
from serving.model.selection import Selection, SessionContext
from serving.stages.retrieve import access_problem

RISK_ORDER = {risk: i for i, risk in enumerate(RISKS)}


@dataclass(frozen=True, slots=True)
class HardFilter:
    """Removes candidates the subgoal or the session must not get, with a reason each.

    - intent: read subgoals get read tools and write subgoals write tools (a subgoal
      with no recognised operation keeps both: we do not know its intent; so does a tool
      whose risk an importer guessed rather than its author declared);
    - access: connection, scopes, env (exact-name matches bypass the retrievers' mask,
      so the reason reaches the user here);
    - policy: the denylist, the risk ceiling, and any tool the risk policy would deny
      anyway (offering it would only waste a menu slot).
    """

    cards: Mapping[str, ToolCard]
    context: SessionContext
    policy: RiskPolicy = field(default_factory=RiskPolicy)
    # False: leave the session's access predicates out (the lookup that names what a
    # session lacks, `serving.stages.missing_access`, asks what would fit with every connection)
    check_access: bool = True

    def reason(self, card: ToolCard, sel: Selection) -> str | None:
        if card.tool_id in self.policy.denylist:
            return "filter:denylist"
        if RISK_ORDER[card.risk] > RISK_ORDER[self.policy.risk_ceiling]:
            return "filter:risk_ceiling"
        if self.policy.decide(card).decision == Decision.DENY:
            return "filter:policy_deny"
        problem = access_problem(card, self.context) if self.check_access else None
        if problem:
            return problem
        # the intent filter removes only what it is sure of: a risk an importer guessed from
        # the name ("derived") is no evidence that a tool cannot serve the subgoal; the risk
        # policy still decides what a write may do, so nothing is widened by keeping it
        if sel.subgoal.operations and "risk" not in card.derived:
            if card.mutates and not sel.subgoal.mutation:
                return "filter:write_tool_for_read"
            if not card.mutates and sel.subgoal.mutation:
                return "filter:read_tool_for_write"
        return None

    def __call__(self, sel: Selection) -> Selection:
        kept, dropped = [], list(sel.dropped)
        for cand in sel.candidates:
            why = self.reason(self.cards[cand.tool_id], sel)
            if why is None:
                kept.append(cand)
            else:
                dropped.append((cand.tool_id, why))
        return replace(sel, candidates=tuple(kept), dropped=tuple(dropped))

"""`CallFacade`: the call path as methods of the selector, for the model's pick from one
step's menu: `check_call` (gate, validate, risk policy) and `call` (check, run, cap).

A mixin: the class that inherits it holds the catalog's `cards` and the risk `policy`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from serving.calls.gate import ActiveSet
from serving.calls.observe import ObservationStore
from serving.calls.policy import RiskPolicy
from serving.calls.run import (
    CallOutcome,
    CallVerdict,
    ObservationLimits,
    ToolRunner,
    check_call,
    run_call,
)
from serving.model.schema import ToolCard
from serving.model.selection import SessionContext
from serving.results import StepResult


class CallFacade:
    """`check_call` and `call` over `self.cards` and `self.policy`."""

    cards: dict[str, ToolCard]
    policy: RiskPolicy

    def check_call(
        self,
        step: StepResult,
        tool_id: str,
        args: Mapping[str, Any],
        context: SessionContext | Mapping[str, Any] | None,
        *,
        active: ActiveSet | None = None,
    ) -> CallVerdict:
        """Gate, validate and apply the risk policy to the model's pick for one step."""
        ctx = context if isinstance(context, SessionContext) else SessionContext.from_dict(context)
        return check_call(
            tool_id,
            args,
            active=active if active is not None else ActiveSet.of(step.menu_ids),
            cards=self.cards,
            subgoal=step.subgoal,
            context=ctx,
            policy=self.policy,
        )

    def call(
        self,
        step: StepResult,
        tool_id: str,
        args: Mapping[str, Any],
        context: SessionContext | Mapping[str, Any] | None,
        *,
        runner: ToolRunner,
        store: ObservationStore,
        active: ActiveSet | None = None,
        limits: ObservationLimits | None = None,
    ) -> CallOutcome:
        """Check the model's pick (`check_call`), run it through `runner` only when the
        verdict is allow, and cap what comes back; the whole result stays in `store`
        (one store per agent session) behind the observation's handle. `limits`: how much
        the model sees (default `ObservationLimits()`)."""
        verdict = self.check_call(step, tool_id, args, context, active=active)
        return run_call(verdict, args, runner, store=store, limits=limits)

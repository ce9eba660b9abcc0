"""How many candidates the cross-encoder scores for a ranker that reads its logit.

A cross-encoder pass is most of a step's time on a CPU, and a ranker may not need it for
every candidate: the dense order's tail rarely wins, and a step whose retriever leads by a
wide cosine margin rarely changes its first tool. `serving.stages.ranker_features.LogitBudget`
says which candidates are scored (the `depth` first in the dense order, none when the lead
is at least `skip_gap`); the others reach the ranker with their logit missing.

The replay scores every candidate once and records, for each budget of the grid, the logit
columns the runtime would compute under it, over the full candidate list the runtime sees
(`training.ltr.groups.logit_view`, before the gold's equivalents leave the group). A
ranker is fit per budget on those columns and scored on the valid groups; the cheapest
budget (fewest pairs a valid group) whose MRR is within `logit_budget_tolerance` of the
full budget's is kept (`choose_budget`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import product

import numpy as np

from serving.stages.ranker_features import LogitBudget
from training.ltr.groups import LOGIT_COLUMNS, Groups


def budget_grid(depths: Iterable[int], skip_gaps: Iterable[float]) -> tuple[LogitBudget, ...]:
    """Every (depth, skip_gap) pair, the full budget (0, 0) first."""
    grid = [LogitBudget(int(d), float(g)) for d, g in product(depths, skip_gaps)]
    full = LogitBudget()
    return (full, *dict.fromkeys(b for b in grid if b != full))


def under_budget(groups: Groups, budget: LogitBudget) -> Groups:
    """`groups` with the logit columns of `budget` (recorded by the replay)."""
    if groups.logit_views is None or budget not in groups.logit_views:
        raise KeyError(f"the replay recorded no logit view for {budget}")
    features = groups.features.copy()
    features[:, LOGIT_COLUMNS] = groups.logit_views[budget]
    return replace(groups, features=features)


@dataclass(frozen=True)
class BudgetTrial:
    budget: LogitBudget
    mrr: float  # the ranker fit under it, on the valid groups under it
    pairs: float  # mean pairs the cross-encoder scores in a valid group
    skipped: float  # share of the valid groups it does not run on

    def to_dict(self) -> dict[str, float]:
        return {"depth": self.budget.depth, "skip_gap": self.budget.skip_gap,
                "mrr": self.mrr, "pairs": self.pairs, "skipped": self.skipped}


def try_budgets(
    budgets: Sequence[LogitBudget],
    train: Groups,
    valid: Groups,
    reciprocal_ranks: Callable[[Groups, Groups], np.ndarray],
) -> list[BudgetTrial]:
    """Each budget's trial: `reciprocal_ranks(train, valid)` (fit on the first, the valid
    groups' reciprocal ranks) under it."""
    trials = []
    for budget in budgets:
        rr = reciprocal_ranks(under_budget(train, budget), under_budget(valid, budget))
        pairs = valid.logit_pairs[budget] if valid.logit_pairs is not None else np.zeros(0)
        trials.append(BudgetTrial(
            budget, float(np.mean(rr)) if rr.size else 0.0,
            float(pairs.mean()) if pairs.size else 0.0,
            float((pairs == 0).mean()) if pairs.size else 0.0,
        ))
    return trials


def choose_budget(trials: Sequence[BudgetTrial], tolerance: float) -> BudgetTrial:
    """The cheapest trial (fewest pairs; then the higher MRR) whose MRR is within `tolerance`
    of the full budget's (every candidate scored). Measured against the full budget, not the
    best trial: the best of many on a few dozen valid groups is mostly luck."""
    full = next((t for t in trials if t.budget == LogitBudget()), None)
    if full is None:
        raise ValueError("choose_budget: the trials lack the full budget")
    good = [t for t in trials if t.mrr >= full.mrr - tolerance]
    return min(good, key=lambda t: (t.pairs, -t.mrr))

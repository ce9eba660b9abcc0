"""Menus cut offline as the runtime cuts them: requests replayed through a selector (per
step its signals and shortlist), and the R_menu and menu length of a set of bars over
them. `tune_menus` chooses a trained bundle's bars with it, `stock_bars` the stock ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from serving.model.schema import LabeledQuery, ToolCard
from serving.model.selection import Candidate
from serving.stages.menu_policy import MenuBars, cut_menu


@dataclass(frozen=True, slots=True)
class Replayed:
    """One held-out request through the runtime: per step its signals and shortlist."""

    query_id: str
    half: str  # fit | tune
    family: str  # "served" for a request with gold, else its no-tool family
    gold: frozenset[str]
    signals: tuple[np.ndarray, ...]
    shortlists: tuple[tuple[Candidate, ...], ...]

    @property
    def served(self) -> bool:
        return bool(self.gold)


def replay(
    selector: Any, queries: Sequence[LabeledQuery], half: Mapping[str, str], *, desc: str
) -> list[Replayed]:
    """Each query through `selector.discover` in its session (`half`: query id -> half)."""
    from tqdm.auto import tqdm

    out = []
    for q in tqdm(queries, desc=desc, unit="q", mininterval=5):
        found = selector.discover(q.query, q.context)
        out.append(Replayed(
            q.query_id, half[q.query_id], "served" if q.gold else (q.slices or ("none",))[0],
            frozenset(q.gold), tuple(np.asarray(s.signals) for s in found.steps),
            tuple(s.shortlist for s in found.steps),
        ))
    return out


class SharedCuts:
    """`cut_menu` over the steps of one grid's rows (`(i, j)`: row i's step j), each step's
    cut computed once per distinct reading of the bars. `cut_menu` reads the bars only
    through which of the step's candidates fall below their risk's bar, below the
    relative and the write-relative share of the best, and the mass bar; bars that agree
    on those cut the step alike, and most of a grid's points do."""

    def __init__(self, cards: Mapping[str, ToolCard], *, size: int, keep_best: bool) -> None:
        self.cards, self.size, self.keep_best = cards, size, keep_best
        self._below: dict[tuple[Any, ...], int] = {}  # (step, bar kind, bar) -> reading
        self._readings: dict[tuple[bool, ...], int] = {}  # a reading -> its small id
        self._menus: dict[tuple[Any, ...], tuple[str, ...]] = {}
        self.n_cuts = 0  # `cut_menu` calls made, for the stage's log

    def _reading(self, step: tuple[int, int], shortlist: Sequence[Candidate], kind: str,
                 bar: Any) -> int:
        key = (step, kind, bar)
        if key not in self._below:
            best = max((c.score for c in shortlist), default=0.0)
            if kind == "bar":
                bars = MenuBars(*bar)
                below = tuple(c.score < bars.bar(self.cards[c.tool_id]) for c in shortlist)
            else:
                below = tuple(c.score < bar * best for c in shortlist)
            self._below[key] = self._readings.setdefault(below, len(self._readings))
        return self._below[key]

    def menu(self, step: tuple[int, int], shortlist: Sequence[Candidate],
             bars: MenuBars) -> tuple[str, ...]:
        """The tool ids `cut_menu` keeps of `shortlist` under `bars`."""
        key = (step, self._reading(step, shortlist, "bar", (bars.read, bars.write)),
               self._reading(step, shortlist, "relative", bars.relative),
               self._reading(step, shortlist, "write_relative", bars.write_relative),
               bars.mass)
        if key not in self._menus:
            kept = cut_menu(shortlist, self.cards, bars, size=self.size,
                            keep_best=self.keep_best)[0]
            self._menus[key] = tuple(c.tool_id for c in kept)
            self.n_cuts += 1
        return self._menus[key]


def menu_point(
    rows: Sequence[Replayed],
    abstains: Sequence[Sequence[bool]],
    bars: MenuBars,
    cards: Mapping[str, ToolCard],
    *,
    size: int,
    keep_best: bool = True,
    cuts: SharedCuts | None = None,
) -> dict[str, float]:
    """R_menu (per gold tool) and mean menu length over the requests with gold, and the
    abstain rates, of one operating point: the steps `abstains` marks have no menu, the
    others are cut as the runtime cuts them. `cuts`: shared by the points of one grid
    (built for the same rows, cards, size and keep_best)."""
    cuts = cuts or SharedCuts(cards, size=size, keep_best=keep_best)
    hits: list[bool] = []
    lengths: list[int] = []
    abstained: dict[bool, list[bool]] = {True: [], False: []}
    for i, (row, marks) in enumerate(zip(rows, abstains, strict=True)):
        menus = [() if mark else cuts.menu((i, j), shortlist, bars)
                 for j, (shortlist, mark) in enumerate(zip(row.shortlists, marks, strict=True))]
        abstained[row.served].append(not any(menus))
        if row.served:
            offered = {t for m in menus for t in m}
            hits.extend(g in offered for g in row.gold)
            lengths.extend(len(m) for m in menus)
    return {
        **bars.to_dict(),
        "r_menu": float(np.mean(hits)) if hits else 0.0,
        "menu_length": float(np.mean(lengths)) if lengths else 0.0,
        "false_abstain": float(np.mean(abstained[True])) if abstained[True] else 0.0,
        "abstain_rate": float(np.mean(abstained[False])) if abstained[False] else 0.0,
    }

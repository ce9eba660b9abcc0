"""Menus sized by relevance: the bars a tool must clear, and the bundle's menu policy.

A menu holds the tools that clear a calibrated bar (a write or destructive tool a higher
one than a read tool: a write at low relevance is a risk with no benefit) and stay within
a ratio of the step's best, at most `menu_size` of them, never padded below the bars. A
tool the step names exactly always stays. The `tune_menus` stage chooses the bars and the
no-tool model (`serving.stages.abstain`) on validation steps and writes them to `models/menus/`;
the bundle carries the file as `menus.json`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serving.model.schema import ToolCard
from serving.model.selection import Candidate, Subgoal
from serving.model.vocab import WRITE_FAMILIES, parse_capability
from serving.stages.abstain import NoToolModel

MENU_POLICY_FILE = "menus.json"
# the policy a stock bundle runs with (`bundle from-servers`, `export --menus stock`): a
# no-tool model chosen on public requests over stock bundles (`training.train_no_tool`)
STOCK_MENUS = Path(__file__).resolve().parent / "data" / "stock_menus.json"
WRITE_RISKS = frozenset(("write", "destructive"))


@dataclass(frozen=True, slots=True)
class MenuBars:
    """Calibrated relevance a tool needs to stay on the menu."""

    read: float = 0.0  # a read-only tool below this leaves
    write: float = 0.0  # a write or destructive tool below this leaves
    relative: float = 0.0  # a tool below this share of the step's best relevance leaves
    # once the menu holds this share of the relevance of the step's first `size`
    # candidates, the rest leave (1.0: never): a confident step gets a short menu and an
    # unsure one a longer one, where absolute bars would empty the unsure one
    mass: float = 1.0
    # a write or destructive tool below this share of the step's best leaves: a write
    # offered far below the step's best is a risk with no benefit
    write_relative: float = 0.0

    def __post_init__(self) -> None:
        for name in ("read", "write", "relative", "mass", "write_relative"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"menu bars: {name} {value} is not in [0, 1]")

    def bar(self, card: ToolCard) -> float:
        return self.write if card.risk in WRITE_RISKS else self.read

    def to_dict(self) -> dict[str, float]:
        out = {"read": self.read, "write": self.write, "relative": self.relative,
               "mass": self.mass}
        if self.write_relative:
            out["write_relative"] = self.write_relative
        return out


def is_exact(c: Candidate) -> bool:
    """The step names this tool exactly (set by the fuse stage)."""
    return c.scores.get("exact", 0.0) > 0


def cut_menu(
    ranked: Sequence[Candidate],
    cards: Mapping[str, ToolCard],
    bars: MenuBars,
    *,
    size: int,
    keep_best: bool = False,
    caution_bar: float = 0.0,
    no_writes: bool = False,
    other_operations: Collection[str] = frozenset(),
) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """The menu (at most `size`, in `ranked`'s order) and every other candidate with its
    reason, in `ranked`'s order: `rerank:below_bar` (its risk's bar), `rerank:below_relative`
    (under `bars.relative` of the best), `rerank:below_mass` (the menu already holds
    `bars.mass` of the relevance of `ranked[:size]`), `rerank:below_menu` (past `size`), and
    `rerank:other_product` when the step names a product (`rerank.named_first` marks its
    tools with group 1) and one of that product's tools clears its bar: a user who names a product
    means it, so another product's tool is no alternative.

    `keep_best`: `ranked[0]` stays whatever its relevance (the no-tool model has already
    said some tool serves the step; the bars then trim its alternatives, and a step's best
    write no longer empties a menu a read below it would have filled).

    A card with `cautions` (a third-party text the lint warned about) stays only when the
    step names it exactly or its relevance reaches `caution_bar` (`rerank:caution`): a
    search must clearly ask for it, and `keep_best` does not keep it.

    A write or destructive tool also leaves below `bars.write_relative` of the best
    (`rerank:write_below_relative`), and every one leaves when `no_writes`
    (`rerank:unconnected_product`: the step names a product the session is not connected
    to, so a write of another product would act in the wrong place), unless named exactly;
    so does every one in `other_operations` (`rerank:other_operation`: it does something
    else than the step asks, `other_operation`)."""
    best = max((c.score for c in ranked), default=0.0)

    def held_back(c: Candidate) -> bool:
        return bool(cards[c.tool_id].cautions) and c.score < caution_bar and not is_exact(c)

    def barred_write(c: Candidate) -> bool:
        return (no_writes or c.tool_id in other_operations) and unnamed_write(c, cards)

    first = (ranked[0].tool_id if keep_best and ranked and not held_back(ranked[0])
             and not barred_write(ranked[0]) else None)
    named = any(
        c.scores.get("named", 0.0) == 1.0
        and (c.score >= bars.bar(cards[c.tool_id]) or c.tool_id == first)
        for c in ranked
    )
    total = sum(max(c.score, 0.0) for c in ranked[:size])
    held = 0.0  # the kept tools' share of `total`
    kept: list[Candidate] = []
    reasons: dict[str, str] = {}
    for c in ranked:
        if held_back(c):
            reasons[c.tool_id] = "rerank:caution"
            continue
        if is_exact(c) or c.tool_id == first:
            pass
        elif named and c.scores.get("named", 0.0) == 0:
            reasons[c.tool_id] = "rerank:other_product"
            continue
        elif barred_write(c):
            reasons[c.tool_id] = ("rerank:unconnected_product" if no_writes
                                  else "rerank:other_operation")
            continue
        elif c.score < bars.bar(cards[c.tool_id]):
            reasons[c.tool_id] = "rerank:below_bar"
            continue
        elif (cards[c.tool_id].risk in WRITE_RISKS and c.score < bars.write_relative * best):
            reasons[c.tool_id] = "rerank:write_below_relative"
            continue
        elif c.score < bars.relative * best:
            reasons[c.tool_id] = "rerank:below_relative"
            continue
        elif bars.mass < 1.0 and kept and held >= bars.mass:
            reasons[c.tool_id] = "rerank:below_mass"
            continue
        if len(kept) < size:
            kept.append(c)
            held += max(c.score, 0.0) / total if total > 0 else 0.0
        else:
            reasons[c.tool_id] = "rerank:below_menu"
    return kept, [(c.tool_id, reasons[c.tool_id]) for c in ranked if c.tool_id in reasons]


@dataclass(frozen=True)
class MenuPolicy:
    """The bars and the no-tool model a bundle's menus run with (defaults: no bars, never
    abstain: bundles from before them)."""

    bars: MenuBars = field(default_factory=MenuBars)
    no_tool: NoToolModel | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "bars": self.bars.to_dict(),
            "no_tool": None if self.no_tool is None else self.no_tool.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MenuPolicy:
        """Raises `ValueError` naming what is wrong."""
        if not isinstance(data, Mapping) or not isinstance(data.get("bars"), Mapping):
            raise ValueError("menu policy: expected an object with a 'bars' object")
        try:
            bars = MenuBars(**{k: float(v) for k, v in data["bars"].items()})
        except TypeError as err:
            raise ValueError(f"menu policy: bars: {err}") from None
        raw = data.get("no_tool")
        if raw is not None and not isinstance(raw, Mapping):
            raise ValueError("menu policy: no_tool: expected an object or null")
        return cls(bars, None if raw is None else NoToolModel.from_dict(raw))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")


def withhold_writes(
    menu: Sequence[Candidate], cards: Mapping[str, ToolCard]
) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """`menu` without its write and destructive tools (one named exactly stays), and each
    of those with its reason (`rerank:missing_access`): the step's lookup found a better
    tool outside the session (`RuntimeParams.missing_withholds_writes`)."""
    kept, withheld = [], []
    for c in menu:
        if unnamed_write(c, cards):
            withheld.append((c.tool_id, "rerank:missing_access"))
        else:
            kept.append(c)
    return kept, withheld


def other_operation(subgoal: Subgoal, card: ToolCard) -> bool:
    """A write that does something else than the step asks: both name a mutating
    operation and no family (`WRITE_FAMILIES`) is shared ("restart the payments
    deployment" against `refund:payment`). Unknown on either side is no evidence."""
    if card.risk not in WRITE_RISKS:
        return False
    asked = {WRITE_FAMILIES[o] for o in subgoal.operations if o in WRITE_FAMILIES}
    does = {WRITE_FAMILIES[op] for op, _ in map(parse_capability, card.capabilities)
            if op in WRITE_FAMILIES}
    return bool(asked) and bool(does) and not asked & does


def unnamed_write(c: Candidate, cards: Mapping[str, ToolCard]) -> bool:
    """A write or destructive tool the step does not name exactly: the kind a rule that
    keeps writes off a menu takes off."""
    return cards[c.tool_id].risk in WRITE_RISKS and not is_exact(c)


def stock_menu_policy() -> MenuPolicy:
    """The policy the package ships for stock bundles (`STOCK_MENUS`)."""
    return MenuPolicy.from_dict(json.loads(STOCK_MENUS.read_text(encoding="utf-8")))

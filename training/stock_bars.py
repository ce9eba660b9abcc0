"""The stock menu bars: how short a first bundle's menus may be, chosen on public catalogs.

    python -m training.stock_bars params.yaml MENUS METRICS
        --bundle stb=bundles/stb_base --fit-traces stb=data/stb/traces.jsonl
        --bundle demo=bundles/base --fit-traces demo=data/demo/traces.jsonl

(`make no-tool-model` runs it after `training.train_no_tool`.) A stock bundle has no
calibrated relevance: a step's candidates carry the fused order's score over its best
(1.0 for the first). The bars that cut such a menu (a share of the step's best for every
tool, a higher one for writes, the mass) are chosen like `tune_menus` chooses a trained
bundle's: the shortest menus whose R_menu stays within `stock_r_menu_tolerance` of no
bars, on served requests of each catalog's train split (the traces as `mine` splits
them), replayed through the catalog's stock bundle with no menu policy. Each catalog is
judged by the bars chosen on the others; the shipped bars are chosen on all of them and
written into MENUS beside its no-tool model, which is kept as it is.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

from serving.model.schema import ToolCard
from serving.stages.menu_policy import MenuBars, MenuPolicy
from training.core.cli_args import named_values
from training.core.metrics_io import write_metrics
from training.core.params import ParamsError, params_from_mapping, read_section
from training.no_tool.menu_cuts import SharedCuts, menu_point, replay
from training.no_tool.trace_requests import fit_requests

log = logging.getLogger(__name__)
SECTION = "no_tool"  # shared with training.train_no_tool, which fits the stock decision


@dataclass(frozen=True, slots=True)
class Params:
    """The stock bars' keys of the `no_tool` section of params.yaml."""

    fit_requests: int  # per catalog: a seeded sample of its train-split requests
    stock_relative_bars: tuple[float, ...]
    stock_write_bars: tuple[float, ...]
    stock_mass_bars: tuple[float, ...]
    stock_r_menu_tolerance: float

    def __post_init__(self) -> None:
        grids = (*self.stock_relative_bars, *self.stock_write_bars, *self.stock_mass_bars)
        if not (self.stock_relative_bars and self.stock_write_bars and self.stock_mass_bars) \
                or not all(0.0 <= g <= 1.0 for g in grids) or self.stock_r_menu_tolerance < 0:
            raise ParamsError(f"{SECTION}: stock bar grids in [0, 1], non-empty, and "
                              "stock_r_menu_tolerance >= 0")

    @classmethod
    def read(cls, params_path: str | Path) -> Params:
        """Its keys of the section (the rest belong to `training.train_no_tool`)."""
        raw = read_section(params_path, SECTION)
        return params_from_mapping(cls, {f.name: raw[f.name] for f in fields(cls)
                                         if f.name in raw}, SECTION)


def bar_grid(params: Params) -> list[MenuBars]:
    """Every (relative, write, mass) point: a write bar is a share of the step's best too
    (`write_relative`), at or above the bar of every tool."""
    return [MenuBars(relative=rel, write_relative=write, mass=mass)
            for rel in params.stock_relative_bars for write in params.stock_write_bars
            for mass in params.stock_mass_bars if write == 0.0 or write >= rel]


def curve_of(rows: Sequence, cards: Mapping[str, ToolCard], grid: Sequence[MenuBars], *,
             size: int) -> list[dict[str, float]]:
    """`menu_point` of every grid point over served rows, no step abstaining."""
    cuts = SharedCuts(cards, size=size, keep_best=True)
    marks = [[False] * len(r.shortlists) for r in rows]
    return [menu_point(rows, marks, bars, cards, size=size, keep_best=True, cuts=cuts)
            for bars in grid]


def choose(curves: Sequence[Sequence[Mapping[str, float]]], tolerance: float) -> int:
    """The grid point whose mean menu is shortest with every catalog's R_menu within
    `tolerance` of its own no-bars R_menu (the first point); ties: the lower bars."""
    ok = [i for i in range(len(curves[0]))
          if all(c[i]["r_menu"] >= c[0]["r_menu"] - tolerance - 1e-12 for c in curves)]
    return min(ok, key=lambda i: (round(sum(c[i]["menu_length"] for c in curves), 6), i))


def replay_catalog(bundle: Path, traces: Path, split: tuple[int, float], limit: int,
                   size: int) -> tuple[list, dict[str, ToolCard]]:
    """The served train-split requests of `traces` through `bundle` with no menu policy."""
    from serving.selector import Selector

    requests = fit_requests(str(traces), split, limit).queries
    selector = Selector.from_bundle(bundle, overrides={"menu_policy": False,
                                                       "menu_size": size})
    rows = replay(selector, requests, dict.fromkeys((q.query_id for q in requests), "fit"),
                  desc=f"stock bars: {bundle.name}")
    return [r for r in rows if r.served], dict(selector.cards)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("params")
    parser.add_argument("menus", type=Path, help="the stock menu policy: its bars are set")
    parser.add_argument("metrics", type=Path)
    parser.add_argument("--bundle", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--fit-traces", action="append", default=[], metavar="NAME=TRACES")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    params = Params.read(args.params)
    mine = read_section(args.params, "mine")
    split = (int(mine["seed"]), float(mine["valid_share"]))
    size = int(read_section(args.params, "runtime")["menu_size"])
    bundles = named_values(args.bundle, "--bundle")
    traces = named_values(args.fit_traces, "--fit-traces")
    if not traces or set(traces) - set(bundles):
        raise SystemExit("--fit-traces needs a --bundle of the same name, and one at least")
    grid = bar_grid(params)
    curves: dict[str, list[dict[str, float]]] = {}
    for name in sorted(traces):
        rows, cards = replay_catalog(Path(bundles[name]), Path(traces[name]), split,
                                     params.fit_requests, size)
        curves[name] = curve_of(rows, cards, grid, size=size)
    tol = params.stock_r_menu_tolerance
    held_out = {}
    for name in sorted(curves):  # judged by the bars the other catalogs chose
        others = [c for n, c in curves.items() if n != name]
        if others:
            i = choose(others, tol)
            held_out[name] = {"bars": _bars(grid[i]), "no_bars": _point(curves[name][0]),
                              "chosen": _point(curves[name][i])}
    i = choose(list(curves.values()), tol)
    policy = MenuPolicy.from_dict(json.loads(args.menus.read_text()))
    replace(policy, bars=grid[i]).save(args.menus)
    metrics = {"bars": _bars(grid[i]), "grid_points": len(grid),
               "r_menu_tolerance": tol,
               "per_catalog": {n: {"no_bars": _point(c[0]), "chosen": _point(c[i])}
                               for n, c in curves.items()},
               "held_out": held_out}
    write_metrics(args.metrics, metrics)
    log.info("stock bars %s -> %s; %s", metrics["bars"], args.menus,
             {n: v["chosen"] for n, v in metrics["per_catalog"].items()})


def _bars(bars: MenuBars) -> dict[str, float]:
    return {"relative": bars.relative, "write_relative": bars.write_relative,
            "mass": bars.mass}


def _point(p: Mapping[str, float]) -> dict[str, float]:
    return {"r_menu": round(p["r_menu"], 4), "menu_length": round(p["menu_length"], 3)}


if __name__ == "__main__":
    main()

"""DVC stage `tune_menus`: the no-tool model and the menu bars, chosen on validation steps.

    python -m training.tune_menus PARAMS CATALOG TRACES NO_TOOL TRAIN_DIR OUT_DIR METRICS PLOT
        --retriever DIR --reranker DIR --ltr DIR [--valid VALID]

A scratch bundle of the trained models replays, through `Selector.discover`, held-out
requests: traced valid-split subgoals (a gold tool each, in the session of their trace),
the requests of NO_TOOL that no tool serves (`features.no_tool`; each names its family as
its first slice) and, with `--valid`, labeled requests phrased unlike the traces (the demo
world's valid.jsonl). Every step keeps its signals (`serving.stages.abstain`) and its shortlist
(the reranker's first `menu_size` with their relevance).

Requests with gold come in two disjoint halves; no-tool requests are judged family by family:
- *fit*: traced valid subgoals (the ranker trained on some of them as "more groups": in
  sample, which is fine for a direction) and every no-tool request. The no-tool model is
  a ridge logistic regression of "served" on the signals.
- *tune*: the VALID requests (without `--valid`: the ranker's own validation subgoals,
  `train_ltr.n_valid_groups`, which share the traces' phrasing). The threshold is the
  highest at which at most `max_false_abstain` of them abstain as a whole; the step
  threshold, for the steps of a request that does not, the highest at which at most
  that share of their steps would (`abstaining_steps`).
- a no-tool request is judged by the model fit without its family and thresholded the
  same way (leave one family out), so its family's abstain rate is measured on phrasing
  the fit never saw.
Then every (read bar, write bar, relative bar, mass) of the grid is scored on the tune
requests and the no-tool ones (`menu_curve`: mean menu length, R_menu per gold tool,
abstain rate), and the bars are the shortest menus whose R_menu stays within
`r_menu_tolerance` of no bars (`choose_bars`). A step the model serves keeps its best
tool whatever the bars (`cut_menu(keep_best=True)`).

Writes OUT_DIR/menus.json (`serving.stages.menu_policy.MenuPolicy`; `export --menus` packs it),
OUT_DIR/curve.csv (the bars' grid), OUT_DIR/thresholds.csv (the no-tool threshold's
trade-off on the tune half), PLOT (menu length against R_menu over the grid, and the threshold's
trade-off) and METRICS.
"""

from __future__ import annotations

import argparse
import csv
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from serving.model.config import RuntimeParams
from serving.model.schema import LabeledQuery, ToolCard
from serving.stages.abstain import (
    SIGNAL_NAMES,
    NoToolModel,
    abstaining_steps,
    served_probabilities,
)
from serving.stages.logistic import fit_logistic
from serving.stages.menu_policy import MenuBars, MenuPolicy, is_exact
from training.core.params import ParamsError, load_params, optional, read_section
from training.no_tool.menu_cuts import Replayed, SharedCuts, menu_point, replay
from training.no_tool.operating_point import choose_threshold, threshold_curve

log = logging.getLogger(__name__)
SECTION = "tune_menus"


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `tune_menus` section of params.yaml."""

    n_fit_queries: int  # traced valid subgoals (after the ranker's validation ones) to fit on
    l2: float  # ridge on the standardised weights
    max_false_abstain: float  # tune requests with gold that may abstain
    read_bars: tuple[float, ...]
    write_bars: tuple[float, ...]  # each tried with every read bar at or below it
    relative_bars: tuple[float, ...]
    r_menu_tolerance: float  # R_menu the chosen bars may lose against no bars
    no_tool: bool = optional(True)  # False: bars only, the bundle never abstains
    mass_bars: tuple[float, ...] = optional((1.0,))  # share of relevance a menu holds

    def __post_init__(self) -> None:
        grids = (*self.read_bars, *self.write_bars, *self.relative_bars, *self.mass_bars)
        if not (self.read_bars and self.write_bars and self.relative_bars and self.mass_bars):
            raise ParamsError(
                f"{SECTION}: read_bars, write_bars, relative_bars, mass_bars must be lists")
        if any(not 0.0 <= b <= 1.0 for b in grids):
            raise ParamsError(f"{SECTION}: every bar must be in [0, 1]")
        if not 0.0 <= self.max_false_abstain < 1.0 or self.r_menu_tolerance < 0 or self.l2 < 0:
            raise ParamsError(
                f"{SECTION}: max_false_abstain in [0, 1), r_menu_tolerance and l2 >= 0"
            )


def replay_overrides(runtime: RuntimeParams) -> dict[str, Any]:
    """Runtime overrides of the scratch selector the requests replay through: no menu
    policy (the signals it fits on are the output), and no whole-request step, which the
    replay never reads, where dropping it leaves every step's rerank depth as it was
    (`rerank_depth` counts that step among a request's `max_rerank_pairs`)."""
    overrides: dict[str, Any] = {"menu_policy": False}
    if (runtime.max_subgoals + 1) * runtime.rerank_depth <= runtime.max_rerank_pairs:
        overrides["request_weight"] = 0.0
    return overrides


def fit_no_tool(rows: Sequence[Replayed], *, l2: float) -> tuple[tuple[float, ...], float]:
    """Weights and bias of "served" on every step's signals (a step of a request with gold
    is served: the decomposer's split of a traced subgoal is rarely more than one step)."""
    x = np.array([s for r in rows for s in r.signals])
    y = np.array([float(r.served) for r in rows for _ in r.signals])
    fit = fit_logistic(x, y, l2=l2)
    if fit is None:
        raise ValueError("tune_menus: the fit half needs requests with gold and without")
    return tuple(float(w) for w in fit.weights), fit.bias


def request_scores(model: NoToolModel, rows: Sequence[Replayed]) -> np.ndarray:
    """Each request's best step probability: it abstains when even that is below the
    threshold (a request with no step scores 0)."""
    return np.array([
        float(model.probabilities(np.array(r.signals)).max()) if r.signals else 0.0 for r in rows
    ])


def step_decisions(model: NoToolModel | None, rows: Sequence[Replayed]) -> list[list[bool]]:
    """Which steps of each row abstain under `model`, as the runtime decides
    (`abstaining_steps`; a step whose shortlist holds a tool it names exactly never
    abstains; no model: none)."""
    out = []
    for r in rows:
        if model is None or not r.signals:
            out.append([False] * len(r.signals))
            continue
        named = [any(is_exact(c) for c in sl) for sl in r.shortlists]
        out.append(abstaining_steps(served_probabilities(model, np.array(r.signals), named),
                                    model))
    return out


def menu_curve(
    rows: Sequence[Replayed],
    abstains: Sequence[Sequence[bool]],
    cards: Mapping[str, ToolCard],
    params: Params,
    *,
    size: int,
) -> list[dict[str, float]]:
    """`menu_point` for every bar combination of the grid (write bars at or above read)."""
    grid = [
        MenuBars(read, write, rel, mass)
        for read, write, rel, mass in product(
            params.read_bars, params.write_bars, params.relative_bars, params.mass_bars)
        if write >= read
    ]
    if MenuBars() not in grid:
        grid.insert(0, MenuBars())
    cuts = SharedCuts(cards, size=size, keep_best=params.no_tool)
    curve = [menu_point(rows, abstains, b, cards, size=size, keep_best=params.no_tool,
                        cuts=cuts) for b in grid]
    log.info("menu grid: %d points, %d cuts of %d steps", len(grid), cuts.n_cuts,
             sum(len(r.shortlists) for r in rows))
    return curve


def choose_bars(curve: Sequence[Mapping[str, float]], tolerance: float) -> Mapping[str, float]:
    """The shortest menus whose R_menu is within `tolerance` of no bars' (ties: the higher
    abstain rate, then the lower bars)."""
    base = next(p for p in curve if p["read"] == p["write"] == p["relative"] == 0.0
                and p.get("mass", 1.0) == 1.0)
    ok = [p for p in curve if p["r_menu"] >= base["r_menu"] - tolerance - 1e-12]
    return min(ok, key=lambda p: (round(p["menu_length"], 6), -p["abstain_rate"],
                                  p["read"] + p["write"] + p["relative"] - p.get("mass", 1.0)))


def choose_step_threshold(model: NoToolModel, served: Sequence[Replayed],
                          max_false: float) -> float:
    """The highest bar, at most `model.threshold`, at which at most `max_false` of the
    steps of the requests with gold that do not abstain as a whole would abstain."""
    probs = [model.probabilities(np.array(r.signals)) for r in served if r.signals]
    steps = np.concatenate([p for p in probs if p.max() >= model.threshold] or [np.zeros(0)])
    return min(model.threshold, choose_threshold(steps, max_false)) if steps.size else (
        model.threshold)


def fit_model(fit: Sequence[Replayed], tune_served: Sequence[Replayed],
              params: Params) -> NoToolModel:
    """The no-tool model fit on `fit`, its thresholds chosen on `tune_served`."""
    weights, bias = fit_no_tool(fit, l2=params.l2)
    probe = NoToolModel(SIGNAL_NAMES, weights, bias, 0.0)
    threshold = choose_threshold(request_scores(probe, tune_served), params.max_false_abstain)
    model = NoToolModel(SIGNAL_NAMES, weights, bias, threshold)
    return replace(model, step_threshold=choose_step_threshold(
        model, tune_served, params.max_false_abstain))


@dataclass(frozen=True, slots=True)
class Tuned:
    policy: MenuPolicy
    curve: list[dict[str, float]]
    thresholds: list[dict[str, float]]
    metrics: dict[str, Any]


def tune_menus(
    rows: Sequence[Replayed], cards: Mapping[str, ToolCard], params: Params, *, size: int
) -> Tuned:
    """The no-tool model on the fit half's requests with gold and every no-tool request,
    its thresholds and the bars on the tune half's requests with gold. A no-tool
    request is judged by the model fit without its family (and thresholded the same
    way), so each family's abstain rate is the rate on phrasing the fit never saw."""
    fit_served = [r for r in rows if r.half == "fit" and r.served]
    none = [r for r in rows if not r.served]
    tune_served = [r for r in rows if r.half == "tune" and r.served]
    judged = tune_served + none
    if params.no_tool:
        model: NoToolModel | None = fit_model(fit_served + none, tune_served, params)
        # a family alone has no fit without it: the full model judges it, in sample
        held_out = {f: fit_model(fit_served + others, tune_served, params) if others else model
                    for f in sorted({r.family for r in none})
                    for others in [[r for r in none if r.family != f]]}
        abstains = step_decisions(model, tune_served) + [
            step_decisions(held_out[r.family], [r])[0] for r in none]
        thresholds = threshold_curve(
            request_scores(model, tune_served),
            np.array([request_scores(held_out[r.family], [r])[0] for r in none]))
    else:
        model, held_out, thresholds = None, {}, []
        abstains = step_decisions(None, judged)
    curve = menu_curve(judged, abstains, cards, params, size=size)
    chosen = choose_bars(curve, params.r_menu_tolerance)
    policy = MenuPolicy(MenuBars(chosen["read"], chosen["write"], chosen["relative"],
                                 chosen["mass"]), model)
    base = curve[0]
    families: dict[str, list[bool]] = {}
    for r, marks in zip(judged, abstains, strict=True):
        if not r.served:
            families.setdefault(r.family, []).append(all(marks))
    metrics = {
        "n_fit": {"served": len(fit_served), "no_tool": len(none)},
        "n_tune": {"served": len(tune_served), "no_tool": len(none)},
        "families": sorted(families),
        "no_tool_model": None if model is None else model.to_dict(),
        "threshold": round(model.threshold, 4) if model is not None else 0.0,
        "step_threshold": round(model.step_bar, 4) if model is not None else 0.0,
        "chosen": {k: round(v, 4) for k, v in chosen.items()},
        "no_bars": {k: round(v, 4) for k, v in base.items()},
        # each family by the fit without it (in sample when it is the only family)
        "held_out_abstain_by_family": {f: round(float(np.mean(v)), 4)
                                       for f, v in families.items()},
    }
    return Tuned(policy, curve, thresholds, metrics)


# --- I/O ---------------------------------------------------------------------------------


def tune_share(n_available: int, n_tune: int) -> int:
    """How many of `n_available` held-out requests tune: `n_tune`, at most half."""
    return min(n_tune, n_available // 2)


def held_out_requests(
    pairs_path: Path, traces: Sequence[Any], *, n_tune: int, n_fit: int
) -> tuple[list[LabeledQuery], dict[str, str]]:
    """Traced valid-split subgoals as labeled queries in their trace's session: the first
    `n_tune` (the ranker's validation groups, in its order) tune, the next `n_fit` fit
    (`n_tune` 0: every one fits). A small valid split (a benchmark's) tunes on at most
    half of it, so the fit half still has requests with gold."""
    from features.candidates import traced_valid_queries
    from features.dataset import PAIRS_SCHEMA, scan_parquet

    pairs = scan_parquet(pairs_path, PAIRS_SCHEMA).collect()
    valid = traced_valid_queries(pairs).head(n_tune + n_fit)
    n_tune = tune_share(valid.height, n_tune)
    contexts = {t.request_id: t.context for t in traces}
    queries, half = [], {}
    for i, row in enumerate(valid.iter_rows(named=True)):
        qid = f"valid-{row['query_id']}"
        queries.append(LabeledQuery(qid, row["query"], (row["tool_id"],),
                                    context=dict(contexts.get(row["request_id"]) or {})))
        half[qid] = "tune" if i < n_tune else "fit"
    return queries, half


def draw_plot(path: Path, curve: Sequence[Mapping[str, float]],
              thresholds: Sequence[Mapping[str, float]], chosen: Mapping[str, float],
              threshold: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax = axes[0]
    pts = ax.scatter([p["menu_length"] for p in curve], [p["r_menu"] for p in curve],
                     c=[p["abstain_rate"] for p in curve], cmap="viridis", s=14)
    ax.scatter([chosen["menu_length"]], [chosen["r_menu"]], marker="*", s=220, c="red",
               label=f"chosen: read {chosen['read']}, write {chosen['write']}, "
                     f"relative {chosen['relative']}, mass {chosen['mass']}")
    ax.set_xlabel("mean menu length (tune requests with gold)")
    ax.set_ylabel("R_menu")
    ax.set_title("menu bars: length against recall")
    ax.legend(loc="lower right", fontsize=8)
    fig.colorbar(pts, ax=ax, label="abstain rate (held-out no-tool families)")
    ax = axes[1]
    if thresholds:
        ts = [t["threshold"] for t in thresholds]
        ax.plot(ts, [t["abstain_rate"] for t in thresholds], label="abstain, no-tool requests")
        ax.plot(ts, [t["false_abstain"] for t in thresholds], label="abstain, requests with gold")
        ax.axvline(threshold, color="red", linestyle="--", label=f"chosen {threshold:.3f}")
        ax.legend(fontsize=8)
    ax.set_xlabel("no-tool threshold on P(served)")
    ax.set_title("the no-tool decision on the tune half")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (sections tune_menus, train_ltr, runtime)")
    parser.add_argument("catalog", help="tool cards, JSONL")
    parser.add_argument("traces", help="trace events, JSONL (the sessions of valid subgoals)")
    parser.add_argument("no_tool", help="labeled requests with empty gold, JSONL")
    parser.add_argument("train_dir", help="holds pairs.parquet (the valid split)")
    parser.add_argument("out_dir", help="gets menus.json and curve.csv")
    parser.add_argument("metrics", help="metrics JSON")
    parser.add_argument("plot", help="PNG of the menu curve and the threshold")
    parser.add_argument("--retriever", required=True, help="the fine-tuned bi-encoder dir")
    parser.add_argument("--reranker", required=True, help="the cross-encoder dir")
    parser.add_argument("--ltr", required=True, help="the ranker dir (train_ltr)")
    parser.add_argument("--valid", help="labeled requests with gold phrased unlike the traces "
                        "(JSONL): the tune half's requests with gold, instead of the ranker's "
                        "validation subgoals")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from serving.model.config import RuntimeParams
    from serving.model.io import load_catalog, load_queries, load_traces
    from training.core.metrics_io import write_metrics
    from training.core.tracking import log_metrics, stage_run
    from training.evaluation.variants import ModelCache
    from training.evaluation.warm import warm_encoders
    from training.release.bundle_export import scratch_selector

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    runtime = RuntimeParams.from_dict(read_section(args.params, "runtime"))
    n_tune = int(read_section(args.params, "train_ltr")["n_valid_groups"])
    cards: list[ToolCard] = list(load_catalog(args.catalog).items)
    traces = load_traces(args.traces, known_tools=[c.tool_id for c in cards]).items
    no_tool = [q for q in load_queries(args.no_tool).items if not q.gold]
    valid = [q for q in load_queries(args.valid).items if q.gold] if args.valid else []
    served, half = held_out_requests(Path(args.train_dir) / "pairs.parquet", traces,
                                     n_tune=0 if valid else n_tune,
                                     n_fit=params.n_fit_queries + (n_tune if valid else 0))
    served += valid
    half |= {q.query_id: "tune" for q in valid}
    half |= {q.query_id: "fit" for q in no_tool}  # each family judged by the fit without it
    with scratch_selector(args.params, cards, retriever_path=Path(args.retriever),
                          reranker_path=Path(args.reranker), ltr_path=Path(args.ltr),
                          overrides=replay_overrides(runtime)) as scratch:
        selector = ModelCache().wrap(scratch)
        warm_encoders(selector, [q.query for q in [*served, *no_tool]])
        rows = replay(selector, served, half, desc="with gold") + replay(
            selector, no_tool, half, desc="no tool")
    tuned = tune_menus(rows, {c.tool_id: c for c in cards}, params, size=runtime.menu_size)

    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tuned.policy.save(out_dir / "menus.json")
    for name, rows_out in (("curve.csv", tuned.curve), ("thresholds.csv", tuned.thresholds)):
        with (out_dir / name).open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows_out[0]) if rows_out else [])
            writer.writeheader()
            writer.writerows({k: round(v, 4) for k, v in p.items()} for p in rows_out)
    draw_plot(Path(args.plot), tuned.curve, tuned.thresholds, tuned.metrics["chosen"],
              tuned.metrics["threshold"])
    metrics = {**tuned.metrics, "stage_seconds": round(time.perf_counter() - t0, 1)}
    write_metrics(args.metrics, metrics)
    with stage_run(SECTION, {SECTION: asdict(params)}):
        log_metrics(metrics)
    c, b = metrics["chosen"], metrics["no_bars"]
    print(
        f"tune_menus: threshold {metrics['threshold']:.3f} (tune: abstains on "
        f"{c['abstain_rate']:.3f} of held-out no-tool families, {c['false_abstain']:.3f} with "
        f"gold); bars read {c['read']} write {c['write']} relative {c['relative']} mass "
        f"{c['mass']}: menu "
        f"{b['menu_length']:.2f} -> {c['menu_length']:.2f}, R_menu {b['r_menu']:.3f} -> "
        f"{c['r_menu']:.3f} in {metrics['stage_seconds']:.0f}s -> {out_dir / 'menus.json'}"
    )


if __name__ == "__main__":
    main()

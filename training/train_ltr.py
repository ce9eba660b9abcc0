"""DVC stage `train_ltr`: LightGBM lambdarank over relevance and history features.

    python -m training.train_ltr PARAMS CATALOG TRACES TRAIN_DIR OUT_DIR METRICS
        --retriever DIR --reranker DIR

The groups are what the ranker will see at run time: a scratch bundle with the
fine-tuned retriever and cross-encoder replays each sampled trace subgoal in its
session (retrieval, fusion, hard filters; the first `rerank_depth` candidates, each
scored by the cross-encoder), and `serving.stages.ranker_features.feature_matrix` turns every
candidate into the features the runtime computes. Positives are drawn by the exploration sampler
from the train split of `TRAIN_DIR/pairs.parquet` (cold-start pairs replay in a
synthetic session, as in `features.candidates`); labels: 1 for a gold tool, a non-gold
tool equivalent to a gold one is left out, the rest 0. A train group whose gold the
runtime did not retrieve cannot teach an order and is counted, not used.

Why the train split, although the fine-tuned retriever has seen those queries: fit on
held-out (valid-split) traces instead, the ranker did worse on the demo eval requests
(end-to-end 0.739 vs 0.767, new-tool slice 0.571 vs 0.805): the valid split holds only
traced positives, so the ranker never met a new tool and learned that history decides.
The train draw carries the exploration sampler's new-tool quota and cold-start pairs.

History (`serving.stages.ranker_features.History`): every trace event of TRACES, keyed by the
capability keys of its subgoal; a train or valid group sees it without every event of the
group's own request (`History.without`), or the model would read the label off its own
event or off a sibling gold tool's (and the validation numbers would flatter it).

Stack groups (`n_stack_groups`): traced valid-split subgoals after the validation ones,
replayed the same way. A ranker is fit on the train groups and one on the train and stack
groups; the second is kept when it orders the valid groups better (`choose_train_set`):
the retriever was fine-tuned on the train split's queries, so only held-out groups show
the ranker the retriever's scores as the runtime sees them.

More groups (`n_more_groups`): the traced valid-split subgoals after the stack ones, for a
ranker that does not read the cross-encoder's logit. Scoring a candidate with the
cross-encoder is most of a replay's cost (about 20 groups a second on two cores with the
int8 ONNX graph, against 400 without), and such a ranker never runs it at run time
either, so these groups replay through the fused order, which gives the same features but
the logit
(`serving.stages.ranker_features.list_features` does not depend on the list's order). The ranker
refit with them is kept when it orders the valid groups better (`more_data_pays`). On the
demo the ranker was short of held-out groups: with ~3,500 more, valid MRR rose 0.91 ->
0.93 (docs/experiments.md).

Two rankers are fit (`cross_encoder_feature: auto`): with and without the cross-encoder's
logit. The logit is kept only when it pays beyond noise on the valid groups
(`choose_features`): a ranker without it never runs the cross-encoder at run time, which is
~90% of a subgoal's cost on a CPU. On the demo and StableToolBench valid groups it did not
pay (docs/experiments.md).

The dense fallback (`dense_fallback`): the kept ranker ships only where its valid MRR beats
the fine-tuned retriever's own order on the same groups (`choose_order`); elsewhere the
bundle ships that order (`serving.stages.rerank.DenseOrderReranker`), its relevance the
Platt scaling of the retriever's cosine fit on the valid groups, so the menu policy reads
it as it reads a ranker's. Both calibrations are written (OUT_DIR/order.json says which
order ships), so `runtime.reranker: dense` or `ltr` still runs either.

Validation on the first `n_valid_groups` valid-split subgoals (all their candidates):
MRR and recall@{1,3,8} of each LightGBM order against the cross-encoder's, the fused and
the dense order on the same groups, also on the groups whose tool no train group has
(`unseen_tool_*`: held out by tool), and on the groups whose tool was used at most
`tail_tool_uses` times in the traces (`tail_tool_*`): the valid groups follow traffic, so
most ask for head tools, whose history nearly names them (docs/experiments.md).
Writes OUT_DIR/{model.txt, features.json, history.json, calibration.json, order.json and,
for a ranker with the logit, logit_budget.json} (`export --ltr OUT_DIR` packs them), METRICS
with feature importances (gain).

The pieces live in training/ltr/: `params`, `groups` (the replay), `fit` (LightGBM),
`valid` (the orders compared and the choices made on the valid groups), `calibrate`.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from features.candidates import (
    gold_and_equivalents,
    sample_group_rows,
    synthetic_context,
    traced_valid_queries,
)
from features.dataset import PAIRS_SCHEMA, scan_parquet
from features.history import history_from_traces
from features.mining import tool_frame
from features.sampling import SamplingParams, rng_for
from serving.model.io import load_catalog, load_traces
from serving.model.schema import ToolCard, Trace
from serving.stages.ranker_features import (
    CALIBRATION_FILE,
    FEATURE_NAMES,
    HISTORY_FILE,
    LOGIT_BUDGET_FILE,
    ORDER_FILE,
    Calibration,
    History,
    LogitBudget,
    ShippedOrder,
)
from training.core.metrics_io import write_metrics
from training.core.params import load_params
from training.ltr.budget import (
    BudgetTrial,
    budget_grid,
    choose_budget,
    try_budgets,
    under_budget,
)
from training.ltr.calibrate import calibrate
from training.ltr.fit import (
    WITH_LOGIT,
    WITHOUT_LOGIT,
    DenseOrder,
    Ranker,
    candidate_feature_sets,
    fit_ranker,
)
from training.ltr.groups import Groups, concat_groups, replay_groups, unseen_tools
from training.ltr.params import Params
from training.ltr.valid import (
    MORE,
    STACKED,
    choose_features,
    choose_order,
    choose_train_set,
    more_data_pays,
    named_first_evidence,
    order_comparison,
    reciprocal_ranks,
    tail_tools,
    trained_on_label,
)

if TYPE_CHECKING:
    from serving.selector import Selector

log = logging.getLogger(__name__)
SECTION = "train_ltr"


@dataclass(frozen=True)
class LtrResult:
    ranker: Ranker  # the chosen one
    history: History  # every trace event: the runtime's history table
    groups: dict[str, Groups]  # "train" and "valid"
    comparison: dict[str, float]  # `order_comparison` on the valid groups
    chosen: str  # with_logit | without_logit (`choose_features`)
    fit_seconds: float
    calibration: Calibration  # Platt scaling and the menu cut, from the valid groups
    menu_cuts: list[dict[str, float]]  # `menu_cut_table` on the valid groups
    trained_on: str = "train"  # its groups: `trained_on_label`
    n_unseen_tool_groups: int = 0  # valid groups whose tool no group of any ranker has
    n_tail_tool_groups: int = 0  # valid groups whose tool has little history (`tail_tools`)
    logit_budget: LogitBudget | None = None  # the kept ranker reads the logit under it
    budget_trials: tuple[BudgetTrial, ...] = ()  # every budget tried (`training.ltr.budget`)
    # the order the bundle ships (`choose_order`) and the dense order's calibration
    shipped: ShippedOrder = field(default_factory=ShippedOrder)


def train_ltr(
    cards: Sequence[ToolCard],
    traces: Sequence[Trace],
    pairs: pl.DataFrame,
    selector: Selector,
    *,
    params: Params,
    sampling: SamplingParams,
) -> LtrResult:
    """The stage: the history of every trace, groups sampled from `pairs` (pairs.parquet)
    and replayed through `selector` (a scratch bundle of the fine-tuned models), the ranker
    fit on the train groups and compared with the cross-encoder and the fused order on the
    valid ones. No file I/O."""
    from serving.decompose import DecomposerVocabulary, RuleDecomposer

    annotate = RuleDecomposer(DecomposerVocabulary.from_cards(cards)).annotate
    history, request_events = history_from_traces(traces, annotate)
    tools = tool_frame(cards, {}, new_tool_days=0)
    gold, equivalent = gold_and_equivalents(pairs, tools)
    contexts = {t.request_id: t.context for t in traces}
    servers = sorted({c.server for c in cards})
    server_of = {c.tool_id: c.server for c in cards}
    rng = rng_for(params.seed, "synthetic_context")

    def synthetic(row: Mapping[str, Any]) -> dict[str, Any]:
        return synthetic_context(row["tool_id"], servers, server_of, params.synthetic_servers, rng)

    rows = {
        split: frame.to_dicts()
        for split, frame in sample_group_rows(
            pairs, sampling, n_train=params.n_groups, n_valid=params.n_valid_groups,
            seed=params.seed, stream="ltr",
        ).items()
    }
    traced = traced_valid_queries(pairs)
    rows["stack"] = traced.slice(params.n_valid_groups, params.n_stack_groups).to_dicts()
    rows["more"] = traced.slice(
        params.n_valid_groups + params.n_stack_groups, params.n_more_groups
    ).to_dicts()

    def replay(split: str, **how: Any) -> Groups:
        return replay_groups(
            rows[split], split=split, selector=selector, annotate=annotate,
            history=history, request_events=request_events, contexts=contexts, gold=gold,
            equivalent=equivalent, synthetic=synthetic, **how,
        )

    names = list(candidate_feature_sets(params.cross_encoder_feature))
    budgets = (
        budget_grid(params.logit_depths, params.logit_skip_gaps) if "with_logit" in names else ()
    )
    built = {
        split: replay(split, budgets=budgets)
        for split in ("train", "valid", "stack") if rows[split]
    }
    train_sets = {"": built["train"]}
    if "stack" in built and built["stack"].sizes:
        train_sets[STACKED] = concat_groups(built["train"], built["stack"])
    n_draw = len(built["train"].sizes)
    t_fit = time.perf_counter()
    fitted = {
        f"ltr_{prefix}{name}": fit_ranker(groups, params, columns, n_draw=n_draw)
        for prefix, groups in train_sets.items()
        for name, columns in candidate_feature_sets(params.cross_encoder_feature).items()
    }
    fit_seconds = time.perf_counter() - t_fit
    valid = full_valid = built["valid"]
    evidence: dict[str, float] = {}
    prefix = ""
    if STACKED in train_sets:
        # the train-set choice on the ranker that needs no cross-encoder when there is one
        base = "without_logit" if "without_logit" in names else names[0]
        prefix, stack_evidence = choose_train_set(
            reciprocal_ranks(fitted[f"ltr_{base}"], valid),
            reciprocal_ranks(fitted[f"ltr_{STACKED}{base}"], valid),
        )
        evidence.update(stack_evidence)
    trials: list[BudgetTrial] = []
    budget = None
    if budgets:
        # every ranker with the logit sees it as the runtime will under the kept budget
        t_fit = time.perf_counter()
        trials = try_budgets(
            budgets, train_sets[prefix], valid,
            lambda train, held: reciprocal_ranks(
                fit_ranker(train, params, WITH_LOGIT, n_draw=n_draw), held
            ),
        )
        kept = choose_budget(trials, params.logit_budget_tolerance)
        budget = kept.budget
        for p, groups in train_sets.items():
            fitted[f"ltr_{p}with_logit"] = fit_ranker(
                under_budget(groups, budget), params, WITH_LOGIT, n_draw=n_draw
            )
        fit_seconds += time.perf_counter() - t_fit
        valid = under_budget(full_valid, budget)
        evidence.update({"logit_budget_pairs": kept.pairs, "logit_budget_skipped": kept.skipped})
    if len(names) > 1:
        chosen, logit_evidence = choose_features(
            reciprocal_ranks(fitted[f"ltr_{prefix}with_logit"], valid),
            reciprocal_ranks(fitted[f"ltr_{prefix}without_logit"], valid),
            min_gain=params.cross_encoder_min_gain, seed=params.seed,
        )
        evidence.update(logit_evidence)
    else:
        chosen = names[0]
    key = f"ltr_{prefix}{chosen}"
    if chosen == "without_logit" and rows["more"]:
        from serving.stages.rerank import FusedOrderReranker

        # the runtime of a ranker without the logit replays them the same way
        built["more"] = replay("more", reranker=FusedOrderReranker(rrf_k=selector.params.rrf_k))
        if built["more"].sizes:
            t_fit = time.perf_counter()
            fitted[f"ltr_{prefix}{MORE}{chosen}"] = fit_ranker(
                concat_groups(train_sets[prefix], built["more"]), params, WITHOUT_LOGIT,
                n_draw=n_draw,
            )
            fit_seconds += time.perf_counter() - t_fit
            pays, more_evidence = more_data_pays(
                reciprocal_ranks(fitted[key], valid),
                reciprocal_ranks(fitted[f"ltr_{prefix}{MORE}{chosen}"], valid),
            )
            evidence.update(more_evidence)
            if pays:
                key = f"ltr_{prefix}{MORE}{chosen}"
    ranker = fitted[key]
    # held out by tool from every ranker: no train, stack or more group has the tool
    unseen = unseen_tools(
        [groups for split, groups in built.items() if split != "valid"], valid
    )
    uses = {t: o.success + o.failure for t, o in history.tools.items()}
    tail = tail_tools(valid, uses, params.tail_tool_uses)
    comparison = {
        **order_comparison(fitted, valid, slices={"unseen_tool": unseen, "tail_tool": tail},
                           logits=full_valid.features[:, FEATURE_NAMES.index("cross_encoder")]),
        **evidence,
    }
    # the chosen ranker's numbers under the plain name: what the runtime will run
    comparison.update({
        k.replace(f"{key}_", "ltr_"): v for k, v in list(comparison.items()) if f"{key}_" in k
    })
    comparison.update(named_first_evidence(ranker, valid))
    calibration, cut_table = calibrate(ranker, valid, params, size=selector.params.menu_size)
    dense = DenseOrder()
    dense_calibration, _ = calibrate(dense, valid, params, size=selector.params.menu_size)
    order = "ltr"
    if params.dense_fallback:
        order, order_evidence = choose_order(
            reciprocal_ranks(ranker, valid), reciprocal_ranks(dense, valid)
        )
        comparison.update(order_evidence)
    return LtrResult(
        ranker, history, built, comparison, chosen, fit_seconds, calibration, cut_table,
        trained_on=trained_on_label(key), n_unseen_tool_groups=sum(unseen),
        n_tail_tool_groups=sum(tail),
        logit_budget=budget if chosen == "with_logit" else None,
        budget_trials=tuple(trials),
        shipped=ShippedOrder(order, dense_calibration),
    )




def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (sections `train_ltr`, `mine`, `runtime`)")
    parser.add_argument("catalog", help="tool cards, JSONL")
    parser.add_argument("traces", help="trace events, JSONL (sessions and history)")
    parser.add_argument("train_dir", help="holds pairs.parquet")
    parser.add_argument("out_dir", help="gets model.txt, features.json, history.json")
    parser.add_argument("metrics", help="metrics JSON")
    parser.add_argument("--retriever", required=True, help="the fine-tuned bi-encoder dir")
    parser.add_argument("--reranker", required=True, help="the cross-encoder dir")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from training.core.tracking import log_dataset_digest, log_metrics, stage_run
    from training.release.bundle_export import scratch_selector

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    sampling = load_params(args.params, "mine.sampling", SamplingParams)
    catalog = load_catalog(args.catalog)
    cards: list[ToolCard] = list(catalog.items)
    traces = load_traces(args.traces, known_tools=[c.tool_id for c in cards])
    log.info(traces.summary(args.traces))
    pairs = scan_parquet(Path(args.train_dir) / "pairs.parquet", PAIRS_SCHEMA).collect()

    with scratch_selector(args.params, cards, retriever_path=Path(args.retriever),
                          reranker_path=Path(args.reranker), reranker="cross_encoder") as selector:
        result = train_ltr(cards, traces.items, pairs, selector, params=params, sampling=sampling)
    ranker, history, built, comparison = (
        result.ranker, result.history, result.groups, result.comparison
    )

    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ranker.model.booster_.save_model(str(out_dir / "model.txt"))
    (out_dir / "features.json").write_text(json.dumps(list(ranker.names), indent=1) + "\n")
    history.save(out_dir / HISTORY_FILE)
    result.calibration.save(out_dir / CALIBRATION_FILE)
    (out_dir / ORDER_FILE).write_text(json.dumps(result.shipped.to_dict(), indent=1) + "\n")
    budget_file = out_dir / LOGIT_BUDGET_FILE
    if result.logit_budget is not None:
        result.logit_budget.save(budget_file)
    else:
        budget_file.unlink(missing_ok=True)
    importance = ranker.model.booster_.feature_importance(importance_type="gain")
    total = float(importance.sum()) or 1.0
    metrics = {
        **{f"valid_{k}": round(v, 4) for k, v in comparison.items()},
        "features": result.chosen,
        "ships": result.shipped.order,
        "dense_calibration": result.shipped.to_dict()["dense_calibration"],
        "importance_gain_share": {
            n: round(float(g) / total, 4) for n, g in zip(ranker.names, importance, strict=True)
        },
        "n_train_groups": built["train"].stats["n_groups"],
        "n_train_rows": int(built["train"].labels.size),
        "n_train_without_gold": built["train"].stats["n_without_gold"],
        "n_valid_groups": built["valid"].stats["n_groups"],
        "n_valid_without_gold": built["valid"].stats["n_without_gold"],
        "n_stack_groups": built["stack"].stats["n_groups"] if "stack" in built else 0,
        "n_more_groups": built["more"].stats["n_groups"] if "more" in built else 0,
        "trained_on": result.trained_on,
        "n_valid_unseen_tool_groups": result.n_unseen_tool_groups,
        "n_valid_tail_tool_groups": result.n_tail_tool_groups,
        "n_history_tools": len(history.tools),
        "calibration": {"a": round(result.calibration.a, 4), "b": round(result.calibration.b, 4),
                        "menu_cut": result.calibration.min_relevance},
        "valid_menu_cuts": [{k: round(v, 4) for k, v in row.items()} for row in result.menu_cuts],
        "valid_logit_budgets": [
            {k: round(v, 4) for k, v in t.to_dict().items()} for t in result.budget_trials
        ],
        "logit_budget": (
            {"depth": result.logit_budget.depth, "skip_gap": result.logit_budget.skip_gap}
            if result.logit_budget is not None else None
        ),
        "fit_seconds": round(result.fit_seconds, 2),
        "stage_seconds": round(time.perf_counter() - t0, 1),
    }
    write_metrics(args.metrics, metrics)
    with stage_run(SECTION, {SECTION: asdict(params)}):
        import mlflow

        log_metrics(metrics)
        log_dataset_digest("pairs", Path(args.train_dir) / "pairs.parquet")
        log_dataset_digest("traces", args.traces)
        mlflow.log_artifact(str(out_dir / "model.txt"))
        mlflow.log_artifact(str(out_dir / "features.json"))
    print(
        f"train_ltr: {metrics['n_train_groups']} groups ({metrics['n_train_rows']} rows); valid "
        f"recall@1 fused {comparison['fused_recall_at_1']:.3f} / cross-encoder "
        f"{comparison['cross_encoder_recall_at_1']:.3f} / ltr {comparison['ltr_recall_at_1']:.3f}, "
        f"recall@8 {comparison['fused_recall_at_8']:.3f} / "
        f"{comparison['cross_encoder_recall_at_8']:.3f} / {comparison['ltr_recall_at_8']:.3f}; "
        f"ranker {result.chosen} on {metrics['trained_on']} (MRR {comparison['ltr_mrr']:.3f}, "
        f"dense order {comparison['dense_mrr']:.3f}), ships {result.shipped.order}, "
        f"in {metrics['stage_seconds']:.0f}s -> {out_dir}"
    )


if __name__ == "__main__":
    main()

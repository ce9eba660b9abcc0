"""DVC stage `evaluate`: the recall chain, plain baselines and variants on labeled queries.

    python -m training.evaluate PARAMS QUERIES BUNDLE METRICS REPORT PLOTS_DIR
        [--baseline-bundle DIR] [--variant NAME=KIND:ARG ...]

The candidate bundle runs the full runtime pipeline on every labeled query (with the
query's session context); each gold (subgoal, tool) item is followed through decompose,
retrieve, filter, menu and select (definitions in `serving.metrics`). Select is the
menu's top item, labelled "proxy", unless a `pick(step)` callable (an LLM) is injected.

Baselines run in the same pass on the same queries, the plain way: the whole request
text, no decomposition, no session mask, no filters, no rerank. `bm25` searches the
candidate bundle's BM25 index; `dense` is cosine top-k with the baseline bundle's
(`--baseline-bundle`, the stock MiniLM export) encoder and embeddings, or the candidate's
when none is given; `rrf` fuses the two (k = rrf_k). The pipeline's request-level list
(all subgoals' menus interleaved by rank, then the rest of their filtered sets) is scored
the same way so the rows compare.

Variants (`--variant NAME=KIND:ARG`, repeatable) rerun the pipeline with one part
swapped: `reranker:fused|cross_encoder|ltr` (another menu order than the bundle's),
`runtime:KEY=VALUE,...` (runtime params over the bundle's, e.g. `exploration_rate=0.1`),
`retriever:DIR` (another bi-encoder re-embeds the candidate's cards) and `bundle:DIR`
(another bundle altogether). Selectors of one run share a cache of subgoal vectors and
cross-encoder scores (`ModelCache`): the pipeline runs first and pays, and times, every
model call; a variant pays only for inputs the pipeline did not meet, so variants report
quality and no latency.

Writes METRICS (JSON), REPORT (markdown), PLOTS_DIR/recall_{retrieved,menu,request}.csv,
chain.csv and latency.csv (x = `k` or `stage`, one column per system) with recall.png and
latency.png; logs all of it, and per-query records, to MLflow tagged with the bundle version.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from serving import metrics as M
from serving.bundle.files import load_bundle
from serving.model.io import load_queries
from serving.selector import Selector
from training.core.metrics_io import write_metrics
from training.core.params import load_params
from training.evaluation.baselines import PlainRetrievers
from training.evaluation.plots import plot_rows, write_plots
from training.evaluation.scoring import SECTION, EvalParams, QueryRecord, run_evaluation
from training.evaluation.variants import ModelCache, Variant, variant_selector

log = logging.getLogger(__name__)
Params = EvalParams  # the harness's own params: promote and `toolsift eval` read them too


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in rows]
    return lines + [""]


def render_report(summary: Mapping[str, Any], *, title: str = "Evaluation") -> str:
    """A short markdown report: chain, slices, baselines, variants, latency, tokens."""
    pipe = summary["pipeline"]
    systems = {"pipeline": pipe, **summary["variants"]}
    ndcg_key = next(k for k in pipe if k.startswith("ndcg_at_"))
    chain_cols = [f"r_{s}" for s in M.STAGES] + ["end_to_end"]
    lines = [
        f"# {title}",
        "",
        f"Bundle `{summary['bundle_version']}`, {summary['n_queries']} queries, "
        f"{pipe['n_items']} gold (subgoal, tool) items; select = {pipe['select']} "
        "(proxy: the menu's top item). Each R is conditional on the stage before.",
        "",
        "## Recall chain",
        "",
    ]
    lines += _table(
        ["system", "items", *chain_cols, ndcg_key, "mrr"],
        ([name, s["n_items"], *(s[c] for c in chain_cols), s[ndcg_key], s["mrr"]]
         for name, s in systems.items()),
    )
    recall_cols = list(pipe["recall"])
    lines += ["## Stage-list recall (per gold subgoal, unconditional)", ""]
    lines += _table(
        ["system", *recall_cols],
        ([name, *(s["recall"].get(c) for c in recall_cols)] for name, s in systems.items()),
    )
    lines += ["## Slices (pipeline)", ""]
    big_k = [c for c in recall_cols if c.startswith("retrieved_at_")][-1]
    lines += _table(
        ["slice", "queries", "items", "r_retrieve", "r_filter", "r_menu", "r_select",
         "end_to_end", big_k, "abstain_rate", "false_abstain_rate"],
        ([name, s["n_queries"], s["n_items"], s["r_retrieve"], s["r_filter"], s["r_menu"],
          s["r_select"], s["end_to_end"], s["recall"][big_k], s["abstention"]["abstain_rate"],
          s["abstention"]["false_abstain_rate"]] for name, s in pipe["slices"].items()),
    )
    lines += ["## Baselines vs pipeline (whole request, no decomposition, no mask)", ""]
    base_cols = list(summary["baselines"]["pipeline"])
    lines += _table(
        ["system", *base_cols],
        ([name, *(s.get(c) for c in base_cols)] for name, s in summary["baselines"].items()),
    )
    lines += [
        "The pipeline row interleaves every subgoal's menu, then the rest of its filtered "
        "set, and applies the session's connections; the baselines do neither.",
        "",
    ]
    if summary["variants"]:
        lines += ["## Variants by slice (end_to_end / " + big_k + ")", ""]
        names = list(systems)
        lines += _table(
            ["slice", *names],
            (
                [sl, *(f"{_fmt(systems[n]['slices'][sl]['end_to_end'])} / "
                       f"{_fmt(systems[n]['slices'][sl]['recall'][big_k])}" for n in names)]
                for sl in pipe["slices"]
            ),
        )
    lines += ["## Latency per request (ms)", ""]
    lines += _table(
        ["stage", "p50", "p95"],
        ([stage, v["p50"], v["p95"]] for stage, v in pipe["latency_ms"].items()),
    )
    tok = pipe["tokens"]
    lines += ["## Prompt tokens per turn", ""]
    lines += _table(
        ["menu mean", "menu p95", "whole catalog", "ratio"],
        [[tok["menu_mean"], tok["menu_p95"], tok["catalog"], tok["ratio"]]],
    )
    ties = [(name, s["tie_breaks"]) for name, s in systems.items() if "tie_breaks" in s]
    if ties:
        lines += ["## Cost/latency tie-breaks (only within the relevance margin)", ""]
        lines += _table(
            ["system", "margin", "menus reordered", "top changed", "swapped pairs",
             "max swapped gap", "top p50 ms", "relevance top p50 ms"],
            ([name, t["margin"], t["menus_reordered"], t["top_changed"], t["swapped_pairs"],
              t["max_swapped_gap"], t["top_p50_ms"], t["relevance_top_p50_ms"]]
             for name, t in ties),
        )
    lines += ["## Saying no: abstention, menu length, missing connections", ""]
    lines += _table(
        ["system", "abstain (no tool)", "false abstain (gold)", "menu mean", "menu p95",
         "r_menu", "end_to_end"],
        ([name, s["abstention"]["abstain_rate"], s["abstention"]["false_abstain_rate"],
          s.get("menu_length_mean"), s.get("menu_length_p95"), s["r_menu"], s["end_to_end"]]
         for name, s in systems.items()),
    )
    ab = pipe["abstention"]
    lines += [
        f"Abstention: {_fmt(ab['abstain_rate'])} of {ab['n_no_tool']} no-tool queries abstain; "
        f"{_fmt(ab['false_abstain_rate'])} of {ab['n_with_gold']} queries with gold do.",
        "",
    ]
    miss = pipe.get("missing_connection")
    if miss:
        lines += [
            f"Missing connection ({miss['n_queries']} one-gold requests replayed without their "
            f"gold tool's connection): {_fmt(miss['names_connection'])} name it, "
            f"{_fmt(miss['abstained'])} abstain, {_fmt(miss['menus_with_write'])} still offer "
            "a write or destructive tool.",
            "",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (section `evaluate`)")
    parser.add_argument("queries", help="labeled queries, JSONL")
    parser.add_argument("bundle", help="the candidate bundle")
    parser.add_argument("metrics", help="where to write metrics/eval.json")
    parser.add_argument("report", help="where to write the markdown report")
    parser.add_argument("plots", help="directory for plot data and PNGs")
    parser.add_argument("--baseline-bundle", help="stock bundle for the dense baseline")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=KIND:ARG",
                        help="reranker:fused|cross_encoder|ltr | retriever:DIR | bundle:DIR | "
                        "runtime:KEY=VALUE,... (repeatable)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    params = load_params(args.params, SECTION, Params)
    variants = [Variant.parse(v) for v in args.variant]
    names = [v.name for v in variants]
    if len(set(names)) != len(names) or "pipeline" in names:
        raise SystemExit(f"--variant names must be unique and not 'pipeline': {names}")
    t0 = time.perf_counter()
    cache = ModelCache()
    selector = cache.wrap(Selector.from_bundle(args.bundle))
    loaded = load_queries(args.queries, known_tools=selector.cards)
    log.info(loaded.summary(args.queries))
    baseline = load_bundle(args.baseline_bundle) if args.baseline_bundle else None
    evaluation = run_evaluation(
        selector,
        loaded.items,
        params=params,
        plain=PlainRetrievers.from_bundles(selector.bundle, baseline),
        variants={v.name: variant_selector(v, selector, cache) for v in variants},
        missing_variants=[v.name for v in variants if v.kind == "cold_start"],
        progress=True,
    )
    seconds = time.perf_counter() - t0
    summary = {**evaluation.summary, "n_skipped_queries": loaded.n_skipped,
               "eval_seconds": round(seconds, 1)}
    write_metrics(args.metrics, summary)
    report = Path(args.report)
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(render_report(summary))
    plots = write_plots(plot_rows(summary), Path(args.plots))
    _log_to_mlflow(args, params, summary, evaluation.records, report, plots)

    pipe, base = summary["pipeline"], summary["baselines"]
    k_max = max(params.baseline_ks)
    print(
        f"evaluate: {summary['n_queries']} queries, end_to_end {_fmt(pipe['end_to_end'])} "
        f"(retrieve {_fmt(pipe['r_retrieve'])}, menu {_fmt(pipe['r_menu'])}, select "
        f"{_fmt(pipe['r_select'])} {pipe['select']}); request recall@{k_max} pipeline "
        f"{_fmt(base['pipeline'][f'recall_at_{k_max}'])} vs bm25 "
        f"{_fmt(base['bm25'][f'recall_at_{k_max}'])} / dense "
        f"{_fmt(base['dense'][f'recall_at_{k_max}'])}; {len(variants)} variants "
        f"-> {args.metrics} in {seconds:.1f}s"
    )


def _log_to_mlflow(
    args: argparse.Namespace,
    params: Params,
    summary: Mapping[str, Any],
    records: Sequence[QueryRecord],
    report: Path,
    plots: Sequence[Path],
) -> None:
    import mlflow

    from training.core.tracking import log_dataset_digest, log_metrics, stage_run

    run_params = {
        **asdict(params),
        "bundle": args.bundle,
        "baseline_bundle": args.baseline_bundle or "",
        "variants": ",".join(args.variant),
    }
    with stage_run(SECTION, run_params):
        mlflow.set_tag("bundle_version", summary["bundle_version"])
        log_dataset_digest("queries", args.queries)
        log_metrics(summary)
        mlflow.log_artifact(args.metrics)
        mlflow.log_artifact(str(report))
        for path in plots:
            mlflow.log_artifact(str(path), artifact_path="plots")
        mlflow.log_text(
            "".join(json.dumps(r.to_dict()) + "\n" for r in records), "records.jsonl"
        )


if __name__ == "__main__":
    main()

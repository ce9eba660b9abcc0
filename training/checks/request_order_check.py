"""Which request-level order to ship, chosen on validation requests (never an eval half).

    python -m training.checks.request_order_check BUNDLE TRACES PAIRS [--max-requests N]
        [--metrics OUT.json]

The validation requests are the valid split of PAIRS (the mine stage's pairs.parquet);
their request text, session and gold tools (the successful events) come from TRACES. The
bundle's history holds every trace, valid ones too, so the ranker first gets it without
the validation requests' events, as an eval request is absent from it. Each request is
discovered once; every candidate order is then the runtime's own `Discovery.ranked` with
`request_order` and `request_weight` replaced, so the check scores exactly what the
runtime would return. Prints request-level R@5 / R@10 / NDCG@10 per order, on all
requests and on those the decomposer split.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from features.dataset import PAIRS_SCHEMA, scan_parquet
from features.history import history_from_traces, request_key
from serving.decompose import DecomposerVocabulary, RuleDecomposer
from serving.metrics import ndcg_at_k, recall_at_k, run_from_lists
from serving.model.io import load_traces
from serving.model.schema import Trace
from serving.selector import Discovery, Selector
from serving.stages.rerank import LearnedReranker

ORDERS = {  # name -> (request_order, request_weight)
    **{f"rrf_w{w:g}": ("rrf", w) for w in (0.5, 1.0, 2.0, 4.0, 8.0)},
    **{f"relevance_w{w:g}": ("relevance", w) for w in (1.0, 4.0)},
}


def orders_of(d: Discovery) -> dict[str, list[str]]:
    """Every candidate order of one discovery, and the whole request's step alone."""
    out = {name: replace(d, request_order=o, request_weight=w).ranked()
           for name, (o, w) in ORDERS.items()}
    whole = d.request_step or d.steps[0]
    out["request_step_only"] = whole.final_order()
    return out


def score(
    gold: Mapping[str, Sequence[str]], lists: Mapping[str, Sequence[str]]
) -> dict[str, float]:
    qrels = {q: {t: 1 for t in g} for q, g in gold.items()}
    run = run_from_lists(lists)
    return {"recall_at_5": recall_at_k(qrels, run, 5), "recall_at_10": recall_at_k(qrels, run, 10),
            "ndcg_at_10": ndcg_at_k(qrels, run, 10)}


def validation_requests(
    traces: Sequence[Trace], pairs: pl.DataFrame, *, limit: int, seed: int = 3
) -> dict[str, list[Trace]]:
    valid = set(pairs.filter(pl.col("split") == "valid")["request_id"].to_list())
    events: dict[str, list[Trace]] = {}
    for t in traces:
        if (key := request_key(t)) in valid:
            events.setdefault(key, []).append(t)
    ids = sorted(r for r, ev in events.items() if any(t.success for t in ev))
    random.Random(seed).shuffle(ids)
    return {r: events[r] for r in ids[: limit or None]}


def run_check(selector: Selector, traces: Sequence[Trace], pairs: pl.DataFrame, *,
              limit: int) -> dict[str, Any]:
    from tqdm import tqdm

    requests = validation_requests(traces, pairs, limit=limit)
    reranker = selector.reranker
    if isinstance(reranker, LearnedReranker):  # its history without the validation requests
        annotate = RuleDecomposer(DecomposerVocabulary.from_cards(list(selector.cards.values())))
        _, per_request = history_from_traces(traces, annotate.annotate)
        less = reranker.history.without(e for r in requests for e in per_request.get(r, ()))
        selector.reranker = replace(reranker, history=less)  # menus are built per request
    gold: dict[str, list[str]] = {}
    lists: dict[str, dict[str, list[str]]] = {}
    split: set[str] = set()
    for rid, ev in tqdm(requests.items(), desc="valid requests"):
        gold[rid] = sorted({t.tool_id for t in ev if t.success})
        d = selector.discover(ev[0].request or ev[0].subgoal, ev[0].context)
        if len(d.steps) > 1:
            split.add(rid)
        for name, order in orders_of(d).items():
            lists.setdefault(name, {})[rid] = order
    out: dict[str, Any] = {"n_requests": len(gold), "n_split": len(split), "orders": {}}
    for name, by_request in lists.items():
        out["orders"][name] = {
            "all": score(gold, by_request),
            "split": score({r: gold[r] for r in split}, {r: by_request[r] for r in split}),
        }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("bundle")
    parser.add_argument("traces", help="trace events, JSONL (request text, session, gold)")
    parser.add_argument("pairs", help="the mine stage's pairs.parquet (its valid split)")
    parser.add_argument("--max-requests", type=int, default=0, help="0 = every valid request")
    parser.add_argument("--metrics", help="write the table as JSON here")
    args = parser.parse_args(argv)
    selector = Selector.from_bundle(args.bundle)
    pairs = scan_parquet(args.pairs, PAIRS_SCHEMA).select("request_id", "split").collect()
    result = run_check(selector, load_traces(args.traces).items, pairs, limit=args.max_requests)
    if args.metrics:
        Path(args.metrics).parent.mkdir(parents=True, exist_ok=True)
        Path(args.metrics).write_text(json.dumps(result, indent=1) + "\n")
    print(f"{result['n_requests']} valid requests, {result['n_split']} split by the decomposer")
    print(f"{'order':20s} {'R@5':>6s} {'R@10':>6s} {'NDCG@10':>8s}   (split only)")
    for name, row in result["orders"].items():
        a, s = row["all"], row["split"]
        print(f"{name:20s} {a['recall_at_5']:6.3f} {a['recall_at_10']:6.3f} "
              f"{a['ndcg_at_10']:8.3f}   {s['recall_at_5']:.3f} {s['recall_at_10']:.3f} "
              f"{s['ndcg_at_10']:.3f}")


if __name__ == "__main__":
    main()

"""How well the rule decomposer splits requests, scored against traces and labeled queries.

    python -m training.checks.decompose_check TRACES [--catalog CATALOG] [--queries QUERIES]
        [--metrics OUT.json] [--failures N]

Traces are the development data: the events of one `request_id` with more than one
distinct `subgoal` are a multi-part request whose gold parts are those subgoals in order
(a retry repeats a subgoal, so they are deduplicated keeping the first); a request with
one distinct subgoal is a single-part request. `--queries` scores labeled queries too
(the `multi_subgoal` and `single` slices): run it on held-out data only to report, never
to tune the rules.

Multi-part metrics: `exact_count_rate` (as many predicted subgoals as gold ones),
`align_recall` (share of gold subgoals aligned to a predicted one by
`serving.metrics.align_subgoals`: containment >= 0.5, greedy one-to-one), and the
numbers of requests split into too many (`n_over`) and too few (`n_under`) subgoals.
Single-part metric: `one_subgoal_rate` (split into exactly one: more is harmful, every
extra subgoal retrieves tools nobody asked for). The vocabulary comes from the catalog
(`--catalog`, by default `catalog.jsonl` beside TRACES).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from serving.decompose import DecomposerVocabulary, RuleDecomposer
from serving.metrics import align_subgoals
from serving.model.io import load_catalog, load_queries, load_traces
from serving.model.schema import LabeledQuery, Trace

log = logging.getLogger(__name__)

Split = Callable[[str], Sequence[str]]


@dataclass(frozen=True, slots=True)
class SplitCase:
    """One request and its gold subgoal texts, in order."""

    case_id: str
    request: str
    gold: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SplitOutcome:
    case: SplitCase
    predicted: tuple[str, ...]
    aligned: tuple[int | None, ...]  # per gold subgoal: its predicted index, or None

    @property
    def n_aligned(self) -> int:
        return sum(a is not None for a in self.aligned)


def cases_from_traces(traces: Iterable[Trace]) -> list[SplitCase]:
    """One case per request id, in first-seen order; gold deduplicated keeping order."""
    requests: dict[str, str] = {}
    parts: dict[str, list[str]] = {}
    for t in traces:
        if not t.request_id or not t.request:
            continue
        requests.setdefault(t.request_id, t.request)
        parts.setdefault(t.request_id, []).append(t.subgoal)
    return [SplitCase(rid, requests[rid], tuple(dict.fromkeys(parts[rid]))) for rid in requests]


def cases_from_queries(queries: Iterable[LabeledQuery], slice_name: str) -> list[SplitCase]:
    """The queries of one slice; a query without labeled subgoals is one gold part."""
    return [
        SplitCase(
            q.query_id,
            q.query,
            tuple(sg.text for sg in q.subgoals) if q.subgoals else (q.query,),
        )
        for q in queries
        if slice_name in q.slices
    ]


def split_cases(cases: Iterable[SplitCase], split: Split) -> list[SplitOutcome]:
    out = []
    for case in cases:
        predicted = tuple(split(case.request))
        aligned = align_subgoals(case.gold, predicted) if len(case.gold) > 1 else [0]
        out.append(SplitOutcome(case, predicted, tuple(aligned)))
    return out


def multi_scores(outcomes: Sequence[SplitOutcome]) -> dict[str, float]:
    """Count match, alignment recall and over/under-splits of multi-part requests."""
    n = len(outcomes)
    n_gold = sum(len(o.case.gold) for o in outcomes)
    return {
        "n": n,
        "n_gold_subgoals": n_gold,
        "exact_count_rate": sum(len(o.predicted) == len(o.case.gold) for o in outcomes) / n
        if n
        else 0.0,
        "align_recall": sum(o.n_aligned for o in outcomes) / n_gold if n_gold else 0.0,
        "n_over": sum(len(o.predicted) > len(o.case.gold) for o in outcomes),
        "n_under": sum(len(o.predicted) < len(o.case.gold) for o in outcomes),
    }


def single_scores(outcomes: Sequence[SplitOutcome]) -> dict[str, float]:
    """Share of single-part requests left as exactly one subgoal."""
    n = len(outcomes)
    return {
        "n": n,
        "one_subgoal_rate": sum(len(o.predicted) == 1 for o in outcomes) / n if n else 0.0,
        "n_over": sum(len(o.predicted) > 1 for o in outcomes),
    }


def check_split(
    cases: Sequence[SplitCase], split: Split
) -> tuple[dict[str, float], list[SplitOutcome]]:
    """Score multi- and single-part cases; returns metrics (flat keys) and the outcomes."""
    t0 = time.perf_counter()
    outcomes = split_cases(cases, split)
    per_request_ms = (time.perf_counter() - t0) * 1e3 / max(len(cases), 1)
    multi = [o for o in outcomes if len(o.case.gold) > 1]
    single = [o for o in outcomes if len(o.case.gold) == 1]
    metrics: dict[str, float] = {"mean_ms_per_request": per_request_ms}
    metrics.update({f"multi_{k}": v for k, v in multi_scores(multi).items()})
    metrics.update({f"single_{k}": v for k, v in single_scores(single).items()})
    return metrics, outcomes


def is_failure(o: SplitOutcome) -> bool:
    if len(o.case.gold) > 1:
        return len(o.predicted) != len(o.case.gold) or o.n_aligned < len(o.case.gold)
    return len(o.predicted) != 1


def _show_failures(name: str, outcomes: Sequence[SplitOutcome], limit: int) -> None:
    failed = [o for o in outcomes if is_failure(o)]
    print(f"--- {name}: {len(failed)} failures, first {min(limit, len(failed))}", file=sys.stderr)
    for o in failed[:limit]:
        print(f"\n[{o.case.case_id}] {o.case.request}", file=sys.stderr)
        for i, g in enumerate(o.case.gold):
            mark = "ok" if o.aligned[i] is not None else "MISS"
            print(f"  gold {mark:4} {g}", file=sys.stderr)
        for p in o.predicted:
            print(f"  pred      {p}", file=sys.stderr)


def _line(name: str, m: dict[str, float]) -> str:
    return (
        f"{name}: multi n={m['multi_n']:.0f} exact_count={m['multi_exact_count_rate']:.3f} "
        f"align_recall={m['multi_align_recall']:.3f} over={m['multi_n_over']:.0f} "
        f"under={m['multi_n_under']:.0f} | single n={m['single_n']:.0f} "
        f"one_subgoal={m['single_one_subgoal_rate']:.3f} | "
        f"{m['mean_ms_per_request']:.3f} ms/request"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("traces", help="trace events, JSONL")
    parser.add_argument("--catalog", help="tool cards, JSONL (default: catalog.jsonl beside)")
    parser.add_argument("--queries", help="labeled queries, JSONL (held out: report only)")
    parser.add_argument("--metrics", help="write the metrics here as JSON")
    parser.add_argument("--failures", type=int, default=0, help="print N failures per set")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    catalog_path = Path(args.catalog or Path(args.traces).with_name("catalog.jsonl"))
    catalog = load_catalog(catalog_path, strict=True).items
    rules = RuleDecomposer(DecomposerVocabulary.from_cards(catalog))

    def split(request: str) -> list[str]:
        return [sg.text for sg in rules.decompose(request)]

    results: dict[str, dict[str, float]] = {}
    trace_cases = cases_from_traces(load_traces(args.traces).items)
    results["traces"], outcomes = check_split(trace_cases, split)
    if args.failures:
        _show_failures("traces", outcomes, args.failures)
    if args.queries:
        queries = load_queries(args.queries).items
        held_out = cases_from_queries(queries, "multi_subgoal") + cases_from_queries(
            queries, "single"
        )
        results["queries"], outcomes = check_split(held_out, split)
        if args.failures:
            _show_failures("queries", outcomes, args.failures)
    if args.metrics:
        out = Path(args.metrics)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    for name, m in results.items():
        print(_line(name, m))


if __name__ == "__main__":
    main()

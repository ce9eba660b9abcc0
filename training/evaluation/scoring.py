"""The scoring harness: run a selector over labeled queries and score the recall chain.

`evaluate` runs discovery on every query and records, per subgoal, the four stage sets
(retrieved, filtered, menu, selected) and the latency; `summarize` turns the records into
the pipeline's section of eval.json (chain, stage-list recall, slices, latency, tokens,
abstention, tie-breaks); `run_evaluation` adds the plain baselines (`baselines`) and
the variants (`variants`) on the same queries. Used by the `evaluate` and `promote`
stages and by `toolsift eval`; the definitions of each rate are in `serving.metrics`.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from tqdm.auto import tqdm

from serving import metrics as M
from serving.bundle.files import load_bundle
from serving.model.io import load_queries
from serving.model.schema import LabeledQuery
from serving.selector import Selector, StepResult
from serving.stages.disclose import catalog_tokens
from serving.stages.rerank import tie_break_audit
from serving.stages.retrieve import weighted_rrf
from training.core.params import ParamsError
from training.evaluation.baselines import BASELINES, PlainRetrievers, plain_baselines
from training.evaluation.missing_slice import missing_connection_slice
from training.evaluation.warm import warm_encoders

SECTION = "evaluate"
Pick = Callable[[StepResult], str | None]
STAGE_ORDER = ("decompose", "encode", "retrieve", "fuse", "filter", "rerank", "disclose", "total")
WARMUP_REQUEST = "list the most recent items"

Q = TypeVar("Q")


@dataclass(frozen=True, slots=True)
class EvalParams:
    """Mirror of the `evaluate` section of params.yaml."""

    ks: Sequence[int] = (5, 10, 20, 40)  # recall@k of each subgoal's retrieved list
    menu_ks: Sequence[int] = (1, 5, 8)  # recall@k of the menu
    baseline_ks: Sequence[int] = (5, 10, 40)  # request-level recall@k, baselines and pipeline
    ndcg_k: int = 10
    baseline_depth: int = 40  # each plain baseline returns this many tools
    rrf_k: int = 60
    max_queries: int = 0  # 0 = every query; else a seeded sample of this many
    seed: int = 13
    # requests replayed with their gold tool's connection removed (`missing_slice`); 0 = none
    missing_connection_queries: int = 300
    # a slice with fewer queries is counted, not scored (`reported_slices`): a benchmark
    # field with a value per API gave AceBench 906 slices and an 8 MB eval.json
    min_slice_queries: int = 0

    def __post_init__(self) -> None:
        for name in ("ks", "menu_ks", "baseline_ks"):
            values = tuple(getattr(self, name))
            if not values or any(isinstance(k, bool) or not isinstance(k, int) or k < 1
                                 for k in values):
                raise ParamsError(f"{SECTION}.{name}: expected a list of positive integers")
            object.__setattr__(self, name, tuple(sorted(set(values))))
        if self.ndcg_k < 1 or self.baseline_depth < 1 or self.rrf_k < 1 or self.max_queries < 0:
            raise ParamsError(f"{SECTION}: ndcg_k, baseline_depth, rrf_k must be >= 1, "
                             "max_queries >= 0")


# --- one pass of the pipeline -------------------------------------------------------


def proxy_pick(step: StepResult) -> str | None:
    """Select without an LLM: the menu's top item."""
    return step.menu[0].tool_id if step.menu else None


@dataclass(frozen=True, slots=True)
class MenuTies:
    """What cost/latency tie-breaking did to one step's menu (`serving.stages.rerank`)."""

    swapped_pairs: int  # pairs in the other order than relevance put them
    max_gap: float  # the largest relevance gap among them (<= the tie margin)
    top_changed: bool  # the menu's first item is not relevance's first
    top_p50_ms: float  # the first item's p50 latency, final order
    relevance_top_p50_ms: float  # the same for relevance's first item

    @classmethod
    def of(cls, step: StepResult, cards: Mapping[str, Any]) -> MenuTies | None:
        if not step.menu:
            return None
        audit = tie_break_audit(step.menu)
        first = min(step.menu, key=lambda c: c.scores.get("relevance_rank", 0))
        return cls(audit.n_swapped_pairs, audit.max_swapped_gap,
                   first.tool_id != step.menu[0].tool_id,
                   cards[step.menu[0].tool_id].p50_ms, cards[first.tool_id].p50_ms)


def tie_summary(ties: Sequence[MenuTies], margin: float | None) -> dict[str, Any]:
    """How often cost/latency reordered a menu and how far apart in relevance the items
    they swapped were: the measured side of "tie-breakers only"."""
    n = len(ties)
    return {
        "margin": margin,
        "n_menus": n,
        "menus_reordered": sum(t.swapped_pairs > 0 for t in ties) / n if n else None,
        "top_changed": sum(t.top_changed for t in ties) / n if n else None,
        "swapped_pairs": sum(t.swapped_pairs for t in ties),
        "max_swapped_gap": max((t.max_gap for t in ties), default=0.0),
        "top_p50_ms": float(np.mean([t.top_p50_ms for t in ties])) if n else None,
        "relevance_top_p50_ms": float(np.mean([t.relevance_top_p50_ms for t in ties]))
        if n else None,
    }


@dataclass(frozen=True, slots=True)
class QueryRecord:
    """One labeled query's way through the pipeline, in plain shapes."""

    query_id: str
    slices: tuple[str, ...]
    gold: tuple[str, ...]
    gold_subgoals: tuple[M.GoldSubgoal, ...]
    spans_request: bool  # no labeled subgoals: the request is the one gold subgoal
    steps: tuple[M.StepSets, ...]
    alignment: tuple[int | None, ...]
    items: tuple[M.ItemOutcome, ...]
    latency_ms: Mapping[str, float]
    menu_tokens: int
    ties: tuple[MenuTies, ...] = ()
    # the whole request's own step (`Discovery.request_step`) and its fusion weight
    request_step: M.StepSets | None = None
    request_weight: float = 0.0
    rrf_k: int = 60
    ranked: tuple[str, ...] = ()  # the runtime's request-level order (`Discovery.ranked`)

    @property
    def abstained(self) -> bool:
        return all(s.abstained for s in self.steps)

    def request_order(self) -> list[str]:
        """Request-level final order: the runtime's own (`Discovery.ranked`), else menus
        interleaved by rank, then the rest of the filtered sets interleaved."""
        if self.ranked:
            return list(self.ranked)
        menus = M.interleave([s.menu for s in self.steps])
        rest = M.interleave([[t for t in s.filtered if t not in s.menu] for s in self.steps])
        return list(dict.fromkeys(menus + rest))

    def spanning_steps(self) -> tuple[M.StepSets, ...]:
        """The steps a whole-request gold is scored on: every subgoal's and the request's."""
        return self.steps + (() if self.request_step is None else (self.request_step,))

    def spanning_list(self, lists: Sequence[Sequence[str]]) -> list[str]:
        """One list per `spanning_steps` fused as `Discovery.ranked` fuses the steps' orders
        (its RRF; the relevance-first order needs menus, which stage lists do not have)."""
        n = len(self.steps)
        weights = [1.0 / n] * n + ([] if self.request_step is None else [self.request_weight])
        return weighted_rrf(lists, weights, k=self.rrf_k)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query_id": self.query_id,
            "slices": list(self.slices),
            "gold": list(self.gold),
            "gold_subgoals": [{"text": g.text, "gold": list(g.gold)} for g in self.gold_subgoals],
            "steps": [asdict(s) for s in self.steps],
            "alignment": list(self.alignment),
            "items": [
                {"subgoal": it.subgoal, "tool_id": it.tool_id, "step": it.step,
                 "lost_at": it.lost_at}
                for it in self.items
            ],
            "abstained": self.abstained,
            "latency_ms": {k: round(v, 3) for k, v in self.latency_ms.items()},
            "menu_tokens": self.menu_tokens,
        }


@dataclass(frozen=True, slots=True)
class EvalResult:
    records: tuple[QueryRecord, ...]
    select: str  # "proxy" (menu top) or the injected selector's name
    catalog_tokens: int


def step_sets(step: StepResult, choose: Pick) -> M.StepSets:
    """A runtime step in the plain shape the metrics score."""
    return M.StepSets(
        text=step.subgoal.text,
        retrieved=tuple(c.tool_id for c in step.retrieved),
        filtered=tuple(c.tool_id for c in step.filtered),
        menu=tuple(step.menu_ids),
        selected=choose(step),
        order=tuple(step.final_order()),
    )


def evaluate(
    selector: Selector,
    queries: Sequence[LabeledQuery],
    *,
    pick: Pick | None = None,
    progress: bool = False,
    desc: str = "evaluate",
    warmup: bool = True,
) -> EvalResult:
    """Run discovery on every query and record the four stage sets per subgoal."""
    choose = pick or proxy_pick
    if queries and warmup:
        selector.discover(WARMUP_REQUEST)  # load the lazy models outside the timed requests
    records = []
    for query in tqdm(queries, desc=desc, disable=not progress, file=sys.stderr, unit="q"):
        discovery = selector.discover(query.query, query.context)
        steps = tuple(step_sets(s, choose) for s in discovery.steps)
        request_step = None
        if discovery.request_step is not None:
            request_step = step_sets(discovery.request_step, choose)
        gold, spans = M.gold_subgoals(query)
        scored = steps + ((request_step,) if spans and request_step is not None else ())
        alignment, items = M.item_outcomes(gold, scored, spans_request=spans)
        latency = {"decompose": discovery.timings_ms.get("decompose", 0.0)}
        timed = (*discovery.steps, *(() if discovery.request_step is None
                                      else (discovery.request_step,)))
        for step in timed:
            for stage, ms in step.timings_ms.items():
                latency[stage] = latency.get(stage, 0.0) + ms
        latency["total"] = discovery.timings_ms.get("total", sum(latency.values()))
        records.append(
            QueryRecord(
                query_id=query.query_id,
                slices=tuple(query.slices),
                gold=tuple(query.gold),
                gold_subgoals=gold,
                spans_request=spans,
                steps=steps,
                alignment=tuple(alignment),
                items=tuple(items),
                latency_ms=latency,
                menu_tokens=discovery.menu_tokens,
                ties=tuple(t for s in discovery.steps
                           if (t := MenuTies.of(s, selector.cards)) is not None),
                request_step=request_step,
                request_weight=discovery.request_weight,
                rrf_k=discovery.rrf_k,
                ranked=tuple(discovery.ranked()),
            )
        )
    select = "proxy" if pick is None else getattr(pick, "name", getattr(pick, "__name__", "pick"))
    return EvalResult(tuple(records), str(select), catalog_tokens(selector.bundle.cards))


# --- scoring ------------------------------------------------------------------------


def stage_lists(records: Sequence[QueryRecord]) -> tuple[M.Qrels, dict[str, dict[str, list[str]]]]:
    """Per gold subgoal (qid `query_id#i`): its qrels and the aligned step's retrieved list,
    menu and final order (menu then the rest of filtered); empty when not decomposed."""
    qrels: dict[str, dict[str, int]] = {}
    lists: dict[str, dict[str, list[str]]] = {"retrieved": {}, "menu": {}, "final": {}}
    for rec in records:
        for i, gold in enumerate(rec.gold_subgoals):
            if not gold.gold:
                continue
            qid = f"{rec.query_id}#{i}"
            qrels[qid] = {t: 1 for t in gold.gold}
            if rec.spans_request:
                steps = list(rec.spanning_steps())
                merge = rec.spanning_list
            else:
                j = rec.alignment[i]
                steps = [] if j is None else [rec.steps[j]]
                merge = M.interleave
            lists["retrieved"][qid] = merge([s.retrieved for s in steps])
            lists["menu"][qid] = merge([s.menu for s in steps])
            lists["final"][qid] = merge([s.final_order() for s in steps])
    return qrels, lists


def request_qrels(records: Iterable[QueryRecord]) -> dict[str, dict[str, int]]:
    return {r.query_id: {t: 1 for t in r.gold} for r in records if r.gold}


def score_run(
    qrels: M.Qrels, run: M.Run, ks: Sequence[int], *, ndcg_k: int
) -> dict[str, float | None]:
    """recall_at_k for each k, ndcg_at_<ndcg_k> and MRR of one request-level run
    (None when no query has gold)."""
    out: dict[str, float | None] = {f"recall_at_{k}": M.recall_at_k(qrels, run, k) for k in ks}
    out[f"ndcg_at_{ndcg_k}"] = M.ndcg_at_k(qrels, run, ndcg_k)
    out["mrr"] = M.mrr(qrels, run)
    return out if qrels else dict.fromkeys(out)


def _quality(records: Sequence[QueryRecord], params: EvalParams) -> dict[str, Any]:
    """Chain, stage-list recall, ranking quality and abstention of a set of records."""
    items = [it for r in records for it in r.items]
    qrels, lists = stage_lists(records)
    recall = {}
    for k in params.ks:
        recall[f"retrieved_at_{k}"] = M.recall_at_k(qrels, M.run_from_lists(lists["retrieved"]), k)
    for k in params.menu_ks:
        recall[f"menu_at_{k}"] = M.recall_at_k(qrels, M.run_from_lists(lists["menu"]), k)
    final = M.run_from_lists(lists["final"])
    scored = bool(qrels)  # a slice of no-tool queries has nothing to rank
    return {
        "n_queries": len(records),
        **M.recall_chain(items),
        "recall": {k: v if scored else None for k, v in recall.items()},
        f"ndcg_at_{params.ndcg_k}": M.ndcg_at_k(qrels, final, params.ndcg_k) if scored else None,
        "mrr": M.mrr(qrels, final) if scored else None,
        "abstention": M.abstention_scores(
            [r.abstained for r in records], [bool(r.gold) for r in records]
        ),
        # menus sized by relevance: how long they are, beside R_menu and abstention
        "menu_length_mean": (
            float(np.mean([len(s.menu) for r in records for s in r.steps]))
            if any(r.steps for r in records) else None
        ),
        "menu_length_p95": (
            M.percentiles([len(s.menu) for r in records for s in r.steps])["p95"]
            if any(r.steps for r in records) else None
        ),
    }


def summarize(
    records: Sequence[QueryRecord],
    slices: Sequence[str] | None = None,
    *,
    params: EvalParams | None = None,
    catalog_tokens: int | None = None,
    select: str = "proxy",
    tie_margin: float | None = None,
) -> dict[str, Any]:
    """The pipeline's section of eval.json: chain, recall, per-slice quality, latency
    percentiles per stage, menu tokens against the whole catalog, abstention."""
    params = params or EvalParams()
    if slices is None:
        slices = sorted({s for r in records for s in r.slices})
    out = _quality(records, params)
    out["select"] = select
    out["request"] = score_run(
        request_qrels(records),
        M.run_from_lists({r.query_id: r.request_order() for r in records}),
        params.baseline_ks,
        ndcg_k=params.ndcg_k,
    )
    out["slices"] = {
        name: _quality([r for r in records if name in r.slices], params) for name in slices
    }
    stages = [s for s in STAGE_ORDER if any(s in r.latency_ms for r in records)]
    out["latency_ms"] = {
        s: M.percentiles(r.latency_ms[s] for r in records if s in r.latency_ms) for s in stages
    }
    tokens = [r.menu_tokens for r in records]
    menu_mean = float(np.mean(tokens)) if tokens else 0.0
    out["tokens"] = {
        "menu_mean": menu_mean,
        "menu_p95": M.percentiles(tokens)["p95"],
        "catalog": catalog_tokens,
        "ratio": menu_mean / catalog_tokens if catalog_tokens else None,
    }
    out["tie_breaks"] = tie_summary([t for r in records for t in r.ties], tie_margin)
    return out


# --- the whole evaluation ---------------------------------------------------------


def sample_queries(queries: Sequence[Q], max_queries: int, seed: int) -> list[Q]:
    """Every query, or a seeded sample of `max_queries` kept in file order (the evaluation's
    labeled queries, a benchmark's requests before conversion)."""
    if max_queries <= 0 or max_queries >= len(queries):
        return list(queries)
    keep = set(random.Random(seed).sample(range(len(queries)), max_queries))
    return [q for i, q in enumerate(queries) if i in keep]


def round_floats(value: Any, ndigits: int = 4) -> Any:
    if isinstance(value, float):
        return round(value, ndigits)
    if isinstance(value, Mapping):
        return {k: round_floats(v, ndigits) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [round_floats(v, ndigits) for v in value]
    return value


@dataclass
class Evaluation:
    """eval.json (`summary`) and the per-query records behind the pipeline's numbers."""

    summary: dict[str, Any]
    records: list[QueryRecord] = field(default_factory=list)


def reported_slices(
    queries: Sequence[LabeledQuery], min_queries: int
) -> tuple[list[str], int]:
    """The slices with at least `min_queries` queries, sorted, and how many have fewer."""
    counts = Counter(s for q in queries for s in set(q.slices))
    kept = sorted(s for s, n in counts.items() if n >= min_queries)
    return kept, len(counts) - len(kept)


def run_evaluation(
    selector: Selector,
    queries: Sequence[LabeledQuery],
    *,
    params: EvalParams,
    plain: PlainRetrievers,
    variants: Mapping[str, Selector] | None = None,
    pick: Pick | None = None,
    progress: bool = False,
    missing_variants: Collection[str] = (),
) -> Evaluation:
    """Pipeline, baselines and variants on the same queries; the nested eval.json dict.
    `missing_variants`: variants that also report the missing-connection slice (a first
    bundle's, whose stock runtime looks up what the session lacks)."""
    queries = sample_queries(queries, params.max_queries, params.seed)
    slices, n_small = reported_slices(queries, params.min_slice_queries)
    result = evaluate(selector, queries, pick=pick, progress=progress, desc="pipeline")
    pipeline = summarize(
        result.records, slices, params=params, catalog_tokens=result.catalog_tokens,
        select=result.select, tie_margin=selector.params.tie_margin,
    )
    qrels = request_qrels(result.records)
    runs = plain_baselines(
        {q.query_id: q.query for q in queries if q.gold}, plain,
        depth=params.baseline_depth, rrf_k=params.rrf_k,
    )
    baselines = {
        name: score_run(qrels, M.run_from_lists(runs[name]), params.baseline_ks,
                        ndcg_k=params.ndcg_k)
        for name in BASELINES
    }
    baselines["pipeline"] = dict(pipeline["request"])
    if params.missing_connection_queries > 0:
        pipeline["missing_connection"] = missing_connection_slice(
            selector, queries, n=params.missing_connection_queries, seed=params.seed
        )
    out_variants = {}
    for name, variant in (variants or {}).items():
        # a variant reports no latency: its texts are embedded ahead, in batches
        warm_encoders(variant, [q.query for q in queries])
        res = evaluate(variant, queries, pick=pick, progress=progress, desc=name)
        out_variants[name] = summarize(
            res.records, slices, params=params, catalog_tokens=res.catalog_tokens,
            select=res.select, tie_margin=variant.params.tie_margin,
        )
        # its model calls were partly served by the pipeline's cache: no latency to report
        del out_variants[name]["latency_ms"]
        if name in missing_variants and params.missing_connection_queries > 0:
            out_variants[name]["missing_connection"] = missing_connection_slice(
                variant, queries, n=params.missing_connection_queries, seed=params.seed
            )
    summary = {
        "n_queries": len(queries),
        "n_slices_below_min_queries": n_small,
        "bundle_version": selector.bundle.manifest.bundle_version,
        "pipeline": pipeline,
        "baselines": baselines,
        "variants": out_variants,
    }
    return Evaluation(round_floats(summary), list(result.records))


def run_eval_cli(
    bundle: str | Path,
    queries: str | Path,
    baseline_bundle: str | Path | None = None,
    *,
    params: EvalParams | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """The eval.json dict for a bundle and a labeled query file (no files, no MLflow):
    the body of a `toolsift eval` command."""
    selector = Selector.from_bundle(bundle)
    loaded = load_queries(queries, known_tools=selector.cards)
    baseline = load_bundle(baseline_bundle) if baseline_bundle else None
    evaluation = run_evaluation(
        selector, loaded.items, params=params or EvalParams(),
        plain=PlainRetrievers.from_bundles(selector.bundle, baseline), progress=progress,
    )
    return {**evaluation.summary, "n_skipped_queries": loaded.n_skipped}

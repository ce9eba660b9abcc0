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
import csv
import json
import logging
import random
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from serving import metrics as M
from serving.bundle import Bundle, load_bundle
from serving.config import RERANKERS, RuntimeParams
from serving.disclose import catalog_tokens
from serving.encoder import Encoder, PairScorer
from serving.io import load_queries
from serving.rerank import CrossEncoderReranker, LearnedReranker, tie_break_audit
from serving.retrieve import BM25Retriever, top_n
from serving.schema import LabeledQuery
from serving.selector import Selector, StepResult
from training.common import load_params, write_metrics

log = logging.getLogger(__name__)
SECTION = "evaluate"
Pick = Callable[[StepResult], str | None]
STAGE_ORDER = ("decompose", "encode", "retrieve", "fuse", "filter", "rerank", "disclose", "total")
VARIANT_KINDS = ("reranker", "retriever", "bundle", "runtime")
BASELINES = ("bm25", "dense", "rrf")
WARMUP_REQUEST = "list the most recent items"


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `evaluate` section of params.yaml."""

    ks: Sequence[int] = (5, 10, 20, 40)  # recall@k of each subgoal's retrieved list
    menu_ks: Sequence[int] = (1, 5, 8)  # recall@k of the menu
    baseline_ks: Sequence[int] = (5, 10, 40)  # request-level recall@k, baselines and pipeline
    ndcg_k: int = 10
    baseline_depth: int = 40  # each plain baseline returns this many tools
    rrf_k: int = 60
    max_queries: int = 0  # 0 = every query; else a seeded sample of this many
    seed: int = 13

    def __post_init__(self) -> None:
        for name in ("ks", "menu_ks", "baseline_ks"):
            values = tuple(getattr(self, name))
            if not values or any(isinstance(k, bool) or not isinstance(k, int) or k < 1
                                 for k in values):
                raise ValueError(f"{SECTION}.{name}: expected a list of positive integers")
            object.__setattr__(self, name, tuple(sorted(set(values))))
        if self.ndcg_k < 1 or self.baseline_depth < 1 or self.rrf_k < 1 or self.max_queries < 0:
            raise ValueError(f"{SECTION}: ndcg_k, baseline_depth, rrf_k must be >= 1, "
                             "max_queries >= 0")


# --- one pass of the pipeline -------------------------------------------------------


def proxy_pick(step: StepResult) -> str | None:
    """Select without an LLM: the menu's top item."""
    return step.menu[0].tool_id if step.menu else None


@dataclass(frozen=True, slots=True)
class MenuTies:
    """What cost/latency tie-breaking did to one step's menu (`serving.rerank`)."""

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

    @property
    def abstained(self) -> bool:
        return all(s.abstained for s in self.steps)

    def request_order(self) -> list[str]:
        """Request-level final order: menus interleaved by rank, then the rest of the
        filtered sets interleaved, so every subgoal's best candidates come first."""
        menus = M.interleave([s.menu for s in self.steps])
        rest = M.interleave([[t for t in s.filtered if t not in s.menu] for s in self.steps])
        return list(dict.fromkeys(menus + rest))

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


def gold_subgoals(query: LabeledQuery) -> tuple[tuple[M.GoldSubgoal, ...], bool]:
    """The query's gold subgoals and whether they are just the whole request."""
    if query.subgoals:
        return tuple(M.GoldSubgoal(s.text, tuple(s.gold)) for s in query.subgoals), False
    return (M.GoldSubgoal(query.query, tuple(query.gold)),), True


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
        steps = tuple(
            M.StepSets(
                text=s.subgoal.text,
                retrieved=tuple(c.tool_id for c in s.retrieved),
                filtered=tuple(c.tool_id for c in s.filtered),
                menu=tuple(s.menu_ids),
                selected=choose(s),
            )
            for s in discovery.steps
        )
        gold, spans = gold_subgoals(query)
        alignment, items = M.item_outcomes(gold, steps, spans_request=spans)
        latency = {"decompose": discovery.timings_ms.get("decompose", 0.0)}
        for step in discovery.steps:
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
                steps = list(rec.steps)
            else:
                j = rec.alignment[i]
                steps = [] if j is None else [rec.steps[j]]
            lists["retrieved"][qid] = M.interleave([s.retrieved for s in steps])
            lists["menu"][qid] = M.interleave([s.menu for s in steps])
            lists["final"][qid] = M.interleave([s.final_order() for s in steps])
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


def _quality(records: Sequence[QueryRecord], params: Params) -> dict[str, Any]:
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
    }


def summarize(
    records: Sequence[QueryRecord],
    slices: Sequence[str] | None = None,
    *,
    params: Params | None = None,
    catalog_tokens: int | None = None,
    select: str = "proxy",
    tie_margin: float | None = None,
) -> dict[str, Any]:
    """The pipeline's section of eval.json: chain, recall, per-slice quality, latency
    percentiles per stage, menu tokens against the whole catalog, abstention."""
    params = params or Params()
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


# --- plain baselines ----------------------------------------------------------------


@dataclass(frozen=True)
class PlainRetrievers:
    """What the plain baselines search: BM25 over the candidate bundle, cosine over the
    baseline bundle's embeddings with its own encoder."""

    bm25: BM25Retriever
    bm25_ids: Sequence[str]
    encoder: Encoder
    embeddings: np.ndarray
    dense_ids: Sequence[str]

    @classmethod
    def from_bundles(cls, candidate: Bundle, baseline: Bundle | None = None) -> PlainRetrievers:
        stock = baseline or candidate
        return cls(
            bm25=BM25Retriever.load(candidate.bm25_path),
            bm25_ids=[c.tool_id for c in candidate.cards],
            encoder=Encoder(stock.retriever_path),
            embeddings=stock.embeddings,
            dense_ids=[c.tool_id for c in stock.cards],
        )


def rrf_ids(lists: Sequence[Sequence[str]], *, k: int, n: int) -> list[str]:
    """Reciprocal rank fusion over id lists: sum of 1 / (k + rank), rank from 1."""
    scores: dict[str, float] = {}
    for ids in lists:
        for rank, tool_id in enumerate(ids, start=1):
            scores[tool_id] = scores.get(tool_id, 0.0) + 1.0 / (k + rank)
    return M.ranked(scores)[:n]


def plain_baselines(
    requests: Mapping[str, str], plain: PlainRetrievers, *, depth: int, rrf_k: int
) -> dict[str, dict[str, list[str]]]:
    """Each baseline's top `depth` tool ids per request: {"bm25"|"dense"|"rrf": {qid: ids}}."""
    qids = list(requests)
    everything = np.ones(len(plain.bm25_ids), dtype=bool)
    dense_all = np.ones(len(plain.dense_ids), dtype=bool)
    vectors = plain.encoder.encode([requests[q] for q in qids]) if qids else np.zeros((0, 1))
    out: dict[str, dict[str, list[str]]] = {name: {} for name in BASELINES}
    for qid, vector in zip(qids, vectors, strict=True):
        bm25 = [plain.bm25_ids[r] for r, _ in plain.bm25.search(requests[qid], everything, depth)]
        dense = [
            plain.dense_ids[r] for r, _ in top_n(plain.embeddings @ vector, dense_all, depth)
        ]
        out["bm25"][qid] = bm25
        out["dense"][qid] = dense
        out["rrf"][qid] = rrf_ids([dense, bm25], k=rrf_k, n=depth)
    return out


# --- variants -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    kind: str  # reranker | retriever | bundle | runtime
    arg: str

    def overrides(self) -> dict[str, Any]:
        """`runtime:KEY=VALUE,KEY=VALUE`: runtime params over the bundle's (YAML values)."""
        import yaml

        out = {}
        for item in self.arg.split(","):
            key, sep, value = item.partition("=")
            if not (sep and key.strip()):
                raise ValueError(f"--variant {self.name}: expected KEY=VALUE, got {item!r}")
            out[key.strip()] = yaml.safe_load(value)
        return out

    @classmethod
    def parse(cls, spec: str) -> Variant:
        """`NAME=KIND:ARG`, e.g. `fused=reranker:fused`, `stock=bundle:bundles/base`."""
        name, sep, rest = spec.partition("=")
        kind, sep2, arg = rest.partition(":")
        if not (sep and sep2 and name and arg) or kind not in VARIANT_KINDS:
            raise ValueError(
                f"--variant {spec!r}: expected NAME=KIND:ARG with KIND one of "
                f"{', '.join(VARIANT_KINDS)}"
            )
        if kind == "reranker" and arg not in RERANKERS:
            raise ValueError(f"--variant {spec!r}: reranker is one of {', '.join(RERANKERS)}")
        variant = cls(name, kind, arg)
        if kind == "runtime":
            RuntimeParams.from_dict(variant.overrides())  # unknown keys fail here
        return variant


class CachedEncoder(Encoder):
    """An Encoder that remembers vectors by (model, text), shared across the selectors of
    one run: a variant with the candidate's bi-encoder does not embed a subgoal twice."""

    def __init__(self, inner: Encoder, cache: dict[tuple[str, str], np.ndarray]) -> None:
        super().__init__(inner.model_path, batch_size=inner.batch_size)
        self.cache = cache

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if (self.model_path, t) not in self.cache))
        if missing:
            vectors = super().encode(missing, show_progress=show_progress)
            for text, vector in zip(missing, vectors, strict=True):
                self.cache[(self.model_path, text)] = vector
        if not texts:
            return super().encode([])
        return np.stack([self.cache[(self.model_path, t)] for t in texts])


class CachedPairScorer(PairScorer):
    """A PairScorer that remembers scores by (model, query, document): a retriever variant
    pays the cross-encoder only for the candidates the pipeline did not already score."""

    def __init__(self, inner: PairScorer, cache: dict[tuple[str, str, str], float]) -> None:
        super().__init__(inner.model_path, batch_size=inner.batch_size, precision=inner.precision)
        self.cache = cache

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        model = f"{self.model_path}@{self.precision}"  # bf16 scores differ from fp32's
        keys = [(model, q, d) for q, d in pairs]
        missing = list(dict.fromkeys(k for k in keys if k not in self.cache))
        if missing:
            scores = super().score([(q, d) for _, q, d in missing])
            self.cache.update(zip(missing, (float(x) for x in scores), strict=True))
        return np.asarray([self.cache[k] for k in keys], dtype=np.float32)


@dataclass
class ModelCache:
    """Vectors and pair scores computed in one evaluation run, shared by its selectors.
    Only the first selector to meet an input pays (and times) its model call, so the
    pipeline, which runs first, keeps honest latencies; variants report none."""

    vectors: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    scores: dict[tuple[str, str, str], float] = field(default_factory=dict)

    def wrap(self, selector: Selector, *, encoder: Encoder | None = None) -> Selector:
        """The same selector with its models behind this cache."""
        reranker = self._cached(selector.reranker)
        enc = encoder or selector.encoder
        return Selector(
            selector.bundle,
            params=selector.params,
            decomposer=selector.decomposer,
            reranker=reranker,
            policy=selector.policy,
            encoder=enc if isinstance(enc, CachedEncoder) else CachedEncoder(enc, self.vectors),
            bm25=BM25Retriever.load(selector.bundle.bm25_path),
        )


    def _cached(self, reranker: Any) -> Any:
        if isinstance(reranker, LearnedReranker):
            return replace(reranker, inner=self._cached(reranker.inner))
        if isinstance(reranker, CrossEncoderReranker) and not isinstance(
            reranker.scorer, CachedPairScorer
        ):
            return replace(reranker, scorer=CachedPairScorer(reranker.scorer, self.scores))
        return reranker


def variant_selector(variant: Variant, base: Selector, cache: ModelCache | None = None) -> Selector:
    """The candidate's selector with one part swapped (models load lazily as usual)."""
    cache = cache or ModelCache()
    if variant.kind == "reranker":
        swapped = Selector.from_bundle(
            base.bundle.root, decomposer=base.decomposer, reranker=variant.arg
        )
        return cache.wrap(swapped)
    if variant.kind == "bundle":
        return cache.wrap(Selector.from_bundle(variant.arg))
    if variant.kind == "runtime":
        swapped = Selector.from_bundle(
            base.bundle.root, decomposer=base.decomposer, overrides=variant.overrides()
        )
        return cache.wrap(swapped)
    encoder = CachedEncoder(Encoder(variant.arg), cache.vectors)
    embeddings = encoder.encode([c.index_text() for c in base.bundle.cards])
    swapped = Selector(
        replace(base.bundle, embeddings=embeddings),
        params=base.params,
        decomposer=base.decomposer,
        reranker=base.reranker,
        policy=base.policy,
        encoder=encoder,
        bm25=BM25Retriever.load(base.bundle.bm25_path),
    )
    return cache.wrap(swapped, encoder=encoder)


# --- the whole stage ----------------------------------------------------------------


def sample_queries(
    queries: Sequence[LabeledQuery], max_queries: int, seed: int
) -> list[LabeledQuery]:
    """Every query, or a seeded sample of `max_queries` kept in file order."""
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


def run_evaluation(
    selector: Selector,
    queries: Sequence[LabeledQuery],
    *,
    params: Params,
    plain: PlainRetrievers,
    variants: Mapping[str, Selector] | None = None,
    pick: Pick | None = None,
    progress: bool = False,
) -> Evaluation:
    """Pipeline, baselines and variants on the same queries; the nested eval.json dict."""
    queries = sample_queries(queries, params.max_queries, params.seed)
    slices = sorted({s for q in queries for s in q.slices})
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
    out_variants = {}
    for name, variant in (variants or {}).items():
        res = evaluate(variant, queries, pick=pick, progress=progress, desc=name)
        out_variants[name] = summarize(
            res.records, slices, params=params, catalog_tokens=res.catalog_tokens,
            select=res.select, tie_margin=variant.params.tie_margin,
        )
        # its model calls were partly served by the pipeline's cache: no latency to report
        del out_variants[name]["latency_ms"]
    summary = {
        "n_queries": len(queries),
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
    params: Params | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """The eval.json dict for a bundle and a labeled query file (no files, no MLflow):
    the body of a `toolsift eval` command."""
    selector = Selector.from_bundle(bundle)
    loaded = load_queries(queries, known_tools=selector.cards)
    baseline = load_bundle(baseline_bundle) if baseline_bundle else None
    evaluation = run_evaluation(
        selector, loaded.items, params=params or Params(),
        plain=PlainRetrievers.from_bundles(selector.bundle, baseline), progress=progress,
    )
    return {**evaluation.summary, "n_skipped_queries": loaded.n_skipped}


# --- outputs ------------------------------------------------------------------------


def plot_rows(summary: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Wide tables for DVC plots (x = `k` or `stage`, one column per system):
    recall_retrieved / recall_menu (pipeline and variants, per gold subgoal),
    recall_request (baselines, pipeline and variants, whole request), chain, latency."""
    systems = {"pipeline": summary["pipeline"], **summary["variants"]}
    tables: dict[str, list[dict[str, Any]]] = {}
    for lst in ("retrieved", "menu"):
        ks = sorted(int(key.rpartition("_at_")[2]) for key in summary["pipeline"]["recall"]
                    if key.startswith(f"{lst}_at_"))
        tables[f"recall_{lst}"] = [
            {"k": k, **{name: sec["recall"][f"{lst}_at_{k}"] for name, sec in systems.items()}}
            for k in ks
        ]
    request = {
        **{n: sec for n, sec in summary["baselines"].items() if n != "pipeline"},
        **{n: sec["request"] for n, sec in systems.items()},
    }
    ks = sorted(int(key.removeprefix("recall_at_")) for key in summary["pipeline"]["request"]
                if key.startswith("recall_at_"))
    tables["recall_request"] = [
        {"k": k, **{name: sec[f"recall_at_{k}"] for name, sec in request.items()}} for k in ks
    ]
    tables["chain"] = [
        {"stage": stage,
         **{name: sec[stage if stage == "end_to_end" else f"r_{stage}"]
            for name, sec in systems.items()}}
        for stage in (*M.STAGES, "end_to_end")
    ]
    tables["latency"] = [
        {"stage": stage, "p50": v["p50"], "p95": v["p95"]}
        for stage, v in summary["pipeline"]["latency_ms"].items()
    ]
    return tables


def write_plots(rows: Mapping[str, Sequence[Mapping[str, Any]]], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in rows.items():
        path = out_dir / f"{name}.csv"
        with path.open("w", newline="") as fh:
            fields = list(table[0]) if table else []
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            writer.writerows(table)
        written.append(path)
    written.extend(_draw(rows, out_dir))
    return written


def _draw(rows: Mapping[str, Sequence[Mapping[str, Any]]], out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, name in zip(axes, ("recall_retrieved", "recall_menu", "recall_request"), strict=True):
        table = rows[name]
        for system in [c for c in (table[0] if table else {}) if c != "k"]:
            points = [(r["k"], r[system]) for r in table if r[system] is not None]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=system)
        ax.set_title(name.replace("_", " "))
        ax.set_xlabel("k")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_ylabel("recall@k")
    fig.tight_layout()
    paths.append(out_dir / "recall.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3.5))
    lat = [r for r in rows["latency"] if r["p50"] is not None]
    x = np.arange(len(lat))
    ax.bar(x - 0.2, [r["p50"] for r in lat], 0.4, label="p50")
    ax.bar(x + 0.2, [r["p95"] for r in lat], 0.4, label="p95")
    ax.set_xticks(x, [r["stage"] for r in lat], rotation=30)
    ax.set_ylabel("ms per request")
    ax.legend()
    fig.tight_layout()
    paths.append(out_dir / "latency.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


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
    ab = pipe["abstention"]
    lines += [
        f"Abstention: {_fmt(ab['abstain_rate'])} of {ab['n_no_tool']} no-tool queries abstain; "
        f"{_fmt(ab['false_abstain_rate'])} of {ab['n_with_gold']} queries with gold do.",
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

    from training.tracking import log_dataset_digest, log_metrics, stage_run

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

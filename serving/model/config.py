"""Runtime configuration: the `runtime` section of params.yaml, packed into every bundle."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from serving.bundle.encoder import check_precision
from serving.bundle.onnx_models import check_weights
from serving.stages.rerank import check_prior_order

RERANKERS = ("auto", "fused", "dense", "cross_encoder", "ltr")
ROUTINGS = ("flat", "domain")
REQUEST_ORDERS = ("rrf", "relevance")
ENCODER_BACKENDS = ("auto", "onnx", "torch")
# the runtime knobs a stock bundle starts from (`bundle from-servers`, beneath the config's
# own `runtime`): what the session lacks, chosen on validation requests through a stock
# bundle (`training.checks.missing_margin_check --stock-out`)
STOCK_RUNTIME = Path(__file__).resolve().parents[1] / "stages" / "data" / "stock_runtime.json"


@dataclass(frozen=True, slots=True)
class RuntimeParams:
    """The `runtime` section of params.yaml, packed into every bundle."""

    n_per_retriever: int = 40
    n_fused: int = 40
    rrf_k: int = 60
    menu_size: int = 8
    rerank_depth: int = 20  # the reranker scores this many filtered candidates (its cost)
    tie_margin: float = 0.005  # relevance gap within which cost/latency may reorder
    disclosure_margin: float = 0.05
    min_relevance: float = 0.0  # below it a tool leaves the menu; an empty menu = abstain
    # ltr: also cut the menu at the calibrated probability train_ltr chose on held-out
    # groups (the bundle's calibration.json); False for bundles from before this knob
    calibrated_menus: bool = False
    # apply the bundle's menus.json (`serving.stages.menu_policy`): menus cut at calibrated bars,
    # and a step abstains when the no-tool model says no tool in the session serves it;
    # False = one bar, `min_relevance` (evaluate measures it as a variant)
    menu_policy: bool = True
    # name what the session lacks (`serving.stages.missing_access`) when a step's best in-session
    # relevance is below this, it abstained, or it names a product the session lacks
    missing_access_below: float = 0.0
    # ... and name an outside connection only when its tool beats the best in-session
    # relevance by this margin (or the step names that product), at most `max_missing`
    # of them (0: no cap; bundles from before these knobs)
    missing_margin: float = 0.0
    max_missing: int = 0
    # ... and only where the retriever agrees: the outside tool's cosine reaches the best
    # of the step's in-session candidates plus this. The ranker's relevance reads
    # traffic, so with every connection open a popular tool of another product can
    # out-rank the session's right one by far; the cosine reads the text alone (None: no
    # such check; bundles from before this knob)
    missing_cosine_margin: float | None = None
    # a step whose lookup names what the session lacks offers no write or destructive tool
    # (unless named exactly): the tools that fit lie outside the session, and a write of
    # the next-best product acts in the wrong place (False: bundles from before this knob)
    missing_withholds_writes: bool = False
    # a write joins a menu only where its operation's family is the step's, when both are
    # known (`serving.stages.menu_policy.other_operation`): a first bundle's relevance has
    # no history to tell "restart the payments deployment" from a refund of a payment
    write_needs_operation: bool = False
    # ... only where a tool the line names is this much closer to the step, by the
    # retriever's cosine, than the closest tool the session has: withholding a write needs
    # stronger evidence than naming a connection, which calls nothing (None: wherever the
    # lookup names something)
    missing_withhold_cosine_margin: float | None = None
    # a write or destructive tool needs this share of the step's best relevance and at
    # least `write_floor` (beside the menu policy's bars); 0 = no such rule
    write_relative: float = 0.0
    write_floor: float = 0.0
    # a third-party card the lint warned about (`ToolCard.cautions`) reaches a menu only at
    # this calibrated relevance or when the step names it: shown when asked for, never as
    # an alternative; 0 = no such rule (bundles from before it)
    caution_bar: float = 0.0
    # a step that names a product (a distinctive connection name) gets that product's
    # tools first in its menu (`rerank.named_first`); False for bundles from before this
    named_connections_first: bool = False
    # auto: the best the bundle has (ltr, else cross_encoder, else fused) | one of those |
    # dense (the fine-tuned retriever's order alone)
    reranker: str = "auto"
    # cross_encoder: weight of a retrieval rank beside the cross-encoder's rank (reciprocal
    # rank fusion); 0 = the cross-encoder's order alone (bundles from before this knob)
    retrieval_prior: float = 0.0
    # ... and whose rank: dense (the fine-tuned retriever's) | fused (bundles before this)
    retrieval_prior_order: str = "fused"
    # the cross-encoder's weights at run time: auto = bf16 where the hardware has it
    # natively (about 2x faster on such a CPU); fp32 for bundles from before this knob
    reranker_precision: str = "fp32"
    exploration_rate: float = 0.0  # ltr: bonus rate / sqrt(1 + uses) for tools with little history
    exploration_cap: float = 0.1  # ltr: the bonus never exceeds this (relevance is in [0, 1])
    # request level: weight of the whole request's own list beside its subgoals' lists
    # (together weight 1) in reciprocal rank fusion; 0 = no whole-request step, the
    # subgoals' lists alone (bundles from before this knob)
    request_weight: float = 0.0
    # request level: rrf = that fusion alone (bundles from before this knob) | relevance =
    # every menu's tools first, by the best relevance a menu gives them, then the fusion
    request_order: str = "rrf"
    routing: str = "flat"  # flat | domain: two hops, the subgoal's domains first
    route_domains: int = 3  # domain routing: retrieve inside this many domains
    # how the encoders run: onnx (onnxruntime, no torch) | torch | auto = onnx where the
    # bundle has the ONNX files (bundles from before them: torch)
    encoder_backend: str = "auto"
    retriever_weights: str = "fp32"  # onnx: fp32 | int8 graph of the bi-encoder
    reranker_weights: str = "fp32"  # onnx: fp32 | int8 graph of the cross-encoder
    # onnx: fp32 | int8 graph of the stock encoder the request-intent and pair heads read
    # (a bundle's lint encoder; the lint's review reads fp32 whatever this says)
    intent_weights: str = "fp32"
    onnx_threads: int = 0  # onnxruntime intra-op threads; 0 = every core, shared by two encoders
    # BLAS threads of the process (serving.operations.blas): 1, since every product the
    # runtime makes is one request against one catalog; 0 leaves numpy's default
    blas_threads: int = 1
    # bounded work per request: input past these is cut, with a warning in the result
    max_request_chars: int = 4000  # the request is read up to here
    max_subgoals: int = 8  # subgoals beyond this are dropped (the whole request still runs)
    max_rerank_pairs: int = 160  # cross-encoder pairs per request, shared by its steps
    # dense search: exact below this many tools, an approximate (HNSW) index at or above it
    ann_threshold: int = 20000
    policy: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuntimeParams:
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"runtime params: unknown keys {unknown} (known: {sorted(names)})")
        params = cls(**data)
        if params.reranker not in RERANKERS:
            raise ValueError(
                f"runtime params: reranker {params.reranker!r} is not {'|'.join(RERANKERS)}"
            )
        check_precision(params.reranker_precision, "runtime params: reranker_precision")
        check_prior_order(params.retrieval_prior_order, "runtime params: retrieval_prior_order")
        if params.retrieval_prior < 0 or params.tie_margin < 0 or params.request_weight < 0:
            raise ValueError(
                "runtime params: retrieval_prior, tie_margin and request_weight must be >= 0"
            )
        for name in ("write_relative", "write_floor", "missing_margin"):
            if not 0.0 <= getattr(params, name) <= 1.0:
                raise ValueError(f"runtime params: {name} {getattr(params, name)} is not in [0, 1]")
        for name in ("missing_cosine_margin", "missing_withhold_cosine_margin"):
            value = getattr(params, name)
            if value is not None and not -1.0 <= value <= 1.0:
                raise ValueError(f"runtime params: {name} {value} is not in [-1, 1]")
        if params.max_missing < 0:
            raise ValueError(f"runtime params: max_missing {params.max_missing} is below 0")
        if not 0.0 <= params.caution_bar <= 1.0:
            raise ValueError(f"runtime params: caution_bar {params.caution_bar} is not in [0, 1]")
        if params.request_order not in REQUEST_ORDERS:
            raise ValueError(
                f"runtime params: request_order {params.request_order!r} is not rrf|relevance"
            )
        if params.encoder_backend not in ENCODER_BACKENDS:
            raise ValueError(
                f"runtime params: encoder_backend {params.encoder_backend!r} is not "
                f"{'|'.join(ENCODER_BACKENDS)}"
            )
        check_weights(params.retriever_weights, "runtime params: retriever_weights")
        check_weights(params.reranker_weights, "runtime params: reranker_weights")
        check_weights(params.intent_weights, "runtime params: intent_weights")
        limits = (params.max_request_chars, params.max_subgoals, params.max_rerank_pairs)
        if (min(limits) < 1 or min(params.onnx_threads, params.blas_threads) < 0
                or params.ann_threshold < 1):
            raise ValueError(
                "runtime params: max_request_chars, max_subgoals, max_rerank_pairs and "
                "ann_threshold must be >= 1, onnx_threads and blas_threads >= 0"
            )
        if params.routing not in ROUTINGS:
            raise ValueError(f"runtime params: routing {params.routing!r} is not flat|domain")
        return params

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def stock_runtime_overrides() -> dict[str, Any]:
    """The `runtime` of `STOCK_RUNTIME`, checked as `RuntimeParams` would read it."""
    try:
        raw = json.loads(STOCK_RUNTIME.read_text(encoding="utf-8"))["runtime"]
        RuntimeParams.from_dict(raw)
    except (OSError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{STOCK_RUNTIME}: not a stock runtime ({err})") from None
    return dict(raw)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")

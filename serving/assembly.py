"""How a `Selector` is built from a bundle: its runtime params, the encoder (torch or
ONNX), the reranker the runtime asks for, and the retrievers (`RETRIEVERS`, by name).

Plain functions that take the class to build (`open_selector`, `assemble`), so this module
never imports `serving.selector`; `Selector.from_bundle` and `Selector.from_loaded`
delegate here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from serving.bundle.encoder import Encoder, PairScorer, Scorer, TextEncoder
from serving.bundle.files import (
    RERANKER_DIR,
    RETRIEVER_DIR,
    Bundle,
    BundleError,
    DeferredFiles,
    load_menu_policy,
    load_ranker,
    load_shipped_order,
    open_bundle,
    read_bundle,
    read_runtime,
)
from serving.bundle.onnx_models import OnnxEncoder, OnnxPairScorer, has_onnx
from serving.calls.policy import RiskPolicy
from serving.decompose import Decomposer, DecomposerVocabulary, make_decomposer
from serving.model.config import RuntimeParams
from serving.model.schema import ToolCard
from serving.operations.blas import pin_blas_threads
from serving.stages.ann import ApproximateDense
from serving.stages.ranker_features import CROSS_ENCODER_FEATURES, FEATURE_NAMES
from serving.stages.rerank import (
    CrossEncoderReranker,
    DenseOrderReranker,
    FusedOrderReranker,
    LearnedReranker,
    Reranker,
)
from serving.stages.retrieve import (
    BM25Retriever,
    CapabilityRetriever,
    DenseRetriever,
    DenseSource,
    Retriever,
    VectorSearch,
)

log = logging.getLogger(__name__)

S = TypeVar("S")

# What builds one retriever: the bundle, the runtime params and the bundle's BM25 index
# (loaded once; the no-tool signals read its vocabulary too).
RetrieverFactory = Callable[[Bundle, RuntimeParams, BM25Retriever], Retriever]

# The retrievers every selector runs, by name, in fusion order: each candidate carries
# `rank_<name>` for those that found it. A new retriever is one class with `retrieve`
# and one entry here (docs/serving.md). The learned ranker reads the built-in ranks
# only: a new one weighs in through fusion until the ranker is retrained with it.
RETRIEVERS: dict[str, RetrieverFactory] = {
    "dense": lambda bundle, params, bm25: DenseSource(
        dense_retriever(bundle, params.ann_threshold)
    ),
    "bm25": lambda bundle, params, bm25: bm25,
    "capability": lambda bundle, params, bm25: CapabilityRetriever(
        bundle.capabilities, len(bundle.cards)
    ),
}


def build_retrievers(
    bundle: Bundle, params: RuntimeParams, bm25: BM25Retriever
) -> dict[str, Retriever]:
    """Every registered retriever over this bundle, in `RETRIEVERS` order."""
    return {name: make(bundle, params, bm25) for name, make in RETRIEVERS.items()}


def open_selector(
    cls: Callable[..., S],
    path: str | Path,
    *,
    decomposer: Decomposer | None = None,
    reranker: str | None = None,
    policy: RiskPolicy | None = None,
    overrides: Mapping[str, Any] | None = None,
    expect_version: str | None = None,
    public_key: Any = None,
) -> S:
    """Verify and load a bundle, with the bi-encoder ready: its graph is checked
    against the manifest and its session built on a background thread while the cards
    and indexes load (other models load on first use, checked the same way).

    `expect_version` pins the bundle (any other version is a `BundleError`);
    `public_key` (a key or PEM path; default `$TOOLSIFT_BUNDLE_PUBLIC_KEY`) requires a
    valid signature."""
    manifest, weights = open_bundle(path, expect_version=expect_version, public_key=public_key)
    params = runtime_params(read_runtime(weights.root), reranker, overrides)
    encoder = make_encoder(weights, params)
    if isinstance(encoder, OnnxEncoder):
        encoder.start()
    selector = assemble(
        cls,
        read_bundle(manifest, weights),
        decomposer=decomposer,
        reranker=reranker,
        policy=policy,
        overrides=overrides,
        encoder=encoder,
    )
    if isinstance(encoder, OnnxEncoder):
        encoder.wait()
    return selector


def assemble(
    cls: Callable[..., S],
    bundle: Bundle,
    *,
    decomposer: Decomposer | None = None,
    reranker: str | None = None,
    policy: RiskPolicy | None = None,
    overrides: Mapping[str, Any] | None = None,
    bm25: BM25Retriever | None = None,
    encoder: TextEncoder | None = None,
) -> S:
    """Assemble from a loaded bundle, or from one whose cards and index rows were
    changed in memory (the gateway serves the live tools: some dropped, new ones
    encoded); `bm25`: an index over exactly `bundle.cards` (default: the bundle's)."""
    params = runtime_params(bundle.runtime, reranker, overrides)
    pin_blas_threads(params.blas_threads)
    vocab = DecomposerVocabulary.from_cards(bundle.cards)
    return cls(
        bundle,
        params=params,
        decomposer=decomposer or make_decomposer(vocab),
        reranker=make_reranker(bundle, params),
        policy=policy or RiskPolicy.from_dict(params.policy),
        encoder=encoder or make_encoder(bundle.weights, params),
        bm25=bm25 or BM25Retriever.load(bundle.bm25_path),
        named_connections=vocab.distinctive,
        menu_policy=load_menu_policy(bundle),
    )


def runtime_params(
    runtime: Mapping[str, Any], reranker: str | None, overrides: Mapping[str, Any] | None
) -> RuntimeParams:
    """The bundle's runtime params with `overrides` on top, and `reranker` when given."""
    params = RuntimeParams.from_dict({**runtime, **(overrides or {})})
    return params if reranker is None else replace(params, reranker=reranker)


def use_onnx(root: Path, params: RuntimeParams) -> bool:
    """onnx, torch, or auto = onnx when every encoder the bundle has was exported;
    asking for onnx from a bundle without it fails at load, not mid-request."""
    models = [p for p in (root / RETRIEVER_DIR, root / RERANKER_DIR) if p.is_dir()]
    exported = all(has_onnx(p) for p in models)
    if params.encoder_backend == "onnx" and not exported:
        raise BundleError(f"{root}: encoder_backend onnx, but no ONNX export in it")
    return params.encoder_backend == "onnx" or (
        params.encoder_backend == "auto" and exported
    )


def bundle_encoder(bundle: Bundle, overrides: Mapping[str, Any] | None = None) -> TextEncoder:
    """The encoder a Selector over `bundle` embeds requests with (to share one)."""
    return make_encoder(bundle.weights, runtime_params(bundle.runtime, None, overrides))


def encoder_threads(root: Path, params: RuntimeParams) -> int:
    """ONNX threads of each bi-encoder session: `onnx_threads`, or with 0 every core, shared
    by the encoders that run beside each other. A bundle whose no-tool head reads a stock
    encoder of its own (`LINT_ENCODER_DIR`) embeds each request with both at once, one on
    half the cores each (demo request p50 21.6 -> 16.1 ms on 2 cores, docs/experiments.md)."""
    from serving.catalog.meaning_check import LINT_ENCODER_DIR

    if params.onnx_threads:
        return params.onnx_threads
    cores = os.cpu_count() or 1
    return max(1, cores // 2) if (root / LINT_ENCODER_DIR).is_dir() else cores


def make_encoder(weights: DeferredFiles, params: RuntimeParams) -> TextEncoder:
    """The bundle's bi-encoder, ONNX or torch as `use_onnx` says."""
    path = weights.root / RETRIEVER_DIR
    if use_onnx(weights.root, params):
        return OnnxEncoder(
            path, weights=params.retriever_weights,
            threads=encoder_threads(weights.root, params), check=weights.check,
        )
    return Encoder(weights.check(path))


def make_scorer(bundle: Bundle, params: RuntimeParams, path: Path) -> Scorer:
    """The cross-encoder at `path`, ONNX or torch as `use_onnx` says."""
    if use_onnx(bundle.root, params):
        return OnnxPairScorer(
            path, weights=params.reranker_weights, threads=params.onnx_threads,
            check=bundle.weights.check,
        )
    return PairScorer(bundle.weights.check(path), precision=params.reranker_precision)


def make_reranker(bundle: Bundle, params: RuntimeParams) -> Reranker:
    """The reranker `params.reranker` names; auto: the best the bundle has (the order its
    ranker directory ships, the learned ranker or the calibrated dense order, else the
    cross-encoder, else the fused retrieval order)."""
    cards = {c.tool_id: c for c in bundle.cards}
    shipped = load_shipped_order(bundle)
    want = params.reranker
    if want == "auto":
        want = (
            shipped.order if bundle.ltr_path is not None
            else "cross_encoder" if bundle.reranker_path is not None
            else "fused"
        )
    fused = FusedOrderReranker(n_sources=len(RETRIEVERS), rrf_k=params.rrf_k)
    if want == "fused":
        return fused
    if want == "dense":
        return DenseOrderReranker(rrf_k=params.rrf_k, calibration=shipped.dense_calibration)
    if want == "ltr":
        if bundle.ltr_path is None:
            raise ValueError(f"{bundle.root}: runtime asks for ltr, the bundle has no ranker")
        model, history, columns, calibration, budget = load_ranker(bundle)
        # a ranker that does not read the cross-encoder's logit never runs it
        reads_logit = any(FEATURE_NAMES.index(n) in columns for n in CROSS_ENCODER_FEATURES)
        return LearnedReranker(
            make_cross_encoder(bundle, params, cards) if reads_logit else fused,
            model,
            cards,
            history,
            columns=columns,
            calibration=calibration,
            logit_budget=budget if reads_logit else None,
            exploration_rate=params.exploration_rate,
            exploration_cap=params.exploration_cap,
        )
    return make_cross_encoder(bundle, params, cards)


def make_cross_encoder(
    bundle: Bundle, params: RuntimeParams, cards: Mapping[str, ToolCard]
) -> CrossEncoderReranker:
    """The bundle's cross-encoder reranker; a `ValueError` when the bundle has none."""
    if bundle.reranker_path is None:
        raise ValueError(
            f"{bundle.root}: the runtime needs a cross-encoder, the bundle has none"
        )
    return CrossEncoderReranker(
        make_scorer(bundle, params, bundle.reranker_path),
        cards,
        prior_weight=params.retrieval_prior,
        prior_order=params.retrieval_prior_order,
        rrf_k=params.rrf_k,
    )


def dense_retriever(bundle: Bundle, ann_threshold: int) -> VectorSearch:
    """Exact search below `ann_threshold` tools; above it the bundle's HNSW index (built
    here, once, when the bundle has none: slow for a large catalog, so export writes it)."""
    if len(bundle.cards) < ann_threshold:
        return DenseRetriever(bundle.embeddings)
    if bundle.ann_path is not None:
        return ApproximateDense.load(bundle.ann_path, bundle.embeddings)
    log.warning("%s: %d tools and no ANN index; building one", bundle.root, len(bundle.cards))
    return ApproximateDense.build(bundle.embeddings)

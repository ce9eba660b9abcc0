"""Variants: the candidate's selector with one part swapped (`NAME=KIND:ARG`), and the
model cache the selectors of one evaluation share, so a variant pays only for the model
calls the pipeline did not already make.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from serving.assembly import encoder_threads
from serving.bundle.encoder import Encoder, Scorer, TextEncoder
from serving.model.config import RERANKERS, RuntimeParams, stock_runtime_overrides
from serving.selector import Selector
from serving.stages.intent import IntentScorer, intent_scorer
from serving.stages.menu_policy import stock_menu_policy
from serving.stages.rerank import CrossEncoderReranker, LearnedReranker

VARIANT_KINDS = ("reranker", "retriever", "bundle", "runtime", "cold_start")
# the encoders' weights `bundle from-servers` exports (RuntimeParams' defaults: fp32), over
# whatever the stock bundle of the pipeline was exported with
FIRST_BUNDLE_ENCODERS = {key: getattr(RuntimeParams(), key)
                         for key in ("retriever_weights", "intent_weights")}


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    kind: str  # reranker | retriever | bundle | runtime | cold_start
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
        """`NAME=KIND:ARG`, e.g. `fused=reranker:fused`, `stock=bundle:bundles/base`;
        `cold_start:BUNDLE`: that bundle with the package's stock menu policy and runtime, as
        `bundle from-servers` exports a team's first bundle."""
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


class CachedEncoder:
    """A text encoder that remembers vectors by (model key, text), shared across the
    selectors of one run: a variant with the candidate's bi-encoder, run the same way
    (torch, or ONNX with the same weights), does not embed a subgoal twice."""

    def __init__(self, inner: TextEncoder, cache: dict[tuple[str, str], np.ndarray]) -> None:
        self.inner = inner
        self.model_path = inner.model_path
        self.batch_size = inner.batch_size
        self.cache = cache

    @property
    def key(self) -> str:
        return self.inner.key

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        key = self.inner.key
        missing = list(dict.fromkeys(t for t in texts if (key, t) not in self.cache))
        if missing:
            vectors = self.inner.encode(missing, show_progress=show_progress)
            for text, vector in zip(missing, vectors, strict=True):
                self.cache[(key, text)] = vector
        if not texts:
            return self.inner.encode([])
        return np.stack([self.cache[(key, t)] for t in texts])


class CachedPairScorer:
    """A pair scorer that remembers scores by (model key, query, document): a retriever
    variant pays the cross-encoder only for the candidates the pipeline did not score."""

    def __init__(self, inner: Scorer, cache: dict[tuple[str, str, str], float]) -> None:
        self.inner = inner
        self.model_path = inner.model_path
        self.cache = cache

    @property
    def key(self) -> str:
        return self.inner.key

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        model = self.inner.key  # bf16 or int8 scores differ from fp32's
        keys = [(model, q, d) for q, d in pairs]
        missing = list(dict.fromkeys(k for k in keys if k not in self.cache))
        if missing:
            scores = self.inner.score([(q, d) for _, q, d in missing])
            self.cache.update(zip(missing, (float(x) for x in scores), strict=True))
        return np.asarray([self.cache[k] for k in keys], dtype=np.float32)


@dataclass
class ModelCache:
    """Vectors and pair scores computed in one evaluation run, shared by its selectors.
    Only the first selector to meet an input pays (and times) its model call, so the
    pipeline, which runs first, keeps honest latencies; variants report none."""

    vectors: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    scores: dict[tuple[str, str, str], float] = field(default_factory=dict)
    # request-intent heads by (bundle, retriever key, the head's weights): variants of one
    # bundle resolve (and load the head's second encoder) once
    intents: dict[tuple[str, str, str], IntentScorer | None] = field(default_factory=dict)

    def wrap(self, selector: Selector, *, encoder: TextEncoder | None = None) -> Selector:
        """The same selector with its models behind this cache, the request-intent head's
        encoder too (every variant but another bundle's embeds the same subgoals with it)."""
        enc = encoder or selector.encoder
        enc = enc if isinstance(enc, CachedEncoder) else CachedEncoder(enc, self.vectors)
        return selector.with_models(
            reranker=self._cached(selector.reranker), encoder=enc,
            intent=self._intent(selector, enc),
        )

    def _intent(self, selector: Selector, encoder: CachedEncoder) -> IntentScorer | None:
        """The head `selector` would resolve on first use, its encoder behind this cache;
        None where its no-tool model never reads the head or none is at hand (the
        selector then resolves, or warns, itself)."""
        model = selector.menu_policy.no_tool
        if model is not None and "request_intent" not in model.signals:
            return None
        key = (str(selector.bundle.root), encoder.key, selector.params.intent_weights)
        if key not in self.intents:
            scorer, _why = intent_scorer(selector.bundle, encoder, threads=encoder_threads(
                selector.bundle.root, selector.params), weights=selector.params.intent_weights)
            if scorer is not None and scorer.encoder is not None:
                scorer = scorer.with_encoder(CachedEncoder(scorer.encoder, self.vectors))
            self.intents[key] = scorer
        return self.intents[key]


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
    if variant.kind == "cold_start":
        stock = Selector.from_bundle(variant.arg, overrides={
            **stock_runtime_overrides(), **FIRST_BUNDLE_ENCODERS})
        return cache.wrap(stock.with_models(menu_policy=stock_menu_policy()))
    if variant.kind == "runtime":
        swapped = Selector.from_bundle(
            base.bundle.root, decomposer=base.decomposer, overrides=variant.overrides()
        )
        return cache.wrap(swapped)
    encoder = CachedEncoder(Encoder(variant.arg), cache.vectors)
    embeddings = encoder.encode([c.index_text() for c in base.bundle.cards])
    swapped = base.with_models(bundle=replace(base.bundle, embeddings=embeddings),
                               encoder=encoder)
    return cache.wrap(swapped, encoder=encoder)

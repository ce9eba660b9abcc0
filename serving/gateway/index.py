"""A Selector over the live tools: the bundle's rows for tools it knows, new rows for the
rest (cold start), rebuilt whenever the registry changes.

Tools the bundle knows keep their trained embeddings; a live tool it does not know is
encoded once with the bundle's own encoder (the one the Selectors embed requests with, ONNX
in a runtime-only install; cached by its index text) and served as a new tool, never
dropped. Bundle tools that are not live are left out, so discovery only ever
finds what can be called.

With batching on, the Selectors embed requests through one batcher per encoder (the
retriever's and, when the request-intent head reads another, that one), shared by every
rebuild: concurrent searches share model calls (`serving.gateway.batching`). An int8
graph is never batched: it embeds one text a call anyway (`batching_pays`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from serving.assembly import encoder_threads
from serving.bundle.cached_encoder import CachedEncoder
from serving.bundle.encoder import TextEncoder
from serving.bundle.files import Bundle, build_capability_index
from serving.calls.policy import RiskPolicy
from serving.catalog.meaning_check import meaning_check
from serving.gateway.batching import BatchingEncoder, BatchSettings
from serving.gateway.registry import Registry
from serving.model.schema import ToolCard
from serving.selector import Selector
from serving.stages.intent import IntentScorer, intent_scorer
from serving.stages.retrieve import BM25Retriever

UNBATCHED = BatchSettings(max_batch=1)
log = logging.getLogger(__name__)


class LiveIndex:
    """Builds Selectors over a registry's cards from one loaded bundle."""

    def __init__(
        self,
        bundle: Bundle,
        *,
        policy: RiskPolicy | None = None,
        overrides: Mapping[str, Any] | None = None,
        batching: BatchSettings = UNBATCHED,
        review_cache: Path | None = None,
    ) -> None:
        self.bundle = bundle
        self.policy = policy
        self.overrides = dict(overrides or {})
        self.batching = batching
        self.known: Mapping[str, ToolCard] = {c.tool_id: c for c in bundle.cards}
        self._rows = {c.tool_id: i for i, c in enumerate(bundle.cards)}
        # one encoder for every rebuild: its session loads once
        self._encoder = Selector.make_encoder(bundle, self.overrides)
        # the live review's check by meaning: the bundle's detector (or the shipped one)
        self.meaning = meaning_check(bundle, retriever=self._encoder, cache_dir=review_cache)
        self._vectors: dict[str, np.ndarray] = {}  # sha256 of index text -> vector
        self.batchers: dict[str, BatchingEncoder] = {}
        self._requests = self._batched("encoder", self._encoder)
        self._intent: IntentScorer | None = None

    def keep_review_vectors(self) -> None:
        """Write the review's new sentence vectors to its cache directory, if it has one."""
        encoder = self.meaning.encoder
        if isinstance(encoder, CachedEncoder):
            encoder.save()

    def selector(self, registry: Registry) -> Selector | None:
        """The Selector for exactly the registry's cards; None when no tool is served."""
        cards = sorted(registry.cards.values(), key=lambda c: c.tool_id)
        if not cards:
            return None
        vectors = self._embed([c for c in cards if c.tool_id in registry.new])
        rows = [
            self.bundle.embeddings[self._rows[c.tool_id]] if c.tool_id not in registry.new
            else vectors[_key(c)]
            for c in cards
        ]
        live = replace(
            self.bundle,
            cards=tuple(cards),
            embeddings=np.vstack(rows).astype(np.float32, copy=False),
            capabilities=build_capability_index(cards),
        )
        selector = Selector.from_loaded(
            live, policy=self.policy, overrides=self.overrides, bm25=BM25Retriever.build(cards),
            encoder=self._requests,
        )
        self._share_intent(selector)
        return selector

    def close(self) -> None:
        """Stop the batching threads (a call still in flight then encodes on its own)."""
        for batcher in self.batchers.values():
            batcher.close()

    def batch_report(self) -> dict[str, Any]:
        """Per batched encoder: its calls and the number of texts per model call."""
        return {name: b.report() for name, b in self.batchers.items()}

    def _batched(self, name: str, encoder: TextEncoder) -> TextEncoder:
        if not self.batching.enabled:
            return encoder
        if not batching_pays(encoder):
            log.info("%s: %s is not batched (it embeds one text a call)", name, encoder.key)
            return encoder
        self.batchers[name] = BatchingEncoder(encoder, self.batching, name=name)
        return self.batchers[name]

    def _share_intent(self, selector: Selector) -> None:
        """With batching on, give `selector` the request-intent head resolved once here,
        its second encoder batched (only where its no-tool model reads the head:
        elsewhere it never loads one)."""
        model = selector.menu_policy.no_tool
        if not self.batching.enabled or (model is not None
                                         and "request_intent" not in model.signals):
            return
        if self._intent is None:
            scorer, _why = intent_scorer(self.bundle, self._encoder,
                                         threads=encoder_threads(self.bundle.root,
                                                                 selector.params),
                                         weights=selector.params.intent_weights)
            if scorer is None:
                return  # the Selector tries again and says why in its warning
            if scorer.encoder is not None:
                scorer = scorer.with_encoder(self._batched("intent", scorer.encoder))
            self._intent = scorer
        selector.use_intent(self._intent)
        if self._intent.encoder is not None and self._intent.head.pair_weights is not None:
            # the pair head reads the stock vectors of each step's first tools: embed every
            # live card now in one call (new ones only, on a rebuild), not a few per search
            # (the first searches of a fresh gateway took twice as long)
            self._intent.card_vectors(sorted(selector.cards.values(),
                                             key=lambda c: len(c.index_text())))

    def _embed(self, cards: list[ToolCard]) -> Mapping[str, np.ndarray]:
        missing = {_key(c): c.index_text() for c in cards if _key(c) not in self._vectors}
        if missing:
            encoded = self._encoder.encode(list(missing.values()))
            self._vectors.update(zip(missing, encoded, strict=True))
        return self._vectors


def batching_pays(encoder: TextEncoder) -> bool:
    """Whether merging concurrent callers' texts into one model call saves work. Not for an
    int8 ONNX graph: it embeds each text alone (`OnnxEncoder.runs_alone`: in company its
    dynamic quantization would make one client's vectors depend on who else searched), so
    a merged call would only queue the callers behind one thread."""
    return not encoder.key.endswith("@onnx-int8")


def _key(card: ToolCard) -> str:
    return hashlib.sha256(card.index_text().encode("utf-8")).hexdigest()

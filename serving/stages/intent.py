"""Does a request ask for a tool at all? A head over the request's sentence embedding.

Whether a tool in *this* catalog serves a step is catalog-relative (how close its best
tools are); whether the step asks for any tool is not: "explain recursion", "write a
haiku", "what's 15% of 80" ask for an answer, "refund order 1182" asks for an action. The
head is a logistic regression over the stock encoder's embedding (all-MiniLM-L6-v2, the
one the lint's detector reads), fit by `training.train_no_tool` on public requests with
and without tools, whole sources held out to choose and judge it. Its logit is the no-tool
model's `request_intent` signal (`serving.stages.abstain`): the same number on any
catalog, where relevance and cosine scales move with the catalog and its fine-tuning.

Whether *this* catalog serves a request is the second head, over pairs: "does this tool
serve this request" on [u * v, |u - v|] of the stock embeddings of the whole request (u)
and of a tool card (v), fit on public requests against the tools a stock bundle found for
them and on the fit catalogs' requests against their gold tools. Its best logit over a
step's first `PAIR_TOP` reranked tools is the `pair_served` signal: it reads the request
and the tools, not a score whose scale moves with the catalog. The whole request, not the
step: a fragment such as "Options" cut out of a puzzle looks like a tool's field name,
while the request it came from does not look like any tool's job.

Like the detector, the head carries the embedding of a probe sentence under the encoder it
was fit on, and refuses an encoder that embeds it otherwise (a fine-tuned retriever).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from serving.bundle.encoder import TextEncoder
    from serving.bundle.files import Bundle
    from serving.model.schema import ToolCard

SHIPPED_INTENT = Path(__file__).resolve().parent / "data" / "request_intent.json.gz"
BUNDLE_INTENT = "no_tool/request_intent.json.gz"
# the stock embedding of each of the bundle's cards, in `cards.jsonl` order: written at
# export where the head reads another encoder than the retriever, so no run embeds them
BUNDLE_CARD_VECTORS = "no_tool/card_vectors.npy"
PROBE = "list the open pull requests of a repository"
PROBE_MIN_COSINE = 0.999
FORMAT_VERSION = 2  # 2 adds the pair head; 1 (the request head alone) still reads
PAIR_TOP = 5  # the reranked tools of a step whose best pair logit is `pair_served`
# the step signals the two heads give, read off the stock encoder
STOCK_SIGNALS = ("request_intent", "pair_served")


class IntentError(ValueError):
    """A head file that cannot be read, or an encoder it was not fit on."""


@dataclass(frozen=True)
class RequestIntent:
    """logit(asks for a tool) = embedding . weights + bias; with a pair head,
    logit(this tool serves this request) = pair_features . pair_weights + pair_bias."""

    weights: np.ndarray  # (dim,)
    bias: float
    probe: np.ndarray  # PROBE embedded by the encoder the head was fit on
    provenance: tuple[tuple[str, str], ...] = ()  # what it was fit on, for the record
    pair_weights: np.ndarray | None = None  # (2 * dim,); None: no pair head
    pair_bias: float = 0.0

    def logits(self, vectors: np.ndarray) -> np.ndarray:
        """One logit per row of `vectors` (embeddings of the fitting encoder)."""
        return np.asarray(vectors, dtype=np.float64) @ self.weights.astype(np.float64) + self.bias

    def pair_logits(self, request: np.ndarray, tools: np.ndarray) -> np.ndarray:
        """The pair head's logit of the request vector against each row of `tools`
        (zeros without a pair head)."""
        tools = np.atleast_2d(np.asarray(tools, dtype=np.float64))
        if self.pair_weights is None or not len(tools):
            return np.zeros(len(tools))
        return pair_features(request, tools) @ self.pair_weights.astype(np.float64) + self.pair_bias

    def accepts(self, encoder: TextEncoder) -> bool:
        vector = np.asarray(encoder.encode([PROBE])[0], dtype=np.float64)
        return vector.shape == self.probe.shape and float(vector @ self.probe) >= PROBE_MIN_COSINE

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "probe": [round(float(x), 6) for x in self.probe],
            "weights": [round(float(x), 6) for x in self.weights],
            "bias": round(self.bias, 6),
            "provenance": dict(self.provenance),
            **({} if self.pair_weights is None else {
                "pair_weights": [round(float(x), 6) for x in self.pair_weights],
                "pair_bias": round(self.pair_bias, 6)}),
        }

    def save(self, path: str | Path) -> None:
        """gzip-compressed JSON without a timestamp: the same head gives the same bytes."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = (json.dumps(self.to_dict(), sort_keys=True) + "\n").encode("utf-8")
        path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))

    @classmethod
    def load(cls, path: str | Path) -> RequestIntent:
        try:
            raw = json.loads(gzip.decompress(Path(path).read_bytes()))
        except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise IntentError(f"{path}: cannot read the request-intent head: {err}") from err
        if not isinstance(raw, dict) or raw.get("format_version") not in (1, FORMAT_VERSION):
            raise IntentError(f"{path}: not a request-intent head of format 1 or "
                              f"{FORMAT_VERSION}")
        try:
            weights = np.asarray(raw["weights"], dtype=np.float32)
            probe = np.asarray(raw["probe"], dtype=np.float32)
            bias = float(raw["bias"])
            provenance = tuple((str(k), str(v)) for k, v in dict(raw.get("provenance", {})).items())
            pair = (None if raw.get("pair_weights") is None
                    else np.asarray(raw["pair_weights"], dtype=np.float32))
            pair_bias = float(raw.get("pair_bias", 0.0))
        except (KeyError, TypeError, ValueError) as err:
            raise IntentError(f"{path}: missing or malformed field ({err})") from None
        if weights.shape != probe.shape or weights.ndim != 1:
            raise IntentError(
                f"{path}: {weights.shape} weights for a probe of shape {probe.shape}"
            )
        if pair is not None and pair.shape != (2 * probe.shape[0],):
            raise IntentError(f"{path}: {pair.shape} pair weights for a probe of shape "
                              f"{probe.shape} (expected {(2 * probe.shape[0],)})")
        return cls(weights, bias, probe, provenance, pair, pair_bias)


def pair_features(requests: np.ndarray, tools: np.ndarray) -> np.ndarray:
    """[u * v, |u - v|] of each request row u against its tool row v (one request vector
    broadcasts over every tool row): symmetric in nothing but the dimensions, so the head
    learns which directions a match needs. The pair head's fit reads the same function."""
    u = np.atleast_2d(np.asarray(requests, dtype=np.float64))
    v = np.atleast_2d(np.asarray(tools, dtype=np.float64))
    return np.concatenate([u * v, np.abs(u - v)], axis=1)


def shipped_intent() -> RequestIntent:
    """The head this package ships (IntentError when the file is missing)."""
    return RequestIntent.load(SHIPPED_INTENT)


@dataclass(frozen=True)
class IntentScorer:
    """The head with the encoder it reads: `encoder` None means the selector's retriever
    is that encoder already (a stock bundle), so the step vectors and the bundle's card
    embeddings are reused. Otherwise cards are embedded on first need and kept (by their
    text), shared by every selector this scorer serves."""

    head: RequestIntent
    encoder: TextEncoder | None
    _cards: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def logits(self, texts: list[str], vectors: np.ndarray) -> np.ndarray:
        return self.head.logits(vectors if self.encoder is None else self.encoder.encode(texts))

    def stock_vectors(self, texts: Sequence[str], retriever: TextEncoder) -> np.ndarray:
        """`texts` embedded by the encoder the head was fit on."""
        return (retriever if self.encoder is None else self.encoder).encode(list(texts))

    def with_encoder(self, encoder: TextEncoder) -> IntentScorer:
        """The same head and the card vectors known so far, reading through `encoder` (a
        batched or cached wrapper of the same model)."""
        with self._lock:
            return IntentScorer(self.head, encoder, dict(self._cards))

    def card_vectors(self, cards: Sequence[ToolCard]) -> np.ndarray:
        """The stock embedding of each card's index text (needs `encoder`): the bundle's
        own (`load_card_vectors`), else embedded on first need and kept."""
        assert self.encoder is not None, "a stock bundle's own embeddings are these"
        keys = [card_key(c) for c in cards]
        with self._lock:
            missing = {k: c.index_text() for k, c in zip(keys, cards, strict=True)
                       if k not in self._cards}
        if missing:
            vectors = self.encoder.encode(list(missing.values()))
            with self._lock:
                self._cards.update(zip(missing, vectors, strict=True))
        with self._lock:
            return np.stack([self._cards[k] for k in keys]) if keys else np.zeros((0, 0))


# the int8 graph is the accepted fp32 graph quantized, not another model: its probe only has
# to land near (the demo bundle's: 0.995; its fine-tuned retriever, another model: 0.92)
INT8_PROBE_MIN_COSINE = 0.98


def int8_sibling(bundle: Bundle | None, head: RequestIntent, *,
                 threads: int = 0) -> TextEncoder | None:
    """The int8 graph of the bundle's lint encoder: the stock encoder `head` was fit on,
    quantized (the manifest vouches for the file, the probe for the model), so no fp32
    session is built for the head. Less CPU a search, the same abstentions and menus on
    the demo's eval (docs/experiments.md). None where the bundle has none (exports before
    it) or its probe lands too far."""
    from serving.bundle.cached_encoder import CachedEncoder
    from serving.bundle.onnx_models import ONNX_DIR, ONNX_FILES, OnnxEncoder
    from serving.catalog.meaning_check import LINT_ENCODER_DIR

    if bundle is None:
        return None
    lint_dir = bundle.root / LINT_ENCODER_DIR
    if not (lint_dir / ONNX_DIR / ONNX_FILES["int8"]).is_file():
        return None
    encoder = OnnxEncoder(lint_dir, weights="int8", threads=threads, check=bundle.weights.check)
    vector = np.asarray(encoder.encode([PROBE])[0], dtype=np.float64)
    if float(vector @ head.probe) < INT8_PROBE_MIN_COSINE:
        return None
    # kept as the fp32 encoder is (the lint's): a search embeds some texts twice (what the
    # session lacks), and one call at a time keeps concurrent searches from crowding the
    # cores with model threads (8 threads: 34 ms of CPU a search without it, 18 with it)
    return CachedEncoder(encoder)


def card_key(card: ToolCard) -> str:
    """What a card's stock vector is kept under: the sha256 of the text it embeds."""
    return hashlib.sha256(card.index_text().encode()).hexdigest()


def load_card_vectors(bundle: Bundle | None) -> dict[str, np.ndarray]:
    """The bundle's stock card vectors (`BUNDLE_CARD_VECTORS`) by `card_key`; none where it
    carries none. The manifest hashed the file when the bundle was opened."""
    if bundle is None or not (path := bundle.root / BUNDLE_CARD_VECTORS).is_file():
        return {}
    vectors = np.load(path, allow_pickle=False)
    if vectors.ndim != 2 or vectors.shape[0] != len(bundle.cards):
        raise IntentError(
            f"{path}: {vectors.shape[0]} vectors for {len(bundle.cards)} cards"
        )
    return {card_key(c): v for c, v in zip(bundle.cards, vectors, strict=True)}


def bundle_intent(bundle: Bundle | None) -> RequestIntent:
    """The bundle's head when it carries one (hash-checked), else the shipped one."""
    if bundle is not None and (bundle.root / BUNDLE_INTENT).is_file():
        return RequestIntent.load(bundle.weights.check(bundle.root / BUNDLE_INTENT))
    return shipped_intent()


def intent_scorer(bundle: Bundle | None, retriever: TextEncoder, *, threads: int = 0,
                  weights: str = "fp32") -> tuple[IntentScorer | None, str]:
    """The head of `bundle` with the first encoder it accepts: the retriever itself, else
    the stock encoder the lint's check by meaning found (the bundle's lint encoder, its
    retriever as fp32 ONNX, with `threads` ONNX threads like the selector's own; the
    packaged torch model); (None, why) when there is none. `weights` int8: the lint
    encoder's int8 graph first, where the bundle has one (`int8_sibling`)."""
    try:
        head = bundle_intent(bundle)
    except (IntentError, OSError) as err:
        return None, str(err)
    if head.accepts(retriever):
        return IntentScorer(head, None), ""
    encoder = int8_sibling(bundle, head, threads=threads) if weights == "int8" else None
    if encoder is None:
        from serving.catalog.meaning_check import meaning_check

        encoder = meaning_check(bundle, threads=threads).encoder
        if encoder is None or not head.accepts(encoder):
            return None, "no encoder the request-intent head was fit on is at hand"
    try:
        cards = load_card_vectors(bundle)
    except (IntentError, OSError, ValueError) as err:
        return None, str(err)
    return IntentScorer(head, encoder, cards), ""

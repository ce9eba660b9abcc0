"""Where the runtime gets the check by meaning: one detector and an encoder it accepts.

Every path that reviews tools runs the same detector: `toolsift lint`, `bundle
from-servers`, the `catalog` stage and the gateway (on start, on `tools/list_changed`, on
a rug pull). Which detector:
- a bundle's own (`lint/detector.json.gz`, hashed with the bundle's other files), else
- the one this package ships (`serving/catalog/data/lint_detector.json.gz`, fit by
  `make detector`; its provenance is in `metrics/lint_detector.json`).
The detector scores vectors of the encoder it was fit on (all-MiniLM-L6-v2, checked by
its probe sentence), so the encoder is the first that passes the check of: the bundle's
lint encoder (`models/lint_encoder/`, exported beside a fine-tuned retriever), the
bundle's retriever as the selector runs it and as fp32 ONNX (a stock bundle's is that
encoder), the packaged torch model (the `[train]` install). With none, the check by
meaning is skipped and says so (an info finding); `MeaningCheck.require` turns that into
an error where skipping is not allowed.
Vectors are cached by sentence, so a re-review embeds only what changed; an exported
bundle carries its own cards' (`BUNDLE_REVIEW_VECTORS`), so a start embeds only what the
live servers changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from serving.bundle.cached_encoder import CachedEncoder
from serving.bundle.encoder import TextEncoder
from serving.bundle.onnx_models import has_onnx
from serving.catalog.meaning import DetectorError, MeaningDetector

if TYPE_CHECKING:
    from serving.bundle.files import Bundle

log = logging.getLogger(__name__)

SHIPPED_DETECTOR = Path(__file__).resolve().parent / "data" / "lint_detector.json.gz"
BUNDLE_DETECTOR = "lint/detector.json.gz"
LINT_ENCODER_DIR = "models/lint_encoder"
# the sentence vectors of the bundle's own cards, embedded at export by the encoder the
# review reads (`CachedEncoder`'s format): a gateway start reviews them without embedding
BUNDLE_REVIEW_VECTORS = "lint/review_vectors.npz"


@dataclass(frozen=True)
class MeaningCheck:
    detector: MeaningDetector
    encoder: TextEncoder | None  # None: no encoder the detector accepts is at hand
    why_not: str = ""  # why `encoder` is None

    def require(self) -> MeaningCheck:
        if self.encoder is None:
            raise DetectorError(f"the check by meaning cannot run: {self.why_not}")
        return self


@lru_cache(maxsize=4)
def _load(path: str) -> MeaningDetector:
    return MeaningDetector.load(path)


def shipped_detector() -> MeaningDetector:
    """The detector this package ships (DetectorError when the file is missing)."""
    return _load(str(SHIPPED_DETECTOR))


def bundle_detector(bundle: Bundle | None) -> MeaningDetector:
    """The bundle's detector when it carries one, else the shipped one."""
    if bundle is not None and (bundle.root / BUNDLE_DETECTOR).is_file():
        return _load(str(bundle.weights.check(bundle.root / BUNDLE_DETECTOR)))
    return shipped_detector()


def _torch_stock() -> TextEncoder | None:
    try:
        from serving.bundle.encoder import Encoder, stock_model_path

        return Encoder(stock_model_path())
    except ImportError:
        return None


def accepted_encoder(
    detector: MeaningDetector,
    candidates: Iterable[Callable[[], TextEncoder | None]],
    cache_dir: str | Path | None = None,
) -> tuple[TextEncoder | None, str]:
    """The first candidate the detector accepts, cached by sentence (on disk in
    `cache_dir` when given, `CachedEncoder.save` writes it); else why none."""
    tried = []
    for make in candidates:
        try:
            encoder = make()
        except (OSError, RuntimeError, ValueError) as err:
            tried.append(str(err))
            continue
        if encoder is None:
            continue
        try:
            detector.check_encoder(encoder)
        except (DetectorError, OSError, RuntimeError, ValueError) as err:
            tried.append(str(err))
            continue
        return CachedEncoder(encoder, cache_dir), ""
    return None, "; ".join(tried) or (
        "no encoder it was fit on: install toolsift[train] or lint with a bundle"
    )


def meaning_check(
    bundle: Bundle | None = None,
    *,
    retriever: TextEncoder | None = None,
    threads: int = 0,
    cache_dir: str | Path | None = None,
) -> MeaningCheck:
    """The detector of `bundle` (or the shipped one) with the first encoder it accepts;
    `retriever`: the bundle's retriever encoder when the caller has one loaded; `threads`:
    an ONNX encoder's intra-op threads (0: every core); `cache_dir`: where its sentence
    vectors are kept between processes (a gateway's restart embeds only new sentences)."""
    detector = bundle_detector(bundle)
    candidates: list[Callable[[], TextEncoder | None]] = []
    if bundle is not None:
        lint_dir = bundle.root / LINT_ENCODER_DIR
        if lint_dir.is_dir():
            from serving.bundle.onnx_models import OnnxEncoder

            candidates.append(
                lambda: OnnxEncoder(lint_dir, threads=threads, check=bundle.weights.check))
        if retriever is not None:
            candidates.append(lambda: retriever)
        if has_onnx(bundle.retriever_path):  # a stock retriever served in int8 reads fp32 here
            from serving.bundle.onnx_models import OnnxEncoder

            candidates.append(lambda: OnnxEncoder(
                bundle.retriever_path, threads=threads, check=bundle.weights.check))
    candidates.append(_torch_stock)
    encoder, why = accepted_encoder(detector, candidates, cache_dir)
    if encoder is None:
        log.warning("the lint's check by meaning is off: %s", why)
    elif bundle is not None and (bundle.root / BUNDLE_REVIEW_VECTORS).is_file():
        assert isinstance(encoder, CachedEncoder)
        encoder.seed(bundle.weights.check(bundle.root / BUNDLE_REVIEW_VECTORS))
    return MeaningCheck(detector, encoder, why)

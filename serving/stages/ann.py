"""Approximate dense search for large catalogs: an HNSW graph (faiss) over the bundle's
embeddings, with `DenseRetriever`'s interface.

Chosen by measurement (reports/bench.md): on 100,000 perturbed demo embeddings faiss's
HNSW built in about half usearch's time and answered in about 0.6x its time at the same
recall@40 (1.00 vs 0.9999). Below `RuntimeParams.ann_threshold` exact search is both
faster to load and exact, so the runtime keeps it there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from serving.stages.retrieve import DenseRetriever, Hits

HNSW_NEIGHBOURS = 32  # graph degree: recall vs memory (~4 * 2 * 32 bytes a vector)
HNSW_EF_BUILD = 80
HNSW_EF_SEARCH = 128
OVERSAMPLE = 4  # a session mask hides rows: ask the graph for this many times n


class ApproximateDense:
    """Top-n by inner product from an HNSW graph; scores are the exact inner products of
    the rows it returns. When the session mask hides so much that the graph's candidates
    hold fewer than n allowed rows, it falls back to exact search: never a shorter list
    than exact search would give."""

    def __init__(self, index: Any, embeddings: np.ndarray) -> None:
        if index.ntotal != embeddings.shape[0]:
            raise ValueError(f"ANN index holds {index.ntotal} rows, embeddings {len(embeddings)}")
        self.index = index
        self.embeddings = embeddings
        self._exact = DenseRetriever(embeddings)

    @classmethod
    def build(cls, embeddings: np.ndarray) -> ApproximateDense:
        import faiss

        dim = embeddings.shape[1]
        index = faiss.IndexHNSWFlat(dim, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_BUILD
        index.add(np.ascontiguousarray(embeddings, dtype=np.float32))
        return cls(index, embeddings)

    @classmethod
    def load(cls, path: Path, embeddings: np.ndarray) -> ApproximateDense:
        import faiss

        return cls(faiss.read_index(str(path)), embeddings)

    def save(self, path: Path) -> None:
        import faiss

        faiss.write_index(self.index, str(path))

    def search(self, query_vector: np.ndarray, mask: np.ndarray, n: int) -> Hits:
        n_rows = self.embeddings.shape[0]
        k = min(n_rows, n if mask.all() else n * OVERSAMPLE)
        self.index.hnsw.efSearch = max(HNSW_EF_SEARCH, k)
        query = np.ascontiguousarray(query_vector, dtype=np.float32).reshape(1, -1)
        _, found = self.index.search(query, k)
        rows = [int(r) for r in found[0] if r >= 0 and mask[r]]
        if len(rows) < min(n, int(mask.sum())):
            return self._exact.search(query_vector, mask, n)
        scores = self.embeddings[rows] @ query_vector
        # the same order as exact search: by score, then by row
        ranked = sorted(zip(rows, scores.tolist(), strict=True), key=lambda h: (-h[1], h[0]))
        return [(r, float(s)) for r, s in ranked[:n]]

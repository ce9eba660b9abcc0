"""The plain baselines evaluation runs beside the pipeline, on the whole request text: no
decomposition, no session mask, no filters, no rerank. `bm25` searches the candidate
bundle's BM25 index; `dense` is cosine top-k with a baseline bundle's encoder and
embeddings (the stock MiniLM export), or the candidate's; `rrf` fuses the two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from serving import metrics as M
from serving.bundle.encoder import Encoder
from serving.bundle.files import Bundle
from serving.stages.retrieve import BM25Retriever, top_n

BASELINES = ("bm25", "dense", "rrf")


@dataclass(frozen=True)
class PlainRetrievers:
    """What the plain baselines search: BM25 over the candidate bundle, cosine over the
    baseline bundle's embeddings with its own encoder."""

    bm25: BM25Retriever
    bm25_ids: Sequence[str]
    encoder: Encoder
    embeddings: np.ndarray
    dense_ids: Sequence[str]

    @classmethod
    def from_bundles(cls, candidate: Bundle, baseline: Bundle | None = None) -> PlainRetrievers:
        stock = baseline or candidate
        return cls(
            bm25=BM25Retriever.load(candidate.bm25_path),
            bm25_ids=[c.tool_id for c in candidate.cards],
            encoder=Encoder(stock.weights.check(stock.retriever_path)),
            embeddings=stock.embeddings,
            dense_ids=[c.tool_id for c in stock.cards],
        )


def rrf_ids(lists: Sequence[Sequence[str]], *, k: int, n: int) -> list[str]:
    """Reciprocal rank fusion over id lists: sum of 1 / (k + rank), rank from 1."""
    scores: dict[str, float] = {}
    for ids in lists:
        for rank, tool_id in enumerate(ids, start=1):
            scores[tool_id] = scores.get(tool_id, 0.0) + 1.0 / (k + rank)
    return M.ranked(scores)[:n]


def plain_baselines(
    requests: Mapping[str, str], plain: PlainRetrievers, *, depth: int, rrf_k: int
) -> dict[str, dict[str, list[str]]]:
    """Each baseline's top `depth` tool ids per request: {"bm25"|"dense"|"rrf": {qid: ids}}."""
    qids = list(requests)
    everything = np.ones(len(plain.bm25_ids), dtype=bool)
    dense_all = np.ones(len(plain.dense_ids), dtype=bool)
    vectors = plain.encoder.encode([requests[q] for q in qids]) if qids else np.zeros((0, 1))
    out: dict[str, dict[str, list[str]]] = {name: {} for name in BASELINES}
    for qid, vector in zip(qids, vectors, strict=True):
        bm25 = [plain.bm25_ids[r] for r, _ in plain.bm25.search(requests[qid], everything, depth)]
        dense = [
            plain.dense_ids[r] for r, _ in top_n(plain.embeddings @ vector, dense_all, depth)
        ]
        out["bm25"][qid] = bm25
        out["dense"][qid] = dense
        out["rrf"][qid] = rrf_ids([dense, bm25], k=rrf_k, n=depth)
    return out

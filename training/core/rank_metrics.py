"""Ranking metrics the model stages share: recall@k and MRR of a score matrix against the
whole catalog (the retriever), and of each group's order (the reranker and the learned
ranker, scored on the same validation groups). Ties count against the gold tool, so a
model that scores everything alike earns nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RECALL_AT = (1, 3, 8)


@dataclass(frozen=True, slots=True)
class Group:
    """One query and the tools to order for it; `labels[i]` is 1 for a gold tool and
    `fused_ranks[i]` the tool's place in the runtime's fused order (0: not in it)."""

    query: str
    tool_ids: tuple[str, ...]
    labels: tuple[int, ...]
    fused_ranks: tuple[int, ...]


def gold_ranks(scores: np.ndarray, is_gold: np.ndarray) -> np.ndarray:
    """1-based rank of each gold document; a tie with a non-gold document counts against
    the gold one, so a model that scores everything alike earns nothing."""
    s_gold, s_other = scores[is_gold], scores[~is_gold]
    return (
        1
        + (s_other[None, :] >= s_gold[:, None]).sum(axis=1)
        + (s_gold[None, :] > s_gold[:, None]).sum(axis=1)
    )


def ranking_metrics(
    scores: np.ndarray, doc_ids: Sequence[str], gold: Sequence[frozenset[str]], *, k: int
) -> dict[str, float]:
    """Mean recall@k and MRR of `scores` (queries x docs); a query's gold outside `doc_ids`
    is a miss."""
    if len(gold) == 0:
        return {f"recall_at_{k}": 0.0, "mrr": 0.0}
    ids = np.asarray(doc_ids)
    recalls, reciprocal = [], []
    for row, g in zip(scores, gold, strict=True):
        ranks = gold_ranks(row, np.isin(ids, list(g)))
        recalls.append(float((ranks <= k).sum()) / len(g))
        reciprocal.append(1.0 / float(ranks.min()) if ranks.size else 0.0)
    return {f"recall_at_{k}": float(np.mean(recalls)), "mrr": float(np.mean(reciprocal))}


def order_metrics(scores: Sequence[np.ndarray], groups: Sequence[Group]) -> dict[str, float]:
    """MRR and recall@k (a gold tool among the first k) of each group's scores, ties
    counting against the gold tool; no groups, no metrics."""
    if not groups:
        return {}
    first = np.array([
        int(gold_ranks(np.asarray(s), np.asarray(g.labels) == 1).min())
        for s, g in zip(scores, groups, strict=True)
    ])
    metrics = {"mrr": float(np.mean(1.0 / first))}
    metrics.update({f"recall_at_{k}": float(np.mean(first <= k)) for k in RECALL_AT})
    return metrics

"""Groups: each sampled positive replayed through the runtime, its candidates turned
into the features the runtime computes and labelled against the gold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from features.history import Event
from features.mining import SYNTHETIC_PREFIX
from serving.stages.ranker_features import (
    CROSS_ENCODER_FEATURES,
    FEATURE_NAMES,
    History,
    LogitBudget,
    feature_matrix,
    logit_rank_gap,
)
from serving.stages.rerank import named_group, named_products

LOGIT_COLUMNS = [FEATURE_NAMES.index(n) for n in CROSS_ENCODER_FEATURES]
_LOGIT, _RANK_DENSE, _FUSED, _COSINE = (
    FEATURE_NAMES.index(n) for n in ("cross_encoder", "rank_dense", "fused", "score_dense")
)


@dataclass(frozen=True)
class Groups:
    features: np.ndarray  # [rows, len(FEATURE_NAMES)]
    labels: np.ndarray  # [rows]
    sizes: list[int]  # rows per group, in order
    stats: dict[str, int]
    tools: tuple[str, ...] = ()  # each group's positive (the sampled pair's tool)
    # per row: 2 the step names the tool, 1 it names the tool's product, 0 neither: the
    # menu puts them first in that order (`serving.stages.rerank.named_first`); None = all 0
    named: np.ndarray | None = None
    # per `LogitBudget` the replay was asked for: the rows' logit columns under it
    # (`training.ltr.budget`) and the pairs it scores per group; None = not recorded
    logit_views: Mapping[LogitBudget, np.ndarray] | None = None
    logit_pairs: Mapping[LogitBudget, np.ndarray] | None = None


def replay_groups(
    rows: Sequence[Mapping[str, Any]],
    *,
    split: str,
    selector: Any,
    annotate: Any,
    history: History,
    request_events: Mapping[str, Sequence[Event]],
    contexts: Mapping[str, Mapping[str, Any]],
    gold: Mapping[str, set[str]],
    equivalent: Mapping[str, set[str]],
    synthetic: Any,
    reranker: Any = None,
    budgets: Sequence[LogitBudget] = (),
) -> Groups:
    """Each row (a positive of pairs.parquet) replayed through `selector` (module doc), its
    candidates scored by `reranker` (default: the selector's), with the logit columns of
    each of `budgets` recorded (`Groups.logit_views`)."""
    from tqdm import tqdm

    from serving.model.selection import SessionContext

    depth = selector.params.rerank_depth
    reranker = reranker or selector.reranker
    cards = selector.cards
    distinctive = selector.named_connections if selector.params.named_connections_first else ()
    feats, labels, sizes, tools, named = [], [], [], [], []
    views: list[dict[LogitBudget, np.ndarray]] = []
    pairs: list[dict[LogitBudget, int]] = []
    stats = {"n_without_gold": 0}
    subgoals = [annotate(row["query"]) for row in rows]
    vectors = selector.encoder.encode([s.text for s in subgoals])  # one batch: ~15x faster
    for row, subgoal, vector in tqdm(
        zip(rows, subgoals, vectors, strict=True), total=len(rows), desc=f"ltr groups ({split})"
    ):
        request = row["request_id"]
        context = synthetic(row) if request.startswith(SYNTHETIC_PREFIX) else contexts.get(
            request, {}
        )
        found = selector.candidates(subgoal, SessionContext.from_dict(context), vector=vector)
        scored = reranker.rerank(subgoal, list(found[:depth]))
        qid = row["query_id"]
        # equivalents of the gold leave the group (neither right nor wrong), but only after
        # the features: list features must see the list the runtime sees, not one filtered
        # by the label
        rows_kept = [
            i for i, c in enumerate(scored)
            if c.tool_id in gold.get(qid, ()) or c.tool_id not in equivalent.get(qid, ())
        ]
        kept = [scored[i] for i in rows_kept]
        y = [int(c.tool_id in gold.get(qid, ())) for c in kept]
        if not any(y):
            stats["n_without_gold"] += 1
            continue
        # the group's request leaves the history: the table holds every trace, valid ones
        # included, and a score must not read its label off its own event or its siblings'
        # (a request's other gold tools share its capability keys); at eval time the request
        # is new. Synthetic rows have no events to leave out.
        own = history.without(request_events.get(request, ()))
        matrix = feature_matrix(subgoal, scored, cards, own)
        feats.append(matrix[rows_kept])
        if budgets:
            view, n_pairs = record_views(matrix, rows_kept, budgets)
            views.append(view)
            pairs.append(n_pairs)
        products = named_products(subgoal, distinctive)
        named.extend(named_group(c, cards, products) for c in kept)
        labels.extend(y)
        sizes.append(len(kept))
        tools.append(row["tool_id"])
    matrix = np.vstack(feats) if feats else np.zeros((0, len(FEATURE_NAMES)))
    stats["n_groups"] = len(sizes)
    return Groups(
        matrix, np.asarray(labels, dtype=np.int32), sizes, stats, tuple(tools),
        np.asarray(named, dtype=np.float64),
        stack_views(views, budgets) if budgets else None,
        {b: np.array([p[b] for p in pairs], dtype=np.int64) for b in budgets} if budgets
        else None,
    )


def split_scores(flat: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    return list(np.split(np.asarray(flat, dtype=np.float64), np.cumsum(sizes)[:-1]))


def concat_groups(first: Groups, second: Groups) -> Groups:
    return Groups(
        np.vstack([first.features, second.features]),
        np.concatenate([first.labels, second.labels]),
        [*first.sizes, *second.sizes],
        {k: first.stats.get(k, 0) + second.stats.get(k, 0) for k in {*first.stats, *second.stats}},
        first.tools + second.tools,
        None if first.named is None or second.named is None
        else np.concatenate([first.named, second.named]),
        _concat_by_budget(first.logit_views, second.logit_views, np.vstack),
        _concat_by_budget(first.logit_pairs, second.logit_pairs, np.concatenate),
    )


def _concat_by_budget(
    first: Mapping[LogitBudget, np.ndarray] | None,
    second: Mapping[LogitBudget, np.ndarray] | None,
    join: Any,
) -> dict[LogitBudget, np.ndarray] | None:
    """The budgets both recorded, joined; None when either recorded none."""
    if first is None or second is None:
        return None
    return {b: join([first[b], second[b]]) for b in first if b in second}


def unseen_tools(train: Sequence[Groups], valid: Groups) -> list[bool]:
    """Per valid group: whether its tool is the positive of no group of `train`."""
    seen = {t for groups in train for t in groups.tools}
    return [t not in seen for t in valid.tools]


def logit_view(matrix: np.ndarray, budget: LogitBudget) -> tuple[np.ndarray, int]:
    """The `CROSS_ENCODER_FEATURES` columns of one candidate list (its feature matrix, every
    logit computed) as the runtime computes them under `budget`, and the pairs it scores."""
    keep = budget.select(matrix[:, _RANK_DENSE], matrix[:, _FUSED], matrix[:, _COSINE])
    logits = np.where(keep, matrix[:, _LOGIT], np.nan)
    rank, gap = logit_rank_gap(logits)
    return np.column_stack([logits, rank, gap]), int(keep.sum())


def record_views(
    matrix: np.ndarray, rows_kept: Sequence[int], budgets: Sequence[LogitBudget]
) -> tuple[dict[LogitBudget, np.ndarray], dict[LogitBudget, int]]:
    """One replayed list's logit columns per budget (the kept rows) and pairs scored."""
    views, pairs = {}, {}
    for budget in budgets:
        view, n = logit_view(matrix, budget)
        views[budget], pairs[budget] = view[list(rows_kept)], n
    return views, pairs


def stack_views(
    per_group: Sequence[Mapping[LogitBudget, np.ndarray]], budgets: Sequence[LogitBudget]
) -> dict[LogitBudget, np.ndarray]:
    return {
        b: np.vstack([g[b] for g in per_group]) if per_group
        else np.zeros((0, len(LOGIT_COLUMNS)))
        for b in budgets
    }

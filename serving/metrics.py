"""Retrieval metrics and the recall chain, as pure functions over plain shapes.

Shapes (BEIR): `qrels: dict[qid, dict[tool_id, int]]` (grade > 0 = relevant) and
`run: dict[qid, dict[tool_id, float]]` (higher is better; equal scores rank by tool id,
so every score is deterministic). A qid with no relevant tool is left out of the mean;
a qid missing from the run scores 0.

- recall@k: |relevant in top k| / |relevant|, averaged over qids.
- NDCG@k: sum of grade / log2(rank + 1) over the top k, over the same sum for the ideal
  order (linear gain, as pytrec_eval's `ndcg_cut`).
- MRR: 1 / rank of the first relevant tool (0 when none is ranked), averaged.

The recall chain. Each gold (subgoal, tool) pair is one *item*; an item passes a stage
only if it passed every stage before it, so each rate is conditional on the previous
stage having kept the gold tool and their product telescopes to end-to-end:
- decompose: some predicted subgoal aligns to the gold subgoal. Alignment: containment
  = share of the gold subgoal's tokens that appear in the predicted subgoal's text;
  pairs with containment >= 0.5 are matched greedily, best first, one-to-one. A query
  with one gold subgoal aligns to its best predicted subgoal whenever there is one. A
  query without labeled subgoals is one gold subgoal spanning the whole request: each of
  its gold tools counts at the predicted subgoal that kept it furthest.
- R_retrieve: the gold tool is in the aligned subgoal's retrieved (fused) set;
- R_filter: it is still in the filtered set;  R_menu: it is in the menu;
- R_select: the selected tool is the gold tool (an LLM's pick, or the menu's top item
  as a proxy: the caller labels which);
- end_to_end: selected == gold over all items = R_decompose * ... * R_select.
A rate whose denominator is empty is None (and end_to_end is then 0).

Abstention: a query abstains when every predicted subgoal has an empty menu. On queries
whose gold is empty (no suitable tool) that is right: `abstain_rate`; on queries with
gold it is a miss: `false_abstain_rate`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from serving.model.text import tokenize

if TYPE_CHECKING:
    from serving.model.schema import LabeledQuery

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]

STAGES = ("decompose", "retrieve", "filter", "menu", "select")
ALIGN_THRESHOLD = 0.5


# --- ranking metrics ----------------------------------------------------------------


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Tool ids best first; equal scores by tool id."""
    return sorted(scores, key=lambda t: (-scores[t], t))


def run_from_lists(lists: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """A run whose scores keep each list's order (duplicates keep their first rank)."""
    out: dict[str, dict[str, float]] = {}
    for qid, ids in lists.items():
        unique = list(dict.fromkeys(ids))
        out[qid] = {t: float(len(unique) - i) for i, t in enumerate(unique)}
    return out


def _relevant(qrels: Qrels) -> dict[str, set[str]]:
    rel = {qid: {t for t, g in docs.items() if g > 0} for qid, docs in qrels.items()}
    return {qid: docs for qid, docs in rel.items() if docs}


def recall_at_k(qrels: Qrels, run: Run, k: int) -> float:
    """Mean share of each qid's relevant tools found in its top k."""
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    total = 0.0
    for qid, docs in rel.items():
        top = ranked(run.get(qid, {}))[:k]
        total += len(docs.intersection(top)) / len(docs)
    return total / len(rel)


def ndcg_at_k(qrels: Qrels, run: Run, k: int) -> float:
    """Mean NDCG@k with linear gains (a tool's grade) and log2(rank + 1) discounts."""
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    total = 0.0
    for qid in rel:
        grades = qrels[qid]
        top = ranked(run.get(qid, {}))[:k]
        dcg = sum(max(grades.get(t, 0), 0) / math.log2(i + 2) for i, t in enumerate(top))
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        total += dcg / idcg
    return total / len(rel)


def mrr(qrels: Qrels, run: Run, k: int | None = None) -> float:
    """Mean reciprocal rank of the first relevant tool (within k when given)."""
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    total = 0.0
    for qid, docs in rel.items():
        order = ranked(run.get(qid, {}))
        for i, t in enumerate(order[:k] if k is not None else order):
            if t in docs:
                total += 1.0 / (i + 1)
                break
    return total / len(rel)


def percentiles(values: Iterable[float], qs: Sequence[int] = (50, 95)) -> dict[str, float | None]:
    """`{"p50": ..., "p95": ...}` with linear interpolation; None for no values."""
    arr = np.asarray(list(values), dtype=np.float64)
    if arr.size == 0:
        return {f"p{q}": None for q in qs}
    return {f"p{q}": float(np.percentile(arr, q)) for q in qs}


def interleave(lists: Sequence[Sequence[str]]) -> list[str]:
    """Merge ranked lists by rank (all firsts, then all seconds, ...), first seen wins:
    the request-level order of several subgoals' lists."""
    out: dict[str, None] = {}
    for rank in range(max((len(x) for x in lists), default=0)):
        for ids in lists:
            if rank < len(ids):
                out.setdefault(ids[rank], None)
    return list(out)


# --- the recall chain ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StepSets:
    """One predicted subgoal's stage sets, as ids (the plain shape of a trace step)."""

    text: str
    retrieved: tuple[str, ...] = ()
    filtered: tuple[str, ...] = ()
    menu: tuple[str, ...] = ()
    selected: str | None = None
    # the runtime's whole order when it recorded one (`StepResult.final_order`): the menu,
    # what the menu's cut left out in the reranker's order, then the rest of filtered
    order: tuple[str, ...] = ()

    @property
    def abstained(self) -> bool:
        return not self.menu

    def final_order(self) -> list[str]:
        """The runtime's order (`order`), else the menu then the rest of the filtered set."""
        if self.order:
            return list(self.order)
        return list(self.menu) + [t for t in self.filtered if t not in self.menu]


@dataclass(frozen=True, slots=True)
class GoldSubgoal:
    text: str
    gold: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ItemOutcome:
    """One gold (subgoal, tool) item: the step it was scored at and the stages it passed."""

    subgoal: int
    tool_id: str
    step: int | None
    kept: tuple[bool, bool, bool, bool, bool]  # per STAGES, cumulative

    @property
    def reached(self) -> int:
        """How many stages kept the item (5 = selected)."""
        return sum(self.kept)

    @property
    def lost_at(self) -> str | None:
        return None if all(self.kept) else STAGES[self.reached]


def containment(gold_text: str, predicted_text: str) -> float:
    """Share of the gold text's distinct tokens that occur in the predicted text."""
    gold = set(tokenize(gold_text))
    if not gold:
        return 0.0
    return len(gold & set(tokenize(predicted_text))) / len(gold)


def align_subgoals(
    gold_texts: Sequence[str],
    predicted_texts: Sequence[str],
    *,
    threshold: float = ALIGN_THRESHOLD,
) -> list[int | None]:
    """For each gold subgoal, the index of its predicted subgoal (or None).

    Greedy one-to-one on containment >= threshold, best pair first (ties: lower gold
    index, then lower predicted index). One gold subgoal takes the best predicted one
    whatever its containment.
    """
    if not predicted_texts:
        return [None] * len(gold_texts)
    scores = [[containment(g, p) for p in predicted_texts] for g in gold_texts]
    if len(gold_texts) == 1:
        row = scores[0]
        return [max(range(len(row)), key=lambda j: (row[j], -j))]
    pairs = sorted(
        (
            (-s, i, j)
            for i, row in enumerate(scores)
            for j, s in enumerate(row)
            if s >= threshold
        )
    )
    out: list[int | None] = [None] * len(gold_texts)
    used: set[int] = set()
    for _neg, i, j in pairs:
        if out[i] is None and j not in used:
            out[i] = j
            used.add(j)
    return out


def gold_subgoals(query: LabeledQuery) -> tuple[tuple[GoldSubgoal, ...], bool]:
    """The query's gold subgoals and whether they are just the whole request (then score
    them with `item_outcomes(..., spans_request=True)`)."""
    if query.subgoals:
        return tuple(GoldSubgoal(s.text, tuple(s.gold)) for s in query.subgoals), False
    return (GoldSubgoal(query.query, tuple(query.gold)),), True


def _kept(tool_id: str, step: StepSets) -> tuple[bool, bool, bool, bool, bool]:
    flags = [True, tool_id in step.retrieved, tool_id in step.filtered, tool_id in step.menu,
             step.selected == tool_id]
    for i in range(1, len(flags)):
        flags[i] = flags[i] and flags[i - 1]
    return (flags[0], flags[1], flags[2], flags[3], flags[4])


def item_outcomes(
    gold_subgoals: Sequence[GoldSubgoal],
    steps: Sequence[StepSets],
    *,
    spans_request: bool = False,
) -> tuple[list[int | None], list[ItemOutcome]]:
    """Align gold to predicted subgoals and score every gold (subgoal, tool) item.

    `spans_request`: the single gold subgoal is the whole (unlabeled) request, so each
    gold tool is scored at the predicted subgoal that kept it furthest.
    """
    lost = (False, False, False, False, False)
    if spans_request:
        if len(gold_subgoals) != 1:
            raise ValueError("spans_request needs exactly one gold subgoal (the request)")
        if not steps:
            return [None], [ItemOutcome(0, t, None, lost) for t in _unique(gold_subgoals[0].gold)]
        items = []
        for tool_id in _unique(gold_subgoals[0].gold):
            per_step = [_kept(tool_id, s) for s in steps]
            best = max(range(len(steps)), key=lambda j: (sum(per_step[j]), -j))
            items.append(ItemOutcome(0, tool_id, best, per_step[best]))
        return [items[0].step if items else None], items
    alignment = align_subgoals([g.text for g in gold_subgoals], [s.text for s in steps])
    items = []
    for i, (gold, j) in enumerate(zip(gold_subgoals, alignment, strict=True)):
        for tool_id in _unique(gold.gold):
            kept = lost if j is None else _kept(tool_id, steps[j])
            items.append(ItemOutcome(i, tool_id, j, kept))
    return alignment, items


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def recall_chain(items: Sequence[ItemOutcome]) -> dict[str, float | int | None]:
    """Conditional recall per stage, end-to-end, and how many items each stage lost."""
    out: dict[str, float | int | None] = {"n_items": len(items)}
    before = len(items)
    for s, stage in enumerate(STAGES):
        after = sum(1 for it in items if it.kept[s])
        out[f"r_{stage}"] = after / before if before else None
        out[f"lost_{stage}"] = before - after
        before = after
    out["end_to_end"] = before / len(items) if items else None
    return out


def abstention_scores(
    abstained: Sequence[bool], has_gold: Sequence[bool]
) -> dict[str, float | int | None]:
    """Abstaining is right on no-tool queries and a miss on queries with gold."""
    if len(abstained) != len(has_gold):
        raise ValueError("abstained and has_gold differ in length")
    no_tool = [a for a, g in zip(abstained, has_gold, strict=True) if not g]
    with_gold = [a for a, g in zip(abstained, has_gold, strict=True) if g]
    return {
        "n_no_tool": len(no_tool),
        "abstain_rate": sum(no_tool) / len(no_tool) if no_tool else None,
        "n_with_gold": len(with_gold),
        "false_abstain_rate": sum(with_gold) / len(with_gold) if with_gold else None,
    }

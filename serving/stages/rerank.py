"""Rerank to a menu through one interface; cost and latency only break near-ties.

Every reranker returns candidates with a relevance in [0, 1], best first, so one tie
margin means the same thing whichever backend produced the order.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from serving.bundle.encoder import Scorer
from serving.model.schema import ToolCard
from serving.model.selection import Candidate, Selection, Subgoal
from serving.stages.menu_policy import MenuBars, cut_menu
from serving.stages.ranker_features import (
    MISSING_RANK,
    MISSING_SCORE,
    Calibration,
    History,
    LogitBudget,
    dense_score,
    exploration_bonus,
    feature_matrix,
)

PRIOR_ORDERS = ("dense", "fused")


def check_prior_order(order: str, what: str) -> None:
    if order not in PRIOR_ORDERS:
        raise ValueError(f"{what} {order!r} is not {'|'.join(PRIOR_ORDERS)}")


def prior_score(candidate: Candidate, order: str) -> float:
    """Higher = earlier in the retrieval order the cross-encoder's rank is fused with:
    the dense retriever's (a tool it did not return comes last) or the fused one."""
    if order == "dense":
        return -candidate.scores.get("rank_dense", MISSING_RANK)
    return candidate.scores.get("fused", 0.0)


class Reranker(Protocol):
    @property
    def name(self) -> str: ...

    def rerank(self, subgoal: Subgoal, candidates: Sequence[Candidate]) -> list[Candidate]:
        """Candidates with `score` set to relevance in [0, 1], best first."""
        ...


@dataclass(frozen=True, slots=True)
class FusedOrderReranker:
    """Keeps the fusion's order; relevance = fused score over the best possible one."""

    n_sources: int = 3
    rrf_k: int = 60
    name: str = "fused"

    def rerank(self, subgoal: Subgoal, candidates: Sequence[Candidate]) -> list[Candidate]:
        best = self.n_sources / (self.rrf_k + 1)
        ranked = sorted(candidates, key=lambda c: -c.scores.get("fused", 0.0))
        return [c.with_score(min(1.0, c.scores.get("fused", 0.0) / best)) for c in ranked]


@dataclass(frozen=True, slots=True)
class DenseOrderReranker:
    """The fine-tuned retriever's order alone (a tool it did not return comes last, in
    fused order): the fallback every learned order is measured against, and what a bundle
    ships where its learned ranker did not beat it (`ShippedOrder`). Relevance: with a
    `calibration` (`train_ltr` fits one on its valid groups), the calibrated probability of
    `dense_score`, so the menu policy reads it as it reads the learned ranker's; without
    one, (k + 1) / (k + 1 + its dense rank), the prior's share of `rank_fusion`."""

    rrf_k: int = 60
    calibration: Calibration | None = None
    name: str = "dense"

    def rerank(self, subgoal: Subgoal, candidates: Sequence[Candidate]) -> list[Candidate]:
        def rank(c: Candidate) -> float:
            return c.scores.get("rank_dense", MISSING_RANK)

        ranked = sorted(candidates, key=lambda c: (rank(c), -c.scores.get("fused", 0.0)))
        calib = self.calibration
        if calib is None:
            return [c.with_score((self.rrf_k + 1) / (self.rrf_k + 1 + rank(c))) for c in ranked]
        return [
            c.with_score(calib.probability(dense_score(
                c.scores.get("score_dense", MISSING_SCORE), c.scores.get("fused", 0.0))))
            for c in ranked
        ]


@dataclass(frozen=True)
class CrossEncoderReranker:
    """Scores (subgoal text, card index text) pairs with a cross-encoder.

    Alone (`prior_weight` 0) it orders by logit and relevance = sigmoid of the logit. With
    a retrieval prior it orders by reciprocal rank fusion of its own rank and a retrieval
    rank (weight `prior_weight`; `prior_order` says whose: the fine-tuned dense
    retriever's or the fused one), relevance = that score over the best possible one: on
    phrasings its training never showed, the cross-encoder scores every candidate alike
    and the retriever's order is the better evidence (training/README.md).
    """

    scorer: Scorer
    cards: Mapping[str, ToolCard]
    prior_weight: float = 0.0
    prior_order: str = "fused"
    rrf_k: int = 60
    name: str = "cross_encoder"

    def __post_init__(self) -> None:
        check_prior_order(self.prior_order, "prior_order")

    def rerank(self, subgoal: Subgoal, candidates: Sequence[Candidate]) -> list[Candidate]:
        pairs = [(subgoal.text, self.cards[c.tool_id].index_text()) for c in candidates]
        logits = [float(z) for z in self.scorer.score(pairs)]
        if self.prior_weight <= 0:
            scored = [
                c.with_score(1.0 / (1.0 + math.exp(-z)), cross_encoder=z)
                for c, z in zip(candidates, logits, strict=True)
            ]
            return sorted(scored, key=lambda c: (-c.score, c.tool_id))
        relevance = rank_fusion(
            logits,
            [prior_score(c, self.prior_order) for c in candidates],
            prior_weight=self.prior_weight,
            k=self.rrf_k,
        )
        scored = [
            c.with_score(r, cross_encoder=z)
            for c, z, r in zip(candidates, logits, relevance, strict=True)
        ]
        # equal fusion scores: the cross-encoder's own order decides
        return sorted(scored, key=lambda c: (-c.score, -c.scores["cross_encoder"], c.tool_id))


def rank_fusion(
    model_scores: Sequence[float], prior_scores: Sequence[float], *, prior_weight: float, k: int
) -> list[float]:
    """Reciprocal rank fusion of two orders of the same candidates, scaled to (0, 1]:
    (1 / (k + 1 + model rank) + w / (k + 1 + prior rank)) / ((1 + w) / (k + 1)), ranks from
    0, ties broken by position so every candidate has its own rank."""

    def ranks(scores: Sequence[float]) -> list[int]:
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        out = [0] * len(scores)
        for rank, i in enumerate(order):
            out[i] = rank
        return out

    best = (1.0 + prior_weight) / (k + 1)
    return [
        (1.0 / (k + 1 + m) + prior_weight / (k + 1 + p)) / best
        for m, p in zip(ranks(model_scores), ranks(prior_scores), strict=True)
    ]


@dataclass(frozen=True)
class LearnedReranker:
    """LightGBM (lambdarank) over `serving.stages.ranker_features.FEATURE_NAMES`; relevance =
    the calibrated probability of the model's score, plus a bounded exploration bonus for
    tools with little history when `exploration_rate` > 0.

    `inner` scores the candidates first: the cross-encoder when the model reads its logit,
    else the fused order, which costs nothing (`train_ltr` keeps the logit only when it
    pays on held-out groups: it is most of a request's time on a CPU). With a
    `logit_budget` the inner reranker sees only the candidates the budget selects; the
    others reach the model with their logit missing, as in its training rows.
    """

    inner: Reranker
    model: Any  # serving.stages.trees.TreeEnsemble (or a lightgbm.Booster): .predict(features)
    cards: Mapping[str, ToolCard]
    history: History
    exploration_rate: float = 0.0
    exploration_cap: float = 0.1
    name: str = "ltr"
    columns: tuple[int, ...] | None = None  # the FEATURE_NAMES columns it reads (None: all)
    calibration: Calibration = field(default_factory=Calibration)
    logit_budget: LogitBudget | None = None

    def rerank(self, subgoal: Subgoal, candidates: Sequence[Candidate]) -> list[Candidate]:
        if not candidates:
            return []
        scored = self._inner_scores(subgoal, candidates)
        features = feature_matrix(subgoal, scored, self.cards, self.history)
        if self.columns is not None:
            features = features[:, list(self.columns)]
        raw = self.model.predict(features)
        out = []
        for c, z in zip(scored, raw, strict=True):
            tool = self.history.tool(c.tool_id)
            bonus = exploration_bonus(
                tool.success + tool.failure, rate=self.exploration_rate, cap=self.exploration_cap
            )
            relevance = min(1.0, self.calibration.probability(float(z)) + bonus)
            out.append(c.with_score(relevance, ltr=float(z), exploration=bonus))
        return sorted(out, key=lambda c: (-c.score, c.tool_id))

    def _inner_scores(self, subgoal: Subgoal, candidates: Sequence[Candidate]) -> list[Candidate]:
        if self.logit_budget is None:
            return self.inner.rerank(subgoal, candidates)
        keep = self.logit_budget.select(
            np.array([c.scores.get("rank_dense", MISSING_RANK) for c in candidates]),
            np.array([c.scores.get("fused", 0.0) for c in candidates]),
            np.array([c.scores.get("score_dense", MISSING_SCORE) for c in candidates]),
        )
        chosen = [c for c, k in zip(candidates, keep, strict=True) if k]
        rest = [c for c, k in zip(candidates, keep, strict=True) if not k]
        return (self.inner.rerank(subgoal, chosen) if chosen else []) + rest


NAMED = "named"  # a candidate's score key: its `named_group` when not 0


def named_products(subgoal: Subgoal, distinctive: Collection[str]) -> frozenset[str]:
    """The products the step's own words name (`named_access`) whose names are
    distinctive (`DecomposerVocabulary.distinctive`): a product carried from elsewhere in
    the request is an inference, and a common word ("logs") proves nothing."""
    return frozenset(a for a in subgoal.named_access if a in distinctive)


def named_group(c: Candidate, cards: Mapping[str, ToolCard], products: Collection[str]) -> int:
    """2 when the step names the tool exactly (`exact`, set by the fuse stage), 1 when it
    names the tool's product (`named_products`), else 0."""
    if c.scores.get("exact", 0.0) > 0:
        return 2
    return int(bool(products) and cards[c.tool_id].connection in products)


def named_first(
    ranked: Sequence[Candidate],
    cards: Mapping[str, ToolCard],
    products: Collection[str] = (),
) -> list[Candidate]:
    """Tools the step names first, each group in the reranker's order (`named_group`):
    those it names exactly, at relevance 1, then those of a product it names. The
    fusion's rule, a user who names a tool or a product means it, which a learned order
    must not undo: it learns from traces whose popular tools win, and put Datadog's
    dashboard search ahead of "grep the dashboards ... using New Relic". Relevance is
    kept (calibrated cuts still apply); the group is in `scores["named"]`."""
    groups = [named_group(c, cards, products) for c in ranked]
    out = [
        c.with_score(1.0 if g == 2 else c.score, **({NAMED: float(g)} if g else {}))
        for c, g in zip(ranked, groups, strict=True)
    ]
    order = sorted(range(len(out)), key=lambda i: -groups[i])  # stable: each group in order
    return [out[i] for i in order]


def break_ties(
    candidates: Sequence[Candidate], cards: Mapping[str, ToolCard], *, margin: float
) -> list[Candidate]:
    """Within runs of candidates whose relevance is within `margin` of the run's leader
    (and who share a `named` group), order by (cost, p50 latency); runs themselves keep
    their order, so cost and latency never outvote a clear relevance gap or a name."""
    out: list[Candidate] = []
    run: list[Candidate] = []
    for cand in candidates:
        if run and (
            run[0].score - cand.score > margin
            or run[0].scores.get(NAMED, 0.0) != cand.scores.get(NAMED, 0.0)
        ):
            out.extend(_cheapest_first(run, cards))
            run = []
        run.append(cand)
    out.extend(_cheapest_first(run, cards))
    return out


@dataclass(frozen=True, slots=True)
class TieBreakAudit:
    """What cost/latency did to one menu: pairs of items they put in the other order than
    relevance did, and the largest relevance gap among those pairs."""

    n_swapped_pairs: int
    max_swapped_gap: float


def tie_break_audit(menu: Sequence[Candidate]) -> TieBreakAudit:
    """Compare a menu's final order with its relevance order (`relevance_rank`, set by
    `MenuStage`). By construction every swapped pair is within the tie margin; this
    measures it on real menus instead of trusting it."""
    swapped, gap = 0, 0.0
    for i, a in enumerate(menu):
        for b in menu[i + 1 :]:
            if a.scores.get("relevance_rank", 0) > b.scores.get("relevance_rank", 0):
                swapped += 1
                gap = max(gap, b.score - a.score)
    return TieBreakAudit(swapped, gap)


def _cheapest_first(run: list[Candidate], cards: Mapping[str, ToolCard]) -> list[Candidate]:
    return sorted(run, key=lambda c: (cards[c.tool_id].cost, cards[c.tool_id].p50_ms, -c.score))


@dataclass(frozen=True)
class RerankStage:
    """Stage `rerank`: the first `depth` filtered candidates (fused order) scored by the
    reranker, the rest after them at relevance 0, the tools the step names first
    (`named_first`). Keeps every candidate, each with its `relevance_rank`: the menu's cut
    is `CutStage`'s, so what the bars and the no-tool decision see is the whole list."""

    reranker: Reranker
    cards: Mapping[str, ToolCard]
    depth: int = 40  # only the first `depth` (fused order) are reranked: the model's cost
    # connections whose names are distinctive (`DecomposerVocabulary.distinctive`): their
    # tools lead the menu of a step that names them (`named_first`); empty = off
    named_connections: Collection[str] = frozenset()

    def __call__(self, sel: Selection) -> Selection:
        if not sel.candidates:
            return sel
        head, tail = sel.candidates[: self.depth], sel.candidates[self.depth :]
        ranked = named_first(
            self.reranker.rerank(sel.subgoal, head) + [c.with_score(0.0) for c in tail],
            self.cards,
            named_products(sel.subgoal, self.named_connections),
        )
        # the relevance order before cost/latency break near-ties: `tie_break_audit` reads it
        ranked = [c.with_score(c.score, relevance_rank=i) for i, c in enumerate(ranked)]
        return replace(sel, candidates=tuple(ranked))


ABSTAIN_REASON = "rerank:abstain"


@dataclass(frozen=True)
class CutStage:
    """Stage `menu`: the reranked list cut to the menu by `serving.stages.menu_policy.cut_menu`
    (relevance alone decides who stays), near-ties then ordered by cost and latency inside
    it, so they can never push a tool across the cut. `abstain`: the no-tool decision said
    no, and every candidate leaves (`rerank:abstain`)."""

    cards: Mapping[str, ToolCard]
    bars: MenuBars = field(default_factory=MenuBars)
    size: int = 8
    tie_margin: float = 0.005
    abstain: bool = False
    keep_best: bool = False  # the no-tool decision said "served": the best stays
    caution_bar: float = 0.0  # relevance a card with lint cautions needs (`cut_menu`)
    no_writes: bool = False  # the step names a product the session lacks (`cut_menu`)
    other_operations: Collection[str] = frozenset()  # writes that do something else

    def __call__(self, sel: Selection) -> Selection:
        if self.abstain:
            gone = tuple((c.tool_id, ABSTAIN_REASON) for c in sel.candidates)
            return replace(sel, candidates=(), dropped=tuple(sel.dropped) + gone)
        kept, cut = cut_menu(sel.candidates, self.cards, self.bars, size=self.size,
                             keep_best=self.keep_best, caution_bar=self.caution_bar,
                             no_writes=self.no_writes,
                             other_operations=self.other_operations)
        kept = break_ties(kept, self.cards, margin=self.tie_margin)
        return replace(sel, candidates=tuple(kept), dropped=tuple(sel.dropped) + tuple(cut))


@dataclass(frozen=True)
class MenuStage:
    """`RerankStage` then `CutStage` with one bar for every tool (`min_relevance`): the
    menu of a step when no no-tool decision is asked for."""

    reranker: Reranker
    cards: Mapping[str, ToolCard]
    size: int = 8
    tie_margin: float = 0.005
    min_relevance: float = 0.0
    depth: int = 40
    named_connections: Collection[str] = frozenset()

    def __call__(self, sel: Selection) -> Selection:
        ranked = RerankStage(self.reranker, self.cards, self.depth, self.named_connections)(sel)
        bars = MenuBars(self.min_relevance, self.min_relevance)
        return CutStage(self.cards, bars, self.size, self.tie_margin)(ranked)

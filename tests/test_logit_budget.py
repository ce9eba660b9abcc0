"""The cross-encoder's budget for a ranker that reads its logit: which candidates it
scores, by hand; the runtime computes the columns the training replay records; the
cheapest budget within the tolerance is chosen."""

import math

import numpy as np
import pytest

from serving.model.io import load_catalog
from serving.model.selection import Candidate, Subgoal
from serving.stages.ranker_features import (
    CROSS_ENCODER_FEATURES,
    FEATURE_NAMES,
    History,
    LogitBudget,
    feature_matrix,
)
from serving.stages.rerank import CrossEncoderReranker, LearnedReranker
from training.ltr.budget import BudgetTrial, budget_grid, choose_budget
from training.ltr.groups import logit_view, record_views

LOGIT = [FEATURE_NAMES.index(n) for n in CROSS_ENCODER_FEATURES]


@pytest.fixture(scope="module")
def cards(fixture_catalog):
    return {c.tool_id: c for c in load_catalog(fixture_catalog, strict=True).items}


def test_the_budget_selects_the_dense_orders_first_and_skips_a_wide_lead():
    rank_dense = np.array([3.0, 1.0, 100.0, 2.0, 100.0])  # 100: the retriever missed it
    fused = np.array([0.01, 0.02, 0.05, 0.03, 0.04])
    cosine = np.array([0.5, 0.8, -1.0, 0.7, -1.0])
    assert LogitBudget().select(rank_dense, fused, cosine).all()
    assert LogitBudget(2).select(rank_dense, fused, cosine).tolist() == [
        False, True, False, True, False]
    # past the retriever's list, the fused score orders the missed tools (0.05 before 0.04)
    assert LogitBudget(4).select(rank_dense, fused, cosine).tolist() == [
        True, True, True, True, False]
    # the lead is 0.8 - 0.7 = 0.1: a gap of 0.1 skips the step, 0.11 does not
    assert not LogitBudget(0, 0.1).select(rank_dense, fused, cosine).any()
    assert LogitBudget(0, 0.11).select(rank_dense, fused, cosine).all()
    # one candidate has nothing to order: skipped when any gap is set, scored when none
    one = (np.array([1.0]), np.array([0.1]), np.array([0.9]))
    assert not LogitBudget(0, 0.5).select(*one).any() and LogitBudget(2).select(*one).all()
    with pytest.raises(ValueError, match="logit budget"):
        LogitBudget(-1)


def test_the_budget_file_round_trips(tmp_path):
    LogitBudget(4, 0.1).save(tmp_path / "b.json")
    assert LogitBudget.load(tmp_path / "b.json") == LogitBudget(4, 0.1)


class _CountingScorer:
    """Logits 0, 1, 2, ... in the order it is given pairs; remembers what it scored."""

    def __init__(self, logits):
        self.logits = logits
        self.seen = []

    def score(self, pairs):
        self.seen.extend(card for _, card in pairs)
        return [self.logits[text] for _, text in pairs]


class _CapturingModel:
    def __init__(self):
        self.features = None

    def predict(self, features):
        self.features = features
        return features[:, FEATURE_NAMES.index("fused")]


def test_the_runtime_computes_the_columns_the_replay_records(cards):
    ids = ["github.list_commits", "github.search_code", "slack.post_message"]
    subgoal = Subgoal("list commits")
    found = [
        Candidate(ids[0], 0.0, {"score_dense": 0.80, "fused": 0.03, "rank_dense": 1.0}),
        Candidate(ids[1], 0.0, {"score_dense": 0.75, "fused": 0.02, "rank_dense": 2.0}),
        Candidate(ids[2], 0.0, {"fused": 0.01, "rank_bm25": 1.0}),
    ]
    logits = {cards[t].index_text(): z for t, z in zip(ids, (1.0, 4.0, 2.0), strict=True)}
    # what the replay records: every candidate scored, then the budget's view
    every = CrossEncoderReranker(_CountingScorer(logits), cards).rerank(subgoal, found)
    full = feature_matrix(subgoal, every, cards, History())
    order = [c.tool_id for c in every]
    full = full[[order.index(t) for t in ids]]  # back in `found`'s order
    for budget in (LogitBudget(), LogitBudget(1), LogitBudget(2), LogitBudget(0, 0.01)):
        scorer, model = _CountingScorer(logits), _CapturingModel()
        reranker = LearnedReranker(CrossEncoderReranker(scorer, cards), model, cards,
                                   History(), logit_budget=budget)
        out = reranker.rerank(subgoal, found)
        seen = [c.tool_id for c in out]  # the model's rows, back in `found`'s order
        assert sorted(seen) == sorted(ids)
        view, n_pairs = logit_view(full, budget)
        assert len(scorer.seen) == n_pairs
        got = _in_order(model.features, reranker, subgoal, found)
        np.testing.assert_array_equal(got[:, LOGIT], view)
    # by hand: depth 2 scores the two the retriever ranks first; 4.0 leads 1.0 by 3
    view, n = logit_view(full, LogitBudget(2))
    assert n == 2 and view[:2].tolist() == [[1.0, 2.0, 3.0], [4.0, 1.0, 0.0]]
    assert np.isnan(view[2]).all()
    # the lead 0.80 - 0.75 reaches a 0.05 gap: nothing scored
    assert logit_view(full, LogitBudget(0, 0.05))[1] == 0
    views, pairs = record_views(full, [0, 2], [LogitBudget(), LogitBudget(1)])
    assert views[LogitBudget()].shape == (2, 3) and pairs == {LogitBudget(): 3, LogitBudget(1): 1}


def _in_order(features, reranker, subgoal, found):
    """The model's feature rows in `found`'s order (the inner reranker reorders)."""
    scored = reranker._inner_scores(subgoal, found)
    order = [c.tool_id for c in scored]
    return features[[order.index(c.tool_id) for c in found]]


def test_the_cheapest_budget_within_the_tolerance_is_chosen():
    grid = budget_grid([0, 2, 4], [0.0, 0.1])
    assert grid[0] == LogitBudget() and len(grid) == 6 and len(set(grid)) == 6
    trials = [
        BudgetTrial(LogitBudget(), 0.900, 16.0, 0.0),
        BudgetTrial(LogitBudget(4), 0.897, 4.0, 0.0),
        BudgetTrial(LogitBudget(2), 0.880, 2.0, 0.0),
        BudgetTrial(LogitBudget(4, 0.1), 0.896, 3.0, 0.25),
        BudgetTrial(LogitBudget(8), 0.940, 8.0, 0.0),  # the best: luck does not raise the bar
    ]
    assert choose_budget(trials, 0.005).budget == LogitBudget(4, 0.1)  # 3 pairs, -0.004
    assert choose_budget(trials, 0.0).budget == LogitBudget(8)  # cheaper than 16, not worse
    assert choose_budget(trials, 0.05).budget == LogitBudget(2)
    assert math.isclose(trials[3].to_dict()["skipped"], 0.25)
    with pytest.raises(ValueError, match="full budget"):
        choose_budget(trials[1:], 0.005)

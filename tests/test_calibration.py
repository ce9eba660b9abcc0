"""Calibrated relevance and the menu cut chosen on held-out groups, worked by hand."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from serving.stages.ranker_features import Calibration, fit_platt
from training.ltr.calibrate import choose_menu_cut, menu_cut_table, min_cut_groups
from training.ltr.fit import Ranker, draw_weights
from training.ltr.groups import Groups, concat_groups, unseen_tools
from training.ltr.valid import (
    choose_features,
    choose_train_set,
    more_data_pays,
    named_first_evidence,
    order_comparison,
    reciprocal_ranks,
    tail_tools,
    trained_on_label,
)


def test_platt_recovers_a_known_logistic() -> None:
    # 1,000 draws at each score with exactly sigmoid(2z + 0.5) of them positive
    z, y = [], []
    for score in (-2.0, -1.0, 0.0, 1.0, 2.0):
        k = round(1000 / (1 + math.exp(-(2 * score + 0.5))))
        z += [score] * 1000
        y += [1] * k + [0] * (1000 - k)
    cal = fit_platt(np.array(z), np.array(y))
    assert cal.a == pytest.approx(2.0, abs=0.05) and cal.b == pytest.approx(0.5, abs=0.05)
    assert cal.probability(0.0) == pytest.approx(1 / (1 + math.exp(-cal.b)))


def test_platt_without_both_labels_is_the_plain_sigmoid() -> None:
    assert fit_platt(np.array([1.0, 2.0]), np.array([1, 1])) == Calibration()
    assert Calibration().probability(0.0) == 0.5
    # far scores saturate instead of overflowing
    assert Calibration(40.0, 0.0).probability(-100.0) == 0.0
    assert Calibration(40.0, 0.0).probability(100.0) == 1.0


def test_calibration_round_trip(tmp_path) -> None:
    cal = Calibration(1.5, -2.0, 0.05)
    cal.save(tmp_path / "c.json")
    assert Calibration.load(tmp_path / "c.json") == cal


def test_menu_cut_by_hand() -> None:
    probs = [np.array([0.9, 0.05, 0.01]), np.array([0.6, 0.3])]
    labels = [np.array([0, 1, 0]), np.array([1, 0])]
    table = menu_cut_table(probs, labels, size=2, cuts=[0.0, 0.1])
    # no cut: both positives in their top 2, menus of 2 and 2
    assert table[0] == {"cut": 0.0, "recall": 1.0, "menu_length": 2.0}
    # at 0.1 the first menu keeps only 0.9 (positive lost), the second keeps both
    assert table[1] == {"cut": 0.1, "recall": 0.5, "menu_length": 1.5}
    assert choose_menu_cut(table, tolerance=0.0) == 0.0
    assert choose_menu_cut(table, tolerance=0.5) == 0.1


def test_platt_on_separable_groups_stays_finite_and_ordered() -> None:
    z = np.array([-3.0, -2.0, -1.0, 4.0, 5.0, 6.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    cal = fit_platt(z, y)
    assert math.isfinite(cal.a) and math.isfinite(cal.b) and cal.a > 0
    assert 0.0 < cal.probability(-1.0) < 0.5 < cal.probability(4.0) < 1.0


class _Column:
    """A stand-in LGBMRanker whose booster scores by one column: the ranker's input is the
    columns its feature names select."""

    @property
    def booster_(self) -> _Column:
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        return x[:, 0]


def test_order_comparison_and_the_unseen_tool_slice_by_hand() -> None:
    from serving.stages.ranker_features import FEATURE_NAMES

    col = {n: i for i, n in enumerate(FEATURE_NAMES)}
    # two groups of two; group 1's tool "a" is a train positive, group 2's tool "b" is not
    x = np.zeros((4, len(FEATURE_NAMES)))
    x[:, col["score_dense"]] = [0.9, 0.1, 0.2, 0.8]  # the model's column
    x[:, col["rank_dense"]] = [1, 0, 1, 0]  # dense order: wrong in group 1, right in 2
    valid = Groups(x, np.array([1, 0, 0, 1]), [2, 2], {}, ("a", "b"))
    train = Groups(np.zeros((0, len(FEATURE_NAMES))), np.zeros(0), [], {}, ("a",))
    unseen = unseen_tools([train], valid)
    assert unseen == [False, True]
    assert unseen_tools([train, replace(train, tools=("b",))], valid) == [False, False]
    tail = tail_tools(valid, {"a": 5, "b": 1}, 1)
    out = order_comparison({"ltr": Ranker(_Column(), ("score_dense",))}, valid,
                           slices={"unseen_tool": unseen, "tail_tool": tail})
    # ranker: the positive first in both; dense: second in group 1, first in group 2
    assert out["ltr_mrr"] == 1.0 and out["dense_mrr"] == pytest.approx((0.5 + 1) / 2)
    assert out["unseen_tool_ltr_mrr"] == 1.0 and out["unseen_tool_dense_mrr"] == 1.0
    # "b" was used once, "a" five times: the tail slice at one use is group 2 alone
    assert out["tail_tool_dense_mrr"] == 1.0 and "tail_tool_ltr_recall_at_1" in out


def test_the_logit_is_kept_only_when_it_pays_beyond_noise() -> None:
    # 100 groups; with the logit, 20 of them move from rank 2 to rank 1: +0.1 MRR, clear
    without = np.array([1.0] * 50 + [0.5] * 50)
    better = without.copy()
    better[50:70] = 1.0
    chosen, evidence = choose_features(better, without, min_gain=0.01, seed=0)
    assert chosen == "with_logit" and evidence["logit_mrr_gain"] == pytest.approx(0.1)
    assert evidence["logit_gain_p05"] > 0
    # one group of 56 moves: +0.009 MRR, under the bar and within noise
    few_without = np.array([1.0] * 28 + [0.5] * 28)
    few_with = few_without.copy()
    few_with[28] = 1.0
    assert choose_features(few_with, few_without, min_gain=0.01, seed=0)[0] == "without_logit"
    # a gain above the bar that rests on two groups out of 56 does not clear the noise
    few_with[29] = 1.0
    chosen, evidence = choose_features(few_with, few_without, min_gain=0.01, seed=0)
    assert evidence["logit_mrr_gain"] == pytest.approx(1 / 56) and chosen == "without_logit"
    # a loss never keeps it
    assert choose_features(without, better, min_gain=0.0, seed=0)[0] == "without_logit"


def test_stack_groups_are_kept_only_when_they_order_the_valid_groups_better():
    assert choose_train_set(np.array([0.5, 1.0]), np.array([1.0, 1.0])) == (
        "stacked_", {"stack_mrr_gain": 0.25}
    )
    assert choose_train_set(np.array([1.0, 0.5]), np.array([0.5, 1.0]))[0] == ""  # a tie
    assert choose_train_set(np.array([1.0]), np.array([]))[0] == ""


def test_more_groups_are_kept_only_when_they_order_the_valid_groups_better():
    assert more_data_pays(np.array([0.5, 0.5]), np.array([1.0, 0.5])) == (
        True, {"more_mrr_gain": 0.25}
    )
    assert not more_data_pays(np.array([1.0, 0.5]), np.array([0.5, 1.0]))[0]  # a tie
    assert not more_data_pays(np.array([1.0]), np.array([]))[0]


def test_the_exploration_draw_weighs_as_much_as_the_held_out_groups():
    # 2 draw groups, 3 held out: each draw group weighs 3 / 2, the draw 3 in all
    assert draw_weights(5, 2).tolist() == [1.5, 1.5, 1.0, 1.0, 1.0]
    # fewer held out than drawn, or none: nothing weighs less than 1
    assert draw_weights(3, 2).tolist() == [1.0, 1.0, 1.0]
    assert draw_weights(3, 3).tolist() == [1.0, 1.0, 1.0]


def test_a_negative_group_count_is_refused_by_name():
    from training.core.params import load_params
    from training.train_ltr import SECTION, Params

    root = Path(__file__).resolve().parents[1]
    good = load_params(root / "params.yaml", SECTION, Params)
    with pytest.raises(ValueError, match="n_more_groups -1 is below 0"):
        replace(good, n_more_groups=-1)


def test_trained_on_names_the_groups_of_a_fitted_ranker():
    assert trained_on_label("ltr_without_logit") == "train"
    assert trained_on_label("ltr_stacked_with_logit") == "train+stack"
    assert trained_on_label("ltr_more_without_logit") == "train+more"
    assert trained_on_label("ltr_stacked_more_without_logit") == "train+stack+more"


def test_concat_groups_keeps_rows_sizes_and_tools_in_order():
    a = Groups(np.ones((3, 2)), np.array([1, 0, 0]), [3], {"n_groups": 1}, ("x",))
    b = Groups(np.zeros((2, 2)), np.array([0, 1]), [2], {"n_groups": 1}, ("y",))
    both = concat_groups(a, b)
    assert both.features.shape == (5, 2) and both.features[3:].sum() == 0
    assert both.labels.tolist() == [1, 0, 0, 0, 1] and both.sizes == [3, 2]
    assert both.tools == ("x", "y") and both.stats == {"n_groups": 2}


def test_named_tools_lead_the_validation_order_as_they_lead_the_menu() -> None:
    from serving.stages.ranker_features import FEATURE_NAMES

    col = {n: i for i, n in enumerate(FEATURE_NAMES)}
    x = np.zeros((5, len(FEATURE_NAMES)))
    # group 1: the positive is second by score but on the product the step names;
    # group 2: the positive is first, a tool named exactly (score lowest) goes before it
    x[:, col["score_dense"]] = [0.2, 0.9, 0.9, 0.5, 0.1]
    labels = np.array([1, 0, 1, 0, 0])
    valid = Groups(x, labels, [2, 3], {}, ("a", "b"), np.array([1.0, 0, 0, 0, 2]))
    ranker = Ranker(_Column(), ("score_dense",))
    assert reciprocal_ranks(ranker, valid).tolist() == [1.0, 0.5]
    assert reciprocal_ranks(ranker, replace(valid, named=None)).tolist() == [0.5, 1.0]
    # the product rule alone: group 1 gains 0.5, group 2 keeps the exact-name rule's 0.5
    assert named_first_evidence(ranker, valid) == {
        "named_product_mrr_gain": 0.25, "n_named_product_groups": 1.0}
    assert concat_groups(valid, valid).named.tolist() == [1, 0, 0, 0, 2] * 2


def test_a_cut_needs_enough_groups_for_one_lost_group_to_fit_the_tolerance():
    assert min_cut_groups(0.005, 50) == 200  # 56 groups: one lost is 1.8% > 0.5%
    assert min_cut_groups(0.05, 50) == 50  # the floor holds
    assert min_cut_groups(0.0, 50) == 50


def test_the_learned_ranker_ships_only_where_it_beats_the_dense_order():
    from training.ltr.valid import choose_order

    assert choose_order(np.array([1.0, 0.5]), np.array([0.5, 0.5])) == (
        "ltr", {"ltr_over_dense_mrr_gain": 0.25}
    )
    assert choose_order(np.array([1.0, 0.5]), np.array([0.5, 1.0]))[0] == "dense"  # a tie
    assert choose_order(np.array([0.5]), np.array([1.0])) == (
        "dense", {"ltr_over_dense_mrr_gain": -0.5}
    )
    assert choose_order(np.array([]), np.array([]))[0] == "dense"


def test_the_dense_order_ranks_by_cosine_then_the_missed_by_fused_score() -> None:
    from serving.stages.ranker_features import FEATURE_NAMES, MISSING_SCORE
    from training.ltr.fit import DenseOrder

    col = {n: i for i, n in enumerate(FEATURE_NAMES)}
    x = np.zeros((4, len(FEATURE_NAMES)))
    # two tools the retriever returned, two it missed (the fusion found them)
    x[:, col["score_dense"]] = [0.3, MISSING_SCORE, 0.7, MISSING_SCORE]
    x[:, col["fused"]] = [0.01, 0.03, 0.02, 0.01]
    assert DenseOrder().predict(x).tolist() == pytest.approx([0.3, -1.97, 0.7, -1.99])
    valid = Groups(x, np.array([0, 1, 0, 0]), [4], {}, ("t",))
    assert reciprocal_ranks(DenseOrder(), valid).tolist() == [1 / 3]

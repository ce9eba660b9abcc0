"""Calibrated relevance: Platt scaling of the ranker and the menu cut, both chosen on
the valid groups.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from serving.stages.ranker_features import Calibration, fit_platt
from training.ltr.fit import Orders
from training.ltr.groups import Groups, split_scores
from training.ltr.params import Params


def menu_cut_table(
    probabilities: Sequence[np.ndarray], labels: Sequence[np.ndarray], *, size: int,
    cuts: Sequence[float],
) -> list[dict[str, float]]:
    """Per cut: the share of groups whose positive makes the menu (the `size` most probable
    with probability >= cut) and the mean menu length."""
    table = []
    for cut in cuts:
        found, length = 0, 0
        for p, y in zip(probabilities, labels, strict=True):
            order = np.argsort(-p, kind="stable")[:size]
            menu = [i for i in order if p[i] >= cut]
            found += int(any(y[i] for i in menu))
            length += len(menu)
        n = max(1, len(labels))
        table.append({"cut": cut, "recall": found / n, "menu_length": length / n})
    return table


def choose_menu_cut(table: Sequence[Mapping[str, float]], tolerance: float) -> float:
    """The highest cut whose recall is within `tolerance` of the lowest cut's."""
    base = min(table, key=lambda r: r["cut"])["recall"]
    return max(r["cut"] for r in table if r["recall"] >= base - tolerance - 1e-12)


def min_cut_groups(tolerance: float, floor: int) -> int:
    """Valid groups needed to choose a menu cut: at least `floor`, and enough that one lost
    group is within `tolerance` of recall (with fewer, a table that lost none is no
    evidence that a cut costs at most `tolerance`)."""
    return floor if tolerance <= 0 else max(floor, math.ceil(1.0 / tolerance - 1e-9))


def calibrate(ranker: Orders, valid: Groups, params: Params, *, size: int) -> tuple[
    Calibration, list[dict[str, float]]
]:
    """Platt scaling of the ranker's (or the dense order's) score on the valid groups and
    the menu cut chosen there."""
    z = ranker.predict(valid.features) if valid.sizes else np.zeros(0)
    platt = fit_platt(z, valid.labels)
    probs = [np.array([platt.probability(v) for v in g]) for g in split_scores(z, valid.sizes)]
    table = menu_cut_table(probs, split_scores(valid.labels, valid.sizes), size=size,
                           cuts=params.menu_cuts)
    enough = len(valid.sizes) >= min_cut_groups(params.menu_recall_tolerance,
                                                params.menu_cut_min_groups)
    cut = choose_menu_cut(table, params.menu_recall_tolerance) if table and enough else 0.0
    return Calibration(platt.a, platt.b, cut), table


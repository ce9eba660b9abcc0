"""Ridge logistic regression on standardised features, by damped Newton steps.

Two models of the runtime are this fit: the ranker's calibration (one feature, its raw
score: `ranker_features.fit_platt`) and the no-tool model over a step's signals
(`serving.stages.abstain`). Both are fit on held-out data a good model may separate completely,
so the ridge keeps the slopes finite and the probabilities usable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class LogisticFit:
    """sigmoid(x @ weights + bias) on raw (unstandardised) features."""

    weights: np.ndarray
    bias: float


def fit_logistic(
    x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, steps: int = 100
) -> LogisticFit | None:
    """Labels `y` (0/1) on the columns of `x`, with a ridge of `l2` on every standardised
    slope (none on the intercept). None when the labels are all one class."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if y.size == 0 or y.min() == y.max():
        return None
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-9] = 1.0  # a column that never moves (or moves by rounding only)
    design = np.concatenate([(x - mu) / sd, np.ones((len(x), 1))], axis=1)
    ridge = np.diag([l2] * x.shape[1] + [1e-6])

    def loss(w: np.ndarray) -> float:
        t = design @ w
        return float(np.sum(np.logaddexp(0.0, t) - y * t) + 0.5 * w @ ridge @ w)

    w = np.zeros(design.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ w, -500.0, 500.0)))
        grad = design.T @ (p - y) + ridge @ w
        hess = (design * (p * (1 - p))[:, None]).T @ design + ridge
        step = np.linalg.solve(hess, grad)
        t, before = 1.0, loss(w)
        while loss(w - t * step) > before and t > 1e-6:
            t /= 2
        w = w - t * step
        if np.abs(t * step).max() < 1e-10:
            break
    # back to raw features: w . (x - mu) / sd + w0 = (w / sd) . x + (w0 - (w / sd) . mu)
    slopes = w[:-1] / sd
    return LogisticFit(slopes, float(w[-1] - slopes @ mu))


def sigmoid(x: float) -> float:
    """A logistic that cannot overflow for any input."""
    return 1.0 / (1.0 + np.exp(-x)) if x >= 0 else float(np.exp(x) / (1.0 + np.exp(x)))

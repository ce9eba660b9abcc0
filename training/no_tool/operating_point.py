"""Where a no-tool model's threshold goes: the highest at which at most a given share of
requests with gold abstain, and the curve of false abstention against abstain rate it is
read from. Shared by the demo's `tune_menus` stage and the stock model's fit
(`training.no_tool.fit`)."""

from __future__ import annotations

import numpy as np


def choose_threshold(served: np.ndarray, max_false: float) -> float:
    """The highest threshold at which at most `max_false` of the requests with gold
    abstain (`served`: their best step probabilities; abstain = below the threshold)."""
    if served.size == 0:
        return 0.0
    ordered = np.sort(served)
    return float(ordered[int(np.floor(max_false * served.size))])


def threshold_curve(served: np.ndarray, none: np.ndarray) -> list[dict[str, float]]:
    """False abstention (with gold) and abstain rate (no tool) at thresholds 0..1."""
    return [
        {"threshold": float(t),
         "false_abstain": float(np.mean(served < t)) if served.size else 0.0,
         "abstain_rate": float(np.mean(none < t)) if none.size else 0.0}
        for t in np.linspace(0.0, 1.0, 41)
    ]

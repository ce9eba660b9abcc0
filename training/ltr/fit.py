"""The LightGBM lambdarank fit: the feature sets tried, the draw's weight, the ranker."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from serving.stages.ranker_features import CROSS_ENCODER_FEATURES, FEATURE_NAMES, dense_score
from training.ltr.groups import Groups
from training.ltr.params import Params

WITH_LOGIT = tuple(FEATURE_NAMES)
WITHOUT_LOGIT = tuple(n for n in FEATURE_NAMES if n not in CROSS_ENCODER_FEATURES)


@dataclass(frozen=True)
class Ranker:
    """A fitted LightGBM ranker and the `FEATURE_NAMES` it reads, in that order."""

    model: Any  # lightgbm.LGBMRanker
    names: tuple[str, ...]

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Scores for rows of every feature (`Groups.features`)."""
        columns = [FEATURE_NAMES.index(n) for n in self.names]
        return np.asarray(self.model.booster_.predict(features[:, columns]), dtype=np.float64)


class Orders(Protocol):
    """What scores the rows of `Groups.features` (higher first): a `Ranker` or `DenseOrder`."""

    @property
    def names(self) -> tuple[str, ...]: ...

    def predict(self, features: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class DenseOrder:
    """The fine-tuned retriever's order as a ranker (`dense_score` of each row): calibrated
    like a ranker, it is what a bundle ships where no learned ranker beats it
    (`serving.stages.rerank.DenseOrderReranker`, `ShippedOrder`)."""

    names: tuple[str, ...] = ("score_dense", "fused")

    def predict(self, features: np.ndarray) -> np.ndarray:
        cosine, fused = (features[:, FEATURE_NAMES.index(n)] for n in self.names)
        return np.fromiter(map(dense_score, cosine, fused), dtype=np.float64, count=len(cosine))


def draw_weights(n_groups: int, n_draw: int) -> np.ndarray:
    """Per group: weight 1, but the exploration draw (the first `n_draw` groups) weighs as
    much as the held-out groups after it together. Held-out groups follow the traffic, so
    thousands of them would drown the draw's new tools and cold-start pairs (on the demo the
    eval's new-tool slice fell from 0.87 to 0.78 end-to-end without this)."""
    held_out = max(0, n_groups - n_draw)
    weight = max(1.0, held_out / n_draw) if n_draw else 1.0
    return np.array([weight] * min(n_draw, n_groups) + [1.0] * held_out)


def fit_ranker(
    train: Groups, params: Params, names: Sequence[str] = WITH_LOGIT, *, n_draw: int = 0
) -> Ranker:
    """LightGBM lambdarank on `train`, whose first `n_draw` groups are the exploration draw
    (`draw_weights`; 0 = every group weighs 1)."""
    import lightgbm

    model = lightgbm.LGBMRanker(
        objective="lambdarank",
        n_estimators=params.n_estimators,
        learning_rate=params.learning_rate,
        num_leaves=params.num_leaves,
        min_child_samples=params.min_child_samples,
        random_state=params.seed,
        n_jobs=2,
        verbose=-1,
    )
    columns = [FEATURE_NAMES.index(n) for n in names]
    weights = np.repeat(draw_weights(len(train.sizes), n_draw or len(train.sizes)), train.sizes)
    model.fit(train.features[:, columns], train.labels, group=train.sizes,
              sample_weight=weights, feature_name=list(names))
    return Ranker(model, tuple(names))


def candidate_feature_sets(choice: str) -> dict[str, tuple[str, ...]]:
    """The feature sets `train_ltr` fits for `cross_encoder_feature` = choice."""
    sets = {"with_logit": WITH_LOGIT, "without_logit": WITHOUT_LOGIT}
    keep = {"always": ("with_logit",), "never": ("without_logit",)}.get(choice, tuple(sets))
    return {name: sets[name] for name in keep}


"""The `train_ltr` section of params.yaml."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `train_ltr` section of params.yaml."""

    n_groups: int  # train groups (one sampled positive each)
    n_valid_groups: int
    synthetic_servers: int  # other servers connected when replaying a cold-start pair
    n_estimators: int
    learning_rate: float
    num_leaves: int
    min_child_samples: int
    menu_cuts: tuple[float, ...]  # calibrated probabilities tried as the menu cut
    menu_recall_tolerance: float  # menu recall the chosen cut may lose on the valid groups
    menu_cut_min_groups: int  # fewer valid groups: no cut (too little evidence to choose one)
    seed: int
    # the cross-encoder's logit as a feature: auto (kept only when it adds
    # cross_encoder_min_gain MRR on the valid groups, beyond noise) | always | never
    cross_encoder_feature: str = "auto"
    cross_encoder_min_gain: float = 0.01
    # traced valid-split subgoals after the validation ones, offered to the ranker as more
    # train groups (kept when valid MRR says so: `choose_train_set`); 0 = train split only
    n_stack_groups: int = 0
    # the traced valid-split subgoals after those, replayed without the cross-encoder and
    # offered to a ranker without its logit (kept when valid MRR says so); 0 = none
    n_more_groups: int = 0
    # valid groups whose tool the traces used at most this often: the `tail_tool_*` slice
    tail_tool_uses: int = 30
    # the cross-encoder's budget for a ranker with its logit (`training.ltr.budget`): every
    # (depth, skip_gap) pair is tried, the cheapest within the tolerance of the best kept
    logit_depths: tuple[int, ...] = (0,)  # candidates scored, first in the dense order (0: all)
    logit_skip_gaps: tuple[float, ...] = (0.0,)  # the dense lead that skips it (0: never)
    logit_budget_tolerance: float = 0.0  # valid MRR a cheaper budget may lose
    # ship the calibrated dense order instead where the kept ranker does not beat it on the
    # valid groups (`choose_order`); False: always the learned ranker
    dense_fallback: bool = True

    def __post_init__(self) -> None:
        for name in ("n_groups", "n_valid_groups", "n_stack_groups", "n_more_groups"):
            if getattr(self, name) < 0:
                raise ValueError(f"train_ltr: {name} {getattr(self, name)} is below 0")
        if any(d < 0 for d in self.logit_depths) or any(not g >= 0 for g in self.logit_skip_gaps):
            raise ValueError("train_ltr: logit_depths and logit_skip_gaps must be >= 0")
        if not self.logit_depths or not self.logit_skip_gaps:
            raise ValueError("train_ltr: logit_depths and logit_skip_gaps need a value each")
        if self.cross_encoder_feature not in FEATURE_CHOICES:
            raise ValueError(
                f"train_ltr: cross_encoder_feature {self.cross_encoder_feature!r} is not "
                f"{'|'.join(FEATURE_CHOICES)}"
            )


FEATURE_CHOICES = ("auto", "always", "never")

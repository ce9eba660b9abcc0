"""What the valid groups decide: each order's MRR and recall@k, and the choices
between rankers (the cross-encoder's logit, the stack groups, the more groups).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from serving.stages.ranker_features import FEATURE_NAMES
from training.core.rank_metrics import Group, gold_ranks, order_metrics
from training.ltr.fit import Orders, Ranker
from training.ltr.groups import Groups, split_scores


def menu_scores(flat: np.ndarray, groups: Groups) -> np.ndarray:
    """`flat` scores reordered as the menu orders them: named tools first (`Groups.named`),
    each group in the scores' order."""
    flat = np.asarray(flat, dtype=np.float64)
    if groups.named is None or not flat.size:
        return flat
    return flat + groups.named * (float(np.ptp(flat)) + 1.0)


def order_comparison(
    rankers: Mapping[str, Ranker],
    valid: Groups,
    *,
    slices: Mapping[str, Sequence[bool]] | None = None,
    logits: np.ndarray | None = None,
) -> dict[str, float]:
    """MRR and recall@k on the valid groups: `{name}_*` per ranker, `cross_encoder_*`
    (its order: `logits`, every candidate's, when the valid features hold a budget's),
    `fused_*` and `dense_*` (the fine-tuned retriever's own order, the fallback a ranker
    must beat). Per slice (per group: whether it belongs), the same again as
    `{slice}_{name}_*` on its groups, e.g. `unseen_tool` (its tool is no train group's
    positive: held out by tool, not only by request) or `tail_tool` (`tail_tools`)."""
    labels = split_scores(valid.labels, valid.sizes)
    groups = [Group("", tuple(map(str, range(len(y)))), tuple(map(int, y)), ()) for y in labels]
    columns = {name: i for i, name in enumerate(FEATURE_NAMES)}
    orders = {
        name: menu_scores(flat, valid)
        for name, flat in {
            **{name: ranker.predict(valid.features) for name, ranker in rankers.items()},
            "cross_encoder": (
                valid.features[:, columns["cross_encoder"]] if logits is None else logits
            ),
            "fused": valid.features[:, columns["fused"]],
            "dense": -valid.features[:, columns["rank_dense"]],
        }.items()
    }
    members = {
        label: [i for i, m in enumerate(mask) if m] for label, mask in (slices or {}).items()
    }
    out: dict[str, float] = {}
    for name, flat in orders.items():
        scores = split_scores(flat, valid.sizes)
        out.update({f"{name}_{k}": v for k, v in order_metrics(scores, groups).items()})
        for label, keep in members.items():
            if keep:
                held = order_metrics([scores[i] for i in keep], [groups[i] for i in keep])
                out.update({f"{label}_{name}_{k}": v for k, v in held.items()})
    return out


def tail_tools(valid: Groups, uses: Mapping[str, int], max_uses: int) -> list[bool]:
    """Per valid group: whether its tool was used at most `max_uses` times in the traces.
    The valid groups are drawn as traffic is, so most ask for head tools, whose history
    (`uses_tool`, `success_tool`) nearly names them; an eval or a new team asks for tail
    tools too, and this slice says what the ranker is worth there."""
    return [uses.get(t, 0) <= max_uses for t in valid.tools]


def named_first_evidence(ranker: Ranker, valid: Groups) -> dict[str, float]:
    """What putting the tools of a product the step names first does to `ranker`'s order
    on the valid groups (the menu does it: `serving.stages.rerank.named_first`): its MRR gain
    and the number of groups where a step names a candidate's product."""
    if valid.named is None or not valid.sizes:
        return {}
    exact_only = replace(valid, named=np.where(valid.named == 2, 2.0, 0.0))
    gain = reciprocal_ranks(ranker, valid).mean() - reciprocal_ranks(ranker, exact_only).mean()
    named = split_scores(valid.named == 1, valid.sizes)
    return {
        "named_product_mrr_gain": float(gain),
        "n_named_product_groups": float(sum(bool(n.any()) for n in named)),
    }


def reciprocal_ranks(ranker: Orders, groups: Groups) -> np.ndarray:
    """Per group: 1 / the rank of its first positive in the ranker's order (ties count
    against it, as in `order_metrics`)."""
    scores = split_scores(menu_scores(ranker.predict(groups.features), groups), groups.sizes)
    labels = split_scores(groups.labels, groups.sizes)
    return np.array([
        1.0 / float(gold_ranks(s, y == 1).min()) for s, y in zip(scores, labels, strict=True)
    ])


def choose_features(
    with_logit: np.ndarray, without_logit: np.ndarray, *, min_gain: float, seed: int,
    n_resamples: int = 2000,
) -> tuple[str, dict[str, float]]:
    """`with_logit` (the cross-encoder's logit as a feature) only when it pays beyond noise:
    its mean reciprocal-rank gain over the ranker without it, on the same valid groups, is
    at least `min_gain` and the 5th percentile of a paired bootstrap of that gain is above
    0. The logit costs a cross-encoder pass per candidate at run time, and a few hundred
    groups cannot tell a one-group difference from luck."""
    diff = np.asarray(with_logit, dtype=np.float64) - np.asarray(without_logit, dtype=np.float64)
    if diff.size == 0:
        return "without_logit", {"logit_mrr_gain": 0.0, "logit_gain_p05": 0.0}
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, diff.size, size=(n_resamples, diff.size))
    low = float(np.quantile(diff[draws].mean(axis=1), 0.05))
    gain = float(diff.mean())
    chosen = "with_logit" if gain >= min_gain and low > 0 else "without_logit"
    return chosen, {"logit_mrr_gain": gain, "logit_gain_p05": low}


def choose_order(learned: np.ndarray, dense: np.ndarray) -> tuple[str, dict[str, float]]:
    """`ltr` when the kept ranker's mean reciprocal rank on the valid groups beats the dense
    order's on the same groups (`learned`, `dense`), else `dense`: the learned ranker is
    extra machinery (history, features, a model), worth shipping only where it orders
    better than the retriever it reranks. A tie goes to the dense order."""
    gain = float(np.mean(np.asarray(learned) - np.asarray(dense))) if len(learned) else 0.0
    return ("ltr" if gain > 0 else "dense"), {"ltr_over_dense_mrr_gain": gain}


STACKED = "stacked_"  # the name prefix of a ranker fit on the train and the stack groups


def choose_train_set(
    train_only: np.ndarray, stacked: np.ndarray
) -> tuple[str, dict[str, float]]:
    """`STACKED` when the ranker fit on the train and the stack groups orders the valid
    groups better (mean reciprocal rank) than the one fit on the train groups alone.

    Why stack groups at all: the train split's subgoals are the fine-tuned retriever's own
    training queries, so in train groups its cosine is in-sample (the dense order puts the
    positive first in ~85% of them, ~69% in held-out ones) and a ranker fit there learns how
    far to trust an overconfident retriever. Valid-split groups show its out-of-sample
    scores, as the runtime will; the train groups keep the exploration draw's new tools."""
    gain = float(np.mean(stacked) - np.mean(train_only)) if len(stacked) else 0.0
    return (STACKED if gain > 0 else ""), {"stack_mrr_gain": gain}


MORE = "more_"  # the name prefix of a ranker also fit on the `n_more_groups` groups


def more_data_pays(before: np.ndarray, after: np.ndarray) -> tuple[bool, dict[str, float]]:
    """Whether the ranker refit with the more groups (`after`, reciprocal ranks on the valid
    groups) orders the valid groups better than the one without them (`before`)."""
    gain = float(np.mean(after) - np.mean(before)) if len(after) else 0.0
    return gain > 0, {"more_mrr_gain": gain}


def trained_on_label(key: str) -> str:
    """`train`, `train+stack`, `train+more` or `train+stack+more` for a fitted ranker's key."""
    return "+".join(
        ["train", *(part for part, prefix in (("stack", STACKED), ("more", MORE))
                    if prefix in key)]
    )


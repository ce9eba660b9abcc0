"""DVC stage `train_ltr`: LightGBM lambdarank over relevance and history features.

    python -m training.train_ltr PARAMS CATALOG TRACES TRAIN_DIR OUT_DIR METRICS
        --retriever DIR --reranker DIR

The groups are what the ranker will see at run time: a scratch bundle with the
fine-tuned retriever and cross-encoder replays each sampled trace subgoal in its
session (retrieval, fusion, hard filters; the first `rerank_depth` candidates, each
scored by the cross-encoder), and `serving.stages.ranker_features.feature_matrix` turns every
candidate into the features the runtime computes. Positives are drawn by the exploration sampler
from the train split of `TRAIN_DIR/pairs.parquet` (cold-start pairs replay in a
synthetic session, as in `features.candidates`); labels: 1 for a gold tool, a non-gold
tool equivalent to a gold one is left out, the rest 0. A train group whose gold the
runtime did not retrieve cannot teach an order and is counted, not used.

Why the train split, although the fine-tuned retriever has seen those queries: fit on
held-out (valid-split) traces instead, the ranker did worse on the demo eval requests
(end-to-end 0.739 vs 0.767, new-tool slice 0.571 vs 0.805): the valid split holds only
traced positives, so the ranker never met a new tool and learned that history decides.
The train draw carries the exploration sampler's new-tool quota and cold-start pairs.

History (`serving.stages.ranker_features.History`): every trace event of TRACES, keyed by the
capability keys of its subgoal; a train or valid group sees it without every event of the
group's own request (`History.without`), or the model would read the label off its own
event or off a sibling gold tool's (and the validation numbers would flatter it).

Stack groups (`n_stack_groups`): traced valid-split subgoals after the validation ones,
replayed the same way. A ranker is fit on the train groups and one on the train and stack
groups; the second is kept when it orders the valid groups better (`choose_train_set`):
the retriever was fine-tuned on the train split's queries, so only held-out groups show
the ranker the retriever's scores as the runtime sees them.

More groups (`n_more_groups`): the traced valid-split subgoals after the stack ones, for a
ranker that does not read the cross-encoder's logit. Scoring a candidate with the
cross-encoder is ~99% of a replay's cost (3 groups a second on two cores against 400
without), and such a ranker never runs it at run time either, so these groups replay
through the fused order, which gives the same features but the logit
(`serving.stages.ranker_features.list_features` does not depend on the list's order). The ranker
refit with them is kept when it orders the valid groups better (`more_data_pays`). On the
demo the ranker was short of held-out groups: with ~3,500 more, valid MRR rose 0.91 ->
0.93 (docs/experiments.md).

Two rankers are fit (`cross_encoder_feature: auto`): with and without the cross-encoder's
logit. The logit is kept only when it pays beyond noise on the valid groups
(`choose_features`): a ranker without it never runs the cross-encoder at run time, which is
~90% of a subgoal's cost on a CPU. On the demo and StableToolBench valid groups it did not
pay (docs/experiments.md).

Validation on the first `n_valid_groups` valid-split subgoals (all their candidates):
MRR and recall@{1,3,8} of each LightGBM order against the cross-encoder's, the fused and
the dense order on the same groups, also on the groups whose tool no train group has
(`unseen_tool_*`: held out by tool). Writes OUT_DIR/{model.txt, features.json, history.json}
(`export --ltr OUT_DIR` packs them), METRICS with feature importances (gain).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from features.candidates import (
    gold_and_equivalents,
    sample_group_rows,
    synthetic_context,
    traced_valid_queries,
)
from features.dataset import PAIRS_SCHEMA, scan_parquet
from features.history import Event, history_from_traces
from features.mining import SYNTHETIC_PREFIX, tool_frame
from features.sampling import SamplingParams, rng_for
from serving.model.io import load_catalog, load_traces
from serving.model.schema import ToolCard, Trace
from serving.stages.ranker_features import (
    CALIBRATION_FILE,
    FEATURE_NAMES,
    HISTORY_FILE,
    Calibration,
    History,
    feature_matrix,
    fit_platt,
)
from serving.stages.rerank import named_group, named_products
from training.core.metrics_io import write_metrics
from training.core.params import load_params
from training.core.rank_metrics import Group, gold_ranks, order_metrics

if TYPE_CHECKING:
    from serving.selector import Selector

log = logging.getLogger(__name__)
SECTION = "train_ltr"


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

    def __post_init__(self) -> None:
        for name in ("n_groups", "n_valid_groups", "n_stack_groups", "n_more_groups"):
            if getattr(self, name) < 0:
                raise ValueError(f"train_ltr: {name} {getattr(self, name)} is below 0")
        if self.cross_encoder_feature not in FEATURE_CHOICES:
            raise ValueError(
                f"train_ltr: cross_encoder_feature {self.cross_encoder_feature!r} is not "
                f"{'|'.join(FEATURE_CHOICES)}"
            )


FEATURE_CHOICES = ("auto", "always", "never")
WITH_LOGIT = tuple(FEATURE_NAMES)
WITHOUT_LOGIT = tuple(n for n in FEATURE_NAMES if n != "cross_encoder")


@dataclass(frozen=True)
class Groups:
    features: np.ndarray  # [rows, len(FEATURE_NAMES)]
    labels: np.ndarray  # [rows]
    sizes: list[int]  # rows per group, in order
    stats: dict[str, int]
    tools: tuple[str, ...] = ()  # each group's positive (the sampled pair's tool)
    # per row: 2 the step names the tool, 1 it names the tool's product, 0 neither: the
    # menu puts them first in that order (`serving.stages.rerank.named_first`); None = all 0
    named: np.ndarray | None = None


@dataclass(frozen=True)
class Ranker:
    """A fitted LightGBM ranker and the `FEATURE_NAMES` it reads, in that order."""

    model: Any  # lightgbm.LGBMRanker
    names: tuple[str, ...]

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Scores for rows of every feature (`Groups.features`)."""
        columns = [FEATURE_NAMES.index(n) for n in self.names]
        return np.asarray(self.model.booster_.predict(features[:, columns]), dtype=np.float64)


def replay_groups(
    rows: Sequence[Mapping[str, Any]],
    *,
    split: str,
    selector: Any,
    annotate: Any,
    history: History,
    request_events: Mapping[str, Sequence[Event]],
    contexts: Mapping[str, Mapping[str, Any]],
    gold: Mapping[str, set[str]],
    equivalent: Mapping[str, set[str]],
    synthetic: Any,
    reranker: Any = None,
) -> Groups:
    """Each row (a positive of pairs.parquet) replayed through `selector` (module doc), its
    candidates scored by `reranker` (default: the selector's)."""
    from tqdm import tqdm

    from serving.model.selection import SessionContext

    depth = selector.params.rerank_depth
    reranker = reranker or selector.reranker
    cards = selector.cards
    distinctive = selector.named_connections if selector.params.named_connections_first else ()
    feats, labels, sizes, tools, named = [], [], [], [], []
    stats = {"n_without_gold": 0}
    subgoals = [annotate(row["query"]) for row in rows]
    vectors = selector.encoder.encode([s.text for s in subgoals])  # one batch: ~15x faster
    for row, subgoal, vector in tqdm(
        zip(rows, subgoals, vectors, strict=True), total=len(rows), desc=f"ltr groups ({split})"
    ):
        request = row["request_id"]
        context = synthetic(row) if request.startswith(SYNTHETIC_PREFIX) else contexts.get(
            request, {}
        )
        found = selector.candidates(subgoal, SessionContext.from_dict(context), vector=vector)
        scored = reranker.rerank(subgoal, list(found[:depth]))
        qid = row["query_id"]
        # equivalents of the gold leave the group (neither right nor wrong), but only after
        # the features: list features must see the list the runtime sees, not one filtered
        # by the label
        rows_kept = [
            i for i, c in enumerate(scored)
            if c.tool_id in gold.get(qid, ()) or c.tool_id not in equivalent.get(qid, ())
        ]
        kept = [scored[i] for i in rows_kept]
        y = [int(c.tool_id in gold.get(qid, ())) for c in kept]
        if not any(y):
            stats["n_without_gold"] += 1
            continue
        # the group's request leaves the history: the table holds every trace, valid ones
        # included, and a score must not read its label off its own event or its siblings'
        # (a request's other gold tools share its capability keys); at eval time the request
        # is new. Synthetic rows have no events to leave out.
        own = history.without(request_events.get(request, ()))
        matrix = feature_matrix(subgoal, scored, cards, own)
        feats.append(matrix[rows_kept])
        products = named_products(subgoal, distinctive)
        named.extend(named_group(c, cards, products) for c in kept)
        labels.extend(y)
        sizes.append(len(kept))
        tools.append(row["tool_id"])
    matrix = np.vstack(feats) if feats else np.zeros((0, len(FEATURE_NAMES)))
    stats["n_groups"] = len(sizes)
    return Groups(
        matrix, np.asarray(labels, dtype=np.int32), sizes, stats, tuple(tools),
        np.asarray(named, dtype=np.float64),
    )


def menu_scores(flat: np.ndarray, groups: Groups) -> np.ndarray:
    """`flat` scores reordered as the menu orders them: named tools first (`Groups.named`),
    each group in the scores' order."""
    flat = np.asarray(flat, dtype=np.float64)
    if groups.named is None or not flat.size:
        return flat
    return flat + groups.named * (float(np.ptp(flat)) + 1.0)


def split_scores(flat: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    return list(np.split(np.asarray(flat, dtype=np.float64), np.cumsum(sizes)[:-1]))


def order_comparison(
    rankers: Mapping[str, Ranker], valid: Groups, *, unseen: Sequence[bool] = ()
) -> dict[str, float]:
    """MRR and recall@k on the valid groups: `{name}_*` per ranker, `cross_encoder_*`,
    `fused_*` and `dense_*` (the fine-tuned retriever's own order, the fallback a ranker
    must beat). With `unseen` (per group: its tool is no train group's positive), the
    same again as `unseen_tool_{name}_*` on those groups: held out by tool, not only by
    request."""
    labels = split_scores(valid.labels, valid.sizes)
    groups = [Group("", tuple(map(str, range(len(y)))), tuple(map(int, y)), ()) for y in labels]
    columns = {name: i for i, name in enumerate(FEATURE_NAMES)}
    orders = {
        name: menu_scores(flat, valid)
        for name, flat in {
            **{name: ranker.predict(valid.features) for name, ranker in rankers.items()},
            "cross_encoder": valid.features[:, columns["cross_encoder"]],
            "fused": valid.features[:, columns["fused"]],
            "dense": -valid.features[:, columns["rank_dense"]],
        }.items()
    }
    keep = [i for i, u in enumerate(unseen) if u]
    out: dict[str, float] = {}
    for name, flat in orders.items():
        scores = split_scores(flat, valid.sizes)
        out.update({f"{name}_{k}": v for k, v in order_metrics(scores, groups).items()})
        if keep:
            held = order_metrics([scores[i] for i in keep], [groups[i] for i in keep])
            out.update({f"unseen_tool_{name}_{k}": v for k, v in held.items()})
    return out


def unseen_tools(train: Sequence[Groups], valid: Groups) -> list[bool]:
    """Per valid group: whether its tool is the positive of no group of `train`."""
    seen = {t for groups in train for t in groups.tools}
    return [t not in seen for t in valid.tools]


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


def reciprocal_ranks(ranker: Ranker, groups: Groups) -> np.ndarray:
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


STACKED = "stacked_"  # the name prefix of a ranker fit on the train and the stack groups


def concat_groups(first: Groups, second: Groups) -> Groups:
    return Groups(
        np.vstack([first.features, second.features]),
        np.concatenate([first.labels, second.labels]),
        [*first.sizes, *second.sizes],
        {k: first.stats.get(k, 0) + second.stats.get(k, 0) for k in {*first.stats, *second.stats}},
        first.tools + second.tools,
        None if first.named is None or second.named is None
        else np.concatenate([first.named, second.named]),
    )


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


def calibrate(ranker: Ranker, valid: Groups, params: Params, *, size: int) -> tuple[
    Calibration, list[dict[str, float]]
]:
    """Platt scaling of the ranker on the valid groups and the menu cut chosen there."""
    z = ranker.predict(valid.features) if valid.sizes else np.zeros(0)
    platt = fit_platt(z, valid.labels)
    probs = [np.array([platt.probability(v) for v in g]) for g in split_scores(z, valid.sizes)]
    table = menu_cut_table(probs, split_scores(valid.labels, valid.sizes), size=size,
                           cuts=params.menu_cuts)
    enough = len(valid.sizes) >= params.menu_cut_min_groups
    cut = choose_menu_cut(table, params.menu_recall_tolerance) if table and enough else 0.0
    return Calibration(platt.a, platt.b, cut), table


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


@dataclass(frozen=True)
class LtrResult:
    ranker: Ranker  # the chosen one
    history: History  # every trace event: the runtime's history table
    groups: dict[str, Groups]  # "train" and "valid"
    comparison: dict[str, float]  # `order_comparison` on the valid groups
    chosen: str  # with_logit | without_logit (`choose_features`)
    fit_seconds: float
    calibration: Calibration  # Platt scaling and the menu cut, from the valid groups
    menu_cuts: list[dict[str, float]]  # `menu_cut_table` on the valid groups
    trained_on: str = "train"  # its groups: `trained_on_label`
    n_unseen_tool_groups: int = 0  # valid groups whose tool no group of any ranker has


def train_ltr(
    cards: Sequence[ToolCard],
    traces: Sequence[Trace],
    pairs: pl.DataFrame,
    selector: Selector,
    *,
    params: Params,
    sampling: SamplingParams,
) -> LtrResult:
    """The stage: the history of every trace, groups sampled from `pairs` (pairs.parquet)
    and replayed through `selector` (a scratch bundle of the fine-tuned models), the ranker
    fit on the train groups and compared with the cross-encoder and the fused order on the
    valid ones. No file I/O."""
    from serving.decompose import DecomposerVocabulary, RuleDecomposer

    annotate = RuleDecomposer(DecomposerVocabulary.from_cards(cards)).annotate
    history, request_events = history_from_traces(traces, annotate)
    tools = tool_frame(cards, {}, new_tool_days=0)
    gold, equivalent = gold_and_equivalents(pairs, tools)
    contexts = {t.request_id: t.context for t in traces}
    servers = sorted({c.server for c in cards})
    server_of = {c.tool_id: c.server for c in cards}
    rng = rng_for(params.seed, "synthetic_context")

    def synthetic(row: Mapping[str, Any]) -> dict[str, Any]:
        return synthetic_context(row["tool_id"], servers, server_of, params.synthetic_servers, rng)

    rows = {
        split: frame.to_dicts()
        for split, frame in sample_group_rows(
            pairs, sampling, n_train=params.n_groups, n_valid=params.n_valid_groups,
            seed=params.seed, stream="ltr",
        ).items()
    }
    traced = traced_valid_queries(pairs)
    rows["stack"] = traced.slice(params.n_valid_groups, params.n_stack_groups).to_dicts()
    rows["more"] = traced.slice(
        params.n_valid_groups + params.n_stack_groups, params.n_more_groups
    ).to_dicts()

    def replay(split: str, **how: Any) -> Groups:
        return replay_groups(
            rows[split], split=split, selector=selector, annotate=annotate,
            history=history, request_events=request_events, contexts=contexts, gold=gold,
            equivalent=equivalent, synthetic=synthetic, **how,
        )

    built = {split: replay(split) for split in ("train", "valid", "stack") if rows[split]}
    train_sets = {"": built["train"]}
    if "stack" in built and built["stack"].sizes:
        train_sets[STACKED] = concat_groups(built["train"], built["stack"])
    n_draw = len(built["train"].sizes)
    t_fit = time.perf_counter()
    fitted = {
        f"ltr_{prefix}{name}": fit_ranker(groups, params, names, n_draw=n_draw)
        for prefix, groups in train_sets.items()
        for name, names in candidate_feature_sets(params.cross_encoder_feature).items()
    }
    fit_seconds = time.perf_counter() - t_fit
    valid = built["valid"]
    evidence: dict[str, float] = {}
    names = list(candidate_feature_sets(params.cross_encoder_feature))
    prefix = ""
    if STACKED in train_sets:
        # the train-set choice on the ranker that needs no cross-encoder when there is one
        base = "without_logit" if "without_logit" in names else names[0]
        prefix, stack_evidence = choose_train_set(
            reciprocal_ranks(fitted[f"ltr_{base}"], valid),
            reciprocal_ranks(fitted[f"ltr_{STACKED}{base}"], valid),
        )
        evidence.update(stack_evidence)
    if len(names) > 1:
        chosen, logit_evidence = choose_features(
            reciprocal_ranks(fitted[f"ltr_{prefix}with_logit"], valid),
            reciprocal_ranks(fitted[f"ltr_{prefix}without_logit"], valid),
            min_gain=params.cross_encoder_min_gain, seed=params.seed,
        )
        evidence.update(logit_evidence)
    else:
        chosen = names[0]
    key = f"ltr_{prefix}{chosen}"
    if chosen == "without_logit" and rows["more"]:
        from serving.stages.rerank import FusedOrderReranker

        # the runtime of a ranker without the logit replays them the same way
        built["more"] = replay("more", reranker=FusedOrderReranker(rrf_k=selector.params.rrf_k))
        if built["more"].sizes:
            t_fit = time.perf_counter()
            fitted[f"ltr_{prefix}{MORE}{chosen}"] = fit_ranker(
                concat_groups(train_sets[prefix], built["more"]), params, WITHOUT_LOGIT,
                n_draw=n_draw,
            )
            fit_seconds += time.perf_counter() - t_fit
            pays, more_evidence = more_data_pays(
                reciprocal_ranks(fitted[key], valid),
                reciprocal_ranks(fitted[f"ltr_{prefix}{MORE}{chosen}"], valid),
            )
            evidence.update(more_evidence)
            if pays:
                key = f"ltr_{prefix}{MORE}{chosen}"
    ranker = fitted[key]
    # held out by tool from every ranker: no train, stack or more group has the tool
    unseen = unseen_tools(
        [groups for split, groups in built.items() if split != "valid"], valid
    )
    comparison = {**order_comparison(fitted, valid, unseen=unseen), **evidence}
    # the chosen ranker's numbers under the plain name: what the runtime will run
    comparison.update({
        k.replace(f"{key}_", "ltr_"): v for k, v in list(comparison.items()) if f"{key}_" in k
    })
    comparison.update(named_first_evidence(ranker, valid))
    calibration, cut_table = calibrate(ranker, valid, params, size=selector.params.menu_size)
    return LtrResult(
        ranker, history, built, comparison, chosen, fit_seconds, calibration, cut_table,
        trained_on=trained_on_label(key), n_unseen_tool_groups=sum(unseen),
    )


def trained_on_label(key: str) -> str:
    """`train`, `train+stack`, `train+more` or `train+stack+more` for a fitted ranker's key."""
    return "+".join(
        ["train", *(part for part, prefix in (("stack", STACKED), ("more", MORE))
                    if prefix in key)]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (sections `train_ltr`, `mine`, `runtime`)")
    parser.add_argument("catalog", help="tool cards, JSONL")
    parser.add_argument("traces", help="trace events, JSONL (sessions and history)")
    parser.add_argument("train_dir", help="holds pairs.parquet")
    parser.add_argument("out_dir", help="gets model.txt, features.json, history.json")
    parser.add_argument("metrics", help="metrics JSON")
    parser.add_argument("--retriever", required=True, help="the fine-tuned bi-encoder dir")
    parser.add_argument("--reranker", required=True, help="the cross-encoder dir")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from training.core.bundle_export import scratch_selector
    from training.core.tracking import log_dataset_digest, log_metrics, stage_run

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    sampling = load_params(args.params, "mine.sampling", SamplingParams)
    catalog = load_catalog(args.catalog)
    cards: list[ToolCard] = list(catalog.items)
    traces = load_traces(args.traces, known_tools=[c.tool_id for c in cards])
    log.info(traces.summary(args.traces))
    pairs = scan_parquet(Path(args.train_dir) / "pairs.parquet", PAIRS_SCHEMA).collect()

    with scratch_selector(args.params, cards, retriever_path=Path(args.retriever),
                          reranker_path=Path(args.reranker), reranker="cross_encoder") as selector:
        result = train_ltr(cards, traces.items, pairs, selector, params=params, sampling=sampling)
    ranker, history, built, comparison = (
        result.ranker, result.history, result.groups, result.comparison
    )

    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ranker.model.booster_.save_model(str(out_dir / "model.txt"))
    (out_dir / "features.json").write_text(json.dumps(list(ranker.names), indent=1) + "\n")
    history.save(out_dir / HISTORY_FILE)
    result.calibration.save(out_dir / CALIBRATION_FILE)
    importance = ranker.model.booster_.feature_importance(importance_type="gain")
    total = float(importance.sum()) or 1.0
    metrics = {
        **{f"valid_{k}": round(v, 4) for k, v in comparison.items()},
        "features": result.chosen,
        "importance_gain_share": {
            n: round(float(g) / total, 4) for n, g in zip(ranker.names, importance, strict=True)
        },
        "n_train_groups": built["train"].stats["n_groups"],
        "n_train_rows": int(built["train"].labels.size),
        "n_train_without_gold": built["train"].stats["n_without_gold"],
        "n_valid_groups": built["valid"].stats["n_groups"],
        "n_valid_without_gold": built["valid"].stats["n_without_gold"],
        "n_stack_groups": built["stack"].stats["n_groups"] if "stack" in built else 0,
        "n_more_groups": built["more"].stats["n_groups"] if "more" in built else 0,
        "trained_on": result.trained_on,
        "n_valid_unseen_tool_groups": result.n_unseen_tool_groups,
        "n_history_tools": len(history.tools),
        "calibration": {"a": round(result.calibration.a, 4), "b": round(result.calibration.b, 4),
                        "menu_cut": result.calibration.min_relevance},
        "valid_menu_cuts": [{k: round(v, 4) for k, v in row.items()} for row in result.menu_cuts],
        "fit_seconds": round(result.fit_seconds, 2),
        "stage_seconds": round(time.perf_counter() - t0, 1),
    }
    write_metrics(args.metrics, metrics)
    with stage_run(SECTION, {SECTION: asdict(params)}):
        import mlflow

        log_metrics(metrics)
        log_dataset_digest("pairs", Path(args.train_dir) / "pairs.parquet")
        log_dataset_digest("traces", args.traces)
        mlflow.log_artifact(str(out_dir / "model.txt"))
        mlflow.log_artifact(str(out_dir / "features.json"))
    print(
        f"train_ltr: {metrics['n_train_groups']} groups ({metrics['n_train_rows']} rows); valid "
        f"recall@1 fused {comparison['fused_recall_at_1']:.3f} / cross-encoder "
        f"{comparison['cross_encoder_recall_at_1']:.3f} / ltr {comparison['ltr_recall_at_1']:.3f}, "
        f"recall@8 {comparison['fused_recall_at_8']:.3f} / "
        f"{comparison['cross_encoder_recall_at_8']:.3f} / {comparison['ltr_recall_at_8']:.3f}; "
        f"ranker {result.chosen} on {metrics['trained_on']} (MRR {comparison['ltr_mrr']:.3f}, "
        "dense order "
        f"{comparison['dense_mrr']:.3f}) in {metrics['stage_seconds']:.0f}s -> {out_dir}"
    )


if __name__ == "__main__":
    main()

"""The learned (LightGBM) ranker's features, its `History` table and exploration bonus.

The reranker that uses them is `serving.stages.rerank.LearnedReranker`.

The same pure functions compute a candidate's features when `train_ltr` builds its
training groups and when the runtime reranks, so the model never sees a feature computed
two ways. Relevance comes from the retrievers and the cross-encoder; history from a table
of past outcomes the bundle carries (`History`). Cost and latency are deliberately not
features: a model could weigh them against relevance anywhere in the order, while the
menu stage lets them decide only within the tie margin (`rerank.break_ties`).

History is smoothed with a Beta(1, 1) prior: a tool never used scores 0.5, not 0 or 1.
"Similar subgoals" share a capability key `operation:entity` from the decomposer's
annotation of the subgoal (`operation:*` when it names no entity).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from serving.model.schema import ToolCard
from serving.model.selection import Candidate, Subgoal
from serving.stages.logistic import fit_logistic

FEATURE_NAMES: tuple[str, ...] = (
    "cross_encoder",  # the cross-encoder's logit (missing, NaN, when it did not score the tool)
    "fused",  # the RRF score
    "rank_dense",
    "rank_bm25",
    "rank_capability",  # MISSING_RANK when that retriever did not return the tool
    "exact",  # the subgoal names the tool
    "operation_match",  # share of the subgoal's operations the tool offers
    "entity_match",  # share of the subgoal's entities the tool acts on
    "success_tool",  # Beta-smoothed success rate of the tool, all subgoals
    "uses_tool",  # log(1 + uses of the tool)
    "success_similar",  # Beta-smoothed success rate on subgoals with the same capability key
    "uses_similar",  # log(1 + those uses)
    "age_days",  # log(1 + days between the tool's added_at and the history's as_of)
    # list-level relevance: what the rest of the candidate list says about this tool
    "score_dense",  # the fine-tuned retriever's cosine (MISSING_SCORE when it missed)
    "dense_gap",  # the list's best cosine minus this one (0 for the top tool)
    "server_best_dense",  # the best cosine of any candidate on the same server
    "server_candidates",  # log(1 + other candidates on the same server)
    # the cross-encoder's view of the list, over the tools it scored (NaN for the others)
    "rank_cross_encoder",  # 1 + scored candidates with a higher logit
    "cross_encoder_gap",  # the list's best logit minus this one
)
# what only a run of the cross-encoder gives: a ranker without them never runs it
CROSS_ENCODER_FEATURES: tuple[str, ...] = ("cross_encoder", "rank_cross_encoder",
                                           "cross_encoder_gap")
# `candidate_features` gives the first N_OWN_FEATURES, `list_features` the rest
N_LIST_FEATURES = 6
N_OWN_FEATURES = len(FEATURE_NAMES) - N_LIST_FEATURES
MISSING_SCORE = -1.0
MISSING_RANK = 100.0
# a logit the cross-encoder did not compute (`LogitBudget`, or a ranker without it):
# LightGBM and `serving.stages.trees` send it down each split's default branch
MISSING_LOGIT = math.nan
HISTORY_FILE = "history.json"
CALIBRATION_FILE = "calibration.json"  # optional: rankers before it use Calibration()
LOGIT_BUDGET_FILE = "logit_budget.json"  # optional: rankers before it score every candidate
ORDER_FILE = "order.json"  # optional (`ShippedOrder`): rankers before it always ship


def capability_keys(subgoal: Subgoal) -> tuple[str, ...]:
    """The subgoal's capability keys: every operation x entity, `op:*` without entities."""
    entities = subgoal.entities or ("*",)
    return tuple(sorted({f"{op}:{ent}" for op in subgoal.operations for ent in entities}))


@dataclass(frozen=True)
class Outcomes:
    success: int = 0
    failure: int = 0

    def rate(self) -> float:
        return (self.success + 1.0) / (self.success + self.failure + 2.0)

    def uses(self) -> float:
        return math.log1p(self.success + self.failure)

    def minus(self, success: int, failure: int) -> Outcomes:
        """Without these outcomes (leaving events out at training time)."""
        return Outcomes(max(0, self.success - success), max(0, self.failure - failure))


@dataclass(frozen=True, slots=True)
class CardFeatures:
    """What a candidate's features read off its card and its own history alone."""

    operations: frozenset[str]
    entities: frozenset[str]
    success: float
    uses: float
    age_days: float


@dataclass(frozen=True)
class History:
    """Past outcomes per tool and per (capability key, tool); `as_of` dates tool age."""

    as_of: str = "1970-01-01"
    tools: Mapping[str, Outcomes] = field(default_factory=dict)
    similar: Mapping[str, Mapping[str, Outcomes]] = field(default_factory=dict)  # key -> tool
    # a card's features that no subgoal changes, by tool id (with the card they were read
    # from): every search reranks the same tools, and dates and sets cost ~half of a row
    _per_card: dict[str, tuple[ToolCard, CardFeatures]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_events(
        cls, events: Iterable[tuple[Sequence[str], str, bool]], *, as_of: str
    ) -> History:
        """From (capability keys of the subgoal, tool id, success) events."""
        tools, similar = _count(events)
        return cls(
            as_of=as_of,
            tools={t: Outcomes(*c) for t, c in tools.items()},
            similar={k: {t: Outcomes(*c) for t, c in v.items()} for k, v in similar.items()},
        )

    def without(self, events: Iterable[tuple[Sequence[str], str, bool]]) -> History:
        """This history less some of the events it was built from: a training group leaves
        out every event of its own request, or the ranker reads the label off the history
        (a request's other gold tools share its capability keys). Copies only what changes."""
        tools_less, similar_less = _count(events)
        if not tools_less:
            return self
        tools = dict(self.tools)
        for t, (s, f) in tools_less.items():
            tools[t] = self.tool(t).minus(s, f)
        similar = dict(self.similar)
        for key, per_tool in similar_less.items():
            inner = dict(similar.get(key, {}))
            for t, (s, f) in per_tool.items():
                inner[t] = inner.get(t, Outcomes()).minus(s, f)
            similar[key] = inner
        return History(as_of=self.as_of, tools=tools, similar=similar)

    def tool(self, tool_id: str) -> Outcomes:
        return self.tools.get(tool_id, Outcomes())

    def card_features(self, card: ToolCard) -> CardFeatures:
        """`CardFeatures` of `card` against this history, computed once per card."""
        known = self._per_card.get(card.tool_id)
        if known is not None and known[0] is card:
            return known[1]
        tool = self.tool(card.tool_id)
        features = CardFeatures(
            operations=frozenset(c.split(":", 1)[0] for c in card.capabilities),
            entities=frozenset(card.entities)
            | {c.split(":", 1)[1] for c in card.capabilities if ":" in c},
            success=tool.rate(),
            uses=tool.uses(),
            age_days=_age_days(card.added_at, self.as_of),
        )
        self._per_card[card.tool_id] = (card, features)  # a race only computes it twice
        return features

    def on(self, keys: Sequence[str], tool_id: str) -> Outcomes:
        """Outcomes of the tool over subgoals sharing any of `keys`."""
        s = f = 0
        for key in keys:
            o = self.similar.get(key, {}).get(tool_id)
            if o is not None:
                s, f = s + o.success, f + o.failure
        return Outcomes(s, f)

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of,
            "tools": {t: [o.success, o.failure] for t, o in sorted(self.tools.items())},
            "similar": {
                k: {t: [o.success, o.failure] for t, o in sorted(v.items())}
                for k, v in sorted(self.similar.items())
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> History:
        return cls(
            as_of=str(data["as_of"]),
            tools={t: Outcomes(*c) for t, c in data["tools"].items()},
            similar={
                k: {t: Outcomes(*c) for t, c in v.items()} for k, v in data["similar"].items()
            },
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), separators=(",", ":")))

    @classmethod
    def load(cls, path: str | Path) -> History:
        return cls.from_dict(json.loads(Path(path).read_text()))


def _count(
    events: Iterable[tuple[Sequence[str], str, bool]],
) -> tuple[dict[str, list[int]], dict[str, dict[str, list[int]]]]:
    """[successes, failures] per tool and per (capability key, tool)."""
    tools: dict[str, list[int]] = {}
    similar: dict[str, dict[str, list[int]]] = {}
    for keys, tool, success in events:
        slot = 0 if success else 1
        tools.setdefault(tool, [0, 0])[slot] += 1
        for key in keys:
            similar.setdefault(key, {}).setdefault(tool, [0, 0])[slot] += 1
    return tools, similar


def _age_days(added_at: str, as_of: str) -> float:
    days = (date.fromisoformat(as_of[:10]) - date.fromisoformat(added_at[:10])).days
    return math.log1p(max(0, days))


def _share(wanted: Sequence[str], offered: frozenset[str]) -> float:
    return sum(w in offered for w in wanted) / len(wanted) if wanted else 0.0


def candidate_features(
    subgoal: Subgoal,
    candidate: Candidate,
    card: ToolCard,
    history: History,
    *,
    keys: Sequence[str],
) -> list[float]:
    """One candidate's features in FEATURE_NAMES order (a training group passes a history
    without its own request's events: `History.without`)."""
    s = candidate.scores
    own = history.card_features(card)
    similar = history.on(keys, card.tool_id)
    return [
        float(s.get("cross_encoder", MISSING_LOGIT)),
        float(s.get("fused", 0.0)),
        float(s.get("rank_dense", MISSING_RANK)),
        float(s.get("rank_bm25", MISSING_RANK)),
        float(s.get("rank_capability", MISSING_RANK)),
        float(s.get("exact", 0.0)),
        _share(subgoal.operations, own.operations),
        _share(subgoal.entities, own.entities),
        own.success,
        own.uses,
        similar.rate(),
        similar.uses(),
        own.age_days,
    ]


def feature_matrix(
    subgoal: Subgoal,
    candidates: Sequence[Candidate],
    cards: Mapping[str, ToolCard],
    history: History,
) -> np.ndarray:
    """[len(candidates), len(FEATURE_NAMES)]."""
    keys = capability_keys(subgoal)
    rows = [candidate_features(subgoal, c, cards[c.tool_id], history, keys=keys)
            for c in candidates]
    own = np.asarray(rows, dtype=np.float64).reshape(len(candidates), N_OWN_FEATURES)
    return np.hstack([own, list_features(candidates, cards)])


def list_features(candidates: Sequence[Candidate], cards: Mapping[str, ToolCard]) -> np.ndarray:
    """Each candidate's features relative to its list, [len(candidates), 6]: its cosine,
    its gap to the list's best, how strongly its server is matched (an API family whose
    other tools also match the request is likelier to hold the right one), and the
    cross-encoder's rank and gap (`logit_rank_gap`). Invariant to the list's order; one pass
    over the list (this runs on every search)."""
    if not candidates:
        return np.zeros((0, N_LIST_FEATURES))
    cosine = np.array([float(c.scores.get("score_dense", MISSING_SCORE)) for c in candidates])
    logits = np.array([float(c.scores.get("cross_encoder", MISSING_LOGIT)) for c in candidates])
    servers = [cards[c.tool_id].server for c in candidates]
    best: dict[str, float] = {}
    count: dict[str, int] = {}
    for server, cos in zip(servers, cosine.tolist(), strict=True):
        best[server] = max(best.get(server, cos), cos)
        count[server] = count.get(server, 0) + 1
    return np.column_stack([
        cosine,
        cosine.max() - cosine,
        [best[s] for s in servers],
        [math.log1p(count[s] - 1) for s in servers],
        *logit_rank_gap(logits),
    ])


def logit_rank_gap(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate: 1 + the scored candidates with a higher logit, and the best logit
    minus its own; NaN where the logit is missing (the cross-encoder did not score it)."""
    logits = np.asarray(logits, dtype=np.float64)
    scored = ~np.isnan(logits)
    if not scored.any():
        return np.full(logits.shape, np.nan), np.full(logits.shape, np.nan)
    higher = (logits[None, :] > logits[:, None]).sum(axis=1)  # NaN compares False
    rank = np.where(scored, 1.0 + higher, np.nan)
    return rank, np.nanmax(logits) - logits


@dataclass(frozen=True)
class LogitBudget:
    """Which candidates the cross-encoder scores for a ranker that reads its logit: the
    `depth` first in the fine-tuned retriever's order (0: all), none at all when that
    retriever's best cosine leads the second by at least `skip_gap` (0: never skip; a list
    of one tool has nothing to order and is skipped too). `train_ltr` chooses both on the
    valid groups (`training.ltr.budget`); the runtime applies the same rule to the same
    scores, so the ranker never sees a logit missing for a reason it was not trained on."""

    depth: int = 0
    skip_gap: float = 0.0

    def __post_init__(self) -> None:
        if self.depth < 0 or not self.skip_gap >= 0:
            raise ValueError(f"logit budget: depth and skip_gap must be >= 0, got {self}")

    def select(self, rank_dense: np.ndarray, fused: np.ndarray, cosine: np.ndarray) -> np.ndarray:
        """A mask of the candidates to score, from their dense rank (MISSING_RANK when the
        retriever missed the tool; the fused score breaks ties) and their cosines."""
        n = len(rank_dense)
        keep = np.zeros(n, dtype=bool)
        if n == 0 or (self.skip_gap > 0 and _lead(cosine) >= self.skip_gap):
            return keep
        order = np.lexsort((-np.asarray(fused, dtype=np.float64),
                            np.asarray(rank_dense, dtype=np.float64)))
        keep[order[: self.depth or n]] = True
        return keep

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(
            {"depth": self.depth, "skip_gap": self.skip_gap}, indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> LogitBudget:
        data = json.loads(Path(path).read_text())
        return cls(int(data["depth"]), float(data["skip_gap"]))


def _lead(cosine: np.ndarray) -> float:
    """The best cosine minus the second best (infinite for a list of one)."""
    if len(cosine) < 2:
        return math.inf
    top = np.sort(np.asarray(cosine, dtype=np.float64))[-2:]
    return float(top[1] - top[0])


@dataclass(frozen=True)
class Calibration:
    """Platt scaling of the ranker's raw score, fit on held-out groups: P(the right tool) =
    sigmoid(a * z + b). `min_relevance` is the menu cut `train_ltr` chose on the same
    groups (a tool less likely than this leaves the menu). The default (1, 0, 0) is the
    plain sigmoid and no cut: rankers from before calibration."""

    a: float = 1.0
    b: float = 0.0
    min_relevance: float = 0.0

    def probability(self, z: float) -> float:
        x = self.a * z + self.b  # a logistic that cannot overflow for any score
        return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))

    def to_dict(self) -> dict[str, float]:
        return {"a": self.a, "b": self.b, "min_relevance": self.min_relevance}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        return cls(float(data["a"]), float(data["b"]), float(data["min_relevance"]))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        return cls.from_dict(json.loads(Path(path).read_text()))


def fit_platt(z: np.ndarray, y: np.ndarray, *, l2: float = 1.0, steps: int = 100) -> Calibration:
    """Logistic regression of the labels on the scores (a, b) (`serving.stages.logistic`): held-out
    groups a good ranker separates completely still give a finite, usable slope instead of
    a step function."""
    fit = fit_logistic(np.asarray(z, dtype=np.float64), y, l2=l2, steps=steps)
    if fit is None:
        return Calibration()
    return Calibration(float(fit.weights[0]), fit.bias)


SHIPPED_ORDERS = ("ltr", "dense")


def dense_score(cosine: float, fused: float) -> float:
    """The fine-tuned retriever's order as one score: its cosine, and below every tool it
    returned (cosine >= -1) the ones it missed, in fused order (RRF scores are < 1). What
    `serving.stages.rerank.DenseOrderReranker` calibrates, and `train_ltr` with it."""
    return cosine if cosine > MISSING_SCORE else MISSING_SCORE - 1.0 + fused


@dataclass(frozen=True)
class ShippedOrder:
    """Which order a bundle's ranker directory ships (`order.json`): `ltr` (the learned
    ranker) or `dense` (the fine-tuned retriever's order, where the learned ranker did not
    beat it on `train_ltr`'s valid groups), and the dense order's calibration (Platt
    scaling of `dense_score` and its menu cut, fit on the same groups), which the runtime
    reads whenever it ranks by the dense order."""

    order: str = "ltr"
    dense_calibration: Calibration | None = None

    def __post_init__(self) -> None:
        if self.order not in SHIPPED_ORDERS:
            raise ValueError(f"order {self.order!r} is not {'|'.join(SHIPPED_ORDERS)}")

    def to_dict(self) -> dict[str, Any]:
        calib = self.dense_calibration
        return {"order": self.order,
                "dense_calibration": None if calib is None else calib.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShippedOrder:
        calib = data.get("dense_calibration")
        return cls(str(data["order"]), None if calib is None else Calibration.from_dict(calib))


def exploration_bonus(uses: float, *, rate: float, cap: float) -> float:
    """A UCB-style bonus that shrinks as a tool gathers history: rate / sqrt(1 + uses),
    at most `cap` (`uses` is the raw count)."""
    return min(cap, rate / math.sqrt(1.0 + uses)) if rate > 0 else 0.0

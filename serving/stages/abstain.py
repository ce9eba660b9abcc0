"""The no-tool decision: is there a tool in this session that serves the step?

A step's *signals* are what the runtime already knows once it has reranked: how relevant
its best tools are, how close the best one is in the fine-tuned embedding space and in
exact words, whether the three retrievers agree, whether the step names an operation,
an object or a product of the session. `NoToolModel` is a logistic regression over them
(`serving.stages.logistic`), fit and thresholded on validation steps by the `tune_menus` stage;
below its threshold the step abstains ("no tool fits") instead of offering a menu that
invites the model to improvise. A step that names a tool exactly never abstains.

The whole rule lives here, read the same by the runtime and by the offline replays that
fit and judge it: each step's P(served) (`served_probability`), the request-level
decision (`abstaining_steps`), the reasons a step has no menu (`no_tool_reason`,
`EMPTY_MENU`), and whether a missing connection would serve it (`served_nowhere`). The
menu cut of a served step is `serving.stages.menu_policy`'s.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from serving.model.selection import Candidate, Subgoal
from serving.model.text import tokenize
from serving.stages.logistic import sigmoid

SIGNAL_NAMES: tuple[str, ...] = (
    "top_relevance",  # the best calibrated relevance on the reranked list
    "second_relevance",  # the runner-up's
    "top_cosine",  # the fine-tuned retriever's best cosine in the session (-1: none)
    "cosine_gap",  # best minus second-best cosine
    "top_bm25",  # log(1 + the best BM25 score): exact words shared with a tool
    "retrievers_agree",  # dense and BM25 put the same tool first
    "top5_overlap",  # share of dense's top 5 that BM25's top 5 also holds
    "capability_hits",  # log(1 + tools whose capabilities match the step's operation x object)
    "has_operation",  # the decomposer read an operation in the step
    "has_entity",  # ... and an object the catalog knows
    "names_session_product",  # the step names a product the session is connected to
    "catalog_words",  # share of the step's words (numbers aside) that some tool card uses
    "unknown_words",  # log(1 + the step's words, numbers aside, that no tool card uses)
    # the step asks for a tool at all, whatever the catalog (`serving.stages.intent`); 0
    # where no head or no encoder it accepts is at hand
    "request_intent",
    # the best logit of the pair head ("this tool serves this request", on the whole
    # request and each of the step's first reranked tools; `serving.stages.intent`); 0
    # where there is no pair head or no encoder it accepts
    "pair_served",
)


def step_signals(
    subgoal: Subgoal,
    ranked: Sequence[Candidate],
    connected_named: Collection[str] = (),
    catalog_words: Collection[str] = frozenset(),
    intent: float = 0.0,
    pair: float = 0.0,
) -> np.ndarray:
    """The step's signals in `SIGNAL_NAMES` order. `ranked`: the reranked candidates
    (relevance in `score`, retrieval scores and ranks in `scores`), best first;
    `connected_named`: the products the step names that the session has; `catalog_words`:
    the tokens (`serving.model.text.tokenize`) of the catalog's cards, the BM25 vocabulary (a
    request about seats, flights or haiku uses words no tool card does); `intent`: the
    request-intent head's logit for the step and `pair` the pair head's best logit over
    its first reranked tools (`serving.stages.intent`)."""
    relevance = sorted((c.score for c in ranked), reverse=True) + [0.0, 0.0]
    cosines = sorted(
        (c.scores["score_dense"] for c in ranked if "score_dense" in c.scores), reverse=True
    ) + [-1.0, -1.0]
    bm25 = max((c.scores.get("score_bm25", 0.0) for c in ranked), default=0.0)

    def top(source: str, n: int) -> list[str]:
        hits = [c for c in ranked if f"rank_{source}" in c.scores]
        return [c.tool_id for c in sorted(hits, key=lambda c: c.scores[f"rank_{source}"])[:n]]

    dense5, bm255 = top("dense", 5), top("bm25", 5)
    words = plain_words(subgoal.text)
    return np.array(
        [
            relevance[0],
            relevance[1],
            cosines[0],
            cosines[0] - cosines[1] if cosines[1] > -1.0 else 0.0,
            math.log1p(max(0.0, bm25)),
            float(bool(dense5) and bool(bm255) and dense5[0] == bm255[0]),
            len(set(dense5) & set(bm255)) / 5.0,
            math.log1p(sum(1 for c in ranked if "rank_capability" in c.scores)),
            float(bool(subgoal.operations)),
            float(bool(subgoal.entities)),
            float(bool(connected_named)),
            word_share(words, catalog_words),
            math.log1p(sum(t not in catalog_words for t in words)),
            intent,
            pair,
        ]
    )


def plain_words(text: str) -> list[str]:
    """`text`'s tokens, numbers and ids with digits aside (a date or a ticket key says
    nothing about whether a tool fits)."""
    return [t for t in tokenize(text) if not any(ch.isdigit() for ch in t)]


def word_share(tokens: Sequence[str], words: Collection[str]) -> float:
    """Share of `tokens` that are in `words` (0 for none)."""
    return sum(t in words for t in tokens) / len(tokens) if tokens else 0.0


@dataclass(frozen=True, slots=True)
class Abstention:
    """Why a step has no menu: `reason` is one line for the user and the agent."""

    reason: str
    p_served: float | None = None  # the no-tool model's probability, when it decided

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reason": self.reason}
        if self.p_served is not None:
            out["p_served"] = round(self.p_served, 4)
        return out


@dataclass(frozen=True)
class NoToolModel:
    """P(some tool in the session serves the step) = sigmoid(weights . signals + bias).
    A request abstains when every step is below `threshold`; in a request that does not,
    a step abstains below `step_threshold` (at most `threshold`; None: `threshold`), since
    a request some step is served by is one the catalog is about, and a step of it the
    model doubts is more often a hard phrasing than a request for nothing
    (`abstaining_steps`). `signals`: the names the weights are in the order of (a subset
    of `SIGNAL_NAMES`)."""

    signals: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    step_threshold: float | None = None

    def __post_init__(self) -> None:
        unknown = [n for n in self.signals if n not in SIGNAL_NAMES]
        if unknown or len(set(self.signals)) != len(self.signals):
            raise ValueError(
                f"no-tool model reads signals {list(self.signals)}; this runtime computes "
                f"{list(SIGNAL_NAMES)} (unknown or repeated: {unknown})"
            )
        if len(self.weights) != len(self.signals):
            raise ValueError(
                f"no-tool model: {len(self.weights)} weights for {len(self.signals)} signals"
            )
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"no-tool model: threshold {self.threshold} is not in [0, 1]")
        if self.step_threshold is not None and not 0.0 <= self.step_threshold <= self.threshold:
            raise ValueError(
                f"no-tool model: step_threshold {self.step_threshold} is not in "
                f"[0, threshold {self.threshold}]"
            )

    @property
    def step_bar(self) -> float:
        return self.threshold if self.step_threshold is None else self.step_threshold

    @property
    def columns(self) -> list[int]:
        return [SIGNAL_NAMES.index(n) for n in self.signals]

    def probability(self, signals: np.ndarray) -> float:
        """P(served) of one step's `step_signals`."""
        x = np.asarray(signals, dtype=np.float64)[self.columns]
        return sigmoid(float(x @ np.asarray(self.weights)) + self.bias)

    def probabilities(self, signals: np.ndarray) -> np.ndarray:
        """P(served) of a matrix of steps' signals (rows)."""
        x = np.asarray(signals, dtype=np.float64)[:, self.columns]
        return 1.0 / (1.0 + np.exp(-(x @ np.asarray(self.weights) + self.bias)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "signals": list(self.signals),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "threshold": round(self.threshold, 6),
            **({} if self.step_threshold is None
               else {"step_threshold": round(self.step_threshold, 6)}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoToolModel:
        """Raises `ValueError` naming what is missing or malformed."""
        try:
            return cls(
                signals=tuple(str(n) for n in data["signals"]),
                weights=tuple(float(w) for w in data["weights"]),
                bias=float(data["bias"]),
                threshold=float(data["threshold"]),
                step_threshold=(None if data.get("step_threshold") is None
                                else float(data["step_threshold"])),
            )
        except (KeyError, TypeError) as err:
            raise ValueError(f"no-tool model: missing or malformed field ({err})") from None


def served_probability(
    model: NoToolModel | None, signals: np.ndarray, *, names_tool: bool, has_candidates: bool
) -> float | None:
    """One step's P(served) as the decision reads it: None (not the model's to decide)
    without a model or when the step names a tool exactly; 0 when no candidate is left
    (nothing serves it); else the model's probability of its `step_signals`."""
    if model is None or names_tool:
        return None
    return model.probability(signals) if has_candidates else 0.0


def served_probabilities(
    model: NoToolModel, signals: np.ndarray, names_tool: Sequence[bool]
) -> list[float | None]:
    """`served_probability` of each row of a request's steps (every step with candidates,
    as the offline replays record them), in one call to the model."""
    probs = model.probabilities(signals)
    return [None if named else float(p) for named, p in zip(names_tool, probs, strict=True)]


def abstaining_steps(p_served: Sequence[float | None], model: NoToolModel) -> list[bool]:
    """Which steps of one request abstain, given each step's P(served) (None: the model
    does not decide it, e.g. it names a tool exactly, and it never abstains): all of
    them when every step is below `model.threshold`, else those below `model.step_bar`."""
    if all(p is not None and p < model.threshold for p in p_served):
        return [True] * len(p_served)
    return [p is not None and p < model.step_bar for p in p_served]


def no_tool_reason(p_served: float | None, lacking: Sequence[str]) -> Abstention:
    """Why a step the no-tool model abstains on has no menu. `lacking`: the products it
    names that the session lacks (said in the reason; reported as missing whatever the
    decision, since a product name can also be a common word)."""
    why = "no tool in this session fits this step"
    if lacking:
        why += f" (it names {', '.join(lacking)}: not connected)"
    return Abstention(why, p_served)


# a step the model served whose menu the bars left empty
EMPTY_MENU = Abstention("no tool in this session cleared the relevance bar")
# every tool that cleared the bar writes, and the lookup found a better one outside the session
OUTSIDE_SESSION = Abstention("the tools that fit need access this session lacks")


def served_nowhere(model: NoToolModel | None, open_signals: np.ndarray | None) -> bool:
    """Whether a step would go unserved with every connection open too (`open_signals`:
    its signals over the open lookup; None: nothing found there), so naming a missing
    connection would send the user to connect something that does not help."""
    return (model is not None and open_signals is not None
            and model.probability(open_signals) < model.threshold)

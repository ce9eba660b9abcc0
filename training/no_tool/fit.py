"""The request-intent and pair heads and the stock no-tool model, and the fold that judges them.

All three are ridge logistic regressions:
- the head: "asks for a tool" on the stock encoder's embedding of a request (public
  requests with and without tools, and the served steps of the fit catalogs);
- the pair head: "this tool serves this request" on `pair_features` of the stock
  embeddings of a whole request and a tool card: the fit catalogs' requests against their
  gold tools, and requests no tool of the catalog serves against the first tools its stock
  bundle reranked for them, and, where given, requests served only the tools their source
  offered (`training.no_tool.offered`): the gold against the distractors beside it, a
  request whose fitting tool was taken out against every tool left. Its fit-side column
  is cross-fit (each part read by a head fit without it), so the model below weighs it as
  it will behave on unseen requests;
- the stock model: "served" on the signals of each step of requests replayed through stock
  bundles (`training.no_tool.replay`): the catalogs' requests with gold against public
  no-tool requests and public requests whose tool the catalog lacks, on a subset of
  `SIGNAL_NAMES` whose scale does not move with the catalog, its threshold the highest at
  which at most `max_false` of the fit side's served requests abstain
  (`training.no_tool.operating_point.choose_threshold`).
`judge_fold` fits both without one source group and judges that group and the judge
half's served requests, which neither fit saw. A catalog with no served fit rows is judged
only: fit on its no-tool rows alone, the heads would learn its cards as "not served".
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from serving.stages.abstain import SIGNAL_NAMES, NoToolModel
from serving.stages.intent import RequestIntent, pair_features
from serving.stages.logistic import LogisticFit, fit_logistic
from training.no_tool.offered import OfferedRequest
from training.no_tool.operating_point import choose_threshold
from training.no_tool.replay import ReplayedRequest, abstains, best_step, with_intent


@dataclass(frozen=True, slots=True)
class IntentExample:
    text: str
    needs_tool: bool
    group: str


def fit_intent(examples: Sequence[IntentExample], vectors: Mapping[str, np.ndarray],
               probe: np.ndarray, *, l2: float, provenance: Mapping[str, str]) -> RequestIntent:
    """The head on `examples` (`vectors`: text -> stock embedding), classes weighted equal
    by repeating neither: the ridge and the threshold downstream absorb the imbalance."""
    x = np.stack([vectors[e.text] for e in examples])
    y = np.array([float(e.needs_tool) for e in examples])
    fit = fit_logistic(x, y, l2=l2)
    if fit is None:
        raise ValueError("request-intent head: the fit needs requests with and without tools")
    return RequestIntent(np.asarray(fit.weights, dtype=np.float32), float(fit.bias),
                         np.asarray(probe, dtype=np.float32),
                         tuple(sorted(provenance.items())))


@dataclass(frozen=True)
class PairData:
    """The stock vectors the pair head reads: each request text's and each catalog's
    cards' (`(catalog, tool id)`), as rows of two matrices."""

    requests: np.ndarray
    request_row: Mapping[str, int]
    cards: np.ndarray
    card_row: Mapping[tuple[str, str], int]

    @classmethod
    def build(cls, vectors: Mapping[str, np.ndarray],
              cards: Mapping[str, Mapping[str, np.ndarray]]) -> PairData:
        """`vectors`: text -> stock vector (every request text); `cards`: catalog ->
        tool id -> stock vector of its card."""
        texts = sorted(vectors)
        keys = sorted((c, t) for c, by_id in cards.items() for t in by_id)
        return cls(np.stack([vectors[t] for t in texts]).astype(np.float32),
                   {t: i for i, t in enumerate(texts)},
                   np.stack([cards[c][t] for c, t in keys]).astype(np.float32)
                   if keys else np.zeros((0, 0), np.float32),
                   {k: i for i, k in enumerate(keys)})

    def features(self, request_rows: np.ndarray, card_rows: np.ndarray) -> np.ndarray:
        return pair_features(self.requests[request_rows], self.cards[card_rows])

    def logits(self, head: LogisticFit, request_rows: np.ndarray, card_rows: np.ndarray,
               chunk: int = 20_000) -> np.ndarray:
        out = [self.features(request_rows[i:i + chunk], card_rows[i:i + chunk]) @ head.weights
               for i in range(0, len(request_rows), chunk)]
        return (np.concatenate(out) if out else np.zeros(0)) + head.bias


def pair_examples(rows: Sequence[ReplayedRequest], data: PairData, *,
                  negatives_per_step: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(request rows, card rows, labels): each served request against its gold tools in
    its catalog; each request no tool serves against its steps' first reranked tools."""
    req, card, label = [], [], []
    for r in rows:
        tools = (r.gold if r.served
                 else dict.fromkeys(t for step in r.tops for t in step[:negatives_per_step]))
        for t in tools:
            if (r.catalog, t) in data.card_row:
                req.append(data.request_row[r.request])
                card.append(data.card_row[(r.catalog, t)])
                label.append(float(r.served))
    return np.array(req, dtype=np.int64), np.array(card, dtype=np.int64), np.array(label)


# (request rows, card rows, labels) of `PairData`
Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]
OFFERED_CATALOG = "offered:"  # `PairData` catalog prefix of an offered folder's cards


def offered_pair_examples(requests: Sequence[OfferedRequest], data: PairData) -> Pairs:
    """Each offered request against every tool offered with it (gold: 1, else 0); the
    cards are under `OFFERED_CATALOG + folder`, keyed by their text."""
    req, card, label = [], [], []
    for r in requests:
        for text, gold in zip(r.tools, r.gold, strict=True):
            req.append(data.request_row[r.text])
            card.append(data.card_row[(OFFERED_CATALOG + r.folder, text)])
            label.append(float(gold))
    return np.array(req, dtype=np.int64), np.array(card, dtype=np.int64), np.array(label)


def fit_pair(rows: Sequence[ReplayedRequest], data: PairData, *, l2: float,
             extra: Pairs | None = None) -> LogisticFit:
    """The pair head on `rows` and the `extra` pairs (ridge logistic by L-BFGS: 2 x dim
    features)."""
    from scipy.optimize import minimize

    req, card, y = pair_examples(rows, data)
    if extra is not None:
        req, card, y = (np.concatenate([a, b]) for a, b in zip((req, card, y), extra,
                                                              strict=True))
    if y.size == 0 or y.min() == y.max():
        raise ValueError("pair head: the fit needs served and unserved requests")
    x = data.features(req, card)
    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd < 1e-9] = 1.0  # a dimension that never moves (|u - v| of unit vectors can)
    z = (x - mu) / sd

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        t = z @ w[:-1] + w[-1]
        p = 1.0 / (1.0 + np.exp(-np.clip(t, -500.0, 500.0)))
        grad = np.append(z.T @ (p - y) + l2 * w[:-1], np.sum(p - y))
        return float(np.sum(np.logaddexp(0.0, t) - y * t) + 0.5 * l2 * w[:-1] @ w[:-1]), grad

    w = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B",
                 options={"maxiter": 500}).x
    slopes = w[:-1] / sd
    return LogisticFit(slopes, float(w[-1] - slopes @ mu))


def pair_column(head: LogisticFit, rows: Sequence[ReplayedRequest],
                data: PairData) -> list[np.ndarray]:
    """Per row, per step: the head's best logit over the step's first reranked tools (0
    for a step with none), as the runtime's `pair_served`."""
    req, card, step = [], [], []
    n_steps = 0
    for r in rows:
        for tops in r.tops:
            for t in tops:
                if (r.catalog, t) in data.card_row:
                    req.append(data.request_row[r.request])
                    card.append(data.card_row[(r.catalog, t)])
                    step.append(n_steps)
            n_steps += 1
    best = np.full(n_steps, -np.inf)
    if step:
        np.maximum.at(best, np.array(step), data.logits(head, np.array(req), np.array(card)))
    best[np.isinf(best)] = 0.0
    out, at = [], 0
    for r in rows:
        out.append(best[at:at + len(r.tops)])
        at += len(r.tops)
    return out


def cross_fit_pair(rows: Sequence[ReplayedRequest], data: PairData, *, l2: float,
                   parts: int = 4, extra: Pairs | None = None) -> list[np.ndarray]:
    """`pair_column` of each row read by a head fit without its part (parts by query id;
    the `extra` pairs in every part's fit)."""
    part = [hashlib.sha256(f"{r.catalog}/{r.query_id}".encode()).digest()[0] % parts
            for r in rows]
    out: list[np.ndarray] = [np.zeros(0)] * len(rows)
    for k in range(parts):
        head = fit_pair([r for r, p in zip(rows, part, strict=True) if p != k], data, l2=l2,
                        extra=extra)
        mine = [i for i, p in enumerate(part) if p == k]
        for i, col in zip(mine, pair_column(head, [rows[i] for i in mine], data), strict=True):
            out[i] = col
    return out


def fit_policy(rows: Sequence[ReplayedRequest], signals: Sequence[np.ndarray],
               names: Sequence[str], *, l2: float, max_false: float) -> NoToolModel:
    """The no-tool model on `names`; its request and step thresholds are the highest at
    which at most `max_false` of each catalog's served rows (or their steps) abstain."""
    cols = [SIGNAL_NAMES.index(n) for n in names]
    x = np.concatenate([s[:, cols] for s in signals if len(s)])
    y = np.concatenate([np.full(len(s), float(r.served)) for r, s in zip(rows, signals,
                                                                         strict=True) if len(s)])
    fit = fit_logistic(x, y, l2=l2)
    if fit is None:
        raise ValueError("stock no-tool model: the fit needs served and no-tool requests")
    probe = NoToolModel(tuple(names), tuple(float(w) for w in fit.weights), fit.bias, 0.0)
    served = [(r, s) for r, s in zip(rows, signals, strict=True) if r.served]
    catalogs = sorted({r.catalog for r, _ in served})

    def of(catalog: str) -> list[tuple[ReplayedRequest, np.ndarray]]:
        return [(r, s) for r, s in served if r.catalog == catalog]

    # the bar must hold on every catalog, not on their pool (the larger would set it)
    threshold = min(choose_threshold(best_step(probe, [r for r, _ in of(c)],
                                               [s for _, s in of(c)]), max_false)
                    for c in catalogs)
    model = replace(probe, threshold=threshold)
    step_bar = threshold
    for c in catalogs:
        steps = np.concatenate([
            model.probabilities(s) for r, s in of(c)
            if len(s) and not any(r.exact) and model.probabilities(s).max() >= threshold
        ] or [np.zeros(0)])
        if steps.size:
            step_bar = min(step_bar, choose_threshold(steps, max_false))
    return replace(model, step_threshold=step_bar)


@dataclass(frozen=True)
class Fold:
    held_out: str  # the source group left out ("" for the final fit on every group)
    head: RequestIntent
    model: NoToolModel
    abstain: dict[str, float]  # catalog -> abstain rate of the held-out group's requests
    n: dict[str, int]  # catalog -> its requests
    false_abstain: dict[str, float]  # catalog -> share of the judge half's served requests


def judge_fold(held_out: str, examples: Sequence[IntentExample],
               rows: Sequence[ReplayedRequest], vectors: Mapping[str, np.ndarray],
               probe: np.ndarray, names: Sequence[str], *, l2_intent: float, l2: float,
               max_false: float, provenance: Mapping[str, str],
               pairs: PairData | None = None, l2_pair: float = 10.0,
               extra_pairs: Pairs | None = None) -> Fold:
    """Fit the heads and the model without `held_out`; judge it and the served judge half.
    Without `pairs` (or when `names` leaves `pair_served` out) there is no pair head;
    `extra_pairs` (offered requests') join every fold's pair head."""
    head = fit_intent([e for e in examples if e.group != held_out], vectors, probe,
                      l2=l2_intent, provenance=provenance)
    texts = sorted({t for r in rows for t in r.texts})
    logit = dict(zip(texts, head.logits(np.stack([vectors[t] for t in texts])).tolist(),
                     strict=True)) if texts else {}
    # a catalog without served fit rows is judged only: fit on its no-tool rows alone,
    # the heads and the model would learn its cards and its scales as "not served"
    fitted = {r.catalog for r in rows if r.half == "fit" and r.served}
    fit_rows = [r for r in rows
                if r.half == "fit" and r.group != held_out and r.catalog in fitted]
    pair_head = None
    if pairs is not None and "pair_served" in names:
        pair_head = fit_pair(fit_rows, pairs, l2=l2_pair, extra=extra_pairs)
        head = replace(head, pair_weights=np.asarray(pair_head.weights, dtype=np.float32),
                       pair_bias=float(pair_head.bias))
        fit_signals = with_intent(fit_rows, logit, cross_fit_pair(fit_rows, pairs, l2=l2_pair,
                                                                   extra=extra_pairs))
    else:
        fit_signals = with_intent(fit_rows, logit)

    def signals(judged: Sequence[ReplayedRequest]) -> list[np.ndarray]:
        pair = None if pair_head is None or pairs is None else pair_column(pair_head, judged,
                                                                           pairs)
        return with_intent(judged, logit, pair)

    model = fit_policy(fit_rows, fit_signals, names, l2=l2, max_false=max_false)
    abstain, n, false = {}, {}, {}
    for catalog in sorted({r.catalog for r in rows}):
        judged = [r for r in rows if r.catalog == catalog and r.group == held_out
                  and not r.tool_absent]
        if judged:
            abstain[catalog] = float(abstains(model, judged, signals(judged)).mean())
            n[catalog] = len(judged)
        served = [r for r in rows if r.catalog == catalog and r.served and r.half == "judge"]
        if served:
            false[catalog] = float(abstains(model, served, signals(served)).mean())
    return Fold(held_out, head, model, abstain, n, false)

"""The request-intent head and the stock no-tool model, and the fold that judges them.

Both are ridge logistic regressions (`serving.stages.logistic`):
- the head: "asks for a tool" on the stock encoder's embedding of a request (public
  requests with and without tools, and the served steps of the fit catalogs);
- the stock model: "served" on the signals of each step of requests replayed through stock
  bundles (`training.no_tool.replay`): the catalogs' requests with gold against public
  no-tool requests and public requests whose tool the catalog lacks, on a subset of
  `SIGNAL_NAMES` whose scale does not move with the catalog, its threshold the highest at
  which at most `max_false` of the fit side's served requests abstain
  (`training.no_tool.operating_point.choose_threshold`).
`judge_fold` fits both without one source group and judges that group and the judge
half's served requests, which neither fit saw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from serving.stages.abstain import SIGNAL_NAMES, NoToolModel
from serving.stages.intent import RequestIntent
from serving.stages.logistic import fit_logistic
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
               max_false: float, provenance: Mapping[str, str]) -> Fold:
    """Fit the head and the model without `held_out`; judge it and the served judge half."""
    head = fit_intent([e for e in examples if e.group != held_out], vectors, probe,
                      l2=l2_intent, provenance=provenance)
    texts = sorted({t for r in rows for t in r.texts})
    logit = dict(zip(texts, head.logits(np.stack([vectors[t] for t in texts])).tolist(),
                     strict=True)) if texts else {}
    fit_rows = [r for r in rows if r.half == "fit" and r.group != held_out]
    model = fit_policy(fit_rows, with_intent(fit_rows, logit), names, l2=l2,
                       max_false=max_false)
    abstain, n, false = {}, {}, {}
    for catalog in sorted({r.catalog for r in rows}):
        judged = [r for r in rows if r.catalog == catalog and r.group == held_out
                  and not r.tool_absent]
        if judged:
            abstain[catalog] = float(abstains(model, judged, with_intent(judged, logit)).mean())
            n[catalog] = len(judged)
        served = [r for r in rows if r.catalog == catalog and r.served and r.half == "judge"]
        if served:
            false[catalog] = float(abstains(model, served, with_intent(served, logit)).mean())
    return Fold(held_out, head, model, abstain, n, false)

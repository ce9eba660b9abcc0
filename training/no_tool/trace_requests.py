"""A catalog's requests with gold for the stock heads: the train side of its traces.

A trained bundle's `tune_menus` fits and thresholds its no-tool model on the valid split
of the traces (and on a labeled valid file), and evaluation reads the eval file; the
heads must read all of those as unseen, or the trained model weighs a signal that was
in sample on its tuning requests. So a catalog's side of the heads' fit is the train
split of its traces, split exactly as `mine` splits them (`features.mining.
prepare_events`, train events that leak into valid dropped): each request with the tools
its successful steps used, a seeded sample of at most `limit` distinct request texts.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from features.mining import drop_leaks, prepare_events, traces_frame
from serving.model.schema import LabeledQuery, Trace

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TrainRequests:
    queries: tuple[LabeledQuery, ...]
    n_train: int  # distinct train-split requests with a successful step
    n_without_id: int  # events without a request id (their request cannot be rebuilt)


def train_requests(traces: Sequence[Trace], *, seed: int, valid_share: float,
                   limit: int) -> TrainRequests:
    """The train split's requests (`mine`'s `seed` and `valid_share`) as labeled queries:
    gold the tools of their successful events, context their first event's; at most
    `limit` (0: all), the first by a hash of the request text (stable, text deduplicated)."""
    with_id = [t for t in traces if t.request_id]
    kept = (drop_leaks(prepare_events(traces_frame(with_id), seed=seed,
                                      valid_share=valid_share))
            .filter((pl.col("split") == "train") & pl.col("success"))
            .select("request_id", "tool_id").unique().collect())
    gold: dict[str, set[str]] = {}
    for rid, tool in kept.iter_rows():
        gold.setdefault(rid, set()).add(tool)
    first: dict[str, Trace] = {}
    for t in with_id:
        if t.request_id in gold:
            first.setdefault(t.request_id, t)
    by_text: dict[str, LabeledQuery] = {}
    for rid in sorted(gold):
        t = first[rid]
        text = (t.request or t.subgoal).strip()
        by_text.setdefault(text, LabeledQuery(f"trace:{rid}", text, tuple(sorted(gold[rid])),
                                              context=t.context))
    order = sorted(by_text, key=lambda s: hashlib.sha256(s.encode()).hexdigest())
    chosen = order[:limit] if limit else order
    return TrainRequests(tuple(by_text[s] for s in chosen), len(gold),
                         len(traces) - len(with_id))


def fit_requests(path: str, split: tuple[int, float], limit: int) -> TrainRequests:
    """The train split of the traces at `path` (bad lines quarantined beside the file and
    counted, never dropped silently) as labeled requests (`trace_requests`)."""
    from serving.model.io import load_traces, quarantine_path_for

    loaded = load_traces(path, quarantine=quarantine_path_for(path, "no_tool"))
    log.info(loaded.summary(path))
    got = train_requests(loaded.items, seed=split[0], valid_share=split[1],
                         limit=limit)
    log.info("%s: %d train-split requests with a successful step, %d fit (%d events "
             "without a request id)", path, got.n_train, len(got.queries), got.n_without_id)
    return got

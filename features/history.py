"""The ranker's history table from trace events, and each request's own events.

`train_ltr` scores a training group against the history without the group's own request
(`History.without`), so it needs the events per request beside the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import polars as pl

from features.mining import normalised
from serving.model.schema import Trace
from serving.model.selection import Subgoal
from serving.stages.ranker_features import History, capability_keys

Event = tuple[tuple[str, ...], str, bool]  # (capability keys, tool id, success)


def history_from_traces(
    traces: Sequence[Trace], annotate: Callable[[str], Subgoal]
) -> tuple[History, dict[str, list[Event]]]:
    """Every event's (capability keys, tool, success), and the same events per request
    (keyed as mining keys pairs.parquet's `request_id`); as_of = the newest event's date."""
    keys: dict[str, tuple[str, ...]] = {}
    by_request: dict[str, list[Event]] = {}
    for t in traces:
        if t.subgoal not in keys:
            keys[t.subgoal] = capability_keys(annotate(t.subgoal))
        by_request.setdefault(request_key(t), []).append((keys[t.subgoal], t.tool_id, t.success))
    as_of = max((t.ts[:10] for t in traces if t.ts), default="1970-01-01")
    events = [e for request in by_request.values() for e in request]
    return History.from_events(events, as_of=as_of), by_request


def request_key(trace: Trace) -> str:
    """The `request_id` mining gives the event (`features.mining.prepare_events`): its own,
    else `anon:` and its normalised request text, else its normalised subgoal."""
    if trace.request_id:
        return trace.request_id
    return "anon:" + _normalised(trace.request or trace.subgoal)


@cache
def _normalised(text: str) -> str:
    return str(pl.select(normalised(pl.lit(text))).item())

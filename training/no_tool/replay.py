"""Requests through a stock bundle's runtime: per step its no-tool signals and text.

The stock policy is fit on what the runtime computes on catalogs it was never tuned on,
so each request runs through `Selector.discover` of a stock bundle (the stock encoder,
no reranker, no menu policy) and keeps, per step, its signals (`serving.stages.abstain`),
its text and first reranked tools (the request-intent and pair columns are recomputed per
fold from them and the request) and whether it names a tool exactly (such a step never
abstains).
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from serving.stages.abstain import (
    SIGNAL_NAMES,
    NoToolModel,
    abstaining_steps,
    served_probabilities,
)
from serving.stages.menu_policy import is_exact

INTENT = SIGNAL_NAMES.index("request_intent")
PAIR = SIGNAL_NAMES.index("pair_served")
REPLAY_FORMAT = 2  # what a cached replay holds; a new one replays again


@dataclass(frozen=True)
class ReplayedRequest:
    catalog: str  # which stock bundle it ran through
    query_id: str
    group: str  # its source group (public) or "<catalog>:own" (the catalog's labeled file)
    served: bool  # it has a gold tool
    half: str  # fit | judge
    signals: np.ndarray  # (steps, len(SIGNAL_NAMES)); the intent column is filled per fold
    texts: tuple[str, ...]  # each step's text
    exact: tuple[bool, ...]  # each step names a tool exactly
    # a public request that asks for a tool this catalog lacks (`PublicRequest.absent_from`):
    # not served here, fit as such, never judged as a no-tool request
    tool_absent: bool = False
    request: str = ""  # the whole request as the runtime read it (the pair head's side)
    tops: tuple[tuple[str, ...], ...] = ()  # each step's first reranked tools (`PAIR_TOP`)
    gold: tuple[str, ...] = ()  # the tools that serve it (the pair head's positives)


Replayed = tuple[str, np.ndarray, tuple[str, ...], tuple[bool, ...], str,
                 tuple[tuple[str, ...], ...]]


def replay(selector: Any, requests: Sequence[tuple[str, str, Mapping[str, Any] | None]], *,
           desc: str) -> list[Replayed]:
    """Each (query id, text, session) through `selector.discover`: (query id, the steps'
    signals, their texts, whether each names a tool exactly, the request as read, each
    step's first reranked tools)."""
    from tqdm.auto import tqdm

    out = []
    for query_id, text, context in tqdm(requests, desc=desc, unit="q", mininterval=10):
        found = selector.discover(text, context)
        out.append((
            query_id,
            np.array([s.signals for s in found.steps], dtype=np.float64).reshape(
                len(found.steps), len(SIGNAL_NAMES)),
            tuple(s.subgoal.text for s in found.steps),
            tuple(any(is_exact(c) for c in s.shortlist) for s in found.steps),
            found.request.strip(),
            tuple(s.pair_tools for s in found.steps),
        ))
    return out


def cached_replay(cache_dir: Path, bundle: str | Path,
                  requests: Sequence[tuple[str, str, Mapping[str, Any] | None]], *,
                  catalog: str, group: Mapping[str, str], served: Mapping[str, bool],
                  half: Mapping[str, str], tool_absent: bool = False,
                  gold: Mapping[str, Sequence[str]] | None = None) -> list[ReplayedRequest]:
    """`replay` through the stock bundle at `bundle`, kept under `cache_dir` by the
    bundle's version and the requests (a refit with other params replays nothing)."""
    from serving.selector import Selector

    version = json.loads((Path(bundle) / "manifest.json").read_text())["bundle_version"]
    key = hashlib.sha256(json.dumps([REPLAY_FORMAT, version, list(requests)], sort_keys=True,
                                    default=str).encode()).hexdigest()[:16]
    path = cache_dir / f"{catalog}-{key}.pkl"
    if path.is_file():
        raw = pickle.loads(path.read_bytes())
    else:
        selector = Selector.from_bundle(bundle, overrides={"menu_policy": False})
        raw = replay(selector, requests, desc=f"{catalog}: requests")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(raw))
    gold = gold or {}
    return [ReplayedRequest(catalog, q, group[q], served[q], half[q], x, texts, exact,
                            tool_absent, request, tops, tuple(gold.get(q, ())))
            for q, x, texts, exact, request, tops in raw]


def with_intent(rows: Sequence[ReplayedRequest], logit: Mapping[str, float],
                pair: Sequence[np.ndarray] | None = None) -> list[np.ndarray]:
    """Each row's signals with the intent column set from `logit` (step text -> logit)
    and the pair column from `pair` (per row, one value per step; None: left as is)."""
    out = []
    for i, r in enumerate(rows):
        x = r.signals.copy()
        x[:, INTENT] = [logit[t] for t in r.texts]
        if pair is not None:
            x[:, PAIR] = pair[i]
        out.append(x)
    return out


def abstains(model: NoToolModel, rows: Sequence[ReplayedRequest],
             signals: Sequence[np.ndarray]) -> np.ndarray:
    """Whether each request abstains as a whole, as the runtime decides."""
    out = []
    for r, x in zip(rows, signals, strict=True):
        if not r.texts:
            out.append(True)
            continue
        out.append(all(abstaining_steps(served_probabilities(model, x, r.exact), model)))
    return np.array(out, dtype=bool)


def best_step(model: NoToolModel, rows: Sequence[ReplayedRequest],
              signals: Sequence[np.ndarray]) -> np.ndarray:
    """Each request's best step probability (1 when a step names a tool exactly)."""
    return np.array([
        1.0 if any(r.exact) else float(model.probabilities(x).max()) if r.texts else 0.0
        for r, x in zip(rows, signals, strict=True)
    ])

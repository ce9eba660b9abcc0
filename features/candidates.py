"""Cross-encoder groups as the runtime sees them.

At serving time the reranker never orders the catalog: it reorders the first
`rerank_depth` candidates that survive retrieval, fusion and the hard filters *in the
session's context* (connections, scopes, env, policy). Groups mined from texts alone are
dominated by near-duplicates on servers the session could not use ("post to #data-eng" on
slack vs teams vs discord): pairs the text cannot separate and the runtime never shows the
reranker. So each group here replays its trace through the current bundle's runtime, with
that trace's session context, and takes its negatives from what the reranker would have
been given, in fused order.

- train groups: positives drawn by the exploration sampler (cap, tempered weights,
  new-tool quota, no row twice); each keeps its gold tool (even when the runtime missed
  it: that is what the reranker must learn) and the first `n_negatives` other candidates.
  A cold-start (synthetic) positive has no session: it replays with the gold's server
  and `synthetic_servers` other seeded servers connected, no scope check.
- valid groups: the first `n_valid` valid-split trace positives (by query id, a stable
  sample) with *all* their candidates, so the fused order and the cross-encoder's order
  can be compared exactly as the menu stage would use them. A group whose candidates hold
  no gold says nothing about order and is counted, not written.
- labels: 1 for a gold tool of the query (any tool with a successful trace for the same
  text); a tool equivalent to a gold one (same server, shared capability) but not gold is
  left out, neither right nor wrong. `fused_rank` is the 1-based position in the runtime's
  filtered fused order, 0 for a gold tool added from outside the candidates.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from features.dataset import CANDIDATE_SOURCE, RERANKER_SCHEMA
from features.mining import SYNTHETIC_PREFIX
from features.negatives import equivalent_tools
from features.sampling import SamplingParams, rng_for, sample_explore, train_positives

log = logging.getLogger(__name__)

# (subgoal text, session context as a trace stores it) -> candidate tool ids, fused order
CandidateSource = Callable[[Sequence[tuple[str, Mapping[str, Any]]]], list[list[str]]]


@dataclass(frozen=True, slots=True)
class GroupParams:
    n_train: int  # train groups (one positive each)
    n_negatives: int  # candidates kept beside the positive in a train group
    n_valid: int  # valid groups (all their candidates)
    synthetic_servers: int  # servers connected beside the gold's for a cold-start pair


class RuntimeCandidates:
    """A `CandidateSource` backed by a bundle's runtime in fused order: retrieval, RRF,
    hard filters, then the first `rerank_depth` (the bundle's runtime params)."""

    def __init__(self, bundle_path: str | Path, *, show_progress: bool = False) -> None:
        from serving.decompose import DecomposerVocabulary, RuleDecomposer
        from serving.selector import Selector

        self.selector = Selector.from_bundle(bundle_path, reranker="fused")
        self.depth = self.selector.params.rerank_depth
        self._annotate = RuleDecomposer(
            DecomposerVocabulary.from_cards(self.selector.bundle.cards)
        ).annotate
        self.show_progress = show_progress
        self.seconds = 0.0

    def __call__(self, queries: Sequence[tuple[str, Mapping[str, Any]]]) -> list[list[str]]:
        from tqdm import tqdm

        from serving.model.selection import SessionContext

        started = time.perf_counter()
        subgoals = [self._annotate(text) for text, _ in queries]
        vectors = self.selector.encoder.encode(
            [s.text for s in subgoals], show_progress=self.show_progress
        )
        out = []
        for subgoal, vector, (_, context) in tqdm(
            zip(subgoals, vectors, queries, strict=True),
            total=len(queries),
            desc="reranker candidates",
            disable=not self.show_progress,
        ):
            found = self.selector.candidates(
                subgoal, SessionContext.from_dict(context), vector=vector
            )
            out.append([c.tool_id for c in found[: self.depth]])
        self.seconds += time.perf_counter() - started
        return out


def synthetic_context(
    gold: str, servers: Sequence[str], server_of: Mapping[str, str], n_other: int, rng: Any
) -> dict[str, Any]:
    """A session for a cold-start pair: the gold's server plus `n_other` seeded others."""
    own = server_of[gold]
    others = [s for s in servers if s != own]
    picked = rng.choice(len(others), size=min(n_other, len(others)), replace=False)
    return {"connections": sorted({own, *(others[i] for i in picked)})}


def gold_and_equivalents(
    pairs: pl.DataFrame, tools: pl.DataFrame
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    gold_rows = pairs.filter(pl.col("label") == 1).select("query_id", "tool_id").unique()
    gold = {
        q: set(ids)
        for q, ids in gold_rows.group_by("query_id").agg(pl.col("tool_id")).iter_rows()
    }
    equivalent = (
        gold_rows.lazy()
        .join(equivalent_tools(tools), on="tool_id")
        .group_by("query_id")
        .agg(pl.col("equivalent_id"))
        .collect()
    )
    return gold, {q: set(ids) for q, ids in equivalent.iter_rows()}


def _rows(
    split: str,
    group: Mapping[str, Any],
    candidates: Sequence[str],
    gold: set[str],
    equivalent: set[str],
    *,
    n_negatives: int | None,
) -> list[dict[str, Any]]:
    """One group's rows: the positive first (train), then candidates in fused order."""
    group_id = f"{group['query_id']}:{group['tool_id']}"
    base = {"group_id": group_id, "query": group["query"], "split": split}
    rows: list[dict[str, Any]] = []
    if split == "train":
        rank = candidates.index(group["tool_id"]) + 1 if group["tool_id"] in candidates else 0
        rows.append({**base, "tool_id": group["tool_id"], "label": 1,
                     "source": group["source"], "fused_rank": rank})
    negatives = 0
    for rank, tool in enumerate(candidates, start=1):
        if split == "train":
            if tool in gold or tool in equivalent:
                continue
            if negatives >= (n_negatives or 0):
                break
            negatives += 1
            rows.append({**base, "tool_id": tool, "label": 0,
                         "source": CANDIDATE_SOURCE, "fused_rank": rank})
        elif tool in gold:
            rows.append({**base, "tool_id": tool, "label": 1,
                         "source": "trace_success", "fused_rank": rank})
        elif tool not in equivalent:
            rows.append({**base, "tool_id": tool, "label": 0,
                         "source": CANDIDATE_SOURCE, "fused_rank": rank})
    return rows




@dataclass(frozen=True)
class RuntimeGroups:
    frame: pl.DataFrame  # RERANKER_SCHEMA, groups in draw order, rows as `_rows` writes them
    stats: Mapping[str, int]


def sample_group_rows(
    pairs: pl.DataFrame,
    sampling: SamplingParams,
    *,
    n_train: int,
    n_valid: int,
    seed: int,
    stream: str,
) -> dict[str, pl.DataFrame]:
    """The positives that become groups: `train` drawn by the exploration sampler (cap,
    weights, new-tool quota, no row twice) from the train split, `valid` the first
    `n_valid` distinct valid-split traced queries by id (a stable sample)."""
    draw = SamplingParams(
        n_samples=n_train,
        max_per_tool=sampling.max_per_tool,
        temperature=sampling.temperature,
        new_tool_quota=sampling.new_tool_quota,
    )
    train = sample_explore(
        train_positives(pairs), draw, seed=seed, stream=stream, repeat_quota=False
    )
    return {"train": train, "valid": traced_valid_queries(pairs).head(n_valid)}


def traced_valid_queries(pairs: pl.DataFrame) -> pl.DataFrame:
    """One positive per traced valid-split query, in query id order (a stable sample)."""
    return (
        pairs.filter(
            (pl.col("split") == "valid")
            & (pl.col("label") == 1)
            & (pl.col("source") == "trace_success")
        )
        .sort("query_id", "tool_id")
        .unique("query_id", keep="first", maintain_order=True)
    )


def runtime_groups(
    pairs: pl.DataFrame,
    tools: pl.DataFrame,
    contexts: Mapping[str, Mapping[str, Any]],
    candidates: CandidateSource,
    sampling: SamplingParams,
    params: GroupParams,
    *,
    seed: int,
) -> RuntimeGroups:
    """Train and valid groups (module doc). `contexts`: request id -> session context."""
    sampled = sample_group_rows(
        pairs, sampling, n_train=params.n_train, n_valid=params.n_valid, seed=seed,
        stream="reranker",
    )
    train, valid = sampled["train"], sampled["valid"]
    servers = sorted(set(tools["server"].to_list()))
    server_of = dict(zip(tools["tool_id"].to_list(), tools["server"].to_list(), strict=True))
    rng = rng_for(seed, "synthetic_context")
    missing_context = 0

    def context_of(row: Mapping[str, Any]) -> Mapping[str, Any]:
        nonlocal missing_context
        request = row["request_id"]
        if request.startswith(SYNTHETIC_PREFIX):
            return synthetic_context(
                row["tool_id"], servers, server_of, params.synthetic_servers, rng
            )
        if request not in contexts:
            missing_context += 1  # an unrestricted session: the runtime's default
        return contexts.get(request, {})

    gold, equivalent = gold_and_equivalents(pairs, tools)
    rows: list[dict[str, Any]] = []
    stats = {"n_valid_without_gold": 0, "n_train_gold_outside_candidates": 0}
    for split, frame in (("train", train), ("valid", valid)):
        groups = frame.to_dicts()
        found = candidates([(g["query"], context_of(g)) for g in groups])
        for group, ids in zip(groups, found, strict=True):
            qid = group["query_id"]
            out = _rows(split, group, ids, gold.get(qid, set()), equivalent.get(qid, set()),
                        n_negatives=params.n_negatives if split == "train" else None)
            if split == "valid" and not any(r["label"] == 1 for r in out):
                stats["n_valid_without_gold"] += 1
                continue
            if split == "train" and out[0]["fused_rank"] == 0:
                stats["n_train_gold_outside_candidates"] += 1
            rows.extend(out)
    frame = pl.DataFrame(rows, schema=RERANKER_SCHEMA)
    for split in ("train", "valid"):
        stats[f"n_{split}_groups"] = int(
            frame.filter(pl.col("split") == split)["group_id"].n_unique()
        )
    stats["n_without_context"] = missing_context
    return RuntimeGroups(frame=frame, stats=stats)


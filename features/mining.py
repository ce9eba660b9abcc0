"""Trace mining: labeled (query, tool) pairs with provenance, split by request.

Input is a lazy frame of trace events (`TRACE_SCHEMA`). The stage builds it from a JSONL
trace file validated by `serving.model.io.load_traces` (bad lines quarantined and counted); at
scale, traces kept as (hive-)partitioned Parquet with the same columns are scanned lazily
with `scan_trace_parquet` and go through the same functions unchanged. Work on whole
columns stays lazy; Python touches only *distinct* values (query texts to hash, request
ids to split) and the retrieval calls of the injected hard-negative miner.

What a pair is (sources as in `features.dataset`):
- positives: `trace_success` (a successful use), keyed by the normalised subgoal text
  (`query_id`) and the request it came from; cold start adds `synthetic_example` and
  `synthetic_summary` pairs from the card of every tool with fewer than
  `synthetic_per_tool` successful traces, and `synthetic_queries_per_tool`
  `synthetic_query` pairs for each such tool written by a `features.synthetic`
  generator from its card (request id `synthetic:<tool_id>`, train only).
- negatives, in priority order: `near_duplicate` (the gold's capability "op:entity" on
  another server), `trace_failure` (a failed use), `menu_unchosen` (shown beside a
  successful pick, not chosen), then the index's hard negatives `dense_hard` / `bm25_hard`
  (top `depth` of the current bundle's dense and BM25 retrievers, train queries only).
  The two hard sources form one tier interleaved by retrieval rank (dense first on equal
  rank): under a strict dense-before-BM25 order the dense top-k would fill every cap and
  the lexical confusers BM25 finds (exact tokens, product names) would never survive.
- never a negative: a gold tool of the query or one equivalent to it. Equivalent = any
  tool with a successful trace for the same normalised query text (over the whole trace
  set, before any drop), or a tool on the gold's server sharing one of its capabilities.
- one row per (query_id, tool_id): a pair that is both positive and negative is positive;
  among negatives the first in cap order (tier, rank, source priority) names the row, so
  a failed near-duplicate is `near_duplicate`. At most `negatives_per_query` negatives
  are kept per query, in that order.

The negative side's parts (equivalent and near-duplicate tools, the cap order, the index
miner) are in `features.negatives`.

The split is by request: a seeded hash of the request id puts each request wholly in
train or valid. A train event whose query text, or whole request text, also occurs in
valid is dropped from train (and so is a synthetic pair whose text is a valid query), so
no text is on both sides; `check_split` raises if any remains.

`is_new`: the tool was added within `new_tool_days` days before the newest `added_at` in
the catalog (a rule without a wall clock, so re-running the stage later gives the same
bytes). Cards without a date (the default 1970-01-01) are never new. `popularity`: the
tool's successful traces over the whole trace set.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import polars as pl

from features.negatives import (
    HardNegativeSource,
    cap_negatives,
    equivalent_tools,
    near_duplicate_tools,
    negative_order,
    rerank_hard,
)
from features.synthetic import QueryGenerator, TemplateQueryGenerator, query_rng
from serving.model.schema import ToolCard, Trace

log = logging.getLogger(__name__)

TRACE_SCHEMA = pl.Schema(
    {
        "request_id": pl.String(),
        "request": pl.String(),
        "ts": pl.String(),
        "subgoal": pl.String(),
        "tool_id": pl.String(),
        "success": pl.Boolean(),
        "menu": pl.List(pl.String()),
    }
)
TOOLS_SCHEMA = pl.Schema(
    {
        "tool_id": pl.String(),
        "server": pl.String(),
        "capabilities": pl.List(pl.String()),
        "is_new": pl.Boolean(),
        "popularity": pl.Int32(),
    }
)
NO_DATE = "1970-01-01"
SYNTHETIC_PREFIX = "synthetic:"



class SplitLeakError(ValueError):
    """A query text or request id is on both sides of the train/valid split."""


# --- input frames ---------------------------------------------------------------------


def traces_frame(traces: Iterable[Trace]) -> pl.LazyFrame:
    """Validated trace events (from `serving.model.io.load_traces`) as a lazy `TRACE_SCHEMA`
    frame."""
    cols: dict[str, list[Any]] = {name: [] for name in TRACE_SCHEMA}
    for t in traces:
        cols["request_id"].append(t.request_id)
        cols["request"].append(t.request)
        cols["ts"].append(t.ts)
        cols["subgoal"].append(t.subgoal)
        cols["tool_id"].append(t.tool_id)
        cols["success"].append(t.success)
        cols["menu"].append(list(t.menu))
    return pl.DataFrame(cols, schema=TRACE_SCHEMA).lazy()


def scan_trace_parquet(source: str | Path) -> pl.LazyFrame:
    """Scan (hive-)partitioned Parquet trace events lazily, e.g. `traces/day=*/part-*.parquet`.

    The files hold `TRACE_SCHEMA` columns (partition columns are ignored). Nothing is
    validated line by line here: whatever wrote the Parquet validated the events.
    """
    frame = pl.scan_parquet(source, hive_partitioning=True)
    return frame.select([pl.col(k).cast(v) for k, v in TRACE_SCHEMA.items()])


def new_tool_ids(cards: Sequence[ToolCard], *, new_tool_days: int) -> frozenset[str]:
    """Tools added within `new_tool_days` days before the newest dated card."""
    dated = [(c.tool_id, date.fromisoformat(c.added_at[:10])) for c in cards
             if c.added_at[:10] != NO_DATE]
    if not dated:
        return frozenset()
    newest = max(d for _, d in dated)
    start = newest - timedelta(days=new_tool_days)
    return frozenset(tool_id for tool_id, d in dated if d >= start)


def tool_frame(
    cards: Sequence[ToolCard], popularity: Mapping[str, int], *, new_tool_days: int
) -> pl.DataFrame:
    """One row per tool: `TOOLS_SCHEMA` (capabilities, new flag, successful-trace count)."""
    new = new_tool_ids(cards, new_tool_days=new_tool_days)
    return pl.DataFrame(
        {
            "tool_id": [c.tool_id for c in cards],
            "server": [c.server for c in cards],
            "capabilities": [list(c.capabilities) for c in cards],
            "is_new": [c.tool_id in new for c in cards],
            "popularity": [int(popularity.get(c.tool_id, 0)) for c in cards],
        },
        schema=TOOLS_SCHEMA,
    )


# --- texts, ids and the split ---------------------------------------------------------


def normalised(expr: pl.Expr) -> pl.Expr:
    """Lowercase, whitespace collapsed, outer spaces and end punctuation stripped."""
    return (
        expr.str.to_lowercase()
        .str.replace_all(r"\s+", " ")
        .str.strip_chars(" \t.?!;,")
    )


def text_id(text: str) -> str:
    """The id of a normalised text: the first 16 hex digits of its sha256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def split_of(request_id: str, *, seed: int, valid_share: float) -> str:
    """`valid` for a seeded-hash share of request ids; stable across runs and machines."""
    digest = hashlib.sha256(f"{seed}\0{request_id}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2.0**64
    return "valid" if u < valid_share else "train"


def _map_distinct(
    frame: pl.LazyFrame, column: str, out: str, fn: Callable[[str], str]
) -> pl.LazyFrame:
    """Apply a Python function to each *distinct* value of a column, joined back lazily."""
    values = frame.select(pl.col(column).unique()).collect()[column].to_list()
    table = pl.DataFrame(
        {column: values, out: [fn(v) for v in values]},
        schema={column: pl.String, out: pl.String},
    )
    return frame.join(table.lazy(), on=column, how="left")


def prepare_events(traces: pl.LazyFrame, *, seed: int, valid_share: float) -> pl.LazyFrame:
    """Events with `query`, `qnorm`, `rnorm`, `query_id`, a filled `request_id`, `split`.

    A trace without a request id is keyed by its request text (or, lacking one, its
    subgoal), so identical anonymous texts still fall on one side of the split.
    """
    events = traces.with_columns(
        query=pl.col("subgoal").str.strip_chars(),
        qnorm=normalised(pl.col("subgoal")),
        rnorm=normalised(pl.col("request").fill_null("")),
        menu=pl.col("menu").fill_null([]),
    )
    events = _map_distinct(events, "qnorm", "query_id", text_id)
    events = events.with_columns(
        request_id=pl.when(pl.col("request_id").fill_null("") != "")
        .then(pl.col("request_id"))
        .when(pl.col("rnorm") != "")
        .then(pl.lit("anon:") + pl.col("rnorm"))
        .otherwise(pl.lit("anon:") + pl.col("qnorm"))
    )
    return _map_distinct(
        events,
        "request_id",
        "split",
        lambda rid: split_of(rid, seed=seed, valid_share=valid_share),
    )


def drop_leaks(events: pl.LazyFrame) -> pl.LazyFrame:
    """Drop train events whose query text or (non-empty) request text is also in valid."""
    valid = events.filter(pl.col("split") == "valid")
    valid_q = valid.select("qnorm").unique()
    valid_r = valid.filter(pl.col("rnorm") != "").select("rnorm").unique()
    train = (
        events.filter(pl.col("split") == "train")
        .join(valid_q, on="qnorm", how="anti")
        .join(valid_r, on="rnorm", how="anti")
    )
    return pl.concat([train, valid])


def check_split(pairs: pl.DataFrame, events: pl.DataFrame | None = None) -> None:
    """Raise `SplitLeakError` if a query id, request id (or request text) is in both splits."""
    checks = [(pairs, "query_id"), (pairs, "request_id")]
    if events is not None:
        checks.append((events.filter(pl.col("rnorm") != ""), "rnorm"))
    for frame, column in checks:
        both = frame.group_by(column).agg(pl.col("split").n_unique().alias("n")).filter(
            pl.col("n") > 1
        )
        if both.height:
            raise SplitLeakError(
                f"{both.height} {column} value(s) on both sides of the split, e.g. "
                f"{both[column][0]!r}"
            )


# --- pairs ----------------------------------------------------------------------------

_PAIR_COLUMNS = {
    "query_id": pl.String,
    "request_id": pl.String,
    "tool_id": pl.String,
    "label": pl.Int8,
    "source": pl.String,
    "split": pl.String,
    "rank": pl.Int32,
}


def _pairs(frame: pl.LazyFrame) -> pl.LazyFrame:
    return frame.select([pl.col(k).cast(v) for k, v in _PAIR_COLUMNS.items()])


def synthetic_positives(
    cards: Sequence[ToolCard],
    popularity: Mapping[str, int],
    *,
    per_tool: int,
    queries_per_tool: int = 0,
    generator: QueryGenerator | None = None,
    seed: int = 0,
) -> pl.LazyFrame:
    """Cold start, for every tool with fewer than `per_tool` successful traces: up to
    `per_tool` pairs from its card (examples first, then the summary), and up to
    `queries_per_tool` `synthetic_query` pairs from `generator` (templates by default; a
    tool's stream seeded by `seed` and its id). Train split, request `synthetic:<tool>`."""
    generator = generator or TemplateQueryGenerator()
    rows: list[dict[str, Any]] = []
    for card in cards:
        if popularity.get(card.tool_id, 0) >= per_tool:
            continue
        texts = [(e, "synthetic_example") for e in card.examples]
        texts.append((card.summary, "synthetic_summary"))
        seen: set[str] = set()
        for text, source in texts:
            key = " ".join(text.lower().split())
            if not key or key in seen or len(seen) >= per_tool:
                continue
            seen.add(key)
            rows.append({"query": text.strip(), "tool_id": card.tool_id, "source": source})
        if queries_per_tool > 0:
            for text in generator.generate(card, queries_per_tool, query_rng(seed, card.tool_id)):
                rows.append({"query": text, "tool_id": card.tool_id, "source": "synthetic_query"})
    frame = pl.DataFrame(
        rows, schema={"query": pl.String, "tool_id": pl.String, "source": pl.String}
    ).lazy()
    frame = frame.with_columns(qnorm=normalised(pl.col("query")))
    frame = _map_distinct(frame, "qnorm", "query_id", text_id)
    return frame.with_columns(
        request_id=pl.lit(SYNTHETIC_PREFIX) + pl.col("tool_id"),
        label=pl.lit(1),
        split=pl.lit("train"),
        rank=pl.lit(0),
    )


def dedupe_pairs(pairs: pl.LazyFrame) -> pl.LazyFrame:
    """One row per (query_id, tool_id). Positive beats negative; among positives the
    higher-priority source wins; among negatives the cap order decides (tier, rank, source),
    so a tool that is both a dense and a BM25 hit keeps its better rank. Ties: the
    smaller request id (deterministic)."""
    tier, rank, prio = negative_order()
    return (
        pairs.with_columns(
            _t=pl.when(pl.col("label") == 1).then(prio).otherwise(tier),
            _r=pl.when(pl.col("label") == 1).then(0).otherwise(rank),
            _p=prio,
        )
        .sort(["query_id", "tool_id", "label", "_t", "_r", "_p", "request_id"],
              descending=[False, False, True, False, False, False, False])
        .unique(["query_id", "tool_id"], keep="first", maintain_order=True)
        .drop("_t", "_r", "_p")
    )


@dataclass(frozen=True)
class MinedPairs:
    """`pairs`: PAIRS_SCHEMA columns plus `rank` (negatives' order within their source);
    `tools`: TOOLS_SCHEMA; `stats`: counts for metrics."""

    pairs: pl.DataFrame
    tools: pl.DataFrame
    stats: Mapping[str, int] = field(default_factory=dict)


def mine_pairs(
    traces: pl.LazyFrame,
    cards: Sequence[ToolCard],
    *,
    seed: int,
    valid_share: float,
    negatives_per_query: int,
    synthetic_per_tool: int,
    new_tool_days: int,
    hard_negatives: HardNegativeSource | None = None,
    synthetic_queries_per_tool: int = 0,
    query_generator: QueryGenerator | None = None,
) -> MinedPairs:
    """Mine every labeled pair from trace events and the catalog (see the module doc).

    `hard_negatives` is called once with the distinct texts of the train queries that
    have a positive (the only queries a sampler draws) and room left under the cap after
    the trace and near-duplicate negatives; None mines no index negatives.
    `query_generator` writes the `synthetic_query` texts (None: the templates).
    """
    catalog_ids = pl.DataFrame({"tool_id": [c.tool_id for c in cards]}).lazy()
    all_events = prepare_events(
        traces.join(catalog_ids, on="tool_id", how="semi"), seed=seed, valid_share=valid_share
    ).collect()
    popularity = dict(
        all_events.filter(pl.col("success")).group_by("tool_id").len().iter_rows()
    )
    tools = tool_frame(cards, popularity, new_tool_days=new_tool_days)
    events = drop_leaks(all_events.lazy()).collect()

    # one text per query id (the smallest surface form), so every row of a query reads alike
    canonical = all_events.group_by("query_id").agg(pl.col("query").min())
    trace_pos = events.lazy().filter(pl.col("success")).with_columns(
        label=pl.lit(1), source=pl.lit("trace_success"), rank=pl.lit(0)
    )
    synthetic = synthetic_positives(
        cards, popularity, per_tool=synthetic_per_tool,
        queries_per_tool=synthetic_queries_per_tool, generator=query_generator, seed=seed,
    )
    valid_qids = events.lazy().filter(pl.col("split") == "valid").select("query_id").unique()
    synthetic_kept = synthetic.join(valid_qids, on="query_id", how="anti")
    positives = pl.concat([_pairs(trace_pos), _pairs(synthetic_kept)])

    # gold = successful traces for the text anywhere (before drops) plus synthetic pairs
    gold = pl.concat([
        all_events.lazy().filter(pl.col("success")).select("query_id", "tool_id"),
        synthetic.select("query_id", "tool_id"),
    ]).unique()
    excluded = gold.join(equivalent_tools(tools), on="tool_id").select(
        "query_id", pl.col("equivalent_id").alias("tool_id")
    ).unique()

    query_split = pl.concat([
        events.lazy().select("query_id", "request_id", "split"),
        synthetic_kept.select("query_id", "request_id", "split"),
    ]).group_by("query_id").agg(pl.col("request_id").min(), pl.col("split").first())
    failures = (
        events.lazy().filter(~pl.col("success"))
        .group_by("query_id", "tool_id")
        .agg(pl.col("request_id").min(), pl.col("split").first(), pl.len().alias("n"))
        .with_columns(
            source=pl.lit("trace_failure"), rank=-pl.col("n").cast(pl.Int32), label=pl.lit(0)
        )
    )
    unchosen = (
        events.lazy().filter(pl.col("success"))
        .select("query_id", "request_id", "split", "tool_id", pl.col("menu").alias("shown"))
        .explode("shown")
        .filter(pl.col("shown").is_not_null() & (pl.col("shown") != pl.col("tool_id")))
        .group_by("query_id", "shown")
        .agg(pl.col("request_id").min(), pl.col("split").first(), pl.len().alias("n"))
        .rename({"shown": "tool_id"})
        .with_columns(
            source=pl.lit("menu_unchosen"), rank=-pl.col("n").cast(pl.Int32), label=pl.lit(0)
        )
    )
    near_dups = (
        positives.select("query_id", "tool_id")
        .join(near_duplicate_tools(tools), on="tool_id")
        .select("query_id", pl.col("duplicate_id").alias("tool_id"))
        .unique()
        .join(query_split, on="query_id")
        .with_columns(source=pl.lit("near_duplicate"), rank=pl.lit(0), label=pl.lit(0))
    )
    soft = (
        pl.concat([_pairs(failures), _pairs(unchosen), _pairs(near_dups)])
        .join(catalog_ids, on="tool_id", how="semi")  # menus scanned from Parquet are unchecked
        .join(excluded, on=["query_id", "tool_id"], how="anti")
    )
    negative_parts = [soft]
    texts = pl.concat([
        canonical.lazy(),
        synthetic_kept.group_by("query_id").agg(pl.col("query").min()),
    ]).unique("query_id", keep="first", maintain_order=True)

    n_hard_queries = 0
    if hard_negatives is not None:
        # Index negatives come last in the cap order: a query whose higher tiers already
        # fill `negatives_per_query` would drop every one of them, so only the others are
        # mined (same output as mining all, at a fraction of the encode time).
        full = (
            soft.select("query_id", "tool_id").unique()
            .group_by("query_id").len()
            .filter(pl.col("len") >= negatives_per_query)
        )
        train_queries = (
            positives.filter(pl.col("split") == "train")
            .select("query_id").unique()
            .join(full, on="query_id", how="anti")
            .join(texts, on="query_id", how="left")
            .sort("query_id")
            .collect()
        )
        n_hard_queries = train_queries.height
        started = time.perf_counter()
        hard = hard_negatives(train_queries["query"].to_list())
        log.info("hard negatives for %d queries in %.1fs", n_hard_queries,
                 time.perf_counter() - started)
        hard_pairs = (
            hard.lazy()
            .join(train_queries.lazy(), on="query")
            .join(catalog_ids, on="tool_id", how="semi")
            .join(excluded, on=["query_id", "tool_id"], how="anti")
            .join(query_split, on="query_id")
            .with_columns(label=pl.lit(0))
        )
        negative_parts.append(_pairs(hard_pairs))

    negatives = rerank_hard(pl.concat(negative_parts))
    merged = dedupe_pairs(pl.concat([positives, negatives]))
    kept = pl.concat([
        merged.filter(pl.col("label") == 1),
        cap_negatives(merged.filter(pl.col("label") == 0), negatives_per_query),
    ])
    pairs = (
        kept.join(texts, on="query_id", how="left")
        .join(tools.lazy().select("tool_id", "is_new", "popularity"), on="tool_id", how="left")
        .select("query_id", "request_id", "query", "tool_id", "label", "source", "split",
                "is_new", "popularity", "rank")
        .sort(["split", "query_id", "label", "tool_id"], descending=[False, False, True, False])
        .collect()
    )
    check_split(pairs, events)
    n_events_train = int(all_events.filter(pl.col("split") == "train").height)
    stats = {
        "n_events": all_events.height,
        "n_events_train": n_events_train,
        "n_events_valid": all_events.height - n_events_train,
        "n_events_dropped_leak": all_events.height - events.height,
        "n_synthetic_dropped_leak": int(
            synthetic.collect().height - synthetic_kept.collect().height
        ),
        "n_hard_negative_queries": n_hard_queries,
        "n_queries": int(pairs["query_id"].n_unique()),
        "n_requests": int(pairs["request_id"].n_unique()),
    }
    return MinedPairs(pairs=pairs, tools=tools, stats=stats)

"""The negative side of trace mining: which tools may be a query's negatives, the order the
per-query cap keeps them in, and the index's hard negatives (`features.mining` says what
each source is and puts them together with the positives).

- never a negative: a tool `equivalent_tools` pairs with a gold tool (itself, or a tool on
  its server sharing a capability); `near_duplicate_tools` (one of its capabilities on
  another server) are its `near_duplicate` negatives.
- the cap order (`negative_order`): the source's tier, then its rank, then its priority.
  `dense_hard` and `bm25_hard` form one tier interleaved by retrieval rank (dense first on
  equal rank): under a strict dense-before-BM25 order the dense top-k would fill every cap
  and the lexical confusers BM25 finds (exact tokens, product names) would never survive.
  `SOURCE_PRIORITY` also orders the positive sources, which rank apart (label first).
- `IndexNegativeMiner`: the top `depth` hits of the current bundle's dense and BM25
  retrievers, a `HardNegativeSource`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

# Lower sorts first. Positives and negatives are ranked separately (label first).
SOURCE_PRIORITY: Mapping[str, int] = {
    "trace_success": 0,
    "synthetic_example": 1,
    "synthetic_summary": 2,
    "synthetic_query": 3,
    "near_duplicate": 0,
    "trace_failure": 1,
    "menu_unchosen": 2,
    "dense_hard": 3,
    "bm25_hard": 4,
}
# The cap tier: dense and BM25 share tier 3 and interleave by rank (see the module doc).
NEGATIVE_TIER: Mapping[str, int] = {**SOURCE_PRIORITY, "bm25_hard": 3}

# (query texts) -> frame with columns query, tool_id, source, rank (1 = best)
HardNegativeSource = Callable[[Sequence[str]], pl.DataFrame]
HARD_SCHEMA = pl.Schema(
    {"query": pl.String, "tool_id": pl.String, "source": pl.String, "rank": pl.Int32}
)


# --- equivalent and near-duplicate tools ----------------------------------------------


def _capability_rows(tools: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    return (
        tools.lazy()
        .select("tool_id", "server", pl.col("capabilities").alias("capability"))
        .explode("capability")
        .drop_nulls("capability")
        .unique()
    )


def equivalent_tools(tools: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """(tool_id, equivalent_id): itself, and tools on its server sharing a capability."""
    caps = _capability_rows(tools)
    same_server = caps.join(caps, on=["server", "capability"], suffix="_eq").select(
        "tool_id", pl.col("tool_id_eq").alias("equivalent_id")
    )
    itself = tools.lazy().select("tool_id", pl.col("tool_id").alias("equivalent_id"))
    return pl.concat([itself, same_server]).unique()


def near_duplicate_tools(tools: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """(tool_id, duplicate_id): tools on another server with one of its capabilities."""
    caps = _capability_rows(tools)
    return (
        caps.join(caps, on="capability", suffix="_dup")
        .filter(pl.col("server") != pl.col("server_dup"))
        .select("tool_id", pl.col("tool_id_dup").alias("duplicate_id"))
        .unique()
    )


# --- the cap order --------------------------------------------------------------------


def negative_order() -> list[pl.Expr]:
    """The negative cap order as sort keys: tier, rank, source priority."""
    tier = pl.col("source").replace_strict(NEGATIVE_TIER, default=99, return_dtype=pl.Int32)
    prio = pl.col("source").replace_strict(SOURCE_PRIORITY, default=99, return_dtype=pl.Int32)
    return [tier, pl.col("rank"), prio]


def rerank_hard(negatives: pl.LazyFrame) -> pl.LazyFrame:
    """Renumber index hits 1..k per (query, source) after exclusions, so a source whose top
    hits were the gold interleaves fairly with the other one."""
    hard = pl.col("source").is_in(["dense_hard", "bm25_hard"])
    renumbered = pl.col("rank").rank("ordinal").over(["query_id", "source"]).cast(pl.Int32)
    return negatives.with_columns(
        rank=pl.when(hard).then(renumbered).otherwise(pl.col("rank"))
    )


def cap_negatives(negatives: pl.LazyFrame, per_query: int) -> pl.LazyFrame:
    """Keep each query's best `per_query` negatives: by tier, rank, source, then tool id."""
    tier, rank, prio = negative_order()
    return (
        negatives.with_columns(_t=tier, _p=prio)
        .sort(["query_id", "_t", "rank", "_p", "tool_id"])
        .filter(pl.int_range(pl.len()).over("query_id") < per_query)
        .drop("_t", "_p")
    )


# --- hard negatives from the current index --------------------------------------------


class IndexNegativeMiner:
    """Top-`depth` BM25 and dense hits of a bundle's index, as a `HardNegativeSource`.

    BM25 goes through `serving.stages.retrieve.BM25Retriever.search` (bm25s `get_scores`, the
    runtime's path). Dense encodes all distinct query texts in one batched call with the
    bundle's retriever and scores them against the bundle embeddings in chunks of
    `chunk_size` queries (bounded memory at 100k tools). Encoding is the cost (~225
    texts/s on 2 idle CPU cores, far less on a busy one), so `mine_pairs` asks only about
    train queries with a positive whose cap the trace and near-duplicate negatives leave
    open: on the demo world 1,739 of 19,079 distinct train queries, with byte-identical
    output to asking about all of them.
    """

    def __init__(
        self,
        bundle: Any,
        *,
        depth: int,
        batch_size: int = 64,
        chunk_size: int = 1024,
        show_progress: bool = False,
    ) -> None:
        self.bundle = bundle
        self.depth = depth
        self.batch_size = batch_size
        self.chunk_size = chunk_size
        self.show_progress = show_progress
        self.timings: dict[str, float] = {}

    def __call__(self, queries: Sequence[str]) -> pl.DataFrame:
        from tqdm import tqdm

        from serving.bundle.encoder import Encoder
        from serving.stages.retrieve import BM25Retriever, top_n

        tool_ids = [c.tool_id for c in self.bundle.cards]
        mask = np.ones(len(tool_ids), dtype=bool)
        rows: dict[str, list[Any]] = {name: [] for name in HARD_SCHEMA}

        def add(query: str, hits: list[tuple[int, float]], source: str) -> None:
            for rank, (row, _score) in enumerate(hits, start=1):
                rows["query"].append(query)
                rows["tool_id"].append(tool_ids[row])
                rows["source"].append(source)
                rows["rank"].append(rank)

        started = time.perf_counter()
        bm25 = BM25Retriever.load(self.bundle.bm25_path)
        for query in tqdm(queries, desc="bm25 negatives", disable=not self.show_progress):
            add(query, bm25.search(query, mask, self.depth), "bm25_hard")
        self.timings["bm25_seconds"] = time.perf_counter() - started

        started = time.perf_counter()
        retriever = self.bundle.weights.check(self.bundle.retriever_path)
        vectors = Encoder(retriever, batch_size=self.batch_size).encode(
            list(queries), show_progress=self.show_progress
        ) if queries else np.zeros((0, self.bundle.embeddings.shape[1]), dtype=np.float32)
        self.timings["encode_seconds"] = time.perf_counter() - started

        started = time.perf_counter()
        embeddings = self.bundle.embeddings
        for lo in range(0, len(queries), self.chunk_size):
            scores = vectors[lo : lo + self.chunk_size] @ embeddings.T
            for offset, row_scores in enumerate(scores):
                add(queries[lo + offset], top_n(row_scores, mask, self.depth), "dense_hard")
        self.timings["dense_seconds"] = time.perf_counter() - started
        return pl.DataFrame(rows, schema=HARD_SCHEMA)

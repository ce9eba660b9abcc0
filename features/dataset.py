"""The training-set contract: the Parquet files `mine` writes and the trainers read.

Declared once here; writers cast to these schemas and readers validate against them.
Rows hold tool ids, not texts: trainers turn a tool id into `ToolCard.index_text()` from
the catalog, the same text the runtime indexes (no training/serving skew).

pairs.parquet       every mined (query, tool, label) pair, deduplicated, both splits
retriever.parquet   sampled (anchor, positive, hard negative) triplets for the bi-encoder,
                    one block per sampler ("explore" and "uniform"), train split only
reranker.parquet    groups for the cross-encoder replayed through the runtime in each
                    trace's session (features.candidates): train groups are one positive
                    and its hardest candidates; valid groups all the candidates
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

POSITIVE_SOURCES = ("trace_success", "synthetic_example", "synthetic_summary", "synthetic_query")
NEGATIVE_SOURCES = ("trace_failure", "menu_unchosen", "near_duplicate", "bm25_hard", "dense_hard")
# sampled rows may fall back to a random tool of another capability when none was mined
SAMPLED_NEGATIVE_SOURCES = NEGATIVE_SOURCES + ("random",)
# a reranker group's negatives: what the runtime hands the reranker, in the trace's session
CANDIDATE_SOURCE = "runtime_candidate"
SPLITS = ("train", "valid")
SAMPLERS = ("explore", "uniform")

PAIRS_SCHEMA = pl.Schema(
    {
        "query_id": pl.String,  # sha of the normalised query text: one id per distinct text
        "request_id": pl.String,  # the split unit: a request's texts never straddle splits
        "query": pl.String,  # the subgoal text as the runtime would see it
        "tool_id": pl.String,
        "label": pl.Int8,  # 1 positive, 0 negative
        "source": pl.String,  # one of POSITIVE_SOURCES or NEGATIVE_SOURCES
        "split": pl.String,  # train | valid
        "is_new": pl.Boolean,  # the row's tool was added recently
        "popularity": pl.Int32,  # successful traces of the tool, over the whole trace set
    }
)

RETRIEVER_SCHEMA = pl.Schema(
    {
        "sampler": pl.String,  # explore | uniform
        "query_id": pl.String,
        "anchor": pl.String,  # query text
        "positive": pl.String,  # tool id
        "negative": pl.String,  # tool id of a mined hard negative
        "negative_source": pl.String,  # one of SAMPLED_NEGATIVE_SOURCES
        "is_new": pl.Boolean,
        "popularity": pl.Int32,
    }
)

RERANKER_SCHEMA = pl.Schema(
    {
        "group_id": pl.String,  # "<query_id>:<positive tool_id>"
        "query": pl.String,
        "tool_id": pl.String,
        "label": pl.Int8,
        "source": pl.String,  # a positive source or CANDIDATE_SOURCE
        "split": pl.String,  # train | valid (valid groups hold all the runtime's candidates)
        "fused_rank": pl.Int32,  # 1-based in the runtime's filtered fused order; 0: not in it
    }
)


class DatasetSchemaError(ValueError):
    pass


def check_schema(frame: pl.DataFrame | pl.LazyFrame, schema: pl.Schema, name: str) -> None:
    actual = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    if dict(actual) != dict(schema):
        missing = sorted(set(schema) - set(actual))
        wrong = sorted(k for k in schema if k in actual and actual[k] != schema[k])
        extra = sorted(set(actual) - set(schema))
        raise DatasetSchemaError(
            f"{name}: schema mismatch (missing {missing}, wrong type {wrong}, extra {extra})"
        )


def write_parquet(frame: pl.DataFrame, schema: pl.Schema, path: str | Path) -> None:
    out = frame.select([pl.col(k).cast(v) for k, v in schema.items()])
    check_schema(out, schema, str(path))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    out.write_parquet(path)


def scan_parquet(path: str | Path, schema: pl.Schema) -> pl.LazyFrame:
    frame = pl.scan_parquet(path)
    check_schema(frame, schema, str(path))
    return frame

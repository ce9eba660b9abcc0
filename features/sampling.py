"""Exploration-aware sampling of the mined pairs into trainer-ready rows.

Traffic is head-heavy: a few tools take most successful traces, new tools have none.
Training on traces as they come teaches the retriever the head and little else. The
exploration sampler flattens that, the uniform sampler keeps it (the ablation baseline):

explore   1. per-tool cap: at most `max_per_tool` rows of a tool (its top rows by key);
          2. weights `w = max(popularity, 1) ** -temperature` (popularity 4, temperature
             0.5 -> 0.5; temperature 0 -> every row alike);
          3. weighted sampling without replacement (Efraimidis-Spirakis: key
             `log(u) / w`, u ~ U(0, 1] from the seed; the `n` largest keys win);
          4. a guaranteed quota of `new_tool_quota` rows for every new tool, its best
             rows by key (synthetic ones included), repeated cyclically only when it has
             fewer; the quota is reserved first and the weighted draw fills the rest.
          A tool ends with at most max(max_per_tool, new_tool_quota) rows.
uniform   every positive row with weight `max(popularity, 1) / rows of its tool`, same
          draw: a tool's expected share is proportional to its popularity (its successful
          traces), as if successful trace events were drawn uniformly. No cap, no quota.

Each sampled row gets one negative for MultipleNegativesRankingLoss: its query's mined
negatives in cap order (tier, rank, source); the k-th draw of the same query takes the
k-th negative (cyclically), so repeats see different negatives. A query without mined
negatives gets a seeded random tool that shares no capability with any gold tool of the
query (source `random`, see `RANDOM_SOURCE`).

Popularity buckets (`popularity_buckets`): `new` for new tools; the others sorted by
popularity (ties by tool id) and cut on the cumulative share of successful traces held
by the tools *before* them: below 50 % -> `head`, below 80 % -> `torso`, else `tail`
(tools without traces are tail). So head tools carry about half the traffic.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from features.dataset import SAMPLED_NEGATIVE_SOURCES
from features.negatives import negative_order

log = logging.getLogger(__name__)

RANDOM_SOURCE = SAMPLED_NEGATIVE_SOURCES[-1]  # "random": the fallback negative
BUCKETS = ("head", "torso", "tail", "new")
HEAD_SHARE = 0.5
TORSO_SHARE = 0.8
# Independent random streams per use, all derived from the one seed.
_STREAMS = {
    "explore": 1, "uniform": 2, "reranker": 3, "random_negative": 4, "synthetic_context": 5,
    "ltr": 6,
}


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """Mirror of `mine.sampling` in params.yaml."""

    n_samples: int
    max_per_tool: int
    temperature: float
    new_tool_quota: int


def rng_for(seed: int, stream: str) -> np.random.Generator:
    return np.random.default_rng([seed, _STREAMS[stream]])


def exploration_weights(popularity: pl.Series | np.ndarray, temperature: float) -> np.ndarray:
    """`max(popularity, 1) ** -temperature`, float64."""
    pop = np.maximum(np.asarray(popularity, dtype=np.float64), 1.0)
    return np.power(pop, -float(temperature))


def uniform_weights(positives: pl.DataFrame) -> np.ndarray:
    """`max(popularity, 1) / rows of the tool`: a tool's mass is its popularity."""
    per_tool = positives.select(
        (pl.max_horizontal(pl.col("popularity"), 1).cast(pl.Float64)
         / pl.len().over("tool_id")).alias("w")
    )
    return per_tool["w"].to_numpy()


def es_keys(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Efraimidis-Spirakis keys `log(u) / w`: the n largest are a weighted sample of n
    without replacement (log form of u ** (1 / w), same order, no underflow)."""
    u = 1.0 - rng.random(len(weights))  # (0, 1]: log never -inf
    return np.log(u) / np.asarray(weights, dtype=np.float64)


def train_positives(pairs: pl.DataFrame) -> pl.DataFrame:
    """Train-split positive rows in a canonical order (the draws depend only on content)."""
    return pairs.filter((pl.col("split") == "train") & (pl.col("label") == 1)).sort(
        "query_id", "tool_id"
    )


def ordered_negatives(pairs: pl.DataFrame) -> pl.DataFrame:
    """Train negatives with `neg_index` 0.. per query in cap order and `n_negatives`."""
    frame = pairs if "rank" in pairs.columns else pairs.with_columns(rank=pl.lit(0, pl.Int32))
    tier, rank, prio = negative_order()
    return (
        frame.filter((pl.col("split") == "train") & (pl.col("label") == 0))
        .with_columns(_t=tier, _r=rank, _p=prio)
        .sort("query_id", "_t", "_r", "_p", "tool_id")
        .with_columns(
            neg_index=pl.int_range(pl.len()).over("query_id"),
            n_negatives=pl.len().over("query_id"),
        )
        .select("query_id", "tool_id", "source", "neg_index", "n_negatives")
    )


def _top_by_key(frame: pl.DataFrame, n: int) -> pl.DataFrame:
    return frame.sort(["_key", "_row"], descending=[True, False]).head(max(n, 0))


def sample_explore(
    positives: pl.DataFrame,
    params: SamplingParams,
    *,
    seed: int,
    stream: str = "explore",
    repeat_quota: bool = True,
) -> pl.DataFrame:
    """Cap, weight, draw, then the new-tool quota (module doc). Returns positive rows in
    draw order (quota rows first); fewer than `n_samples` only if the pool is smaller.
    `repeat_quota=False` never repeats a row: a new tool with fewer rows than the quota
    gives all it has (the reranker's groups must be distinct)."""
    frame = positives.with_columns(
        _key=es_keys(
            exploration_weights(positives["popularity"], params.temperature),
            rng_for(seed, stream),
        ),
        _row=pl.int_range(pl.len()),
    ).with_columns(
        _tool_rank=pl.col("_key").rank("ordinal", descending=True).over("tool_id") - 1
    )
    quota_pool = frame.filter(
        pl.col("is_new") & (pl.col("_tool_rank") < params.new_tool_quota)
    ).sort(["tool_id", "_tool_rank"])
    quota = _with_replacement(quota_pool, params.new_tool_quota) if repeat_quota else quota_pool
    rest = frame.filter(
        (pl.col("_tool_rank") < params.max_per_tool)
        & ~(pl.col("is_new") & (pl.col("_tool_rank") < params.new_tool_quota))
    )
    if quota.height > params.n_samples:
        log.warning("new-tool quota alone takes %d rows > n_samples %d",
                    quota.height, params.n_samples)
    drawn = _top_by_key(rest, params.n_samples - quota.height)
    return pl.concat([quota, drawn]).drop("_key", "_row", "_tool_rank")


def _with_replacement(rows: pl.DataFrame, quota: int) -> pl.DataFrame:
    """Each tool's rows (sorted by tool, rank) repeated cyclically up to `quota` rows."""
    if rows.is_empty() or quota <= 0:
        return rows.clear()
    counts = rows.group_by("tool_id").len()
    per_row = rows.join(counts, on="tool_id", how="left", maintain_order="left")
    # row r of a tool with c rows is used for draws r, r + c, r + 2c, ... below quota
    copies = ((quota - per_row["_tool_rank"] + per_row["len"] - 1) // per_row["len"]).to_numpy()
    repeated = per_row[np.repeat(np.arange(rows.height), np.maximum(copies, 0))]
    # draw order within a tool: r, r + c, r + 2c, ... (not r, r, r, r + 1, ...)
    draw = pl.int_range(pl.len()).over(["tool_id", "_tool_rank"]) * pl.col("len") + pl.col(
        "_tool_rank"
    )
    return repeated.with_columns(_draw=draw).sort("tool_id", "_draw").drop("_draw", "len")


def sample_uniform(positives: pl.DataFrame, *, n: int, seed: int) -> pl.DataFrame:
    """Popularity-proportional draw of `n` rows without replacement (module doc)."""
    frame = positives.with_columns(
        _key=es_keys(uniform_weights(positives), rng_for(seed, "uniform")),
        _row=pl.int_range(pl.len()),
    )
    return _top_by_key(frame, n).drop("_key", "_row")


def gold_capabilities(pairs: pl.DataFrame, tools: pl.DataFrame) -> dict[str, set[str]]:
    """query_id -> every capability of every gold tool of the query (all splits)."""
    caps = (
        pairs.filter(pl.col("label") == 1)
        .select("query_id", "tool_id")
        .join(tools.select("tool_id", "capabilities"), on="tool_id", how="left")
        .explode("capabilities")
        .drop_nulls("capabilities")
        .group_by("query_id")
        .agg(pl.col("capabilities").unique())
    )
    return {q: set(c) for q, c in caps.iter_rows()}


def random_negatives(
    query_ids: list[str],
    gold: Mapping[str, set[str]],
    gold_tools: Mapping[str, set[str]],
    tools: pl.DataFrame,
    rng: np.random.Generator,
    *,
    attempts: int = 64,
) -> list[str | None]:
    """A random tool per query sharing no capability with its gold (None if none exists)."""
    ids = tools["tool_id"].to_list()
    caps = [set(c or ()) for c in tools["capabilities"].to_list()]
    out: list[str | None] = []
    for qid in query_ids:
        bad_caps, bad_ids = gold.get(qid, set()), gold_tools.get(qid, set())

        def ok(i: int, bad_caps: set[str] = bad_caps, bad_ids: set[str] = bad_ids) -> bool:
            return ids[i] not in bad_ids and not (caps[i] & bad_caps)

        pick = next((int(i) for i in rng.integers(0, len(ids), attempts) if ok(int(i))), None)
        if pick is None:  # a catalog dense in this capability: scan, still seeded
            start = int(rng.integers(0, len(ids)))
            pick = next((j % len(ids) for j in range(start, start + len(ids))
                         if ok(j % len(ids))), None)
        out.append(ids[pick] if pick is not None else None)
    return out


def _gold_tools(pairs: pl.DataFrame) -> dict[str, set[str]]:
    gold = pairs.filter(pl.col("label") == 1).group_by("query_id").agg(pl.col("tool_id"))
    return {q: set(t) for q, t in gold.iter_rows()}


def attach_negatives(
    sampled: pl.DataFrame,
    pairs: pl.DataFrame,
    tools: pl.DataFrame,
    *,
    sampler: str,
    seed: int,
) -> pl.DataFrame:
    """RETRIEVER_SCHEMA rows: one negative per sampled positive (module doc)."""
    negatives = ordered_negatives(pairs)
    counts = negatives.select("query_id", "n_negatives").unique()
    rows = (
        sampled.with_columns(_order=pl.int_range(pl.len()))
        .with_columns(_k=pl.int_range(pl.len()).over("query_id", order_by="_order"))
        .join(counts, on="query_id", how="left")
        .with_columns(neg_index=pl.col("_k") % pl.col("n_negatives"))
        .join(
            negatives.select("query_id", "neg_index", pl.col("tool_id").alias("negative"),
                             pl.col("source").alias("negative_source")),
            on=["query_id", "neg_index"],
            how="left",
        )
        .sort("_order")
    )
    missing = rows.filter(pl.col("negative").is_null())
    if missing.height:
        picks = random_negatives(
            missing["query_id"].to_list(),
            gold_capabilities(pairs, tools),
            _gold_tools(pairs),
            tools,
            rng_for(seed, "random_negative"),
        )
        fill = missing.select("_order").with_columns(
            _neg=pl.Series(picks, dtype=pl.String),
            _src=pl.lit(RANDOM_SOURCE),
        )
        rows = rows.join(fill, on="_order", how="left").with_columns(
            negative=pl.coalesce("negative", "_neg"),
            negative_source=pl.when(pl.col("negative_source").is_null())
            .then(pl.col("_src"))
            .otherwise(pl.col("negative_source")),
        )
        n_none = int(rows["negative"].null_count())
        if n_none:
            log.warning("%s: %d rows without any possible negative dropped", sampler, n_none)
            rows = rows.filter(pl.col("negative").is_not_null())
    return rows.select(
        pl.lit(sampler).alias("sampler"),
        "query_id",
        pl.col("query").alias("anchor"),
        pl.col("tool_id").alias("positive"),
        "negative",
        "negative_source",
        "is_new",
        "popularity",
    )


def retriever_rows(
    pairs: pl.DataFrame, tools: pl.DataFrame, params: SamplingParams, *, seed: int
) -> dict[str, pl.DataFrame]:
    """Both samplers' RETRIEVER_SCHEMA rows, keyed `explore` and `uniform`."""
    positives = train_positives(pairs)
    explore = sample_explore(positives, params, seed=seed)
    uniform = sample_uniform(positives, n=params.n_samples, seed=seed)
    return {
        "explore": attach_negatives(explore, pairs, tools, sampler="explore", seed=seed),
        "uniform": attach_negatives(uniform, pairs, tools, sampler="uniform", seed=seed),
    }


def popularity_buckets(tools: pl.DataFrame) -> pl.DataFrame:
    """tool_id -> bucket (head / torso / tail / new; cut points in the module doc)."""
    ranked = tools.filter(~pl.col("is_new")).sort(
        ["popularity", "tool_id"], descending=[True, False]
    )
    total = max(int(ranked["popularity"].sum()), 0)
    before = ranked["popularity"].cum_sum() - ranked["popularity"]
    share = before.cast(pl.Float64) / total if total else pl.Series([1.0] * ranked.height)
    bucket = [
        "head" if s < HEAD_SHARE else "torso" if s < TORSO_SHARE else "tail"
        for s in share.to_list()
    ]
    old = ranked.select("tool_id").with_columns(bucket=pl.Series(bucket, dtype=pl.String))
    new = tools.filter(pl.col("is_new")).select("tool_id", bucket=pl.lit("new"))
    return pl.concat([old, new])


def bucket_shares(
    rows: pl.DataFrame, buckets: pl.DataFrame, *, tool_column: str = "tool_id"
) -> dict[str, float]:
    """Share of `rows` per bucket (every bucket present, 0.0 when empty)."""
    if rows.is_empty():
        return dict.fromkeys(BUCKETS, 0.0)
    counts = (
        rows.select(pl.col(tool_column).alias("tool_id"))
        .join(buckets, on="tool_id", how="left")
        .group_by("bucket")
        .len()
    )
    found = dict(counts.iter_rows())
    return {b: round(found.get(b, 0) / rows.height, 6) for b in BUCKETS}

"""DVC stage `mine`: traces + catalog + the current index -> the training-set Parquet files.

    python -m training.mine PARAMS CATALOG TRACES BUNDLE OUT_DIR PLOT METRICS

Writes OUT_DIR/{pairs,retriever,reranker}.parquet (schemas in `features.dataset`), PLOT (bar
chart of the popularity-bucket shares before and after each sampler) and a CSV of the same
numbers beside it (PLOT with `.csv`, for `dvc plots`), and METRICS. Bad catalog or trace
lines are skipped, counted and quarantined beside OUT_DIR (`<OUT_DIR>.traces.quarantine.jsonl`).
The output depends only on the inputs and params (seeded draws, hashed split, dates
relative to the catalog), so `dvc repro` reproduces it byte for byte; with
`synthetic_query_generator: llm` the `synthetic_query` texts are as repeatable as the
endpoint (`TOOLSIFT_LLM_*`, which DVC does not track).
"""

from __future__ import annotations

import argparse
import csv
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import polars as pl

from features.candidates import CandidateSource, GroupParams, RuntimeCandidates, runtime_groups
from features.dataset import (
    PAIRS_SCHEMA,
    RERANKER_SCHEMA,
    RETRIEVER_SCHEMA,
    write_parquet,
)
from features.mining import mine_pairs, traces_frame
from features.negatives import HardNegativeSource, IndexNegativeMiner
from features.sampling import (
    BUCKETS,
    SamplingParams,
    bucket_shares,
    popularity_buckets,
    retriever_rows,
    train_positives,
)
from features.synthetic import GENERATORS, LLMQueryGenerator, QueryGenerator, make_query_generator
from serving.model.io import load_catalog, load_traces, quarantine_path_for
from serving.model.schema import ToolCard, Trace
from training.core.metrics_io import write_metrics
from training.core.params import ParamsError, load_params

log = logging.getLogger(__name__)
STAGE = "mine"
SAMPLES = ("all_positives", "explore", "uniform")


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `mine` section of params.yaml (every key required, none extra)."""

    seed: int
    valid_share: float
    hard_negative_depth: int
    negatives_per_query: int
    synthetic_per_tool: int
    synthetic_queries_per_tool: int  # generated queries per under-traced tool; 0 = off
    synthetic_query_generator: str  # template | llm (TOOLSIFT_LLM_*, templates on failure)
    new_tool_days: int
    sampling: SamplingParams
    reranker_groups: int  # train groups for the cross-encoder (one positive each)
    reranker_negatives: int  # runtime candidates beside the positive in a train group
    reranker_valid_groups: int  # valid groups (every runtime candidate)
    synthetic_servers: int  # other servers connected when replaying a cold-start pair

    def __post_init__(self) -> None:
        ints = [(f.name, getattr(self, f.name)) for f in fields(self) if f.type in ("int", int)]
        ints += [
            (f"sampling.{f.name}", getattr(self.sampling, f.name))
            for f in fields(self.sampling)
            if f.type in ("int", int)
        ]
        for name, value in ints:
            if value < 0:
                raise ParamsError(f"{STAGE}.{name}: expected an integer >= 0, got {value!r}")
        if not 0.0 <= self.valid_share < 1.0:
            raise ParamsError(f"{STAGE}.valid_share: {self.valid_share} not in [0, 1)")
        if self.sampling.temperature < 0:
            raise ParamsError(f"{STAGE}.sampling.temperature: must be >= 0")
        if self.synthetic_query_generator not in GENERATORS:
            raise ParamsError(
                f"{STAGE}.synthetic_query_generator: {self.synthetic_query_generator!r} is not "
                f"one of {', '.join(GENERATORS)}"
            )


@dataclass(frozen=True)
class MineResult:
    pairs: pl.DataFrame
    retriever: pl.DataFrame
    reranker: pl.DataFrame
    shares: dict[str, dict[str, float]]  # sample -> bucket -> share
    metrics: dict[str, Any]


def mine(
    traces: Sequence[Trace],
    cards: Sequence[ToolCard],
    params: Params,
    *,
    hard_negatives: HardNegativeSource | None,
    candidates: CandidateSource,
    query_generator: QueryGenerator | None = None,
) -> MineResult:
    """The stage's core: mine pairs, sample both retriever blocks, replay the reranker
    groups through `candidates` (the runtime), and count everything. No file I/O (the
    injected sources read the bundle they were given). `query_generator` writes the
    cold-start `synthetic_query` texts (None: the templates)."""
    mined = mine_pairs(
        traces_frame(traces),
        cards,
        seed=params.seed,
        valid_share=params.valid_share,
        negatives_per_query=params.negatives_per_query,
        synthetic_per_tool=params.synthetic_per_tool,
        new_tool_days=params.new_tool_days,
        hard_negatives=hard_negatives,
        synthetic_queries_per_tool=params.synthetic_queries_per_tool,
        query_generator=query_generator,
    )
    pairs, tools = mined.pairs, mined.tools
    blocks = retriever_rows(pairs, tools, params.sampling, seed=params.seed)
    retriever = pl.concat([blocks["explore"], blocks["uniform"]])
    groups = runtime_groups(
        pairs,
        tools,
        {t.request_id: t.context for t in traces},
        candidates,
        params.sampling,
        GroupParams(
            n_train=params.reranker_groups,
            n_negatives=params.reranker_negatives,
            n_valid=params.reranker_valid_groups,
            synthetic_servers=params.synthetic_servers,
        ),
        seed=params.seed,
    )
    reranker = groups.frame
    buckets = popularity_buckets(tools)
    shares = {
        "all_positives": bucket_shares(train_positives(pairs), buckets),
        "explore": bucket_shares(blocks["explore"], buckets, tool_column="positive"),
        "uniform": bucket_shares(blocks["uniform"], buckets, tool_column="positive"),
    }

    def counts(frame: pl.DataFrame, column: str) -> dict[str, int]:
        return {str(k): int(v) for k, v in sorted(frame.group_by(column).len().iter_rows())}

    metrics: dict[str, Any] = {
        **{k: int(v) for k, v in mined.stats.items()},
        "n_pairs": pairs.height,
        "n_pairs_by_source": counts(pairs, "source"),
        "n_pairs_by_split": counts(pairs, "split"),
        "n_positives_by_split": counts(pairs.filter(pl.col("label") == 1), "split"),
        "n_queries_by_split": {
            split: int(pairs.filter(pl.col("split") == split)["query_id"].n_unique())
            for split in ("train", "valid")
        },
        "n_tools": tools.height,
        "n_new_tools": int(tools["is_new"].sum()),
        "n_tools_by_bucket": counts(buckets, "bucket"),
        "n_retriever_rows": {s: blocks[s].height for s in ("explore", "uniform")},
        "retriever_negative_source": {
            s: counts(blocks[s], "negative_source") for s in ("explore", "uniform")
        },
        "n_reranker_rows": reranker.height,
        "reranker_groups": dict(groups.stats),
        "bucket_share": shares,
    }
    return MineResult(pairs, retriever, reranker, shares, metrics)


def write_plot(shares: Mapping[str, Mapping[str, float]], plot_path: Path) -> Path:
    """A grouped bar chart (Agg) and its numbers as CSV beside it; returns the CSV path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plot_path.parent.mkdir(parents=True, exist_ok=True)
    csv_path = plot_path.with_suffix(".csv")
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["bucket", *SAMPLES])
        for bucket in BUCKETS:
            writer.writerow([bucket, *(f"{shares[s][bucket]:.6f}" for s in SAMPLES)])
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(SAMPLES)
    for i, sample in enumerate(SAMPLES):
        xs = [b + (i - (len(SAMPLES) - 1) / 2) * width for b in range(len(BUCKETS))]
        ax.bar(xs, [shares[sample][b] for b in BUCKETS], width, label=sample)
    ax.set_xticks(range(len(BUCKETS)), BUCKETS)
    ax.set_ylabel("share of sampled positives")
    ax.set_title("Popularity buckets before and after sampling")
    ax.legend()
    fig.tight_layout()
    # no timestamp in the PNG metadata: the same numbers give the same bytes
    fig.savefig(plot_path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return csv_path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (section `mine`)")
    parser.add_argument("catalog", help="tool cards, JSONL")
    parser.add_argument("traces", help="trace events, JSONL (flat or runtime `steps` records), "
                        "or a directory of such files (one per gateway process)")
    parser.add_argument("bundle", help="the current bundle: its BM25 and dense index")
    parser.add_argument("out_dir", help="directory for pairs/retriever/reranker.parquet")
    parser.add_argument("plot", help="bucket-share bar chart (PNG); a CSV goes beside it")
    parser.add_argument("metrics", help="metrics JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from serving.bundle.files import load_bundle
    from training.core.tracking import log_dataset_digest, log_metrics, stage_run

    params = load_params(args.params, STAGE, Params)
    generator = make_query_generator(params.synthetic_query_generator)  # fails before any work
    out_dir = Path(args.out_dir)
    started = time.perf_counter()
    quarantine = {what: quarantine_path_for(out_dir, what) for what in ("catalog", "traces")}
    for stale in quarantine.values():
        stale.unlink(missing_ok=True)  # a quarantine file always describes this run
    catalog = load_catalog(args.catalog, quarantine=quarantine["catalog"])
    log.info(catalog.summary(args.catalog))
    traces = load_traces(
        args.traces,
        known_tools=[c.tool_id for c in catalog.items],
        quarantine=quarantine["traces"],
    )
    log.info(traces.summary(args.traces))
    load_seconds = time.perf_counter() - started

    miner = IndexNegativeMiner(
        load_bundle(args.bundle), depth=params.hard_negative_depth, show_progress=True
    )
    candidates = RuntimeCandidates(args.bundle, show_progress=True)
    result = mine(
        traces.items, catalog.items, params, hard_negatives=miner, candidates=candidates,
        query_generator=generator,
    )

    out_dir.mkdir(parents=True, exist_ok=True)
    outputs = {
        "pairs": (result.pairs, PAIRS_SCHEMA),
        "retriever": (result.retriever, RETRIEVER_SCHEMA),
        "reranker": (result.reranker, RERANKER_SCHEMA),
    }
    for name, (frame, schema) in outputs.items():
        write_parquet(frame, schema, out_dir / f"{name}.parquet")
    plot_path = Path(args.plot)
    csv_path = write_plot(result.shares, plot_path)
    seconds = time.perf_counter() - started
    metrics = {
        **result.metrics,
        "n_trace_lines": traces.n_lines,
        "n_trace_events": len(traces.items),
        "n_quarantined_trace_lines": traces.n_skipped,
        "n_quarantined_catalog_lines": catalog.n_skipped,
        **({"synthetic_query_llm": {"n_calls": generator.n_calls,
                                    "n_failures": generator.n_failures}}
           if isinstance(generator, LLMQueryGenerator) else {}),
        "seconds": {
            "load": round(load_seconds, 2),
            **{k: round(v, 2) for k, v in miner.timings.items()},
            "reranker_candidates": round(candidates.seconds, 2),
            "total": round(seconds, 2),
        },
    }
    write_metrics(args.metrics, metrics)

    with stage_run(STAGE, params={STAGE: asdict(params)}):
        import mlflow

        log_metrics(metrics)
        for name in outputs:
            log_dataset_digest(name, out_dir / f"{name}.parquet")
        for artifact in (plot_path, csv_path, Path(args.metrics)):
            mlflow.log_artifact(str(artifact))
        for path in quarantine.values():
            if path.exists():
                mlflow.log_artifact(str(path), artifact_path="quarantine")

    shares = result.shares
    print(
        f"mine: {result.pairs.height} pairs ({metrics['n_pairs_by_split'].get('train', 0)} "
        f"train / {metrics['n_pairs_by_split'].get('valid', 0)} valid), "
        f"{metrics['n_retriever_rows']['explore']}+{metrics['n_retriever_rows']['uniform']} "
        f"triplets, {metrics['reranker_groups']['n_train_groups']}+"
        f"{metrics['reranker_groups']['n_valid_groups']} reranker groups, "
        f"{traces.n_skipped} trace lines quarantined; tail+new share "
        f"{shares['all_positives']['tail'] + shares['all_positives']['new']:.2f} -> "
        f"{shares['explore']['tail'] + shares['explore']['new']:.2f} (explore) in "
        f"{seconds:.1f}s -> {out_dir}"
    )


if __name__ == "__main__":
    main()

"""DVC stage `train_retriever`: fine-tune the bi-encoder on mined triplets.

    python -m training.train_retriever PARAMS CATALOG TRAIN_DIR OUT_DIR METRICS [--base-model DIR]

Reads `TRAIN_DIR/retriever.parquet` (anchor, positive, hard negative triplets, one block per
sampler) and the valid split of `TRAIN_DIR/pairs.parquet`. Tool ids become
`ToolCard.index_text()` through the catalog, the very text the runtime embeds. The model
trained on the `sampler` block goes to OUT_DIR; with `compare_uniform` a second model
trained the same way on the "uniform" block goes to OUT_DIR-uniform (the sampling ablation).

Validation: every valid query (its label-1 pairs are its gold) is ranked against the whole
catalog by cosine, for the stock model and for each trained one: recall@10 and MRR, over a
stable sample of the valid queries (`valid_*`) and over those whose gold is a new tool
(`valid_new_*`, the slice the exploration sampler is for).

Runs unchanged on a GPU and data-parallel under `accelerate launch` / `torchrun` (see
training/README.md): the Trainer picks the devices; only rank 0 saves and logs.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from features.dataset import PAIRS_SCHEMA, RETRIEVER_SCHEMA, SAMPLERS, scan_parquet
from serving.bundle.encoder import PRECISIONS
from serving.model.io import load_catalog
from serving.model.schema import ToolCard
from training.core.encoder_training import (
    EVAL_BATCH_SIZE,
    TrainingDataError,
    default_device,
    freeze_lower_layers,
    length_grouped_sampler,
    log_model_dir,
    loss_curve,
    maybe_stage_run,
    quiet_progress,
    restore_fp32_forward,
    scratch_dir,
    tool_texts,
    trainer_args,
)
from training.core.metrics_io import write_metrics
from training.core.params import ParamsError, check_numbers, load_params
from training.core.rank_metrics import ranking_metrics

log = logging.getLogger(__name__)
SECTION = "train_retriever"
RETRIEVER_FILE = "retriever.parquet"
PAIRS_FILE = "pairs.parquet"
RECALL_K = 10


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `train_retriever` section of params.yaml."""

    sampler: str  # the block that trains the exported model: explore | uniform
    compare_uniform: bool  # also train on the uniform block into OUT_DIR-uniform
    epochs: int
    batch_size: int  # per device; each anchor sees 2 * batch_size - 1 negatives in its batch
    learning_rate: float
    warmup: float  # share of the steps (a float < 1) or a step count (>= 1)
    max_seq_length: int  # tokens; tool texts are ~30-60 tokens, queries fewer
    precision: str  # auto (bf16 where the hardware has it natively) | fp32 | bf16
    frozen_layers: int  # embeddings + this many lowest transformer blocks stay fixed (0: none)
    group_by_length: bool  # batches of similar-length rows (less padding), else NO_DUPLICATES
    max_valid_queries: int  # validation queries kept (lowest query ids: a stable sample)
    seed: int

    def __post_init__(self) -> None:
        if self.sampler not in SAMPLERS:
            raise ParamsError(f"{SECTION}.sampler: {self.sampler!r} not in {SAMPLERS}")
        if self.precision not in PRECISIONS:
            raise ParamsError(f"{SECTION}.precision: {self.precision!r} not in {PRECISIONS}")
        if self.compare_uniform and self.sampler == "uniform":
            raise ParamsError(f"{SECTION}.compare_uniform needs sampler: explore")
        check_numbers(
            SECTION,
            self,
            ints=("epochs", "batch_size", "max_seq_length", "max_valid_queries"),
            non_negative=("frozen_layers",),
            floats=("learning_rate", "warmup"),
        )


# --- plain shapes -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ValidQueries:
    """Validation queries and their gold tools (BEIR's qrels, restricted to relevance 1)."""

    query_ids: tuple[str, ...]
    texts: tuple[str, ...]
    gold: tuple[frozenset[str], ...]

    def __len__(self) -> int:
        return len(self.query_ids)


@dataclass(frozen=True, slots=True)
class TrainedModel:
    sampler: str
    model: Any  # a SentenceTransformer
    n_triplets: int
    train_seconds: float
    train_loss: float
    loss_curve: tuple[tuple[int, float], ...]  # (step, training loss) as the Trainer logged it


@dataclass(frozen=True, slots=True)
class RetrieverResult:
    models: tuple[TrainedModel, ...]  # the exported one (params.sampler) first
    metrics: dict[str, float]  # validation metrics, each in [0, 1]
    n_queries: dict[str, int]  # per validation slice


# --- data ---------------------------------------------------------------------------------


def _check_known(ids: Sequence[str], texts: Mapping[str, str], what: str) -> None:
    unknown = sorted(set(ids) - set(texts))
    if unknown:
        raise TrainingDataError(
            f"{what}: {len(unknown)} tool ids are not in the catalog (e.g. {unknown[:3]}); "
            "were the training files mined from another catalog?"
        )


def triplet_columns(
    triplets: pl.DataFrame, sampler: str, texts: Mapping[str, str]
) -> dict[str, list[str]]:
    """The (anchor, positive, negative) text columns of one sampler's block, in that order:
    MultipleNegativesRankingLoss reads columns by position."""
    block = triplets.filter(pl.col("sampler") == sampler)
    if block.is_empty():
        raise TrainingDataError(f"{RETRIEVER_FILE}: no triplets for sampler {sampler!r}")
    positives, negatives = block["positive"].to_list(), block["negative"].to_list()
    _check_known(positives + negatives, texts, f"{RETRIEVER_FILE} ({sampler})")
    return {
        "anchor": block["anchor"].to_list(),
        "positive": [texts[t] for t in positives],
        "negative": [texts[t] for t in negatives],
    }


def valid_queries(pairs: pl.DataFrame, *, limit: int, new_only: bool = False) -> ValidQueries:
    """Valid-split queries with their label-1 tools as gold; `new_only`: the queries with a
    new tool among their gold (the cold-start slice). Query ids are hashes, so the lowest
    `limit` of them are a stable, order-independent sample."""
    positives = pairs.filter((pl.col("split") == "valid") & (pl.col("label") == 1))
    if new_only:
        positives = positives.filter(
            pl.col("query_id").is_in(positives.filter(pl.col("is_new"))["query_id"].implode())
        )
    gold = (
        positives.group_by("query_id")
        .agg(pl.col("query").first(), pl.col("tool_id").unique().sort())
        .sort("query_id")
        .head(limit)
    )
    return ValidQueries(
        query_ids=tuple(gold["query_id"].to_list()),
        texts=tuple(gold["query"].to_list()),
        gold=tuple(frozenset(ids) for ids in gold["tool_id"].to_list()),
    )


def validation_slices(pairs: pl.DataFrame, *, limit: int) -> dict[str, ValidQueries]:
    """`valid`: a sample of all valid queries; `valid_new`: those whose gold is a new tool
    (too few to show in the overall sample, and what the exploration sampler is for)."""
    slices = {
        "valid": valid_queries(pairs, limit=limit),
        "valid_new": valid_queries(pairs, limit=limit, new_only=True),
    }
    return {name: queries for name, queries in slices.items() if len(queries)}


# --- metrics ------------------------------------------------------------------------------


def encode(model: Any, texts: Sequence[str]) -> np.ndarray:
    vectors = model.encode(
        list(texts),
        batch_size=EVAL_BATCH_SIZE,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)


def evaluate_retrieval(
    model: Any,
    slices: Mapping[str, ValidQueries],
    texts: Mapping[str, str],
    *,
    k: int = RECALL_K,
) -> dict[str, float]:
    """Rank the whole catalog for each query of each slice by cosine:
    `<slice>_recall_at_<k>`, `<slice>_mrr`."""
    doc_ids = list(texts)
    docs = encode(model, [texts[t] for t in doc_ids])
    out: dict[str, float] = {}
    for name, valid in slices.items():
        scores = encode(model, valid.texts) @ docs.T
        for metric, value in ranking_metrics(scores, doc_ids, valid.gold, k=k).items():
            out[f"{name}_{metric}"] = value
    return out


# --- training -----------------------------------------------------------------------------


def load_bi_encoder(path: str | Path, *, max_seq_length: int | None = None) -> Any:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(path), device=default_device(), local_files_only=True)
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    return model


def fine_tune_bi_encoder(
    model: Any, columns: Mapping[str, list[str]], params: Params
) -> tuple[float, tuple[tuple[int, float], ...]]:
    """Train `model` in place with MultipleNegativesRankingLoss; returns (loss, curve)."""
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.training_args import (
        BatchSamplers,
        SentenceTransformerTrainingArguments,
    )

    n = len(columns["anchor"])
    with scratch_dir() as tmp:
        args = SentenceTransformerTrainingArguments(
            **trainer_args(params, n, tmp),
            # in-batch negatives must not repeat the batch's own texts
            batch_sampler=(
                length_grouped_sampler(unique=True)
                if params.group_by_length
                else BatchSamplers.NO_DUPLICATES
            ),
        )
        trainer = SentenceTransformerTrainer(
            model=model,
            args=args,
            train_dataset=Dataset.from_dict(dict(columns)),
            loss=MultipleNegativesRankingLoss(model),
        )
        output = trainer.train()
        restore_fp32_forward(trainer)
    return float(output.training_loss), loss_curve(trainer.state.log_history)


def train_retriever(
    triplets: pl.DataFrame,
    pairs: pl.DataFrame,
    cards: Sequence[ToolCard],
    *,
    params: Params,
    base_model: str | Path,
) -> RetrieverResult:
    """The stage: validate the stock model, fine-tune one model per sampler, validate each.

    Metric names: `valid_recall_at_10`, `valid_mrr` and the same for `valid_new_*` (queries
    whose gold is a new tool), for the exported model (trained on `params.sampler`); with a
    `stock_` prefix for the model before training, `uniform_` for the ablation.
    """
    texts = tool_texts(cards)
    valid = validation_slices(pairs, limit=params.max_valid_queries)
    gold_ids = [t for queries in valid.values() for g in queries.gold for t in g]
    _check_known(gold_ids, texts, f"{PAIRS_FILE} (valid)")
    if "valid" not in valid:
        log.warning("%s has no valid-split positives: no validation metrics", PAIRS_FILE)
    samplers = [params.sampler] + (["uniform"] if params.compare_uniform else [])
    blocks = {s: triplet_columns(triplets, s, texts) for s in samplers}  # fail before training

    stock = load_bi_encoder(base_model)
    metrics = {f"stock_{k}": v for k, v in evaluate_retrieval(stock, valid, texts).items()}
    del stock
    trained = []
    for sampler in samplers:
        model = load_bi_encoder(base_model, max_seq_length=params.max_seq_length)
        freeze_lower_layers(model, params.frozen_layers)
        t0 = time.perf_counter()
        loss, curve = fine_tune_bi_encoder(model, blocks[sampler], params)
        seconds = time.perf_counter() - t0
        prefix = "" if sampler == params.sampler else f"{sampler}_"
        scores = evaluate_retrieval(model, valid, texts)
        metrics.update({f"{prefix}{k}": v for k, v in scores.items()})
        trained.append(
            TrainedModel(sampler, model, len(blocks[sampler]["anchor"]), seconds, loss, curve)
        )
        log.info("trained on %s in %.0f s: %s", sampler, seconds, scores)
    return RetrieverResult(
        tuple(trained), metrics, {name: len(queries) for name, queries in valid.items()}
    )


# --- the CLI --------------------------------------------------------------------------------


def model_dir_for(out_dir: Path, sampler: str, main_sampler: str) -> Path:
    return out_dir if sampler == main_sampler else out_dir.with_name(f"{out_dir.name}-{sampler}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (section `train_retriever`)")
    parser.add_argument("catalog", help="tool cards, JSONL")
    parser.add_argument("train_dir", help=f"holds {RETRIEVER_FILE} and {PAIRS_FILE}")
    parser.add_argument("out_dir", help="model directory to (re)write")
    parser.add_argument("metrics", help="metrics JSON to write")
    parser.add_argument("--base-model", help="model to start from (default: packaged MiniLM)")
    parser.add_argument(
        "--sampler",
        choices=SAMPLERS,
        help="train only this sampler's block into OUT_DIR (overrides `sampler` and "
        "`compare_uniform`; the ablation pipeline trains `uniform` this way)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    quiet_progress()

    from serving.bundle.encoder import stock_model_path
    from training.core.tracking import log_dataset_digest, log_metrics

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    if args.sampler:
        params = replace(params, sampler=args.sampler, compare_uniform=False)
    catalog = load_catalog(args.catalog)
    log.info(catalog.summary(args.catalog))
    train_dir, out_dir = Path(args.train_dir), Path(args.out_dir)
    triplets = scan_parquet(train_dir / RETRIEVER_FILE, RETRIEVER_SCHEMA).collect()
    pairs = (
        scan_parquet(train_dir / PAIRS_FILE, PAIRS_SCHEMA)
        .filter(pl.col("split") == "valid")
        .select("query_id", "query", "tool_id", "label", "split", "is_new")
        .collect()
    )
    base_model = Path(args.base_model) if args.base_model else stock_model_path()
    with maybe_stage_run(SECTION, {**asdict(params), "base_model": str(base_model)}) as is_main:
        result = train_retriever(
            triplets, pairs, catalog.items, params=params, base_model=base_model
        )
        if not is_main:
            return
        import mlflow

        log_dataset_digest("retriever", train_dir / RETRIEVER_FILE)
        log_dataset_digest("pairs", train_dir / PAIRS_FILE)
        metrics: dict[str, Any] = {
            **result.metrics,
            **{f"n_{name}_queries": n for name, n in result.n_queries.items()},
        }
        for trained in result.models:
            path = model_dir_for(out_dir, trained.sampler, params.sampler)
            trained.model.save(str(path))
            log_model_dir(trained.sampler, path)
            metrics[f"{trained.sampler}_n_triplets"] = trained.n_triplets
            metrics[f"{trained.sampler}_train_seconds"] = round(trained.train_seconds, 1)
            metrics[f"{trained.sampler}_train_loss"] = round(trained.train_loss, 4)
            for step, loss in trained.loss_curve:
                mlflow.log_metric(f"{trained.sampler}_loss", loss, step=step)
        metrics["stage_seconds"] = round(time.perf_counter() - t0, 1)
        write_metrics(args.metrics, metrics)
        log_metrics(metrics)
    nan = float("nan")
    print(
        f"train_retriever: {', '.join(m.sampler for m in result.models)} in "
        f"{metrics['stage_seconds']:.0f} s; valid recall@10 "
        f"{metrics.get('stock_valid_recall_at_10', nan):.3f} -> "
        f"{metrics.get('valid_recall_at_10', nan):.3f}, MRR "
        f"{metrics.get('stock_valid_mrr', nan):.3f} -> {metrics.get('valid_mrr', nan):.3f}"
    )


if __name__ == "__main__":
    main()

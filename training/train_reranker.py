"""DVC stage `train_reranker`: train the cross-encoder on mined groups.

    python -m training.train_reranker PARAMS CATALOG TRAIN_DIR OUT_DIR METRICS
        [--base-model DIR] [--baseline-model DIR]

Reads `TRAIN_DIR/reranker.parquet` (groups: one query, its positive and its negatives) and
the valid split of `TRAIN_DIR/pairs.parquet`. A `CrossEncoder` with a new one-logit head
on the packaged MiniLM learns (query, `ToolCard.index_text()`) relevance, with binary
cross-entropy on pairs (`loss: bce`) or LambdaLoss on whole groups (`loss: lambda`).
The saved model's `predict` returns the raw logit (an Identity activation): the runtime's
reranker applies the sigmoid itself.

Validation: each valid query's labelled tools (its positives and mined negatives) form a
group; the cross-encoder's order is scored against the stock bi-encoder's cosine order,
MRR and accuracy@1 of each.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from features.dataset import PAIRS_SCHEMA, RERANKER_SCHEMA, scan_parquet
from serving.io import load_catalog
from serving.schema import ToolCard
from training.common import ParamsError, load_params, write_metrics
from training.train_retriever import (
    EVAL_BATCH_SIZE,
    PAIRS_FILE,
    PRECISIONS,
    TrainingDataError,
    check_numbers,
    default_device,
    encode,
    freeze_lower_layers,
    gold_ranks,
    length_grouped_sampler,
    load_bi_encoder,
    log_model_dir,
    logging_steps,
    loss_curve,
    maybe_stage_run,
    pin_memory,
    precision_args,
    quiet_progress,
    restore_fp32_forward,
    scratch_dir,
    tool_texts,
)

log = logging.getLogger(__name__)
SECTION = "train_reranker"
RERANKER_FILE = "reranker.parquet"
LOSSES = ("bce", "lambda")


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `train_reranker` section of params.yaml."""

    loss: str  # bce: pointwise on pairs | lambda: listwise LambdaLoss on whole groups
    epochs: int
    batch_size: int  # per device: pairs for bce, groups for lambda
    learning_rate: float
    warmup: float  # share of the steps (a float < 1) or a step count (>= 1)
    max_length: int  # tokens of query + tool text together
    precision: str  # auto (bf16 where the hardware has it natively) | fp32 | bf16
    frozen_layers: int  # embeddings + this many lowest transformer blocks stay fixed (0: none)
    group_by_length: bool  # batches of similar-length rows: less padding to compute
    max_valid_queries: int  # validation groups kept (lowest query ids: a stable sample)
    seed: int

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ParamsError(f"{SECTION}.loss: {self.loss!r} not in {LOSSES}")
        if self.precision not in PRECISIONS:
            raise ParamsError(f"{SECTION}.precision: {self.precision!r} not in {PRECISIONS}")
        check_numbers(
            SECTION,
            self,
            ints=("epochs", "batch_size", "max_length", "max_valid_queries"),
            non_negative=("frozen_layers",),
            floats=("learning_rate", "warmup"),
        )


@dataclass(frozen=True, slots=True)
class Group:
    """One query and the tools to order for it; `labels[i]` is 1 for a gold tool."""

    query: str
    tool_ids: tuple[str, ...]
    labels: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RerankerResult:
    model: Any  # a CrossEncoder
    metrics: dict[str, float]  # validation metrics, each in [0, 1]
    n_train_groups: int
    n_train_pairs: int
    n_valid_groups: int
    train_seconds: float
    train_loss: float
    loss_curve: tuple[tuple[int, float], ...]


# --- data ---------------------------------------------------------------------------------


def _groups(frame: pl.DataFrame, key: str, text: str) -> list[Group]:
    grouped = (
        frame.sort(key, "tool_id")
        .group_by(key, maintain_order=True)
        .agg(pl.col(text).first(), pl.col("tool_id"), pl.col("label"))
    )
    return [
        Group(query, tuple(ids), tuple(int(v) for v in labels))
        for query, ids, labels in zip(
            grouped[text].to_list(),
            grouped["tool_id"].to_list(),
            grouped["label"].to_list(),
            strict=True,
        )
    ]


def train_groups(frame: pl.DataFrame) -> list[Group]:
    """The reranker.parquet groups, in group-id order."""
    return _groups(frame, "group_id", "query")


def valid_groups(pairs: pl.DataFrame, *, limit: int) -> list[Group]:
    """Per valid-split query: its positives and negatives. A group without both says
    nothing about order and is left out."""
    valid = pairs.filter(pl.col("split") == "valid")
    rankable = (
        valid.group_by("query_id")
        .agg(pl.col("label").max().alias("hi"), pl.col("label").min().alias("lo"))
        .filter((pl.col("hi") == 1) & (pl.col("lo") == 0))
        .sort("query_id")
        .head(limit)
        .select("query_id")
    )
    return _groups(valid.join(rankable, on="query_id"), "query_id", "query")


def _check_known(groups: Sequence[Group], texts: Mapping[str, str], what: str) -> None:
    unknown = sorted({t for g in groups for t in g.tool_ids} - set(texts))
    if unknown:
        raise TrainingDataError(
            f"{what}: {len(unknown)} tool ids are not in the catalog (e.g. {unknown[:3]}); "
            "were the training files mined from another catalog?"
        )


def training_columns(
    groups: Sequence[Group], texts: Mapping[str, str], loss: str
) -> dict[str, list[Any]]:
    """bce: one row per pair (query, document, label); lambda: one row per group
    (query, documents, labels), the shape the listwise losses read."""
    if loss == "bce":
        rows = [
            (g.query, texts[t], float(y))
            for g in groups
            for t, y in zip(g.tool_ids, g.labels, strict=True)
        ]
        return {
            "query": [r[0] for r in rows],
            "document": [r[1] for r in rows],
            "label": [r[2] for r in rows],
        }
    return {
        "query": [g.query for g in groups],
        "docs": [[texts[t] for t in g.tool_ids] for g in groups],
        "labels": [[float(y) for y in g.labels] for g in groups],
    }


# --- metrics ------------------------------------------------------------------------------


def order_metrics(scores: Sequence[np.ndarray], groups: Sequence[Group]) -> dict[str, float]:
    """MRR and accuracy@1 of each group's scores (ties count against the gold tool); no
    groups, no metrics."""
    if not groups:
        return {}
    first = [
        int(gold_ranks(np.asarray(s), np.asarray(g.labels) == 1).min())
        for s, g in zip(scores, groups, strict=True)
    ]
    return {
        "mrr": float(np.mean([1.0 / r for r in first])),
        "accuracy_at_1": float(np.mean([r == 1 for r in first])),
    }


def _split(flat: np.ndarray, groups: Sequence[Group]) -> list[np.ndarray]:
    bounds = np.cumsum([len(g.tool_ids) for g in groups])[:-1]
    return list(np.split(np.asarray(flat, dtype=np.float64), bounds))


def cross_encoder_scores(
    model: Any, groups: Sequence[Group], texts: Mapping[str, str]
) -> list[np.ndarray]:
    if not groups:
        return []
    pairs = [[g.query, texts[t]] for g in groups for t in g.tool_ids]
    flat = model.predict(pairs, batch_size=EVAL_BATCH_SIZE, show_progress_bar=False)
    return _split(np.asarray(flat), groups)


def bi_encoder_scores(
    model: Any, groups: Sequence[Group], texts: Mapping[str, str]
) -> list[np.ndarray]:
    if not groups:
        return []
    queries = encode(model, [g.query for g in groups])
    docs = encode(model, [texts[t] for g in groups for t in g.tool_ids])
    owner = np.repeat(np.arange(len(groups)), [len(g.tool_ids) for g in groups])
    return _split((queries[owner] * docs).sum(axis=1), groups)


# --- training -----------------------------------------------------------------------------


def load_cross_encoder(path: str | Path, *, max_length: int) -> Any:
    """A one-logit head on `path` (new when `path` is a bi-encoder) whose `predict` returns
    the logit, as the runtime expects."""
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder

    return CrossEncoder(
        str(path),
        num_labels=1,
        max_length=max_length,
        activation_fn=torch.nn.Identity(),
        device=default_device(),
        local_files_only=True,
    )


def fine_tune_cross_encoder(
    model: Any, columns: Mapping[str, list[Any]], params: Params
) -> tuple[float, tuple[tuple[int, float], ...]]:
    """Train `model` in place; returns (mean training loss, loss curve)."""
    from datasets import Dataset
    from sentence_transformers.cross_encoder import (
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
    )
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss, LambdaLoss
    from sentence_transformers.sentence_transformer.training_args import BatchSamplers

    n = len(columns["query"])
    loss = BinaryCrossEntropyLoss(model) if params.loss == "bce" else LambdaLoss(model)
    with scratch_dir() as tmp:
        args = CrossEncoderTrainingArguments(
            output_dir=tmp,
            num_train_epochs=params.epochs,
            per_device_train_batch_size=params.batch_size,
            learning_rate=params.learning_rate,
            warmup_steps=params.warmup,
            seed=params.seed,
            data_seed=params.seed,
            **precision_args(params.precision),
            batch_sampler=(
                length_grouped_sampler(unique=False)
                if params.group_by_length
                else BatchSamplers.BATCH_SAMPLER
            ),
            save_strategy="no",
            eval_strategy="no",
            report_to="none",
            logging_strategy="steps",
            logging_steps=logging_steps(n, params.batch_size, params.epochs),
            disable_tqdm=False,
            dataloader_pin_memory=pin_memory(),
        )
        trainer = CrossEncoderTrainer(
            model=model, args=args, train_dataset=Dataset.from_dict(dict(columns)), loss=loss
        )
        output = trainer.train()
        restore_fp32_forward(trainer)
    return float(output.training_loss), loss_curve(trainer.state.log_history)


def train_reranker(
    groups_frame: pl.DataFrame,
    pairs: pl.DataFrame,
    cards: Sequence[ToolCard],
    *,
    params: Params,
    base_model: str | Path,
    baseline_model: str | Path,
) -> RerankerResult:
    """The stage: train the cross-encoder, then order the valid groups with it and with the
    bi-encoder `baseline_model`.

    Metric names: `valid_mrr`, `valid_accuracy_at_1` (the cross-encoder) and
    `stock_valid_mrr`, `stock_valid_accuracy_at_1` (the baseline bi-encoder's cosine).
    """
    texts = tool_texts(cards)
    groups = train_groups(groups_frame)
    if not groups:
        raise TrainingDataError(f"{RERANKER_FILE}: no groups to train on")
    valid = valid_groups(pairs, limit=params.max_valid_queries)
    _check_known(groups, texts, RERANKER_FILE)
    _check_known(valid, texts, f"{PAIRS_FILE} (valid)")
    if not valid:
        log.warning("%s: no valid query with a positive and a negative: no metrics", PAIRS_FILE)
    columns = training_columns(groups, texts, params.loss)

    baseline = load_bi_encoder(baseline_model)
    stock = order_metrics(bi_encoder_scores(baseline, valid, texts), valid)
    del baseline
    model = load_cross_encoder(base_model, max_length=params.max_length)
    freeze_lower_layers(model, params.frozen_layers)
    t0 = time.perf_counter()
    loss, curve = fine_tune_cross_encoder(model, columns, params)
    seconds = time.perf_counter() - t0
    tuned = order_metrics(cross_encoder_scores(model, valid, texts), valid)
    metrics = {f"stock_valid_{k}": v for k, v in stock.items()}
    metrics.update({f"valid_{k}": v for k, v in tuned.items()})
    log.info("trained the cross-encoder in %.0f s: %s", seconds, metrics)
    if tuned and tuned["mrr"] <= stock["mrr"]:
        log.warning(
            "the cross-encoder orders the valid groups no better than the bi-encoder "
            "(MRR %.3f vs %.3f): the runtime should rank without it",
            tuned["mrr"],
            stock["mrr"],
        )
    return RerankerResult(
        model=model,
        metrics=metrics,
        n_train_groups=len(groups),
        n_train_pairs=sum(len(g.tool_ids) for g in groups),
        n_valid_groups=len(valid),
        train_seconds=seconds,
        train_loss=loss,
        loss_curve=curve,
    )


# --- the CLI --------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (section `train_reranker`)")
    parser.add_argument("catalog", help="tool cards, JSONL")
    parser.add_argument("train_dir", help=f"holds {RERANKER_FILE} and {PAIRS_FILE}")
    parser.add_argument("out_dir", help="model directory to (re)write")
    parser.add_argument("metrics", help="metrics JSON to write")
    parser.add_argument("--base-model", help="model to start from (default: packaged MiniLM)")
    parser.add_argument(
        "--baseline-model", help="bi-encoder to compare against (default: packaged MiniLM)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    quiet_progress()

    from serving.encoder import stock_model_path
    from training.tracking import log_dataset_digest, log_metrics

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    catalog = load_catalog(args.catalog)
    log.info(catalog.summary(args.catalog))
    train_dir, out_dir = Path(args.train_dir), Path(args.out_dir)
    groups = scan_parquet(train_dir / RERANKER_FILE, RERANKER_SCHEMA).collect()
    pairs = (
        scan_parquet(train_dir / PAIRS_FILE, PAIRS_SCHEMA)
        .filter(pl.col("split") == "valid")
        .select("query_id", "query", "tool_id", "label", "split")
        .collect()
    )
    base_model = Path(args.base_model) if args.base_model else stock_model_path()
    baseline_model = Path(args.baseline_model) if args.baseline_model else stock_model_path()
    run_params = {
        **asdict(params),
        "base_model": str(base_model),
        "baseline_model": str(baseline_model),
    }
    with maybe_stage_run(SECTION, run_params) as is_main:
        result = train_reranker(
            groups,
            pairs,
            catalog.items,
            params=params,
            base_model=base_model,
            baseline_model=baseline_model,
        )
        if not is_main:
            return
        import mlflow

        log_dataset_digest("reranker", train_dir / RERANKER_FILE)
        log_dataset_digest("pairs", train_dir / PAIRS_FILE)
        result.model.save(str(out_dir))
        log_model_dir("reranker", out_dir)
        for step, loss in result.loss_curve:
            mlflow.log_metric("loss", loss, step=step)
        metrics: dict[str, Any] = {
            **result.metrics,
            "n_train_groups": result.n_train_groups,
            "n_train_pairs": result.n_train_pairs,
            "n_valid_groups": result.n_valid_groups,
            "train_seconds": round(result.train_seconds, 1),
            "train_loss": round(result.train_loss, 4),
            "stage_seconds": round(time.perf_counter() - t0, 1),
        }
        write_metrics(args.metrics, metrics)
        log_metrics(metrics)
    nan = float("nan")
    print(
        f"train_reranker: {result.n_train_pairs} pairs in {metrics['stage_seconds']:.0f} s; "
        f"valid MRR {metrics.get('stock_valid_mrr', nan):.3f} (bi-encoder) -> "
        f"{metrics.get('valid_mrr', nan):.3f}, accuracy@1 "
        f"{metrics.get('stock_valid_accuracy_at_1', nan):.3f} -> "
        f"{metrics.get('valid_accuracy_at_1', nan):.3f}"
    )


if __name__ == "__main__":
    main()

"""DVC stage `train_reranker`: train the cross-encoder on groups replayed through the runtime.

    python -m training.train_reranker PARAMS CATALOG TRAIN_DIR OUT_DIR METRICS [--base-model DIR]

Reads `TRAIN_DIR/reranker.parquet` (`features.candidates`: each trace's subgoal with the
candidates the runtime's menu stage would rerank in that trace's session, in fused order).
A `CrossEncoder` with a new one-logit head on the packaged MiniLM learns
(query, `ToolCard.index_text()`) relevance from the train groups, with binary
cross-entropy on pairs (`loss: bce`) or LambdaLoss on whole groups (`loss: lambda`).
The saved model's `predict` returns the raw logit (an Identity activation): the runtime's
reranker applies the sigmoid itself.

Validation is the menu stage's own question: the valid groups hold every candidate the
runtime would rerank, and the cross-encoder's order is scored against the fused order it
replaces (`fused_valid_*`): MRR and recall@k for k in 1, 3 and 8 (a group counts when a
gold tool is among the first k; 8 is the demo's menu size).
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

from features.dataset import RERANKER_SCHEMA, scan_parquet
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
from training.core.rank_metrics import Group, order_metrics

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
    max_valid_groups: int  # validation groups kept (the first in the file: a stable sample)
    seed: int

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ParamsError(f"{SECTION}.loss: {self.loss!r} not in {LOSSES}")
        if self.precision not in PRECISIONS:
            raise ParamsError(f"{SECTION}.precision: {self.precision!r} not in {PRECISIONS}")
        check_numbers(
            SECTION,
            self,
            ints=("epochs", "batch_size", "max_length", "max_valid_groups"),
            non_negative=("frozen_layers",),
            floats=("learning_rate", "warmup"),
        )


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


def groups_of(frame: pl.DataFrame, split: str, *, limit: int | None = None) -> list[Group]:
    """The `split` groups of reranker.parquet, in file order (at most `limit`)."""
    rows = frame.filter(pl.col("split") == split).with_columns(_row=pl.int_range(pl.len()))
    grouped = (
        rows.group_by("group_id", maintain_order=True)
        .agg(pl.col("query").first(), pl.col("tool_id"), pl.col("label"),
             pl.col("fused_rank"))
        .head(limit if limit is not None else rows.height)
    )
    return [
        Group(query, tuple(ids), tuple(int(v) for v in labels), tuple(int(r) for r in ranks))
        for query, ids, labels, ranks in grouped.select(
            "query", "tool_id", "label", "fused_rank"
        ).iter_rows()
    ]


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


def fused_scores(groups: Sequence[Group]) -> list[np.ndarray]:
    """Scores that reproduce the fused order: earlier is higher, a tool outside it last."""
    return [
        np.array([-r if r > 0 else -1e9 for r in g.fused_ranks], dtype=np.float64)
        for g in groups
    ]


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


# --- training -----------------------------------------------------------------------------


def load_cross_encoder(path: str | Path, *, max_length: int, seed: int | None = None) -> Any:
    """A one-logit head on `path` (new when `path` is a bi-encoder) whose `predict` returns
    the logit, as the runtime expects. `seed` fixes the new head's initial weights: unseeded,
    two runs on the same groups ended 5 points of valid MRR apart (0.755 vs 0.802)."""
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder

    if seed is not None:
        from transformers import set_seed

        set_seed(seed)
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
    # LambdaLoss forwards `mini_batch_size` pairs at a time, by default as many as the batch
    # has *groups* (4 pairs of 32): 4x slower on a CPU. -1: the whole batch in one pass.
    loss = (
        BinaryCrossEntropyLoss(model)
        if params.loss == "bce"
        else LambdaLoss(model, mini_batch_size=-1)
    )
    with scratch_dir() as tmp:
        args = CrossEncoderTrainingArguments(
            **trainer_args(params, n, tmp),
            batch_sampler=(
                length_grouped_sampler(unique=False)
                if params.group_by_length
                else BatchSamplers.BATCH_SAMPLER
            ),
        )
        trainer = CrossEncoderTrainer(
            model=model, args=args, train_dataset=Dataset.from_dict(dict(columns)), loss=loss
        )
        output = trainer.train()
        restore_fp32_forward(trainer)
    return float(output.training_loss), loss_curve(trainer.state.log_history)


def train_reranker(
    frame: pl.DataFrame,
    cards: Sequence[ToolCard],
    *,
    params: Params,
    base_model: str | Path,
) -> RerankerResult:
    """The stage: train the cross-encoder on the train groups, then order the valid groups
    with it and compare with the fused order it replaces.

    Metric names: `valid_<m>` (the cross-encoder) and `fused_valid_<m>` (the runtime's
    fused order) for m in mrr, recall_at_1, recall_at_3, recall_at_8.
    """
    texts = tool_texts(cards)
    groups = groups_of(frame, "train")
    if not groups:
        raise TrainingDataError(f"{RERANKER_FILE}: no train groups")
    valid = groups_of(frame, "valid", limit=params.max_valid_groups)
    _check_known(groups + valid, texts, RERANKER_FILE)
    if not valid:
        log.warning("%s: no valid groups: no metrics", RERANKER_FILE)
    columns = training_columns(groups, texts, params.loss)

    model = load_cross_encoder(base_model, max_length=params.max_length, seed=params.seed)
    freeze_lower_layers(model, params.frozen_layers)
    t0 = time.perf_counter()
    loss, curve = fine_tune_cross_encoder(model, columns, params)
    seconds = time.perf_counter() - t0
    fused = order_metrics(fused_scores(valid), valid)
    tuned = order_metrics(cross_encoder_scores(model, valid, texts), valid)
    metrics = {f"fused_valid_{k}": v for k, v in fused.items()}
    metrics.update({f"valid_{k}": v for k, v in tuned.items()})
    log.info("trained the cross-encoder in %.0f s: %s", seconds, metrics)
    if tuned and tuned["recall_at_8"] <= fused["recall_at_8"]:
        log.warning(
            "the cross-encoder's menu recall@8 on the valid groups is no better than the "
            "fused order's (%.3f vs %.3f): rank without it (runtime.reranker: fused)",
            tuned["recall_at_8"],
            fused["recall_at_8"],
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
    parser.add_argument("train_dir", help=f"holds {RERANKER_FILE}")
    parser.add_argument("out_dir", help="model directory to (re)write")
    parser.add_argument("metrics", help="metrics JSON to write")
    parser.add_argument("--base-model", help="model to start from (default: packaged MiniLM)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    quiet_progress()

    from serving.bundle.encoder import stock_model_path
    from training.core.tracking import log_dataset_digest, log_metrics

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    catalog = load_catalog(args.catalog)
    log.info(catalog.summary(args.catalog))
    train_dir, out_dir = Path(args.train_dir), Path(args.out_dir)
    groups = scan_parquet(train_dir / RERANKER_FILE, RERANKER_SCHEMA).collect()
    base_model = Path(args.base_model) if args.base_model else stock_model_path()
    run_params = {**asdict(params), "base_model": str(base_model)}
    with maybe_stage_run(SECTION, run_params) as is_main:
        result = train_reranker(groups, catalog.items, params=params, base_model=base_model)
        if not is_main:
            return
        import mlflow

        log_dataset_digest("reranker", train_dir / RERANKER_FILE)
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
        f"valid recall@8 {metrics.get('fused_valid_recall_at_8', nan):.3f} (fused order) -> "
        f"{metrics.get('valid_recall_at_8', nan):.3f}, MRR "
        f"{metrics.get('fused_valid_mrr', nan):.3f} -> {metrics.get('valid_mrr', nan):.3f}"
    )


if __name__ == "__main__":
    main()

"""DVC stage `train_reranker`: train the cross-encoder on groups replayed through the runtime.

    python -m training.train_reranker PARAMS CATALOG TRAIN_DIR OUT_DIR METRICS
        [--retriever DIR] [--base-model DIR]

Reads `TRAIN_DIR/reranker.parquet` (`features.candidates`: each trace's subgoal with the
candidates the runtime's menu stage would rerank in that trace's session, in fused order).
A `CrossEncoder` with a new one-logit head learns (query, `ToolCard.index_text()`)
relevance from the train groups: binary cross-entropy on pairs (`loss: bce`) or a
listwise loss on whole groups (`lambda`: LambdaLoss, `listnet`: softmax cross-entropy).

Each train group is the positive and `hard_negatives` of the session's candidates that
the fine-tuned retriever (`--retriever`) scores highest, the competitors the cross-encoder
must beat at run time, plus `random_negatives` drawn from the rest (the fused order's
first when no retriever is given). `base` picks the starting encoder: the packaged MiniLM
(`stock`) or the fine-tuned retriever's (`retriever`). The query and the card share
`max_length` tokens, the longer side cut first (the runtime's tokenizer does the same).

Validation is the menu stage's own question: the valid groups hold every candidate the
runtime would rerank, and the cross-encoder's order is scored against the fused order
(`fused_valid_*`) and the fine-tuned retriever's order (`dense_valid_*`, the stage before
it at run time): MRR and recall@k for k in 1, 3 and 8. With `evals` > 0 the first
`eval_share` of the valid groups are scored that many times during training and the best
checkpoint by MRR is kept (`best_step`); the groups after them never chose anything, and
every order is also scored on them alone (`heldout_*`).
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from features.dataset import RERANKER_SCHEMA, scan_parquet
from serving.bundle.encoder import PRECISIONS, Encoder
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
LOSSES = ("bce", "lambda", "listnet")
BASES = ("stock", "retriever")


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `train_reranker` section of params.yaml."""

    loss: str  # bce: pointwise on pairs | lambda: LambdaLoss | listnet: softmax over a group
    base: str  # stock: the packaged MiniLM | retriever: the fine-tuned retriever's encoder
    hard_negatives: int  # per train group: the session candidates the retriever ranks highest
    random_negatives: int  # ... and drawn from the rest of them
    # listnet: the target is (1 - teacher_weight) on the gold tools plus teacher_weight
    # spread as softmax(retriever cosine / teacher_temperature): the fine-tuned retriever's
    # judgement of every candidate, which one gold label per group does not carry
    teacher_weight: float
    teacher_temperature: float
    epochs: int
    batch_size: int  # per device: pairs for bce, groups for lambda
    learning_rate: float
    warmup: float  # share of the steps (a float < 1) or a step count (>= 1)
    max_length: int  # tokens of query + tool text together
    precision: str  # auto (bf16 where the hardware has it natively) | fp32 | bf16
    frozen_layers: int  # embeddings + this many lowest transformer blocks stay fixed (0: none)
    group_by_length: bool  # batches of similar-length rows: less padding to compute
    max_valid_groups: int  # validation groups kept (the first in the file: a stable sample)
    evals: int  # validation passes during training, the best checkpoint kept (0: the last)
    eval_share: float  # the first this share of the valid groups score the checkpoints
    seed: int

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ParamsError(f"{SECTION}.loss: {self.loss!r} not in {LOSSES}")
        if self.base not in BASES:
            raise ParamsError(f"{SECTION}.base: {self.base!r} not in {BASES}")
        if self.precision not in PRECISIONS:
            raise ParamsError(f"{SECTION}.precision: {self.precision!r} not in {PRECISIONS}")
        check_numbers(
            SECTION,
            self,
            ints=("epochs", "batch_size", "max_length", "max_valid_groups"),
            non_negative=("frozen_layers", "hard_negatives", "random_negatives", "evals"),
            floats=("learning_rate", "warmup", "teacher_weight", "teacher_temperature",
                    "eval_share"),
        )
        if self.eval_share > 1:
            raise ParamsError(f"{SECTION}.eval_share: expected a share <= 1, got {self.eval_share}")
        if not 0 <= self.teacher_weight < 1:
            raise ParamsError(
                f"{SECTION}.teacher_weight: expected a share in [0, 1), got {self.teacher_weight}"
            )
        if self.teacher_weight and (self.loss != "listnet" or self.teacher_temperature <= 0):
            raise ParamsError(
                f"{SECTION}.teacher_weight: needs loss listnet and teacher_temperature > 0"
            )


@dataclass(frozen=True, slots=True)
class RerankerResult:
    model: Any  # a CrossEncoder
    metrics: dict[str, float]  # validation metrics, each in [0, 1]
    n_train_groups: int
    n_train_pairs: int
    n_valid_groups: int
    n_heldout_groups: int  # valid groups that chose no checkpoint (all when none was scored)
    train_seconds: float
    train_loss: float
    loss_curve: tuple[tuple[int, float], ...]
    valid_curve: tuple[tuple[int, float], ...]  # (step, MRR on the eval groups)
    best_step: int  # the kept checkpoint's step (the last when nothing was evaluated)


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


def pick_negatives(
    labels: Sequence[int],
    scores: np.ndarray | None,
    *,
    n_hard: int,
    n_random: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Indices to keep of a group: its positives, its `n_hard` negatives with the highest
    `scores` (the fused order's first without scores), then `n_random` drawn from the other
    negatives; in the group's order."""
    gold = np.asarray(labels) == 1
    negatives = np.flatnonzero(~gold)
    if scores is not None:
        negatives = negatives[np.argsort(-np.asarray(scores)[negatives], kind="stable")]
    hard, rest = negatives[:n_hard], negatives[n_hard:]
    drawn = rng.choice(rest, size=min(n_random, len(rest)), replace=False)
    return np.sort(np.concatenate([np.flatnonzero(gold), hard, drawn]).astype(int))


def subgroup(group: Group, keep: np.ndarray) -> Group:
    return Group(
        group.query,
        tuple(group.tool_ids[i] for i in keep),
        tuple(group.labels[i] for i in keep),
        tuple(group.fused_ranks[i] for i in keep),
    )


def dense_scores(
    retriever: Encoder, groups: Sequence[Group], texts: Mapping[str, str]
) -> list[np.ndarray]:
    """Each group's cosines under the fine-tuned retriever: its order, which the
    cross-encoder follows at run time."""
    if not groups:
        return []
    queries = sorted({g.query for g in groups})
    tools = sorted({t for g in groups for t in g.tool_ids})
    q_row = dict(zip(queries, retriever.encode(queries), strict=True))
    t_row = dict(zip(tools, retriever.encode([texts[t] for t in tools]), strict=True))
    return [
        np.array([float(q_row[g.query] @ t_row[t]) for t in g.tool_ids]) for g in groups
    ]


def listnet_targets(
    labels: Sequence[int], teacher: np.ndarray | None, *, weight: float, temperature: float
) -> list[float]:
    """Log-probabilities whose softmax (what ListNet takes of its labels) is the target:
    the gold tools share 1 - `weight`, the teacher's softmax(scores / temperature) the rest.
    Without a teacher (or at weight 0) the gold tools share it all (the others at -30,
    e^-30 of it)."""
    gold = np.asarray(labels, dtype=np.float64) == 1
    target = np.where(gold, 1.0 / max(int(gold.sum()), 1), 0.0)
    if teacher is not None and weight > 0:
        z = np.asarray(teacher, dtype=np.float64) / temperature
        soft = np.exp(z - z.max())
        target = (1 - weight) * target + weight * soft / soft.sum()
    return [float(v) for v in np.log(np.maximum(target, np.exp(-30.0)))]


def training_columns(
    groups: Sequence[Group],
    texts: Mapping[str, str],
    loss: str,
    *,
    targets: Sequence[Sequence[float]] | None = None,
) -> dict[str, list[Any]]:
    """bce: one row per pair (query, document, label); the listwise losses: one row per
    group (query, documents, labels), or `targets` instead of the labels (listnet)."""
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
        "labels": (
            [list(t) for t in targets]
            if targets is not None
            else [[float(y) for y in g.labels] for g in groups]
        ),
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


@dataclass(frozen=True, slots=True)
class FineTuneResult:
    train_loss: float
    loss_curve: tuple[tuple[int, float], ...]
    valid_curve: tuple[tuple[int, float], ...]
    best_step: int


def eval_steps(n_steps: int, evals: int) -> list[int]:
    """The `evals` steps, evenly spaced, that score a checkpoint (the last step among them)."""
    if evals <= 0 or n_steps <= 0:
        return []
    return sorted({max(1, round(n_steps * (i + 1) / evals)) for i in range(evals)})


def _best_checkpoint_callback(
    model: Any, steps: Sequence[int], score: Callable[[], float]
) -> Any:
    """A Trainer callback that scores the model at `steps` and keeps the best weights in
    memory (a MiniLM is ~90 MB): no checkpoint files, no optimizer state written."""
    from transformers import TrainerCallback

    class BestCheckpoint(TrainerCallback):  # type: ignore[misc]
        def __init__(self) -> None:
            self.curve: list[tuple[int, float]] = []
            self.best: tuple[float, int, dict[str, Any]] | None = None

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if state.global_step not in steps:
                return
            was_training = model.training
            value = score()
            model.train(was_training)
            self.curve.append((int(state.global_step), value))
            if self.best is None or value > self.best[0]:
                weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
                self.best = (value, int(state.global_step), weights)

    return BestCheckpoint()


def fine_tune_cross_encoder(
    model: Any,
    columns: Mapping[str, list[Any]],
    params: Params,
    *,
    score: Callable[[], float] | None = None,
) -> FineTuneResult:
    """Train `model` in place. With `score` (the model's validation MRR) and `params.evals`,
    the best scored checkpoint is loaded back at the end."""
    from datasets import Dataset
    from sentence_transformers.cross_encoder import (
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
    )
    from sentence_transformers.cross_encoder.losses import (
        BinaryCrossEntropyLoss,
        LambdaLoss,
        ListNetLoss,
    )
    from sentence_transformers.sentence_transformer.training_args import BatchSamplers

    n = len(columns["query"])
    # The listwise losses forward `mini_batch_size` pairs at a time, by default as many as
    # the batch has *groups* (4 pairs of 32): 4x slower on a CPU. -1: the batch in one pass.
    if params.loss == "bce":
        loss = BinaryCrossEntropyLoss(model)
    elif params.loss == "lambda":
        loss = LambdaLoss(model, mini_batch_size=-1)
    else:
        loss = ListNetLoss(model, mini_batch_size=-1)
    n_steps = -(-n // params.batch_size) * params.epochs
    steps = eval_steps(n_steps, params.evals) if score is not None else []
    callback = _best_checkpoint_callback(model, steps, score) if score is not None else None
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
            model=model, args=args, train_dataset=Dataset.from_dict(dict(columns)), loss=loss,
            callbacks=[callback] if callback is not None else None,
        )
        output = trainer.train()
        restore_fp32_forward(trainer)
    best_step = int(trainer.state.global_step)
    curve: tuple[tuple[int, float], ...] = ()
    if callback is not None and callback.best is not None:
        _, best_step, weights = callback.best
        model.load_state_dict(weights)
        curve = tuple(callback.curve)
    return FineTuneResult(
        train_loss=float(output.training_loss),
        loss_curve=loss_curve(trainer.state.log_history),
        valid_curve=curve,
        best_step=best_step,
    )


def train_reranker(
    frame: pl.DataFrame,
    cards: Sequence[ToolCard],
    *,
    params: Params,
    base_model: str | Path,
    retriever: str | Path | None = None,
) -> RerankerResult:
    """The stage: pick each train group's negatives, train the cross-encoder on the train
    groups, then order the valid groups with it and compare with the orders it follows.

    Metric names: `valid_<m>` (the cross-encoder), `fused_valid_<m>` (the runtime's fused
    order) and, with a `retriever`, `dense_valid_<m>` (its order) for m in mrr,
    recall_at_1, recall_at_3, recall_at_8; `heldout_` before each: the same on the valid
    groups that chose no checkpoint.
    """
    if retriever is None and (params.base == "retriever" or params.teacher_weight > 0):
        raise ParamsError(f"{SECTION}: base: retriever and teacher_weight > 0 need --retriever")
    texts = tool_texts(cards)
    full = groups_of(frame, "train")
    if not full:
        raise TrainingDataError(f"{RERANKER_FILE}: no train groups")
    valid = groups_of(frame, "valid", limit=params.max_valid_groups)
    _check_known(full + valid, texts, RERANKER_FILE)
    if not valid:
        log.warning("%s: no valid groups: no metrics", RERANKER_FILE)
    bi_encoder = (
        Encoder(retriever, batch_size=EVAL_BATCH_SIZE) if retriever is not None else None
    )
    train_dense = dense_scores(bi_encoder, full, texts) if bi_encoder is not None else None
    rng = np.random.default_rng(params.seed)
    keeps = [
        pick_negatives(
            g.labels, train_dense[i] if train_dense is not None else None,
            n_hard=params.hard_negatives, n_random=params.random_negatives, rng=rng,
        )
        for i, g in enumerate(full)
    ]
    groups = [subgroup(g, keep) for g, keep in zip(full, keeps, strict=True)]
    targets = None
    if params.loss == "listnet":
        targets = [
            listnet_targets(
                g.labels, train_dense[i][keep] if train_dense is not None else None,
                weight=params.teacher_weight, temperature=params.teacher_temperature,
            )
            for i, (g, keep) in enumerate(zip(groups, keeps, strict=True))
        ]
    columns = training_columns(groups, texts, params.loss, targets=targets)
    if params.base == "retriever" and retriever is not None:
        base_model = retriever

    model = load_cross_encoder(base_model, max_length=params.max_length, seed=params.seed)
    freeze_lower_layers(model, params.frozen_layers)
    n_tune = round(len(valid) * params.eval_share) if params.evals else 0
    tune, heldout = valid[:n_tune], valid[n_tune:]

    def tune_mrr() -> float:
        return order_metrics(cross_encoder_scores(model, tune, texts), tune)["mrr"]

    t0 = time.perf_counter()
    tuned_run = fine_tune_cross_encoder(
        model, columns, params, score=tune_mrr if tune and params.evals else None
    )
    seconds = time.perf_counter() - t0
    orders = {"fused_": fused_scores(valid), "": cross_encoder_scores(model, valid, texts)}
    if bi_encoder is not None:
        orders["dense_"] = dense_scores(bi_encoder, valid, texts)
    metrics: dict[str, float] = {}
    for prefix, scores in orders.items():
        metrics.update({f"{prefix}valid_{k}": v for k, v in order_metrics(scores, valid).items()})
        if n_tune and heldout:
            kept = order_metrics(scores[n_tune:], heldout)
            metrics.update({f"heldout_{prefix}valid_{k}": v for k, v in kept.items()})
    log.info("trained the cross-encoder in %.0f s: %s", seconds, metrics)
    before = "dense" if bi_encoder is not None else "fused"
    if valid and metrics["valid_mrr"] <= metrics[f"{before}_valid_mrr"]:
        log.warning(
            "the cross-encoder's valid MRR is no better than the %s order's (%.3f vs %.3f)",
            before, metrics["valid_mrr"], metrics[f"{before}_valid_mrr"],
        )
    return RerankerResult(
        model=model,
        metrics=metrics,
        n_train_groups=len(groups),
        n_train_pairs=sum(len(g.tool_ids) for g in groups),
        n_valid_groups=len(valid),
        n_heldout_groups=len(heldout),
        train_seconds=seconds,
        train_loss=tuned_run.train_loss,
        loss_curve=tuned_run.loss_curve,
        valid_curve=tuned_run.valid_curve,
        best_step=tuned_run.best_step,
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
    parser.add_argument(
        "--retriever",
        help="the fine-tuned retriever: picks hard negatives, is the dense order validated "
        "against, and is the starting encoder with `base: retriever`",
    )
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
        result = train_reranker(
            groups, catalog.items, params=params, base_model=base_model,
            retriever=Path(args.retriever) if args.retriever else None,
        )
        if not is_main:
            return
        import mlflow

        log_dataset_digest("reranker", train_dir / RERANKER_FILE)
        result.model.save(str(out_dir))
        log_model_dir("reranker", out_dir)
        for step, loss in result.loss_curve:
            mlflow.log_metric("loss", loss, step=step)
        for step, mrr in result.valid_curve:
            mlflow.log_metric("tune_mrr", mrr, step=step)
        metrics: dict[str, Any] = {
            **result.metrics,
            "n_train_groups": result.n_train_groups,
            "n_train_pairs": result.n_train_pairs,
            "n_valid_groups": result.n_valid_groups,
            "n_heldout_groups": result.n_heldout_groups,
            "train_seconds": round(result.train_seconds, 1),
            "train_loss": round(result.train_loss, 4),
            "best_step": result.best_step,
            "valid_curve": [[step, round(mrr, 4)] for step, mrr in result.valid_curve],
            "stage_seconds": round(time.perf_counter() - t0, 1),
        }
        write_metrics(args.metrics, metrics)
        log_metrics(metrics)
    nan = float("nan")
    print(
        f"train_reranker: {result.n_train_pairs} pairs in {metrics['stage_seconds']:.0f} s; "
        f"valid MRR fused {metrics.get('fused_valid_mrr', nan):.3f}, dense "
        f"{metrics.get('dense_valid_mrr', nan):.3f}, cross-encoder "
        f"{metrics.get('valid_mrr', nan):.3f} (step {result.best_step}); recall@8 "
        f"{metrics.get('fused_valid_recall_at_8', nan):.3f} / "
        f"{metrics.get('dense_valid_recall_at_8', nan):.3f} / "
        f"{metrics.get('valid_recall_at_8', nan):.3f}"
    )


if __name__ == "__main__":
    main()

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
import contextlib
import logging
import os
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from features.dataset import PAIRS_SCHEMA, RETRIEVER_SCHEMA, SAMPLERS, scan_parquet
from serving.encoder import PRECISIONS, has_accelerator, use_bf16
from serving.io import load_catalog
from serving.schema import ToolCard
from training.common import ParamsError, load_params, write_metrics

log = logging.getLogger(__name__)
SECTION = "train_retriever"
RETRIEVER_FILE = "retriever.parquet"
PAIRS_FILE = "pairs.parquet"
EVAL_BATCH_SIZE = 64
RECALL_K = 10


class TrainingDataError(ValueError):
    """The training inputs do not fit the catalog or hold too little to train on."""


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


def check_numbers(
    section: str,
    params: Any,
    *,
    ints: Sequence[str],
    floats: Sequence[str],
    non_negative: Sequence[str] = (),
) -> None:
    """Positive (or non-negative) ints and non-negative floats; YAML reads `1e-5` as a
    string, so say so."""
    for name in [*ints, *non_negative]:
        value, least = getattr(params, name), 0 if name in non_negative else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ParamsError(f"{section}.{name}: expected an integer >= {least}, got {value!r}")
    for name in floats:
        value = getattr(params, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ParamsError(
                f"{section}.{name}: expected a non-negative number, got {value!r}"
                " (write floats with a dot: 5.0e-5)"
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


def tool_texts(cards: Sequence[ToolCard]) -> dict[str, str]:
    return {c.tool_id: c.index_text() for c in cards}


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


def gold_ranks(scores: np.ndarray, is_gold: np.ndarray) -> np.ndarray:
    """1-based rank of each gold document; a tie with a non-gold document counts against
    the gold one, so a model that scores everything alike earns nothing."""
    s_gold, s_other = scores[is_gold], scores[~is_gold]
    return (
        1
        + (s_other[None, :] >= s_gold[:, None]).sum(axis=1)
        + (s_gold[None, :] > s_gold[:, None]).sum(axis=1)
    )


def ranking_metrics(
    scores: np.ndarray, doc_ids: Sequence[str], gold: Sequence[frozenset[str]], *, k: int
) -> dict[str, float]:
    """Mean recall@k and MRR of `scores` (queries x docs); a query's gold outside `doc_ids`
    is a miss."""
    if len(gold) == 0:
        return {f"recall_at_{k}": 0.0, "mrr": 0.0}
    ids = np.asarray(doc_ids)
    recalls, reciprocal = [], []
    for row, g in zip(scores, gold, strict=True):
        ranks = gold_ranks(row, np.isin(ids, list(g)))
        recalls.append(float((ranks <= k).sum()) / len(g))
        reciprocal.append(1.0 / float(ranks.min()) if ranks.size else 0.0)
    return {f"recall_at_{k}": float(np.mean(recalls)), "mrr": float(np.mean(reciprocal))}


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


def length_grouped_batches(
    lengths: Sequence[int],
    values: Sequence[frozenset[str]] | None,
    *,
    batch_size: int,
    window: int,
    seed: int,
    drop_last: bool = False,
) -> list[list[int]]:
    """Row indices in batches of rows of similar length, in random batch order.

    The rows are shuffled and cut into windows of `window` batches; each window is sorted
    by length and filled greedily, so a batch pads to a length close to its rows' own (on
    the demo triplets: 1.28x the unpadded tokens instead of 1.72x for random batches).
    With `values`, no two rows of a batch share a value: a repeated text would be a false
    in-batch negative, so a conflicting row waits for the next batch (or window)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(lengths)).tolist()

    def fill(rows: list[int], *, partial: bool) -> tuple[list[list[int]], list[int]]:
        batches: list[list[int]] = []
        while rows and (partial or len(rows) >= batch_size):
            batch, seen, rest = [], set(), []
            for i in rows:
                fits = len(batch) < batch_size and (values is None or values[i].isdisjoint(seen))
                if fits:
                    batch.append(i)
                    seen |= values[i] if values is not None else set()
                else:
                    rest.append(i)
            if len(batch) < batch_size and not partial:
                break  # not enough distinct rows left here: carry them over
            batches.append(batch)
            rows = rest
        return batches, rows

    batches: list[list[int]] = []
    carry: list[int] = []
    step = batch_size * window
    for start in range(0, len(order), step):
        rows = sorted(carry + order[start : start + step], key=lambda i: lengths[i])
        full, carry = fill(rows, partial=False)
        batches += full
    last, _ = fill(carry, partial=True)
    batches += [b for b in last if len(b) == batch_size or not drop_last]
    return [batches[i] for i in rng.permutation(len(batches))]


def _text_length(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list | tuple):
        return sum(_text_length(v) for v in value)
    return 0


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _texts(v)]
    return []


@lru_cache(maxsize=2)
def length_grouped_sampler(*, unique: bool, window: int = 8) -> type:
    """A sentence-transformers batch sampler class over `length_grouped_batches` (the
    trainers take the class and build it on the dataset); `unique` as NO_DUPLICATES."""
    from sentence_transformers.base.sampler import DefaultBatchSampler

    class LengthGroupedBatchSampler(DefaultBatchSampler):
        def __init__(
            self,
            dataset: Any,
            batch_size: int,
            drop_last: bool,
            valid_label_columns: list[str] | None = None,
            generator: Any = None,
            seed: int = 0,
        ) -> None:
            super().__init__(
                dataset,
                batch_size=batch_size,
                drop_last=drop_last,
                valid_label_columns=valid_label_columns,
                generator=generator,
                seed=seed,
            )
            skip = set(valid_label_columns or []) | {"dataset_name"}
            columns = [c for c in dataset.column_names if c not in skip]
            rows = list(zip(*(list(dataset[c]) for c in columns), strict=True))
            self.lengths = [_text_length(row) for row in rows]
            self.values = [frozenset(_texts(row)) for row in rows] if unique else None
            self._epoch_batches: tuple[int, list[list[int]]] | None = None

        def _batches(self) -> list[list[int]]:
            if self._epoch_batches is None or self._epoch_batches[0] != self.epoch:
                batches = length_grouped_batches(
                    self.lengths,
                    self.values,
                    batch_size=self.batch_size,
                    window=window,
                    seed=self.seed + self.epoch,
                    drop_last=self.drop_last,
                )
                self._epoch_batches = (self.epoch, batches)
            return self._epoch_batches[1]

        def __iter__(self) -> Iterator[list[int]]:
            yield from self._batches()

        def __len__(self) -> int:
            return len(self._batches())

    return LengthGroupedBatchSampler


def default_device() -> str:
    """Where models load; the Trainer moves them to its own device(s) when it trains."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def precision_args(precision: str) -> dict[str, bool]:
    """Trainer kwargs for `precision` (auto | fp32 | bf16): mixed precision, fp32 weights.

    transformers refuses bf16 without a GPU unless `use_cpu` is set, so a CPU-only machine
    says so; with a GPU the Trainer still picks the devices itself."""
    bf16 = use_bf16(precision)
    return {"bf16": bf16, "use_cpu": bf16 and not has_accelerator()}


def transformer_blocks(hf_model: Any) -> Any:
    """The stack of transformer blocks of a Hugging Face encoder (BERT, RoBERTa, MiniLM,
    XLM-R, ELECTRA: `encoder.layer`; DistilBERT: `transformer.layer`; ModernBERT: `layers`)."""
    import torch

    base = hf_model.base_model
    for path in ("encoder.layer", "transformer.layer", "layers", "encoder.layers"):
        found: Any = base
        for part in path.split("."):
            found = getattr(found, part, None)
        if isinstance(found, torch.nn.ModuleList):
            return found
    raise ValueError(f"no transformer blocks found in {type(base).__name__} to freeze")


def freeze_lower_layers(model: Any, n_layers: int) -> int:
    """Freeze the embeddings and the lowest `n_layers` blocks (0: train everything).

    On CPU this is the cheapest speed lever: no backward pass below the first trained
    block, no optimizer state for the 12M embedding weights. Returns the frozen count."""
    if n_layers <= 0:
        return 0
    hf = model.transformers_model
    blocks = transformer_blocks(hf)
    if n_layers > len(blocks):
        raise ParamsError(f"frozen_layers: {n_layers} > the model's {len(blocks)} layers")
    embeddings = getattr(hf.base_model, "embeddings", None) or hf.get_input_embeddings()
    frozen = 0
    for module in [embeddings, *blocks[:n_layers]]:
        for weight in module.parameters():
            weight.requires_grad_(False)
            frozen += weight.numel()
    return frozen


def restore_fp32_forward(trainer: Any) -> None:
    """Mixed precision leaves the model's forward wrapped in autocast; validation (and any
    later use of the object) should run the fp32 model the runtime will run."""
    trainer.accelerator.unwrap_model(trainer.model, keep_fp32_wrapper=False)


def pin_memory() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def load_bi_encoder(path: str | Path, *, max_seq_length: int | None = None) -> Any:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(path), device=default_device(), local_files_only=True)
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    return model


def logging_steps(n_examples: int, batch_size: int, epochs: int) -> int:
    """About ten loss points a run: enough for a curve, little console noise."""
    steps = max(1, -(-n_examples // batch_size)) * epochs
    return max(1, steps // 10)


def loss_curve(log_history: Sequence[Mapping[str, Any]]) -> tuple[tuple[int, float], ...]:
    return tuple((int(e["step"]), float(e["loss"])) for e in log_history if "loss" in e)


@contextlib.contextmanager
def scratch_dir() -> Iterator[str]:
    """The Trainer wants an output_dir; with save_strategy "no" nothing should land there,
    and whatever does (a stray log) goes away with it."""
    with tempfile.TemporaryDirectory(prefix="toolsift-trainer-") as tmp:
        yield tmp


def trainer_args(params: Any, n_examples: int, output_dir: str) -> dict[str, Any]:
    """The Trainer arguments both encoders share: one pass over `params` (epochs, batch
    size, learning rate, warmup, seed, precision), nothing saved or evaluated by the
    Trainer, about ten loss points. The batch sampler is each stage's own."""
    return {
        "output_dir": output_dir,
        "num_train_epochs": params.epochs,
        "per_device_train_batch_size": params.batch_size,
        "learning_rate": params.learning_rate,
        "warmup_steps": params.warmup,
        "seed": params.seed,
        "data_seed": params.seed,
        **precision_args(params.precision),
        "save_strategy": "no",
        "eval_strategy": "no",
        "report_to": "none",
        "logging_strategy": "steps",
        "logging_steps": logging_steps(n_examples, params.batch_size, params.epochs),
        "disable_tqdm": False,
        "dataloader_pin_memory": pin_memory(),
    }


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


def is_main_process() -> bool:
    """Rank 0 under torchrun/accelerate (both set RANK), or a plain run."""
    return int(os.environ.get("RANK", "0")) == 0


def model_dir_for(out_dir: Path, sampler: str, main_sampler: str) -> Path:
    return out_dir if sampler == main_sampler else out_dir.with_name(f"{out_dir.name}-{sampler}")


def dir_listing(path: Path) -> tuple[str, int]:
    """`name:bytes` of every file (for an MLflow param: the weights are too big to log)."""
    files = sorted(p for p in path.rglob("*") if p.is_file())
    sizes = [(p.relative_to(path).as_posix(), p.stat().st_size) for p in files]
    return ",".join(f"{n}:{s}" for n, s in sizes), sum(s for _, s in sizes)


def quiet_progress() -> None:
    """One progress bar (the Trainer's): no dataset or encode bars, no per-call warnings."""
    import datasets
    import transformers

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    datasets.disable_progress_bars()
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()  # weight loading and saving


@contextlib.contextmanager
def maybe_stage_run(stage: str, params: Mapping[str, Any]) -> Iterator[bool]:
    """The stage's MLflow run on rank 0; nothing on the other ranks. Yields `is_main`."""
    if not is_main_process():
        yield False
        return
    from training.tracking import stage_run

    with stage_run(stage, params):
        yield True


def log_model_dir(name: str, path: Path) -> None:
    import mlflow

    listing, n_bytes = dir_listing(path)
    mlflow.log_params({f"model.{name}.path": str(path), f"model.{name}.bytes": n_bytes})
    mlflow.log_param(f"model.{name}.files", listing[:6000])


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

    from serving.encoder import stock_model_path
    from training.tracking import log_dataset_digest, log_metrics

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

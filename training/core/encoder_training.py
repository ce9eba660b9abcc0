"""What the two encoder stages (`train_retriever`, `train_reranker`) share: the Trainer
arguments, the precision choice, the length-grouped batch sampler, layer freezing, the
tool texts they train on, and the rank-0-only MLflow run of a data-parallel launch.

Runs unchanged on a GPU and under `accelerate launch` / `torchrun` (training/README.md):
the Trainer picks the devices; only rank 0 saves and logs. torch, transformers,
datasets and sentence-transformers are imported inside the functions.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from serving.bundle.encoder import has_accelerator, use_bf16
from serving.model.schema import ToolCard
from training.core.params import ParamsError

EVAL_BATCH_SIZE = 64


class TrainingDataError(ValueError):
    """The training inputs do not fit the catalog or hold too little to train on."""


def tool_texts(cards: Sequence[ToolCard]) -> dict[str, str]:
    """tool id -> `ToolCard.index_text()`: the very text the runtime indexes."""
    return {c.tool_id: c.index_text() for c in cards}


# --- batches ------------------------------------------------------------------------------


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
            batch: list[int] = []
            seen: set[str] = set()
            rest: list[int] = []
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


# --- models and the Trainer ---------------------------------------------------------------


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


# --- data-parallel launches and MLflow -----------------------------------------------------


def is_main_process() -> bool:
    """Rank 0 under torchrun/accelerate (both set RANK), or a plain run."""
    return int(os.environ.get("RANK", "0")) == 0


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
    from training.core.tracking import stage_run

    with stage_run(stage, params):
        yield True


def log_model_dir(name: str, path: Path) -> None:
    import mlflow

    listing, n_bytes = dir_listing(path)
    mlflow.log_params({f"model.{name}.path": str(path), f"model.{name}.bytes": n_bytes})
    mlflow.log_param(f"model.{name}.files", listing[:6000])



"""The bundle's encoders through onnxruntime and the `tokenizers` library: no torch.

`training.release.onnx_export` writes, beside each model's weights, `onnx/` with the graph in
fp32 and int8 (each with its weights in `<graph>.data`), the tokenizer and `onnx.json` (max
length, output name). A session is made on first use (or in the background: `start`) and
kept by its object, which a `Selector` holds: one per selector.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

ONNX_DIR = "onnx"
ONNX_CONFIG = "onnx.json"
TOKENIZER_FILE = "tokenizer.json"
ONNX_FILES = {"fp32": "model.onnx", "int8": "model_int8.onnx"}
EXTERNAL_DATA_SUFFIX = ".data"  # a graph's weights, beside it: `model.onnx.data`
WEIGHTS = tuple(ONNX_FILES)


def has_onnx(model_dir: Path | None) -> bool:
    """Whether `model_dir` holds an ONNX export this runtime can read."""
    return model_dir is not None and (model_dir / ONNX_DIR / ONNX_CONFIG).is_file()


def check_weights(weights: str, what: str) -> str:
    if weights not in WEIGHTS:
        raise ValueError(f"{what} {weights!r} is not {'|'.join(WEIGHTS)}")
    return weights


class _OnnxModel:
    """One ONNX graph with its tokenizer; the session and tokenizer load once, lazily, or
    in the background from `start()`. `check` (a bundle's `DeferredFiles.check`) vets
    the graph file before onnxruntime reads it."""

    def __init__(
        self, model_dir: str | Path, *, weights: str = "fp32", threads: int = 0,
        batch_size: int = 64, check: Callable[[Path], object] | None = None,
    ) -> None:
        check_weights(weights, f"{type(self).__name__}: weights")
        self.model_path = str(model_dir)
        self.weights = weights
        self.threads = threads
        self.batch_size = batch_size
        self._check = check
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any, dict[str, Any]] | None = None
        self._loader: threading.Thread | None = None

    def start(self) -> None:
        """Load on a background thread: hashing the graph and building the session release
        the GIL, so a one-shot call reads the rest of its bundle meanwhile. `wait()` (or
        the first use) joins it; a failure is raised there, by loading again."""
        if self._loaded is None and self._loader is None:
            self._loader = threading.Thread(target=self._load_quietly, daemon=True)
            self._loader.start()

    def wait(self) -> None:
        """Finish loading; raises what loading raises (a `BundleError` for an altered graph)."""
        if self._loader is not None:
            self._loader.join()
        self._load()

    def _load_quietly(self) -> None:
        try:
            self._load()
        except Exception:  # noqa: BLE001 - `wait()` loads again and raises it there
            log.debug("background load of %s failed", self.model_path, exc_info=True)

    @property
    def key(self) -> str:
        """Names model and numerics for caches: int8 outputs differ from fp32's."""
        return f"{self.model_path}@onnx-{self.weights}"

    def _load(self) -> tuple[Any, Any, dict[str, Any]]:
        with self._lock:
            if self._loaded is None:
                root = Path(self.model_path) / ONNX_DIR
                graph = root / ONNX_FILES[self.weights]
                if self._check is not None:  # first: hashing leaves the GIL to the caller
                    data = graph.with_name(graph.name + EXTERNAL_DATA_SUFFIX)
                    if data.is_file():  # exports before the weights moved out have none
                        self._check(data)
                    self._check(graph)
                import onnxruntime as ort
                from tokenizers import Tokenizer

                settings = json.loads((root / ONNX_CONFIG).read_text())
                options = ort.SessionOptions()
                # 0 = every core: one request's batch is the only work in flight
                options.intra_op_num_threads = self.threads or (os.cpu_count() or 1)
                options.inter_op_num_threads = 1
                # ALL adds layout passes for convolutions, nothing for a transformer, and
                # costs ~0.12 s of a one-shot call's session start on 2 cores
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
                # no busy-waiting between ops: on a shared CPU a spinning pool steals the
                # cores the agent's own work needs
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                session = ort.InferenceSession(
                    str(graph),
                    sess_options=options,
                    providers=["CPUExecutionProvider"],
                )
                tokenizer = Tokenizer.from_file(str(root / TOKENIZER_FILE))
                tokenizer.enable_truncation(max_length=int(settings["max_length"]))
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                self._loaded = (session, tokenizer, settings)
            return self._loaded

    def runs_alone(self) -> bool:
        """Whether each input runs through the graph alone (`OnnxEncoder`'s int8 graph)."""
        return False

    def _run(self, batch: Sequence[Any]) -> np.ndarray:
        """The graph's output for every input of `batch`, in order. Inputs run in groups of
        similar token length, at most `batch_size` each: a short subgoal batched with its
        whole request would be padded to the request's length (twice the work or more)."""
        session, tokenizer, settings = self._load()
        encodings = tokenizer.encode_batch(list(batch))
        out: np.ndarray | None = None
        size = 1 if self.runs_alone() else self.batch_size
        for group in length_groups([sum(e.attention_mask) for e in encodings], size):
            rows = [encodings[i] for i in group]
            width = max(sum(e.attention_mask) for e in rows)  # the tokenizer padded to all
            feeds = {
                "input_ids": np.asarray([e.ids[:width] for e in rows], dtype=np.int64),
                "attention_mask": np.asarray([e.attention_mask[:width] for e in rows],
                                             dtype=np.int64),
                "token_type_ids": np.asarray([e.type_ids[:width] for e in rows], dtype=np.int64),
            }
            result = np.asarray(session.run([settings["output"]], feeds)[0], dtype=np.float32)
            if out is None:
                out = np.empty((len(encodings), *result.shape[1:]), dtype=np.float32)
            out[group] = result
        assert out is not None
        return out


# a group grows while its longest input has at most this many times the shortest's tokens:
# below it, padding costs less than another call of the graph (~0.3 ms on 2 cores)
MAX_LENGTH_RATIO = 1.25


def length_groups(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices of `lengths` in groups of similar length (sorted, longest first), each at most
    `batch_size` long and with a longest-to-shortest ratio of at most `MAX_LENGTH_RATIO`."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    groups: list[list[int]] = []
    for i in order:
        group = groups[-1] if groups else None
        if (group is None or len(group) >= batch_size
                or lengths[group[0]] > MAX_LENGTH_RATIO * max(lengths[i], 1)):
            groups.append([i])
        else:
            group.append(i)
    return groups


class OnnxEncoder(_OnnxModel):
    """Embeds texts, L2-normalised float32, as `serving.bundle.encoder.Encoder` does with torch."""

    def runs_alone(self) -> bool:
        """The int8 graph embeds one text a call: its dynamic quantization scales activations
        by the whole input, so in company a text's vector would move with the other texts
        and their padding (a cache would keep whichever came first). Alone, a text has one
        vector, and int8 still costs less CPU than fp32 in a batch."""
        return self.weights == "int8"

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        if not texts:
            dim = int(self._load()[0].get_outputs()[0].shape[-1])
            return np.zeros((0, dim), dtype=np.float32)
        return self._run(texts)


class OnnxPairScorer(_OnnxModel):
    """Scores (query, document) pairs: the cross-encoder's score, as `PairScorer` does."""

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        return self._run(pairs).reshape(-1)

"""Write a sentence-transformers model as ONNX beside its weights, for the torch-free runtime
(`serving.bundle.onnx_models`): the graph in fp32 and int8 (dynamic quantization), the tokenizer
and the few settings the runtime needs to tokenize and read the output as torch would.

The bi-encoder's graph holds the transformer, mean pooling and L2 normalisation, so it
returns the same vectors as `SentenceTransformer.encode(normalize_embeddings=True)`; the
cross-encoder's returns `CrossEncoder.predict`'s score: its activation of the logit.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

from serving.bundle.onnx_models import (
    EXTERNAL_DATA_SUFFIX,
    ONNX_CONFIG,
    ONNX_DIR,
    ONNX_FILES,
    TOKENIZER_FILE,
)

log = logging.getLogger(__name__)
OPSET = 17


def export_onnx(model_dir: Path, kind: str, *, out_dir: Path | None = None) -> Path:
    """Export the model in `model_dir` (kind: "bi_encoder" | "cross_encoder") to
    `out_dir` (default `model_dir/onnx`): model.onnx, model_int8.onnx (each with its
    weights in `<name>.data`), tokenizer.json and onnx.json. Returns the directory."""
    import torch

    out_dir = out_dir or model_dir / ONNX_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    if kind == "bi_encoder":
        module, max_length, output = _bi_encoder(model_dir)
    elif kind == "cross_encoder":
        module, max_length, output = _cross_encoder(model_dir)
    else:
        raise ValueError(f"export_onnx: kind {kind!r} is not bi_encoder|cross_encoder")
    shutil.copyfile(model_dir / TOKENIZER_FILE, out_dir / TOKENIZER_FILE)

    names = ["input_ids", "attention_mask", "token_type_ids"]
    dummy = tuple(torch.ones(2, 8, dtype=torch.int64) for _ in names)
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {output: {0: "batch"}}
    fp32, int8 = (out_dir / ONNX_FILES[w] for w in ("fp32", "int8"))
    with torch.no_grad():
        # the TorchScript exporter: no onnxscript dependency, dynamic axes as declared
        torch.onnx.export(
            module, dummy, str(fp32), input_names=names, output_names=[output],
            dynamic_axes=axes, opset_version=OPSET, dynamo=False,
        )
    _quantize(fp32, int8, kind, model_dir)
    for graph in (fp32, int8):
        _weights_beside(graph)
    settings = {"kind": kind, "max_length": max_length, "output": output, "opset": OPSET}
    (out_dir / ONNX_CONFIG).write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")
    log.info("onnx: %s (%s, max_length %d) -> %s", model_dir, kind, max_length, out_dir)
    return out_dir


def _quantize(fp32: Path, int8: Path, kind: str, model_dir: Path) -> None:
    """int8 weights, activations quantized on the fly: the CPU-friendly choice for BERTs.

    A bi-encoder's int8 graph quantizes only its feed-forward MatMuls (two thirds of its
    multiply-adds), with one scale per output channel: its query vectors meet card vectors
    embedded in fp32, and on the demo's eval this keeps every metric of the pipeline within
    0.1 point of fp32, where every MatMul in int8 cost 0.6 points end-to-end and one scale
    per matrix 1 point (docs/experiments.md). The cross-encoder keeps its recipe."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    if kind != "bi_encoder":
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
        return
    config = json.loads((model_dir / "config.json").read_text())
    nodes = feed_forward_matmuls(fp32, config["hidden_size"], config["intermediate_size"])
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                     nodes_to_quantize=nodes)


def feed_forward_matmuls(graph: Path, hidden: int, intermediate: int) -> list[str]:
    """The MatMul nodes of `graph` whose weight is a feed-forward matrix (hidden x
    intermediate either way round)."""
    import onnx

    model = onnx.load(str(graph), load_external_data=False)
    shapes = {init.name: list(init.dims) for init in model.graph.initializer}
    wanted = ([hidden, intermediate], [intermediate, hidden])
    return [node.name for node in model.graph.node if node.op_type == "MatMul"
            and any(shapes.get(name) in wanted for name in node.input)]


def _weights_beside(graph: Path) -> None:
    """Move the weights out of the graph's protobuf into `<graph>.data`: onnxruntime maps
    that file instead of parsing and copying them, which halves a session's start (0.35 ->
    0.16 s for the fp32 MiniLM on 2 cores), the one cost a one-shot call cannot share."""
    import onnx

    model = onnx.load(str(graph))
    data = graph.with_name(graph.name + EXTERNAL_DATA_SUFFIX)
    data.unlink(missing_ok=True)  # save appends to an existing data file
    onnx.save_model(
        model, str(graph), save_as_external_data=True, all_tensors_to_one_file=True,
        location=data.name, size_threshold=1024,
    )
    data.chmod(graph.stat().st_mode & 0o777)  # onnx writes it owner-only


def _bi_encoder(model_dir: Path) -> tuple[Any, int, str]:
    import torch
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    mean = pooling.get("pooling_mode", "mean") == "mean" or pooling.get("pooling_mode_mean_tokens")
    if not mean:
        raise ValueError(f"{model_dir}: only mean pooling is exported (got {pooling})")
    from transformers import AutoModel

    transformer = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

    class MeanPooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.transformer(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    return MeanPooled().eval(), int(st.max_seq_length), "embedding"


def _cross_encoder(model_dir: Path) -> tuple[Any, int, str]:
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder
    from transformers import AutoModelForSequenceClassification

    ce = CrossEncoder(str(model_dir), device="cpu", local_files_only=True)
    # what `predict` applies to the logit (identity for the bundle's trained rerankers,
    # sigmoid for a fresh head): the graph returns the same number
    activation = ce.activation_fn
    model = AutoModelForSequenceClassification.from_pretrained(
        str(model_dir), local_files_only=True
    ).eval()

    class Logit(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.activation = activation

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            logits = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).logits
            return self.activation(logits[:, 0])

    return Logit().eval(), int(ce.max_seq_length), "score"

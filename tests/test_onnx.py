"""The encoders as ONNX: the export stage writes them, the manifest hashes them, and
onnxruntime returns what torch does (fp32 to float precision, int8 close to it)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from serving.bundle.files import verify_bundle
from serving.bundle.onnx_models import (
    EXTERNAL_DATA_SUFFIX,
    ONNX_CONFIG,
    ONNX_FILES,
    OnnxEncoder,
    OnnxPairScorer,
)

ROOT = Path(__file__).resolve().parents[1]
TEXTS = ["list the commits on main", "post a message to #ops", "x " * 400]  # the last: cut


@pytest.fixture(scope="module")
def reranker_bundle(tmp_path_factory, fixture_catalog):
    """The fixture catalog exported with a cross-encoder (an untrained head: parity and
    the torch-free path need no trained one), so both encoders are ONNX in it."""
    from sentence_transformers.cross_encoder import CrossEncoder

    from serving.bundle.encoder import stock_model_path
    from training.export import main

    tmp = tmp_path_factory.mktemp("onnx")
    CrossEncoder(str(stock_model_path()), num_labels=1, device="cpu").save(str(tmp / "ce"))
    out = tmp / "bundle"
    main([str(ROOT / "params.yaml"), str(fixture_catalog), str(out), "--reranker", str(tmp / "ce")])
    return out


@pytest.fixture(scope="module")
def cross_encoder_dir(reranker_bundle):
    return reranker_bundle / "models" / "reranker"


def test_export_stage_writes_hashed_onnx(reranker_bundle):
    manifest = verify_bundle(reranker_bundle)
    onnx = sorted(f for f in manifest.files if "/onnx/" in f)
    graphs = [*ONNX_FILES.values()]
    names = sorted([*graphs, *(g + EXTERNAL_DATA_SUFFIX for g in graphs), ONNX_CONFIG,
                    "tokenizer.json"])
    assert onnx == [f"models/{m}/onnx/{n}" for m in ("reranker", "retriever") for n in names]


@pytest.mark.parametrize(("weights", "min_cosine"), [("fp32", 0.9999), ("int8", 0.98)])
def test_onnx_bi_encoder_matches_torch(fixture_bundle, weights, min_cosine):
    from serving.bundle.encoder import Encoder

    model = fixture_bundle / "models" / "retriever"
    torch_vectors = Encoder(model).encode(TEXTS)
    onnx_vectors = OnnxEncoder(model, weights=weights, batch_size=2).encode(TEXTS)
    assert onnx_vectors.shape == torch_vectors.shape and onnx_vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(onnx_vectors, axis=1), 1.0, atol=1e-4)
    assert (onnx_vectors * torch_vectors).sum(axis=1).min() >= min_cosine
    assert OnnxEncoder(model).encode([]).shape == (0, torch_vectors.shape[1])


def test_a_bi_encoders_int8_graph_quantizes_its_feed_forward_matmuls_only(fixture_bundle):
    import onnx

    from training.release.onnx_export import feed_forward_matmuls

    model = fixture_bundle / "models" / "retriever"
    config = json.loads((model / "config.json").read_text())
    fp32 = model / "onnx" / ONNX_FILES["fp32"]
    ffn = feed_forward_matmuls(fp32, config["hidden_size"], config["intermediate_size"])
    assert len(ffn) == 2 * config["num_hidden_layers"]  # up and down in every layer
    int8 = onnx.load(str(model / "onnx" / ONNX_FILES["int8"]), load_external_data=False)
    ops = [n.op_type for n in int8.graph.node]
    # attention's projections stay fp32: 4 a layer, beside the two products of scores
    assert ops.count("MatMulInteger") == len(ffn)
    assert ops.count("MatMul") == 6 * config["num_hidden_layers"]


@pytest.mark.parametrize(("weights", "tolerance"), [("fp32", 1e-3), ("int8", 0.5)])
def test_onnx_cross_encoder_matches_torch(cross_encoder_dir, weights, tolerance):
    from serving.bundle.encoder import PairScorer

    pairs = [(t, "github.list_commits: list commits on a branch") for t in TEXTS]
    torch_scores = PairScorer(cross_encoder_dir).score(pairs)
    onnx_scores = OnnxPairScorer(cross_encoder_dir, weights=weights, batch_size=2).score(pairs)
    assert onnx_scores.shape == (3,)
    assert onnx_scores == pytest.approx(torch_scores, abs=tolerance)
    assert OnnxPairScorer(cross_encoder_dir).score([]).shape == (0,)


BLOCK_TORCH = """
import sys, json
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {'torch', 'transformers', 'sentence_transformers'}:
            raise ImportError(f'{name} is blocked: the runtime must not need it')
sys.meta_path.insert(0, Blocker())
from serving.selector import Selector
selector = Selector.from_bundle(sys.argv[1], reranker='cross_encoder')
found = selector.discover('list the commits on the main branch').ranked()
print(json.dumps({
    "encoder": type(selector.encoder).__name__,
    "scorer": type(selector.reranker.scorer).__name__,
    "top": found[:8],
    "torch": [m for m in sys.modules if m.split('.')[0] in {'torch', 'transformers'}],
}))
"""


def test_selector_runs_with_torch_unimportable(reranker_bundle):
    out = subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH, str(reranker_bundle)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert (result["encoder"], result["scorer"]) == ("OnnxEncoder", "OnnxPairScorer")
    assert "github.list_commits" in result["top"] and result["torch"] == []


def test_backend_is_a_runtime_param(fixture_bundle):
    from serving.bundle.encoder import Encoder
    from serving.selector import Selector

    torch_selector = Selector.from_bundle(fixture_bundle, overrides={"encoder_backend": "torch"})
    assert isinstance(torch_selector.encoder, Encoder)
    onnx_selector = Selector.from_bundle(fixture_bundle, overrides={"retriever_weights": "int8"})
    assert isinstance(onnx_selector.encoder, OnnxEncoder)
    assert onnx_selector.encoder.weights == "int8"
    request = "list the commits on the main branch"
    top = [s.discover(request).ranked()[:3] for s in (torch_selector, onnx_selector)]
    assert top[0] == top[1]


NO_MODEL_RUNTIME = """
import json, sys
from typer.testing import CliRunner
from training.core.cli import app
fixtures, out = sys.argv[1], sys.argv[2]
runs = [
    ["--help"],
    ["check", "catalog", f"{fixtures}/catalog.jsonl"],
    ["lint", f"{fixtures}/catalog.jsonl", "--no-detector"],
    ["import", f"{fixtures}/mcp_tools_list.json", "--server", "demo", "--out", out],
]
codes = [CliRunner().invoke(app, args).exit_code for args in runs]
heavy = {"torch", "transformers", "sentence_transformers", "onnxruntime", "tokenizers"}
loaded = sorted({m.split('.')[0] for m in sys.modules} & heavy)
print(json.dumps({"codes": codes, "loaded": loaded}))
"""


def test_catalog_commands_load_no_model_runtime(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", NO_MODEL_RUNTIME, str(ROOT / "tests" / "fixtures"),
         str(tmp_path / "cards.jsonl")],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["loaded"] == []
    # --help 0; the fixtures hold deliberate bad lines, so the others exit 0 or 1, never 2+
    assert result["codes"][0] == 0 and max(result["codes"]) <= 1

"""Build a selection bundle: cards, models, indexes, runtime params, then the manifest that
hashes them. The `export` stage writes the bundles agents load; `train_ltr`, `tune_menus`
and the security study write scratch bundles the same way (`scratch_selector`).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from serving.bundle import files as B
from serving.bundle.cached_encoder import text_key, write_vectors
from serving.bundle.encoder import Encoder, TextEncoder, stock_model_path
from serving.bundle.onnx_models import ONNX_DIR
from serving.catalog.meaning import MeaningDetector, review_sentences
from serving.catalog.meaning_check import (
    BUNDLE_DETECTOR,
    BUNDLE_REVIEW_VECTORS,
    LINT_ENCODER_DIR,
    SHIPPED_DETECTOR,
)
from serving.model.config import RuntimeParams, utc_now
from serving.model.schema import BundleManifest, ToolCard
from serving.stages.ann import ApproximateDense
from serving.stages.intent import (
    BUNDLE_CARD_VECTORS,
    BUNDLE_INTENT,
    SHIPPED_INTENT,
    RequestIntent,
)
from serving.stages.retrieve import BM25Retriever
from training.release.onnx_export import export_onnx

_MODEL_NOISE = shutil.ignore_patterns(
    "README.md", ".gitattributes", "data_config.json", "checkpoint-*"
)


@dataclass(frozen=True, slots=True)
class ExportParams:
    """Mirror of the `export` section of params.yaml."""

    encode_batch_size: int
    strict: bool  # the catalog loads strictly: a bad line fails the export


def export_bundle(
    cards: Sequence[ToolCard],
    out_dir: Path,
    *,
    retriever_path: Path,
    reranker_path: Path | None,
    runtime: RuntimeParams,
    ltr_path: Path | None = None,
    menus_path: Path | None = None,
    params: ExportParams,
    extra_params: dict[str, Any] | None = None,
    onnx: bool = False,
    lint_detector: Path | None = None,
    intent_head: Path | None = None,
    review_encoder: TextEncoder | None = None,
) -> BundleManifest:
    """Write every bundle file, then the manifest that hashes them. `onnx`: also the
    encoders as ONNX for the torch-free runtime (the export stage; scratch bundles that
    only training reads skip its ~30 s). Every bundle carries the lint's detector
    (`lint_detector`, default the shipped one) and, with `onnx` and a retriever that is
    not the stock encoder, the stock encoder the detector reads (`export_lint`); and the
    request-intent head of the no-tool signal (`intent_head`, default the shipped one), which
    reads that same encoder; with `onnx` and such a retriever, also every card's vector
    under that encoder (`BUNDLE_CARD_VECTORS`), so no search or gateway start embeds them;
    with `onnx`, the review's sentence vectors (`export_review_vectors`; `review_encoder`:
    the one the caller's review embedded them with, so none is embedded twice)."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    (out_dir / "dense").mkdir(parents=True)
    B.write_cards(out_dir / B.CARDS, cards)
    shutil.copytree(retriever_path, out_dir / B.RETRIEVER_DIR, ignore=_MODEL_NOISE)
    if reranker_path is not None:
        shutil.copytree(reranker_path, out_dir / B.RERANKER_DIR, ignore=_MODEL_NOISE)
    if ltr_path is not None:
        from serving.stages.ranker_features import FEATURE_NAMES

        names = tuple(json.loads((ltr_path / B.LTR_FEATURES).read_text()))
        if not names or not set(names) <= set(FEATURE_NAMES) or len(set(names)) != len(names):
            raise ValueError(
                f"{ltr_path / B.LTR_FEATURES}: trained on {list(names)}, "
                f"the runtime computes {list(FEATURE_NAMES)}"
            )
        if "cross_encoder" in names and reranker_path is None:
            raise ValueError(
                "--ltr needs --reranker: this ranker reads the cross-encoder's logit"
            )
        shutil.copytree(ltr_path, out_dir / B.LTR_DIR, ignore=_MODEL_NOISE)
    if menus_path is not None:
        from serving.stages.menu_policy import MenuPolicy

        try:  # refuse a policy this runtime would refuse to load
            policy = MenuPolicy.from_dict(json.loads(menus_path.read_text()))
        except (ValueError, json.JSONDecodeError) as err:
            raise ValueError(f"{menus_path}: {err}") from None
        policy.save(out_dir / B.MENUS)
    if onnx:
        export_bundle_onnx(out_dir)
    export_lint(out_dir, lint_detector or SHIPPED_DETECTOR, retriever_path, onnx=onnx)
    head = intent_head or SHIPPED_INTENT
    intent = RequestIntent.load(head)  # refuse a file the runtime would refuse
    (out_dir / BUNDLE_INTENT).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(head, out_dir / BUNDLE_INTENT)
    encoder = Encoder(out_dir / B.RETRIEVER_DIR, batch_size=params.encode_batch_size)
    texts = [c.index_text() for c in cards]
    vectors = encoder.encode(texts, show_progress=True)
    np.save(out_dir / B.EMBEDDINGS, vectors, allow_pickle=False)
    if onnx and not intent.accepts(encoder):  # the head reads the stock encoder: embed now
        stock = intent_encoder(out_dir, batch_size=params.encode_batch_size)
        np.save(out_dir / BUNDLE_CARD_VECTORS, stock.encode(texts), allow_pickle=False)
    if onnx:
        export_review_vectors(out_dir, cards, batch_size=params.encode_batch_size,
                              encoder=review_encoder)
    if len(cards) >= runtime.ann_threshold:  # the runtime searches it approximately
        ApproximateDense.build(vectors).save(out_dir / B.ANN_INDEX)
    BM25Retriever.build(cards).save(out_dir / B.BM25_DIR)
    (out_dir / B.CAPABILITIES).write_text(json.dumps(B.build_capability_index(cards)))
    (out_dir / B.RUNTIME).write_text(json.dumps(runtime.to_dict(), indent=2, sort_keys=True))
    return B.finalize_manifest(
        out_dir,
        created_at=utc_now(),
        git_rev=B.git_rev(),
        params={"export": {"encode_batch_size": params.encode_batch_size}, **(extra_params or {})},
        models={
            "retriever": str(retriever_path),
            "reranker": str(reranker_path) if reranker_path else None,
            "ltr": str(ltr_path) if ltr_path else None,
            "menus": str(menus_path) if menus_path else None,
            "lint_detector": str(lint_detector or SHIPPED_DETECTOR),
            "request_intent": str(intent_head or SHIPPED_INTENT),
            "embedding_dim": int(vectors.shape[1]),
        },
    )


def intent_encoder(root: Path, *, batch_size: int) -> TextEncoder:
    """The stock encoder the runtime of the bundle at `root` will give the request-intent
    head (`serving.catalog.meaning_check.meaning_check`): the bundle's lint encoder where
    `export_lint` wrote one, else the packaged torch model. Vectors written at export must
    be the ones the runtime would compute."""
    lint_dir = root / LINT_ENCODER_DIR
    if lint_dir.is_dir():
        from serving.bundle.onnx_models import OnnxEncoder

        return OnnxEncoder(lint_dir, batch_size=batch_size)
    return Encoder(stock_model_path(), batch_size=batch_size)


def export_review_vectors(
    root: Path, cards: Sequence[ToolCard], *, batch_size: int, encoder: TextEncoder | None = None
) -> None:
    """Every sentence the lint's check by meaning reads in `cards`, embedded by the encoder
    the runtime of the bundle at `root` reviews with (`intent_encoder`, or `encoder` when the
    caller reviewed with that same model), at `BUNDLE_REVIEW_VECTORS`: a gateway over the
    bundle embeds only the sentences its live servers changed."""
    texts = review_sentences(cards)
    if not texts:
        return
    encoder = encoder or intent_encoder(root, batch_size=batch_size)
    vectors = encoder.encode(texts, show_progress=True)
    write_vectors(root / BUNDLE_REVIEW_VECTORS,
                  dict(zip(map(text_key, texts), vectors, strict=True)))


def export_lint(root: Path, detector: Path, retriever_path: Path, *, onnx: bool) -> None:
    """The lint's detector at `lint/detector.json.gz` and, where the runtime could not
    embed with an encoder it accepts (an ONNX bundle whose retriever was fine-tuned), the
    stock encoder as ONNX at `models/lint_encoder/onnx/`: fp32 for the review, whose
    detector reads the vectors it was fit on, and int8 for the per-search request-intent
    and pair heads where `runtime.intent_weights` asks for it."""
    target = root / BUNDLE_DETECTOR
    target.parent.mkdir(parents=True, exist_ok=True)
    MeaningDetector.load(detector)  # refuse a file the runtime would refuse
    shutil.copyfile(detector, target)
    stock = stock_model_path()
    if not onnx or Path(retriever_path).resolve() == stock.resolve():
        return
    export_onnx(stock, "bi_encoder", out_dir=root / LINT_ENCODER_DIR / ONNX_DIR)


def export_bundle_onnx(root: Path) -> None:
    """Both encoders of the bundle at `root` as ONNX (fp32 and int8) beside their weights,
    so the runtime needs no torch (`serving.bundle.onnx_models`)."""
    export_onnx(root / B.RETRIEVER_DIR, "bi_encoder")
    if (root / B.RERANKER_DIR).is_dir():
        export_onnx(root / B.RERANKER_DIR, "cross_encoder")


def add_onnx(root: Path) -> BundleManifest:
    """An existing bundle (a copy: it is rewritten) with its encoders' ONNX files added and
    the manifest rewritten to hash them; everything else it records is kept."""
    old = B.verify_bundle(root)
    export_bundle_onnx(root)
    return B.finalize_manifest(
        root,
        created_at=old.created_at,
        git_rev=old.git_rev,
        params=old.params,
        metrics=old.metrics,
        models=old.models,
        feature_names=old.feature_names,
        mlflow_run_id=old.mlflow_run_id,
    )


@contextmanager
def scratch_selector(
    params_path: str | Path,
    cards: Sequence[ToolCard],
    *,
    retriever_path: Path,
    reranker_path: Path | None,
    ltr_path: Path | None = None,
    **selector_options: Any,
) -> Iterator[Any]:
    """A `Selector` over a throwaway bundle of the given models (no ONNX), exported with
    the `export` and `runtime` sections of `params_path`: how a stage replays requests
    through the runtime before the real export. `selector_options` go to `from_bundle`."""
    from serving.selector import Selector
    from training.core.params import load_params, read_section

    with tempfile.TemporaryDirectory(prefix="toolsift-scratch-") as tmp:
        root = Path(tmp) / "bundle"
        export_bundle(
            cards, root, retriever_path=retriever_path, reranker_path=reranker_path,
            ltr_path=ltr_path,
            runtime=RuntimeParams.from_dict(read_section(params_path, "runtime")),
            params=load_params(params_path, "export", ExportParams),
        )
        yield Selector.from_bundle(root, **selector_options)

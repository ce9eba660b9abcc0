"""The selection bundle: write it, verify it, load it.

Layout (format version 1), every file hashed in `manifest.json`:
    manifest.json            versions, git rev, params, metrics, models, sha256 per file
    cards.jsonl              card snapshot, each with `description_sha256`
    dense/embeddings.npy     float32 [n_tools, dim], L2-normalised, row i = cards line i
    dense/hnsw.faiss         optional approximate index over them (catalogs of at least
                             `runtime.ann_threshold` tools)
    models/retriever/        the bi-encoder that embeds subgoals (and made the embeddings)
    models/reranker/         optional cross-encoder
    models/*/onnx/           each encoder as ONNX (model.onnx fp32, model_int8.onnx),
                             tokenizer.json, onnx.json: the torch-free runtime's input
    models/ltr/              optional learned ranker: model.txt (LightGBM), features.json
                             (the feature names it was trained on), history.json
    bm25/                    the bm25s index over `ToolCard.index_text()` tokens
    capabilities.json        operation -> row ids, entity -> row ids
    runtime.json             the runtime params the bundle was measured with
A bundle's version id is content-addressed: the hash of its sorted file hashes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from serving.schema import BUNDLE_FORMAT_VERSION, BundleManifest, FieldError, ToolCard
from serving.vocab import parse_capability

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
CARDS = "cards.jsonl"
EMBEDDINGS = "dense/embeddings.npy"
ANN_INDEX = "dense/hnsw.faiss"
RETRIEVER_DIR = "models/retriever"
RERANKER_DIR = "models/reranker"
LTR_DIR = "models/ltr"
LTR_MODEL, LTR_FEATURES = "model.txt", "features.json"
BM25_DIR = "bm25"
CAPABILITIES = "capabilities.json"
RUNTIME = "runtime.json"


class BundleError(RuntimeError):
    """A bundle is missing, altered, or of a format this runtime cannot read."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def hash_tree(root: Path) -> dict[str, str]:
    """sha256 of every file under root except the manifest, keyed by posix relative path."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != MANIFEST:
            out[path.relative_to(root).as_posix()] = sha256_file(path)
    return out


def content_version(files: Mapping[str, str]) -> str:
    digest = hashlib.sha256()
    for rel, sha in sorted(files.items()):
        digest.update(f"{rel}\0{sha}\n".encode())
    return "b-" + digest.hexdigest()[:16]


def build_capability_index(cards: Sequence[ToolCard]) -> dict[str, dict[str, list[int]]]:
    ops: dict[str, list[int]] = {}
    entities: dict[str, list[int]] = {}
    for row, card in enumerate(cards):
        card_entities = set(card.entities)
        for capability in card.capabilities:
            op, entity = parse_capability(capability)
            if op:
                ops.setdefault(op, []).append(row)
            if entity:
                card_entities.add(entity)
        for entity in sorted(card_entities):
            entities.setdefault(entity, []).append(row)
    return {"operations": ops, "entities": entities}


def write_cards(path: Path, cards: Sequence[ToolCard]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for card in cards:
            rec = card.to_dict()
            rec["description_sha256"] = card.description_hash()
            fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")


def finalize_manifest(
    root: Path,
    *,
    created_at: str,
    git_rev: str,
    params: Mapping[str, Any],
    metrics: Mapping[str, Any] | None = None,
    models: Mapping[str, Any] | None = None,
    feature_names: Sequence[str] = (),
    mlflow_run_id: str = "",
) -> BundleManifest:
    """Hash every file already written under root and write manifest.json last."""
    files = hash_tree(root)
    manifest = BundleManifest(
        format_version=BUNDLE_FORMAT_VERSION,
        bundle_version=content_version(files),
        created_at=created_at,
        git_rev=git_rev,
        files=files,
        params=dict(params),
        metrics=dict(metrics or {}),
        feature_names=tuple(feature_names),
        models=dict(models or {}),
        mlflow_run_id=mlflow_run_id,
    )
    (root / MANIFEST).write_text(json.dumps(manifest.to_dict(), indent=2, sort_keys=True) + "\n")
    return manifest


def verify_bundle(root: str | Path) -> BundleManifest:
    """Check the format version and every file hash; raise BundleError naming the file."""
    root = Path(root)
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise BundleError(f"{root}: not a bundle (no {MANIFEST})")
    try:
        manifest = BundleManifest.from_dict(json.loads(manifest_path.read_text()))
    except (json.JSONDecodeError, FieldError) as err:
        raise BundleError(f"{manifest_path}: unreadable manifest: {err}") from None
    if manifest.format_version != BUNDLE_FORMAT_VERSION:
        raise BundleError(
            f"{manifest_path}: bundle format {manifest.format_version}, this runtime reads "
            f"format {BUNDLE_FORMAT_VERSION}"
        )
    actual = hash_tree(root)
    for rel, expected in sorted(manifest.files.items()):
        if rel not in actual:
            raise BundleError(f"{root / rel}: listed in the manifest but missing")
        if actual[rel] != expected:
            raise BundleError(f"{root / rel}: sha256 mismatch (the file was altered after export)")
    extra = sorted(set(actual) - set(manifest.files))
    if extra:
        raise BundleError(
            f"{root / extra[0]}: not listed in the manifest (file added after export)"
        )
    if content_version(manifest.files) != manifest.bundle_version:
        raise BundleError(f"{manifest_path}: bundle_version does not match the file hashes")
    return manifest


def read_cards(root: Path) -> list[ToolCard]:
    cards = []
    path = root / CARDS
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        rec = json.loads(line)
        expected = rec.pop("description_sha256", None)
        try:
            # export validated these cards and the manifest's hash vouches for the file:
            # the meta-schema check is the slowest part of a load (seconds per 1,000 tools)
            card = ToolCard.from_dict(rec, check_schema=False)
        except FieldError as err:
            raise BundleError(f"{path}:{lineno}: {err}") from None
        if card.description_hash() != expected:
            raise BundleError(
                f"{path}:{lineno}: description of {card.tool_id} changed after export"
            )
        cards.append(card)
    return cards


@dataclass(frozen=True)
class Bundle:
    root: Path
    manifest: BundleManifest
    cards: tuple[ToolCard, ...]
    embeddings: np.ndarray
    capabilities: Mapping[str, Mapping[str, Sequence[int]]]
    runtime: Mapping[str, Any]

    @property
    def retriever_path(self) -> Path:
        return self.root / RETRIEVER_DIR

    @property
    def reranker_path(self) -> Path | None:
        path = self.root / RERANKER_DIR
        return path if path.is_dir() else None

    @property
    def ltr_path(self) -> Path | None:
        path = self.root / LTR_DIR
        return path if path.is_dir() else None

    @property
    def ann_path(self) -> Path | None:
        path = self.root / ANN_INDEX
        return path if path.is_file() else None

    @property
    def bm25_path(self) -> Path:
        return self.root / BM25_DIR


def load_bundle(root: str | Path) -> Bundle:
    root = Path(root)
    manifest = verify_bundle(root)
    cards = read_cards(root)
    embeddings = np.load(root / EMBEDDINGS, allow_pickle=False)
    if embeddings.shape[0] != len(cards):
        raise BundleError(f"{root / EMBEDDINGS}: {embeddings.shape[0]} rows for {len(cards)} cards")
    return Bundle(
        root=root,
        manifest=manifest,
        cards=tuple(cards),
        embeddings=embeddings.astype(np.float32, copy=False),
        capabilities=json.loads((root / CAPABILITIES).read_text()),
        runtime=json.loads((root / RUNTIME).read_text()),
    )


def load_ranker(bundle: Bundle) -> tuple[Any, Any, tuple[int, ...], Any]:
    """The bundle's LightGBM ranker, its history and the columns of `FEATURE_NAMES` it
    reads (a ranker from before a feature was added reads the ones it knows) and its
    calibration; refuses a feature this runtime does not compute (the file and both lists
    are named)."""
    import lightgbm

    from serving.ranker_features import (
        CALIBRATION_FILE,
        FEATURE_NAMES,
        HISTORY_FILE,
        Calibration,
        History,
    )

    root = bundle.ltr_path
    if root is None:
        raise BundleError(f"{bundle.root}: no {LTR_DIR}")
    names = tuple(json.loads((root / LTR_FEATURES).read_text()))
    unknown = [n for n in names if n not in FEATURE_NAMES]
    if unknown or len(set(names)) != len(names):
        raise BundleError(
            f"{root / LTR_FEATURES}: the ranker was trained on features {list(names)}, "
            f"this runtime computes {list(FEATURE_NAMES)} (unknown or repeated: {unknown})"
        )
    model = lightgbm.Booster(model_file=str(root / LTR_MODEL))
    if model.num_feature() != len(names):
        raise BundleError(
            f"{root / LTR_MODEL}: the model reads {model.num_feature()} features, "
            f"{root / LTR_FEATURES} names {len(names)}"
        )
    columns = tuple(FEATURE_NAMES.index(n) for n in names)
    calibration = root / CALIBRATION_FILE
    try:
        calib = Calibration.load(calibration) if calibration.is_file() else Calibration()
    except (KeyError, TypeError, ValueError) as err:
        raise BundleError(f"{calibration}: not a calibration ({err})") from None
    return model, History.load(root / HISTORY_FILE), columns, calib


def git_rev(cwd: str | Path = ".") -> str:
    """The current commit (with `-dirty` when the tree has changes), or "" outside git."""
    import subprocess

    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("GIT_REV", "")
    return rev + ("-dirty" if dirty else "")

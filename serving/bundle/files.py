"""The selection bundle: write it, verify it, load it.

Layout (format version 1), every file hashed in `manifest.json`:
    manifest.json            versions, git rev, params, metrics, models, sha256 per file
    cards.jsonl              card snapshot, each with `description_sha256`
    dense/embeddings.npy     float32 [n_tools, dim], L2-normalised, row i = cards line i
    dense/hnsw.faiss         optional approximate index over them (catalogs of at least
                             `runtime.ann_threshold` tools)
    models/retriever/        the bi-encoder that embeds subgoals (and made the embeddings)
    models/reranker/         optional cross-encoder
    models/*/onnx/           each encoder as ONNX (model.onnx fp32, model_int8.onnx, each
                             with its weights in `<graph>.data`), tokenizer.json,
                             onnx.json: the torch-free runtime's input
    models/ltr/              optional learned ranker: model.txt (LightGBM), features.json
                             (the feature names it was trained on), history.json
    bm25/                    the bm25s index over `ToolCard.index_text()` tokens
    capabilities.json        operation -> row ids, entity -> row ids
    runtime.json             the runtime params the bundle was measured with
    menus.json               optional: the menu bars and the no-tool model (`tune_menus`)
    lint/detector.json.gz    the lint's detector by meaning the gateway reviews live tools
                             with (`serving.catalog.meaning_check`)
    models/lint_encoder/     optional: the stock encoder that detector reads, as ONNX,
                             beside a fine-tuned retriever
    no_tool/request_intent.json.gz  the request-intent head of the no-tool signal; it
                             reads that same stock encoder (`serving.stages.intent`)
A bundle's version id is content-addressed: the hash of the whole manifest (file hashes,
params, models, metrics, git rev, created_at, ...) but its own `bundle_version` and
`signature`, so changing anything that changes behaviour or provenance changes the id and
a pinned version (`expect_version`) refuses it. Only the top-level `manifest.json` is
left out of the file list. `load_bundle` hashes every file but the model weights, which a
model hashes just before it reads them (`DeferredFiles`): a runtime opens one of the several
graphs a bundle ships; `verify_bundle` (`toolsift bundle verify`) hashes them all. Optionally
the manifest carries an Ed25519 signature of the
version (`serving.bundle.signing`); with a public key configured, an unsigned or wrongly signed
bundle is refused.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from serving.bundle.signing import (
    SignatureError,
    configured_public_key,
    load_private_key,
    sign_version,
    verify_version,
)
from serving.model.io import parse_json_line
from serving.model.schema import BUNDLE_FORMAT_VERSION, BundleManifest, FieldError, ToolCard
from serving.model.vocab import parse_capability

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
MENUS = "menus.json"  # serving.stages.menu_policy.MENU_POLICY_FILE: the bars and the no-tool model


class BundleError(RuntimeError):
    """A bundle is missing, altered, or of a format this runtime cannot read."""


def sha256_file(path: Path) -> str:
    # one update over the mapped file: hashlib leaves the GIL for all of it, where a
    # chunked read takes the GIL back per chunk (and waits for it while a loader thread
    # competes with the caller, as `Selector.from_bundle`'s does)
    with path.open("rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return hashlib.sha256(b"").hexdigest()
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return hashlib.sha256(mapped).hexdigest()


def bundle_files(root: Path) -> dict[str, Path]:
    """Every file under root except the top-level manifest (a `manifest.json` deeper
    down is content like any other), keyed by posix relative path."""
    return {
        path.relative_to(root).as_posix(): path
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).as_posix() != MANIFEST
    }


def hash_files(files: Mapping[str, Path]) -> dict[str, str]:
    # hashing releases the GIL: the model files (most of the bytes) hash on every core
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        digests = pool.map(sha256_file, files.values())
    return dict(zip(files, digests, strict=True))


def hash_tree(root: Path) -> dict[str, str]:
    """sha256 of every file of `bundle_files(root)`."""
    return hash_files(bundle_files(root))


WEIGHT_SUFFIXES = frozenset({".onnx", ".data", ".safetensors", ".bin", ".pt", ".pth"})


def is_model_weights(rel: str) -> bool:
    """A model's weights: most of a bundle's bytes, and a runtime reads one file of them."""
    return rel.startswith("models/") and Path(rel).suffix in WEIGHT_SUFFIXES


class DeferredFiles:
    """The model weights `load_bundle` has not hashed yet: a runtime reads one graph of
    the several a bundle ships (ONNX fp32 or int8, or torch), so each is checked against
    the manifest when a model is about to read it (`check`), and once."""

    def __init__(self, root: Path, expected: Mapping[str, str], pending: Sequence[str]) -> None:
        self.root = root
        self._expected = expected
        self._pending = set(pending)
        self._lock = threading.Lock()

    def check(self, path: Path) -> Path:
        """Hash the pending files at or under `path`; a `BundleError` names any altered
        one. Returns `path`, for `Encoder(files.check(dir))`."""
        rel = Path(path).relative_to(self.root).as_posix()
        with self._lock:
            todo = sorted(r for r in self._pending if r == rel or r.startswith(rel + "/"))
        actual = hash_files({r: self.root / r for r in todo})
        for r in todo:
            if actual[r] != self._expected[r]:
                raise BundleError(
                    f"{self.root / r}: sha256 mismatch (the file was altered after export)"
                )
        with self._lock:
            self._pending.difference_update(todo)
        return path

    @property
    def pending(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._pending)


UNADDRESSED = ("bundle_version", "signature")  # what the version id cannot cover


def content_version(manifest: BundleManifest | Mapping[str, Any]) -> str:
    """The version id: sha256 of the canonical JSON of every manifest field except
    `UNADDRESSED` (128 bits, so a pin cannot be matched by a forged manifest)."""
    data = manifest.to_dict() if isinstance(manifest, BundleManifest) else dict(manifest)
    body = {k: v for k, v in data.items() if k not in UNADDRESSED}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "b-" + hashlib.sha256(text.encode("ascii")).hexdigest()[:32]


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
        bundle_version="",
        created_at=created_at,
        git_rev=git_rev,
        files=files,
        params=dict(params),
        metrics=dict(metrics or {}),
        feature_names=tuple(feature_names),
        models=dict(models or {}),
        mlflow_run_id=mlflow_run_id,
    )
    manifest = replace(manifest, bundle_version=content_version(manifest))
    write_manifest(root, manifest)
    return manifest


def write_manifest(root: Path, manifest: BundleManifest) -> None:
    text = json.dumps(manifest.to_dict(), indent=2, sort_keys=True, allow_nan=False)
    (root / MANIFEST).write_text(text + "\n", encoding="utf-8")


def verify_bundle(
    root: str | Path, *, expect_version: str | None = None, public_key: Any = None
) -> BundleManifest:
    """Check the format version, every file hash and the version id; raise BundleError
    naming the file. `expect_version`: refuse any other version (a pin). `public_key`
    (an Ed25519 public key, a PEM path, or None for `$TOOLSIFT_BUNDLE_PUBLIC_KEY`; False:
    no check): refuse a bundle that is unsigned or signed by another key."""
    return open_bundle(
        root, expect_version=expect_version, public_key=public_key, defer_weights=False
    )[0]


def open_bundle(
    root: str | Path, *, expect_version: str | None = None, public_key: Any = None,
    defer_weights: bool = True,
) -> tuple[BundleManifest, DeferredFiles]:
    """`verify_bundle`, leaving the model weights' hashes to `DeferredFiles.check` when
    `defer_weights` (they must still exist, and no file may be added)."""
    root = Path(root)
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise BundleError(f"{root}: not a bundle (no {MANIFEST})")
    try:
        manifest = BundleManifest.from_dict(parse_json_line(manifest_path.read_bytes()))
    except FieldError as err:
        raise BundleError(f"{manifest_path}: unreadable manifest: {err}") from None
    except OSError as err:
        raise BundleError(f"{manifest_path}: cannot read: {err.strerror}") from None
    if manifest.format_version != BUNDLE_FORMAT_VERSION:
        raise BundleError(
            f"{manifest_path}: bundle format {manifest.format_version}, this runtime reads "
            f"format {BUNDLE_FORMAT_VERSION}"
        )
    files = bundle_files(root)
    deferred = [
        rel for rel in files if defer_weights and is_model_weights(rel) and rel in manifest.files
    ]
    actual = hash_files({rel: path for rel, path in files.items() if rel not in deferred})
    for rel, expected in sorted(manifest.files.items()):
        if rel not in files:
            raise BundleError(f"{root / rel}: listed in the manifest but missing")
        if rel in actual and actual[rel] != expected:
            raise BundleError(f"{root / rel}: sha256 mismatch (the file was altered after export)")
    extra = sorted(set(files) - set(manifest.files))
    if extra:
        raise BundleError(
            f"{root / extra[0]}: not listed in the manifest (file added after export)"
        )
    if content_version(manifest) != manifest.bundle_version:
        raise BundleError(
            f"{manifest_path}: bundle_version does not match the manifest's contents "
            "(the manifest was edited after export)"
        )
    if expect_version is not None and manifest.bundle_version != expect_version:
        raise BundleError(
            f"{root}: holds bundle {manifest.bundle_version}, expected {expect_version} "
            "(the pinned version)"
        )
    try:
        key = configured_public_key(public_key)
        if key is not None:
            verify_version(manifest.bundle_version, manifest.signature, key)
    except SignatureError as err:
        raise BundleError(f"{manifest_path}: {err}") from None
    return manifest, DeferredFiles(root, manifest.files, deferred)


def sign_bundle(root: str | Path, private_key_path: str | Path) -> BundleManifest:
    """Verify the bundle, then write the Ed25519 signature of its version into the
    manifest (the version does not change: the signature is not addressed)."""
    root = Path(root)
    manifest = verify_bundle(root, public_key=False)
    try:
        signature = sign_version(manifest.bundle_version, load_private_key(private_key_path))
    except SignatureError as err:
        raise BundleError(str(err)) from None
    signed = replace(manifest, signature=signature)
    write_manifest(root, signed)
    return signed


def read_cards(root: Path) -> list[ToolCard]:
    """The card snapshot; any unreadable line is a `BundleError` naming file:line (a
    bundle is all or nothing, unlike a catalog, whose bad lines are skipped)."""
    cards = []
    path = root / CARDS
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as err:
        raise BundleError(f"{path}: cannot read: {err.strerror}") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = parse_json_line(line)
            if not isinstance(rec, dict):
                raise FieldError("<record>", "expected a JSON object")
            expected = rec.pop("description_sha256", None)
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


def _read_json(path: Path) -> Any:
    """A JSON file of the bundle, or a `BundleError` naming it."""
    try:
        return parse_json_line(path.read_bytes())
    except FieldError as err:
        raise BundleError(f"{path}: {err}") from None
    except OSError as err:
        raise BundleError(f"{path}: cannot read: {err.strerror}") from None


@dataclass(frozen=True)
class Bundle:
    root: Path
    manifest: BundleManifest
    cards: tuple[ToolCard, ...]
    embeddings: np.ndarray
    capabilities: Mapping[str, Mapping[str, Sequence[int]]]
    runtime: Mapping[str, Any]
    weights: DeferredFiles  # check a model's files before it reads them

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


def load_bundle(
    root: str | Path, *, expect_version: str | None = None, public_key: Any = None
) -> Bundle:
    """Verify (see `open_bundle`: model weights are checked when a model reads them) and
    load a bundle's cards, embeddings and indexes."""
    manifest, weights = open_bundle(root, expect_version=expect_version, public_key=public_key)
    return read_bundle(manifest, weights)


def read_bundle(manifest: BundleManifest, weights: DeferredFiles) -> Bundle:
    """The cards, embeddings and indexes of a bundle `open_bundle` verified."""
    root = weights.root
    cards = read_cards(root)
    try:
        embeddings = np.load(root / EMBEDDINGS, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise BundleError(f"{root / EMBEDDINGS}: not a float array ({err})") from None
    if embeddings.ndim != 2 or embeddings.shape[0] != len(cards):
        raise BundleError(f"{root / EMBEDDINGS}: shape {embeddings.shape} for {len(cards)} cards")
    return Bundle(
        root=root,
        manifest=manifest,
        cards=tuple(cards),
        embeddings=embeddings.astype(np.float32, copy=False),
        capabilities=_read_json(root / CAPABILITIES),
        runtime=read_runtime(root),
        weights=weights,
    )


def read_runtime(root: Path) -> Mapping[str, Any]:
    return _read_json(root / RUNTIME)


def load_ranker(bundle: Bundle) -> tuple[Any, Any, tuple[int, ...], Any, Any]:
    """The bundle's LightGBM ranker, its history and the columns of `FEATURE_NAMES` it
    reads (a ranker from before a feature was added reads the ones it knows), its
    calibration and its `LogitBudget` (None: the cross-encoder scores every candidate);
    refuses a feature this runtime does not compute (the file and both lists
    are named). The model is scored with numpy (`serving.stages.trees`): no lightgbm at run time."""
    from serving.stages.ranker_features import (
        CALIBRATION_FILE,
        FEATURE_NAMES,
        HISTORY_FILE,
        LOGIT_BUDGET_FILE,
        Calibration,
        History,
        LogitBudget,
    )

    root = bundle.ltr_path
    if root is None:
        raise BundleError(f"{bundle.root}: no {LTR_DIR}")
    raw_names = _read_json(root / LTR_FEATURES)
    if not isinstance(raw_names, list) or not all(isinstance(n, str) for n in raw_names):
        raise BundleError(f"{root / LTR_FEATURES}: expected a list of feature names")
    names = tuple(raw_names)
    unknown = [n for n in names if n not in FEATURE_NAMES]
    if unknown or len(set(names)) != len(names):
        raise BundleError(
            f"{root / LTR_FEATURES}: the ranker was trained on features {list(names)}, "
            f"this runtime computes {list(FEATURE_NAMES)} (unknown or repeated: {unknown})"
        )
    from serving.stages.trees import TreeEnsemble, TreeModelError

    try:
        model = TreeEnsemble.load(root / LTR_MODEL)
    except TreeModelError as err:
        raise BundleError(str(err)) from None
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
    budget_path = root / LOGIT_BUDGET_FILE
    try:
        budget = LogitBudget.load(budget_path) if budget_path.is_file() else None
    except (KeyError, TypeError, ValueError) as err:
        raise BundleError(f"{budget_path}: not a logit budget ({err})") from None
    return model, History.load(root / HISTORY_FILE), columns, calib, budget


def load_shipped_order(bundle: Bundle) -> Any:
    """The `serving.stages.ranker_features.ShippedOrder` of the bundle's ranker directory
    (`ltr` without a calibrated dense order for a bundle without the file or without a
    ranker); a malformed file is a `BundleError` naming it."""
    from serving.stages.ranker_features import ORDER_FILE, ShippedOrder

    root = bundle.ltr_path
    if root is None or not (root / ORDER_FILE).is_file():
        return ShippedOrder()
    path = root / ORDER_FILE
    try:
        return ShippedOrder.from_dict(_read_json(path))
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise BundleError(f"{path}: not a shipped order ({err})") from None


def load_menu_policy(bundle: Bundle) -> Any:
    """The bundle's `serving.stages.menu_policy.MenuPolicy` (no bars, no no-tool model for a
    bundle without `menus.json`); a malformed file is a `BundleError` naming it."""
    from serving.stages.menu_policy import MenuPolicy

    path = bundle.root / MENUS
    if not path.is_file():
        return MenuPolicy()
    try:
        return MenuPolicy.from_dict(_read_json(path))
    except ValueError as err:
        raise BundleError(f"{path}: {err}") from None


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

"""Selection bundles in the MLflow model registry: identity, aliases and metrics.

One registered model (default `toolsift-selection-bundle`) holds one model version per
`bundle_version` (the content hash in the bundle's manifest), so registering the same
bundle twice returns the version it already has. Each version comes from a small
`register` run whose artifacts are the bundle's `manifest.json` and `cards.jsonl` (under
`bundle/`), the source of the version; the run's params and the version's tags carry
`bundle_version`, `format_version`, `bundle_path` and the metrics it was registered with.

The registry holds *which* bundle is which and where it lives; it does not hold the
weights. The deployable artifact is the bundle directory (or a tarball of it) at the
version's `bundle_path` tag: verify and load it with `serving.bundle.files.load_bundle`.
Aliases (`candidate`, `production`) point at versions; `training.promote` moves them.

Every function takes `name=` for another registered model and `client=` for another
`MlflowClient`; the default client follows `training.core.tracking.tracking_uri()`.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from serving.bundle.files import CARDS, MANIFEST, BundleError, verify_bundle
from training.core.tracking import EXPERIMENT, artifact_location, flatten, tracking_uri

log = logging.getLogger(__name__)
MODEL_NAME = "toolsift-selection-bundle"
ARTIFACT_DIR = "bundle"  # the register run's artifact folder, the versions' source


class RegisteredBundle(NamedTuple):
    """What an alias points at: the model version, where the bundle lives, its hash id."""

    version: str
    path: Path
    bundle_version: str


def registry_client() -> Any:
    """An MlflowClient on `MLFLOW_TRACKING_URI` (the registry follows the tracking store
    unless `MLFLOW_REGISTRY_URI` says otherwise)."""
    from mlflow.tracking import MlflowClient

    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    uri = tracking_uri()
    return MlflowClient(tracking_uri=uri, registry_uri=os.environ.get("MLFLOW_REGISTRY_URI") or uri)


def _experiment_id(client: Any) -> str:
    experiment = client.get_experiment_by_name(EXPERIMENT)
    if experiment is not None:
        return str(experiment.experiment_id)
    uri = client.tracking_uri
    return str(client.create_experiment(EXPERIMENT, artifact_location=artifact_location(uri)))


def _ensure_registered_model(client: Any, name: str) -> None:
    from mlflow.exceptions import MlflowException

    try:
        client.get_registered_model(name)
    except MlflowException as err:
        if err.error_code != "RESOURCE_DOES_NOT_EXIST":
            raise
        client.create_registered_model(
            name,
            tags={"kind": "selection-bundle"},
            description=(
                "toolsift selection bundles: one version per bundle_version. The registry "
                "holds identity, aliases and metrics; the deployable artifact is the bundle "
                "directory at each version's `bundle_path` tag."
            ),
        )


def _find_version(client: Any, name: str, bundle_version: str) -> Any | None:
    found = client.search_model_versions(
        f"name = '{name}' and tags.bundle_version = '{bundle_version}'"
    )
    # two concurrent registrations may both have created one: the oldest wins
    return min(found, key=lambda mv: int(mv.version)) if found else None


def _numeric(metrics: Mapping[str, Any] | None) -> dict[str, float]:
    return {
        k: float(v)
        for k, v in flatten("", metrics or {}).items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }


def _manifest_version(path: Path) -> str | None:
    """The bundle_version a directory's manifest claims (no hashing), or None."""
    try:
        return str(json.loads((path / MANIFEST).read_text())["bundle_version"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def register_bundle(
    bundle_dir: str | Path,
    *,
    metrics: Mapping[str, Any] | None = None,
    name: str = MODEL_NAME,
    client: Any = None,
) -> str:
    """Register a verified bundle and return its model version (idempotent per
    bundle_version). Numeric `metrics` (nested ok) become `metric.<key>` version tags,
    refreshed on every call, and metrics of the register run on the first."""
    root = Path(bundle_dir).resolve()
    manifest = verify_bundle(root)  # never register an altered bundle
    client = client or registry_client()
    _ensure_registered_model(client, name)
    numeric = _numeric(metrics)
    existing = _find_version(client, name, manifest.bundle_version)
    if existing is not None:
        version = str(existing.version)
        stale = _manifest_version(Path(existing.tags.get("bundle_path", ""))) != (
            manifest.bundle_version
        )
        if stale:  # the recorded copy was moved or overwritten: point at this one
            client.set_model_version_tag(name, version, "bundle_path", str(root))
        for key, value in numeric.items():
            client.set_model_version_tag(name, version, f"metric.{key}", str(value))
        log.info("%s is already version %s of %s", manifest.bundle_version, version, name)
        return version

    from mlflow import active_run

    identity = {
        "bundle_version": manifest.bundle_version,
        "format_version": str(manifest.format_version),
        "bundle_path": str(root),
        # recorded so a registry reader can check it without the bundle directory
        "signature": manifest.signature or "unsigned",
    }
    tags = {**identity, "kind": "register", "git_rev": manifest.git_rev}
    parent = active_run()
    if parent is not None:  # e.g. the promote stage's run
        tags["mlflow.parentRunId"] = parent.info.run_id
    run = client.create_run(_experiment_id(client), run_name="register", tags=tags)
    run_id = run.info.run_id
    try:
        run_params = {
            **identity,
            "created_at": manifest.created_at,
            "manifest_git_rev": manifest.git_rev,
            "manifest_mlflow_run_id": manifest.mlflow_run_id,
        }
        for key, text in run_params.items():
            client.log_param(run_id, key, text)
        for key, value in numeric.items():
            client.log_metric(run_id, key, value)
        for filename in (MANIFEST, CARDS):
            client.log_artifact(run_id, str(root / filename), artifact_path=ARTIFACT_DIR)
        mv = client.create_model_version(
            name,
            source=f"runs:/{run_id}/{ARTIFACT_DIR}",
            run_id=run_id,
            tags={**identity, **{f"metric.{k}": str(v) for k, v in numeric.items()}},
            description=(
                f"Selection bundle {manifest.bundle_version} (format "
                f"{manifest.format_version}). Artifacts: manifest.json and cards.jsonl only; "
                "the deployable bundle is the directory at the `bundle_path` tag."
            ),
        )
    except Exception:
        client.set_terminated(run_id, status="FAILED")
        raise
    client.set_terminated(run_id)
    log.info("registered %s as version %s of %s", manifest.bundle_version, mv.version, name)
    return str(mv.version)


def set_alias(version: str, alias: str, *, name: str = MODEL_NAME, client: Any = None) -> None:
    """Point `alias` (e.g. `candidate`, `production`) at a model version."""
    client = client or registry_client()
    client.set_registered_model_alias(name, alias, str(version))


def set_bundle_path(
    version: str, path: str | Path, *, name: str = MODEL_NAME, client: Any = None
) -> None:
    """Record where a version's bundle now lives (e.g. its immutable release copy);
    the directory must hold that very bundle."""
    client = client or registry_client()
    root = Path(path).resolve()
    expected = client.get_model_version(name, str(version)).tags.get("bundle_version")
    manifest = verify_bundle(root)
    if manifest.bundle_version != expected:
        raise BundleError(
            f"{root}: holds bundle {manifest.bundle_version}, version {version} of {name} "
            f"is {expected}"
        )
    client.set_model_version_tag(name, str(version), "bundle_path", str(root))


def recorded_metrics(
    version: str, *, name: str = MODEL_NAME, client: Any = None
) -> dict[str, float]:
    """The numeric metrics a version was registered with (its `metric.<key>` tags)."""
    client = client or registry_client()
    tags = client.get_model_version(name, str(version)).tags
    return {k.removeprefix("metric."): float(v) for k, v in tags.items() if k.startswith("metric.")}


def bundle_for_alias(
    alias: str, *, name: str = MODEL_NAME, client: Any = None
) -> RegisteredBundle | None:
    """The version an alias points at, with its bundle path and bundle_version; None when
    the registered model or the alias does not exist. The path is as recorded: check it
    with `verify_bundle` before use (it may have been moved or overwritten)."""
    from mlflow.exceptions import MlflowException

    client = client or registry_client()
    try:
        model = client.get_registered_model(name)
    except MlflowException as err:
        if err.error_code == "RESOURCE_DOES_NOT_EXIST":
            return None
        raise
    version = dict(model.aliases or {}).get(alias)
    if version is None:
        return None
    mv = client.get_model_version(name, str(version))
    return RegisteredBundle(
        version=str(mv.version),
        path=Path(mv.tags["bundle_path"]),
        bundle_version=mv.tags["bundle_version"],
    )


def release_bundle(bundle_dir: str | Path, release_dir: str | Path) -> Path:
    """Copy a bundle to `release_dir/<bundle_version>` (kept as is if already there)."""
    manifest = verify_bundle(bundle_dir)
    dest = Path(release_dir) / manifest.bundle_version
    if dest.is_dir():
        if verify_bundle(dest).bundle_version == manifest.bundle_version:
            return dest
        raise BundleError(f"{dest}: exists and holds another bundle")
    tmp = dest.with_name(dest.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    shutil.copytree(bundle_dir, tmp)
    tmp.rename(dest)
    verify_bundle(dest)
    return dest

"""MLflow for stage main()s: one run per stage, grouped under one pipeline run.

The tracking URI comes from `MLFLOW_TRACKING_URI`; unset, it is a sqlite store at the
repository root (`mlflow.db`, git-ignored). Stages of one `dvc repro` share a pipeline id
(`TOOLSIFT_PIPELINE_ID`, else the git rev) and become children of one parent run named
`pipeline`, so the UI shows a run's stages together. Nothing here runs at import time.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from serving.bundle.files import git_rev

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]  # the repository (training/core/tracking.py)
EXPERIMENT = "toolsift"


def tracking_uri() -> str:
    return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{ROOT / 'mlflow.db'}"


def artifact_location(uri: str) -> str | None:
    """Artifacts beside a sqlite store (never in whatever directory a stage runs from);
    a server URI keeps its own default."""
    if uri.startswith("sqlite:///"):
        return (Path(uri.removeprefix("sqlite:///")).parent / "mlartifacts").as_uri()
    return None


def pipeline_id() -> str:
    return os.environ.get("TOOLSIFT_PIPELINE_ID") or git_rev(ROOT) or "local"


def file_digest(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def flatten(prefix: str, value: Any, out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Nested params/metrics to dotted keys; MLflow names cannot hold '@'."""
    out = {} if out is None else out
    if isinstance(value, Mapping):
        for k, v in value.items():
            flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix.replace("@", "_at_")] = value
    return out


def _parent_run_id(client: Any, experiment_id: str, pid: str) -> str:
    found = client.search_runs(
        [experiment_id],
        filter_string=f"tags.pipeline_id = '{pid}' and tags.kind = 'pipeline'",
        max_results=1,
    )
    if found:
        return str(found[0].info.run_id)
    run = client.create_run(
        experiment_id,
        run_name="pipeline",
        tags={"pipeline_id": pid, "kind": "pipeline", "git_rev": git_rev(ROOT)},
    )
    client.set_terminated(run.info.run_id)
    return str(run.info.run_id)


@contextmanager
def stage_run(stage: str, params: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """Start the MLflow run of one stage, tagged with the git rev and the pipeline id."""
    import mlflow
    from mlflow.tracking import MlflowClient

    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    uri = tracking_uri()
    mlflow.set_tracking_uri(uri)
    client = MlflowClient()
    if client.get_experiment_by_name(EXPERIMENT) is None:
        client.create_experiment(EXPERIMENT, artifact_location=artifact_location(uri))
    experiment = mlflow.set_experiment(EXPERIMENT)
    pid = pipeline_id()
    parent = _parent_run_id(client, experiment.experiment_id, pid)
    tags = {
        "stage": stage,
        "git_rev": git_rev(ROOT),
        "pipeline_id": pid,
        "kind": "stage",
        "mlflow.parentRunId": parent,
    }
    with mlflow.start_run(run_name=stage, tags=tags) as run:
        if params:
            mlflow.log_params({k: str(v)[:500] for k, v in flatten("", params).items()})
        yield run


def metric_name(key: str) -> str:
    """`key` as MLflow accepts a metric name (word characters and `/.- :`): anything else,
    as in a benchmark slice named `ArtistDiscovery_findEmergingArtists#2`, becomes `_`."""
    return _METRIC_NAME_BAD.sub("_", key)


_METRIC_NAME_BAD = re.compile(r"[^\w/.\- :]")


def log_metrics(metrics: Mapping[str, Any]) -> None:
    import mlflow

    numeric = {
        metric_name(k): float(v)
        for k, v in flatten("", metrics).items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    if numeric:
        mlflow.log_metrics(numeric)


def log_dataset_digest(name: str, path: str | Path) -> str:
    import mlflow

    digest = file_digest(path)
    mlflow.set_tag(f"dataset.{name}.sha256", digest)
    mlflow.log_param(f"dataset.{name}.path", str(path))
    return digest

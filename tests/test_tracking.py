"""Where MLflow runs go when nothing says otherwise."""

from __future__ import annotations

from pathlib import Path

from training.core.tracking import ROOT, artifact_location, tracking_uri

REPO = Path(__file__).resolve().parents[1]


def test_the_default_store_is_at_the_repository_root(monkeypatch) -> None:
    # a store under training/ once landed in git: the ignore rules name the root's
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert ROOT == REPO
    assert tracking_uri() == f"sqlite:///{REPO / 'mlflow.db'}"
    assert artifact_location(tracking_uri()) == (REPO / "mlartifacts").as_uri()
    ignored = (REPO / ".gitignore").read_text().splitlines()
    assert "/mlflow.db" in ignored and "/mlartifacts/" in ignored

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


def test_metric_names_mlflow_refuses_are_made_legal(tmp_path, monkeypatch) -> None:
    # a benchmark slice named after an API with a `#k` mark ended evaluate with an
    # MlflowException after its metrics were written
    import mlflow

    from training.core.tracking import log_metrics, metric_name

    assert metric_name("slices.Get_Order#2.mrr") == "slices.Get_Order_2.mrr"
    assert metric_name("slices.날씨 조회.mrr") == "slices.날씨 조회.mrr"  # word characters stay
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path}/mlflow.db")
    with mlflow.start_run() as run:
        log_metrics({"slices": {"Get Order#2": {"mrr": 0.5}}, "note": "text is skipped"})
    logged = mlflow.get_run(run.info.run_id).data.metrics
    assert logged == {"slices.Get Order_2.mrr": 0.5}

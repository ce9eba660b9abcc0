import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from serving.bundle.encoder import stock_model_path
from serving.bundle.files import BundleError, verify_bundle
from serving.bundle.release import POINTER_FILE, Release, read_pointer
from serving.model.config import RuntimeParams
from serving.model.io import load_catalog, load_queries
from serving.selector import Selector
from training.core.params import read_section
from training.evaluation.scoring import EvalParams
from training.promote import (
    Params,
    decide,
    evaluate_bundle,
    main,
    production_summary,
    resolve_production,
    reusable_metrics,
)
from training.release import registry
from training.release.bundle_export import ExportParams, export_bundle

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
MODEL = "toolsift-selection-bundle"
# the deliberately worse candidate: one params switch, `runtime.n_fused: 1` (fuse the three
# retrievers down to a single candidate); on the fixture queries r_retrieve falls
# 0.9231 -> 0.8462 and the cryptic slice's end_to_end 1.0 -> 0.0
WORSE_RUNTIME = {"n_fused": 1}


def summary(chain=None, slices=None, n_queries=None):
    """An eval.json-shaped summary: every chain rate 0.9 unless given."""
    pipeline = dict.fromkeys(
        ("r_decompose", "r_retrieve", "r_filter", "r_menu", "r_select", "end_to_end"), 0.9
    )
    pipeline.update(chain or {})
    pipeline["slices"] = {name: {"end_to_end": v} for name, v in (slices or {}).items()}
    out = {"pipeline": pipeline}
    if n_queries is not None:
        out["n_queries"] = n_queries
    return out


# --- decide, by hand ------------------------------------------------------------------


def test_a_drop_of_exactly_the_tolerance_promotes_and_a_larger_one_refuses():
    prod = summary({"r_retrieve": 0.80})
    # 0.79 - 0.80 = -0.010000000000000009 in floats; compared at 6 decimals: -0.01 passes
    at_limit = decide(summary({"r_retrieve": 0.79}), prod, tolerance=0.01)
    assert at_limit.promote and not at_limit.regressions
    row = next(r for r in at_limit.rows if r.metric == "r_retrieve")
    assert (row.production, row.candidate, row.delta, row.ok) == (0.80, 0.79, -0.01, True)
    # 0.7899 - 0.80 = -0.0101 < -0.01
    beyond = decide(summary({"r_retrieve": 0.7899}), prod, tolerance=0.01)
    assert not beyond.promote
    assert [r.metric for r in beyond.regressions] == ["r_retrieve"]
    assert "r_retrieve 0.8000 -> 0.7899 (-0.0101)" in beyond.reason
    # gains and equal rates are fine; tolerance 0 refuses any drop
    assert decide(summary({"end_to_end": 0.95}), summary(), tolerance=0.0).promote
    assert not decide(summary({"r_menu": 0.8999}), summary(), tolerance=0.0).promote


def test_a_slice_drop_refuses_only_when_the_slice_is_checked():
    prod = summary(slices={"near_duplicate": 0.50, "cryptic": 1.0})
    cand = summary(slices={"near_duplicate": 0.40, "cryptic": 1.0})  # -0.10 on one slice
    refused = decide(cand, prod, tolerance=0.01, slices=["near_duplicate", "cryptic"])
    assert not refused.promote
    assert [r.metric for r in refused.regressions] == ["slice.near_duplicate.end_to_end"]
    # six chain rates + two slices
    assert len(refused.rows) == 8
    assert decide(cand, prod, tolerance=0.01, slices=["cryptic"]).promote
    assert decide(cand, prod, tolerance=0.10, slices=["near_duplicate"]).promote


def test_none_rates_are_skipped():
    # no_tool has no gold items (end_to_end None); r_select None in production;
    # `new_tool` is missing from the candidate altogether
    prod = summary({"r_select": None}, slices={"no_tool": None, "new_tool": 1.0})
    cand = summary({"r_select": 0.2}, slices={"no_tool": None})
    decision = decide(cand, prod, tolerance=0.01, slices=["no_tool", "new_tool"])
    assert decision.promote
    skipped = {r.metric for r in decision.rows if r.delta is None}
    assert skipped == {"r_select", "slice.no_tool.end_to_end", "slice.new_tool.end_to_end"}
    assert "none of 5 rates" in decision.reason  # 6 chain + 2 slice rows, 3 skipped


def test_first_promotion_and_mismatched_query_sets():
    first = decide(summary(), None, tolerance=0.01)
    assert first.promote and first.reason.startswith("first promotion")
    assert all(r.production is None for r in first.rows)
    with pytest.raises(ValueError, match="different query sets"):
        decide(summary(n_queries=10), summary(n_queries=12), tolerance=0.01)
    with pytest.raises(ValueError):
        decide(summary(), summary(), tolerance=-0.1)


def test_params_are_checked():
    ok = Params(registered_model=MODEL, tolerance=0.01, slices_checked=["cryptic"])
    assert ok.slices_checked == ("cryptic",)
    for bad in (
        {"tolerance": -0.01},
        {"tolerance": "0.01"},
        {"slices_checked": "cryptic"},
        {"registered_model": ""},
    ):
        with pytest.raises(ValueError):
            Params(**{"registered_model": MODEL, "tolerance": 0.01, "slices_checked": [], **bad})


def test_candidate_metrics_are_reused_only_for_the_same_bundle_and_queries(tmp_path):
    path = tmp_path / "eval.json"
    path.write_text(json.dumps({"bundle_version": "b-1", "n_queries": 12, "pipeline": {}}))
    assert reusable_metrics(path, bundle_version="b-1", n_queries=12) is not None
    assert reusable_metrics(path, bundle_version="b-2", n_queries=12) is None
    assert reusable_metrics(path, bundle_version="b-1", n_queries=11) is None
    assert reusable_metrics(None, bundle_version="b-1", n_queries=12) is None


# --- the registry and the stage on real bundles ---------------------------------------


@pytest.fixture
def mlflow_store(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path}/mlflow.db")
    monkeypatch.setenv("TOOLSIFT_PIPELINE_ID", "test-promote")
    return tmp_path


@pytest.fixture(scope="module")
def worse_bundle(tmp_path_factory, fixture_catalog) -> Path:
    """The fixture catalog exported like `fixture_bundle`, but with `runtime.n_fused: 1`."""
    runtime = RuntimeParams.from_dict(read_section(ROOT / "params.yaml", "runtime"))
    out = tmp_path_factory.mktemp("bundles") / "worse"
    export_bundle(
        load_catalog(fixture_catalog).items,
        out,
        retriever_path=stock_model_path(),
        reranker_path=None,
        runtime=replace(runtime, **WORSE_RUNTIME),
        params=ExportParams(encode_batch_size=64, strict=False),
    )
    return out


def test_register_is_idempotent_and_aliases_resolve(fixture_bundle, mlflow_store):

    assert registry.bundle_for_alias("production") is None  # no registered model yet
    metrics = {"end_to_end": 0.9, "slices": {"cryptic": {"end_to_end": 1.0}}, "x": None}
    version = registry.register_bundle(fixture_bundle, metrics=metrics)
    assert registry.register_bundle(fixture_bundle, metrics={"end_to_end": 0.8}) == version
    client = registry.registry_client()
    (mv,) = client.search_model_versions(f"name = '{MODEL}'")
    bundle_version = verify_bundle(fixture_bundle).bundle_version
    assert mv.tags["bundle_version"] == bundle_version
    assert mv.tags["format_version"] == "2"
    assert mv.tags["signature"] == "unsigned"
    assert mv.tags["metric.end_to_end"] == "0.8"  # refreshed by the second call
    assert mv.tags["metric.slices.cryptic.end_to_end"] == "1.0"
    run = client.get_run(mv.run_id)
    assert run.data.params["bundle_version"] == bundle_version
    assert run.data.metrics["end_to_end"] == 0.9
    artifacts = {a.path for a in client.list_artifacts(mv.run_id, "bundle")}
    assert artifacts == {"bundle/manifest.json", "bundle/cards.jsonl"}  # no weights

    assert registry.bundle_for_alias("production") is None  # model exists, alias does not
    registry.set_alias(version, "production")
    found = registry.bundle_for_alias("production")
    assert found == (version, fixture_bundle.resolve(), bundle_version)


def _params_file(tmp_path: Path) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "evaluate": read_section(ROOT / "params.yaml", "evaluate"),
                "promote": {
                    "registered_model": MODEL,
                    "tolerance": 0.01,
                    "slices_checked": [
                        "single",
                        "multi_subgoal",
                        "near_duplicate",
                        "cryptic",
                        "new_tool",
                        "exact_name",
                        "no_tool",
                    ],
                },
            }
        )
    )
    return path


def _promote(params, candidate, tmp_path, name, *extra):
    metrics, report = tmp_path / f"{name}.json", tmp_path / f"{name}.md"
    main(
        [
            str(params),
            str(candidate),
            str(FIXTURES / "queries.jsonl"),
            str(metrics),
            str(report),
            "--release-dir",
            str(tmp_path / "releases"),
            *extra,
        ]
    )
    return json.loads(metrics.read_text()), report.read_text()


def test_a_worse_candidate_is_refused_and_a_better_one_promoted(
    fixture_bundle, worse_bundle, mlflow_store, tmp_path
):

    params = _params_file(tmp_path)
    good_id = verify_bundle(fixture_bundle).bundle_version
    worse_id = verify_bundle(worse_bundle).bundle_version
    assert good_id != worse_id  # runtime.json is part of the content hash

    # 1. nothing in production: the first candidate is promoted whatever it scores
    first, _ = _promote(params, worse_bundle, tmp_path, "first")
    assert first["promoted"] and first["production"]["source"] == "none (first)"
    worse_version = first["candidate"]["model_version"]
    assert registry.bundle_for_alias("production") == (
        worse_version,
        (tmp_path / "releases" / worse_id).resolve(),
        worse_id,
    )

    # 2. the good bundle against the worse production: promoted, the alias moves
    better, report = _promote(params, fixture_bundle, tmp_path, "better")
    assert better["promoted"], better["reason"]
    assert better["production"] == {
        "bundle_version": worse_id,
        "model_version": worse_version,
        "source": "alias production",
        "metrics_from": "evaluated here",
    }
    row = better["comparison"]["r_retrieve"]
    assert row["candidate"] > row["production"] and row["ok"]
    good_version = better["candidate"]["model_version"]
    assert registry.bundle_for_alias("production").version == good_version
    # the pointer a gateway follows moved with the alias, to the release copy
    assert read_pointer(tmp_path / "releases" / POINTER_FILE) == Release(
        good_id, (tmp_path / "releases" / good_id).resolve())
    assert "**PROMOTED**" in report and "| r_retrieve |" in report

    # 3. the worse bundle again, against the good production (found through the registry's
    # release copy) and with its metrics reused from an eval.json of this very bundle
    eval_json = tmp_path / "eval.json"
    queries = load_queries(FIXTURES / "queries.jsonl").items
    eval_params = EvalParams(**read_section(params, "evaluate"))
    eval_json.write_text(
        json.dumps(evaluate_bundle(Selector.from_bundle(worse_bundle), queries, params=eval_params))
    )
    refused, report = _promote(
        params, worse_bundle, tmp_path, "refused", "--candidate-metrics", str(eval_json)
    )
    assert not refused["promoted"]
    assert refused["candidate"]["model_version"] == worse_version  # registered once
    assert refused["candidate"]["metrics_from"] == str(eval_json)
    failed = {m for m, r in refused["comparison"].items() if not r["ok"]}
    assert {"r_retrieve", "end_to_end", "slice.cryptic.end_to_end"} <= failed
    assert refused["comparison"]["slice.no_tool.end_to_end"]["delta"] is None
    assert "**REFUSED**" in report and "**NO**" in report
    assert registry.bundle_for_alias("production").version == good_version  # unchanged
    assert read_pointer(tmp_path / "releases" / POINTER_FILE).version == good_id
    assert registry.bundle_for_alias("candidate").version == worse_version

    client = registry.registry_client()
    runs = client.search_runs(
        [client.get_experiment_by_name("toolsift").experiment_id],
        filter_string="tags.stage = 'promote'",
        order_by=["attributes.start_time ASC"],
    )
    assert [r.data.tags["decision"] for r in runs] == ["promoted", "promoted", "refused"]
    last = runs[-1]
    assert last.data.metrics["promoted"] == 0
    assert last.data.metrics["delta.r_retrieve"] < -0.01
    assert {a.path for a in client.list_artifacts(last.info.run_id)} >= {
        "comparison.json",
        "refused.json",
        "refused.md",
    }


def test_a_production_bundle_that_is_gone_is_a_clear_error(tmp_path):
    gone = registry.RegisteredBundle("3", tmp_path / "bundles" / "demo", "b-0123456789abcdef")
    with pytest.raises(BundleError, match="b-0123456789abcdef .*--production-bundle"):
        resolve_production(None, gone, tmp_path / "releases")
    assert resolve_production(None, None, None) is None


def test_a_production_bundle_this_runtime_cannot_load_is_compared_by_its_recorded_chain(
    fixture_bundle, mlflow_store, tmp_path
):
    import shutil

    from serving.bundle.files import finalize_manifest

    # a verified bundle from a runtime with a knob this one does not know
    old = tmp_path / "old"
    shutil.copytree(fixture_bundle, old)
    runtime = json.loads((old / "runtime.json").read_text())
    (old / "runtime.json").write_text(json.dumps({**runtime, "future_knob": 1}))
    manifest = json.loads((old / "manifest.json").read_text())
    (old / "manifest.json").unlink()
    finalize_manifest(old, created_at=manifest["created_at"], git_rev=manifest["git_rev"],
                      params=manifest["params"], models=manifest["models"])
    verify_bundle(old)
    queries = load_queries(FIXTURES / "queries.jsonl").items
    eval_params = EvalParams(**read_section(ROOT / "params.yaml", "evaluate"))
    client = registry.registry_client()

    version = registry.register_bundle(old, metrics={"r_menu": 0.5})
    registered = registry.RegisteredBundle(version, old, verify_bundle(old).bundle_version)
    got, source = production_summary(old, registered, queries, eval_params, client=client,
                                     name=MODEL)
    assert got["pipeline"]["r_menu"] == 0.5 and got["pipeline"]["end_to_end"] is None
    assert source.startswith("recorded at registration") and "future_knob" in source
    # without recorded numbers there is nothing to compare with: a clear error
    with pytest.raises(BundleError, match="cannot be loaded by this runtime"):
        production_summary(old, None, queries, eval_params, client=client, name=MODEL)
    # a bundle this runtime loads is evaluated here
    fresh, source = production_summary(fixture_bundle, None, queries, eval_params,
                                       client=client, name=MODEL)
    assert source == "evaluated here" and fresh["pipeline"]["r_retrieve"] > 0

"""Sampling the mined pairs (features.sampling), the reranker's groups replayed through the
runtime (features.candidates) and the `mine` stage, on the fixture catalog and traces (the
cards, traces and `mine` params come from conftest.py; the pairs are test_mining.py's)."""

import csv
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from features.candidates import GroupParams, RuntimeCandidates, runtime_groups
from features.dataset import (
    CANDIDATE_SOURCE,
    PAIRS_SCHEMA,
    RERANKER_SCHEMA,
    RETRIEVER_SCHEMA,
    scan_parquet,
)
from features.mining import TOOLS_SCHEMA
from features.sampling import (
    RANDOM_SOURCE,
    SamplingParams,
    attach_negatives,
    bucket_shares,
    exploration_weights,
    popularity_buckets,
    sample_explore,
    sample_uniform,
    uniform_weights,
)
from training.core.params import ParamsError, load_params
from training.mine import Params, main, mine

ROOT = Path(__file__).resolve().parents[1]
TRACES = Path(__file__).parent / "fixtures" / "traces.jsonl"


# --- sampling ---------------------------------------------------------------------------


def test_exploration_weights_by_hand():
    # 4 ** -0.5 = 1/2; 0 is floored to 1 -> 1; 9 ** -1 = 1/9; temperature 0 -> all 1
    assert exploration_weights(np.array([4, 0, 1]), 0.5) == pytest.approx([0.5, 1.0, 1.0])
    assert exploration_weights(np.array([9]), 1.0) == pytest.approx([1 / 9])
    assert exploration_weights(np.array([100, 3]), 0.0) == pytest.approx([1.0, 1.0])


def positives_frame(spec: dict[str, tuple[int, int, bool]]) -> pl.DataFrame:
    """tool -> (n rows, popularity, is_new) as train positive rows."""
    rows = []
    for tool_id, (n, pop, new) in spec.items():
        for i in range(n):
            rows.append({"query_id": f"{tool_id}-q{i:03d}", "request_id": f"{tool_id}-r{i}",
                         "query": f"use {tool_id} #{i}", "tool_id": tool_id, "label": 1,
                         "source": "trace_success", "split": "train", "is_new": new,
                         "popularity": pop, "rank": 0})
    return pl.DataFrame(rows).with_columns(
        pl.col("label").cast(pl.Int8), pl.col("popularity").cast(pl.Int32),
        pl.col("rank").cast(pl.Int32)
    ).sort("query_id", "tool_id")


def test_uniform_weights_give_a_tool_its_popularity():
    frame = positives_frame({"a": (2, 6, False), "b": (3, 3, False), "c": (1, 0, False)})
    # a: 6 / 2 rows = 3 each; b: 3 / 3 = 1 each; c: max(0, 1) / 1 = 1
    assert sorted(uniform_weights(frame).tolist()) == [1, 1, 1, 1, 3, 3]


def test_explore_cap_and_quota_hold():
    frame = positives_frame({
        "head": (50, 100, False), "mid": (10, 10, False),
        "newbie": (2, 0, True), "new_many": (10, 1, True),
    })
    params = SamplingParams(n_samples=40, max_per_tool=5, temperature=0.5, new_tool_quota=4)
    out = sample_explore(frame, params, seed=3)
    counts = Counter(out["tool_id"])
    assert counts["head"] <= 5 and counts["mid"] <= 5  # the cap
    assert counts["newbie"] == 4  # quota from 2 rows: each twice (with replacement)
    assert sorted(Counter(out.filter(pl.col("tool_id") == "newbie")["query_id"]).values()) \
        == [2, 2]
    assert 4 <= counts["new_many"] <= 5  # quota, then at most the cap
    assert out.height == 4 + 4 + 5 + 5 + 1  # the whole capped pool: smaller than n_samples
    small = sample_explore(frame, replace(params, n_samples=10), seed=3)
    assert small.height == 10
    assert Counter(small["tool_id"])["newbie"] == 4 and Counter(small["tool_id"])[
        "new_many"] >= 4
    # without replacement apart from the quota repeats
    assert small.filter(pl.col("tool_id") != "newbie")["query_id"].is_unique().all()
    # seeded
    assert sample_explore(frame, params, seed=3).equals(out)
    assert not sample_explore(frame, replace(params, n_samples=10), seed=4).equals(small)


def test_explore_flattens_and_uniform_follows_popularity():
    # rows per tool differ from popularity on purpose: the uniform sampler still follows
    # popularity (60 : 30 : 10), the exploration one pulls toward the rare tool
    frame = positives_frame({"a": (20, 60, False), "b": (30, 30, False),
                             "c": (10, 10, False)})
    n, trials = 5, 400
    uniform, explore = Counter(), Counter()
    params = SamplingParams(n_samples=n, max_per_tool=1000, temperature=1.0, new_tool_quota=0)
    for seed in range(trials):
        uniform.update(sample_uniform(frame, n=n, seed=seed)["tool_id"])
        explore.update(sample_explore(frame, params, seed=seed)["tool_id"])
    total = n * trials
    assert uniform["a"] / total == pytest.approx(0.6, abs=0.04)
    assert uniform["b"] / total == pytest.approx(0.3, abs=0.04)
    assert uniform["c"] / total == pytest.approx(0.1, abs=0.03)
    # temperature 1: tool mass = rows / popularity = 1/3 : 1 : 1 -> a 1/7, b 3/7, c 3/7
    assert explore["a"] / total == pytest.approx(1 / 7, abs=0.04)
    assert explore["c"] / total == pytest.approx(3 / 7, abs=0.05)


def test_attach_negatives_priority_rotation_and_random_fallback(fixture_cards):
    tools = pl.DataFrame({"tool_id": [c.tool_id for c in fixture_cards],
                          "capabilities": [list(c.capabilities) for c in fixture_cards]})
    positives = pl.DataFrame({
        "query_id": ["q1", "q2"], "request_id": ["r1", "r2"],
        "query": ["post to slack", "post to slack again"],
        "tool_id": ["slack.post_message", "slack.post_message"],
        "label": [1, 1], "source": ["trace_success"] * 2, "split": ["train"] * 2,
        "is_new": [False, False], "popularity": [10, 10], "rank": [0, 0],
    })
    negatives = pl.DataFrame({
        "query_id": ["q1", "q1", "q1"], "request_id": ["r1"] * 3, "query": ["post to slack"] * 3,
        "tool_id": ["jira.create_issue", "teams.post_message", "logs.search"],
        "label": [0, 0, 0], "source": ["dense_hard", "near_duplicate", "trace_failure"],
        "split": ["train"] * 3, "is_new": [False] * 3, "popularity": [0] * 3, "rank": [1, 0, -1],
    })
    pairs = pl.concat([positives, negatives], how="vertical_relaxed")
    sampled = pl.concat([positives[0], positives[0], positives[0], positives[0], positives[1]])
    rows = attach_negatives(sampled, pairs, tools, sampler="explore", seed=1)
    assert rows.columns == list(RETRIEVER_SCHEMA)
    got = list(rows.select("negative", "negative_source").iter_rows())
    assert got[:4] == [  # priority order, then around again
        ("teams.post_message", "near_duplicate"),
        ("logs.search", "trace_failure"),
        ("jira.create_issue", "dense_hard"),
        ("teams.post_message", "near_duplicate"),
    ]
    negative, source = got[4]  # q2 has none mined: a random tool of another capability
    assert source == RANDOM_SOURCE
    assert negative not in {"slack.post_message", "teams.post_message"}


def test_popularity_buckets_cut_points():
    tools = pl.DataFrame({
        "tool_id": ["a", "b", "c", "d", "e", "f", "n"],
        "popularity": [50, 30, 10, 5, 5, 0, 9],
        "is_new": [False] * 6 + [True],
    })
    buckets = dict(popularity_buckets(tools).iter_rows())
    # traffic before each tool: a 0 % head, b 50 % torso, c 80 % tail, d 90 %, e 95 %,
    # f 100 % tail; n is new whatever its popularity
    assert buckets == {"a": "head", "b": "torso", "c": "tail", "d": "tail", "e": "tail",
                       "f": "tail", "n": "new"}
    rows = pl.DataFrame({"tool_id": ["a", "a", "b", "n"]})
    assert bucket_shares(rows, popularity_buckets(tools)) == {
        "head": 0.5, "torso": 0.25, "tail": 0.0, "new": 0.25}


def test_core_is_deterministic_for_a_seed(
    fixture_traces, fixture_cards, mine_params, fixture_bundle
):
    candidates = RuntimeCandidates(fixture_bundle)
    a = mine(fixture_traces, fixture_cards, mine_params, hard_negatives=None, candidates=candidates)
    b = mine(fixture_traces, fixture_cards, mine_params, hard_negatives=None, candidates=candidates)
    assert a.pairs.equals(b.pairs) and a.retriever.equals(b.retriever)
    assert a.reranker.equals(b.reranker)
    c = mine(fixture_traces, fixture_cards, replace(mine_params, seed=mine_params.seed + 1),
             hard_negatives=None, candidates=candidates)
    assert not c.retriever.equals(a.retriever)


def test_runtime_groups_by_hand():
    """Two servers; the fake runtime returns fixed candidate lists, so every row is known."""
    tools = pl.DataFrame(
        {"tool_id": ["s.post", "s.post_v2", "s.list", "t.post", "t.list", "u.get"],
         "server": ["s", "s", "s", "t", "t", "u"],
         "capabilities": [["send:message"], ["send:message"], ["list:message"],
                          ["send:message"], ["list:message"], ["get:user"]],
         "is_new": [False] * 6, "popularity": [5] * 6},
        schema=TOOLS_SCHEMA,
    )
    pairs = pl.DataFrame(
        [
            ("qa", "r1", "post hi", "s.post", 1, "trace_success", "train"),
            ("qa", "r9", "post hi", "t.post", 1, "trace_success", "valid"),  # also gold
            ("qb", "synthetic:u.get", "get a user", "u.get", 1, "synthetic_example", "train"),
            ("qc", "r2", "list msgs", "t.list", 1, "trace_success", "valid"),
            ("qd", "r3", "who is it", "u.get", 1, "trace_success", "valid"),
        ],
        schema=["query_id", "request_id", "query", "tool_id", "label", "source", "split"],
        orient="row",
    ).with_columns(pl.col("label").cast(pl.Int8), is_new=pl.lit(False),
                   popularity=pl.lit(5, pl.Int32))
    runtime = {
        "post hi": ["s.post_v2", "t.post", "s.list", "t.list", "u.get"],
        "get a user": ["s.list", "u.get"],
        "list msgs": ["s.list", "t.list", "u.get"],
        "who is it": ["s.list"],  # the runtime misses the gold: no valid group
    }
    asked = []

    def candidates(queries):
        asked.extend(queries)
        return [runtime[text] for text, _ in queries]

    groups = runtime_groups(
        pairs, tools, {"r1": {"connections": ["s", "t"]}}, candidates,
        SamplingParams(n_samples=0, max_per_tool=10, temperature=0.5, new_tool_quota=0),
        GroupParams(n_train=10, n_negatives=2, n_valid=10, synthetic_servers=1), seed=3,
    )
    rows = {(r["group_id"], r["tool_id"]): (r["label"], r["source"], r["fused_rank"])
            for r in groups.frame.iter_rows(named=True)}
    # train qa: s.post_v2 is equivalent (same server, same capability), t.post is gold
    # elsewhere: neither is a negative; the gold was outside the candidates (rank 0)
    assert {k: v for k, v in rows.items() if k[0] == "qa:s.post"} == {
        ("qa:s.post", "s.post"): (1, "trace_success", 0),
        ("qa:s.post", "s.list"): (0, CANDIDATE_SOURCE, 3),
        ("qa:s.post", "t.list"): (0, CANDIDATE_SOURCE, 4),
    }
    assert rows[("qb:u.get", "u.get")] == (1, "synthetic_example", 2)
    # valid qc: every candidate, the gold where the runtime put it
    assert {k: v for k, v in rows.items() if k[0] == "qc:t.list"} == {
        ("qc:t.list", "s.list"): (0, CANDIDATE_SOURCE, 1),
        ("qc:t.list", "t.list"): (1, "trace_success", 2),
        ("qc:t.list", "u.get"): (0, CANDIDATE_SOURCE, 3),
    }
    assert groups.stats["n_valid_without_gold"] == 1
    assert groups.stats["n_train_gold_outside_candidates"] == 1
    assert groups.stats["n_without_context"] == 3  # r9, r2 and r3 have no session
    assert ("post hi", {"connections": ["s", "t"]}) in asked  # the train trace's session
    synthetic = dict(asked)["get a user"]["connections"]
    assert "u" in synthetic and len(synthetic) == 2
    assert set(groups.frame.columns) == set(RERANKER_SCHEMA)


def test_runtime_candidates_are_the_menu_stage_input(fixture_bundle):
    from serving.model.selection import SessionContext
    from serving.selector import Selector

    source = RuntimeCandidates(fixture_bundle)
    session = {"connections": ["slack", "github"]}
    (found,) = source([("post the release notes to #eng", session)])
    servers = {t.split(".")[0] for t in found}
    assert found and servers <= {"slack", "github"} and len(found) <= source.depth
    selector = Selector.from_bundle(fixture_bundle, reranker="fused")
    subgoal = source._annotate("post the release notes to #eng")
    (step,) = selector.select([subgoal], SessionContext.from_dict(session))
    assert found == [c.tool_id for c in step.filtered][: source.depth]
    assert [c.tool_id for c in selector.candidates(subgoal, SessionContext.from_dict(session))
            ] == [c.tool_id for c in step.filtered]


def test_reranker_groups_from_the_fixture_bundle(
    fixture_traces, fixture_cards, mine_params, fixture_bundle
):
    result = mine(fixture_traces, fixture_cards, mine_params, hard_negatives=None,
                  candidates=RuntimeCandidates(fixture_bundle))
    groups = result.reranker
    train = groups.filter(pl.col("split") == "train")
    per_group = train.group_by("group_id").agg(
        pl.col("label").sum().alias("pos"), pl.len().alias("n"))
    assert (per_group["pos"] == 1).all()
    assert per_group["n"].max() <= 1 + mine_params.reranker_negatives
    positive = train.filter(pl.col("label") == 1)
    assert positive.select("query", "tool_id").is_unique().all()
    assert (positive["group_id"].str.split(":").list.get(1) == positive["tool_id"]).all()
    valid = groups.filter(pl.col("split") == "valid")
    assert valid.height and (valid.group_by("group_id").agg(pl.col("label").max())["label"]
                             == 1).all()
    assert (groups.filter(pl.col("label") == 0)["fused_rank"] > 0).all()
    assert result.metrics["reranker_groups"]["n_train_groups"] == per_group.height


# --- params and the stage ---------------------------------------------------------------


def test_params_mirror_the_section(tmp_path):
    text = (ROOT / "params.yaml").read_text()
    params = load_params(ROOT / "params.yaml", "mine", Params)
    assert isinstance(params.sampling, SamplingParams)
    bad = tmp_path / "params.yaml"
    bad.write_text(text.replace("    new_tool_quota:", "    new_tool_quote:"))
    with pytest.raises(ParamsError, match=r"mine.sampling.*new_tool_quote"):
        load_params(bad, "mine", Params)
    bad.write_text(text.replace("  reranker_negatives:", "  reranker_negatives_x:"))
    with pytest.raises(ParamsError, match="reranker_negatives"):
        load_params(bad, "mine", Params)
    bad.write_text(text.replace("synthetic_query_generator: template",
                                "synthetic_query_generator: gpt"))
    with pytest.raises(ParamsError, match="synthetic_query_generator.*gpt"):
        load_params(bad, "mine", Params)


def run_stage(tmp_path: Path, fixture_catalog: Path, fixture_bundle: Path, tag: str) -> dict:
    paths = {
        "out": tmp_path / tag / "data" / "train",
        "plot": tmp_path / tag / "plots" / "sampling.png",
        "metrics": tmp_path / tag / "metrics" / "mine.json",
    }
    main([str(ROOT / "params.yaml"), str(fixture_catalog), str(TRACES), str(fixture_bundle),
          str(paths["out"]), str(paths["plot"]), str(paths["metrics"])])
    return paths


def test_mine_stage_smoke(tmp_path, monkeypatch, fixture_catalog, fixture_bundle, capsys):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path}/mlflow.db")
    monkeypatch.setenv("TOOLSIFT_PIPELINE_ID", "test-mine")
    first = run_stage(tmp_path, fixture_catalog, fixture_bundle, "a")
    summary = capsys.readouterr().out.strip().splitlines()
    assert len(summary) == 1 and summary[0].startswith("mine: ")

    schemas = {"pairs": PAIRS_SCHEMA, "retriever": RETRIEVER_SCHEMA, "reranker": RERANKER_SCHEMA}
    for name, schema in schemas.items():
        frame = scan_parquet(first["out"] / f"{name}.parquet", schema).collect()
        assert frame.height > 0
    retriever = pl.read_parquet(first["out"] / "retriever.parquet")
    assert set(retriever["sampler"]) == {"explore", "uniform"}

    metrics = json.loads(first["metrics"].read_text())
    assert metrics["n_quarantined_trace_lines"] == 3
    assert metrics["n_pairs_by_source"]["bm25_hard"] > 0
    assert set(metrics["bucket_share"]) == {"all_positives", "explore", "uniform"}
    # the fixture's capped pool fits n_samples whole, and its new tool's synthetic queries
    # fill the quota without repeats: explore holds every row (flattening is tested above)
    assert metrics["bucket_share"]["explore"]["new"] >= metrics["bucket_share"][
        "all_positives"]["new"]
    quarantine = first["out"].parent / "train.traces.quarantine.jsonl"
    assert len(quarantine.read_text().splitlines()) == 3
    assert first["plot"].stat().st_size > 1000
    with first["plot"].with_suffix(".csv").open() as fh:
        table = list(csv.DictReader(fh))
    assert [r["bucket"] for r in table] == ["head", "torso", "tail", "new"]
    assert sum(float(r["explore"]) for r in table) == pytest.approx(1.0, abs=1e-5)

    import mlflow

    mlflow.set_tracking_uri(f"sqlite:///{tmp_path}/mlflow.db")
    runs = mlflow.search_runs(experiment_names=["toolsift"],
                              filter_string="tags.stage = 'mine'", output_format="list")
    assert len(runs) == 1
    run = runs[0]
    assert run.data.metrics["n_pairs"] == metrics["n_pairs"]
    assert "dataset.pairs.sha256" in run.data.tags
    assert run.data.params["mine.sampling.temperature"] == "0.5"

    # the same inputs and params give the same bytes (what `dvc repro` relies on)
    second = run_stage(tmp_path, fixture_catalog, fixture_bundle, "b")
    for name in schemas:
        assert (first["out"] / f"{name}.parquet").read_bytes() == (
            second["out"] / f"{name}.parquet").read_bytes()
    assert first["plot"].read_bytes() == second["plot"].read_bytes()

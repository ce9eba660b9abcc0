"""The held-out check of "no offered tool fits": its bar, its rates and the list lengths."""

import json

import numpy as np

from training.checks.offered_no_tool import bar_for, best_per_request, judge
from training.no_tool.offered import OfferedRequest, read_folder


def test_the_bar_is_the_strictest_folders_quantile():
    scores = {"a": np.array([0.1, 0.5, 0.9, 0.2]), "b": np.array([0.3, 0.4, 0.0])}
    served = {"a": np.array([True, True, True, False]), "b": np.array([True, True, False])}
    # quantile 0 of each folder's served scores: a 0.1, b 0.3 -> the lower, 0.1
    assert bar_for(scores, served, ["a", "b"], 0.0) == 0.1
    assert bar_for(scores, served, ["b"], 0.0) == 0.3


def test_judge_counts_below_the_bar_by_hand():
    scores = np.array([0.9, 0.8, 0.2, 0.1, 0.3])
    served = np.array([True, True, True, False, False])
    got = judge(scores, served, bar=0.25, max_false=0.0)
    # no tool: 0.1 and 0.3, one below 0.25; gold: 0.2 below it, one of three
    assert got["abstain"] == 0.5 and got["false"] == round(1 / 3, 4)
    # own bar: the lowest gold score 0.2 -> 0.1 is below, 0.3 is not
    assert got["ceiling"] == 0.5
    # pairs (gold, no tool) ordered right: 0.9 and 0.8 beat both, 0.2 beats 0.1 only: 5 of 6
    assert got["auc"] == round(5 / 6, 4)


def test_best_per_request_reads_each_requests_run():
    reqs = [OfferedRequest("f", "q1", "x", True, ("a", "b"), (True, False)),
            OfferedRequest("f", "q2", "y", False, ("c",), (False,))]
    assert best_per_request(reqs, np.array([0.2, 0.7, 0.4])).tolist() == [0.7, 0.4]


def test_a_gold_list_is_cut_to_a_no_tool_lists_length_and_keeps_its_gold(tmp_path):
    tools = [{"tool_id": f"app.t{i}", "name": f"t{i}", "description": f"does thing {i}",
              "parameters": {"type": "object", "properties": {}}, "source": "s"}
             for i in range(6)]
    queries = [
        {"query_id": "g", "query": "do thing 3", "gold": ["app.t3"], "kind": "single",
         "candidates": [f"app.t{i}" for i in range(5)]},
        {"query_id": "n1", "query": "do thing 9", "gold": [], "kind": "no_tool_fits",
         "candidates": ["app.t0", "app.t1"]},
        {"query_id": "n2", "query": "do thing 8", "gold": [], "kind": "no_tool_fits",
         "candidates": ["app.t4", "app.t5"]},
    ]
    (tmp_path / "catalog.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tools))
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    got = {r.query_id: r for r in read_folder(tmp_path, seed=1)}
    assert len(got["g"].tools) == 2 and got["g"].gold == (True, False)  # gold first
    assert got["g"].tools[0].endswith("Does thing 3")
    assert len(got["n1"].tools) == 2 and not got["n1"].served and got["g"].served

"""The split check (`training.checks.decompose_check`): cases from traces, scores by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from decompose_cards import CARDS


def test_trace_cases_dedupe_retries_and_keep_order() -> None:
    from serving.model.schema import Trace
    from training.checks.decompose_check import SplitCase, cases_from_traces

    def event(rid: str, request: str, subgoal: str) -> Trace:
        return Trace(subgoal=subgoal, tool_id="t.x", success=True, request_id=rid, request=request)

    traces = [
        event("r1", "restart pods; post slack", "restart pods"),
        event("r1", "restart pods; post slack", "restart pods"),  # a retry after a failure
        event("r1", "restart pods; post slack", "post slack"),
        event("r2", "list commits", "list commits"),
    ]
    assert cases_from_traces(traces) == [
        SplitCase("r1", "restart pods; post slack", ("restart pods", "post slack")),
        SplitCase("r2", "list commits", ("list commits",)),
    ]


def test_split_scores_by_hand() -> None:
    from training.checks.decompose_check import SplitCase, check_split

    cases = [
        SplitCase("exact", "r1", ("restart pods", "post slack")),
        SplitCase("under", "r2", ("list commits", "check rollout", "notify team")),
        SplitCase("over", "r3", ("merge branch", "deploy staging")),
        SplitCase("one", "r4", ("list commits",)),
        SplitCase("split", "r5", ("list commits",)),
    ]
    predicted = {
        "r1": ["restart pods", "post slack"],
        "r2": ["list commits check rollout notify team"],
        "r3": ["merge branch", "deploy", "staging"],
        "r4": ["list commits"],
        "r5": ["list", "commits"],
    }
    metrics, _ = check_split(cases, lambda request: predicted[request])
    assert metrics["multi_n"] == 3 and metrics["multi_n_gold_subgoals"] == 7
    # only r1 has as many predicted subgoals as gold ones
    assert metrics["multi_exact_count_rate"] == pytest.approx(1 / 3)
    # r1: 2 aligned; r2: one predicted subgoal holds all three but aligns one-to-one: 1;
    # r3: "deploy staging" has half its tokens in "deploy" (0.5 >= 0.5): 2 -> 5 of 7
    assert metrics["multi_align_recall"] == pytest.approx(5 / 7)
    assert (metrics["multi_n_over"], metrics["multi_n_under"]) == (1, 1)
    # of the single-part requests r4 stays one subgoal, r5 is split: 1 of 2
    assert metrics["single_one_subgoal_rate"] == pytest.approx(1 / 2)
    assert metrics["single_n_over"] == 1


def test_decompose_check_main_writes_metrics(tmp_path: Path) -> None:
    from serving.model.io import write_jsonl
    from serving.model.schema import Trace
    from training.checks.decompose_check import main

    catalog = tmp_path / "catalog.jsonl"
    write_jsonl(catalog, [c.to_dict() for c in CARDS])
    traces = tmp_path / "traces.jsonl"
    two = "Restart the checkout pods; tell #ops on Slack"
    write_jsonl(
        traces,
        [
            Trace("Restart the checkout pods", "k8s.restart_deployment", True, "r1", two).to_dict(),
            Trace("tell #ops on Slack", "slack.post_message", True, "r1", two).to_dict(),
            Trace(
                "list the commits", "github.list_commits", True, "r2", "list the commits"
            ).to_dict(),
        ],
    )
    out = tmp_path / "metrics" / "decompose_check.json"
    main([str(traces), "--metrics", str(out)])  # the catalog is found beside the traces
    got = json.loads(out.read_text())["traces"]
    assert got["multi_n"] == 1 and got["multi_exact_count_rate"] == 1.0
    assert got["multi_align_recall"] == 1.0 and got["single_one_subgoal_rate"] == 1.0

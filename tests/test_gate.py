import dataclasses
import json

import pytest
from jsonschema import Draft202012Validator

from serving.calls.gate import (
    GATE_HINT,
    SEARCH_TOOLS_DEFINITION,
    SEARCH_TOOLS_NAME,
    ActiveSet,
    SearchTools,
    gate,
)
from serving.calls.validate import schema_errors

# a tiny catalog: tool id -> one-liner; discovery is a plain word match over it
CATALOG = {
    "github.create_issue": "open a new issue in a repository",
    "github.list_issues": "list issues of a repository",
    "k8s.restart_deployment": "restart a kubernetes deployment",
    "k8s.get_pods": "list the pods of a kubernetes namespace",
    "slack.post_message": "post a message to a slack channel",
}


def discover(query: str) -> list[str]:
    words = set(query.lower().split())
    hits = [(len(words & set(s.split())), t) for t, s in CATALOG.items()]
    return [t for n, t in sorted(hits, key=lambda h: (-h[0], h[1])) if n > 0]


def test_active_set_is_immutable_and_widen_returns_a_new_set():
    active = ActiveSet.of(["github.list_issues"])
    wider = active.widen(["slack.post_message", "github.list_issues"])
    assert active.sorted_ids() == ["github.list_issues"]
    assert wider.sorted_ids() == ["github.list_issues", "slack.post_message"]
    assert list(wider) == wider.sorted_ids() and len(wider) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        active.tool_ids = frozenset()  # type: ignore[misc]


def test_gate_allows_active_tools_and_search_tools():
    active = ActiveSet.of(["github.list_issues"])
    assert gate("github.list_issues", active).allowed
    assert gate(SEARCH_TOOLS_NAME, ActiveSet()).allowed
    assert gate("github.list_issues", active).error == {}


def test_gate_rejects_a_tool_outside_the_active_set_with_a_structured_error():
    active = ActiveSet.of(["slack.post_message", "github.list_issues"])
    result = gate("github.delete_repo", active)
    assert not result.allowed
    assert result.error == {
        "error": "tool_not_available",
        "tool_id": "github.delete_repo",
        "available": ["github.list_issues", "slack.post_message"],
        "hint": "call search_tools(query) to find other tools",
    }
    assert result.error["hint"] == GATE_HINT
    json.dumps(result.error)  # JSON-ready


def test_search_tools_widens_the_active_set_and_lists_what_it_found():
    search = SearchTools(discover=discover, summarize=CATALOG.__getitem__)
    active = ActiveSet.of(["github.list_issues"])
    assert not gate("k8s.restart_deployment", active).allowed

    wider, reply = search("  restart kubernetes deployment ", active)

    assert reply == {
        "query": "restart kubernetes deployment",
        "tools": [
            {"tool_id": "k8s.restart_deployment", "summary": "restart a kubernetes deployment"},
            {"tool_id": "k8s.get_pods", "summary": "list the pods of a kubernetes namespace"},
        ],
        "added": ["k8s.get_pods", "k8s.restart_deployment"],
    }
    assert gate("k8s.restart_deployment", wider).allowed
    assert active.sorted_ids() == ["github.list_issues"]  # the old set is untouched
    json.dumps(reply)


def test_search_tools_dedupes_caps_and_reports_only_new_ids_as_added():
    search = SearchTools(discover=lambda q: ["a.x", "b.y", "a.x", "c.z"], max_results=2)
    wider, reply = search("anything", ActiveSet.of(["a.x"]))
    assert reply["tools"] == [{"tool_id": "a.x"}, {"tool_id": "b.y"}]
    assert reply["added"] == ["b.y"]
    assert wider.sorted_ids() == ["a.x", "b.y"]


def test_search_tools_with_no_match_keeps_the_set_and_hints():
    active = ActiveSet.of(["github.list_issues"])
    wider, reply = SearchTools(discover=discover)("zzz", active)
    assert wider == active
    assert reply == {
        "query": "zzz",
        "tools": [],
        "added": [],
        "hint": "no tool matched; rephrase the query with an action and an object",
    }


@pytest.mark.parametrize("query", ["", "   ", None, 3])
def test_search_tools_refuses_a_blank_query_without_running_discovery(query):
    def boom(q: str) -> list[str]:
        raise AssertionError("discovery must not run")

    active = ActiveSet.of(["github.list_issues"])
    wider, reply = SearchTools(discover=boom)(query, active)
    assert wider is active
    assert reply == {
        "error": "invalid_arguments",
        "tool_id": "search_tools",
        "errors": ["$.query: must be a non-empty string"],
    }


def test_search_tools_checks_max_results():
    with pytest.raises(ValueError, match="max_results: must be at least 1, got 0"):
        SearchTools(discover=discover, max_results=0)


def test_search_tools_definition_is_a_valid_tool_definition():
    assert SEARCH_TOOLS_DEFINITION["name"] == "search_tools"
    schema = SEARCH_TOOLS_DEFINITION["input_schema"]
    Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["query"]
    assert schema_errors(schema, {"query": "restart a pod"}) == []
    assert schema_errors(schema, {}) == ["$: 'query' is a required property"]
    json.dumps(SEARCH_TOOLS_DEFINITION)

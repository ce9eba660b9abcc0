from typing import Any

import pytest

from serving.calls.validate import validate_arguments
from serving.model.schema import ToolCard
from serving.model.selection import SessionContext

ISSUE_SCHEMA = {
    "type": "object",
    "properties": {
        "repo": {"type": "string", "pattern": "^[\\w.-]+/[\\w.-]+$"},
        "title": {"type": "string", "minLength": 1},
        "labels": {"type": "array", "items": {"enum": ["bug", "feature"]}},
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
        "due": {"type": "string", "format": "date"},
    },
    "required": ["repo", "title"],
    "additionalProperties": False,
}
CTX = SessionContext.from_dict(
    {"connections": ["github"], "scopes": ["issues:write", "repo:read"], "env": "prod"}
)


def card(tool_id: str, **fields: Any) -> ToolCard:
    server, _, name = tool_id.partition(".")
    return ToolCard.from_dict(
        {
            "tool_id": tool_id,
            "server": server,
            "domain": "dev",
            "name": name,
            "summary": f"{name} tool",
            "requires": {"connection": server, "scopes": []},
            "risk": "read_only",
            **fields,
        }
    )


CREATE_ISSUE = card(
    "github.create_issue",
    risk="write",
    input_schema=ISSUE_SCHEMA,
    requires={"connection": "github", "scopes": ["issues:write"]},
)


def test_valid_arguments_give_no_errors():
    args = {"repo": "acme/api", "title": "Crash on start", "labels": ["bug"], "priority": 2}
    assert validate_arguments(CREATE_ISSUE, args, subgoal_mutates=True, context=CTX) == []


def test_every_schema_error_is_reported_with_its_json_path_sorted():
    args = {"repo": 42, "labels": ["bug", "urgent"], "priority": 9, "assignee": "bob"}
    assert validate_arguments(CREATE_ISSUE, args, subgoal_mutates=True, context=CTX) == [
        "$: 'title' is a required property",
        "$: Additional properties are not allowed ('assignee' was unexpected)",
        "$.labels[1]: 'urgent' is not one of ['bug', 'feature']",
        "$.priority: 9 is greater than the maximum of 5",
        "$.repo: 42 is not of type 'string'",
    ]


def test_pattern_and_min_length_errors():
    args = {"repo": "not a repo", "title": ""}
    assert validate_arguments(CREATE_ISSUE, args, subgoal_mutates=True, context=CTX) == [
        "$.repo: 'not a repo' does not match '^[\\\\w.-]+/[\\\\w.-]+$'",
        "$.title: '' should be non-empty",
    ]


def test_arguments_that_are_not_an_object():
    assert validate_arguments(CREATE_ISSUE, ["acme/api"], subgoal_mutates=True, context=CTX) == [  # type: ignore[arg-type]
        "$: ['acme/api'] is not of type 'object'"
    ]


def test_messages_do_not_depend_on_argument_order():
    a = {"repo": 1, "title": 2, "priority": "high", "x": 0, "y": 0}
    b = dict(reversed(list(a.items())))
    nothing = SessionContext.from_dict({"connections": [], "scopes": []})
    out_a = validate_arguments(CREATE_ISSUE, a, subgoal_mutates=False, context=nothing)
    out_b = validate_arguments(CREATE_ISSUE, b, subgoal_mutates=False, context=nothing)
    assert (
        out_a
        == out_b
        == [
            "$: Additional properties are not allowed ('x', 'y' were unexpected)",
            "$.priority: 'high' is not of type 'integer'",
            "$.repo: 1 is not of type 'string'",
            "$.title: 2 is not of type 'string'",
            "intent: github.create_issue is a write tool but this step only reads; "
            "use a read-only tool",
            "scope: github.create_issue needs the connection 'github', which this session does "
            "not have (connections: none)",
            "scope: github.create_issue needs the scope(s) issues:write, "
            "not granted to this session",
        ]
    )


def test_formats_are_checked_only_when_asked():
    args = {"repo": "acme/api", "title": "t", "due": "2026-13-45"}
    kw: dict[str, Any] = {"subgoal_mutates": True, "context": CTX}
    assert validate_arguments(CREATE_ISSUE, args, **kw) == []
    assert validate_arguments(CREATE_ISSUE, args, check_formats=True, **kw) == [
        "$.due: '2026-13-45' is not a 'date'"
    ]


@pytest.mark.parametrize(
    ("risk", "subgoal_mutates", "expected"),
    [
        ("read_only", False, []),
        ("read_only", True, []),  # looking something up inside a write step is fine
        ("write", True, []),
        ("destructive", True, []),
        (
            "write",
            False,
            ["intent: github.t is a write tool but this step only reads; use a read-only tool"],
        ),
        (
            "destructive",
            False,
            [
                "intent: github.t is a destructive tool but this step only reads; "
                "use a read-only tool"
            ],
        ),
    ],
)
def test_write_tools_are_refused_for_read_subgoals(risk, subgoal_mutates, expected):
    tool = card("github.t", risk=risk)
    assert validate_arguments(tool, {}, subgoal_mutates=subgoal_mutates, context=CTX) == expected


def test_missing_connection_scopes_and_env_are_all_reported():
    tool = card(
        "jira.delete_project",
        risk="destructive",
        requires={"connection": "jira", "scopes": ["projects:admin", "admin", "repo:read"]},
        env=["staging", "dev"],
    )
    assert validate_arguments(tool, {}, subgoal_mutates=True, context=CTX) == [
        "scope: jira.delete_project needs the connection 'jira', which this session does not "
        "have (connections: github)",
        "scope: jira.delete_project needs the scope(s) admin, projects:admin, not granted to "
        "this session",
        "scope: jira.delete_project runs only in env dev, staging, not in 'prod'",
    ]


def test_a_session_without_a_connection_list_does_not_restrict_connections():
    tool = card("jira.get_issue", requires={"connection": "jira", "scopes": []})
    open_ctx = SessionContext.from_dict({"scopes": []})
    assert validate_arguments(tool, {}, subgoal_mutates=False, context=open_ctx) == []
    closed_ctx = SessionContext.from_dict({"connections": []})
    assert validate_arguments(tool, {}, subgoal_mutates=False, context=closed_ctx) == [
        "scope: jira.get_issue needs the connection 'jira', which this session does not "
        "have (connections: none)"
    ]


def test_a_card_without_env_runs_in_any_env():
    tool = card("github.list_issues")
    staging = SessionContext.from_dict({"connections": ["github"], "env": "staging"})
    assert validate_arguments(tool, {}, subgoal_mutates=False, context=staging) == []


def test_schema_intent_and_scope_errors_come_together_in_a_fixed_order():
    ctx = SessionContext.from_dict({"connections": ["github"], "scopes": []})
    assert validate_arguments(
        CREATE_ISSUE, {"repo": "acme/api"}, subgoal_mutates=False, context=ctx
    ) == [
        "$: 'title' is a required property",
        "intent: github.create_issue is a write tool but this step only reads; "
        "use a read-only tool",
        "scope: github.create_issue needs the scope(s) issues:write, not granted to this session",
    ]


def test_a_tool_outside_the_sessions_tool_list_is_a_scope_error():
    tool = card("github.list_issues")
    offered = SessionContext.from_dict({"tools": ["github.list_commits"]})
    assert validate_arguments(tool, {}, subgoal_mutates=False, context=offered) == [
        "scope: github.list_issues is not among the tools this session is offered"]
    listed = SessionContext.from_dict({"tools": ["github.list_issues"]})
    assert validate_arguments(tool, {}, subgoal_mutates=False, context=listed) == []

import json
from pathlib import Path

import pytest

from serving.catalog.derive import derive_summary
from serving.catalog.importers import ImporterError, import_tools
from serving.catalog.lint import lint_catalog
from serving.catalog.review import run_import
from serving.model.io import InputError, load_catalog

# A GitHub-like MCP server's tools/list result, as a client receives it (JSON-RPC envelope):
# readOnly / destructive / no annotations, a read-only hint beside a destructive one, and
# five bad entries (no name, a string schema, a non-boolean hint, an invalid schema, a
# repeated name).
MCP_RESULT = json.loads((Path(__file__).parent / "fixtures" / "mcp_tools_list.json").read_text())


@pytest.fixture
def mcp_file(tmp_path):
    path = tmp_path / "github-tools.json"
    path.write_text(json.dumps(MCP_RESULT))
    return path


def test_mcp_risk_follows_annotations_and_bad_entries_are_reported(mcp_file):
    result = import_tools(mcp_file, "mcp", "gh", trust="third_party")
    cards = {c.name: c for c in result.items}
    assert list(cards) == [
        "search_code",
        "create_issue",
        "delete_branch",
        "mergePullRequest",
        "get_me",
    ]
    assert {n: c.risk for n, c in cards.items()} == {
        "search_code": "read_only",
        "create_issue": "write",
        "delete_branch": "destructive",
        "mergePullRequest": "write",
        "get_me": "destructive",  # both hints set: the higher risk (was read_only)
    }
    search = cards["search_code"]
    assert search.tool_id == "gh.search_code" and search.server == "gh"
    assert search.requires.connection == "gh" and search.trust == "third_party"
    assert search.description == MCP_RESULT["result"]["tools"][0]["description"]  # verbatim
    assert search.summary == "Search for code across GitHub repositories"
    assert search.capabilities == ("search:code",)
    assert search.input_concepts == ("q", "page")
    assert {"summary", "risk", "capabilities", "domain", "requires"} <= set(search.derived)
    assert cards["create_issue"].summary == "Create a new issue in a GitHub repository"
    assert cards["mergePullRequest"].capabilities == ("merge:pull_request",)
    assert "repo" in cards["mergePullRequest"].entities  # from the repoId property
    assert cards["get_me"].summary == "Get my user"  # from the title: no description

    path = str(mcp_file)
    assert [str(e) for e in result.errors] == [
        f"{path}:6: tools[5].name: missing",
        f"{path}:7: tools[6].inputSchema: expected a JSON Schema object, got str",
        f"{path}:8: tools[7].annotations.readOnlyHint: expected true or false, got 'yes'",
        f"{path}:9: tools[8].inputSchema.type: expected \"object\" (the MCP schema), got "
        "'objekt'",
        f"{path}:10: tools[9].name: duplicate tool name 'search_code'",
    ]
    assert result.n_lines == 10 and result.n_skipped == 5


def test_openai_both_forms_risk_from_the_name(tmp_path):
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Retrieves current weather for the given location.",
                "parameters": {
                    "type": "object",
                    "properties": {"location": {"type": "string", "description": "City"}},
                    "required": ["location"],
                },
            },
        },
        {  # Responses API: flat
            "type": "function",
            "name": "send_email",
            "description": "Use this tool to send an email to a recipient.",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
        },
        {"type": "function", "name": "purge_cache", "description": "Purges the CDN cache."},
        {"type": "web_search_preview"},
        {"type": "function", "function": {"name": "x", "parameters": {"type": 3}}},
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": tools}))
    result = import_tools(path, "openai", "acme", trust="first_party")
    cards = {c.name: c for c in result.items}
    assert {n: c.risk for n, c in cards.items()} == {
        "get_weather": "read_only",
        "send_email": "write",
        "purge_cache": "destructive",
    }
    assert cards["get_weather"].summary == "Retrieve current weather for the given location"
    assert cards["send_email"].summary == "Send an email to a recipient"
    assert cards["purge_cache"].input_schema == {"type": "object", "properties": {}}
    assert all(c.trust == "first_party" for c in cards.values())
    fields = [e.field for e in result.errors]
    assert fields == ["tools[3].type", "tools[4].function.parameters"]
    assert [e.line for e in result.errors] == [4, 5]


def test_anthropic_form_and_auto_detection(tmp_path):
    tools = [
        {
            "name": "get_stock_price",
            "description": "Returns the current stock price for a ticker symbol.",
            "input_schema": {
                "type": "object",
                "properties": {"ticker": {"type": "string", "description": "e.g. AAPL"}},
                "required": ["ticker"],
            },
        },
        {"name": "no_schema", "description": "x"},
    ]
    path = tmp_path / "anthropic.json"
    path.write_text(json.dumps(tools))
    for fmt in ("anthropic", "auto"):
        result = import_tools(path, fmt, "markets")
        assert [c.tool_id for c in result.items] == ["markets.get_stock_price"]
        card = result.items[0]
        assert card.summary == "Get the current stock price for a ticker symbol"
        assert card.risk == "read_only" and card.trust == "third_party"
        assert [str(e).split(": ", 1)[0].rsplit(":", 1)[1] for e in result.errors] == ["2"]
        assert result.errors[0].field == "tools[1].input_schema"


@pytest.mark.parametrize(
    ("description", "name", "summary"),
    [
        (
            "This endpoint lists the commits of a repository.",
            "list_commits",
            "List the commits of a repository",
        ),
        ("Returns a list of open incidents.", "list_incidents", "List open incidents"),
        ("Wraps GET /v2/cust; ret obj", "searchCustomers", "Search customers"),
        ("A tool for creating Jira issues.", "create_issue", "Create Jira issues"),
        ("Weather forecast for a city.", "get_forecast", "Get weather forecast for a city"),
        ("Allows you to refund a payment.", "refund", "Refund a payment"),
        ("", "delete_branch", "Delete branch"),
    ],
)
def test_summary_in_the_users_voice(description, name, summary):
    assert derive_summary(description, name) == summary


def test_long_summary_is_cut_at_a_boundary():
    text = "Search issues " + "across many projects and boards, " * 6 + "quickly."
    summary = derive_summary(text, "search_issues")
    assert len(summary) <= 100 and summary.startswith("Search issues across")
    assert not summary.endswith((",", " "))


def test_run_import_writes_loadable_cards_that_lint_clean(mcp_file, tmp_path):
    out = tmp_path / "cards.jsonl"
    report = run_import(mcp_file, "mcp", "gh", out)
    assert report["n_entries"] == 10 and report["n_imported"] == 5 and report["n_skipped"] == 5
    assert report["risk"] == {"read_only": 1, "write": 2, "destructive": 2}  # get_me: both hints
    assert report["derived"]["summary"] == 5 and len(report["errors"]) == 5
    loaded = load_catalog(out, strict=True)
    assert len(loaded.items) == 5
    findings = lint_catalog(loaded.items)
    assert not [f for f in findings if f.security and f.severity == "error"]
    assert {f.tool_id for f in findings if f.code == "risk_derived"} == {
        c.tool_id for c in loaded.items
    }


def test_unusable_input_raises(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="invalid JSON"):
        import_tools(path, "mcp", "gh")
    path.write_text(json.dumps({"items": []}))
    with pytest.raises(InputError, match="tools"):
        import_tools(path, "mcp", "gh")
    with pytest.raises(InputError, match="not found"):
        import_tools(tmp_path / "missing.json", "mcp", "gh")
    with pytest.raises(ImporterError, match="namespace"):
        import_tools(path, "mcp", "bad.server")
    with pytest.raises(ImporterError, match="format"):
        import_tools(path, "yaml", "gh")
    with pytest.raises(ImporterError, match="trust"):
        import_tools(path, "mcp", "gh", trust="trusted")


def _mcp_entry(name: str, **hints: bool) -> dict:
    return {"name": name, "description": "", "inputSchema": {"type": "object"},
            "annotations": dict(hints)}


def test_third_party_hints_never_lower_risk_below_the_name(tmp_path):
    # a refund tool claiming readOnlyHint is a write tool from a third-party server;
    # a verb-less name says nothing, so the hint stands; first-party hints are trusted
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [
        _mcp_entry("refund_payment", readOnlyHint=True),
        _mcp_entry("weather", readOnlyHint=True),
        _mcp_entry("drop_table", readOnlyHint=True),
        _mcp_entry("list_orders", readOnlyHint=True),
    ]}))
    third = import_tools(path, "mcp", "pay", trust="third_party")
    assert {c.name: c.risk for c in third.items} == {
        "refund_payment": "write",
        "weather": "read_only",
        "drop_table": "destructive",
        "list_orders": "read_only",
    }
    assert [(w.line, w.field) for w in third.warnings] == [
        (1, "tools[0].annotations"),
        (3, "tools[2].annotations"),
    ]
    assert "annotations say read_only" in third.warnings[0].problem
    assert "say write" in third.warnings[0].problem
    first = import_tools(path, "mcp", "pay", trust="first_party")
    assert {c.risk for c in first.items} == {"read_only"} and not first.warnings

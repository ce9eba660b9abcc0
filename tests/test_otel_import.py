"""OpenTelemetry in (`features.otel_traces`, `toolsift import-otel`): the hand-written OTLP
export `fixtures/otel_export.json` (three agent requests in the GenAI conventions, a failed
call, a call seen by two layers, a meta-tool call, a refused call and five bad spans)
against its hand-written native equivalent `fixtures/otel_export_native.jsonl`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from features.mining import mine_pairs, traces_frame
from features.otel_traces import (
    GATEWAY_META_TOOLS,
    import_otlp,
    user_request,
)
from serving.model.io import InputError, load_traces
from training.core.cli import app

FIXTURES = Path(__file__).parent / "fixtures"
EXPORT = FIXTURES / "otel_export.json"
NATIVE = FIXTURES / "otel_export_native.jsonl"
A = "find where checkout retries are configured in our gitlab repos"
B = "let the deploys channel know checkout is live"
C = "show the rollout status of checkout and its pod logs"
# the bad spans, each by its place in the export (all on line 1: one export per file)
BAD = [
    ("resourceSpans[1].scopeSpans[0].spans[6].spanId", "missing"),
    ("resourceSpans[0].scopeSpans[0].spans[3].attributes.gen_ai.tool.name", "missing"),
    ("resourceSpans[2].scopeSpans[0].spans[5].attributes.gen_ai.tool.name", "ambiguous"),
    ("resourceSpans[2].scopeSpans[0].spans[6].attributes.gen_ai.tool.name", "unknown tool"),
    ("resourceSpans[2].scopeSpans[0].spans[7].parentSpanId", "no request above it"),
]


@pytest.fixture(scope="module")
def native(fixture_cards):
    return load_traces(NATIVE, known_tools=[c.tool_id for c in fixture_cards], strict=True).items


def mine(traces, cards, params):
    return mine_pairs(
        traces_frame(traces), cards, seed=params.seed, valid_share=params.valid_share,
        negatives_per_query=params.negatives_per_query,
        synthetic_per_tool=params.synthetic_per_tool, new_tool_days=params.new_tool_days,
        hard_negatives=None,
    ).pairs.sort("query_id", "tool_id", "source")


def test_the_otlp_export_converts_into_the_native_events_and_mines_the_same_pairs(
    fixture_cards, native, mine_params
):
    result = import_otlp([EXPORT], fixture_cards)
    assert result.traces == native
    # A: one call; B: teams failed, then slack (its gateway span inside the MCP client's
    # span: one call), search_tools and a refused slack call are no events; C: the request
    # from the chat span under the agent, get_rollout_status by its bare name
    assert [(t.request, t.tool_id, t.success) for t in result.traces] == [
        (A, "gitlab.search_code", True),
        (B, "teams.post_message", False),
        (B, "slack.post_message", True),
        (C, "k8s.get_rollout_status", True),
        (C, "k8s.get_pod_logs", True),
    ]
    counts = result.counts
    assert (counts["n_spans"], counts["n_tool_spans"]) == (18, 12)
    # 12 tool spans = 5 events + 5 bad (4 of them tool spans with ids) + 1 nested + 1 never
    # ran + 1 meta-tool call: 5 + 4 + 1 + 1 + 1 = 12
    assert (counts["n_nested"], counts["n_not_run"], counts["n_meta_tool"]) == (1, 1, 1)
    assert counts["n_failed"] == 1

    ours, theirs = mine(result.traces, fixture_cards, mine_params), mine(
        native, fixture_cards, mine_params)
    assert ours.equals(theirs)
    traced = ours.filter(ours["source"] == "trace_success")
    assert set(zip(traced["query"], traced["tool_id"], strict=True)) == {
        (A, "gitlab.search_code"), (B, "slack.post_message"),
        (C, "k8s.get_rollout_status"), (C, "k8s.get_pod_logs"),
    }
    # the failed teams call is a negative for B (near_duplicate outranks trace_failure:
    # same capability as the gold slack tool on another server)
    teams = ours.filter((ours["query"] == B) & (ours["tool_id"] == "teams.post_message"))
    assert teams["label"].to_list() == [0]


def test_one_export_per_line_links_spans_across_lines(tmp_path, fixture_cards, native):
    """A batch exporter sends the tool spans before the agent spans that end after them:
    the same spans as two JSONL lines, tool spans first, give the same events."""
    export = json.loads(EXPORT.read_text())
    tools, rest = [], []
    for resource in export["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                is_tool = "execute_tool" in json.dumps(span.get("attributes", []))
                (tools if is_tool else rest).append(span)
    lines = [{"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]} for spans in (tools, rest)]
    path = tmp_path / "otel.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = import_otlp([path], fixture_cards)
    assert result.traces == native
    assert result.counts["n_exports"] == 2
    assert len(result.errors) == len(BAD) and {e.line for e in result.errors} == {1}


def test_bad_spans_are_named_by_file_line_and_quarantined(tmp_path, fixture_cards):
    quarantine = tmp_path / "otel.quarantine.jsonl"
    result = import_otlp([EXPORT], fixture_cards, quarantine=quarantine)
    assert [(e.path, e.line, e.field) for e in result.errors] == [
        (str(EXPORT), 1, field) for field, _ in BAD]
    for error, (_, problem) in zip(result.errors, BAD, strict=True):
        assert problem in error.problem
    assert str(result.errors[0]).startswith(f"{EXPORT}:1: resourceSpans[1].scopeSpans[0]")
    kept = [json.loads(line) for line in quarantine.read_text().splitlines()]
    assert [k["error"] for k in kept] == [str(e) for e in result.errors]
    assert json.loads(kept[3]["raw"])["spanId"] == "c0ffee0000000007"  # the span as read
    with pytest.raises(InputError) as err:
        import_otlp([EXPORT], fixture_cards, strict=True)
    assert str(err.value) == str(result.errors[0])


def test_a_line_that_is_not_an_export_costs_that_line(tmp_path, fixture_cards, native):
    good = json.dumps(json.loads(EXPORT.read_text()))
    path = tmp_path / "otel.jsonl"
    path.write_text(f'{good}\n{{"resourceSpans": [tru\n\n{{"spans": []}}\n')
    result = import_otlp([path], fixture_cards)
    assert result.traces == native
    assert [(e.line, e.field) for e in result.errors if e.line > 1] == [
        (2, "<json>"), (4, "<export>")]
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "resourceSpans": [\n    {"scopeSpans": [}\n  ]\n}\n')
    (error,) = import_otlp([broken], fixture_cards).errors
    assert (error.line, error.field) == (3, "<json>")  # where the parser stopped
    with pytest.raises(InputError, match="not found"):
        import_otlp([tmp_path / "missing.json"], fixture_cards)


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        # the conventions: the last user message's text parts, as a JSON string or structured
        ({"gen_ai.input.messages": json.dumps([
            {"role": "user", "parts": [{"type": "text", "content": "old question"}]},
            {"role": "assistant", "parts": [{"type": "text", "content": "an answer"}]},
            {"role": "user", "parts": [{"type": "text", "content": "list open incidents"},
                                       {"type": "uri", "uri": "https://x"}]},
        ])}, "list open incidents"),
        ({"gen_ai.input.messages": [
            {"role": "user", "parts": [{"type": "text", "content": "list open incidents"}]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "result": "[]"}]},
        ]}, "list open incidents"),
        # the deprecated gen_ai.prompt: OpenAI-style messages as JSON, or the plain text
        ({"gen_ai.prompt": json.dumps([{"role": "system", "content": "be brief"},
                                       {"role": "user", "content": [
                                           {"type": "text", "text": "list open incidents"}]}])},
         "list open incidents"),
        ({"gen_ai.prompt": "list open incidents"}, "list open incidents"),
        # OpenLLMetry's flattened prompts: the last user one
        ({"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "old question",
          "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": "list open incidents",
          "gen_ai.prompt.2.role": "assistant", "gen_ai.prompt.2.content": "on it"},
         "list open incidents"),
        ({"gen_ai.input.messages": "not json", "gen_ai.agent.name": "ops"}, ""),
        ({}, ""),
    ],
)
def test_the_user_request_is_read_from_the_documented_attributes(attributes, expected):
    assert user_request(attributes) == expected


def test_the_cli_writes_traces_the_mine_stage_loads(tmp_path, fixture_catalog, native):
    out = tmp_path / "traces.jsonl"
    run = CliRunner().invoke(app, ["import-otel", str(EXPORT), "--catalog",
                                   str(fixture_catalog), "--out", str(out)])
    assert run.exit_code == 1, run.output  # bad spans: findings, the events still written
    assert "5 events (1 failed)" in run.output
    assert load_traces(out, strict=True).items == native  # the reader the mine stage uses
    assert len((tmp_path / "traces.jsonl.otel.quarantine.jsonl").read_text().splitlines()) == 5


def test_the_meta_tools_skipped_are_the_gateways():
    from serving.gateway.handlers import META_TOOLS

    assert {t["name"] for t in META_TOOLS} == GATEWAY_META_TOOLS

import json
from pathlib import Path

import pytest

from serving.model.io import (
    InputError,
    load_catalog,
    load_queries,
    load_traces,
    quarantine_path_for,
)
from serving.model.schema import BundleManifest, LabeledQuery, ToolCard, Trace, traces_from_record

FIXTURES = Path(__file__).parent / "fixtures"


def good_cards() -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / "catalog.jsonl").read_text().splitlines()]


def write_lines(path: Path, lines: list[str | dict]) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_fixture_catalog_round_trips():
    result = load_catalog(FIXTURES / "catalog.jsonl", strict=True)
    assert len(result.items) == 17 and not result.errors
    for card in result.items:
        assert ToolCard.from_dict(card.to_dict()) == card


def test_index_text_holds_id_name_summary_and_capabilities():
    card = load_catalog(FIXTURES / "catalog.jsonl").items[0]
    text = card.index_text()
    for part in ("github.list_commits", "list commits", card.summary, "list:commit"):
        assert part in text


def bad_catalog_lines() -> list[tuple[str | dict, str]]:
    """(line, the field its error must name); the valid lines sit between them."""
    base = good_cards()[0]
    bad_risk = {**base, "tool_id": "github.x1", "name": "x1", "risk": "dangerous"}
    bad_schema = {
        **base,
        "tool_id": "github.x2",
        "name": "x2",
        "input_schema": {"type": "object", "properties": {"a": {"type": "strang"}}},
    }
    dup = {**base}
    no_conn = {**base, "tool_id": "github.x3", "name": "x3", "requires": {"scopes": []}}
    bad_id = {**base, "tool_id": "nodot", "name": "x4"}
    wrong_server = {**base, "tool_id": "gitlab.x5", "name": "x5"}
    bad_date = {**base, "tool_id": "github.x6", "name": "x6", "added_at": "yesterday"}
    return [
        ("{not json", "<json>"),
        (bad_risk, "risk"),
        (bad_schema, "input_schema"),
        (dup, "tool_id"),
        (no_conn, "requires.connection"),
        (bad_id, "tool_id"),
        (wrong_server, "tool_id"),
        (bad_date, "added_at"),
        ("[1, 2]", "<record>"),
    ]


def test_bad_catalog_lines_report_line_and_field_and_lose_no_valid_line(tmp_path):
    good = good_cards()
    bad = bad_catalog_lines()
    lines: list[str | dict] = [good[0]]
    expected: list[tuple[int, str]] = []
    for i, (line, field) in enumerate(bad):
        lines.append(line)
        expected.append((len(lines), field))
        if i + 1 < len(good):
            lines.append(good[i + 1])
    path = write_lines(tmp_path / "catalog.jsonl", lines)
    quarantine = quarantine_path_for(tmp_path / "out", "catalog")
    result = load_catalog(path, quarantine=quarantine)

    assert [(e.line, e.field) for e in result.errors] == expected
    assert len(result.items) == 1 + len(bad)  # every valid line kept
    assert result.n_lines == len(lines)
    assert str(result.errors[1]).startswith(f"{path}:{expected[1][0]}: risk: unknown value")
    quarantined = [json.loads(x) for x in quarantine.read_text().splitlines()]
    assert [q["line"] for q in quarantined] == [line for line, _ in expected]


def test_strict_mode_raises_on_first_bad_line(tmp_path):
    path = write_lines(tmp_path / "c.jsonl", [good_cards()[0], {"tool_id": "a.b"}])
    with pytest.raises(InputError, match=r"c.jsonl:2: server: missing"):
        load_catalog(path, strict=True)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_catalog(tmp_path / "nope.jsonl")


def test_traces_flat_and_request_shapes_and_unknown_tools(tmp_path):
    flat = {"subgoal": "list commits", "tool_id": "github.list_commits", "success": True}
    request = {
        "request_id": "r1",
        "request": "find what changed and tell slack",
        "context": {"connections": ["github"]},
        "steps": [
            {"subgoal": "find what changed", "tool_id": "github.list_commits", "success": True},
            {"subgoal": "tell slack", "tool_id": None},  # abstained: no event
            {"subgoal": "tell slack", "tool_id": "slack.post_message", "success": False},
        ],
    }
    unknown = {"subgoal": "x", "tool_id": "nope.tool", "success": True}
    bad_menu = {**flat, "menu": ["github.list_commits", "ghost.tool"]}
    no_success = {"subgoal": "x", "tool_id": "github.list_commits"}
    bad_step = {"request_id": "r2", "steps": [{"subgoal": "x", "tool_id": "x.y", "success": "yes"}]}
    path = write_lines(
        tmp_path / "t.jsonl", [flat, request, unknown, bad_menu, no_success, bad_step]
    )
    known = [c["tool_id"] for c in good_cards()]
    result = load_traces(path, known_tools=known)

    assert [(e.line, e.field) for e in result.errors] == [
        (3, "tool_id"),
        (4, "menu"),
        (5, "success"),
        (6, "steps[0].success"),
    ]
    assert [t.tool_id for t in result.items] == [
        "github.list_commits",
        "github.list_commits",
        "slack.post_message",
    ]
    assert result.items[1].request_id == "r1" and result.items[1].context == {
        "connections": ["github"]
    }


def test_a_traces_directory_loads_every_jsonl_file_in_name_order(tmp_path):
    """Gateways writing one file per process (`serve --traces DIR`): the directory reads
    whole, name order, each bad line named by its own file and quarantined once."""
    traces = tmp_path / "traces"
    traces.mkdir()
    event = {"subgoal": "x", "tool_id": "github.list_commits", "success": True}
    write_lines(traces / "b-2.jsonl", [{**event, "request_id": "b1"}, "{torn"])
    write_lines(traces / "a-1.jsonl", [{**event, "request_id": "a1"},
                                       {**event, "tool_id": "ghost.tool"}])
    (traces / "notes.txt").write_text("not traces\n")  # only *.jsonl are read
    quarantine = tmp_path / "q.jsonl"
    known = [c["tool_id"] for c in good_cards()]
    result = load_traces(traces, known_tools=known, quarantine=quarantine)

    assert [t.request_id for t in result.items] == ["a1", "b1"]
    assert result.n_lines == 4 and result.n_skipped == 2
    assert [(Path(e.path).name, e.line, e.field) for e in result.errors] == [
        ("a-1.jsonl", 2, "tool_id"), ("b-2.jsonl", 2, "<json>")]
    quarantined = [json.loads(x) for x in quarantine.read_text().splitlines()]
    assert [(Path(q["path"]).name, q["line"]) for q in quarantined] == [
        ("a-1.jsonl", 2), ("b-2.jsonl", 2)]
    with pytest.raises(InputError, match="b-2.jsonl:2"):
        load_traces(traces, strict=True)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match=r"empty:0: <file>: a directory without \*\.jsonl"):
        load_traces(empty)


def test_trace_round_trip():
    trace = Trace(
        "list commits", "github.list_commits", True, "r", "req", "t", ("a.b",), {"env": "p"}
    )
    assert traces_from_record(trace.to_dict()) == [trace]


def test_queries_validate_gold_and_subgoals(tmp_path):
    ok = {
        "query_id": "q1",
        "query": "list commits",
        "gold": ["github.list_commits"],
        "subgoals": [{"text": "list commits", "gold": ["github.list_commits"]}],
        "slices": ["single"],
    }
    none = {"query_id": "q2", "query": "book a flight", "gold": []}
    dup = {**ok}
    unknown = {"query_id": "q3", "query": "x", "gold": ["ghost.tool"]}
    bad_sub = {"query_id": "q4", "query": "x", "gold": [], "subgoals": [{"gold": []}]}
    no_gold = {"query_id": "q5", "query": "x"}
    path = write_lines(tmp_path / "q.jsonl", [ok, none, dup, unknown, bad_sub, no_gold])
    result = load_queries(path, known_tools=[c["tool_id"] for c in good_cards()])
    assert [(e.line, e.field) for e in result.errors] == [
        (3, "query_id"),
        (4, "gold"),
        (5, "subgoals[0].text"),
        (6, "gold"),
    ]
    assert [q.query_id for q in result.items] == ["q1", "q2"]
    assert result.items[1].gold == ()
    assert LabeledQuery.from_dict(result.items[0].to_dict()) == result.items[0]


def test_manifest_round_trip_and_errors():
    manifest = BundleManifest(
        1, "b-abc", "2026-11-30T00:00:00Z", "deadbeef", {"cards.jsonl": "0" * 64}
    )
    assert BundleManifest.from_dict(manifest.to_dict()) == manifest
    with pytest.raises(ValueError, match="format_version"):
        BundleManifest.from_dict({**manifest.to_dict(), "format_version": "1"})
    with pytest.raises(ValueError, match="files"):
        BundleManifest.from_dict({**manifest.to_dict(), "files": {"a": 1}})


@pytest.mark.parametrize("schema, valid", [
    ({"type": "object", "properties": {"a": {"type": "string"}}}, True),
    ({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}},
     True),  # Draft 7 only: items as a list
    ({"type": "object", "$defs": {"x": {"type": "string"}},
      "properties": {"a": {"$ref": "#/$defs/x"}}}, True),
    ({"type": "object", "properties": {"a": {"type": "strang"}}}, False),
    # the format check of either meta-schema: no regular expression
    ({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}, False),
])
def test_a_schema_is_valid_under_either_draft(schema, valid):
    from serving.model.fields import FieldError, check_json_schema

    if valid:
        check_json_schema(schema)
    else:
        with pytest.raises(FieldError, match="input_schema: invalid JSON Schema"):
            check_json_schema(schema)

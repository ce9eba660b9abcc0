"""Inputs that used to widen what an agent may do must be errors (or stay restricted)."""

import json
from pathlib import Path

import pytest

from serving.model.io import InputError, load_catalog, load_queries, load_traces
from serving.model.schema import FieldError, ToolCard, Trace
from serving.model.selection import SessionContext

FIXTURES = Path(__file__).parent / "fixtures"
BASE = json.loads((FIXTURES / "catalog.jsonl").read_text().splitlines()[0])


def card_error(**changes) -> str:
    data = {**BASE, **changes}
    data = {k: v for k, v in data.items() if v is not ...}  # `...` removes a key
    with pytest.raises(FieldError) as err:
        ToolCard.from_dict(data)
    return err.value.field


def test_a_card_without_risk_is_an_error_not_read_only():
    assert card_error(risk=...) == "risk"
    assert card_error(risk=None) == "risk"


@pytest.mark.parametrize("falsy", [0, False, "", {}])
@pytest.mark.parametrize("key", ["capabilities", "env", "examples", "prefer_over", "not_for"])
def test_falsy_values_of_the_wrong_type_are_errors(key, falsy):
    assert card_error(**{key: falsy}) == key


@pytest.mark.parametrize("falsy", [0, False, "", {}])
def test_falsy_scopes_and_requires_are_errors(falsy):
    assert card_error(requires={"connection": "github", "scopes": falsy}) == "requires.scopes"
    assert card_error(requires=falsy).startswith("requires")


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"cost": float("nan")}, "cost"),
        ({"cost": float("inf")}, "cost"),
        ({"cost": -0.5}, "cost"),
        ({"cost": 2e6}, "cost"),  # above MAX_COST: a typo, not a price
        ({"p50_ms": 1e12}, "p50_ms"),
        ({"input_schema": {"type": "object", "maximum": float("nan")}}, "input_schema.maximum"),
        (
            {"input_schema": {"type": "object", "properties": {"n": {"minimum": float("-inf")}}}},
            "input_schema.properties.n.minimum",
        ),
    ],
)
def test_non_finite_and_out_of_range_numbers_are_errors(changes, field):
    assert card_error(**changes) == field


def test_nan_and_infinity_literals_in_a_jsonl_line_are_line_errors(tmp_path):
    good = json.dumps(BASE)
    lines = [
        good.replace('"cost": 0.0', '"cost": NaN'),
        good.replace('"cost": 0.0', '"cost": Infinity'),
        good.replace('"cost": 0.0', '"cost": 1e999'),
        json.dumps({**BASE, "tool_id": "github.ok", "name": "ok"}),
    ]
    assert '"cost": 0.0' in good
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = load_catalog(path)
    assert [c.tool_id for c in result.items] == ["github.ok"]
    assert [(e.line, e.field) for e in result.errors] == [(n, "<json>") for n in (1, 2, 3)]


@pytest.mark.parametrize(
    "context", [{"connections": "slack"}, {"connections": 0}, {"scopes": False}, {"env": 3},
                {"connections": None}, "prod", []]
)
def test_trace_and_query_contexts_of_the_wrong_shape_are_errors(context):
    with pytest.raises(FieldError) as err:
        Trace.from_dict({"subgoal": "x", "tool_id": "a.b", "success": True, "context": context})
    assert err.value.field.startswith("context")


def test_an_unrestricted_session_round_trips_as_unrestricted():
    open_ctx = SessionContext.from_dict({"env": "staging"})
    back = SessionContext.from_dict(open_ctx.to_dict())
    assert not back.restrict_connections and not back.restrict_scopes
    assert open_ctx.to_dict() == {"env": "staging"}
    # and a session holding no connection stays one: nothing is callable
    closed = SessionContext.from_dict({"connections": [], "scopes": ["a:read"]})
    again = SessionContext.from_dict(closed.to_dict())
    assert again.restrict_connections and again.connections == frozenset()
    assert again.restrict_scopes and again.scopes == frozenset({"a:read"})
    assert not again.restrict_tools and "tools" not in closed.to_dict()
    # a tool list: kept as given, an empty one offers nothing
    offered = SessionContext.from_dict({"tools": ["b.y", "a.x"]})
    assert offered.to_dict() == {"tools": ["a.x", "b.y"], "env": "prod"}
    assert SessionContext.from_dict(offered.to_dict()) == offered
    none = SessionContext.from_dict({"tools": []})
    assert none.restrict_tools and none.tools == frozenset()
    # through a trace line too: what the mine stage replays
    trace = Trace.from_dict(
        {"subgoal": "x", "tool_id": "a.b", "success": True, "context": open_ctx.to_dict()}
    )
    assert not SessionContext.from_dict(trace.context).restrict_connections


@pytest.mark.parametrize(
    "context, argument",
    [({"connections": "slack"}, "context.connections"), ("prod", "context"),
     ({"env": ["prod"]}, "context.env"), ({"tools": "a.x"}, "context.tools")],
)
def test_session_context_rejects_wrong_shapes_with_a_type_error(context, argument):
    with pytest.raises(TypeError, match=argument):
        SessionContext.from_dict(context)


# --- loaders: one bad line costs one line --------------------------------------------------


def test_an_invalid_utf8_byte_quarantines_its_line_only(tmp_path):
    good = [json.dumps({**BASE, "tool_id": f"github.t{i}", "name": f"t{i}"}) for i in range(3)]
    bad = json.dumps({**BASE, "tool_id": "github.bad", "name": "bad"}).encode().replace(
        b"List recent", b"List \xff recent"
    )
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"\n".join([good[0].encode(), bad, good[1].encode(), good[2].encode()]))
    quarantine = tmp_path / "q.jsonl"
    result = load_catalog(path, quarantine=quarantine)
    assert [c.tool_id for c in result.items] == ["github.t0", "github.t1", "github.t2"]
    assert [(e.line, e.field) for e in result.errors] == [(2, "<utf-8>")]
    assert "0xff" in result.errors[0].problem
    (rec,) = [json.loads(x) for x in quarantine.read_text(encoding="utf-8").splitlines()]
    assert rec["line"] == 2 and "\ufffd" in rec["raw"]


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(BASE).encode() + b"\r\n")
    assert [c.tool_id for c in load_catalog(path, strict=True).items] == [BASE["tool_id"]]


def test_deep_nesting_is_a_line_error_not_a_recursion_error(tmp_path):
    deep_json = "[" * 100_000 + "]" * 100_000
    deep_schema = {"type": "object"}
    for _ in range(40):
        deep_schema = {"type": "object", "properties": {"x": deep_schema}}
    lines = [
        json.dumps({"query_id": "q1", "query": "x", "gold": [], "context": {"a": 1}})[:-1]
        + ', "x": ' + deep_json + "}",
        json.dumps({"query_id": "q2", "query": "y", "gold": []}),
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = load_queries(path)
    assert [q.query_id for q in result.items] == ["q2"]
    assert "nested deeper" in result.errors[0].problem
    assert card_error(input_schema=deep_schema).startswith("input_schema")


def test_lone_surrogates_are_line_errors(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"subgoal": "x\\ud800", "tool_id": "a.b", "success": true}\n')
    result = load_traces(path)
    assert not result.items and "surrogate" in result.errors[0].problem


def test_a_directory_or_unreadable_path_is_a_clean_input_error(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        load_catalog(tmp_path)
    locked = tmp_path / "locked.jsonl"
    locked.write_text("{}\n")
    locked.chmod(0)
    try:
        if locked.open("rb"):  # root reads anything: nothing to check then
            pytest.skip("running as root")
    except PermissionError:
        with pytest.raises(InputError, match="cannot read"):
            load_catalog(locked)
    finally:
        locked.chmod(0o600)

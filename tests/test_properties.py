"""Property-based checks (Hypothesis) over the loaders, the records, the gate and the CLI.

For arbitrary lines and arguments the result is accepted or a clean error (a line error,
`FieldError`, `TypeError`, exit code 2 with one `toolsift: error:` line), never another
exception; and every valid line of the input is in the output. Examples are bounded in
`make test` and many more in `make test-all` (profiles in conftest.py).
"""

import contextlib
import io
import json
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from serving.calls.gate import ActiveSet, gate  # noqa: E402
from serving.cli import main  # noqa: E402
from serving.model.io import load_catalog, load_queries, load_traces, parse_json_line  # noqa: E402
from serving.model.schema import FieldError, LabeledQuery, ToolCard, Trace  # noqa: E402
from serving.model.selection import SessionContext  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
CARD_LINES = (FIXTURES / "catalog.jsonl").read_text().splitlines()
BASE = json.loads(CARD_LINES[0])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12,
)
# a line: raw bytes, text, a JSON value, or a valid card with one field replaced
junk_lines = st.one_of(
    st.binary(max_size=60),
    st.text(max_size=60).map(lambda t: t.encode("utf-8", "surrogatepass")),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.tuples(st.sampled_from(sorted(BASE)), json_values).map(
        lambda kv: json.dumps({**BASE, "tool_id": "github.mutant", "name": "mutant",
                               kv[0]: kv[1]}).encode()
    ),
).map(lambda b: b.replace(b"\n", b" "))


def _mixed_file(tmp_path: Path, junk: list[bytes], valid: list[str], name: str) -> Path:
    lines: list[bytes] = []
    for i, line in enumerate(junk):
        lines.append(line)
        if i < len(valid):
            lines.append(valid[i].encode())
    lines += [v.encode() for v in valid[len(junk):]]
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@given(junk=st.lists(junk_lines, max_size=8), n_valid=st.integers(0, 5), bom=st.booleans())
def test_catalog_loader_keeps_every_valid_line_and_never_raises(tmp_path_factory, junk,
                                                                 n_valid, bom):
    tmp = tmp_path_factory.mktemp("cat")
    valid = CARD_LINES[:n_valid]
    path = _mixed_file(tmp, junk, valid, "catalog.jsonl")
    if bom:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    result = load_catalog(path, quarantine=tmp / "q.jsonl")
    ids = [c.tool_id for c in result.items]
    for line in valid:
        assert json.loads(line)["tool_id"] in ids
    assert len(result.items) + len(result.errors) == result.n_lines


@given(junk=st.lists(junk_lines, max_size=8))
def test_trace_and_query_loaders_never_raise(tmp_path_factory, junk):
    tmp = tmp_path_factory.mktemp("tq")
    trace = json.dumps({"subgoal": "s", "tool_id": "a.b", "success": True})
    query = json.dumps({"query_id": "q-valid", "query": "x", "gold": []})
    traces = load_traces(_mixed_file(tmp, junk, [trace], "t.jsonl"))
    assert any(t.tool_id == "a.b" and t.subgoal == "s" for t in traces.items)
    queries = load_queries(_mixed_file(tmp, junk, [query], "q.jsonl"))
    assert "q-valid" in [q.query_id for q in queries.items]


@given(value=json_values)
def test_records_from_any_json_are_built_or_a_field_error(value):
    for build in (ToolCard.from_dict, Trace.from_dict, LabeledQuery.from_dict):
        with contextlib.suppress(FieldError):
            build(value)


@given(key=st.sampled_from(sorted(BASE)), value=json_values)
def test_a_card_with_any_field_replaced_is_a_card_or_a_field_error(key, value):
    try:
        card = ToolCard.from_dict({**BASE, key: value})
    except FieldError as err:
        assert err.field.split(".")[0].split("[")[0] in (key, "<record>", "tool_id")
    else:
        assert ToolCard.from_dict(card.to_dict()) == card  # what loads, round-trips


@given(raw=st.binary(max_size=80))
def test_parse_json_line_returns_a_value_or_a_field_error(raw):
    with contextlib.suppress(FieldError):
        parse_json_line(raw)


@given(value=json_values)
def test_session_context_is_built_or_a_type_error(value):
    with contextlib.suppress(TypeError):
        SessionContext.from_dict(value)


@given(tool_id=json_values)
def test_the_gate_answers_any_tool_id(tool_id):
    result = gate(tool_id, ActiveSet.of(["a.b"]))
    assert result.allowed == (tool_id == "a.b")
    json.dumps(result.error)  # the refusal is JSON-ready for the model


ARG_TOKENS = st.sampled_from(
    ["check", "catalog", "traces", "queries", "lint", "--no-embed", "--json", "bundle",
     "verify", "inspect", "describe", "import", "--server", "--out", "--format", "--strict",
     "--bundle", "--bundle-version", "--catalog", "--quarantine", "--help", "x.y", "-v",
     "{file}", "{dir}", "{missing}", "{out}"]
)
argv_lists = st.lists(ARG_TOKENS | st.text(max_size=12), max_size=6)


@given(argv=argv_lists, content=junk_lines)
def test_the_cli_exits_0_1_or_2_with_at_most_one_error_line(tmp_path_factory, argv, content):
    tmp = tmp_path_factory.mktemp("cli")
    (tmp / "f.jsonl").write_bytes(content + b"\n")
    paths = {"{file}": tmp / "f.jsonl", "{dir}": tmp, "{missing}": tmp / "nope",
             "{out}": tmp / "out.jsonl"}
    args = [str(paths.get(a, a)) for a in argv]
    if "lint" in args:
        args.append("--no-embed")  # the encoder is not what is under test here (and slow)
    if args[:1] == ["import"] and "--server" not in args:
        args += ["--server", "s", "--out", str(tmp / "o.jsonl")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    assert code in (0, 1, 2), (args, err.getvalue())
    assert "Traceback" not in err.getvalue()
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("toolsift: error: ")]
    assert len(errors) <= 1
    if code == 2 and "Usage:" not in err.getvalue() + out.getvalue():  # help is not an error
        assert len(errors) == 1, (args, err.getvalue())

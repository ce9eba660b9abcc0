"""The benchmark converter: the StableToolBench shape on a 10-tool / 6-query excerpt (and on
the real benchmark), the other conventions of the neutral shape, every bad-input error,
and both splits."""

import json
import logging
from pathlib import Path

import pytest

from serving.model.io import load_catalog, load_queries, load_traces
from serving.model.schema import TOOL_ID_RE
from training.benchmarks.convert import Params, main, split_queries
from training.benchmarks.reading import BenchmarkQuery

BENCH = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "stabletoolbench"


def _tool(tool: str, name: str, category: str, description: str = "", parameters=None, api=""):
    return {
        "tool_id": f"{tool}.{api or name}",
        "name": name,
        "description": description,
        "parameters": {} if parameters is None else parameters,
        "source": f"{category}/{tool}",
    }


CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
# The benchmark's shapes: dots, pipes and emoji in tool names, `#n` variants of one name,
# paths as api names, empty descriptions and parameters, one mutating and one deleting api.
TOOLS = [
    _tool("Kick.com API | Kick API", "Get Channel Clips", "Media", "Clips of a channel.", CITY),
    _tool("Kick.com API | Kick API", "Get Channel Details", "Media", "Channel details."),
    _tool("👋 Demo Project", "Get Order", "Sports", "Get an order by id.", api="Get Order#1"),
    _tool("👋 Demo Project", "Get Order", "Media", "Fetch one order.", api="Get Order#2"),
    _tool("Weather API", "/weather/{city}", "Weather", "", CITY),
    _tool("Weather API", "Forecast", "Weather", "Seven-day forecast. Hourly too.", CITY),
    _tool("Users", "Create User", "Data", "Creates a user account."),
    _tool("Users", "Remove Item", "Data", "Removes an item."),
    _tool("QR Code Generator", "Generate QR", "Tools", "Generates a QR code."),
    _tool("QrCodeGenerator", "PopularSitesForQuery", "Tools", "Popular sites."),
]


def _query(qid: str, text: str, gold: list[str], subset: str = "G1_instruction") -> dict:
    kind = "single" if len(gold) == 1 else "multi"
    return {"query_id": qid, "query": text, "gold": gold, "kind": kind, "subset": subset}


QUERIES = [
    _query(
        "G1_instruction/1",
        "Show me clips and details of gmhikaru.",
        [
            "Kick.com API | Kick API.Get Channel Clips",
            "Kick.com API | Kick API.Get Channel Details",
        ],
    ),
    _query(
        "G1_instruction/2",
        "Weather in Paris now and this week?",
        ["Weather API./weather/{city}", "Weather API.Forecast"],
    ),
    _query("G1_tool/3", "Order 42 please.", ["👋 Demo Project.Get Order#2"], "G1_tool"),
    _query(
        "G2_category/4",
        "Make a user and a QR code.",
        ["Users.Create User", "QR Code Generator.Generate QR"],
        "G2_category",
    ),
    # the same request under another id: both must land on the same side of the split
    _query(
        "G3_instruction/5",
        "Make a user  and a QR code.",
        ["Users.Create User", "QR Code Generator.Generate QR"],
        "G3_instruction",
    ),
    _query(
        "G1_category/6",
        "Popular sites for 'birthday party'",
        ["QrCodeGenerator.PopularSitesForQuery"],
        "G1_category",
    ),
]


def _write_bench(root: Path, tools=TOOLS, queries=QUERIES) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in (("catalog.jsonl", tools), ("queries.jsonl", queries)):
        (root / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return root


def _write_params(path: Path, seed: int = 3, train_share: float = 0.5) -> Path:
    path.write_text(
        f"benchmark:\n  seed: {seed}\n  train_share: {train_share}\n  added_at: '2024-01-01'\n"
    )
    return path


def _convert(tmp_path: Path, **params) -> Path:
    bench = _write_bench(tmp_path / "bench")
    out = tmp_path / "out"
    main(
        [
            str(_write_params(tmp_path / "params.yaml", **params)),
            str(bench),
            str(out),
            "--metrics",
            str(tmp_path / "metrics.json"),
        ]
    )
    return out


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_cards_ids_and_schemas(tmp_path):
    out = _convert(tmp_path)
    catalog = load_catalog(out / "catalog.jsonl", strict=True)
    cards = {c.tool_id: c for c in catalog.items}
    id_map = {r["benchmark_id"]: r["tool_id"] for r in _jsonl(out / "id_map.jsonl")}
    assert len(cards) == len(TOOLS) == len(id_map) and set(id_map.values()) == set(cards)
    assert all(TOOL_ID_RE.match(t) for t in cards)
    assert (
        id_map["Kick.com API | Kick API.Get Channel Clips"]
        == "kick_com_api_kick_api.get_channel_clips"
    )
    assert id_map["👋 Demo Project.Get Order#1"] == "demo_project.get_order_1"
    assert id_map["Weather API./weather/{city}"] == "weather_api.weather_city"
    assert (
        id_map["QrCodeGenerator.PopularSitesForQuery"]
        == "qr_code_generator_2.popular_sites_for_query"
    )
    assert id_map["QR Code Generator.Generate QR"] == "qr_code_generator.generate_qr"
    clips = cards["kick_com_api_kick_api.get_channel_clips"]
    assert (clips.server, clips.domain, clips.name) == (
        "kick_com_api_kick_api",
        "media",
        "Get Channel Clips",
    )
    assert clips.requires.connection == clips.server and clips.requires.scopes == ()
    assert clips.trust == "third_party" and clips.env == () and clips.added_at == "2024-01-01"
    assert clips.input_schema == CITY and clips.description == "Clips of a channel."
    assert {"summary", "risk"} <= set(clips.derived)
    # variants keep the api name and their own domain; no description -> summary from the name
    assert cards["demo_project.get_order_2"].name == "Get Order"
    assert cards["demo_project.get_order_2"].domain == "media"
    assert cards["weather_api.weather_city"].summary.lower() == "weather city"
    assert cards["weather_api.forecast"].summary == "Seven-day forecast"
    # `{}` parameters become an object schema, and the card says so
    details = cards["kick_com_api_kick_api.get_channel_details"]
    assert details.input_schema == {"type": "object", "properties": {}}
    assert "input_schema" in details.derived
    risks = {t: c.risk for t, c in cards.items()}
    assert risks["users.create_user"] == "write"
    assert risks["users.remove_item"] == "destructive"
    assert risks["weather_api.forecast"] == "read_only"  # no verb: read-only, not fail-closed
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["n_cards"] == 10 and metrics["schema_fixes"] == {"empty_to_object": 7}
    assert metrics["n_slug_clashes"] == {"server": 1, "tool": 0}


def test_split_traces_and_eval(tmp_path):
    out = _convert(tmp_path, seed=3, train_share=0.5)
    catalog = load_catalog(out / "catalog.jsonl", strict=True)
    known = [c.tool_id for c in catalog.items]
    traces = load_traces(out / "traces.jsonl", known_tools=known)
    queries = load_queries(out / "eval.jsonl", known_tools=known)
    assert traces.errors == [] and queries.errors == []
    id_map = {r["benchmark_id"]: r["tool_id"] for r in _jsonl(out / "id_map.jsonl")}
    by_id = {q["query_id"]: q for q in QUERIES}
    train_ids = {t.request_id for t in traces.items}
    eval_ids = {q.query_id for q in queries.items}
    assert train_ids | eval_ids == set(by_id) and not train_ids & eval_ids
    assert train_ids and eval_ids  # seed 3 puts queries on both sides
    # the two ids with one text travel together
    assert ("G2_category/4" in train_ids) == ("G3_instruction/5" in train_ids)
    for t in traces.items:
        q = by_id[t.request_id]
        assert t.subgoal == t.request == q["query"] and t.success and t.menu == ()
        assert t.context == {}
    for rid in train_ids:
        assert sorted(t.tool_id for t in traces.items if t.request_id == rid) == sorted(
            id_map[g] for g in by_id[rid]["gold"]
        )
    for q in queries.items:
        raw = by_id[q.query_id]
        assert q.gold == tuple(id_map[g] for g in raw["gold"]) and q.subgoals == ()
        assert q.slices == ("single" if raw["kind"] == "single" else "multi_subgoal", raw["subset"])
        assert q.context == {}


def test_split_is_seeded_and_follows_the_share():
    queries = [BenchmarkQuery.from_dict(q) for q in QUERIES]
    first = split_queries(queries, seed=3, train_share=0.5)
    again = split_queries(list(reversed(queries)), seed=3, train_share=0.5)
    assert again.train == list(reversed(first.train))
    none = split_queries(queries, seed=3, train_share=0.0)
    assert (none.train, none.eval) == ([], queries)
    every = split_queries(queries, seed=3, train_share=1.0)
    assert (every.train, every.eval) == (queries, [])


def test_a_seeded_sample_of_the_queries(tmp_path):
    from training.evaluation.scoring import sample_queries

    queries = [BenchmarkQuery.from_dict(q) for q in QUERIES]
    three = sample_queries(queries, 3, 5)
    assert len(three) == 3 and three == sample_queries(queries, 3, 5)
    assert [queries.index(q) for q in three] == sorted(queries.index(q) for q in three)
    assert sample_queries(queries, 0, 5) == sample_queries(queries, 99, 5) == queries
    bench = _write_bench(tmp_path / "bench")
    main([str(_write_params(tmp_path / "params.yaml")), str(bench), str(tmp_path / "out"),
          "--max-queries", "3", "--metrics", str(tmp_path / "metrics.json")])
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert (metrics["n_queries_read"], metrics["n_queries_sampled"]) == (len(QUERIES), 3)
    assert metrics["n_train_queries"] + metrics["n_eval_queries"] <= 3
    # --gold-only: a request no tool serves is left out, and counted
    with_empty = _write_bench(tmp_path / "bench2", queries=[
        *QUERIES, {**_query("none/1", "What is the meaning of life?", []), "kind": "no_tool"}])
    main([str(_write_params(tmp_path / "params.yaml")), str(with_empty), str(tmp_path / "gold"),
          "--gold-only", "--metrics", str(tmp_path / "gold.json")])
    gold = json.loads((tmp_path / "gold.json").read_text())
    assert gold["n_queries_without_gold_left_out"] == 1
    assert gold["n_queries_sampled"] == len(QUERIES)


def test_params_are_strict(tmp_path):
    from training.core.params import ParamsError, params_from_mapping

    with pytest.raises(ParamsError, match="unknown keys"):
        params_from_mapping(
            Params, {"seed": 1, "train_share": 0.5, "added_at": "2024-01-01", "x": 1}, "benchmark"
        )
    with pytest.raises(ParamsError, match="train_share"):
        params_from_mapping(
            Params, {"seed": 1, "train_share": 1.5, "added_at": "2024-01-01"}, "benchmark"
        )


@pytest.mark.skipif(not BENCH.is_dir(), reason="the StableToolBench files are not here")
@pytest.mark.parametrize("split", ["random", "category"])
def test_real_benchmark_counts(tmp_path, split):
    out = tmp_path / "stb"
    code = main(
        [
            str(_write_params(tmp_path / "params.yaml", seed=11)),
            str(BENCH),
            str(out),
            "--metrics",
            str(tmp_path / "metrics.json"),
            "--split",
            split,
        ]
    )
    assert code == 0
    catalog = load_catalog(out / "catalog.jsonl")
    assert catalog.errors == [] and len(catalog.items) == 2490
    known = [c.tool_id for c in catalog.items]
    traces = load_traces(out / "traces.jsonl", known_tools=known)
    queries = load_queries(out / "eval.jsonl", known_tools=known)
    assert traces.errors == [] and queries.errors == []
    n_train = len({t.request_id for t in traces.items})
    assert n_train + len(queries.items) == 765
    assert 0.3 < len(queries.items) / 765 < 0.6
    train_texts = {t.request for t in traces.items}
    assert not train_texts & {q.query for q in queries.items}
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["errors"] == {"catalog": 0, "queries": 0}
    assert (metrics["n_train_queries"], metrics["n_eval_queries"]) == (
        n_train,
        len(queries.items),
    )
    if split == "category":
        domain = {c.tool_id: c.domain for c in catalog.items}
        assert not {domain[t.tool_id] for t in traces.items} & set(metrics["eval_categories"])


# --- the other conventions of the neutral shape ---------------------------------------------

# ids without a server part, sources without a category (or none), `#k` in the name itself,
# an id with a server part and a plain-domain source
OTHER_TOOLS = [
    {"tool_id": "get_weather", "name": "get_weather", "description": "Weather for a city.",
     "parameters": CITY, "source": "weather"},
    {"tool_id": "send_mail", "name": "send_mail", "description": "Send an email.",
     "parameters": None, "source": ""},
    {"tool_id": "lookup", "name": "lookup", "description": "Look a word up."},
    {"tool_id": "github.create_issue", "name": "create_issue", "description": "Open an issue.",
     "parameters": {}, "source": "dev"},
    {"tool_id": "get_order#1", "name": "get_order#1", "description": "An order by id.",
     "source": "shop"},
    {"tool_id": "get_order#2", "name": "get_order#2", "description": "An order by number.",
     "source": "shop"},
]
OTHER_QUERIES = [
    {"query_id": "q1", "query": "Weather in Oslo?", "gold": ["get_weather"], "kind": "simple",
     "subset": "live", "tags": ["geo", "easy"], "meta": {"source": "x"}},
    {"query_id": "q2", "query": "Weather, mail it, open an issue.", "kind": "parallel",
     "gold": ["get_weather", "send_mail", "github.create_issue", "get_weather"]},
    {"query_id": "q3", "query": "Book me a flight to Rome.", "gold": [], "kind": "no_tool"},
    {"query_id": "q4", "query": "Order 7 please.", "gold": ["get_order#2"]},
    {"query_id": "q5", "query": "What is a lemma?", "gold": ["lookup"], "answer": "x" * 200},
]


def _run(tmp_path: Path, tools, queries, *extra: str, train_share: float = 0.5, seed: int = 3):
    bench = _write_bench(tmp_path / "bench", tools, queries)
    out = tmp_path / "out"
    params = _write_params(tmp_path / "params.yaml", seed=seed, train_share=train_share)
    metrics = tmp_path / "metrics.json"
    code = main([str(params), str(bench), str(out), "--metrics", str(metrics), *extra])
    return code, bench, out, metrics


def test_ids_without_server_and_sources_without_category(tmp_path):
    code, _, out, _ = _run(tmp_path, OTHER_TOOLS, OTHER_QUERIES, train_share=0.0)
    assert code == 0
    cards = {c.tool_id: c for c in load_catalog(out / "catalog.jsonl", strict=True).items}
    id_map = {r["benchmark_id"]: r["tool_id"] for r in _jsonl(out / "id_map.jsonl")}
    assert id_map == {
        "get_weather": "weather.get_weather",  # no `.`: the server is the plain source
        "send_mail": "general.send_mail",  # empty source: `general`
        "lookup": "general.lookup",  # no source at all
        "github.create_issue": "github.create_issue",  # the id's server, the source's domain
        "get_order#1": "shop.get_order_1",
        "get_order#2": "shop.get_order_2",
    }
    assert [(c.server, c.domain) for c in cards.values()] == [
        ("weather", "weather"),
        ("general", "general"),
        ("general", "general"),
        ("github", "dev"),
        ("shop", "shop"),
        ("shop", "shop"),
    ]
    # the variant mark leaves the name; null or `{}` parameters become an object schema
    assert cards["shop.get_order_2"].name == "get_order"
    assert cards["general.send_mail"].input_schema == {"type": "object", "properties": {}}
    assert cards["general.send_mail"].risk == "write"


def test_gold_of_any_length_no_tool_queries_and_slices(tmp_path):
    code, _, out, metrics_path = _run(tmp_path, OTHER_TOOLS, OTHER_QUERIES, train_share=0.0)
    assert code == 0 and _jsonl(out / "traces.jsonl") == []
    queries = {q["query_id"]: q for q in _jsonl(out / "eval.jsonl")}
    assert queries["q1"]["slices"] == ["single", "simple", "live", "geo", "easy"]
    # a repeated gold id counts once; an unknown kind is a slice
    assert queries["q2"]["gold"] == ["weather.get_weather", "general.send_mail",
                                     "github.create_issue"]
    assert queries["q2"]["slices"] == ["multi_subgoal", "parallel"]
    assert queries["q3"]["gold"] == [] and queries["q3"]["slices"] == ["no_tool"]
    assert queries["q4"]["gold"] == ["shop.get_order_2"]
    assert queries["q5"]["slices"] == ["single"]  # a 200-character answer is no slice
    metrics = json.loads(metrics_path.read_text())
    assert metrics["ignored_query_fields"] == {"answer": 1, "meta": 1}
    assert metrics["eval_slices"]["no_tool"] == 1


def test_candidates_are_offered_tools_not_slices_and_served_on_request(tmp_path):
    offered = [
        {"query_id": "c1", "query": "Weather in Oslo?", "gold": ["get_weather"],
         "candidates": ["get_weather", "lookup"], "subset": "live"},
        {"query_id": "c2", "query": "Book me a flight to Rome.", "gold": [],
         "candidates": ["send_mail", "get_order#2"], "subset": "removed"},
    ]
    _, _, out, _ = _run(tmp_path / "a", OTHER_TOOLS, offered, train_share=0.0)
    queries = {q["query_id"]: q for q in _jsonl(out / "eval.jsonl")}
    assert queries["c1"]["slices"] == ["single", "live"]  # the ids are no slice labels
    assert "context" not in queries["c1"] or queries["c1"]["context"] == {}
    code, _, out, _ = _run(tmp_path / "b", OTHER_TOOLS, offered, "--serve-candidates",
                           train_share=0.0)
    assert code == 0
    queries = {q["query_id"]: q for q in _jsonl(out / "eval.jsonl")}
    assert queries["c1"]["context"] == {"tools": ["weather.get_weather", "general.lookup"]}
    assert queries["c2"]["context"] == {"tools": ["general.send_mail", "shop.get_order_2"]}
    assert queries["c2"]["slices"] == ["no_tool", "removed"]
    # a train request's traces are served the same tools
    _, _, out, _ = _run(tmp_path / "c", OTHER_TOOLS, offered, "--serve-candidates",
                        train_share=1.0)
    (trace,) = _jsonl(out / "traces.jsonl")
    assert trace["context"] == {"tools": ["weather.get_weather", "general.lookup"]}


@pytest.mark.parametrize(
    "candidates, problem",
    [(["get_weather", "nope"], "candidates: unknown tools ['nope']"),
     (["lookup"], "gold: a gold tool is not among the request's candidates"),
     ("get_weather", "candidates: expected a list of tool ids")],
)
def test_a_bad_candidate_list_costs_its_line(tmp_path, caplog, candidates, problem):
    bad = [{"query_id": "c1", "query": "Weather in Oslo?", "gold": ["get_weather"],
            "candidates": candidates}, OTHER_QUERIES[3]]
    code, _, out, metrics = _run(tmp_path, OTHER_TOOLS, bad, "--serve-candidates",
                                 train_share=0.0)
    assert code == 0 and problem in caplog.text
    assert [q["query_id"] for q in _jsonl(out / "eval.jsonl")] == ["q4"]
    assert json.loads(metrics.read_text())["errors"] == {"catalog": 0, "queries": 1}


def test_no_tool_queries_never_become_traces(tmp_path):
    code, _, out, _ = _run(tmp_path, OTHER_TOOLS, OTHER_QUERIES, train_share=1.0)
    assert code == 0
    assert {t["request_id"] for t in _jsonl(out / "traces.jsonl")} == {"q1", "q2", "q4", "q5"}
    assert [q["query_id"] for q in _jsonl(out / "eval.jsonl")] == ["q3"]


# --- bad input --------------------------------------------------------------------------------


def _write_lines(path: Path, lines: list[bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def _line(record: dict) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def test_bad_lines_are_reported_skipped_and_quarantined(tmp_path, caplog):
    bench = tmp_path / "bench"
    good = {"tool_id": "a.get_x", "name": "get_x", "description": "", "source": "c/a"}
    _write_lines(
        bench / "catalog.jsonl",
        [
            _line(good),
            b'{"tool_id": "a.get_y", "name": "get_y"',
            _line({"name": "no id", "description": ""}),
            _line({"tool_id": "a.get_z", "name": 3, "description": ""}),
            _line({"tool_id": "a.get_w", "name": "get_w", "description": "", "parameters": []}),
            _line({**good, "description": "again"}),
            b'{"tool_id": "a.caf\xe9", "name": "caf\xe9", "description": ""}',
            b"[1, 2]",
            b"",
            _line({"tool_id": "a.get_v", "name": "get_v", "description": "", "source": 7}),
        ],
    )
    _write_lines(
        bench / "queries.jsonl",
        [
            _line({"query_id": "q1", "query": "Get x.", "gold": ["a.get_x"]}),
            b'{"query_id": "q2", "query": "Get x."',
            _line({"query_id": "q3", "query": "Get y."}),
            _line({"query_id": "q4", "query": "Get y.", "gold": "a.get_y"}),
            _line({"query_id": "q5", "query": "Get y.", "gold": ["a.get_y"]}),
            _line({"query_id": "q1", "query": "Get x again.", "gold": ["a.get_x"]}),
            _line({"query_id": "q6", "query": " ", "gold": []}),
            _line({"query_id": "q7", "query": "Get x.", "gold": ["a.get_x"], "kind": 2}),
            b'{"query_id": "q8", "query": "\xff", "gold": []}',
            _line({"query_id": "q9", "query": "Nothing fits.", "gold": []}),
        ],
    )
    params = _write_params(tmp_path / "params.yaml")
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING, logger="training.benchmarks.convert"):
        code = main([str(params), str(bench), str(out), "--metrics", str(tmp_path / "m.json")])
    assert code == 0
    cat, qs = bench / "catalog.jsonl", bench / "queries.jsonl"
    expected = [
        f"{cat}:2: <json>: invalid JSON: Expecting ',' delimiter at column 39",
        f"{cat}:3: tool_id: missing",
        f"{cat}:4: name: expected a string, got int",
        f"{cat}:5: parameters: expected a JSON Schema object, got list",
        f"{cat}:6: tool_id: duplicate tool id 'a.get_x' (first on line 1)",
        f"{cat}:7: <line>: not UTF-8: byte 0xe9 at offset 18",
        f"{cat}:8: <record>: expected a JSON object",
        f"{cat}:10: source: expected a string, got int",
        f"{qs}:2: <json>: invalid JSON: Expecting ',' delimiter at column 37",
        f"{qs}:3: gold: missing (use [] for a request no tool serves)",
        f"{qs}:4: gold: expected a list of tool ids, got 'a.get_y'",
        # a.get_y was quarantined with its line: the query goes, the run goes on
        f"{qs}:5: gold: unknown tools ['a.get_y'] (not in the catalog)",
        f"{qs}:6: query_id: duplicate query id 'q1' (first on line 1)",
        f"{qs}:7: query: empty",
        f"{qs}:8: kind: expected a string, got int",
        f"{qs}:9: <line>: not UTF-8: byte 0xff at offset 29",
    ]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings[: len(expected)] == expected
    assert len(warnings) == len(expected) + 1  # and one summary line
    assert [c["tool_id"] for c in _jsonl(out / "catalog.jsonl")] == ["a.get_x"]
    # a no-tool request goes to eval or to the train side's no_tool.jsonl, never nowhere
    benchmark_no_tool = [r for r in _jsonl(out / "no_tool.jsonl") if "benchmark" in r["slices"]]
    kept = [*_jsonl(out / "traces.jsonl"), *_jsonl(out / "eval.jsonl"), *benchmark_no_tool]
    assert sorted({r.get("request_id") or r.get("query_id") for r in kept}) == ["q1", "q9"]
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["errors"] == {"catalog": 8, "queries": 8}
    quarantined = _jsonl(tmp_path / "out.catalog.quarantine.jsonl")
    assert [q["error"] for q in quarantined] == expected[:8]
    raw = '{"tool_id": "a.caf\\xe9", "name": "caf\\xe9", "description": ""}'
    assert quarantined[5]["raw"] == raw  # the bad byte stays visible
    assert len(_jsonl(tmp_path / "out.queries.quarantine.jsonl")) == 8
    # a clean rerun leaves no stale quarantine behind
    _write_bench(bench)
    assert main([str(params), str(bench), str(out)]) == 0
    assert not (tmp_path / "out.catalog.quarantine.jsonl").exists()


@pytest.mark.parametrize(
    "catalog_lines, problem",
    [
        ([b'{"tool_id": 1}', b"not json"], "no valid tool line (2 bad), nothing to convert"),
        ([], "no valid tool line (0 bad), nothing to convert"),
        (None, "No such file or directory"),
    ],
)
def test_a_catalog_without_valid_tools_exits_2(tmp_path, caplog, capsys, catalog_lines, problem):
    bench = tmp_path / "bench"
    _write_lines(bench / "queries.jsonl", [_line(QUERIES[0])])
    if catalog_lines is not None:
        _write_lines(bench / "catalog.jsonl", catalog_lines)
    params = _write_params(tmp_path / "params.yaml")
    with caplog.at_level(logging.ERROR, logger="training.benchmarks.convert"):
        code = main([str(params), str(bench), str(tmp_path / "out")])
    assert code == 2 and not (tmp_path / "out").exists()
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "\n" not in errors[0]
    assert errors[0].startswith(f"error: {bench / 'catalog.jsonl'}")
    assert errors[0].endswith(problem)


# --- the category split ---------------------------------------------------------------------


def _category_bench() -> tuple[list[dict], list[dict]]:
    """Six categories of two tools each; single-category queries plus two that span two."""
    cats = ["books", "cars", "food", "games", "music", "sport"]
    tools = [_tool(f"{c} api", f"get {c} {i}", c, f"{c} {i}.") for c in cats for i in (1, 2)]
    queries = [
        _query(f"{c}/{i}", f"Tell me about {c} {i}.", [f"{c} api.get {c} {i}"])
        for c in cats
        for i in (1, 2)
    ]
    queries += [
        _query("mixed/1", "Books and cars.", ["books api.get books 1", "cars api.get cars 2"]),
        _query("mixed/2", "Food and games.", ["food api.get food 1", "games api.get games 1"]),
    ]
    return tools, queries


def test_category_split_keeps_eval_categories_out_of_training(tmp_path):
    tools, queries = _category_bench()
    code, _, out, metrics_path = _run(tmp_path, tools, queries, "--split", "category", seed=1)
    assert code == 0
    metrics = json.loads(metrics_path.read_text())
    train_cats, eval_cats = set(metrics["train_categories"]), set(metrics["eval_categories"])
    assert train_cats and eval_cats  # seed 1 puts categories on both sides
    assert train_cats | eval_cats == {"books", "cars", "food", "games", "music", "sport"}
    assert not train_cats & eval_cats
    domain = {c.tool_id: c.domain for c in load_catalog(out / "catalog.jsonl").items}
    traces, evals = _jsonl(out / "traces.jsonl"), _jsonl(out / "eval.jsonl")
    assert {domain[t["tool_id"]] for t in traces} <= train_cats  # eval categories: no traces
    for q in evals:  # an eval query has at least one gold tool in an eval category
        assert {domain[g] for g in q["gold"]} & eval_cats
    for q in queries:  # a query trains exactly when all its categories do
        in_train = any(t["request_id"] == q["query_id"] for t in traces)
        cats = {g.split(" api.")[0] for g in q["gold"]}
        assert in_train == (cats <= train_cats)
    assert metrics["n_train_queries"] + metrics["n_eval_queries"] == len(queries)
    assert metrics["n_train_categories"] == len(train_cats)
    # a mixed eval query's train-category tool is traced by its one-category query; the
    # tools of eval categories are not
    eval_gold = {g for q in evals for g in q["gold"]}
    assert metrics["n_eval_gold_tools"] == len(eval_gold)
    assert metrics["n_eval_gold_tools_untraced"] == sum(domain[g] in eval_cats for g in eval_gold)
    # the same seed gives the same categories; the share moves whole categories
    again = _run(tmp_path / "again", tools, queries, "--split", "category", seed=1)[3]
    assert json.loads(again.read_text())["train_categories"] == metrics["train_categories"]
    every = _run(tmp_path / "every", tools, queries, "--split", "category", train_share=1.0)[3]
    assert json.loads(every.read_text())["n_eval_queries"] == 0

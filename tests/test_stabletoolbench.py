"""The StableToolBench converter on a 10-tool / 6-query excerpt, and on the real benchmark."""

import json
from pathlib import Path

import pytest

from serving.io import load_catalog, load_queries, load_traces
from serving.schema import TOOL_ID_RE
from training.benchmarks.stabletoolbench import Params, main, split_queries

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
        f"stb:\n  seed: {seed}\n  train_share: {train_share}\n  added_at: '2024-01-01'\n"
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


def test_split_is_seeded_and_follows_the_share(tmp_path):
    from training.benchmarks.stabletoolbench import BenchmarkQuery

    queries = [BenchmarkQuery.from_dict(q) for q in QUERIES]
    first = split_queries(queries, seed=3, train_share=0.5)
    assert split_queries(list(reversed(queries)), seed=3, train_share=0.5)[0] == list(
        reversed(first[0])
    )
    assert split_queries(queries, seed=3, train_share=0.0) == ([], queries)
    assert split_queries(queries, seed=3, train_share=1.0) == (queries, [])


def test_params_are_strict(tmp_path):
    from training.core.params import ParamsError, params_from_mapping

    with pytest.raises(ParamsError, match="unknown keys"):
        params_from_mapping(
            Params, {"seed": 1, "train_share": 0.5, "added_at": "2024-01-01", "x": 1}, "stb"
        )
    with pytest.raises(ParamsError, match="train_share"):
        params_from_mapping(
            Params, {"seed": 1, "train_share": 1.5, "added_at": "2024-01-01"}, "stb"
        )


@pytest.mark.skipif(not BENCH.is_dir(), reason="the StableToolBench files are not here")
def test_real_benchmark_counts(tmp_path):
    out = tmp_path / "stb"
    main(
        [
            str(_write_params(tmp_path / "params.yaml", seed=11)),
            str(BENCH),
            str(out),
            "--metrics",
            str(tmp_path / "metrics.json"),
        ]
    )
    catalog = load_catalog(out / "catalog.jsonl")
    assert catalog.errors == [] and len(catalog.items) == 2490
    known = [c.tool_id for c in catalog.items]
    traces = load_traces(out / "traces.jsonl", known_tools=known)
    queries = load_queries(out / "eval.jsonl", known_tools=known)
    assert traces.errors == [] and queries.errors == []
    n_train = len({t.request_id for t in traces.items})
    assert n_train + len(queries.items) == 765
    assert 0.4 < len(queries.items) / 765 < 0.6
    train_texts = {t.request for t in traces.items}
    assert not train_texts & {q.query for q in queries.items}

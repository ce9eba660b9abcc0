"""Convert the StableToolBench benchmark (a pooled RapidAPI catalog + labeled queries) to our
three formats: `catalog.jsonl` (tool cards), `traces.jsonl` (the train half) and
`eval.jsonl` (the eval half), plus `id_map.jsonl` (benchmark id -> our tool id).

    python -m training.benchmarks.stabletoolbench params.yaml ../shared/benchmarks/stabletoolbench \
        data/stb --metrics metrics/stb_data.json

The benchmark is read in place (it is never copied into the project). Its files:
`catalog.jsonl` ({tool_id "<rapidapi tool>.<api name>", name, description, parameters,
source "<category>/<rapidapi tool>"}) and `queries.jsonl` ({query_id, query, gold, kind
single|multi, subset}); see its README.

Cards. Benchmark ids hold spaces, dots and emoji, so each card gets a `server.tool` id of
slugs: the server is the RapidAPI tool name, the tool the api name (with its `#1`
variant mark), both split into lowercase words like `serving.vocab.name_words`
(`Kick.com API | Kick API` -> `kick_com_api_kick_api`, `PopularSitesForQuery` ->
`popular_sites_for_query`); clashing slugs get `_2`, `_3` in benchmark-id order.
`domain` is the category, `name` the api name, `description` the original text. The
summary, capabilities, entities and input concepts come from the importers' helpers and
are listed in `derived`. Risk: RapidAPI listings carry no annotation, and most names hold
no verb ("Songkick concert"), so unlike the importers (which fail closed to `write`) a
card is `read_only` unless the name's verb clearly mutates (an unambiguous verb of a
mutating operation: `Create User`, `Send SMS`; destructive verbs -> `destructive`).
Every card is third-party, connection = its server, no scopes, every env.

Queries are split by a seeded hash of their `query_id` (queries with the same text share
the hash of the first id, so no request text is on both sides). Train queries become one
successful flat trace per gold tool with the whole request as the subgoal (the benchmark
has no decomposition labels) and an unknown menu; eval queries become labeled queries
with the mapped gold, no subgoals (whole-request scoring), slices `single` or
`multi_subgoal` plus the subset name (`G1_instruction`, ...). Contexts are empty: every
connection is available.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from serving.catalog.derive import derive_capabilities, derive_summary, schema_concepts
from serving.io import load_jsonl, write_jsonl
from serving.schema import FieldError, LabeledQuery, ToolCard, Trace
from serving.vocab import (
    AMBIGUOUS_VERBS,
    DESTRUCTIVE_VERBS,
    OPERATIONS,
    VERB_TO_OPERATION,
    name_verb,
    name_words,
)
from training.core.metrics_io import write_metrics
from training.core.params import ParamsError, load_params

SECTION = "stb"
KIND_SLICES = {"single": "single", "multi": "multi_subgoal"}

# JSON Schema type spellings seen in API listings -> Draft 2020-12 types.
TYPE_ALIASES = {
    "str": "string",
    "text": "string",
    "enum": "string",
    "date": "string",
    "time": "string",
    "datetime": "string",
    "file": "string",
    "binary": "string",
    "geopoint": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
    "map": "object",
}
_ACRONYM_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")
JSON_TYPES = frozenset(("string", "number", "integer", "boolean", "array", "object", "null"))


# --- params -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `stb` section of params.yaml (every key required, no extras)."""

    seed: int
    train_share: float  # share of queries (by query_id hash) that become traces
    added_at: str  # the one `added_at` of every card (the listings carry no date)

    def __post_init__(self) -> None:
        if not 0 <= self.train_share <= 1:
            raise ParamsError(
                f"{SECTION}.train_share: expected a number in [0, 1], got {self.train_share!r}"
            )
        try:
            date.fromisoformat(self.added_at)
        except ValueError:
            raise ParamsError(f"{SECTION}.added_at: {self.added_at!r} is not an ISO date") from None


# --- the benchmark's records ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BenchmarkTool:
    benchmark_id: str
    name: str
    description: str
    parameters: Mapping[str, Any]
    category: str
    rapidapi_tool: str

    @property
    def api_part(self) -> str:
        """The id after `<rapidapi tool>.`: the api name with its `#n` variant mark."""
        return self.benchmark_id[len(self.rapidapi_tool) + 1 :]

    @classmethod
    def from_dict(cls, data: Any) -> BenchmarkTool:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        values = {}
        for key in ("tool_id", "name", "description", "source"):
            value = data.get(key)
            if not isinstance(value, str):
                raise FieldError(key, f"expected a string, got {value!r}")
            values[key] = value
        parameters = data.get("parameters")
        if not isinstance(parameters, Mapping):
            raise FieldError("parameters", "expected a JSON Schema object")
        category, sep, tool = values["source"].partition("/")
        if not sep or not category or not tool:
            raise FieldError("source", f"{values['source']!r} is not '<category>/<tool>'")
        if not values["tool_id"].startswith(tool + ".") or len(values["tool_id"]) == len(tool) + 1:
            raise FieldError("tool_id", f"{values['tool_id']!r} does not start with {tool!r}.")
        return cls(
            values["tool_id"],
            values["name"],
            values["description"],
            dict(parameters),
            category,
            tool,
        )


@dataclass(frozen=True, slots=True)
class BenchmarkQuery:
    query_id: str
    query: str
    gold: tuple[str, ...]
    kind: str
    subset: str

    @classmethod
    def from_dict(cls, data: Any) -> BenchmarkQuery:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        for key in ("query_id", "query", "subset"):
            if not isinstance(data.get(key), str) or not data[key].strip():
                raise FieldError(key, f"expected a non-empty string, got {data.get(key)!r}")
        gold = data.get("gold")
        if not isinstance(gold, list) or not gold or not all(isinstance(g, str) for g in gold):
            raise FieldError("gold", "expected a non-empty list of tool ids")
        if data.get("kind") not in KIND_SLICES:
            raise FieldError(
                "kind", f"expected one of {sorted(KIND_SLICES)}, got {data.get('kind')!r}"
            )
        return cls(
            data["query_id"],
            data["query"],
            tuple(dict.fromkeys(gold)),
            data["kind"],
            data["subset"],
        )


def read_benchmark(bench_dir: str | Path) -> tuple[list[BenchmarkTool], list[BenchmarkQuery]]:
    """Read both files strictly: a fixed public benchmark with a bad line is a bad input."""
    bench_dir = Path(bench_dir)

    def read(name: str, parse: Callable[[Any], Any]) -> list[Any]:
        return load_jsonl(bench_dir / name, lambda d: [parse(d)], strict=True).items

    tools = read("catalog.jsonl", BenchmarkTool.from_dict)
    queries = read("queries.jsonl", BenchmarkQuery.from_dict)
    ids = Counter(t.benchmark_id for t in tools)
    dup = [i for i, n in ids.items() if n > 1]
    if dup:
        raise ValueError(f"{bench_dir / 'catalog.jsonl'}: duplicate tool ids {dup[:3]}")
    return tools, queries


# --- ids ------------------------------------------------------------------------------------


def slug(text: str) -> str:
    """Lowercase ASCII words joined by `_`: `Kick.com API | Kick API` -> `kick_com_api_kick_api`,
    `PopularSitesForQuery` -> `popular_sites_for_query`, `Get Orders#2` -> `get_orders_2`.
    A text with no ASCII letter or digit (all emoji) gets `x` + a short hash."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = _ACRONYM_PLURAL.sub(lambda m: m.group(1) + "S", ascii_text)  # URLs -> URLS
    words = name_words(ascii_text)
    if words:
        return "_".join(words)
    return "x" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def unique_slugs(texts: Iterable[str]) -> tuple[dict[str, str], int]:
    """Distinct texts -> distinct slugs (a clash gets `_2`, `_3` in sorted-text order), and
    the number of texts that needed a suffix."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    n_clashes = 0
    for text in sorted(set(texts)):
        base = candidate = slug(text)
        n = 1
        while candidate in taken:
            n += 1
            candidate = f"{base}_{n}"
        n_clashes += candidate != base
        out[text] = candidate
        taken.add(candidate)
    return out, n_clashes


def assign_tool_ids(tools: Sequence[BenchmarkTool]) -> tuple[dict[str, str], dict[str, int]]:
    """benchmark id -> `server.tool`, and how many server and tool slugs clashed."""
    servers, n_server_clashes = unique_slugs(t.rapidapi_tool for t in tools)
    by_server: dict[str, list[BenchmarkTool]] = {}
    for t in tools:
        by_server.setdefault(servers[t.rapidapi_tool], []).append(t)
    ids: dict[str, str] = {}
    n_tool_clashes = 0
    for server, members in by_server.items():
        # the api part is unique within a RapidAPI tool; two tools on one server slug
        # (never seen in the benchmark) would be told apart by the full id
        keyed = {
            t.api_part if len({m.rapidapi_tool for m in members}) == 1 else t.benchmark_id: t
            for t in members
        }
        names, n = unique_slugs(keyed)
        n_tool_clashes += n
        for key, t in keyed.items():
            ids[t.benchmark_id] = f"{server}.{names[key]}"
    return ids, {"server": n_server_clashes, "tool": n_tool_clashes}


# --- cards ----------------------------------------------------------------------------------


def derive_stb_risk(name: str) -> str:
    """`read_only` unless the name's verb clearly mutates: the importers' verb table, but no
    verb, a noun-like verb ("Set Address") or an inflected one ("/marks/men") stays
    read-only."""
    words = name_words(name)
    found = name_verb(words)
    # an inflected verb in an API name is a plural noun: "/marks/men", "Updates"; a verb
    # that is as often a noun ("Set Address", "User feed (Video posts)") does not mutate
    if found is None or found[1] in AMBIGUOUS_VERBS or words[found[0]] != found[1]:
        return "read_only"
    verb = found[1]
    if verb in DESTRUCTIVE_VERBS:
        return "destructive"
    return "write" if OPERATIONS[VERB_TO_OPERATION[verb]].mutates else "read_only"


def fix_schema(schema: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A valid Draft 2020-12 object schema for the tool's arguments, and what was changed.

    `{}` (no parameters) becomes an object with no properties; a missing root type becomes
    `object`; property types in API-listing spellings (`ENUM`, `float`) are mapped; required
    names without a property are dropped. A schema still invalid after that is replaced by
    a bare object schema (`replaced_invalid`), never dropped silently.
    """
    out = json.loads(json.dumps(schema))  # a deep, JSON-clean copy
    fixes: list[str] = []
    if not out:
        return {"type": "object", "properties": {}}, ("empty_to_object",)
    if "type" not in out:
        out["type"] = "object"
        fixes.append("root_type_added")
    props = out.get("properties")
    if isinstance(props, dict):
        for prop in props.values():
            if not isinstance(prop, dict) or not isinstance(prop.get("type"), str):
                continue
            spelled = prop["type"]
            fixed = spelled.lower()
            fixed = TYPE_ALIASES.get(fixed, fixed)
            if fixed != spelled and fixed in JSON_TYPES:
                prop["type"] = fixed
                fixes.append("property_type_mapped")
        required = out.get("required")
        if isinstance(required, list):
            kept = [r for r in required if r in props]
            if len(kept) != len(required):
                out["required"] = kept
                fixes.append("unknown_required_dropped")
    try:
        Draft202012Validator.check_schema(out)
    except SchemaError:
        return {"type": "object"}, (*dict.fromkeys(fixes), "replaced_invalid")
    return out, tuple(dict.fromkeys(fixes))


def tool_card(tool: BenchmarkTool, tool_id: str, added_at: str) -> tuple[ToolCard, tuple[str, ...]]:
    """One validated card for a benchmark tool, and the schema fixes it needed."""
    server = tool_id.split(".", 1)[0]
    schema, fixes = fix_schema(tool.parameters)
    capabilities, name_entities = derive_capabilities(tool.name, tool.description, server=server)
    concepts, schema_entities = schema_concepts(schema)
    entities = tuple(dict.fromkeys([*name_entities, *schema_entities]))
    derived = ["summary"]
    derived += [
        f
        for f, v in (
            ("capabilities", capabilities),
            ("entities", entities),
            ("input_concepts", concepts),
        )
        if v
    ]
    derived += ["risk"] + (["input_schema"] if fixes else [])
    record = {
        "tool_id": tool_id,
        "server": server,
        "domain": slug(tool.category),
        "name": tool.name.strip() or tool.api_part,
        "summary": derive_summary(tool.description, tool.name or tool.api_part),
        "capabilities": list(capabilities),
        "entities": list(entities),
        "input_concepts": list(concepts),
        "requires": {"connection": server, "scopes": []},
        "risk": derive_stb_risk(tool.name),
        "owner": f"vendor:{server}",
        "input_schema": schema,
        "env": [],
        "added_at": added_at,
        "trust": "third_party",
        "description": tool.description,
        "derived": derived,
    }
    return ToolCard.from_dict(record), fixes


# --- the split ------------------------------------------------------------------------------


def _text_key(text: str) -> str:
    return " ".join(text.split()).casefold()


def split_queries(
    queries: Sequence[BenchmarkQuery], *, seed: int, train_share: float
) -> tuple[list[BenchmarkQuery], list[BenchmarkQuery]]:
    """(train, eval) by a seeded hash of the query id; queries with the same text (after
    whitespace and case folding) use the smallest id of their group, so they stay together."""
    group_id: dict[str, str] = {}
    for q in queries:
        key = _text_key(q.query)
        group_id[key] = min(group_id.get(key, q.query_id), q.query_id)
    train: list[BenchmarkQuery] = []
    held_out: list[BenchmarkQuery] = []
    for q in queries:
        digest = hashlib.sha256(f"{seed}:{group_id[_text_key(q.query)]}".encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2**64
        (train if u < train_share else held_out).append(q)
    return train, held_out


# --- the conversion -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conversion:
    cards: list[ToolCard]
    id_map: dict[str, str]  # benchmark id -> tool id
    traces: list[Trace]
    eval_queries: list[LabeledQuery]
    metrics: dict[str, Any]


def convert(
    tools: Sequence[BenchmarkTool], queries: Sequence[BenchmarkQuery], params: Params
) -> Conversion:
    """The whole conversion, no I/O. Raises ValueError when a gold id is not in the catalog."""
    id_map, clashes = assign_tool_ids(tools)
    cards, fix_counts = [], Counter[str]()
    for tool in tools:
        card, fixes = tool_card(tool, id_map[tool.benchmark_id], params.added_at)
        cards.append(card)
        fix_counts.update(fixes)
    unknown = sorted({g for q in queries for g in q.gold if g not in id_map})
    if unknown:
        raise ValueError(f"{len(unknown)} gold ids are not in the catalog: {unknown[:3]}")
    train, held_out = split_queries(queries, seed=params.seed, train_share=params.train_share)
    traces = [
        Trace(
            subgoal=q.query, tool_id=id_map[g], success=True, request_id=q.query_id, request=q.query
        )
        for q in train
        for g in q.gold
    ]
    eval_queries = [
        LabeledQuery(
            query_id=q.query_id,
            query=q.query,
            gold=tuple(id_map[g] for g in q.gold),
            slices=(KIND_SLICES[q.kind], q.subset),
        )
        for q in held_out
    ]
    overlap = {_text_key(q.query) for q in train} & {_text_key(q.query) for q in held_out}
    assert not overlap, f"{len(overlap)} request texts are in both traces and eval"
    slices = Counter(s for q in eval_queries for s in q.slices)
    derived = Counter(d for c in cards for d in c.derived)
    metrics = {
        "n_tools": len(tools),
        "n_cards": len(cards),
        "n_servers": len({c.server for c in cards}),
        "n_domains": len({c.domain for c in cards}),
        "n_empty_description": sum(1 for c in cards if not c.description.strip()),
        "n_slug_clashes": clashes,
        "risk": dict(sorted(Counter(c.risk for c in cards).items())),
        "derived": dict(sorted(derived.items())),
        "schema_fixes": dict(sorted(fix_counts.items())),
        "n_queries": len(queries),
        "n_train_queries": len(train),
        "n_eval_queries": len(eval_queries),
        "n_traces": len(traces),
        "n_eval_gold": sum(len(q.gold) for q in eval_queries),
        "eval_slices": dict(sorted(slices.items())),
    }
    return Conversion(cards, id_map, traces, eval_queries, metrics)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.benchmarks.stabletoolbench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("params", help="params.yaml (reads the stb section)")
    parser.add_argument("bench_dir", help="the benchmark: catalog.jsonl and queries.jsonl")
    parser.add_argument("out_dir", help="for catalog.jsonl, traces.jsonl, eval.jsonl, id_map.jsonl")
    parser.add_argument("--metrics", help="where to write the counts (metrics/stb_data.json)")
    args = parser.parse_args(argv)
    params = load_params(args.params, SECTION, Params)
    started = time.perf_counter()
    tools, queries = read_benchmark(args.bench_dir)
    conv = convert(tools, queries, params)
    out = Path(args.out_dir)
    write_jsonl(out / "catalog.jsonl", (c.to_dict() for c in conv.cards))
    write_jsonl(
        out / "id_map.jsonl", ({"benchmark_id": b, "tool_id": t} for b, t in conv.id_map.items())
    )
    write_jsonl(out / "traces.jsonl", (t.to_dict() for t in conv.traces))
    write_jsonl(out / "eval.jsonl", (q.to_dict() for q in conv.eval_queries))
    if args.metrics:
        write_metrics(args.metrics, conv.metrics)
    m = conv.metrics
    print(
        f"  risk {m['risk']}; schema fixes {m['schema_fixes']}; slug clashes "
        f"{m['n_slug_clashes']}; eval slices {m['eval_slices']}"
    )
    print(
        f"stb: {m['n_cards']} cards on {m['n_servers']} servers, {m['n_train_queries']} train "
        f"queries -> {m['n_traces']} traces, {m['n_eval_queries']} eval queries -> {out} in "
        f"{time.perf_counter() - started:.1f}s (seed {params.seed}, train_share "
        f"{params.train_share})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Convert a labeled tool-retrieval benchmark in the neutral shape to our three formats:
`catalog.jsonl` (tool cards), `traces.jsonl` (the train side) and `eval.jsonl` (the eval
side, labeled queries), plus `id_map.jsonl` (benchmark id -> our tool id).

    python -m training.benchmarks.convert params.yaml ../shared/benchmarks/stabletoolbench \
        data/stb --metrics metrics/stb/data.json [--split random|category]

The benchmark is read in place (never copied into the project). The neutral shape:
- `catalog.jsonl`, one tool a line: `tool_id` (str, unique), `name` (str), `description`
  (str, may be empty), `parameters` (JSON Schema object; missing or null = none), `source`
  (str: `<category>/<server>`, or a plain domain, or missing/empty).
- `queries.jsonl`, one request a line: `query_id` (str, unique), `query` (str), `gold`
  (list of tool ids, any length; `[]` = no tool serves the request), `kind` (optional str),
  `candidates` (optional list of tool ids: the tools the source offered with the request;
  each in the catalog, the gold among them), and any other short string fields (`subset`:
  `G1_instruction`), which become slices.

Conventions. A tool's category is the part of `source` before its first `/`, else the
whole source, else `general`; its server is the part after the `/`, else the part of
`tool_id` before its first `.`, else the category. The api part (what names the tool on
its server) is the id after `<server>.`, else the whole id. A `#k` mark at the end of a
name (`Get Order#2`: one of several definitions of a name) is dropped from the card name;
the id keeps it, so variants stay apart. Benchmark ids hold spaces, dots and emoji, so
each card gets a `server.tool` id of slugs (lowercase ASCII words like
`serving.model.vocab.name_words`: `Kick.com API | Kick API` -> `kick_com_api_kick_api`,
`PopularSitesForQuery` -> `popular_sites_for_query`); clashing slugs get `_2`, `_3` in
benchmark-id order. `domain` is the category's slug, `name` the name (or the api part when
empty), `description` the original text; the summary, capabilities, entities and input
concepts come from the importers' helpers and are listed in `derived`. Risk: benchmark
listings carry no annotation and most names hold no verb ("Songkick concert"), so unlike
the importers (which fail closed to `write`) a card is `read_only` unless the name's verb
clearly mutates (`Create User`, `Send SMS`; destructive verbs -> `destructive`). Every card
is third-party, connection = its server, no scopes, every env.

Queries. The first slice says how many distinct gold tools a query has: `no_tool` (0),
`single` (1), `multi_subgoal` (2+); a `kind` other than single/multi/no_tool (BFCL's
`parallel`) follows as a slice, then the values of the other string fields in file
order. Other extra fields (objects, numbers, long texts) are ignored and counted. Train
queries become one successful flat trace per gold tool with the whole request as the
subgoal (no decomposition labels) and an unknown menu; eval queries become labeled
queries with the mapped gold and no subgoals (whole-request scoring). No-tool queries are
always eval queries (a trace needs a tool). Contexts are empty (every connection is
there), but with `--serve-candidates` a query that has `candidates` is served only those
(`{"tools": [...]}`), in its traces, its eval query or its no-tool query alike: a stage
that replayed gold requests in the whole catalog and no-tool ones among a few offered
tools would learn the session's size, not the request.

Splits (seeded by `benchmark.seed`; same-text queries, after whitespace and case folding,
always land together, on the side of the smallest id of their text):
- `random`: a query trains when a seeded hash of its (group's) query id falls below
  `train_share`.
- `category`: a category trains when a seeded hash of its name (the domain slug) falls
  below `train_share`; a query trains when every gold tool is in a train category, else it
  is evaluated. Eval categories are never seen in training: their tools get no traces.

Bad input. Every bad line is logged as `file:line: field: problem`, skipped, counted in
the metrics (`errors`) and written with its error to `<out_dir>.catalog.quarantine.jsonl`
or `<out_dir>.queries.quarantine.jsonl`: malformed JSON, non-UTF-8 bytes, a missing or
wrong-typed field, a duplicate tool or query id (the later line goes), and a query with a
gold id that is not in the valid catalog (the whole query goes: a partial gold would
grade it wrongly; the rest of the run goes on). A catalog with no valid line, a missing
file or bad params end the run with one error line and exit status 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from features.no_tool import no_tool_queries, no_tool_texts
from serving.catalog.derive import derive_capabilities, derive_summary, schema_concepts
from serving.model.io import InputError, quarantine_path_for, write_jsonl
from serving.model.schema import LabeledQuery, ToolCard, Trace
from serving.model.vocab import (
    AMBIGUOUS_VERBS,
    DESTRUCTIVE_VERBS,
    OPERATIONS,
    VERB_TO_OPERATION,
    name_verb,
    name_words,
)
from training.benchmarks.reading import BenchmarkQuery, BenchmarkTool, read_benchmark
from training.core.metrics_io import write_metrics
from training.core.params import ParamsError, load_params, optional
from training.evaluation.scoring import sample_queries

log = logging.getLogger(__name__)

SECTION = "benchmark"
SPLITS = ("random", "category")
Split = Literal["random", "category"]

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
    """Mirror of the `benchmark` section of params.yaml (every key required, no extras)."""

    seed: int
    train_share: float  # share of queries (random) or categories (category) that train
    added_at: str  # the one `added_at` of every card (benchmark listings carry no date)
    # share of the no-tool (empty gold) requests sent to the train side's no_tool.jsonl,
    # where tune_menus chooses the no-tool threshold on them; the rest are evaluated
    no_tool_train_share: float = optional(0.5)
    # requests from features.no_tool's catalog-free families beside them (fit and tune)
    n_generic_no_tool: int = optional(400)

    def __post_init__(self) -> None:
        if not 0 <= self.no_tool_train_share <= 1 or self.n_generic_no_tool < 0:
            raise ParamsError(f"{SECTION}: no_tool_train_share in [0, 1], n_generic_no_tool >= 0")
        if not 0 <= self.train_share <= 1:
            raise ParamsError(
                f"{SECTION}.train_share: expected a number in [0, 1], got {self.train_share!r}"
            )
        try:
            date.fromisoformat(self.added_at)
        except ValueError:
            raise ParamsError(f"{SECTION}.added_at: {self.added_at!r} is not an ISO date") from None


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
    servers, n_server_clashes = unique_slugs(t.server_name for t in tools)
    by_server: dict[str, list[BenchmarkTool]] = {}
    for t in tools:
        by_server.setdefault(servers[t.server_name], []).append(t)
    ids: dict[str, str] = {}
    n_tool_clashes = 0
    for server, members in by_server.items():
        # the api part names a tool on its server; where it does not tell the members apart
        # (two server names on one slug, or an id that is not `<server>.<api>`), the full
        # benchmark id does
        api_parts = [m.api_part for m in members]
        by_api = len({m.server_name for m in members}) == 1 and len(set(api_parts)) == len(
            api_parts
        )
        keyed = {t.api_part if by_api else t.benchmark_id: t for t in members}
        names, n = unique_slugs(keyed)
        n_tool_clashes += n
        for key, t in keyed.items():
            ids[t.benchmark_id] = f"{server}.{names[key]}"
    return ids, {"server": n_server_clashes, "tool": n_tool_clashes}


# --- cards ----------------------------------------------------------------------------------


def derive_listing_risk(name: str) -> str:
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
        "risk": derive_listing_risk(tool.name),
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


def _unit(seed: int, key: str) -> float:
    """A seeded hash of `key` in [0, 1)."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True, slots=True)
class QuerySplit:
    train: list[BenchmarkQuery]
    eval: list[BenchmarkQuery]
    no_tool: list[BenchmarkQuery] = field(default_factory=list)  # train side, empty gold
    train_categories: frozenset[str] = frozenset()  # the category split's train side
    eval_categories: frozenset[str] = frozenset()


def split_queries(
    queries: Sequence[BenchmarkQuery],
    *,
    seed: int,
    train_share: float,
    category_of: Mapping[str, str] | None = None,
    no_tool_share: float = 0.0,
) -> QuerySplit:
    """(train, eval) as the module doc says: by a seeded hash of the query id (`random`), or,
    with `category_of` (benchmark tool id -> category), of the categories (`category`).
    Queries with the same text (after whitespace and case folding) use the smallest id of
    their group and go together; a group with a no-tool query is evaluated, or with
    chance `no_tool_share` (by the same hash) goes to the train side's `no_tool`."""
    groups: dict[str, list[BenchmarkQuery]] = {}
    for q in queries:
        groups.setdefault(_text_key(q.query), []).append(q)
    train_categories: frozenset[str] = frozenset()
    eval_categories: frozenset[str] = frozenset()
    if category_of is not None:
        categories = set(category_of.values())
        train_categories = frozenset(c for c in categories if _unit(seed, c) < train_share)
        eval_categories = frozenset(categories - train_categories)
    trains: dict[str, bool] = {}
    no_tool_keys: set[str] = set()
    for key, members in groups.items():
        if any(not q.gold for q in members):
            trains[key] = False
            if _unit(seed, "no_tool/" + min(q.query_id for q in members)) < no_tool_share:
                no_tool_keys.add(key)
        elif category_of is None:
            trains[key] = _unit(seed, min(q.query_id for q in members)) < train_share
        else:
            trains[key] = all(category_of[g] in train_categories for q in members for g in q.gold)
    train = [q for q in queries if trains[_text_key(q.query)]]
    held_out = [q for q in queries if not trains[_text_key(q.query)]
                and _text_key(q.query) not in no_tool_keys]
    no_tool = [q for q in queries if _text_key(q.query) in no_tool_keys]
    return QuerySplit(train, held_out, no_tool, train_categories, eval_categories)


# --- the conversion -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conversion:
    cards: list[ToolCard]
    id_map: dict[str, str]  # benchmark id -> tool id
    traces: list[Trace]
    eval_queries: list[LabeledQuery]
    metrics: dict[str, Any] = field(default_factory=dict)
    no_tool: list[LabeledQuery] = field(default_factory=list)  # for tune_menus


def convert(
    tools: Sequence[BenchmarkTool],
    queries: Sequence[BenchmarkQuery],
    params: Params,
    *,
    split: Split = "random",
    serve_candidates: bool = False,
) -> Conversion:
    """The whole conversion, no I/O. Every gold id must be a tool's benchmark id
    (`read_benchmark` skips the queries where one is not). `serve_candidates`: a query
    with `candidates` gets the session context `{"tools": [...]}` (only those are served
    it), its traces too, so every stage replays it as the runtime will serve it."""
    id_map, clashes = assign_tool_ids(tools)
    cards, fix_counts = [], Counter[str]()
    for tool in tools:
        card, fixes = tool_card(tool, id_map[tool.benchmark_id], params.added_at)
        cards.append(card)
        fix_counts.update(fixes)
    domain_of = {c.tool_id: c.domain for c in cards}
    unknown = sorted({g for q in queries for g in q.gold if g not in id_map})
    if unknown:
        raise ValueError(f"{len(unknown)} gold ids are not in the catalog: {unknown[:3]}")
    sides = split_queries(
        queries,
        seed=params.seed,
        train_share=params.train_share,
        category_of=(
            {b: domain_of[t] for b, t in id_map.items()} if split == "category" else None
        ),
        no_tool_share=params.no_tool_train_share,
    )
    def context(q: BenchmarkQuery) -> dict[str, Any]:
        if serve_candidates and q.candidates:
            return {"tools": [id_map[c] for c in q.candidates]}
        return {}

    generic = no_tool_texts(params.n_generic_no_tool, random.Random(f"{params.seed}/no_tool"),
                            capabilities=(), products=())
    no_tool = [
        LabeledQuery(q.query_id, q.query, (), context=context(q),
                     slices=("benchmark", "no_tool"))
        for q in sides.no_tool
    ] + no_tool_queries(generic, lambda i: None, prefix="generic")
    traces = [
        Trace(
            subgoal=q.query, tool_id=id_map[g], success=True, request_id=q.query_id,
            request=q.query, context=context(q),
        )
        for q in sides.train
        for g in q.gold
    ]
    eval_queries = [
        LabeledQuery(
            query_id=q.query_id,
            query=q.query,
            gold=tuple(id_map[g] for g in q.gold),
            context=context(q),
            slices=tuple(dict.fromkeys((q.count_slice, *q.slices))),
        )
        for q in sides.eval
    ]
    overlap = {_text_key(q.query) for q in sides.train} & {_text_key(q.query) for q in sides.eval}
    assert not overlap, f"{len(overlap)} request texts are in both traces and eval"
    traced = {t.tool_id for t in traces}
    eval_gold = {g for q in eval_queries for g in q.gold}
    if split == "category":
        train_categories, eval_categories = sides.train_categories, sides.eval_categories
    else:  # the categories each side sees
        train_categories = frozenset(domain_of[t] for t in traced)
        eval_categories = frozenset(domain_of[g] for g in eval_gold)
    slices = Counter(s for q in eval_queries for s in q.slices)
    derived = Counter(d for c in cards for d in c.derived)
    metrics = {
        "split": split,
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
        "n_train_queries": len(sides.train),
        "n_eval_queries": len(eval_queries),
        "n_no_tool_train": len(sides.no_tool),
        "n_no_tool_generic": len(no_tool) - len(sides.no_tool),
        "n_traces": len(traces),
        "n_eval_gold": sum(len(q.gold) for q in eval_queries),
        "n_eval_gold_tools": len(eval_gold),
        "n_eval_gold_tools_untraced": len(eval_gold - traced),
        "n_train_categories": len(train_categories),
        "n_eval_categories": len(eval_categories),
        "train_categories": sorted(train_categories),
        "eval_categories": sorted(eval_categories),
        "eval_slices": dict(sorted(slices.items())),
        "ignored_query_fields": dict(
            sorted(Counter(f for q in queries for f in q.ignored).items())
        ),
    }
    return Conversion(cards, id_map, traces, eval_queries, metrics, no_tool)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.benchmarks.convert",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("params", help=f"params.yaml (reads the `{SECTION}` section)")
    parser.add_argument("bench_dir", help="the benchmark: catalog.jsonl and queries.jsonl")
    parser.add_argument("out_dir", help="for catalog.jsonl, traces.jsonl, eval.jsonl, "
                        "no_tool.jsonl, id_map.jsonl")
    parser.add_argument("--metrics", help="where to write the counts (metrics/<name>/data.json)")
    parser.add_argument("--split", choices=SPLITS, default="random", help="default: random")
    parser.add_argument(
        "--max-queries", type=int, default=0,
        help="convert a seeded sample of this many requests (0: all): a large benchmark "
        "(ToolLens' 18,769) would take hours through every stage on 2 cores",
    )
    parser.add_argument(
        "--serve-candidates", action="store_true",
        help="serve each eval and no-tool request only the tools its source offered with it "
        "(`candidates`, as the session context's `tools`; its traces too): where 'no tool "
        "fits' holds for "
        "those tools, not for the pooled catalog (../shared/benchmarks/no_tool_catalog)",
    )
    parser.add_argument(
        "--gold-only", action="store_true",
        help="leave out the requests with an empty gold list (counted): where 'no tool fits' "
        "holds only for the tools a source offered, not for the pooled catalog "
        "(../shared/benchmarks/no_tool_catalog)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    started = time.perf_counter()
    out = Path(args.out_dir)
    quarantine = {what: quarantine_path_for(out, what) for what in ("catalog", "queries")}
    for stale in quarantine.values():
        stale.unlink(missing_ok=True)  # a quarantine file always describes this run
    try:
        params = load_params(args.params, SECTION, Params)
        bench = read_benchmark(args.bench_dir, quarantine=quarantine)
    except (ParamsError, InputError) as err:
        log.error("error: %s", str(err).splitlines()[0])
        return 2
    n_bad = {what: len(errors) for what, errors in bench.errors.items()}
    if not bench.tools:
        log.error(
            "error: %s: no valid tool line (%d bad), nothing to convert",
            Path(args.bench_dir) / "catalog.jsonl",
            n_bad["catalog"],
        )
        return 2
    read = [q for q in bench.queries if q.gold or not args.gold_only]
    queries = sample_queries(read, args.max_queries, params.seed)
    conv = convert(bench.tools, queries, params, split=args.split,
                   serve_candidates=args.serve_candidates)
    write_jsonl(out / "catalog.jsonl", (c.to_dict() for c in conv.cards))
    write_jsonl(
        out / "id_map.jsonl", ({"benchmark_id": b, "tool_id": t} for b, t in conv.id_map.items())
    )
    write_jsonl(out / "traces.jsonl", (t.to_dict() for t in conv.traces))
    write_jsonl(out / "eval.jsonl", (q.to_dict() for q in conv.eval_queries))
    write_jsonl(out / "no_tool.jsonl", (q.to_dict() for q in conv.no_tool))
    m = {**conv.metrics, "errors": n_bad, "n_queries_read": len(bench.queries),
         "n_queries_without_gold_left_out": len(bench.queries) - len(read),
         "n_queries_sampled": len(queries)}
    if args.metrics:
        write_metrics(args.metrics, m)
    if any(n_bad.values()):
        log.warning(
            "skipped %d bad catalog and %d bad query lines (%s)",
            n_bad["catalog"],
            n_bad["queries"],
            ", ".join(str(quarantine[w]) for w, n in n_bad.items() if n),
        )
    print(
        f"  risk {m['risk']}; schema fixes {m['schema_fixes']}; slug clashes "
        f"{m['n_slug_clashes']}; eval slices {m['eval_slices']}; categories "
        f"{m['n_train_categories']} train / {m['n_eval_categories']} eval; "
        f"{m['n_eval_gold_tools_untraced']} of {m['n_eval_gold_tools']} eval gold tools untraced"
    )
    print(
        f"convert: {m['n_cards']} cards on {m['n_servers']} servers, {m['n_train_queries']} "
        f"train queries -> {m['n_traces']} traces, {m['n_eval_queries']} eval queries -> {out} "
        f"in {time.perf_counter() - started:.1f}s ({args.split} split, seed {params.seed}, "
        f"train_share {params.train_share})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

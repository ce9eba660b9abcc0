"""Importers: MCP `tools/list` results and OpenAI / Anthropic tool JSON -> tool cards.

A foreign tool definition carries a name, a description and a JSON Schema; a card needs
more (a one-line summary in the user's intent voice, capabilities, entities, a risk
level). What the source lacks is derived here and the field is listed in `derived`, so
a reviewer (and `toolsift lint`) can tell authored fields from guessed ones. The
original description is kept verbatim in `description`.

Formats (`FORMATS`):
- `mcp`: `{"tools": [{name, title?, description, inputSchema, annotations?}]}`, also the
  whole JSON-RPC response (`{"result": {"tools": [...]}}`) or a bare list of tools.
  Risk follows the annotations: `readOnlyHint: true` -> read_only; else
  `destructiveHint: true` -> destructive; else write (a tool that does not say it is
  read-only may write). Annotations are the server's own claims, so imports default to
  `trust="third_party"` and the risk policy still gates every write.
- `openai`: `[{"type": "function", "function": {name, description, parameters}}]` (Chat
  Completions) or the flat Responses-API form `{type: "function", name, description,
  parameters}`; also `{"tools": [...]}`.
- `anthropic`: `[{name, description, input_schema}]`; also `{"tools": [...]}`.
- `auto`: picks one of the above from the first entry.
OpenAI and Anthropic tools carry no risk annotation: the risk is derived from the verb of
the tool's name (read verbs -> read_only, delete verbs -> destructive, anything else or
no verb -> write), unless the caller passes `risk=`.

The server name becomes the namespace (`tool_id = f"{server}.{name}"`) and the default
connection. A bad entry is reported as `file:<index + 1>: tools[<index>].<field>:
problem` (a `serving.io.LineError`), skipped and counted; valid entries are kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from serving.io import InputError, LineError, LoadResult, write_jsonl
from serving.schema import RISKS, TRUST_LEVELS, FieldError, ToolCard
from serving.vocab import OPERATIONS, READ_OPERATIONS

FORMATS = ("mcp", "openai", "anthropic", "auto")
SERVER_RE = re.compile(r"^[A-Za-z0-9][\w\-]*$")
MAX_SUMMARY_CHARS = 100

# --- words and verbs ------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+")
_NAME_STOPWORDS = frozenset("a an the of by for to in on from with all my new id ids".split())

# API verbs the shared vocabulary does not list, mapped to its operations.
EXTRA_VERBS: Mapping[str, str] = {
    "retrieve": "get",
    "lookup": "search",
    "insert": "create",
    "patch": "update",
    "upsert": "update",
    "write": "update",
    "invoke": "trigger",
    "execute": "trigger",
    "exec": "trigger",
    "publish": "send",
    "erase": "delete",
    "terminate": "delete",
    "unassign": "update",
    "submit": "create",
    "register": "create",
    "generate": "create",
    "compare": "get",
    "diff": "get",
    "summarize": "get",
    "analyze": "get",
    "translate": "get",
    "browse": "search",
}
# Single words that are as often nouns in a tool name ("file", "message", "post"): used
# for the operation only when the name holds no unambiguous verb.
_AMBIGUOUS_VERBS = frozenset(
    "file new open set tag label message email post build run select count see take put "
    "store share book view land accept claim ack ping reply start make add raise draft "
    "read check show close move schedule diff".split()
)
DESTRUCTIVE_VERBS = frozenset("delete remove drop purge wipe destroy erase terminate".split())


def _verb_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for operation in OPERATIONS.values():
        for verb in operation.verbs:
            if " " not in verb:
                table.setdefault(verb, operation.name)
    for verb, op_name in EXTRA_VERBS.items():
        table.setdefault(verb, op_name)
    return table


VERB_TO_OPERATION: Mapping[str, str] = _verb_table()


def name_words(name: str) -> list[str]:
    """`getNodeById`, `get_node_by_id`, `get-node.by.id` -> ["get", "node", "by", "id"]."""
    words: list[str] = []
    for chunk in _WORD_SPLIT.split(name):
        words.extend(w.lower() for w in _CAMEL.split(chunk) if w)
    return words


def base_verb(word: str) -> str | None:
    """The base form of a verb in the vocabulary (`lists` -> list, `fetches` -> fetch)."""
    w = word.lower()
    candidates = [w]
    if w.endswith("ies") and len(w) > 4:
        candidates.append(w[:-3] + "y")
    if w.endswith(("ches", "shes", "sses", "xes", "zes")):
        candidates.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        candidates.append(w[:-1])
    for c in candidates:
        if c in VERB_TO_OPERATION:
            return c
    return None


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def name_verb(words: Sequence[str]) -> tuple[int, str] | None:
    """Index and base form of the verb in a tool name's words, unambiguous verbs first."""
    hits = [(i, v) for i, w in enumerate(words) if (v := base_verb(w)) is not None]
    clear = [(i, v) for i, v in hits if v not in _AMBIGUOUS_VERBS]
    chosen = clear or hits
    return chosen[0] if chosen else None


# --- implementer voice -> intent voice --------------------------------------------------

_SUBJECT = (
    r"(?:this|the|our)\s+(?:\w+\s+)?(?:endpoint|function|tool|api|method|operation|call|route|"
    r"helper|wrapper|shim|action|service|command|utility)"
)
_CALLER = r"(?:you|users?|the user|the caller|callers|clients?|agents?|the model|the assistant)"
# Each rewrite takes a text starting with an implementer phrase to what follows it; the
# group `rest` must then open with a verb (third person or base form).
_REWRITES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^{_SUBJECT}\s+(?:will\s+|can\s+|is used to\s+|is designed to\s+|"
        rf"(?:allows|lets|enables)\s+{_CALLER}\s+to\s+|helps\s+{_CALLER}\s+|"
        rf"is (?:a|an) \w+ (?:to|that)\s+)?(?P<rest>.+)$",
        r"^(?:use|call|invoke)\s+(?:this|the)\s+(?:tool|function|endpoint|api|method)\s+"
        r"(?:to|when(?: you (?:need|want) to)?|for)\s+(?P<rest>.+)$",
        r"^(?:used|designed|intended|meant)\s+(?:to|for)\s+(?P<rest>.+)$",
        rf"^(?:allows|lets|enables|helps)\s+{_CALLER}\s+(?:to\s+)?(?P<rest>.+)$",
        r"^(?:a|an)\s+(?:\w+\s+)?(?:tool|function|endpoint|helper|wrapper|utility)\s+"
        r"(?:that|which|to|for)\s+(?P<rest>.+)$",
    )
)
_RETURNS = re.compile(
    r"^(?:returns?|responds with|outputs?|yields?|gives back)\s+(?P<rest>.+)$", re.IGNORECASE
)
_LIST_OF = re.compile(r"^(?:a\s+|the\s+)?(?:list|array|collection|set|page)\s+of\s+", re.I)
_NO_PHRASE = re.compile(
    r"^(?:(?:a\s+)?thin\s+)?(?:wraps?|wrapper|shim|passthru|pass-through|proxy)\b|"
    r"^(?:calls|hits|invokes)\s|^(?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+/",
    re.IGNORECASE,
)
IMPLEMENTER_VOICE = re.compile(
    rf"^\s*(?:{_SUBJECT}\b|(?:use|call)\s+this\s+(?:tool|function)|used\s+to\b|"
    rf"(?:allows|lets|enables)\s+{_CALLER}\b|(?:a|an)\s+(?:\w+\s+)?(?:tool|function|endpoint|"
    r"helper|wrapper)\s+(?:that|which|to|for)\b|returns?\b|ret\b|wraps?\b|wrapper\b|"
    r"(?:thin\s+)?shim\b|passthru\b|calls\s|(?:GET|POST|PUT|PATCH|DELETE)\s+/|"
    r"legacy\s+\w+\s+\w+\s+endpt\b)|\b(?:GET|POST|PUT|PATCH|DELETE)\s+/|\bendpt\b|\bshim\b",
    re.IGNORECASE,
)


def implementer_phrase(text: str) -> str | None:
    """The implementer-voice phrase a summary opens with or contains, if any."""
    match = IMPLEMENTER_VOICE.search(text)
    return match.group(0).strip() if match else None


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\"'])|\n+")
_MARKUP = re.compile(r"[*_`#>]+|<[^>]{1,40}>")


def first_sentence(text: str) -> str:
    text = _MARKUP.sub(" ", text).strip()
    head = _SENTENCE_END.split(text, maxsplit=1)[0] if text else ""
    return re.sub(r"\s+", " ", head).strip().rstrip(".!;:,")


def _to_imperative(text: str) -> str | None:
    """`Lists the commits` -> `List the commits`; None if the text opens with no verb."""
    first, _, rest = text.partition(" ")
    verb = base_verb(first)
    if verb is None:
        return None
    return f"{verb}{' ' + rest if rest else ''}"


def _name_phrase(name: str) -> str:
    words = name_words(name)
    found = name_verb(words)
    if found is None:
        return " ".join(words)
    i, verb = found
    rest = [w for j, w in enumerate(words) if j != i]
    return " ".join([verb, *rest])


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _shorten(text: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in (", ", " (", " - ", "; ", " which ", " that ", " "):
        pos = cut.rfind(sep)
        if pos >= limit // 2:
            return cut[:pos].rstrip(" ,;:-")
    return cut.rstrip()


def derive_summary(description: str, name: str, *, title: str = "") -> str:
    """A one-line summary in the user's intent voice from the description's first sentence.

    Implementer phrases ("This endpoint lists ...", "Returns a list of ...", "Wraps GET
    /x") become a verb phrase ("List ..."); text that is no verb phrase at all gets the
    verb of the tool name ("Weather for a city" on get_forecast -> "Get weather for a
    city"); with no usable description the title or the name itself is used.
    """
    sentence = first_sentence(description) or first_sentence(title)
    if not sentence or _NO_PHRASE.match(sentence):
        return _cap(_name_phrase(name))
    for pattern in _REWRITES:
        m = pattern.match(sentence)
        if m:
            sentence = m.group("rest")
            break
    m = _RETURNS.match(sentence)
    if m:
        rest = m.group("rest")
        if _LIST_OF.match(rest):
            sentence = "list " + _LIST_OF.sub("", rest)
        elif re.match(r"^(?:all|every)\b", rest, re.I):
            sentence = "list " + rest
        else:
            sentence = "get " + rest
    gerund = re.match(r"^(\w+?)ing\b(.*)$", sentence)
    if gerund:
        stem = next((v for v in (gerund.group(1), gerund.group(1) + "e") if base_verb(v)), None)
        if stem is not None:
            sentence = stem + gerund.group(2)
    imperative = _to_imperative(sentence)
    if imperative is None:
        found = name_verb(name_words(name))
        lowered = sentence[:1].lower() + sentence[1:]
        imperative = f"{found[1]} {lowered}" if found else sentence
    return _cap(_shorten(imperative.strip()))


def derive_capabilities(
    name: str, description: str, *, server: str = ""
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(`op:entity` capabilities, entities) from the name's verb and nouns.

    The operation is the name's verb (the description's first verb when the name has
    none); the entity is the rest of the name (server words and filler removed),
    singular, joined by `_` (`list_pull_requests` -> `list:pull_request`).
    """
    words = name_words(name)
    server_words = set(name_words(server))
    found = name_verb(words)
    op = VERB_TO_OPERATION[found[1]] if found else ""
    if not op:
        first = first_sentence(description).split(" ", 1)[0] if description else ""
        verb = base_verb(first) if first else None
        op = VERB_TO_OPERATION[verb] if verb else ""
    skip = {found[0]} if found else set()
    nouns = [
        singular(w)
        for i, w in enumerate(words)
        if i not in skip and w not in _NAME_STOPWORDS and w not in server_words and w.isalpha()
    ]
    entity = "_".join(nouns)
    capabilities = (f"{op}:{entity}",) if op and entity else ()
    return capabilities, ((entity,) if entity else ())


def schema_concepts(schema: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(input concepts, entities) from the top-level property names of a JSON Schema.

    Every property is an input concept; an identifier property names an entity
    (`channel_id` / `channelId` -> channel).
    """
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return (), ()
    concepts = tuple(str(p) for p in props)
    entities = []
    for prop in concepts:
        words = name_words(prop)
        if len(words) >= 2 and words[-1] in ("id", "ids", "key", "slug"):
            entity = "_".join(singular(w) for w in words[:-1])
            if entity not in entities:
                entities.append(entity)
    return concepts, tuple(entities)


def derive_risk(name: str) -> str:
    """Risk from the name's verb for tools without annotations: read verbs -> read_only,
    delete verbs -> destructive, any other verb or none -> write (fail closed)."""
    words = name_words(name)
    verbs = [base_verb(w) for w in words]
    if any(v in DESTRUCTIVE_VERBS for v in verbs if v):
        return "destructive"
    found = name_verb(words)
    if found is None:
        return "write"
    mutating = [
        v
        for v in verbs
        if v and v not in _AMBIGUOUS_VERBS and VERB_TO_OPERATION[v] not in READ_OPERATIONS
    ]
    if VERB_TO_OPERATION[found[1]] in READ_OPERATIONS and not mutating:
        return "read_only"
    return "write"


def mcp_risk(annotations: Mapping[str, Any]) -> str:
    if annotations.get("readOnlyHint") is True:
        return "read_only"
    if annotations.get("destructiveHint") is True:
        return "destructive"
    return "write"


# --- entries -> cards ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ForeignTool:
    """One tool as a foreign format states it, before any derivation."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    title: str = ""
    annotations: Mapping[str, Any] | None = None  # MCP only; None = format has none


@dataclass(frozen=True, slots=True)
class ImportOptions:
    server: str
    trust: str = "third_party"
    domain: str | None = None  # None: the server name (listed in `derived`)
    connection: str | None = None  # None: the server name (listed in `derived`)
    owner: str = ""
    added_at: str = "1970-01-01"
    risk: str | None = None  # force a risk for every tool (None: annotations or name)


class ImporterError(ValueError):
    """The import cannot start: unknown format, bad server name or trust level."""


def _opt_str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FieldError(key, f"expected a string, got {type(value).__name__}")
    return value


def _name(data: Mapping[str, Any], key: str = "name") -> str:
    value = data.get(key)
    if value is None:
        raise FieldError(key, "missing")
    if not isinstance(value, str) or not value.strip():
        raise FieldError(key, f"expected a non-empty string, got {value!r}")
    return value


def _schema(data: Mapping[str, Any], key: str, *, required: bool) -> Mapping[str, Any]:
    value = data.get(key)
    if value is None:
        if required:
            raise FieldError(key, "missing")
        return {"type": "object", "properties": {}}
    if not isinstance(value, Mapping):
        raise FieldError(key, f"expected a JSON Schema object, got {type(value).__name__}")
    return value


def parse_mcp(entry: Mapping[str, Any]) -> ForeignTool:
    annotations = entry.get("annotations") or {}
    if not isinstance(annotations, Mapping):
        raise FieldError("annotations", "expected an object")
    for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
        if hint in annotations and not isinstance(annotations[hint], bool):
            raise FieldError(
                f"annotations.{hint}", f"expected true or false, got {annotations[hint]!r}"
            )
    title = _opt_str(entry, "title") or _opt_str(annotations, "title")
    return ForeignTool(
        name=_name(entry),
        description=_opt_str(entry, "description"),
        input_schema=_schema(entry, "inputSchema", required=True),
        title=title,
        annotations=annotations,
    )


def parse_openai(entry: Mapping[str, Any]) -> ForeignTool:
    kind = entry.get("type", "function")
    if kind != "function":
        raise FieldError("type", f"{kind!r} is not a function tool (built-in tools have no card)")
    if "function" in entry:
        fn = entry["function"]
        if not isinstance(fn, Mapping):
            raise FieldError("function", "expected an object")
        try:
            return ForeignTool(
                name=_name(fn),
                description=_opt_str(fn, "description"),
                input_schema=_schema(fn, "parameters", required=False),
            )
        except FieldError as err:
            raise FieldError(f"function.{err.field}", err.problem) from None
    return ForeignTool(
        name=_name(entry),
        description=_opt_str(entry, "description"),
        input_schema=_schema(entry, "parameters", required=False),
    )


def parse_anthropic(entry: Mapping[str, Any]) -> ForeignTool:
    kind = entry.get("type", "custom")
    if kind not in ("custom", None):
        raise FieldError("type", f"{kind!r} is a server/built-in tool, not a custom tool")
    return ForeignTool(
        name=_name(entry),
        description=_opt_str(entry, "description"),
        input_schema=_schema(entry, "input_schema", required=True),
    )


PARSERS: Mapping[str, Callable[[Mapping[str, Any]], ForeignTool]] = {
    "mcp": parse_mcp,
    "openai": parse_openai,
    "anthropic": parse_anthropic,
}
# Card fields -> the source field an error should name.
_SOURCE_FIELD: Mapping[str, Mapping[str, str]] = {
    "mcp": {"tool_id": "name", "name": "name", "input_schema": "inputSchema"},
    "openai": {"tool_id": "name", "name": "name", "input_schema": "parameters"},
    "anthropic": {"tool_id": "name", "name": "name", "input_schema": "input_schema"},
}


def detect_format(entries: Sequence[Any]) -> str:
    """Guess the format from the first object entry; default mcp."""
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        if "inputSchema" in entry or "annotations" in entry:
            return "mcp"
        if entry.get("type") == "function" or "function" in entry or "parameters" in entry:
            return "openai"
        if "input_schema" in entry:
            return "anthropic"
    return "mcp"


def tool_to_card(tool: ForeignTool, opts: ImportOptions) -> ToolCard:
    """Build and validate one card, deriving what the source lacks (see `derived`)."""
    capabilities, name_entities = derive_capabilities(
        tool.name, tool.description, server=opts.server
    )
    concepts, schema_entities = schema_concepts(tool.input_schema)
    entities = tuple(dict.fromkeys([*name_entities, *schema_entities]))
    if opts.risk is not None:
        risk = opts.risk
    elif tool.annotations is not None:
        risk = mcp_risk(tool.annotations)
    else:
        risk = derive_risk(tool.name)
    derived = ["summary"]
    if opts.domain is None:
        derived.append("domain")
    if capabilities:
        derived.append("capabilities")
    if entities:
        derived.append("entities")
    if concepts:
        derived.append("input_concepts")
    if opts.connection is None:
        derived.append("requires")
    if opts.risk is None:
        derived.append("risk")
    record = {
        "tool_id": f"{opts.server}.{tool.name}",
        "server": opts.server,
        "domain": opts.domain or opts.server,
        "name": tool.name,
        "summary": derive_summary(tool.description, tool.name, title=tool.title),
        "capabilities": list(capabilities),
        "entities": list(entities),
        "input_concepts": list(concepts),
        "requires": {"connection": opts.connection or opts.server, "scopes": []},
        "risk": risk,
        "owner": opts.owner,
        "input_schema": dict(tool.input_schema),
        "added_at": opts.added_at,
        "trust": opts.trust,
        "description": tool.description,
        "derived": derived,
    }
    return ToolCard.from_dict(record)


def _entries(data: Any, fmt: str) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        if fmt in ("mcp", "auto") and isinstance(data.get("result"), Mapping):
            data = data["result"]
        tools = data.get("tools")
        if isinstance(tools, list):
            return tools
    raise FieldError("<json>", 'expected a list of tools or an object with a "tools" list')


def cards_from_json(
    data: Any, fmt: str, opts: ImportOptions, *, source: str = "<input>"
) -> LoadResult[ToolCard]:
    """Convert parsed JSON to cards; each bad entry becomes a LineError (line = index + 1)."""
    _check_options(fmt, opts)
    try:
        entries = _entries(data, fmt)
    except FieldError as err:
        raise InputError([LineError(source, 0, err.field, err.problem)]) from None
    if fmt == "auto":
        fmt = detect_format(entries)
    parse = PARSERS[fmt]
    rename = _SOURCE_FIELD[fmt]
    result: LoadResult[ToolCard] = LoadResult(items=[], n_lines=len(entries))
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        label = f"tools[{index}]"
        try:
            if not isinstance(entry, Mapping):
                raise FieldError("<entry>", f"expected an object, got {type(entry).__name__}")
            tool = parse(entry)
            try:
                card = tool_to_card(tool, opts)
            except FieldError as err:
                head, _, tail = err.field.partition(".")
                where = rename.get(head, head) + (f".{tail}" if tail else "")
                if fmt == "openai" and "function" in entry and where in ("name", "parameters"):
                    where = f"function.{where}"
                raise FieldError(where, err.problem) from None
            if card.tool_id in seen:
                raise FieldError("name", f"duplicate tool name {tool.name!r}")
            seen.add(card.tool_id)
        except FieldError as err:
            result.errors.append(LineError(source, index + 1, f"{label}.{err.field}", err.problem))
            continue
        result.items.append(card)
    return result


def _check_options(fmt: str, opts: ImportOptions) -> None:
    if fmt not in FORMATS:
        raise ImporterError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if not SERVER_RE.match(opts.server):
        raise ImporterError(
            f"server {opts.server!r} cannot be a tool-id namespace "
            "(letters, digits, '_' and '-', no dots)"
        )
    if opts.trust not in TRUST_LEVELS:
        raise ImporterError(f"trust {opts.trust!r}: expected one of {', '.join(TRUST_LEVELS)}")
    if opts.risk is not None and opts.risk not in RISKS:
        raise ImporterError(f"risk {opts.risk!r}: expected one of {', '.join(RISKS)}")


def today() -> str:
    return datetime.now(UTC).date().isoformat()


def import_tools(
    path: str | Path,
    format: str,
    server: str,
    *,
    trust: str = "third_party",
    domain: str | None = None,
    connection: str | None = None,
    owner: str = "",
    added_at: str | None = None,
    risk: str | None = None,
) -> LoadResult[ToolCard]:
    """Read a tool-definition JSON file and convert every valid entry to a card.

    Raises `InputError` when the file is missing, not JSON or not a tool list, and
    `ImporterError` for bad options; bad entries are reported in the result's `errors`.
    """
    path = Path(path)
    opts = ImportOptions(
        server=server,
        trust=trust,
        domain=domain,
        connection=connection,
        owner=owner,
        added_at=added_at or today(),
        risk=risk,
    )
    _check_options(format, opts)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError([LineError(str(path), 0, "<file>", "not found")]) from None
    except UnicodeDecodeError as err:
        raise InputError([LineError(str(path), 0, "<file>", f"not UTF-8: {err}")]) from None
    except json.JSONDecodeError as err:
        raise InputError(
            [LineError(str(path), err.lineno, "<json>", f"invalid JSON: {err.msg}")]
        ) from None
    return cards_from_json(data, format, opts, source=str(path))


def run_import(
    path: str | Path,
    format: str,
    server: str,
    out: str | Path,
    trust: str = "third_party",
    *,
    domain: str | None = None,
    connection: str | None = None,
    owner: str = "",
    risk: str | None = None,
) -> dict[str, Any]:
    """`toolsift import`: convert a file and write the cards as JSONL to `out`.

    Returns a JSON-ready summary: counts, every error line, and how many cards carry each
    derived field. Raises `InputError` / `ImporterError` when nothing can be imported.
    """
    result = import_tools(
        path,
        format,
        server,
        trust=trust,
        domain=domain,
        connection=connection,
        owner=owner,
        risk=risk,
    )
    n_written = write_jsonl(out, (c.to_dict() for c in result.items))
    derived: dict[str, int] = {}
    for card in result.items:
        for name in card.derived:
            derived[name] = derived.get(name, 0) + 1
    risks = {r: sum(1 for c in result.items if c.risk == r) for r in RISKS}
    return {
        "source": str(path),
        "format": format,
        "server": server,
        "trust": trust,
        "out": str(out),
        "n_entries": result.n_lines,
        "n_imported": n_written,
        "n_skipped": result.n_skipped,
        "errors": [str(e) for e in result.errors],
        "risk": risks,
        "derived": dict(sorted(derived.items())),
    }

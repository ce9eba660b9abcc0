"""Importers: MCP `tools/list` results and OpenAI / Anthropic tool JSON -> tool cards.

A foreign tool definition carries a name, a description and a JSON Schema; a card needs
more (a one-line summary in the user's intent voice, capabilities, entities, a risk
level). What the source lacks is derived (`serving.catalog.derive`) and the field is
listed in `derived`, so a reviewer (and `toolsift lint`) can tell authored fields from
guessed ones. The original description is kept verbatim in `description`.

Formats (`FORMATS`):
- `mcp`: `{"tools": [{name, title?, description, inputSchema, outputSchema?, annotations?}]}`
  (title, annotations and outputSchema are kept on the card as sent), also the
  whole JSON-RPC response (`{"result": {"tools": [...]}}`) or a bare list of tools.
  Risk follows the annotations: `destructiveHint: true` -> destructive (also when
  `readOnlyHint` is set too); else `readOnlyHint: true` -> read_only; else write (a tool
  that does not say it is read-only may write). Annotations are the server's own claims
  and, per the protocol, untrusted unless the server is: for `trust="third_party"` (the
  default) the risk is the higher of the hint and what the name and capabilities say,
  and a disagreement is reported as a warning naming both.
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
problem` (a `serving.model.io.LineError`), skipped and counted; valid entries are kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from serving.catalog.derive import (
    derive_capabilities,
    derive_risk,
    derive_summary,
    hinted_risk,
    schema_concepts,
)
from serving.model.io import InputError, LineError, LoadResult
from serving.model.schema import RISKS, TRUST_LEVELS, FieldError, ToolCard

FORMATS = ("mcp", "openai", "anthropic", "auto")
SERVER_RE = re.compile(r"^[A-Za-z0-9][\w\-]*$")


@dataclass(frozen=True, slots=True)
class ForeignTool:
    """One tool as a foreign format states it, before any derivation."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    title: str = ""
    annotations: Mapping[str, Any] | None = None  # MCP only; None = format has none
    output_schema: Mapping[str, Any] | None = None  # MCP only


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


def _mcp_object_schema(entry: Mapping[str, Any], key: str, *, required: bool) -> Mapping[str, Any]:
    """An MCP tool's input (or output) schema: MCP asks for `"type": "object"`, and the MCP
    SDKs refuse a whole tools/list over one tool without it, so such a tool is refused
    here, by itself, with the reason."""
    schema = _schema(entry, key, required=required)
    if entry.get(key) is not None and schema.get("type") != "object":
        got = "missing" if "type" not in schema else f"{schema['type']!r}"
        raise FieldError(f"{key}.type", f'expected "object" (the MCP schema), got {got}')
    return schema


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
        input_schema=_mcp_object_schema(entry, "inputSchema", required=True),
        title=title,
        annotations=annotations,
        output_schema=_mcp_object_schema(entry, "outputSchema", required=False)
        if entry.get("outputSchema") is not None
        else None,
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
    return tool_to_card_noted(tool, opts)[0]


def tool_to_card_noted(tool: ForeignTool, opts: ImportOptions) -> tuple[ToolCard, str | None]:
    """`tool_to_card` plus the note when a third-party hint and the name disagree."""
    capabilities, name_entities = derive_capabilities(
        tool.name, tool.description, server=opts.server
    )
    concepts, schema_entities = schema_concepts(tool.input_schema)
    entities = tuple(dict.fromkeys([*name_entities, *schema_entities]))
    note = None
    if opts.risk is not None:
        risk = opts.risk
    elif tool.annotations is not None:
        risk, note = hinted_risk(
            tool.annotations, tool.name, capabilities, trusted=opts.trust == "first_party"
        )
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
        # kept as sent: the model reads them, so the lint must
        "title": tool.title,
        "annotations": dict(tool.annotations or {}),
        "output_schema": dict(tool.output_schema or {}),
    }
    return ToolCard.from_dict(record), note


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
                card, note = tool_to_card_noted(tool, opts)
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
        if note is not None:
            result.warnings.append(LineError(source, index + 1, f"{label}.annotations", note))
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

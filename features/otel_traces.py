"""OTLP JSON trace exports -> toolsift trace events, which the `mine` stage reads unchanged.

Input: trace exports in the OTLP/JSON encoding, `{"resourceSpans": [{"scopeSpans":
[{"spans": [...]}]}]}`, as OTLP/HTTP JSON exporters send them and the OpenTelemetry
Collector's file exporter writes them: one export per file (pretty-printed or not) or one
per line. As OTLP/JSON has it, trace and span ids are hex, 64-bit integers may be strings,
enums integers (their names are read too), and an attribute value is an `AnyValue`
(`stringValue`, `intValue`, `arrayValue`, `kvlistValue`, ...). Spans are linked across
lines and files: a batch exporter sends a tool span before the agent span around it.

One event per `execute_tool` span (`gen_ai.operation.name`, else the span name's first
word), read in the GenAI semantic conventions (semantic-conventions-genai v0.1.0):
- tool id: `gen_ai.tool.name` when it is a catalog tool id (`server.tool`), else the one
  card of that name; a name on several servers is ambiguous, an unknown one an error;
- request: the user's input on the nearest `invoke_agent` or `chat` ancestor that has one,
  or on that ancestor's first `chat` child (instrumentations that record messages on the
  model calls only). Read from, first found: `gen_ai.input.messages` (the text parts of
  the last `user` message; structured or a JSON string), the deprecated `gen_ai.prompt`
  (messages as JSON, or plain text), or `gen_ai.prompt.<i>.role` / `.content`
  (OpenLLMetry's flattened prompts: the last user one);
- success: no `error.type` and a status other than ERROR;
- request id `<traceId>:<spanId>` of the request span, the request as the subgoal (spans
  say nothing of subgoals), the request span's start (UTC, seconds) as ts, as the runtime
  stamps a request; no menu, no context.
Not events, only counted: an `execute_tool` span with another below it before any request
span (one call seen by several layers: the agent's MCP client span, the gateway's MCP
server span, the gateway's own span; the innermost stands for the call); the toolsift
gateway's meta-tools; calls the gateway refused before they ran (`toolsift.call.outcome`
in `serving.operations.otel.NOT_RUN_OUTCOMES`), which its native trace does not count either.

Bad input is reported as `file:line: field: problem` (the line the span's export starts
on; the span's JSON path in the export as the field), skipped, counted and quarantined: a
line or file that is not JSON or not an export, a span without valid ids, a span read
twice, and an `execute_tool` span without `gen_ai.tool.name`, with an unknown or
ambiguous tool, or without a request above it. Other spans need only be well formed, and
are kept as links only (ids and name): a long export costs memory for its GenAI spans.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from serving.calls.gate import SEARCH_TOOLS_NAME
from serving.model.io import InputError, LineError, parse_json_line
from serving.model.schema import FieldError, ToolCard, Trace
from serving.operations.otel import NOT_RUN_OUTCOMES, OUTCOME_ATTRIBUTE

TOOL_OPERATION = "execute_tool"
REQUEST_OPERATIONS = ("invoke_agent", "chat")
KNOWN_OPERATIONS = frozenset({TOOL_OPERATION, *REQUEST_OPERATIONS})
# the gateway's meta-tools (`serving.gateway.handlers.META_TOOLS`; not imported: that
# module needs the MCP SDK)
GATEWAY_META_TOOLS = frozenset({SEARCH_TOOLS_NAME, "describe_tool", "fetch_observation"})
STATUS_ERROR = (2, "2", "STATUS_CODE_ERROR")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_PROMPT_KEY = re.compile(r"^gen_ai\.prompt\.(\d+)\.(role|content)$")
_BOM = b"\xef\xbb\xbf"
SpanKey = tuple[str, str]  # (trace id, span id)


@dataclass(frozen=True, slots=True)
class OtelSpan:
    """One span as the converter needs it, with where it was read."""

    trace_id: str
    span_id: str
    parent_id: str  # "" for a root span
    name: str
    start_ns: int
    attributes: Mapping[str, Any]
    status_error: bool
    path: str = ""
    line: int = 0
    where: str = ""  # its JSON path in the export
    raw: Any = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> SpanKey:
        return (self.trace_id, self.span_id)

    @property
    def operation(self) -> str:
        op = self.attributes.get("gen_ai.operation.name")
        if isinstance(op, str) and op:
            return op
        first = self.name.split(" ", 1)[0]
        return first if first in KNOWN_OPERATIONS else ""

    def error(self, field_name: str, problem: str) -> LineError:
        where = f"{self.where}.{field_name}"
        return LineError(self.path, self.line, where, f"{problem} (span {self.span_id})")


# --- OTLP/JSON values -----------------------------------------------------------------------


def any_value(value: Any, where: str) -> Any:
    """An OTLP `AnyValue` as plain Python (`kvlistValue` a dict, `arrayValue` a list)."""
    if not isinstance(value, Mapping):
        raise FieldError(where, "expected an AnyValue object")
    if not value:
        return None
    kind, inner = next(iter(value.items()))
    if kind == "stringValue" and isinstance(inner, str):
        return inner
    if kind == "boolValue" and isinstance(inner, bool):
        return inner
    if kind == "intValue" and isinstance(inner, int | str) and not isinstance(inner, bool):
        try:
            return int(inner)
        except ValueError:
            raise FieldError(where, f"intValue {inner!r} is not an integer") from None
    if kind == "doubleValue" and isinstance(inner, int | float | str):
        try:
            return float(inner)
        except ValueError:
            raise FieldError(where, f"doubleValue {inner!r} is not a number") from None
    if kind == "bytesValue" and isinstance(inner, str):
        return inner  # base64, as the JSON carries it
    if kind == "arrayValue" and isinstance(inner, Mapping):
        values = inner.get("values") or []
        if not isinstance(values, list):
            raise FieldError(where, "arrayValue.values: expected a list")
        return [any_value(v, f"{where}[{i}]") for i, v in enumerate(values)]
    if kind == "kvlistValue" and isinstance(inner, Mapping):
        return key_values(inner.get("values"), where)
    raise FieldError(where, f"unknown or mistyped AnyValue {kind!r}")


def key_values(entries: Any, where: str) -> dict[str, Any]:
    """A list of `{"key", "value"}` (attributes, kvlistValue) as a dict; the last key wins."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise FieldError(where, "expected a list of {key, value}")
    out: dict[str, Any] = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("key"), str):
            raise FieldError(f"{where}[{i}]", "expected {key, value} with a string key")
        out[entry["key"]] = any_value(entry.get("value", {}), f"{where}[{i}].value")
    return out


def _hex_id(raw: Mapping[str, Any], key: str, digits: int) -> str:
    value = raw.get(key)
    if value is None or value == "":
        raise FieldError(key, "missing")
    if not isinstance(value, str) or len(value) != digits or not _HEX.match(value):
        raise FieldError(key, f"expected {digits} hex digits, got {str(value)[:40]!r}")
    if not value.strip("0"):
        raise FieldError(key, "all zeros (an invalid id)")
    return value.lower()


def _unix_nano(raw: Mapping[str, Any], key: str) -> int:
    value = raw.get(key, 0)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise FieldError(key, f"expected nanoseconds since the epoch, got {str(value)[:40]!r}")


def parse_span(raw: Any, *, path: str = "", line: int = 0, where: str = "") -> OtelSpan:
    """One OTLP/JSON span; `FieldError` names the field that is missing or wrong."""
    if not isinstance(raw, Mapping):
        raise FieldError("<span>", "expected a span object")
    parent = raw.get("parentSpanId") or ""
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise FieldError("name", "expected a string")
    status = raw.get("status") or {}
    if not isinstance(status, Mapping):
        raise FieldError("status", "expected an object")
    return OtelSpan(
        trace_id=_hex_id(raw, "traceId", 32),
        span_id=_hex_id(raw, "spanId", 16),
        parent_id=_hex_id(raw, "parentSpanId", 16) if parent else "",
        name=name,
        start_ns=_unix_nano(raw, "startTimeUnixNano"),
        attributes=key_values(raw.get("attributes"), "attributes"),
        status_error=status.get("code") in STATUS_ERROR,
        path=path,
        line=line,
        where=where,
        raw=raw,
    )


def export_spans(
    export: Any, *, path: str = "", line: int = 0
) -> tuple[list[OtelSpan], list[tuple[LineError, Any]]]:
    """The spans of one export, and each bad span's error with the span as read."""
    where = "resourceSpans"
    if not isinstance(export, Mapping) or not isinstance(export.get(where), list):
        problem = "expected an OTLP trace export: {\"resourceSpans\": [...]}"
        return [], [(LineError(path, line, "<export>", problem), export)]
    spans: list[OtelSpan] = []
    bad: list[tuple[LineError, Any]] = []
    for i, resource in enumerate(export[where]):
        scopes = resource.get("scopeSpans") if isinstance(resource, Mapping) else None
        if not isinstance(scopes, list):
            bad.append((LineError(path, line, f"{where}[{i}].scopeSpans", "expected a list"),
                        resource))
            continue
        for j, scope in enumerate(scopes):
            at = f"{where}[{i}].scopeSpans[{j}].spans"
            raws = scope.get("spans") if isinstance(scope, Mapping) else None
            if not isinstance(raws, list):
                bad.append((LineError(path, line, at, "expected a list"), scope))
                continue
            for k, raw in enumerate(raws):
                try:
                    span = parse_span(raw, path=path, line=line, where=f"{at}[{k}]")
                except FieldError as err:
                    bad.append((LineError(path, line, f"{at}[{k}].{err.field}", err.problem),
                                raw))
                    continue
                # other spans (HTTP, database, ...) only link: their attributes are dropped
                keep = span.operation in KNOWN_OPERATIONS
                spans.append(span if keep else replace(span, attributes={}, raw=None))
    return spans, bad


@dataclass(frozen=True, slots=True)
class BadExport:
    """A line (or file) that is not JSON: the problem and the text as read."""

    error: FieldError
    text: str


def read_exports(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line, export) for each export in a file, one per line (JSONL) or one for the whole
    file (its line 1). An export that is not JSON comes as a `BadExport`; a file that
    cannot be read at all is an `InputError`."""
    path = Path(path)
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise InputError([LineError(str(path), 0, "<file>", "not found")]) from None
    except OSError as err:
        problem = "is a directory" if path.is_dir() else f"cannot read: {err.strerror}"
        raise InputError([LineError(str(path), 0, "<file>", problem)]) from None
    with fh:
        lines = ((n, raw.removeprefix(_BOM) if n == 1 else raw) for n, raw in enumerate(fh, 1))
        first = next(((n, raw) for n, raw in lines if raw.strip()), None)
        if first is None:
            return
        if isinstance(_parsed(first[1]), Mapping):  # a whole export on its first line: JSONL
            for n, raw in [first, *((n, raw) for n, raw in lines if raw.strip())]:
                yield n, _parsed(raw)
            return
        fh.seek(0)
        text = fh.read().removeprefix(_BOM)
    parsed = _parsed(text)
    yield (_error_line(text) if isinstance(parsed, BadExport) else 1), parsed


def _parsed(raw: bytes) -> Any:
    try:
        return parse_json_line(raw)
    except FieldError as err:
        return BadExport(err, raw.decode("utf-8", errors="replace").rstrip("\r\n"))


def _error_line(text: bytes) -> int:
    """Where a whole-file JSON document fails to parse (1 when the parser does not say)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return err.lineno
    except ValueError:
        pass
    return 1


# --- the user's request ---------------------------------------------------------------------


def user_request(attributes: Mapping[str, Any]) -> str:
    """The user's input on a span (see the module doc for the attributes read), or ""."""
    messages = _messages(attributes.get("gen_ai.input.messages"))
    text = _last_user_text(messages) if messages is not None else ""
    if not text:
        prompt = attributes.get("gen_ai.prompt")
        messages = _messages(prompt)
        if messages is not None:
            text = _last_user_text(messages)
        elif isinstance(prompt, str):
            text = prompt.strip()
    if not text:
        text = _indexed_prompt(attributes)
    return text


def _messages(value: Any) -> list[Any] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, list) else None


def _last_user_text(messages: Sequence[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            text = _message_text(message)
            if text:
                return text
    return ""


def _message_text(message: Mapping[str, Any]) -> str:
    """The text of one message: its `text` parts (the conventions' shape), else a string
    `content` or OpenAI-style content parts (`{"type": "text", "text": ...}`)."""
    texts: list[str] = []
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [p["content"] for p in parts if isinstance(p, Mapping)
                 and p.get("type") == "text" and isinstance(p.get("content"), str)]
    content = message.get("content")
    if not texts and isinstance(content, str):
        texts = [content]
    elif not texts and isinstance(content, list):
        texts = [p["text"] for p in content if isinstance(p, Mapping)
                 and p.get("type") == "text" and isinstance(p.get("text"), str)]
    return "\n".join(t.strip() for t in texts if t.strip())


def _indexed_prompt(attributes: Mapping[str, Any]) -> str:
    prompts: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in attributes.items():
        match = _PROMPT_KEY.match(key)
        if match:
            prompts[int(match[1])][match[2]] = value
    for i in sorted(prompts, reverse=True):
        content = prompts[i].get("content")
        if prompts[i].get("role") == "user" and isinstance(content, str) and content.strip():
            return content.strip()
    return ""


# --- spans -> events -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolNames:
    """Resolves `gen_ai.tool.name` to a catalog tool id."""

    ids: frozenset[str]
    by_name: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(cls, cards: Iterable[ToolCard]) -> ToolNames:
        by_name: dict[str, list[str]] = defaultdict(list)
        ids = []
        for card in cards:
            ids.append(card.tool_id)
            by_name[card.name].append(card.tool_id)
        return cls(frozenset(ids), {k: tuple(sorted(v)) for k, v in by_name.items()})

    def resolve(self, name: str) -> str:
        if name in self.ids:
            return name
        found = self.by_name.get(name, ())
        if len(found) == 1:
            return found[0]
        if found:
            raise FieldError("attributes.gen_ai.tool.name", f"ambiguous tool name {name!r}: "
                             f"{', '.join(found)}; name tools as server.tool")
        raise FieldError("attributes.gen_ai.tool.name", f"unknown tool {name!r}: not in the "
                         "catalog by id or name")


@dataclass(slots=True)
class OtelEvents:
    """What the spans gave: the events, the bad tool spans (error, span as read), counts."""

    traces: list[Trace] = field(default_factory=list)
    bad: list[tuple[LineError, Any]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


def tool_events(spans: Sequence[OtelSpan], names: ToolNames) -> OtelEvents:
    """Every `execute_tool` span as a trace event (see the module doc), grouped by request
    in start order. The spans must be unique by (trace id, span id)."""
    by_key = {s.key: s for s in spans}
    children: dict[SpanKey, list[OtelSpan]] = defaultdict(list)
    for s in spans:
        if s.parent_id:
            children[(s.trace_id, s.parent_id)].append(s)
    tools = sorted((s for s in spans if s.operation == TOOL_OPERATION),
                   key=lambda s: (s.start_ns, s.trace_id, s.span_id))
    wrappers: set[SpanKey] = set()
    requests = {s.key: _request_above(s, by_key, children, wrappers) for s in tools}
    out = OtelEvents()
    out.counts["n_tool_spans"] = len(tools)
    events: list[tuple[tuple[int, SpanKey, int], Trace]] = []
    for span in tools:
        if span.key in wrappers:
            out.counts["n_nested"] += 1
            continue
        name = span.attributes.get("gen_ai.tool.name")
        if not isinstance(name, str) or not name.strip():
            out.bad.append((span.error("attributes.gen_ai.tool.name", "missing: an "
                                       "execute_tool span names its tool"), span.raw))
            continue
        if name in GATEWAY_META_TOOLS:
            out.counts["n_meta_tool"] += 1
            continue
        if span.attributes.get(OUTCOME_ATTRIBUTE) in NOT_RUN_OUTCOMES:
            out.counts["n_not_run"] += 1
            continue
        found = requests[span.key]
        if isinstance(found, str):
            out.bad.append((span.error("parentSpanId", found), span.raw))
            continue
        try:
            tool_id = names.resolve(name)
        except FieldError as err:
            out.bad.append((span.error(err.field, err.problem), span.raw))
            continue
        request, text = found
        success = "error.type" not in span.attributes and not span.status_error
        out.counts["n_failed"] += not success
        events.append(((request.start_ns, request.key, span.start_ns), Trace(
            subgoal=text, tool_id=tool_id, success=success,
            request_id=f"{request.trace_id}:{request.span_id}", request=text,
            ts=_utc(request.start_ns),
        )))
    out.traces = [trace for _, trace in sorted(events, key=lambda e: e[0])]
    return out


def _request_above(
    span: OtelSpan,
    by_key: Mapping[SpanKey, OtelSpan],
    children: Mapping[SpanKey, list[OtelSpan]],
    wrappers: set[SpanKey],
) -> tuple[OtelSpan, str] | str:
    """The request span above a tool span and its text, or why there is none. Marks the
    `execute_tool` spans passed on the way before any request span: outer views of the
    same call."""
    current, seen, below_request = span, {span.key}, True
    while current.parent_id:
        key = (current.trace_id, current.parent_id)
        parent = by_key.get(key)
        if parent is None:
            return f"no request above it: its parent span {current.parent_id} is not in the input"
        if key in seen:
            return "no request above it: its ancestors form a loop"
        seen.add(key)
        if parent.operation == TOOL_OPERATION and below_request:
            wrappers.add(key)
        elif parent.operation in REQUEST_OPERATIONS:
            below_request = False
            text = user_request(parent.attributes) or _first_chat_text(parent, children)
            if text:
                return parent, text
        current = parent
    return ("no request above it: no invoke_agent or chat ancestor carries the user's input "
            "(gen_ai.input.messages, gen_ai.prompt)")


def _first_chat_text(span: OtelSpan, children: Mapping[SpanKey, list[OtelSpan]]) -> str:
    chats = sorted((c for c in children.get(span.key, ()) if c.operation == "chat"),
                   key=lambda c: c.start_ns)
    return next((text for c in chats if (text := user_request(c.attributes))), "")


def _utc(start_ns: int) -> str:
    if start_ns <= 0:
        return ""
    return datetime.fromtimestamp(start_ns // 1_000_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- files -> events --------------------------------------------------------------------------


@dataclass(slots=True)
class OtelImport:
    traces: list[Trace]
    errors: list[LineError]
    counts: Mapping[str, int]

    def summary(self) -> str:
        c = self.counts
        return (f"{len(self.traces)} events ({c.get('n_failed', 0)} failed) from "
                f"{c.get('n_tool_spans', 0)} execute_tool spans in {c.get('n_exports', 0)} "
                f"exports; {len(self.errors)} bad, {c.get('n_nested', 0)} nested, "
                f"{c.get('n_not_run', 0)} never ran, {c.get('n_meta_tool', 0)} meta-tool calls")


def import_otlp(
    paths: Sequence[str | Path],
    cards: Sequence[ToolCard],
    *,
    strict: bool = False,
    quarantine: str | Path | None = None,
) -> OtelImport:
    """Read every export of `paths`, link the spans across them, and convert (see the module
    doc). Bad input is skipped and written to `quarantine` with its error (`{"error",
    "line", "raw"}` a line); `strict=True` raises `InputError` at the first instead."""
    spans: dict[SpanKey, OtelSpan] = {}
    bad: list[tuple[LineError, Any]] = []
    counts: Counter[str] = Counter(n_files=len(paths))

    def reject(error: LineError, raw: Any) -> None:
        if strict:
            raise InputError([error])
        bad.append((error, raw))

    for path in paths:
        for line, export in read_exports(path):
            counts["n_exports"] += 1
            if isinstance(export, BadExport):
                reject(LineError(str(path), line, export.error.field, export.error.problem),
                       export.text)
                continue
            read, broken = export_spans(export, path=str(path), line=line)
            for error, raw in broken:
                reject(error, raw)
            for span in read:
                counts["n_spans"] += 1
                first = spans.setdefault(span.key, span)
                if first is not span:
                    reject(span.error("spanId", f"span read twice (first at {first.path}:"
                                      f"{first.line}: {first.where})"), span.raw)
    events = tool_events(list(spans.values()), ToolNames.of(cards))
    for error, raw in events.bad:
        reject(error, raw)
    counts.update(events.counts)
    if quarantine is not None and bad:
        qpath = Path(quarantine)
        qpath.parent.mkdir(parents=True, exist_ok=True)
        with qpath.open("w", encoding="utf-8") as fh:
            for error, raw in bad:
                text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
                record = {"error": str(error), "line": error.line, "raw": text}
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return OtelImport(events.traces, [e for e, _ in bad], dict(counts))

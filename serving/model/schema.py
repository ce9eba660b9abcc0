"""The shared data model: tool cards, traces, labeled queries and the bundle manifest.

Every record type is a frozen dataclass with `from_dict` (validating, raising
`FieldError` that names the offending field) and `to_dict` (JSON-ready). The loaders
that read whole JSONL files live in `serving.model.io`.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from serving.model.fields import FieldError, check_json_schema, check_json_value

RISKS = ("read_only", "write", "destructive")
TRUST_LEVELS = ("first_party", "third_party")
MAX_SCHEMA_DEPTH = 32  # levels of an input_schema; real ones use under 10
TOOL_ID_RE = re.compile(r"^[A-Za-z0-9][\w\-]*\.[^\s.][^\s]*$")


# --- small validating readers -------------------------------------------------------


def _req(data: Mapping[str, Any], key: str) -> Any:
    if key not in data or data[key] is None:
        raise FieldError(key, "missing")
    return data[key]


def _str(data: Mapping[str, Any], key: str, *, default: str | None = None) -> str:
    value = data.get(key, default) if default is not None else _req(data, key)
    if not isinstance(value, str):
        raise FieldError(key, f"expected a string, got {type(value).__name__}")
    return value


def _nonempty_str(data: Mapping[str, Any], key: str) -> str:
    value = _str(data, key)
    if not value.strip():
        raise FieldError(key, "empty")
    return value


def _str_tuple(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    # Only absence (or null) means "empty": a falsy value of the wrong type (0, false, "")
    # is an error, since for `scopes` or `env` an empty list would lift a restriction.
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FieldError(key, f"expected a list of strings, got {_kind(value)}")
    return tuple(value)


def _mapping(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """An optional object field; absent or null is {}, any other non-object is an error."""
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise FieldError(key, f"expected an object, got {_kind(value)}")
    return dict(value)


def _context(data: Mapping[str, Any], key: str = "context") -> dict[str, Any]:
    """A session context: `connections` / `scopes` lists of strings, `env` a string. A
    wrong type is an error rather than "no restriction" (`"connections": "slack"` is not
    a list of one)."""
    context = _mapping(data, key)
    try:
        for name in ("connections", "scopes"):
            if name in context:
                if context[name] is None:
                    raise FieldError(name, "null (leave the key out for no restriction)")
                _str_tuple(context, name)
        if "env" in context and context["env"] is not None:
            _str(context, "env")
    except FieldError as err:
        raise FieldError(f"{key}.{err.field}", err.problem) from None
    return context


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]


# Bounds on the numeric fields: beyond them a value is a typo or an attack, not a measurement.
MAX_COST = 1e6  # USD per call
MAX_LATENCY_MS = 86_400_000.0  # one day


def _number(data: Mapping[str, Any], key: str, default: float, *, maximum: float) -> float:
    value = data.get(key, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= maximum
    ):
        raise FieldError(key, f"expected a number in [0, {maximum:g}], got {_kind(value)}")
    return float(value)


def _choice(
    data: Mapping[str, Any], key: str, choices: Sequence[str], default: str | None
) -> str:
    """One of `choices`; `default=None` makes the field required."""
    value = _req(data, key) if default is None else data.get(key, default)
    if value not in choices:
        raise FieldError(key, f"unknown value {value!r} (expected one of {', '.join(choices)})")
    return str(value)


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = _req(data, key)
    if not isinstance(value, bool):
        raise FieldError(key, f"expected true or false, got {value!r}")
    return value


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- tool cards ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Requires:
    """What a session must hold to call a tool: a connection and OAuth-style scopes."""

    connection: str
    scopes: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: Any) -> Requires:
        if not isinstance(data, Mapping):
            raise FieldError("requires", "expected an object with connection and scopes")
        try:
            return cls(
                connection=_nonempty_str(data, "connection"), scopes=_str_tuple(data, "scopes")
            )
        except FieldError as err:
            raise FieldError(f"requires.{err.field}", err.problem) from None

    def to_dict(self) -> dict[str, Any]:
        return {"connection": self.connection, "scopes": list(self.scopes)}


@dataclass(frozen=True, slots=True)
class ToolCard:
    """One tool. The first group of fields is indexed; the rest is loaded on demand."""

    # indexed
    tool_id: str
    server: str
    domain: str
    name: str
    summary: str
    capabilities: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    input_concepts: tuple[str, ...] = ()
    prefer_over: tuple[str, ...] = ()
    not_for: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    # on demand
    requires: Requires = field(default_factory=lambda: Requires(connection=""))
    risk: str = "read_only"
    cost: float = 0.0
    p50_ms: float = 0.0
    owner: str = ""
    schema_version: str = "1"
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    env: tuple[str, ...] = ()
    added_at: str = "1970-01-01"
    trust: str = "first_party"
    description: str = ""
    derived: tuple[str, ...] = ()  # fields an importer filled in rather than the author
    # security warnings of the lint on a third-party card (`serving.catalog.lint.
    # mark_cautions`): the tool reaches a menu only at `runtime.caution_bar` relevance
    cautions: tuple[str, ...] = ()
    # what else an MCP server sends the model beside the description (read by the lint,
    # compared by the gateway's rug-pull check; never indexed): empty when it sent none
    title: str = ""
    annotations: Mapping[str, Any] = field(default_factory=dict)
    output_schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def mutates(self) -> bool:
        return self.risk != "read_only"

    @property
    def connection(self) -> str:
        return self.requires.connection

    def index_text(self) -> str:
        """The one text every retriever and reranker sees for this tool."""
        parts = [self.tool_id, self.name.replace("_", " "), self.summary]
        if self.capabilities:
            parts.append("capabilities: " + ", ".join(self.capabilities))
        if self.entities:
            parts.append("entities: " + ", ".join(self.entities))
        if self.not_for:
            parts.append("not for: " + "; ".join(self.not_for))
        return ". ".join(p for p in parts if p)

    def description_hash(self) -> str:
        return sha256_text(self.description)

    @classmethod
    def from_dict(cls, data: Any, *, check_schema: bool = True) -> ToolCard:
        """`check_schema=False` skips validating `input_schema` against the JSON Schema
        meta-schema (~4 ms a card): for cards whose file a bundle's hash vouches for."""
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        tool_id = _nonempty_str(data, "tool_id")
        if not TOOL_ID_RE.match(tool_id):
            raise FieldError("tool_id", f"{tool_id!r} is not of the form 'server.tool'")
        server = _nonempty_str(data, "server")
        if not tool_id.startswith(server + "."):
            raise FieldError("tool_id", f"{tool_id!r} does not start with its server {server!r}")
        schema = data.get("input_schema", {"type": "object"})
        if not isinstance(schema, Mapping):
            raise FieldError("input_schema", "expected a JSON Schema object")
        # bounded first: check_schema recurses, and a NaN bound would make validation moot
        check_json_value(schema, "input_schema", max_depth=MAX_SCHEMA_DEPTH)
        if check_schema:
            check_json_schema(schema)
        extras = {}
        for key in ("annotations", "output_schema"):
            value = data.get(key) or {}
            if not isinstance(value, Mapping):
                raise FieldError(key, "expected a JSON object")
            check_json_value(value, key, max_depth=MAX_SCHEMA_DEPTH)
            extras[key] = dict(value)
        added_at = _str(data, "added_at", default="1970-01-01")
        try:
            date.fromisoformat(added_at[:10])
        except ValueError:
            raise FieldError("added_at", f"{added_at!r} is not an ISO date") from None
        return cls(
            tool_id=tool_id,
            server=server,
            domain=_nonempty_str(data, "domain"),
            name=_nonempty_str(data, "name"),
            summary=_str(data, "summary"),
            capabilities=_str_tuple(data, "capabilities"),
            entities=_str_tuple(data, "entities"),
            input_concepts=_str_tuple(data, "input_concepts"),
            prefer_over=_str_tuple(data, "prefer_over"),
            not_for=_str_tuple(data, "not_for"),
            examples=_str_tuple(data, "examples"),
            requires=Requires.from_dict(_req(data, "requires")),
            # no default: a card that does not say is not silently read-only (fail closed)
            risk=_choice(data, "risk", RISKS, None),
            cost=_number(data, "cost", 0.0, maximum=MAX_COST),
            p50_ms=_number(data, "p50_ms", 0.0, maximum=MAX_LATENCY_MS),
            owner=_str(data, "owner", default=""),
            schema_version=_str(data, "schema_version", default="1"),
            input_schema=dict(schema),
            env=_str_tuple(data, "env"),
            added_at=added_at,
            trust=_choice(data, "trust", TRUST_LEVELS, "first_party"),
            description=_str(data, "description", default=""),
            derived=_str_tuple(data, "derived"),
            cautions=_str_tuple(data, "cautions"),
            title=_str(data, "title", default=""),
            **extras,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tool_id": self.tool_id,
            "server": self.server,
            "domain": self.domain,
            "name": self.name,
            "summary": self.summary,
            "capabilities": list(self.capabilities),
            "entities": list(self.entities),
            "input_concepts": list(self.input_concepts),
            "prefer_over": list(self.prefer_over),
            "not_for": list(self.not_for),
            "examples": list(self.examples),
            "requires": self.requires.to_dict(),
            "risk": self.risk,
            "cost": self.cost,
            "p50_ms": self.p50_ms,
            "owner": self.owner,
            "schema_version": self.schema_version,
            "input_schema": dict(self.input_schema),
            "env": list(self.env),
            "added_at": self.added_at,
            "trust": self.trust,
            "description": self.description,
        }
        if self.derived:
            out["derived"] = list(self.derived)
        if self.cautions:
            out["cautions"] = list(self.cautions)
        if self.title:
            out["title"] = self.title
        if self.annotations:
            out["annotations"] = dict(self.annotations)
        if self.output_schema:
            out["output_schema"] = dict(self.output_schema)
        return out


# --- traces -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Trace:
    """One (subgoal, tool used, success) event; several share a request_id.

    The runtime writes one record per request with a `steps` list; `traces_from_record`
    flattens both that shape and the flat one into these events.
    """

    subgoal: str
    tool_id: str
    success: bool
    request_id: str = ""
    request: str = ""
    ts: str = ""
    menu: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any, *, defaults: Mapping[str, Any] | None = None) -> Trace:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        merged = {**(defaults or {}), **data}
        context = _context(merged)
        return cls(
            subgoal=_nonempty_str(merged, "subgoal"),
            tool_id=_nonempty_str(merged, "tool_id"),
            success=_bool(merged, "success"),
            request_id=_str(merged, "request_id", default=""),
            request=_str(merged, "request", default=""),
            ts=_str(merged, "ts", default=""),
            menu=_str_tuple(merged, "menu"),
            context=dict(context),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "ts": self.ts,
            "request": self.request,
            "subgoal": self.subgoal,
            "tool_id": self.tool_id,
            "success": self.success,
            "menu": list(self.menu),
            "context": dict(self.context),
        }


def traces_from_record(data: Any) -> list[Trace]:
    """Flatten one trace line: either a flat event or a runtime request with `steps`."""
    if isinstance(data, Mapping) and "steps" in data:
        steps = data["steps"]
        if not isinstance(steps, list):
            raise FieldError("steps", "expected a list")
        shared = {k: data[k] for k in ("request_id", "request", "ts", "context") if k in data}
        out = []
        for i, step in enumerate(steps):
            if not isinstance(step, Mapping):
                raise FieldError(f"steps[{i}]", "expected an object")
            if step.get("tool_id") is None:
                continue  # the runtime abstained or the model never chose: no event to learn
            try:
                out.append(Trace.from_dict(step, defaults=shared))
            except FieldError as err:
                raise FieldError(f"steps[{i}].{err.field}", err.problem) from None
        return out
    return [Trace.from_dict(data)]


# --- labeled queries ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LabeledSubgoal:
    text: str
    gold: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "gold": list(self.gold)}


@dataclass(frozen=True, slots=True)
class LabeledQuery:
    """A whole request with its gold tools; empty gold means no suitable tool exists."""

    query_id: str
    query: str
    gold: tuple[str, ...]
    subgoals: tuple[LabeledSubgoal, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)
    slices: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: Any) -> LabeledQuery:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        gold = _req(data, "gold")
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise FieldError("gold", "expected a list of tool ids (empty = no suitable tool)")
        raw_subgoals = data.get("subgoals")
        if raw_subgoals is None:
            raw_subgoals = []
        if not isinstance(raw_subgoals, list):
            raise FieldError("subgoals", f"expected a list, got {_kind(raw_subgoals)}")
        subgoals = []
        for i, sg in enumerate(raw_subgoals):
            if not isinstance(sg, Mapping):
                raise FieldError(f"subgoals[{i}]", "expected an object with text and gold")
            try:
                subgoals.append(LabeledSubgoal(_nonempty_str(sg, "text"), _str_tuple(sg, "gold")))
            except FieldError as err:
                raise FieldError(f"subgoals[{i}].{err.field}", err.problem) from None
        context = _context(data)
        return cls(
            query_id=_nonempty_str(data, "query_id"),
            query=_nonempty_str(data, "query"),
            gold=tuple(gold),
            subgoals=tuple(subgoals),
            context=dict(context),
            slices=_str_tuple(data, "slices"),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query_id": self.query_id,
            "query": self.query,
            "gold": list(self.gold),
        }
        if self.subgoals:
            out["subgoals"] = [sg.to_dict() for sg in self.subgoals]
        if self.context:
            out["context"] = dict(self.context)
        if self.slices:
            out["slices"] = list(self.slices)
        return out


# --- bundle manifest ----------------------------------------------------------------

# 2: the version id covers the whole manifest, not only the file list (format 1 bundles
# are refused: their params, models and metrics could change under a pinned version)
BUNDLE_FORMAT_VERSION = 2


@dataclass(frozen=True, slots=True)
class BundleManifest:
    format_version: int
    bundle_version: str
    created_at: str
    git_rev: str
    files: Mapping[str, str]  # relative path -> sha256
    params: Mapping[str, Any] = field(default_factory=dict)
    metrics: Mapping[str, Any] = field(default_factory=dict)
    feature_names: tuple[str, ...] = ()
    models: Mapping[str, Any] = field(default_factory=dict)
    mlflow_run_id: str = ""
    signature: str = ""  # Ed25519 over the bundle_version; the one field not addressed

    @classmethod
    def from_dict(cls, data: Any) -> BundleManifest:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        version = _req(data, "format_version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise FieldError("format_version", f"expected an integer, got {version!r}")
        files = _req(data, "files")
        if not isinstance(files, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in files.items()
        ):
            raise FieldError("files", "expected an object of path -> sha256")
        for key in ("params", "metrics", "models"):
            if not isinstance(data.get(key, {}), Mapping):
                raise FieldError(key, "expected an object")
        return cls(
            format_version=version,
            bundle_version=_nonempty_str(data, "bundle_version"),
            created_at=_nonempty_str(data, "created_at"),
            git_rev=_str(data, "git_rev", default=""),
            files=dict(files),
            params=dict(data.get("params", {})),
            metrics=dict(data.get("metrics", {})),
            feature_names=_str_tuple(data, "feature_names"),
            models=dict(data.get("models", {})),
            mlflow_run_id=_str(data, "mlflow_run_id", default=""),
            signature=_str(data, "signature", default=""),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "bundle_version": self.bundle_version,
            "created_at": self.created_at,
            "git_rev": self.git_rev,
            "mlflow_run_id": self.mlflow_run_id,
            "params": dict(self.params),
            "metrics": dict(self.metrics),
            "feature_names": list(self.feature_names),
            "models": dict(self.models),
            "files": dict(sorted(self.files.items())),
            **({"signature": self.signature} if self.signature else {}),
        }

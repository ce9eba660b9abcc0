"""Tool names, input schemas and risk levels of the generated tools.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from serving.model.vocab import READ_OPERATIONS
from training.demo.phrasing import ENTITY_ABBR, OP_ABBR
from training.demo.spec import EntitySpec, ServerSpec

# --- parameters of the generated input schemas ------------------------------------------------

_DATE = {"type": "string", "format": "date"}
_STAMP = {"type": "string", "format": "date-time"}
PARAM_SCHEMAS: dict[str, dict[str, Any]] = {
    **{k: {"type": "integer", "minimum": 0} for k in (
        "number", "replicas", "revision", "tail_lines", "run_id", "pid", "min_replicas",
        "max_replicas", "cpu_target", "duration", "capacity", "rotation_days", "line", "quantity",
        "unit_amount", "year_from", "radius", "min_duration_ms", "hook_id", "count", "version")},
    **{k: {"type": "boolean"} for k in (
        "previous", "draft", "masked", "is_private", "unschedulable", "concurrently", "submit",
        "dry_run", "unread")},
    **{k: {"type": "array", "items": {"type": "string"}} for k in (
        "labels", "attendees", "events", "taints", "tags", "items", "policies", "members",
        "included", "variations", "columns", "duplicate_ids", "cc")},
    **{k: {"type": "object"} for k in (
        "parameters", "values", "data", "properties", "document", "definition", "rules",
        "evidence", "set", "filter", "sorts", "panels")},
    **{k: _DATE for k in ("start_date", "end_date", "due_date", "close_date", "due_before",
                          "close_before", "arrival_after")},
    **{k: _STAMP for k in ("since", "until", "time_min", "time_max", "created_gte", "from", "to",
                           "start", "end", "modified_after", "expiration", "time")},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25},
    "amount": {"type": "number", "minimum": 0},
    "threshold": {"type": "number"},
    "state": {"type": "string", "enum": ["open", "closed", "merged", "all"]},
    "status": {"type": "string", "enum": ["open", "in_progress", "resolved", "closed"]},
    "visibility": {"type": "string", "enum": ["public", "private", "internal"]},
    "urgency": {"type": "string", "enum": ["high", "low"]},
    "severity": {"type": "string", "enum": ["critical", "error", "warning", "info"]},
    "priority": {"type": "string", "enum": ["P1", "P2", "P3", "P4"]},
    "format": {"type": "string", "enum": ["csv", "json", "ndjson"], "default": "csv"},
    "permission": {"type": "string", "enum": ["read", "triage", "write", "admin"]},
    "role": {"type": "string", "enum": ["viewer", "commenter", "editor", "owner"]},
    "reason": {"type": "string", "enum": ["duplicate", "fraudulent", "requested_by_customer"]},
    "method": {"type": "string", "enum": ["merge", "squash", "rebase"], "default": "merge"},
    "size": {"type": "string", "enum": ["XSMALL", "SMALL", "MEDIUM", "LARGE", "XLARGE"]},
    "level": {"type": "string", "enum": ["debug", "info", "warn", "error"]},
    "interval": {"type": "string", "enum": ["month", "year"]},
    "freshness": {"type": "string", "enum": ["day", "week", "month"]},
    "environment": {"type": "string", "enum": ["production", "staging"]},
    "risk": {"type": "string", "enum": ["low", "moderate", "high"]},
    "type": {"type": "string", "enum": ["Normal", "Warning", "blocks", "duplicates", "relates"]},
    "access": {"type": "string", "enum": ["view", "edit"]},
}
PARAM_DOCS = {
    "repo": "Repository as owner/name, e.g. acme/web.", "org": "Organisation login.",
    "sha": "Full or abbreviated commit SHA.", "base": "Base ref (branch, tag or SHA).",
    "head": "Head ref to compare or merge from.", "namespace": "Kubernetes namespace.",
    "query": "Free-text query; supports quoted phrases.", "limit": "Maximum results per page.",
    "cursor": "Opaque pagination cursor from the previous page.",
    "since": "Only items after this ISO-8601 time.", "channel": "Channel id or #name.",
    "text": "Message text (markdown).", "format": "Output file format.",
    "dry_run": "Validate only; change nothing.", "amount": "Amount in minor units; omit for all.",
    "replicas": "Desired replica count.", "ticket_key": "Issue key such as PAY-4411.",
    "path": "Object key or file path.", "bucket": "Bucket or drive folder id.",
    "from": "Start of the time range (ISO-8601).", "to": "End of the time range (ISO-8601).",
    "until": "Only items before this ISO-8601 time.", "service": "Service name as tagged.",
    "pod": "Pod name.", "container": "Container name; defaults to the first one.",
    "deployment": "Deployment name.", "name": "Human-readable name.", "pipeline":
    "Job, pipeline or workflow name.", "run_id": "Build or run number.", "branch": "Branch name.",
    "author": "Author login or email.", "number": "Pull request or issue number.",
    "state": "Filter by state.", "status": "Filter by status.", "title": "Title shown in lists.",
    "body": "Body text (markdown).", "user": "User id, handle or email.", "email":
    "Email address.", "project": "Project key or id.", "customer": "Customer id or name.",
    "environment": "Target environment.", "cluster": "Cluster name.", "region": "Cloud region.",
    "page_id": "Page id.", "space": "Space key.", "level": "Minimum log level.",
    "tail_lines": "Return only the last N lines.", "previous": "Logs of the previous container.",
    "label_selector": "Kubernetes label selector, e.g. app=web.", "database": "Database name.",
    "table": "Fully qualified table name.", "ts": "Message timestamp id.", "app": "App name.",
    "version": "Version id or number.", "revision": "Revision to return to; default previous.",
    "note": "Optional note recorded with the change.", "method": "How to merge.",
    "reason": "Why (shown to the customer).", "to_": "Recipient address.", "subject":
    "Subject line.", "start": "Start time (ISO-8601).", "end": "End time (ISO-8601).",
}
CONCEPTS = {"repo": "repository", "sha": "commit", "ns": "namespace", "pod": "pod",
             "ticket_key": "ticket", "tail_lines": "line count", "ts": "message timestamp"}
_ARTICLE_RE = re.compile(r"^[aeiouAEIOU]|^(SLO|MFA|HPA|API|SLA)")


def with_article(noun: str) -> str:
    return ("an " if _ARTICLE_RE.match(noun) else "a ") + noun


def _words(token: str) -> list[str]:
    return [w for w in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", token).lower().split("_") if w]


def _join_words(words: Sequence[str], style: str) -> str:
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    if style == "pascal":
        return "".join(w.capitalize() for w in words)
    if style == "kebab":
        return "-".join(words)
    return "_".join(words)


def tool_name(server: ServerSpec, entity: EntitySpec, op: str) -> str:
    """The tool's name on its server, in that server's naming convention."""
    cap = f"{op}:{entity.name}"
    if cap in server.names:
        return server.names[cap]
    if server.style == "cryptic":
        return f"{ENTITY_ABBR.get(entity.name, entity.name[:4])}_{OP_ABBR[op]}"
    sing, plur = server.aliases.get(entity.name, entity.token)
    obj = (plur or sing) if op in ("search", "list", "export") else sing
    verb = _words(server.verbs.get(op, op))
    words = _words(obj) + verb if server.style == "object" else verb + _words(obj)
    return _join_words(words, "snake" if server.style == "object" else server.style)


def param_name(name: str, style: str) -> str:
    return _join_words(_words(name), style) if style in ("camel", "pascal") else name


def schema_params(entity: EntitySpec, op: str) -> list[tuple[str, bool]]:
    """(param, required) in schema order for one capability."""
    out: list[tuple[str, bool]] = []
    req_fields = [(f.rstrip("!"), f.endswith("!")) for f in entity.fields]
    if op in ("search", "list", "export", "query"):
        out += [(c, op != "search") for c in entity.container]
        if op in ("search", "query"):
            out.append(("query", True))
        out += [(f, False) for f in entity.filters]
        out += [("limit", False), ("cursor", False)] if op in ("search", "list") else []
        out += [("format", False)] if op == "export" else []
    elif op in ("create", "schedule", "send", "upload"):
        out += [(c, True) for c in entity.container] + req_fields
        if op == "upload" and not any(r for _, r in req_fields):
            out += [("path", True), ("content", True)]
    elif op == "update":
        out += [(k, True) for k in entity.keys] + [(f, False) for f, _ in req_fields]
    else:
        out += [(k, True) for k in entity.keys]
        if op == "get":
            out += [(f, False) for f in entity.filters]
        elif op == "scale":
            out += req_fields if any(r for _, r in req_fields) else [("replicas", True)]
        elif op == "trigger":
            out += [(f, False) for f, _ in req_fields]
        elif op == "merge":
            pr = entity.name == "pull_request"
            out += [("method", False)] if pr else [("duplicate_ids", True)]
        elif op == "refund":
            out += [("amount", False), ("reason", False)]
        elif op == "rollback":
            if "version" not in entity.keys and entity.name != "backup":
                out.append(("revision", False))
        elif op in ("acknowledge", "resolve", "approve"):
            out += [("note", False)]
    seen: dict[str, bool] = {}
    for name, req in out:
        seen[name] = seen.get(name, False) or req
    return list(seen.items())


def input_schema(entity: EntitySpec, op: str, style: str, *, destructive: bool) -> dict[str, Any]:
    params = schema_params(entity, op) + ([("dry_run", False)] if destructive else [])
    props: dict[str, Any] = {}
    for name, _ in params:
        spec = dict(PARAM_SCHEMAS.get(name, {"type": "string"}))
        spec["description"] = PARAM_DOCS.get(name, f"The {name.replace('_', ' ')}.")
        props[param_name(name, style)] = spec
    required = [param_name(n, style) for n, req in params if req]
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def risk_of(entity: EntitySpec, op: str) -> str:
    if op in READ_OPERATIONS:
        return "read_only"
    if op == "rollback" or (op == "delete" and not entity.soft_delete):
        return "destructive"
    return "write"

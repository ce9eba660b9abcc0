"""Argument validation after the model picks a tool, before anything runs.

Three kinds of problem, every one reported (never only the first), each as one line the
model can act on, returned verbatim:
- schema: the arguments against the card's `input_schema` (JSON Schema Draft 2020-12:
  required, types, enums, additionalProperties, ...), as `"<JSON path>: <message>"`;
- intent: a write or destructive tool called for a read-only subgoal (`"intent: ..."`);
  a read-only tool in a write subgoal is fine (looking something up before changing it);
- scope: the session lacks the tool's connection, a scope, or the env (`"scope: ..."`).
The order is fixed so the same call always yields the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from serving.model.schema import ToolCard
from serving.model.selection import SessionContext


def schema_errors(
    schema: Mapping[str, Any], args: Any, *, check_formats: bool = False
) -> list[str]:
    """Every JSON Schema violation of `args` as `"<JSON path>: <message>"`.

    Sorted by path, then message, so errors on the whole object (`$`) come first.

    `check_formats` also enforces `format` (date, email, ...), which Draft 2020-12 treats
    as an annotation; off by default because which formats are checked depends on the
    optional packages installed.
    """
    from jsonschema import Draft202012Validator  # here: the runtime's import stays light

    checker = Draft202012Validator.FORMAT_CHECKER if check_formats else None
    validator = Draft202012Validator(dict(schema), format_checker=checker)
    # keys sorted at every level: messages that list keys follow the instance's order
    instance = _sorted_keys(args)
    found = {(err.json_path, err.message) for err in validator.iter_errors(instance)}
    return [f"{path}: {message}" for path, message in sorted(found)]


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _sorted_keys(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def intent_errors(card: ToolCard, *, subgoal_mutates: bool) -> list[str]:
    """A tool that changes things is refused for a subgoal that only reads."""
    if card.mutates and not subgoal_mutates:
        return [
            f"intent: {card.tool_id} is a {card.risk} tool but this step only reads; "
            "use a read-only tool"
        ]
    return []


def scope_errors(card: ToolCard, context: SessionContext) -> list[str]:
    """What the session lacks to call `card`: its connection, scopes and env, or the tool
    itself where the session is offered a list of tools without it."""
    out = []
    if context.restrict_tools and card.tool_id not in context.tools:
        out.append(f"scope: {card.tool_id} is not among the tools this session is offered")
    connection = card.requires.connection
    if connection and context.restrict_connections and connection not in context.connections:
        have = ", ".join(sorted(context.connections)) or "none"
        out.append(
            f"scope: {card.tool_id} needs the connection {connection!r}, "
            f"which this session does not have (connections: {have})"
        )
    missing = sorted(set(card.requires.scopes) - context.scopes)
    if missing and context.restrict_scopes:
        out.append(
            f"scope: {card.tool_id} needs the scope(s) {', '.join(missing)}, "
            "not granted to this session"
        )
    if card.env and context.env not in card.env:
        out.append(
            f"scope: {card.tool_id} runs only in env {', '.join(sorted(card.env))}, "
            f"not in {context.env!r}"
        )
    return out


def validate_arguments(
    card: ToolCard,
    args: Mapping[str, Any],
    *,
    subgoal_mutates: bool,
    context: SessionContext,
    check_formats: bool = False,
) -> list[str]:
    """All problems with calling `card` with `args` in this session; empty = valid.

    The order is fixed, so the same call always yields the same text: schema errors
    (by JSON path, then message), then the `intent:` error, then `scope:` errors.
    """
    return [
        *schema_errors(card.input_schema, args, check_formats=check_formats),
        *intent_errors(card, subgoal_mutates=subgoal_mutates),
        *scope_errors(card, context),
    ]

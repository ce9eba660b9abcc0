"""The gate after the model picks: only tools in the active set may run.

The active set is the menu the model was shown (plus whatever `search_tools` added).
A call outside it is never executed; the model gets a structured error that lists what
it may call and points at the `search_tools` escape hatch, so it can recover in one turn.
`search_tools` itself is always callable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SEARCH_TOOLS_NAME = "search_tools"
GATE_HINT = f"call {SEARCH_TOOLS_NAME}(query) to find other tools"

# What an agent shows the model next to its menu (Anthropic-style `input_schema`; OpenAI
# calls the same object `parameters`).
SEARCH_TOOLS_DEFINITION: Mapping[str, Any] = {
    "name": SEARCH_TOOLS_NAME,
    "description": (
        "Search the full tool catalog when none of the tools you were given fits the task. "
        "Describe what you need to do in a few words (an action and an object, e.g. "
        "'restart a kubernetes deployment'). Matching tools become callable."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "description": "What the tool must do, in plain words.",
            }
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}


@dataclass(frozen=True, slots=True)
class ActiveSet:
    """The tool ids currently shown to the model. Immutable: `widen` returns a new set."""

    tool_ids: frozenset[str] = frozenset()

    @classmethod
    def of(cls, tool_ids: Iterable[str]) -> ActiveSet:
        return cls(frozenset(tool_ids))

    def widen(self, tool_ids: Iterable[str]) -> ActiveSet:
        """A new active set holding these ids as well as the current ones."""
        return ActiveSet(self.tool_ids | frozenset(tool_ids))

    def sorted_ids(self) -> list[str]:
        return sorted(self.tool_ids)

    def __contains__(self, tool_id: object) -> bool:
        return tool_id in self.tool_ids

    def __iter__(self) -> Iterator[str]:
        return iter(self.sorted_ids())

    def __len__(self) -> int:
        return len(self.tool_ids)


@dataclass(frozen=True, slots=True)
class GateResult:
    """Whether a call may proceed; when not, `error` is the JSON-ready reply for the model."""

    tool_id: str
    allowed: bool
    error: Mapping[str, Any] = field(default_factory=dict)


def gate(tool_id: str, active: ActiveSet) -> GateResult:
    """Let a call through only when `tool_id` is in `active` (or is `search_tools`).

    A model can emit anything: a tool id that is not a string (a list, a number, null)
    gets the same structured refusal, with its JSON type named, never a `TypeError`."""
    if not isinstance(tool_id, str):
        return GateResult(
            tool_id=repr(tool_id)[:100],
            allowed=False,
            error={
                "error": "tool_not_available",
                "tool_id": None,
                "problem": f"tool id must be a string, got {_json_type(tool_id)}",
                "available": active.sorted_ids(),
                "hint": GATE_HINT,
            },
        )
    if tool_id == SEARCH_TOOLS_NAME or tool_id in active:
        return GateResult(tool_id=tool_id, allowed=True)
    return GateResult(
        tool_id=tool_id,
        allowed=False,
        error={
            "error": "tool_not_available",
            "tool_id": tool_id,
            "available": active.sorted_ids(),
            "hint": GATE_HINT,
        },
    )


def _json_type(value: object) -> str:
    names = {type(None): "null", bool: "boolean", int: "number", float: "number",
             list: "array", tuple: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


def _no_summary(tool_id: str) -> str:
    return ""


@dataclass(frozen=True, slots=True)
class SearchTools:
    """The `search_tools` meta-tool: discovery on demand that widens the active set.

    `discover` maps a query to tool ids, best first (the Selector's discovery in
    production). `summarize` gives the one-liner shown per found tool (progressive
    disclosure: no schemas here); without it only ids are listed.
    """

    discover: Callable[[str], Sequence[str]]
    summarize: Callable[[str], str] = _no_summary
    max_results: int = 10

    def __post_init__(self) -> None:
        if self.max_results < 1:
            raise ValueError(f"max_results: must be at least 1, got {self.max_results}")

    def __call__(self, query: str, active: ActiveSet) -> tuple[ActiveSet, dict[str, Any]]:
        """Run discovery for `query`; return the widened set and the reply for the model.

        A blank or non-string query changes nothing and returns an `invalid_arguments`
        reply instead of running discovery.
        """
        if not isinstance(query, str) or not query.strip():
            return active, {
                "error": "invalid_arguments",
                "tool_id": SEARCH_TOOLS_NAME,
                "errors": ["$.query: must be a non-empty string"],
            }
        query = query.strip()
        found = list(dict.fromkeys(self.discover(query)))[: self.max_results]
        tools = []
        for tool_id in found:
            entry = {"tool_id": tool_id}
            summary = self.summarize(tool_id)
            if summary:
                entry["summary"] = summary
            tools.append(entry)
        widened = active.widen(found)
        reply: dict[str, Any] = {
            "query": query,
            "tools": tools,
            "added": sorted(set(found) - active.tool_ids),
        }
        if not found:
            reply["hint"] = "no tool matched; rephrase the query with an action and an object"
        return widened, reply

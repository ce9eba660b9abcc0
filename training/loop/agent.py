"""The feedback loop's simulated agent: what a user asks, how a model picks from a menu,
and whether the call did what was asked.

A round of the loop (`training.loop.round`) sends each `AgentRequest` to a real gateway
over MCP: `search_tools` with the request, then one call to the tool `choose` picks from
the menu the gateway returned, with `arguments` that satisfy its input schema. The world
judges the call, not the agent: the downstream server (`training.loop.server`)
answers with an error when the called tool is not one the request needed, so the
gateway's trace records the world's ground truth as `success`, as a real tool's failure
would. The chooser reads a menu the way the demo world's user model does: the right tool
is picked more often the higher it is listed, and a model with no right tool in view
takes the first one.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class AgentRequest:
    """One request of the traffic: its text, the tools that serve it, its session."""

    request_id: str
    text: str
    gold: frozenset[str]
    context: Mapping[str, Any] = field(default_factory=dict)
    new_tool: bool = False  # its gold tool joined the catalog during the loop


@dataclass(frozen=True, slots=True)
class Chooser:
    """P(the model picks the right tool listed at rank r, from 0) = p_first * decay**r;
    otherwise it picks the first tool listed (the position bias of a long menu)."""

    p_first: float = 0.9
    decay: float = 0.85

    def choose(self, menu: Sequence[str], gold: Collection[str], rng: random.Random) -> str | None:
        """The tool called, or None for an empty menu (the agent answers without one)."""
        if not menu:
            return None
        for rank, tool_id in enumerate(menu):
            if tool_id in gold:
                return tool_id if rng.random() < self.p_first * self.decay**rank else menu[0]
        return menu[0]


_FILLERS: Mapping[str, Any] = {
    "string": "demo", "integer": 1, "number": 1.0, "boolean": False, "array": [], "object": {},
}


def arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Values for the required properties of a JSON Schema object: an enum's first value,
    a default when given, else a plain value of the property's type."""
    props = schema.get("properties") or {}
    out: dict[str, Any] = {}
    for name in schema.get("required") or ():
        spec = props.get(name) or {}
        if spec.get("enum"):
            out[name] = spec["enum"][0]
        elif "default" in spec:
            out[name] = spec["default"]
        else:
            kind = spec.get("type", "string")
            kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) \
                else kind
            minimum = spec.get("minimum")
            out[name] = minimum if minimum is not None and kind in ("integer", "number") \
                else _FILLERS.get(kind, "demo")
    return out

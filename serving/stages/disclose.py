"""Progressive disclosure: what the model sees about each tool, and what it costs.

Levels, cheapest first:
- discovery: one line a menu item (`id: summary [risk]`), ~30-40 tokens;
- selection: constraints, risk, cost, latency and one example, only for the items
  whose relevance is within a margin of the top item's (the model needs them to choose);
- full: the complete schema, only for the tool the model chose;
- recovery: the error, the alternatives and a wider menu, after a failed call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from serving.model.schema import ToolCard
from serving.model.selection import Candidate
from serving.model.text import estimate_tokens


@dataclass(frozen=True, slots=True)
class Disclosure:
    level: str
    items: tuple[Mapping[str, Any], ...]
    tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "tokens": self.tokens, "items": [dict(i) for i in self.items]}


def discovery_line(card: ToolCard) -> str:
    risk = "" if card.risk == "read_only" else f" [{card.risk}]"
    return f"{card.tool_id}: {card.summary}{risk}"


def selection_details(card: ToolCard) -> dict[str, Any]:
    """One compact line of what tells close contenders apart (~40 tokens)."""
    required = ", ".join(sorted(card.input_schema.get("required", []))) or "nothing"
    parts = [f"{card.tool_id}: needs {required}", card.risk]
    if card.cost:
        parts.append(f"cost {card.cost:g}")
    if card.p50_ms:
        parts.append(f"~{card.p50_ms:.0f} ms")
    if card.not_for:
        parts.append("not for " + card.not_for[0])
    if card.examples:
        parts.append(f"e.g. {card.examples[0]!r}")
    return {"tool_id": card.tool_id, "line": "; ".join(parts)}


def full_schema(card: ToolCard) -> dict[str, Any]:
    """The tool definition as an agent passes it to a model (name, description, schema)."""
    return {
        "name": card.tool_id,
        "description": card.summary + ("\n" + card.description if card.description else ""),
        "input_schema": dict(card.input_schema),
    }


def disclose_discovery(menu: Sequence[Candidate], cards: Mapping[str, ToolCard]) -> Disclosure:
    lines = tuple({"tool_id": c.tool_id, "line": discovery_line(cards[c.tool_id])} for c in menu)
    return Disclosure("discovery", lines, sum(estimate_tokens(i["line"]) for i in lines))


def contenders(menu: Sequence[Candidate], margin: float, *, limit: int = 3) -> list[str]:
    """The items within `margin` of the top one, when there are at least two: the model
    must tell them apart to pick, so they get the selection-level details."""
    if len(menu) < 2:
        return []
    close = [c.tool_id for c in menu if menu[0].score - c.score <= margin][:limit]
    return close if len(close) >= 2 else []


def disclose_selection(
    menu: Sequence[Candidate], cards: Mapping[str, ToolCard], *, margin: float
) -> Disclosure:
    items = tuple(selection_details(cards[t]) for t in contenders(menu, margin))
    return Disclosure("selection", items, sum(estimate_tokens(i["line"]) for i in items))


def disclose_full(card: ToolCard) -> Disclosure:
    item = full_schema(card)
    return Disclosure("full", (item,), estimate_tokens(item))


def disclose_recovery(
    error: str, failed_tool: str, wider: Sequence[Candidate], cards: Mapping[str, ToolCard]
) -> Disclosure:
    alternatives = [c for c in wider if c.tool_id != failed_tool]
    item = {
        "error": error,
        "failed_tool": failed_tool,
        "alternatives": [discovery_line(cards[c.tool_id]) for c in alternatives],
    }
    return Disclosure("recovery", (item,), estimate_tokens(item))


def catalog_tokens(cards: Sequence[ToolCard]) -> int:
    """What showing every tool's full schema on every turn would cost."""
    return sum(estimate_tokens(full_schema(c)) for c in cards)

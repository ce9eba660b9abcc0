"""One round of the feedback loop: the simulated agent (`training.loop.agent`) talks
to a real `toolsift serve` over MCP (stdio), request after request, while the judged
downstream (`training.loop.server`) decides whether each call did what was asked.

The gateway writes its traces (`--traces`) as it serves; those lines, not anything the
agent keeps, are what the next training run mines. `RoundStats` is the agent's view of
the round: how often the right tool was on the menu and the call succeeded, how long the
menus were, how often new tools reached them, which bundle versions answered.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.loop.agent import AgentRequest, Chooser, arguments


@dataclass(frozen=True, slots=True)
class Turn:
    """One request as the agent lived it."""

    request_id: str
    menu: tuple[str, ...]
    chosen: str | None
    success: bool | None  # None: no call (the menu was empty)
    bundle_version: str
    gold_on_menu: bool
    new_tool: bool


@dataclass(frozen=True, slots=True)
class RoundStats:
    n_requests: int
    success: float  # share of requests whose one call did what was asked
    gold_on_menu: float
    menu_length: float
    abstained: float  # share of requests answered with an empty menu
    new_tool_on_menu: float | None  # among requests whose gold joined during the loop
    bundle_versions: tuple[str, ...]

    @classmethod
    def of(cls, turns: Sequence[Turn]) -> RoundStats:
        n = max(1, len(turns))
        new = [t for t in turns if t.new_tool]
        return cls(
            n_requests=len(turns),
            success=sum(bool(t.success) for t in turns) / n,
            gold_on_menu=sum(t.gold_on_menu for t in turns) / n,
            menu_length=sum(len(t.menu) for t in turns) / n,
            abstained=sum(not t.menu for t in turns) / n,
            new_tool_on_menu=sum(t.gold_on_menu for t in new) / len(new) if new else None,
            bundle_versions=tuple(dict.fromkeys(t.bundle_version for t in turns)),
        )


def _content(result: Any) -> dict[str, Any]:
    if result.structured_content is not None:
        return dict(result.structured_content)
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    try:
        return dict(json.loads(texts[0])) if texts else {}
    except (ValueError, TypeError):
        return {"text": texts[0]}


async def run_round(
    gateway_args: Sequence[str],
    requests: Sequence[AgentRequest],
    judge: Path,
    *,
    chooser: Chooser | None = None,
    seed: int = 0,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 300.0,
) -> list[Turn]:
    """Start `toolsift <gateway_args>` (a `serve` command) and run every request through
    it: search, choose, describe, call. The judge file holds each request's gold while
    it runs; it is removed at the end."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    rng = random.Random(seed)
    chooser = chooser or Chooser()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from training.core.cli import app; app()", *gateway_args],
        env=dict(env) if env is not None else None,
    )
    turns: list[Turn] = []
    schemas: dict[str, Mapping[str, Any]] = {}
    try:
        async with Client(params, mode="legacy", read_timeout_seconds=timeout_s) as client:
            for req in requests:
                judge.write_text(json.dumps(sorted(req.gold)), encoding="utf-8")
                found = _content(await client.call_tool("search_tools", {"query": req.text}))
                menu = tuple(t["tool_id"] for t in found.get("tools", []))
                chosen = chooser.choose(menu, req.gold, rng)
                success = None
                if chosen is not None:
                    if chosen not in schemas:
                        card = _content(await client.call_tool("describe_tool",
                                                               {"tool_id": chosen}))
                        schemas[chosen] = card.get("input_schema") or {}
                    out = _content(await client.call_tool(chosen, arguments(schemas[chosen])))
                    success = out.get("status") == "ok"
                turns.append(Turn(req.request_id, menu, chosen, success,
                                  str(found.get("bundle_version", "")),
                                  bool(req.gold & set(menu)), req.new_tool))
    finally:
        judge.unlink(missing_ok=True)
    return turns

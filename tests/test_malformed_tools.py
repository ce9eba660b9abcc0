"""One malformed tool in a downstream tools/list (an `inputSchema` without `"type"`): the
MCP SDK refuses the whole listing over it, so the gateway reads the listing tool by tool;
the valid tools are served and callable, the bad one is quarantined with its reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio

from serving.gateway.config import ServerSpec
from serving.gateway.downstream import Downstream
from serving.gateway.registry import build_registry

RAW_SERVER = Path(__file__).with_name("raw_mcp_server.py")
OBJECT = {"type": "object", "properties": {"q": {"type": "string"}}}
TOOLS = [
    {"name": "search_notes", "description": "Search the team's notes by keyword.",
     "inputSchema": OBJECT},
    {"name": "broken_tool", "description": "Lists the open tickets of a queue.",
     "inputSchema": {"properties": {"queue": {"type": "string"}}}},  # no "type"
    {"name": "get_note", "description": "Get one note by its id.", "inputSchema": OBJECT},
]


def raw_server_config(tools: list[dict]) -> dict:
    """A `mcpServers` entry that runs the raw server over `tools`."""
    return {"command": sys.executable, "args": [str(RAW_SERVER), json.dumps(tools)]}


def _spec() -> ServerSpec:
    entry = raw_server_config(TOOLS)
    return ServerSpec(name="notes", command=entry["command"], args=tuple(entry["args"]))


def test_the_valid_tools_are_served_and_callable_and_the_bad_one_quarantined() -> None:
    spec = _spec()

    async def unchanged() -> None:
        return None

    async def run() -> tuple[dict, dict, str]:
        downstream = Downstream([spec], unchanged)
        async with anyio.create_task_group() as tg:
            await downstream.run(tg)
            listed, down = dict(downstream.tools), dict(downstream.down)
            # the session was told of the valid tools: a call does not list again
            result = await downstream.call("notes", "get_note", {"q": "n-1"})
            downstream.close()
            tg.cancel_scope.cancel()
        return listed, down, result.content[0].text

    listed, down, text = anyio.run(run)
    assert down == {} and text == "called get_note"
    assert [t["name"] for t in listed["notes"]] == [t["name"] for t in TOOLS]  # all, as sent
    registry = build_registry(listed, [spec], {})
    assert sorted(registry.cards) == ["notes.get_note", "notes.search_notes"]
    (tool_id, reason), = registry.quarantined
    assert tool_id == "notes.broken_tool"
    assert reason == ('import: tools[1].inputSchema.type: expected "object" (the MCP schema), '
                      "got missing")


def test_the_demo_server_serves_schemas_an_mcp_client_accepts(fixture_cards) -> None:
    from dataclasses import replace

    from mcp import Client

    from serving.gateway.demo import DemoOptions, build_demo_server

    untyped, wrong, plain = fixture_cards[:3]
    cards = [
        replace(untyped, input_schema={"properties": {"q": {"type": "string"}}}),
        replace(wrong, input_schema={"type": "string"}, output_schema={"type": "array"}),
        plain,
    ]

    async def run() -> dict:
        async with Client(build_demo_server(cards, DemoOptions()), mode="legacy",
                          cache=None) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    listed = anyio.run(run)
    assert list(listed) == [c.tool_id for c in cards]  # the whole list, not refused
    assert listed[untyped.tool_id].input_schema == {
        "type": "object", "properties": {"q": {"type": "string"}}}
    assert listed[wrong.tool_id].input_schema == {"type": "object", "properties": {}}
    assert listed[wrong.tool_id].output_schema is None

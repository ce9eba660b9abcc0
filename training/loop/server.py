"""The feedback loop's downstream server: a catalog served over MCP (stdio) with the demo
server's tools and fake results (`serving.gateway.demo`), each call judged against the
request being run.

    python -m training.loop.server --catalog CARDS.jsonl --judge JUDGE.json [--edit ID=TEXT]

Before it sends a request, the loop writes the request's gold tool ids to JUDGE (a JSON
list). A call to a tool outside it answers `is_error` ("did not do what the request
needed"), so the gateway's trace records the world's verdict as the call's `success`,
as a real tool's useless answer would be recorded by an agent that checks its results.
`--edit ID=TEXT` serves another description for a tool (an upstream change the ledger
never approved).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

WRONG_TOOL = "this tool did not do what the request needed"


def judged(judge: Path, tool_id: str) -> bool:
    """Whether the request being run needed `tool_id` (no judge file: every call is fine)."""
    try:
        gold = json.loads(judge.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return True
    return tool_id in gold


def build_server(cards: Sequence[Any], judge: Path,
                 edits: Mapping[str, str] | None = None) -> Any:
    import mcp_types as types
    from mcp.server.lowlevel.server import Server

    from serving.gateway.demo import DemoOptions, demo_tools, fake_result

    opts = DemoOptions(edits=dict(edits or {}))
    tools = demo_tools(cards, opts)
    by_name = {t.name: c for t, c in zip(tools, cards, strict=True)}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        card = by_name.get(params.name)
        if card is None or not judged(judge, card.tool_id):
            text = f"unknown tool {params.name}" if card is None else WRONG_TOOL
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        is_error=True)
        result = fake_result(card, params.arguments or {}, opts.items)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(result))],
            structured_content=result,
        )

    return Server("toolsift-loop", version="0.1.0", on_list_tools=list_tools,
                  on_call_tool=call_tool)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", required=True, help="tool cards, JSONL")
    parser.add_argument("--judge", required=True, help="JSON list: the current request's gold")
    parser.add_argument("--edit", action="append", default=[], metavar="ID=TEXT",
                        help="serve this description for a tool")
    args = parser.parse_args(argv)
    edits = dict(e.split("=", 1) for e in args.edit)

    import anyio
    from mcp.server.stdio import stdio_server

    from serving.model.io import load_catalog

    server = build_server(list(load_catalog(args.catalog, strict=True).items), Path(args.judge),
                          edits)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()

"""A third-party MCP server on stdio that no SDK checked: newline-delimited JSON-RPC by
hand, serving the tools given as a JSON list in argv[1] as they are (one may break the
MCP schema, as a server from another SDK or a hand-written one can). A call answers
`called <name>`."""

from __future__ import annotations

import json
import sys


def answer(message: dict, tools: list) -> dict | None:
    method, params = message.get("method"), message.get("params") or {}
    if "id" not in message:
        return None  # a notification
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": f"called {params.get('name')}"}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    tools = json.loads(sys.argv[1])
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line), tools)
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()

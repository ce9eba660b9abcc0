"""search_tools latency through the MCP gateway, with the demo backend (a benchmark, not
a timed test: numbers depend on the machine and what else runs on it).

    python -m training.checks.bench_gateway BUNDLE CATALOG QUERIES [--shards 2] [--n 200]
        [--active-set 12] [--runtime KEY=JSON ...] [--out metrics/bench_gateway.json]

Starts `toolsift demo-server` over stdio with CATALOG split by catalog server into
`--shards` processes, the gateway in this process, and an SDK client over the in-memory
JSON-RPC transport. Each of `--n` queries (the `query` field of QUERIES, in file order) is
one `search_tools` call; its latency is timed at the client (discovery, MCP framing and
the tools/list that follows are all inside). Also checks the issue's invariant: tools/list
never shows more than the active set (plus the three meta-tools).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import anyio
import numpy as np

from serving.gateway.config import parse_config
from serving.gateway.server import GatewayApp, ServeOptions
from serving.model.io import load_catalog, load_queries


def shard_config(
    catalog: Path, shards: int, active_set: int, runtime: dict | None = None
) -> dict:
    servers = sorted({c.server for c in load_catalog(catalog, strict=True).items})
    env = {k: v for k, v in os.environ.items()
           if k in ("PYTHONPATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    cli = ["-c", "from training.core.cli import app; app()", "demo-server"]
    return {
        "mcpServers": {
            f"demo{i}": {
                "command": sys.executable,
                "args": [*cli, "--catalog", str(catalog), "--servers",
                         ",".join(servers[i::shards])],
                "env": env, "tool_names": "qualified", "trust": "first_party",
            }
            for i in range(shards)
        },
        "gateway": {"active_set_size": active_set, "search_limit": min(8, active_set)},
        "runtime": runtime or {},
    }


async def bench(args: argparse.Namespace) -> dict:
    from mcp import Client

    runtime = {k: json.loads(v) for k, v in (r.split("=", 1) for r in args.runtime)}
    config = parse_config(shard_config(args.catalog, args.shards, args.active_set, runtime))
    queries = [q.query for q in load_queries(args.queries).items][: args.n]
    t0 = time.perf_counter()
    app = GatewayApp(ServeOptions(bundle=args.bundle, config=config))
    async with app.running():
        start_s = time.perf_counter() - t0
        print(f"gateway up in {start_s:.0f} s", file=sys.stderr, flush=True)
        n_live = len(app.gateway.registry.cards)
        latencies, max_listed = [], 0
        async with Client(app.mcp_server(), mode="legacy") as client:
            for query in queries:
                t = time.perf_counter()
                await client.call_tool("search_tools", {"query": query})
                latencies.append((time.perf_counter() - t) * 1e3)
                if len(latencies) % 20 == 0:
                    print(f"{len(latencies)} searches, last {latencies[-1]:.0f} ms",
                          file=sys.stderr, flush=True)
                max_listed = max(max_listed, len((await client.list_tools()).tools))
    ms = np.asarray(latencies)
    return {
        "n_queries": len(queries),
        "n_live_tools": n_live,
        "n_servers": args.shards,
        "n_quarantined": len(app.gateway.registry.quarantined),
        "start_s": round(start_s, 1),
        "search_p50_ms": round(float(np.percentile(ms, 50)), 1),
        "search_p95_ms": round(float(np.percentile(ms, 95)), 1),
        "search_max_ms": round(float(ms.max()), 1),
        "max_tools_listed": max_listed,
        "active_set_size": args.active_set,
        "runtime_overrides": runtime,
        "cpu_count": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("catalog", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--active-set", type=int, default=12)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--runtime", action="append", default=[],
                        help="KEY=JSON over the bundle's runtime params, e.g. rerank_depth=10")
    args = parser.parse_args(argv)
    result = anyio.run(bench, args)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()

"""The gateway under load: concurrent MCP sessions over streamable HTTP (a benchmark, not a
timed test: numbers depend on the machine and what else runs on it).

    python -m training.checks.bench_gateway_load BUNDLE CATALOG QUERIES
        [--levels 1 8 32 64] [--calls 25] [--shards 2] [--gateway KEY=JSON ...]
        [--out metrics/bench_gateway_load.json] [--report reports/bench_gateway_load.md]

Starts `toolsift demo-server` shards (stdio, CATALOG split by server) behind `toolsift
serve --transport http` in a subprocess, as an operator runs it "once for many clients".
Per level N: N clients, each its own MCP session over streamable HTTP, send `--calls`
`search_tools` calls each (the `query` field of QUERIES in rotation, each client from its
own offset), all at once. Per level: p50 / p95 / max latency of the calls that were
answered, searches answered per second, `busy` answers (refused at once by the gateway's
admission bound, `serving.gateway.admission`), errors (anything else, including
calls that never came back within `--timeout`), and per batched encoder the texts per
model call in that level, mean and max (`serving.gateway.batching`, read from the
gateway's `GET /stats` before and after the level), and the CPU milliseconds per answered
search spent by the gateway process and by this client (both share the machine's cores,
so the client's share bounds what the gateway can reach here; Linux `/proc` only). Before
the levels: the seconds from starting the gateway to its first answered search (`ready_s`).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

import anyio
import numpy as np

from serving.model.io import load_queries
from training.checks.bench_gateway import shard_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gateway(bundle: Path, config: Path, port: int) -> subprocess.Popen:
    cli = ["-c", "from training.core.cli import app; app()"]
    proc = subprocess.Popen(
        [sys.executable, *cli, "serve", "--bundle", str(bundle), "--config", str(config),
         "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gateway exited: {proc.stderr.read() if proc.stderr else ''}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("gateway did not start listening within 300 s")


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far (None where /proc is absent)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_ms_per_search(before: float | None, after: float | None, answered: int) -> float | None:
    if before is None or after is None or not answered:
        return None
    return round((after - before) * 1e3 / answered, 1)


def gateway_stats(url: str) -> dict:
    """The gateway's load counters (`GET /stats` beside the MCP endpoint)."""
    with urllib.request.urlopen(url.removesuffix("/mcp") + "/stats", timeout=10) as response:
        return dict(json.loads(response.read()))


def batch_sizes(before: dict, after: dict) -> dict[str, dict]:
    """Per batched encoder, the model calls made between two `/stats` readings: their
    number and the texts per call, mean and max."""
    out = {}
    for name, now in after.get("batches", {}).items():
        was = Counter({int(k): v for k, v in before.get("batches", {}).get(name, {})
                       .get("sizes", {}).items()})
        sizes = Counter({int(k): v for k, v in now["sizes"].items()}) - was
        batches = sum(sizes.values())
        texts = sum(size * n for size, n in sizes.items())
        out[name] = {"batches": batches,
                     "mean_batch": round(texts / batches, 2) if batches else 0.0,
                     "max_batch": max(sizes, default=0)}
    return out


async def one_level(url: str, queries: list[str], n_sessions: int, calls: int,
                    timeout_s: float) -> dict:
    from mcp import Client

    latencies: list[float] = []
    busy = errors = 0

    async def session(i: int) -> None:
        nonlocal busy, errors
        try:
            async with Client(url, mode="legacy") as client:
                for j in range(calls):
                    query = queries[(i * 7 + j) % len(queries)]
                    t = time.perf_counter()
                    try:
                        with anyio.fail_after(timeout_s):
                            result = await client.call_tool("search_tools", {"query": query})
                    except TimeoutError:
                        errors += 1
                        continue
                    reply = result.structured_content or {}
                    if reply.get("error") == "busy":
                        busy += 1
                        await anyio.sleep(float(reply.get("retry_after_s", 0.1)))
                    elif "tools" in reply:
                        latencies.append((time.perf_counter() - t) * 1e3)
                    else:
                        errors += 1
        except Exception:  # noqa: BLE001 - a session that failed to open counts its calls
            errors += calls - 0

    t0 = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for i in range(n_sessions):
            tg.start_soon(session, i)
    wall = time.perf_counter() - t0
    ms = np.asarray(latencies) if latencies else np.zeros(1)
    return {"sessions": n_sessions, "calls": n_sessions * calls, "answered": len(latencies),
            "busy": busy, "errors": errors,
            "p50_ms": round(float(np.percentile(ms, 50)), 1),
            "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "max_ms": round(float(ms.max()), 1),
            "searches_per_s": round(len(latencies) / wall, 1), "wall_s": round(wall, 1)}


def report(result: dict) -> str:
    lines = ["# The gateway under load", "",
             f"{result['cpu_count']} cores, load average before {result['load_avg_before']}; "
             f"{result['calls_per_session']} `search_tools` calls per session over streamable "
             "HTTP; gateway settings " + json.dumps(result["gateway"]) + ", runtime overrides "
             + json.dumps(result["runtime"]) + ".", "",
             "| sessions | p50 ms | p95 ms | max ms | searches/s | busy | errors "
             "| texts per encoder call, mean / max | CPU ms per search: gateway / client |",
             "|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in result["levels"]:
        batches = ", ".join(f"{name} {b['mean_batch']} / {b['max_batch']}"
                            for name, b in r.get("batches", {}).items()) or "unbatched"
        lines.append(f"| {r['sessions']} | {r['p50_ms']} | {r['p95_ms']} | {r['max_ms']} | "
                     f"{r['searches_per_s']} | {r['busy']} | {r['errors']} | {batches} | "
                     f"{r.get('gateway_cpu_ms')} / {r.get('client_cpu_ms')} |")
    stop = result.get("shutdown_s")
    lines += ["", f"Ready (process start to the first search answered, its downstream servers "
              f"started and every live tool reviewed): {result.get('ready_s')} s.",
              "", "Stopped with SIGTERM afterwards: " + (
        f"exited in {stop} s." if stop is not None else "still up after 30 s, killed.")]
    return "\n".join(lines) + "\n"


def stop_gateway(proc: subprocess.Popen[bytes], grace_s: float = 30.0) -> float | None:
    """SIGTERM, as an operator stops it: the seconds it took to exit, or None when it was
    still up after `grace_s` and had to be killed (the report says so)."""
    t0 = time.perf_counter()
    proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        print(f"the gateway ignored SIGTERM for {grace_s:g} s: killed", file=sys.stderr)
        proc.kill()
        proc.wait()
        return None
    return round(time.perf_counter() - t0, 2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("catalog", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--calls", type=int, default=25, help="search_tools calls per session")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="a call slower is an error")
    parser.add_argument("--gateway", action="append", default=[],
                        help="KEY=JSON of the config's gateway block, e.g. discovery_workers=2")
    parser.add_argument("--runtime", action="append", default=[],
                        help="KEY=JSON over the bundle's runtime params, e.g. onnx_threads=0")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args(argv)
    queries = [q.query for q in load_queries(args.queries).items if q.gold][:12]
    runtime = {k: json.loads(v) for k, v in (r.split("=", 1) for r in args.runtime)}
    config = shard_config(args.catalog, args.shards, 12, runtime)
    config["gateway"].update({k: json.loads(v) for k, v in
                              (g.split("=", 1) for g in args.gateway)})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "servers.json"
        path.write_text(json.dumps(config))
        port = free_port()
        load_before = round(os.getloadavg()[0], 2)
        t0 = time.perf_counter()
        proc = start_gateway(args.bundle, path, port)
        url = f"http://127.0.0.1:{port}/mcp"
        try:
            anyio.run(one_level, url, queries, 1, 1, args.timeout)  # the first answer
            ready_s = round(time.perf_counter() - t0, 1)
            anyio.run(one_level, url, queries, 1, 3, args.timeout)  # warm up
            levels = []
            for n in args.levels:
                before = gateway_stats(url)
                cpu = process_cpu_s(proc.pid), time.process_time()
                level = anyio.run(one_level, url, queries, n, args.calls, args.timeout)
                answered = level["answered"]
                levels.append({
                    **level, "batches": batch_sizes(before, gateway_stats(url)),
                    "gateway_cpu_ms": cpu_ms_per_search(cpu[0], process_cpu_s(proc.pid),
                                                        answered),
                    "client_cpu_ms": cpu_ms_per_search(cpu[1], time.process_time(), answered),
                })
                print(json.dumps(levels[-1]), file=sys.stderr, flush=True)
        finally:
            shutdown_s = stop_gateway(proc)
    result = {"levels": levels, "calls_per_session": args.calls, "gateway": config["gateway"],
              "ready_s": ready_s, "shutdown_s": shutdown_s,
              "runtime": runtime,
              "cpu_count": os.cpu_count(), "load_avg_before": load_before,
              "queries": str(args.queries)}
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(report(result))
    print(text)


if __name__ == "__main__":
    main()

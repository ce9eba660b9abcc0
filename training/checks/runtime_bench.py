"""`make bench`: what the runtime costs, every number from one run on this machine.

    python -m training.checks.runtime_bench BUNDLE QUERIES METRICS REPORT [--n-requests N]
        [--catalog-sizes 10000,100000] [--venv-size]

- per-stage p50/p95 on the labeled requests for the ONNX path (fp32, and each encoder in
  int8), the torch path and plain BM25 top-k, in this process, interleaved request by
  request so a noisy machine slows every system alike; beside each, a quick quality check
  (gold tools within the request's top `menu_size`) on the same requests;
- one-shot `toolsift discover` in a fresh process: wall time and peak RSS;
- synthetic catalogs made by perturbing the bundle's cards (ids, a dropped summary word,
  jittered embeddings): retrieval latency and memory, exact vs approximate dense search;
- `--venv-size`: a runtime-only install (`pip install .` without extras) in a throwaway
  venv under /tmp: its size on disk and a one-shot `toolsift discover` from it (needs
  the package index).

The bundle needs the ONNX files (`training.release.bundle_export.add_onnx` adds them to a
copy of an older bundle). Absolute times depend on the machine's load; the report puts
ratios measured in the same run beside them.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from serving.bundle.files import build_capability_index, load_bundle
from serving.model.io import load_queries
from serving.model.selection import Selection, SessionContext, Subgoal
from serving.selector import Selector
from serving.stages.retrieve import (
    BM25Retriever,
    CapabilityRetriever,
    DenseRetriever,
    DenseSource,
    RetrieveStage,
)
from training.core.metrics_io import write_metrics

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS: dict[str, dict[str, Any]] = {
    # the shipped runtime reads both bi-encoders' int8 graphs (params.yaml `runtime`)
    "onnx_int8": {"encoder_backend": "onnx", "retriever_weights": "int8",
                  "intent_weights": "int8"},
    "onnx_fp32": {"encoder_backend": "onnx", "retriever_weights": "fp32",
                  "intent_weights": "fp32"},
    "onnx_int8_reranker": {"encoder_backend": "onnx", "reranker_weights": "int8"},
    "torch": {"encoder_backend": "torch"},
}
STAGES = ("encode", "retrieve", "fuse", "filter", "rerank", "disclose")


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """p50/p95 in ms (rounded to 0.01), and how many values they summarise."""
    if not values:
        return {"p50": 0.0, "p95": 0.0, "n": 0}
    arr = np.asarray(values, dtype=np.float64)
    return {
        "p50": round(float(np.percentile(arr, 50)), 2),
        "p95": round(float(np.percentile(arr, 95)), 2),
        "n": len(values),
    }


def rss_mb() -> float:
    """This process's resident memory now (Linux /proc), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def request_latency(
    selectors: Mapping[str, Selector],
    bm25: BM25Retriever,
    queries: Sequence[Any],
    *,
    menu_size: int,
) -> dict[str, Any]:
    """Per system: per-stage and per-subgoal p50/p95, whole request p50/p95 and the share of
    gold tools in the request's top `menu_size`; plain BM25 top-k beside them."""
    times: dict[str, dict[str, list[float]]] = {name: {} for name in selectors}
    found: dict[str, list[float]] = {name: [] for name in selectors}
    bm25_ms: list[float] = []
    for query in queries:
        ctx = SessionContext.from_dict(query.context)
        for name, selector in selectors.items():  # interleaved: load hits every system
            result = selector.discover(query.query, ctx)
            t = times[name]
            t.setdefault("request", []).append(result.timings_ms["total"])
            if len(result.steps) <= 3:  # the bar: a request of up to 3 subgoals
                t.setdefault("request_upto3", []).append(result.timings_ms["total"])
            t.setdefault("decompose", []).append(result.timings_ms["decompose"])
            steps = [*result.steps, *([result.request_step] if result.request_step else [])]
            for step in steps:
                for stage in STAGES:
                    t.setdefault(stage, []).append(step.timings_ms.get(stage, 0.0))
                t.setdefault("subgoal", []).append(sum(step.timings_ms.values()))
            if query.gold:
                top = set(result.ranked()[:menu_size])
                found[name].append(sum(g in top for g in query.gold) / len(query.gold))
        mask = np.ones(len(selectors[next(iter(selectors))].cards), dtype=bool)
        t0 = time.perf_counter()
        bm25.search(query.query, mask, menu_size)
        bm25_ms.append((time.perf_counter() - t0) * 1e3)
    out: dict[str, Any] = {
        name: {
            **{key: percentiles(vals) for key, vals in t.items()},
            "recall_at_menu": round(float(np.mean(found[name])), 4) if found[name] else None,
        }
        for name, t in times.items()
    }
    out["bm25_top_k"] = {"request": percentiles(bm25_ms)}
    return out


ONE_SHOT_RUNS = 5  # a single start is noise on a shared 2-core machine: report the median


def one_shot(command: Sequence[str], runs: int = ONE_SHOT_RUNS) -> dict[str, Any]:
    """Wall seconds (median, min and max of `runs` fresh processes) and the highest peak
    RSS in MB (GNU time's %M)."""
    walls, peaks = [], []
    for _ in range(runs):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
            t0 = time.perf_counter()
            subprocess.run(
                ["/usr/bin/time", "-o", out.name, "-f", "%M", *command],
                check=True, capture_output=True, cwd=ROOT,
            )
            walls.append(time.perf_counter() - t0)
            peaks.append(int(out.read().split()[-1]) / 1024)
    return {
        "wall_s": round(float(np.median(walls)), 2),
        "wall_s_min": round(min(walls), 2),
        "wall_s_max": round(max(walls), 2),
        "runs": runs,
        "peak_rss_mb": round(max(peaks), 1),
    }


def one_shot_cli(bundle: Path, request: str) -> dict[str, Any]:
    """`toolsift discover` as a user runs it, and the same call with torch encoders."""
    entry = "from training.core.cli import app; app()"  # the `toolsift` script's body
    cli = [sys.executable, "-c", entry, "discover", request, "--bundle", str(bundle)]
    torch_call = (
        "import sys; from serving.selector import Selector; "
        "Selector.from_bundle(sys.argv[1], overrides={'encoder_backend': 'torch'})"
        ".discover(sys.argv[2])"
    )
    onnx_call = torch_call.replace("'torch'", "'onnx'")
    return {
        "cli_onnx": one_shot(cli),
        "python_onnx": one_shot([sys.executable, "-c", onnx_call, str(bundle), request]),
        # torch is the slow reference: one start is enough to show it
        "python_torch": one_shot([sys.executable, "-c", torch_call, str(bundle), request], runs=1),
    }


def perturbed_catalog(bundle_cards: Sequence[Any], embeddings: np.ndarray, n: int, seed: int = 0):
    """`n` cards made from the bundle's: a suffixed id and name, one summary word dropped,
    the embedding jittered and renormalised (near-duplicates, the hard case for search)."""
    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    cards, rows = [], []
    for i in range(n):
        j = i % len(bundle_cards)
        card = bundle_cards[j]
        words = card.summary.split()
        if len(words) > 3:
            del words[rng.randrange(len(words))]
        cards.append(
            replace(
                card,
                tool_id=f"{card.tool_id}_{i}",
                name=f"{card.name}_{i}",
                summary=" ".join(words),
            )
        )
        rows.append(j)
    vectors = embeddings[rows] + noise.normal(0, 0.03, (n, embeddings.shape[1])).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return cards, vectors.astype(np.float32)


def synthetic_retrieval(
    bundle_root: Path, vectors: np.ndarray, texts: Sequence[str], sizes: Sequence[int], n: int
) -> dict[str, Any]:
    """Retrieve-stage latency (dense + BM25 + capability, one subgoal at a time) and the
    memory each catalog's indexes take, exact and approximate dense search."""
    from serving.stages.ann import ApproximateDense

    bundle = load_bundle(bundle_root)
    out: dict[str, Any] = {}
    for size in sizes:
        before = rss_mb()
        cards, embeddings = perturbed_catalog(bundle.cards, bundle.embeddings, size)
        t0 = time.perf_counter()
        bm25 = BM25Retriever.build(cards)
        capability = CapabilityRetriever(build_capability_index(cards), len(cards))
        bm25_s = time.perf_counter() - t0
        exact_mb = rss_mb() - before
        t0 = time.perf_counter()
        ann = ApproximateDense.build(embeddings)
        ann_s = time.perf_counter() - t0
        ann_mb = rss_mb() - before - exact_mb
        ids = [c.tool_id for c in cards]
        mask = np.ones(len(cards), dtype=bool)
        row: dict[str, Any] = {
            "build_s": {"bm25_capability": round(bm25_s, 1), "hnsw": round(ann_s, 1)},
            "memory_mb": {
                "cards_embeddings_bm25": round(exact_mb, 1), "hnsw_extra": round(ann_mb, 1)
            },
        }
        for name, dense in (("exact", DenseRetriever(embeddings)), ("hnsw", ann)):
            ms, overlap = [], []
            for text, vector in zip(texts, vectors, strict=True):
                sources = {"dense": DenseSource(dense), "bm25": bm25, "capability": capability}
                stage = RetrieveStage(sources, ids, vector, mask, n)
                t0 = time.perf_counter()
                stage(Selection(Subgoal(text=text)))
                ms.append((time.perf_counter() - t0) * 1e3)
                if name == "hnsw":
                    exact = {r for r, _ in DenseRetriever(embeddings).search(vector, mask, n)}
                    approx = {r for r, _ in ann.search(vector, mask, n)}
                    overlap.append(len(exact & approx) / n)
            row[name] = {"retrieve": percentiles(ms)}
            if overlap:
                row[name]["dense_recall_vs_exact"] = round(float(np.mean(overlap)), 4)
        out[str(size)] = row
        del cards, embeddings, bm25, capability, ann
    return out


def runtime_venv(bundle: Path, request: str) -> dict[str, Any]:
    """`pip install .` (no extras) into a throwaway venv: its size on disk, whether torch
    came along, and a one-shot `toolsift discover` from it (what an agent's host runs)."""
    with tempfile.TemporaryDirectory(prefix="toolsift-runtime-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        t0 = time.perf_counter()
        subprocess.run([*pip, str(ROOT)], check=True, capture_output=True)
        seconds = time.perf_counter() - t0
        size = subprocess.run(["du", "-sm", str(venv)], capture_output=True, text=True, check=True)
        site = list((venv / "lib").glob("python*/site-packages"))[0]
        toolsift = [str(venv / "bin" / "toolsift"), "discover", request, "--bundle", str(bundle)]
        return {
            "size_mb": int(size.stdout.split()[0]),
            "install_s": round(seconds, 1),
            "has_torch": (site / "torch").exists(),
            "one_shot_cli": one_shot(toolsift),
        }


def bench(args: argparse.Namespace, log: Callable[[str], None]) -> dict[str, Any]:
    bundle = Path(args.bundle)
    queries = list(load_queries(args.queries).items)
    random.Random(0).shuffle(queries)
    queries = queries[: args.n_requests]
    selectors = {name: Selector.from_bundle(bundle, overrides=o) for name, o in SYSTEMS.items()}
    first = next(iter(selectors.values()))
    for selector in selectors.values():  # loads and first-call costs stay out of the table
        selector.discover(queries[0].query, SessionContext.from_dict(queries[0].context))
    log(f"bench: {len(queries)} requests x {len(selectors)} systems")
    latency = request_latency(
        selectors, BM25Retriever.load(first.bundle.bm25_path), queries,
        menu_size=first.params.menu_size,
    )
    log("bench: one-shot processes")
    shot = one_shot_cli(bundle, queries[0].query)
    sizes = [int(s) for s in args.catalog_sizes.split(",") if s]
    texts = [q.query for q in queries[: args.n_synthetic_queries]]
    vectors = selectors["onnx_fp32"].encoder.encode(texts)
    log(f"bench: synthetic catalogs {sizes}")
    del selectors
    synthetic = synthetic_retrieval(bundle, vectors, texts, sizes, first.params.n_per_retriever)
    return {
        "machine": {"cpus": len(os.sched_getaffinity(0)), "load_avg_1m": os.getloadavg()[0]},
        "bundle": str(bundle),
        "n_requests": len(queries),
        "latency_ms": latency,
        "one_shot": shot,
        "synthetic": synthetic,
        "runtime_venv": runtime_venv(bundle, queries[0].query) if args.venv_size else None,
        "peak_rss_mb_bench": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def report(result: Mapping[str, Any]) -> str:
    """The markdown table of reports/bench.md."""
    lat = result["latency_ms"]
    base = lat["torch"]
    lines = [
        "# Runtime benchmark (`make bench`)",
        "",
        f"{result['n_requests']} demo eval requests, every system in the same run, interleaved; "
        f"{result['machine']['cpus']} CPUs, 1-min load average at the end "
        f"{result['machine']['load_avg_1m']:.1f} (absolute times scale with load: read "
        "the ratios). Per subgoal = encode share + retrieve + fuse + filter + rerank + "
        "disclose; request = everything, decomposition included.",
        "",
        "| system | subgoal p50 | subgoal p95 | rerank p50 | encode p50 | request p50 | "
        "request p95 | request p95 vs torch | <=3 subgoals p95 | gold in top menu |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in lat.items():
        if name == "bm25_top_k":
            continue
        ratio = row["request"]["p95"] / max(base["request"]["p95"], 1e-9)
        lines.append(
            f"| {name} | {row['subgoal']['p50']} | {row['subgoal']['p95']} | "
            f"{row['rerank']['p50']} | {row['encode']['p50']} | {row['request']['p50']} | "
            f"{row['request']['p95']} | {ratio:.2f} | "
            f"{row.get('request_upto3', {}).get('p95', '')} | {row['recall_at_menu']} |"
        )
    bm = lat["bm25_top_k"]["request"]
    lines += [
        f"| plain BM25 top-k | | | | | {bm['p50']} | {bm['p95']} | "
        f"{bm['p95'] / max(base['request']['p95'], 1e-9):.3f} | | |",
        "",
        "## One-shot process (fresh interpreter, bundle load, one request)",
        "",
        "| call | wall s, median | min - max | runs | peak RSS MB |",
        "|---|---|---|---|---|",
    ]
    for name, row in result["one_shot"].items():
        lines.append(
            f"| {name} | {row['wall_s']} | {row.get('wall_s_min', '')} - "
            f"{row.get('wall_s_max', '')} | {row.get('runs', 1)} | {row['peak_rss_mb']} |"
        )
    lines += [
        "",
        "## Synthetic catalogs (perturbed demo cards): retrieve stage, one subgoal",
        "",
        "| tools | dense | retrieve p50 ms | retrieve p95 ms | dense recall vs exact | "
        "index build s | memory MB |",
        "|---|---|---|---|---|---|---|",
    ]
    for size, row in result["synthetic"].items():
        mem = row["memory_mb"]
        for name in ("exact", "hnsw"):
            r = row[name]
            build = row["build_s"]["bm25_capability"] if name == "exact" else row["build_s"]["hnsw"]
            memory = mem["cards_embeddings_bm25"] if name == "exact" else f"+{mem['hnsw_extra']}"
            lines.append(
                f"| {size} | {name} | {r['retrieve']['p50']} | {r['retrieve']['p95']} | "
                f"{r.get('dense_recall_vs_exact', 1.0)} | {build} | {memory} |"
            )
    venv = result.get("runtime_venv")
    if venv:
        lines += [
            "",
            f"Runtime-only install (`pip install .`, no extras): {venv['size_mb']} MB on disk, "
            f"torch installed: {venv['has_torch']}; one-shot `toolsift discover` from it: "
            f"{venv['one_shot_cli']['wall_s']} s wall (median of {venv['one_shot_cli']['runs']}; "
            f"{venv['one_shot_cli']['wall_s_min']}-{venv['one_shot_cli']['wall_s_max']} s), "
            f"{venv['one_shot_cli']['peak_rss_mb']} MB "
            "peak RSS (no torch, LightGBM or scipy there: the ranker is scored with numpy).",
        ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("bundle", help="bundle directory with ONNX encoders")
    parser.add_argument("queries", help="labeled requests, JSONL")
    parser.add_argument("metrics", help="where to write metrics/bench.json")
    parser.add_argument("report", help="where to write reports/bench.md")
    parser.add_argument("--n-requests", type=int, default=200)
    parser.add_argument("--n-synthetic-queries", type=int, default=100)
    parser.add_argument("--catalog-sizes", default="10000,100000")
    parser.add_argument("--venv-size", action="store_true", help="measure a runtime-only venv")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    result = bench(args, lambda msg: print(msg, file=sys.stderr, flush=True))
    write_metrics(args.metrics, result)
    Path(args.report).parent.mkdir(parents=True, exist_ok=True)
    Path(args.report).write_text(report(result))
    lat = result["latency_ms"]
    print(
        f"bench: request p95 onnx (int8, shipped) {lat['onnx_int8']['request']['p95']} ms vs torch "
        f"{lat['torch']['request']['p95']} ms -> {args.metrics}, {args.report} "
        f"in {time.perf_counter() - t0:.0f}s"
    )


if __name__ == "__main__":
    main()

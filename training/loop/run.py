"""`make loop`: the feedback loop run for real, round after round.

    python -m training.loop.run loop/params.yaml DEMO_DIR OUT_METRICS OUT_REPORT OUT_PLOT

Setup: the loop's world (`training.loop.world`) from the demo world in DEMO_DIR; the
stock bundle of round 0's catalog is exported, evaluated, registered as the loop's
production and released (`loop/work/releases/production.json`). Each round then:
1. the servers offer that round's catalog (new tools joined; from `change_round`, one
   tool's description changed upstream), every tool they offered before approved in the
   ledger as it was first seen;
2. a real `toolsift serve` follows the release pointer and writes its traces, while the
   simulated agent (`training.loop.round`) sends the round's requests over MCP;
3. the round's traces join the training traces and `dvc repro loop/dvc.yaml` retrains,
   evaluates and promotes (nothing by hand); the next round's gateway serves whatever
   the pointer names.
Per round the report holds: the bundle served and its eval (end-to-end, request-level
R@5, the new-tool slice, menu length), what the agent lived (calls that did what was
asked, gold on the menu, new tools on the menu), the tools the gateway quarantined,
and the promote decision that followed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WORK = Path("loop/work")


@dataclass(frozen=True, slots=True)
class LoopParams:
    seed: int
    rounds: int
    requests_per_round: int
    n_servers: int
    join_rounds: int
    change_round: int
    reload_interval_s: float = 1.0


@dataclass(frozen=True, slots=True)
class RoundRow:
    round: int
    bundle_version: str
    stock: bool  # the bundle served is the stock one
    end_to_end: float | None
    recall_at_5: float | None
    new_tool_end_to_end: float | None
    menu_length: float | None
    agent_success: float
    agent_gold_on_menu: float
    agent_new_tool_on_menu: float | None
    n_tools: int
    quarantined: tuple[str, ...]
    promoted_next: bool | None  # the decision of the retraining after this round
    seconds: float


def _python_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


def _run(argv: Sequence[str]) -> None:
    subprocess.run(list(argv), cwd=ROOT, env=_python_env(), check=True)


def _write_jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def eval_row(metrics_path: Path) -> dict[str, float | None]:
    """The numbers a round reports from an evaluate stage's eval.json."""
    m = json.loads(metrics_path.read_text())
    p = m["pipeline"]
    new = (p.get("slices") or {}).get("new_tool") or {}
    return {"end_to_end": p.get("end_to_end"), "recall_at_5": p["request"].get("recall_at_5"),
            "new_tool_end_to_end": new.get("end_to_end"),
            "menu_length": p.get("menu_length_mean")}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", help="loop/params.yaml")
    parser.add_argument("demo_dir", help="the demo world (catalog, traces, eval JSONL)")
    parser.add_argument("metrics", help="where to write the per-round JSON")
    parser.add_argument("report", help="where to write the markdown table")
    parser.add_argument("plot", help="where to write the PNG")
    args = parser.parse_args(argv)

    import anyio

    from serving.bundle.files import load_bundle
    from serving.bundle.release import read_pointer, write_pointer
    from serving.catalog.approvals import approve, load_ledger
    from serving.gateway.config import ServerSpec, parse_config
    from serving.gateway.demo import DemoOptions, demo_tools
    from serving.gateway.registry import build_registry, import_server
    from serving.model.io import load_catalog, load_queries, load_traces
    from training.core.params import load_params, read_section
    from training.loop.round import RoundStats, run_round
    from training.loop.world import build_loop_world
    from training.release import registry

    params = load_params(args.params, "loop", LoopParams)
    os.chdir(ROOT)
    demo = Path(args.demo_dir)
    cards = list(load_catalog(demo / "catalog.jsonl").items)
    world = build_loop_world(
        cards, load_traces(demo / "traces.jsonl", known_tools=[c.tool_id for c in cards]).items,
        load_queries(demo / "eval.jsonl").items, n_servers=params.n_servers,
        join_rounds=params.join_rounds, change_round=params.change_round, seed=params.seed)
    rng = random.Random(params.seed)
    data, releases = WORK / "data", WORK / "releases"
    for sub in ("data", "releases", "traces", "rounds"):
        (WORK / sub).mkdir(parents=True, exist_ok=True)
    for old in (*releases.iterdir(), *(WORK / "traces").iterdir()):
        if old.is_file():
            old.unlink()
    _write_jsonl(data / "eval.jsonl", [q.to_dict() for q in world.eval])
    ledger = WORK / "approvals.jsonl"
    ledger.unlink(missing_ok=True)
    approved: set[str] = set()
    model_name = str(read_section(args.params, "promote")["registered_model"])

    t0 = time.perf_counter()
    catalog0 = world.catalog(0)
    _write_jsonl(data / "catalog.jsonl", [c.to_dict() for c in catalog0])
    print(f"loop: {len(world.cards)} tools ({len(world.new_tools())} join later), "
          f"{len(world.pool)} traffic requests, {len(world.eval)} eval requests", flush=True)
    stock = WORK / "bundles" / "stock"
    _run([sys.executable, "-m", "training.export", args.params, str(data / "catalog.jsonl"),
          str(stock)])
    _run([sys.executable, "-m", "training.evaluate", args.params, str(data / "eval.jsonl"),
          str(stock), str(WORK / "metrics" / "eval_stock.json"),
          str(WORK / "reports" / "eval_stock.md"), str(WORK / "plots" / "eval_stock")])
    released = registry.release_bundle(stock, releases)
    version = registry.register_bundle(released, name=model_name)
    registry.set_bundle_path(version, released, name=model_name)
    registry.set_alias(version, "production", name=model_name)
    write_pointer(releases, released.name)
    served_eval = eval_row(WORK / "metrics" / "eval_stock.json")
    stock_version = released.name

    spec = ServerSpec(name="world", command="-", trust="first_party", tool_names="qualified")

    def as_imported(cards: Sequence[Any]) -> dict[str, Any]:
        """The cards the gateway makes of these tools' live listing (unedited)."""
        wire = [t.model_dump(by_alias=True, mode="json", exclude_none=True)
                for t in demo_tools(cards, DemoOptions())]
        return {card.tool_id: card for card, _ in import_server(spec, wire)[0]}

    def training_catalog(round_no: int) -> list[Any]:
        """What the operator trains on: the world's cards of the first round's tools, and
        the imported card of every tool that joined since (as `catalog.sources` would)."""
        cards = world.catalog(round_no)
        imported = as_imported([c for c in cards if world.joins[c.tool_id] > 0])
        return [imported.get(c.tool_id, c) for c in cards]

    rows: list[RoundRow] = []
    traces_so_far: list[str] = []
    for r in range(params.rounds):
        started = time.perf_counter()
        catalog = world.catalog(r)
        # each tool approved as first seen: the card the gateway serves it with
        reviewed_cards = training_catalog(r)
        new_ids = [c.tool_id for c in reviewed_cards if c.tool_id not in approved]
        approve(ledger, reviewed_cards, new_ids, approver="loop")
        approved |= set(new_ids)
        served = WORK / "rounds" / f"cards_{r}.jsonl"
        _write_jsonl(served, [c.to_dict() for c in catalog])
        judge = WORK / "rounds" / "judge.json"
        edits = world.edits(r)
        server = {"command": sys.executable,
                  "args": ["-m", "training.loop.server", "--catalog", str(served),
                           "--judge", str(judge),
                           *[a for t, d in edits.items() for a in ("--edit", f"{t}={d}")]],
                  "env": {k: v for k, v in _python_env().items()
                          if k in ("PATH", "HF_HUB_OFFLINE", "TOKENIZERS_PARALLELISM")},
                  "tool_names": "qualified", "trust": "first_party"}
        config = {"mcpServers": {"world": server},
                  "policy": {"by_risk": {"write": "allow", "destructive": "allow"}}}
        config_path = WORK / "rounds" / "servers.json"
        config_path.write_text(json.dumps(config))
        wire = [t.model_dump(by_alias=True, mode="json", exclude_none=True)
                for t in demo_tools(catalog, DemoOptions(edits=edits))]
        release = read_pointer(releases / "production.json")
        known = {c.tool_id: c for c in load_bundle(release.path).cards}
        reviewed = build_registry({"world": wire}, parse_config(config).servers, known,
                                  ledger=load_ledger(ledger))
        traces = WORK / "traces" / f"round_{r}.jsonl"
        requests = world.traffic(r, params.requests_per_round, rng)
        gateway = ["serve", "--bundle", str(releases / "production.json"), "--config",
                   str(config_path), "--ledger", str(ledger), "--traces", str(traces),
                   "--reload-interval", str(params.reload_interval_s)]
        turns = anyio.run(partial(run_round, gateway, requests, judge, seed=params.seed + r,
                                  env=_python_env()))
        stats = RoundStats.of(turns)
        print(f"loop round {r}: bundle {release.version}, {stats.n_requests} requests, "
              f"success {stats.success:.3f}, gold on menu {stats.gold_on_menu:.3f}", flush=True)
        promoted = None
        if r < params.rounds - 1:
            traces_so_far.append(traces.read_text(encoding="utf-8"))
            (data / "traces.jsonl").write_text("".join(traces_so_far), encoding="utf-8")
            _write_jsonl(data / "catalog.jsonl", [c.to_dict() for c in training_catalog(r + 1)])
            _run(["dvc", "repro", "loop/dvc.yaml"])
            promoted = bool(json.loads((WORK / "metrics" / "promote.json").read_text())
                            ["promoted"])
        rows.append(RoundRow(
            round=r, bundle_version=release.version, stock=release.version == stock_version,
            **served_eval, agent_success=stats.success,
            agent_gold_on_menu=stats.gold_on_menu,
            agent_new_tool_on_menu=stats.new_tool_on_menu, n_tools=len(reviewed.cards),
            quarantined=tuple(t for t, _ in reviewed.quarantined), promoted_next=promoted,
            seconds=round(time.perf_counter() - started, 1)))
        if promoted:
            served_eval = eval_row(WORK / "metrics" / "eval.json")

    total = time.perf_counter() - t0
    out = {"params": asdict(params), "seconds": round(total, 1),
           "changed_tool": world.changed[0] if world.changed else None,
           "new_tools": sorted(world.new_tools()),
           "rounds": [asdict(row) for row in rows]}
    Path(args.metrics).parent.mkdir(parents=True, exist_ok=True)
    Path(args.metrics).write_text(json.dumps(out, indent=1) + "\n")
    write_report(Path(args.report), rows, out)
    draw(Path(args.plot), rows)
    print(f"loop: {params.rounds} rounds in {total / 60:.1f} min -> {args.report}")
    return 0


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def write_report(path: Path, rows: Sequence[RoundRow], out: Mapping[str, Any]) -> None:
    lines = [
        "# The feedback loop (`make loop`)", "",
        f"{len(rows)} rounds in {out['seconds'] / 60:.1f} minutes. Each round a simulated "
        "agent sends requests to a real `toolsift serve` over MCP; its traces retrain "
        "(`dvc repro loop/dvc.yaml`) and a promoted bundle is served by the next round. "
        f"New tools joining between rounds: {len(out['new_tools'])}; the tool whose "
        f"description changed upstream: {out['changed_tool']}.", "",
        "| round | bundle | end-to-end | R@5 | new-tool e2e | menu | agent success | "
        "gold on menu | new tools on menu | tools served | quarantined | promoted after |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.round} | {r.bundle_version[:12]}{' (stock)' if r.stock else ''} | "
            f"{_fmt(r.end_to_end)} | {_fmt(r.recall_at_5)} | {_fmt(r.new_tool_end_to_end)} | "
            f"{_fmt(r.menu_length)} | {_fmt(r.agent_success)} | {_fmt(r.agent_gold_on_menu)} | "
            f"{_fmt(r.agent_new_tool_on_menu)} | {r.n_tools} | "
            f"{', '.join(r.quarantined) or '-'} | {_fmt(r.promoted_next)} |")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def draw(path: Path, rows: Sequence[RoundRow]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [r.round for r in rows]
    for name, label in (("end_to_end", "eval end-to-end"), ("agent_success", "agent success"),
                        ("agent_gold_on_menu", "gold on menu (agent)"),
                        ("new_tool_end_to_end", "new-tool slice end-to-end")):
        ys = [getattr(r, name) for r in rows]
        ax.plot(xs, [float("nan") if y is None else y for y in ys], marker="o", label=label)
    ax.set_xlabel("round (0 serves the stock bundle)")
    ax.set_xticks(xs)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("the loop: traces in, a promoted bundle back")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())

"""Evaluation plots: the wide tables `dvc plots` reads (x = `k` or `stage`, one column per
system) and the PNGs drawn from them.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from serving import metrics as M


def plot_rows(summary: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Wide tables for DVC plots (x = `k` or `stage`, one column per system):
    recall_retrieved / recall_menu (pipeline and variants, per gold subgoal),
    recall_request (baselines, pipeline and variants, whole request), chain, latency."""
    systems = {"pipeline": summary["pipeline"], **summary["variants"]}
    tables: dict[str, list[dict[str, Any]]] = {}
    for lst in ("retrieved", "menu"):
        ks = sorted(int(key.rpartition("_at_")[2]) for key in summary["pipeline"]["recall"]
                    if key.startswith(f"{lst}_at_"))
        tables[f"recall_{lst}"] = [
            {"k": k, **{name: sec["recall"][f"{lst}_at_{k}"] for name, sec in systems.items()}}
            for k in ks
        ]
    request = {
        **{n: sec for n, sec in summary["baselines"].items() if n != "pipeline"},
        **{n: sec["request"] for n, sec in systems.items()},
    }
    ks = sorted(int(key.removeprefix("recall_at_")) for key in summary["pipeline"]["request"]
                if key.startswith("recall_at_"))
    tables["recall_request"] = [
        {"k": k, **{name: sec[f"recall_at_{k}"] for name, sec in request.items()}} for k in ks
    ]
    tables["chain"] = [
        {"stage": stage,
         **{name: sec[stage if stage == "end_to_end" else f"r_{stage}"]
            for name, sec in systems.items()}}
        for stage in (*M.STAGES, "end_to_end")
    ]
    tables["latency"] = [
        {"stage": stage, "p50": v["p50"], "p95": v["p95"]}
        for stage, v in summary["pipeline"]["latency_ms"].items()
    ]
    return tables


def write_plots(rows: Mapping[str, Sequence[Mapping[str, Any]]], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in rows.items():
        path = out_dir / f"{name}.csv"
        with path.open("w", newline="") as fh:
            fields = list(table[0]) if table else []
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            writer.writerows(table)
        written.append(path)
    written.extend(_draw(rows, out_dir))
    return written


def _draw(rows: Mapping[str, Sequence[Mapping[str, Any]]], out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, name in zip(axes, ("recall_retrieved", "recall_menu", "recall_request"), strict=True):
        table = rows[name]
        for system in [c for c in (table[0] if table else {}) if c != "k"]:
            points = [(r["k"], r[system]) for r in table if r[system] is not None]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=system)
        ax.set_title(name.replace("_", " "))
        ax.set_xlabel("k")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_ylabel("recall@k")
    fig.tight_layout()
    paths.append(out_dir / "recall.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3.5))
    lat = [r for r in rows["latency"] if r["p50"] is not None]
    x = np.arange(len(lat))
    ax.bar(x - 0.2, [r["p50"] for r in lat], 0.4, label="p50")
    ax.bar(x + 0.2, [r["p95"] for r in lat], 0.4, label="p95")
    ax.set_xticks(x, [r["stage"] for r in lat], rotation=30)
    ax.set_ylabel("ms per request")
    ax.legend()
    fig.tight_layout()
    paths.append(out_dir / "latency.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths

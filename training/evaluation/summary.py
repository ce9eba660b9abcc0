"""The short summary a person reads after `make demo` (`toolsift report`).

Pure functions over the metrics files the stages already write (`metrics/eval.json`,
`metrics/promote.json`, `metrics/security.json`): no model loads, no MLflow. A file that
is missing (a stage not run yet) gives a line saying so, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

CHAIN = ("r_decompose", "r_retrieve", "r_filter", "r_menu", "r_select", "end_to_end")
REQUEST_COLUMNS = ("recall_at_5", "recall_at_10", "ndcg_at_10")
BASELINE_ORDER = ("bm25", "dense", "rrf", "pipeline")


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def read_metrics(path: str | Path) -> dict[str, Any] | None:
    """A metrics file's contents, or None when the stage has not written it yet."""
    p = Path(path)
    if not p.is_file():
        return None
    with p.open(encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{p}: expected a JSON object, got {type(data).__name__}")
    return data


def eval_lines(ev: Mapping[str, Any]) -> list[str]:
    """Chain, request-level quality against the baselines, latency and tokens."""
    pipe = ev["pipeline"]
    lines = [
        f"evaluated bundle {ev.get('bundle_version', '?')} on {ev.get('n_queries', '?')} "
        f"held-out requests ({pipe.get('n_items', '?')} gold items)",
        "recall chain  " + "  ".join(f"{k} {_num(pipe.get(k))}" for k in CHAIN),
        "request level      " + "  ".join(f"{c:>12}" for c in REQUEST_COLUMNS),
    ]
    baselines = dict(ev.get("baselines", {}))
    for name in [n for n in BASELINE_ORDER if n in baselines] + sorted(
        n for n in baselines if n not in BASELINE_ORDER
    ):
        row = baselines[name]
        label = "toolsift" if name == "pipeline" else name
        cells = "  ".join(f"{_num(row.get(c)):>12}" for c in REQUEST_COLUMNS)
        lines.append(f"  {label:<16} {cells}")
    variants = ev.get("variants", {})
    if variants:
        parts = [f"{n} {_num(v.get('end_to_end'))}" for n, v in sorted(variants.items())]
        lines.append("variants, end-to-end: " + ", ".join(parts))
    abstention = pipe.get("abstention", {})
    lines.append(
        f"menus: mean length {_num(pipe.get('menu_length_mean'), 1)} (p95 "
        f"{_num(pipe.get('menu_length_p95'), 0)}), R_menu {_num(pipe.get('r_menu'))}, abstained "
        f"on {_num(abstention.get('abstain_rate'))} of {abstention.get('n_no_tool', 0)} no-tool "
        f"requests and {_num(abstention.get('false_abstain_rate'))} of "
        f"{abstention.get('n_with_gold', 0)} with gold"
    )
    miss = pipe.get("missing_connection")
    if miss:
        lines.append(
            f"missing connection: {_num(miss.get('names_connection'))} of "
            f"{miss.get('n_queries', 0)} requests without their gold's connection name it; "
            f"{_num(miss.get('menus_with_write'))} still offer a write tool"
        )
    latency = pipe.get("latency_ms", {}).get("total", {})
    tokens = pipe.get("tokens", {})
    lines.append(
        f"latency per request p50 {_num(latency.get('p50'), 0)} ms, "
        f"p95 {_num(latency.get('p95'), 0)} ms; menu tokens mean "
        f"{_num(tokens.get('menu_mean'), 0)} vs {tokens.get('catalog', '?')} for the whole catalog"
    )
    return lines


def promote_lines(pr: Mapping[str, Any]) -> list[str]:
    verdict = "promoted" if pr.get("promoted") else "not promoted"
    return [f"promotion: {verdict}: {pr.get('reason', '')}"]


def security_lines(sec: Mapping[str, Any]) -> list[str]:
    gates = sec.get("gates", {})
    after = sec.get("reach", {}).get("after", {})
    lint = sec.get("lint", {})
    status = "passed" if gates.get("passed") else "FAILED"
    return [
        f"security gates {status}: {sec.get('n_poisoned', '?')} poisoned tools flagged "
        f"{_num(lint.get('poisoned_flagged_by_lint_or_ledger_rate'))} (lint alone "
        f"{_num(lint.get('poisoned_flagged_rate'))}), in a menu after the defenses "
        f"{_num(after.get('poisoned_in_menu_rate'))}, clean tools flagged "
        f"{_num(lint.get('clean_false_positive_rate'))}"
    ]


def summary_lines(
    metrics_dir: str | Path, *, plots: Sequence[str] = ("plots/eval", "reports/eval.md")
) -> list[str]:
    """Every line of the summary, in reading order."""
    root = Path(metrics_dir)
    lines: list[str] = []
    ev = read_metrics(root / "eval.json")
    lines += eval_lines(ev) if ev else [f"{root / 'eval.json'}: not written yet (run dvc repro)"]
    pr = read_metrics(root / "promote.json")
    lines += promote_lines(pr) if pr else ["promotion: not run yet"]
    sec = read_metrics(root / "security.json")
    lines += security_lines(sec) if sec else ["security study: not run (make studies)"]
    lines.append("details: " + ", ".join(plots) + f", {root}/*.json (dvc metrics show)")
    return lines

"""reports/security.md, written from the study's metrics."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from training.security.poison_sets import SET_NOTES


def render_report(metrics: Mapping[str, Any]) -> str:
    """reports/security.md: the per-set, per-class catch rates, the false alarms and how
    often what slipped reaches a menu."""
    lines = [
        "# Security study",
        "",
        "Written by `training.security_eval` (`make studies`); numbers from "
        "`metrics/security.json`. A tool counts as caught when an error-severity security "
        "finding flags it: by the exact rules, by the detector by meaning "
        "(`serving/catalog/meaning.py`), or either; `warned` counts warnings too.",
        "",
        "## Poisoned sets by attack class",
        "",
    ]
    for name, r in metrics.get("lint_by_class", {}).items():
        note = SET_NOTES.get(name.split("_")[0], "")
        lines += [
            f"### {name} ({r['n']} tools; {note})",
            "",
            "| class | n | caught | rules | meaning | warned |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for cls, c in [*r["by_class"].items(), ("all", r)]:
            lines.append(
                f"| {cls} | {c['n']} | {c['flagged_rate']:.2f} | {c['rules_rate']:.2f} | "
                f"{c['meaning_rate']:.2f} | {c['warning_or_error_rate']:.2f} |"
            )
        lines.append("")
    lint = metrics["lint"]
    lines += [
        "## False alarms (error severity)",
        "",
        f"- Clean demo tools: {lint['clean_false_positive_rate']:.2%} of "
        f"{lint['clean_n_tools']}.",
    ]
    if "lint_real" in metrics:
        real = metrics["lint_real"]
        lines.append(
            f"- `{real['catalog']}`: {real['false_positive_rate']:.2%} of {real['n_tools']} "
            f"tools (codes {real['error_codes']}); {real['cautioned_rate']:.2%} would be held "
            "to the caution bar by a warning."
        )
    reach = metrics.get("slipped_reach")
    if reach:
        lines += [
            "",
            "## What slipped: how often it reaches a menu",
            "",
            f"{reach['n_slipped']} poisoned tools passed the lint at error severity "
            f"({reach['slipped_by_set']}); {reach['n_cautioned']} of them carry a warning, "
            f"so `cautions`. Installed beside the clean catalog in a bundle of the trained "
            f"models with the tuned menus, every attacker connected:",
            "",
            "| caution rule | queries | slipped tools in any menu | at any menu top | "
            "requests showing one |",
            "|---|---|---:|---:|---:|",
        ]
        for rule, label in (("caution", f"bar {reach['caution_bar']}"), ("no_caution", "off")):
            for what in ("eval", "nonsense"):
                r = reach[f"{rule}_{what}"]
                lines.append(
                    f"| {label} | {what} ({r['n_requests']}) | {r['slipped_in_any_menu']:.2f} "
                    f"| {r['slipped_at_any_top1']:.2f} | {r['requests_with_slipped_in_menu']:.3f} |"
                )
    return "\n".join(lines) + "\n"


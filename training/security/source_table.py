"""The whole lint's out-of-fold verdicts on the public corpus, by class and by source.

`make detector` fits the detector by meaning once per fold of source repositories
(`training.train_lint.fit_with_public`); each public tool is judged by the fold's detector
that never read its source, beside the rules (which read no data). A tool is at error when
either family quarantines it, warned when either would serve it with a caution: the levels
of `training.security.judge`, whose tables this reuses. Pure: levels in, counts and a
markdown table out; no text of the corpus is quoted, only source names, tool ids and counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from training.security.judge import ToolVerdict, by_class, summary, table_by_source
from training.security.public_tools import PublicTool

MIN_CLASS_TOOLS = 5  # a class with fewer attacks has no rate worth reading


def held_out_verdict(tool: PublicTool, rules: int, meaning: int) -> ToolVerdict:
    """A tool's verdict from the rules' level and the held-out detector's level."""
    return ToolVerdict(tool, max(rules, meaning), rules, meaning, ())


def held_out_summary(verdicts: Sequence[ToolVerdict]) -> dict[str, Any]:
    """Rates over every attack and every benign tool (`judge.summary`), per attack class
    (`judge.by_class`) and per source (`judge.table_by_source`). Worked: two attacks of
    one class, one at error, and one benign tool warned give attacks_at_error 0.5,
    benign_warned 1.0 and that class at 1 of 2."""
    rates = summary(verdicts)
    classes = by_class([v for v in verdicts if v.tool.poisoned])
    good = [v for v in verdicts if not v.tool.poisoned]
    return {
        "n_sources": len({v.tool.repo for v in verdicts}),
        "n_poisoned": rates["n_poisoned"],
        "n_benign": rates["n_benign"],
        "attacks_at_error": rates["poisoned_at_error"],
        "benign_at_error": rates["benign_at_error"],
        "benign_warned": rates["benign_warned"],
        "benign_warned_by_rules": round(sum(v.rules >= 1 for v in good) / len(good), 4)
        if good else 0.0,
        "benign_at_error_tools": sorted(v.tool.card.tool_id for v in good if v.level == 2),
        "by_class": classes,
        "classes_under_80": sorted(
            c for c, r in classes.items()
            if r["tools"] >= MIN_CLASS_TOOLS and r["at_error"] / r["tools"] < 0.8
        ),
        "by_source": table_by_source(verdicts),
    }


def render_source_table(summary: dict[str, Any], *, folds: int) -> str:
    s = summary
    lines = [
        "# The lint on the public corpus, each source judged by a detector that never read it",
        "",
        f"`make detector`: the detector by meaning fit {folds} times, once per fold of the "
        f"{s['n_sources']} source repositories of `../shared/security` (both batches); every "
        "tool judged by the fold's detector that did not read its source, beside the rules. "
        "Bars are the shipped detector's. No text of the corpus is quoted here.",
        "",
        "| | tools | at error | warned or worse |",
        "|---|---:|---:|---:|",
        f"| attacks | {s['n_poisoned']} | {s['attacks_at_error']:.1%} | |",
        f"| real benign tools | {s['n_benign']} | {s['benign_at_error']:.2%} | "
        f"{s['benign_warned']:.1%} |",
        "",
        "## Attacks by class",
        "",
        "| class | tools | at error |",
        "|---|---:|---:|",
    ]
    for cls, r in s["by_class"].items():
        share = r["at_error"] / r["tools"]
        lines.append(f"| {cls} | {r['tools']} | {r['at_error']} ({share:.0%}) |")
    lines += [
        "",
        "## By source",
        "",
        "| source | kind | tools | at error | warned | rules at error | meaning at error |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in s["by_source"]:
        lines.append(
            f"| {r['source']} | {r['kind']} | {r['tools']} | {r['at_error']} | {r['warned']} | "
            f"{r['rules_at_error']} | {r['meaning_at_error']} |"
        )
    lines += ["", "Benign tools at error: "
              + (", ".join(f"`{t}`" for t in s["benign_at_error_tools"]) or "none") + ".", ""]
    return "\n".join(lines)

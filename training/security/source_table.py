"""The whole lint's out-of-fold verdicts on the public corpus, by class and by source.

`make detector` fits the detector by meaning once per fold of source repositories
(`training.train_lint.fit_with_public`); each public tool is judged by the fold's detector
that never read its source, beside the rules (which read no data). A tool is at error when
either family quarantines it, warned when either would serve it with a caution: the levels
of `training.security.judge`. Pure: levels in, counts and a markdown table out; no text of
the corpus is quoted, only source names, tool ids and counts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from training.security.public_tools import PublicTool

MIN_CLASS_TOOLS = 5  # a class with fewer attacks has no rate worth reading


@dataclass(frozen=True, slots=True)
class HeldOutVerdict:
    tool: PublicTool
    rules: int  # 2 error, 1 warning, 0 neither: the rules alone
    meaning: int  # the same from the detector that did not read the tool's source

    @property
    def level(self) -> int:
        return max(self.rules, self.meaning)


def _rate(hits: int, n: int) -> float | None:
    return round(hits / n, 4) if n else None


def held_out_summary(verdicts: Sequence[HeldOutVerdict]) -> dict[str, Any]:
    """Rates over every attack and every benign tool, per attack class and per source.
    Worked: two attacks of one class, one at error, and one benign tool warned give
    attacks_at_error 0.5, benign_warned 1.0 and that class at 1 of 2."""
    bad = [v for v in verdicts if v.tool.poisoned]
    good = [v for v in verdicts if not v.tool.poisoned]
    by_class: dict[str, dict[str, int]] = defaultdict(lambda: {"tools": 0, "at_error": 0})
    for v in bad:
        row = by_class[v.tool.attack_class or "unlabelled"]
        row["tools"] += 1
        row["at_error"] += v.level == 2
    sources: dict[tuple[str, str], dict[str, Any]] = {}
    for v in verdicts:
        kind = "poisoned" if v.tool.poisoned else "benign"
        row = sources.setdefault((v.tool.repo, kind), {
            "source": v.tool.repo, "kind": kind, "tools": 0, "at_error": 0, "warned": 0,
            "rules_at_error": 0, "meaning_at_error": 0,
        })
        row["tools"] += 1
        row["at_error"] += v.level == 2
        row["warned"] += v.level >= 1
        row["rules_at_error"] += v.rules == 2
        row["meaning_at_error"] += v.meaning == 2
    weak = [c for c, r in by_class.items()
            if r["tools"] >= MIN_CLASS_TOOLS and r["at_error"] / r["tools"] < 0.8]
    return {
        "n_sources": len({v.tool.repo for v in verdicts}),
        "n_poisoned": len(bad),
        "n_benign": len(good),
        "attacks_at_error": _rate(sum(v.level == 2 for v in bad), len(bad)),
        "benign_at_error": _rate(sum(v.level == 2 for v in good), len(good)),
        "benign_warned": _rate(sum(v.level >= 1 for v in good), len(good)),
        "benign_warned_by_rules": _rate(sum(v.rules >= 1 for v in good), len(good)),
        "benign_at_error_tools": sorted(v.tool.card.tool_id for v in good if v.level == 2),
        "by_class": {c: dict(r) for c, r in sorted(by_class.items())},
        "classes_under_80": sorted(weak),
        "by_source": sorted(sources.values(), key=lambda r: (r["kind"] != "poisoned",
                                                             r["source"])),
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

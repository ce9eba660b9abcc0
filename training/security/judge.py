"""The lint as the gateway runs it, on public tools: per tool, per source.

Each server's tools are linted together (cross-card rules see the server's own list, as
the gateway's review does). A tool is **at error** when the gateway would quarantine it
(the importer refused it, or any finding on it is an error) and **warned** when it would
be served with a caution (`lint.CAUTION_CODES`); `rules` and `meaning` say which family reached
that level, so the two can be read apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from serving.bundle.encoder import TextEncoder
from serving.catalog.findings import Finding
from serving.catalog.lint import CAUTION_CODES, lint_catalog
from serving.catalog.meaning import MeaningDetector
from training.security.poison_styles import MEANING_CODES
from training.security.public_tools import PublicTool


@dataclass(frozen=True, slots=True)
class ToolVerdict:
    tool: PublicTool
    level: int  # 2 quarantined, 1 warned, 0 served plainly
    rules: int  # the level from every finding but the check by meaning
    meaning: int  # the level from the check by meaning alone
    codes: tuple[str, ...]  # codes at the tool's level
    evidence: str = ""  # the message of the first finding at that level


def finding_level(f: Finding) -> int:
    """2 for an error (the gateway quarantines), 1 for a warning it serves with a caution
    (`lint.CAUTION_CODES`), else 0."""
    if f.severity == "error":
        return 2
    return 1 if f.code in CAUTION_CODES else 0


def judge_tools(
    tools: Sequence[PublicTool],
    encoder: TextEncoder | None = None,
    detector: MeaningDetector | None = None,
) -> list[ToolVerdict]:
    """One verdict per tool, in input order."""
    groups: dict[tuple[bool, str], list[int]] = defaultdict(list)
    for i, t in enumerate(tools):
        if not t.refused:
            groups[(t.poisoned, t.card.server)].append(i)
    found: dict[int, list[Finding]] = {}
    for (_, _), idx in groups.items():
        cards = [tools[i].card for i in idx]
        by_id: dict[str, list[Finding]] = defaultdict(list)
        for f in lint_catalog(cards, encoder=encoder, detector=detector,
                              near_duplicates=False):
            by_id[f.tool_id].append(f)
        for i in idx:
            found[i] = by_id.get(tools[i].card.tool_id, [])
    out = []
    for i, t in enumerate(tools):
        if t.refused:
            out.append(ToolVerdict(t, 2, 2, 0, ("import_refused",), t.refused))
            continue
        fs = found[i]
        meaning = max((finding_level(f) for f in fs if f.code in MEANING_CODES), default=0)
        rules = max((finding_level(f) for f in fs if f.code not in MEANING_CODES), default=0)
        level = max(rules, meaning)
        at = [f for f in fs if level and finding_level(f) == level]
        out.append(
            ToolVerdict(t, level, rules, meaning, tuple(sorted({f.code for f in at})),
                        at[0].message if at else "")
        )
    return out


def table_by_source(verdicts: Sequence[ToolVerdict]) -> list[dict[str, Any]]:
    """One row per (source repository, poisoned or benign): tools, at error, warned, and
    at error by the rules alone and by meaning alone."""
    rows: dict[tuple[str, bool], list[ToolVerdict]] = defaultdict(list)
    for v in verdicts:
        rows[(v.tool.repo, v.tool.poisoned)].append(v)
    out = []
    for (repo, poisoned), vs in sorted(rows.items(), key=lambda kv: (not kv[0][1], kv[0][0])):
        out.append(
            {
                "source": repo,
                "kind": "poisoned" if poisoned else "benign",
                "tools": len(vs),
                "at_error": sum(v.level == 2 for v in vs),
                "warned": sum(v.level >= 1 for v in vs),
                "rules_at_error": sum(v.rules == 2 for v in vs),
                "meaning_at_error": sum(v.meaning == 2 for v in vs),
            }
        )
    return out


def summary(verdicts: Sequence[ToolVerdict]) -> dict[str, Any]:
    """Shares over all poisoned and all benign tools (and hard benign ones apart)."""
    def share(vs: list[ToolVerdict], ok: Any) -> float:
        return round(sum(map(ok, vs)) / len(vs), 4) if vs else 0.0

    bad = [v for v in verdicts if v.tool.poisoned]
    good = [v for v in verdicts if not v.tool.poisoned]
    hard = [v for v in good if v.tool.hard_benign]
    return {
        "n_poisoned": len(bad),
        "n_benign": len(good),
        "poisoned_at_error": share(bad, lambda v: v.level == 2),
        "poisoned_warned": share(bad, lambda v: v.level >= 1),
        "poisoned_rules_at_error": share(bad, lambda v: v.rules == 2),
        "poisoned_meaning_at_error": share(bad, lambda v: v.meaning == 2),
        "benign_at_error": share(good, lambda v: v.level == 2),
        "benign_warned": share(good, lambda v: v.level >= 1),
        "hard_benign_at_error": share(hard, lambda v: v.level == 2),
        "benign_tools_at_error": sum(v.level == 2 for v in good),
    }


def by_class(bad: Sequence[ToolVerdict]) -> dict[str, dict[str, int]]:
    """Per attack class of the poisoned verdicts: tools, at error, warned."""
    out: dict[str, dict[str, int]] = {}
    for v in bad:
        row = out.setdefault(v.tool.attack_class, {"tools": 0, "at_error": 0, "warned": 0})
        row["tools"] += 1
        row["at_error"] += v.level == 2
        row["warned"] += v.level >= 1
    return dict(sorted(out.items()))

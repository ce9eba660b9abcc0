"""What the lint and the approval ledger stop: rates on the clean and the poisoned
tools, the risk-decision invariant, and the lint the study runs (rules, and the detector
by meaning when given).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from serving.calls.policy import RiskPolicy
from serving.catalog.approvals import Approval, Ledger
from serving.catalog.findings import Finding, LintConfig, count_findings, error_tool_ids
from serving.catalog.lint import lint_catalog
from serving.model.schema import ToolCard
from training.security.attacks import ATTACK_KINDS
from training.security.poison_styles import Lint
from training.security.poisoning import Poisoned

APPROVED_AT = "2026-01-01T00:00:00Z"


def ratio(num: int, den: int) -> float:
    """num / den to 4 places; 0.0 for an empty denominator."""
    return round(num / den, 4) if den else 0.0



def security_error_ids(findings: Iterable[Finding]) -> set[str]:
    return error_tool_ids(findings, security_only=True)


def approvals_of(cards: Iterable[ToolCard]) -> Ledger:
    return Ledger(
        {
            c.tool_id: Approval.of(c, approver="security_eval", approved_at=APPROVED_AT)
            for c in cards
        }
    )


def lint_rates(
    clean: Sequence[ToolCard],
    poisoned: Sequence[Poisoned],
    current: Sequence[ToolCard],
    current_findings: Sequence[Finding],
    ledger_excluded: Iterable[str],
    lint: Lint,
) -> dict[str, Any]:
    """Lint's false positives on the clean catalog and its hit rate on the poisoned tools,
    beside the ledger's (a ledger that approved everything installed: it sees rug pulls
    only) and the two together, overall and per attack kind."""
    clean_findings = lint(clean)
    clean_flagged = sorted(security_error_ids(clean_findings))
    flagged = security_error_ids(current_findings)
    excluded = set(ledger_excluded)
    kinds = sorted({p.kind for p in poisoned}, key=ATTACK_KINDS.index)

    def share(items: Sequence[Poisoned], hit: set[str]) -> float:
        return ratio(sum(p.card.tool_id in hit for p in items), len(items))

    by_kind = {}
    for kind in kinds:
        items = [p for p in poisoned if p.kind == kind]
        by_kind[kind] = {
            "n": len(items),
            "lint": share(items, flagged),
            "ledger": share(items, excluded),
            "lint_or_ledger": share(items, flagged | excluded),
        }
    poisoned_ids = {p.card.tool_id for p in poisoned}
    codes = [f for f in current_findings if f.tool_id in poisoned_ids and f.severity == "error"]
    return {
        "clean_n_tools": len(clean),
        "clean_false_positive_rate": ratio(len(clean_flagged), len(clean)),
        "clean_flagged_tools": clean_flagged[:50],
        "clean_counts": count_findings(clean_findings),
        "poisoned_flagged_rate": share(poisoned, flagged),
        "poisoned_flagged_by_ledger_rate": share(poisoned, excluded),
        "poisoned_flagged_by_lint_or_ledger_rate": share(poisoned, flagged | excluded),
        "poisoned_error_codes": count_findings(codes)["by_code"],
        "by_kind": by_kind,
        "n_current_tools": len(current),
    }


def risk_decisions(
    poisoned: Sequence[Poisoned], originals: Mapping[str, ToolCard], policy: RiskPolicy
) -> dict[str, Any]:
    """Every poisoned write tool must get its clean original's decision (same risk)."""
    checked, mismatched = 0, []
    for p in poisoned:
        orig = originals[p.original_id]
        if not p.card.mutates:
            continue
        checked += 1
        got, want = policy.decide(p.card).decision, policy.decide(orig).decision
        if got != want or p.card.risk != orig.risk:
            mismatched.append(f"{p.card.tool_id}: {got} vs {orig.tool_id}: {want}")
    return {
        "n_write_poisoned": checked,
        "n_equal": checked - len(mismatched),
        "mismatches": mismatched,
    }



def make_lint(config: LintConfig, detector_path: str | None) -> Lint:
    """lint_catalog with the study's config, and with the packaged MiniLM and the detector
    by meaning when `detector_path` is given."""
    if detector_path is None:
        return partial(lint_catalog, config=config)
    from serving.bundle.encoder import Encoder, stock_model_path
    from serving.catalog.meaning import MeaningDetector

    return partial(
        lint_catalog,
        config=config,
        encoder=MemoEncoder(Encoder(stock_model_path())),
        detector=MeaningDetector.load(detector_path),
    )


class MemoEncoder:
    """An encoder that embeds each distinct text once: the study lints the same clean
    catalog beside every poisoned set."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.model_path = encoder.model_path
        self.batch_size = encoder.batch_size
        self._seen: dict[str, Any] = {}

    @property
    def key(self) -> str:
        return str(self.encoder.key)

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> Any:
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self._seen))
        if missing:
            vectors = self.encoder.encode(missing, show_progress=show_progress)
            self._seen.update(zip(missing, vectors, strict=True))
        return np.stack([self._seen[t] for t in texts]) if texts else np.zeros((0, 0))


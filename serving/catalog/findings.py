"""Lint findings: codes with fixed severities, counting, and output for people.

Every finding has a code with a fixed severity (`SEVERITY`); `toolsift lint` exits 1 when
any finding is an error. Errors are what must not ship (security findings, cards a model
cannot call correctly); warnings need a human look; info notes what was skipped or
derived. `LintConfig` holds the thresholds every rule family reads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CATALOG = "<catalog>"  # tool_id of findings about the whole catalog
SEVERITIES = ("error", "warning", "info")

SEVERITY: Mapping[str, str] = {
    # security
    "injected_instruction": "error",
    "hidden_characters": "error",
    "encoded_blob": "error",  # warning when the blob does not decode to text
    "url_in_text": "warning",
    "shadowing": "error",
    "server_imitation": "error",
    "product_claim": "warning",
    "confusable_characters": "error",
    "changed_after_approval": "error",
    "not_approved": "warning",
    "risk_below_name": "warning",
    "addressed_to_model": "error",  # orders beyond the call (serving.catalog.poison_rules)
    "addresses_model": "warning",  # speaks to the model: guidance or not, meaning decides
    "claims_about_tools": "error",
    "moves_data": "error",
    "directs_other_call": "error",
    "executable_payload": "error",
    "hidden_by_layout": "error",
    "other_script": "error",  # text the check by meaning cannot read, in a card it can
    "other_script_label": "warning",  # ... a short one: a label in the vendor's language
    "poison_by_meaning": "error",  # serving.catalog.meaning: a sentence reads as an attack
    "suspect_by_meaning": "warning",
    # quality
    "card_invalid": "error",
    "schema_required_unknown": "error",
    "prefer_over_cycle": "error",
    "prefer_over_unknown": "warning",
    "summary_missing": "warning",
    "summary_too_long": "warning",
    "summary_implementer_voice": "warning",
    "description_cryptic": "warning",
    "near_duplicate": "warning",
    "owner_missing": "warning",
    "param_undocumented": "warning",
    "examples_missing": "info",
    "risk_derived": "info",
    "near_duplicate_skipped": "info",
    "meaning_check_skipped": "info",
}
SECURITY_CODES = frozenset(
    {
        "injected_instruction",
        "hidden_characters",
        "encoded_blob",
        "url_in_text",
        "shadowing",
        "server_imitation",
        "product_claim",
        "confusable_characters",
        "changed_after_approval",
        "not_approved",
        "risk_below_name",
        "addressed_to_model",
        "addresses_model",
        "claims_about_tools",
        "moves_data",
        "directs_other_call",
        "executable_payload",
        "hidden_by_layout",
        "other_script",
        "other_script_label",
        "poison_by_meaning",
        "suspect_by_meaning",
    }
)


@dataclass(frozen=True, slots=True)
class Finding:
    tool_id: str
    code: str
    severity: str
    message: str
    hint: str = ""

    @property
    def security(self) -> bool:
        return self.code in SECURITY_CODES

    def to_dict(self) -> dict[str, str]:
        return {
            "tool_id": self.tool_id,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


def finding(
    tool_id: str, code: str, message: str, hint: str = "", *, severity: str | None = None
) -> Finding:
    return Finding(tool_id, code, severity or SEVERITY[code], message, hint)


@dataclass(frozen=True, slots=True)
class LintConfig:
    max_summary_chars: int = 120
    near_duplicate_threshold: float = 0.93  # cosine of index_text embeddings
    cryptic_min_words: int = 4
    cryptic_unknown_share: float = 0.25
    blob_min_chars: int = 40  # base64 runs at least this long
    hex_min_chars: int = 48
    shadow_max_distance: int = 2
    encode_batch_size: int = 64


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: (rank[f.severity], f.tool_id, f.code, f.message))


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def error_tool_ids(findings: Iterable[Finding], *, security_only: bool = False) -> set[str]:
    """Tools with at least one error-severity finding (the lint gate excludes them)."""
    return {
        f.tool_id
        for f in findings
        if f.severity == "error" and f.tool_id != CATALOG and (f.security or not security_only)
    }


def count_findings(findings: Iterable[Finding]) -> dict[str, Any]:
    findings = list(findings)
    by_code = Counter(f.code for f in findings)
    return {
        "by_severity": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
        "by_code": dict(sorted(by_code.items())),
    }


# --- output for people ----------------------------------------------------------------


def terminal_safe(text: str) -> str:
    """Escape every non-printable character (controls, bidi overrides, zero-width and tag
    characters): findings quote attacker text, which must not drive the terminal."""
    return "".join(ch if ch.isprintable() else f"\\u{{{ord(ch):x}}}" for ch in text)


def format_findings(findings: Sequence[Finding], *, header: str = "") -> str:
    """Human output: one block per finding, then the counts by severity."""
    lines = [terminal_safe(header)] if header else []
    for f in findings:
        lines.append(terminal_safe(f"{f.severity:<7} {f.code:<26} {f.tool_id}: {f.message}"))
        if f.hint:
            lines.append(f"{'':34}hint: {f.hint}")
    counts = count_findings(findings)["by_severity"]
    lines.append(f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info")
    return "\n".join(lines) + "\n"

"""The approval ledger: which tool texts a human reviewed, and whether they changed since.

A tool's description is attacker-controlled and can change under you (a "rug pull": a
server approved with a harmless description ships a malicious one later). The ledger
records, per tool, the sha256 of its description and of everything else a model or the
policy reads (`REVIEWED_FIELDS`), with who approved it and when. Export and the runtime
leave out every tool that is not approved or whose text changed after approval, and
report it.

Ledger file: JSONL, one approval per line, sorted by tool id (diffs review well):
    {"tool_id": "github.list_commits", "description_sha256": "...",
     "reviewed_sha256": "...", "approved_at": "2026-11-01T09:00:00Z", "approver": "ana"}
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from serving.calls.policy import RiskPolicy
from serving.catalog.findings import Finding, finding
from serving.model.config import utc_now
from serving.model.io import load_jsonl
from serving.model.schema import FieldError, ToolCard

log = logging.getLogger(__name__)

NOT_APPROVED = "not_approved"
CHANGED = "changed_after_approval"
# What the review covered: the text a model reads and what the policy decides on. A
# change to any of these needs a new review; cost, latency, owner and dates do not.
REVIEWED_FIELDS = (
    "tool_id",
    "server",
    "name",
    "summary",
    "description",
    "capabilities",
    "entities",
    "input_concepts",
    "prefer_over",
    "not_for",
    "examples",
    "requires",
    "risk",
    "input_schema",
    "trust",
)


class ApprovalError(ValueError):
    """An approval request names tools the catalog does not have."""


def reviewed_hash(card: ToolCard) -> str:
    record = card.to_dict()
    reviewed = {k: record[k] for k in REVIEWED_FIELDS}
    canonical = json.dumps(reviewed, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Approval:
    tool_id: str
    description_sha256: str
    approved_at: str
    approver: str
    reviewed_sha256: str = ""  # empty in ledgers that hashed the description only

    @classmethod
    def of(cls, card: ToolCard, *, approver: str, approved_at: str) -> Approval:
        return cls(
            tool_id=card.tool_id,
            description_sha256=card.description_hash(),
            approved_at=approved_at,
            approver=approver,
            reviewed_sha256=reviewed_hash(card),
        )

    def matches(self, card: ToolCard) -> bool:
        if card.description_hash() != self.description_sha256:
            return False
        return not self.reviewed_sha256 or reviewed_hash(card) == self.reviewed_sha256

    @classmethod
    def from_dict(cls, data: Any) -> Approval:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        values = {}
        for key in ("tool_id", "description_sha256", "approved_at", "approver"):
            value = data.get(key)
            if not isinstance(value, str) or not value:
                raise FieldError(key, "missing" if value is None else "expected a string")
            values[key] = value
        for key in ("description_sha256", "reviewed_sha256"):
            digest = data.get(key, "")
            if not isinstance(digest, str) or (
                digest and (len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest))
            ):
                raise FieldError(key, f"expected a hex sha256, got {digest!r}")
        return cls(**values, reviewed_sha256=data.get("reviewed_sha256", ""))

    def to_dict(self) -> dict[str, str]:
        return {
            "tool_id": self.tool_id,
            "description_sha256": self.description_sha256,
            "reviewed_sha256": self.reviewed_sha256,
            "approved_at": self.approved_at,
            "approver": self.approver,
        }


@dataclass(frozen=True, slots=True)
class Ledger:
    approvals: Mapping[str, Approval]

    def __len__(self) -> int:
        return len(self.approvals)

    def with_approvals(self, new: Iterable[Approval]) -> Ledger:
        merged = dict(self.approvals)
        merged.update({a.tool_id: a for a in new})
        return Ledger(merged)


def load_ledger(path: str | Path, *, missing_ok: bool = False) -> Ledger:
    """Read a ledger; any bad line raises `InputError` (a damaged ledger approves nothing).

    A missing file is an empty ledger only with `missing_ok` (when approving the first
    tools); checking against a ledger that is not there is an error.
    """
    path = Path(path)
    if missing_ok and not path.exists():
        return Ledger({})
    seen: set[str] = set()

    def check(approval: Approval) -> None:
        if approval.tool_id in seen:
            raise FieldError("tool_id", f"duplicate approval for {approval.tool_id!r}")
        seen.add(approval.tool_id)

    result = load_jsonl(path, lambda d: [Approval.from_dict(d)], check=check, strict=True)
    return Ledger({a.tool_id: a for a in result.items})


def write_ledger(path: str | Path, ledger: Ledger) -> None:
    """Write atomically (temp file + rename): a crash never leaves half a ledger."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for tool_id in sorted(ledger.approvals):
            fh.write(json.dumps(ledger.approvals[tool_id].to_dict(), sort_keys=True) + "\n")
    os.replace(tmp, path)


def default_approver() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


def approve(
    ledger_path: str | Path,
    cards: Sequence[ToolCard],
    tool_ids: Iterable[str] | str,
    *,
    approver: str | None = None,
    approved_at: str | None = None,
) -> list[Approval]:
    """Record approvals of the cards' current text (`tool_ids="all"`: every card).

    Re-approving a tool replaces its entry. Unknown tool ids raise `ApprovalError` and
    nothing is written. Returns the new approvals.
    """
    by_id = {c.tool_id: c for c in cards}
    if tool_ids == "all":
        wanted = list(by_id)
    else:
        wanted = list(dict.fromkeys([tool_ids] if isinstance(tool_ids, str) else tool_ids))
    unknown = [t for t in wanted if t not in by_id]
    if unknown:
        raise ApprovalError(f"not in the catalog: {', '.join(unknown[:10])}")
    stamp = approved_at or utc_now()
    who = approver or default_approver()
    new = [Approval.of(by_id[t], approver=who, approved_at=stamp) for t in wanted]
    ledger = load_ledger(ledger_path, missing_ok=True).with_approvals(new)
    write_ledger(ledger_path, ledger)
    return new


def check_approvals(
    cards: Sequence[ToolCard], ledger: Ledger
) -> tuple[list[ToolCard], list[tuple[str, str]]]:
    """(approved cards, excluded (tool_id, reason)), reason `not_approved` or
    `changed_after_approval` (the description or another reviewed field differs)."""
    approved, excluded = [], []
    for card in cards:
        approval = ledger.approvals.get(card.tool_id)
        if approval is None:
            excluded.append((card.tool_id, NOT_APPROVED))
        elif not approval.matches(card):
            excluded.append((card.tool_id, CHANGED))
        else:
            approved.append(card)
    return approved, excluded


def filter_approved(
    cards: Sequence[ToolCard], ledger_path: str | Path
) -> tuple[list[ToolCard], list[tuple[str, str]]]:
    """Export's gate: keep approved, unchanged cards; log and return the excluded ones."""
    approved, excluded = check_approvals(cards, load_ledger(ledger_path))
    for tool_id, reason in excluded:
        log.warning("%s: %s left out: %s", ledger_path, tool_id, reason)
    return approved, excluded


def policy_excluding(policy: RiskPolicy, excluded: Iterable[tuple[str, str]]) -> RiskPolicy:
    """The runtime's gate for a bundle already built: deny the excluded tools, so the hard
    filter drops them from every menu (reason `filter:denylist`) and the call gate denies
    them."""
    return replace(policy, denylist=policy.denylist | {tool_id for tool_id, _ in excluded})


def approval_findings(cards: Sequence[ToolCard], ledger_path: str | Path) -> list[Finding]:
    """Lint findings for the tools the ledger leaves out: not approved, or changed since."""
    _, excluded = check_approvals(cards, load_ledger(ledger_path))
    out = []
    for tool_id, reason in excluded:
        if reason == "changed_after_approval":
            out.append(
                finding(
                    tool_id,
                    reason,
                    "the reviewed text changed after approval (hash differs from the ledger)",
                    "re-review the new text, then `toolsift approve` it again",
                )
            )
        else:
            out.append(
                finding(
                    tool_id,
                    reason,
                    "not in the approval ledger",
                    "review and `toolsift approve` it; export leaves it out until then",
                )
            )
    return out

"""Review a catalog: import a foreign tool list as cards, lint them, approve them.

The bodies of `toolsift import`, `lint` and `approve`, as plain functions returning
(exit code, text) or a summary, so tests and other callers use them without the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from serving.catalog.findings import LintConfig


def run_import(
    path: str | Path,
    format: str,
    server: str,
    out: str | Path,
    trust: str = "third_party",
    *,
    domain: str | None = None,
    connection: str | None = None,
    owner: str = "",
    risk: str | None = None,
) -> dict[str, Any]:
    """`toolsift import`: convert a file and write the cards as JSONL to `out`.

    Returns a JSON-ready summary: counts, every error line, and how many cards carry each
    derived field. Raises `InputError` / `ImporterError` when nothing can be imported.
    """
    from serving.catalog.importers import import_tools
    from serving.model.io import write_jsonl
    from serving.model.schema import RISKS

    result = import_tools(
        path,
        format,
        server,
        trust=trust,
        domain=domain,
        connection=connection,
        owner=owner,
        risk=risk,
    )
    n_written = write_jsonl(out, (c.to_dict() for c in result.items))
    derived: dict[str, int] = {}
    for card in result.items:
        for name in card.derived:
            derived[name] = derived.get(name, 0) + 1
    risks = {r: sum(1 for c in result.items if c.risk == r) for r in RISKS}
    return {
        "source": str(path),
        "format": format,
        "server": server,
        "trust": trust,
        "out": str(out),
        "n_entries": result.n_lines,
        "n_imported": n_written,
        "n_skipped": result.n_skipped,
        "errors": [str(e) for e in result.errors],
        "warnings": [str(w) for w in result.warnings],
        "risk": risks,
        "derived": dict(sorted(derived.items())),
    }


def run_lint(
    catalog_path: str | Path,
    *,
    as_json: bool = False,
    embed: bool = True,
    ledger_path: str | Path | None = None,
    first_party_servers: Iterable[str] | None = None,
    model_path: str | Path | None = None,
    config: LintConfig | None = None,
    detector_path: str | Path | None = None,
    use_detector: bool = True,
) -> tuple[int, str]:
    """`toolsift lint`: (exit code, output text). Exit 1 when any finding is an error.

    Unreadable card lines become `card_invalid` errors; with `ledger_path` the approval
    ledger is checked too (`not_approved`, `changed_after_approval`); unless
    `use_detector` is False, each sentence is judged by meaning (`serving.catalog.meaning`)
    by `detector_path` or the shipped detector (`serving.catalog.meaning_check`).
    Raises `serving.model.io.InputError` when the catalog or ledger cannot be read at all
    and `serving.catalog.meaning.DetectorError` when the detector cannot be used.
    """
    from serving.catalog.approvals import approval_findings
    from serving.catalog.findings import (
        count_findings,
        finding,
        format_findings,
        has_errors,
        sort_findings,
    )
    from serving.catalog.lint import lint_catalog
    from serving.catalog.meaning import DetectorError, MeaningDetector
    from serving.catalog.meaning_check import shipped_detector
    from serving.model.io import load_catalog

    loaded = load_catalog(catalog_path)
    cards = loaded.items
    detector = None
    if use_detector:
        detector = (
            MeaningDetector.load(detector_path) if detector_path is not None
            else shipped_detector()
        )
    encoder = None
    if embed or detector is not None:
        from serving.bundle.encoder import Encoder, stock_model_path

        try:
            encoder = Encoder(model_path or stock_model_path())
        except ImportError as err:  # a runtime-only install: the rules still run
            if detector_path is not None or embed:
                raise DetectorError(
                    f"the check by meaning needs the `[train]` install's encoder: {err}"
                ) from None
            detector = None
    findings = lint_catalog(
        cards,
        encoder=encoder,
        first_party_servers=first_party_servers,
        config=config,
        detector=detector,
    )
    findings += [
        finding(f"<line {e.line}>", "card_invalid", str(e), "fix the card; it was not loaded")
        for e in loaded.errors
    ]
    if ledger_path is not None:
        findings += approval_findings(cards, ledger_path)
    findings = sort_findings(findings)
    code = 1 if has_errors(findings) else 0
    if as_json:
        payload = {
            "catalog": str(catalog_path),
            "n_tools": len(cards),
            "n_invalid_lines": loaded.n_skipped,
            "counts": count_findings(findings),
            "findings": [f.to_dict() for f in findings],
        }
        return code, json.dumps(payload, indent=2) + "\n"  # ASCII: hidden chars escaped
    header = f"{catalog_path}: {len(cards)} tools ({loaded.n_skipped} invalid lines)"
    return code, format_findings(findings, header=header)


def run_approve(
    catalog_path: str | Path,
    ledger_path: str | Path,
    tool_ids: Sequence[str] | str,
    *,
    approver: str | None = None,
    force: bool = False,
) -> tuple[int, str]:
    """`toolsift approve`: (exit code, output). Tools with an error-severity security
    finding are refused unless `force`; exit 1 when any requested tool was refused."""
    from serving.catalog import approvals
    from serving.catalog.findings import error_tool_ids
    from serving.catalog.lint import lint_catalog
    from serving.model.io import load_catalog

    loaded = load_catalog(catalog_path)
    cards = loaded.items
    by_id = {c.tool_id: c for c in cards}
    if tool_ids == "all":
        wanted = list(by_id)
    else:
        wanted = list(dict.fromkeys([tool_ids] if isinstance(tool_ids, str) else tool_ids))
    unknown = [t for t in wanted if t not in by_id]
    if unknown:
        raise approvals.ApprovalError(
            f"{catalog_path}: not in the catalog: {', '.join(unknown[:10])}"
        )
    findings = lint_catalog(cards, encoder=None)
    flagged = error_tool_ids(findings, security_only=True)
    refused = [] if force else [t for t in wanted if t in flagged]
    chosen = [t for t in wanted if t not in refused]
    new = approvals.approve(ledger_path, cards, chosen, approver=approver) if chosen else []
    lines = [f"approved {len(new)} tools into {ledger_path}"]
    for tool_id in refused:
        reasons = sorted(
            {f.code for f in findings if f.tool_id == tool_id and f.severity == "error"}
        )
        lines.append(f"refused {tool_id}: {', '.join(reasons)} (see `toolsift lint`)")
    return (1 if refused else 0), "\n".join(lines) + "\n"


"""`lint_catalog`: every quality and security finding for a catalog.

Tool descriptions are attacker-controlled text that the model reads, so the linter looks
for text that steers the model, characters the reviewer cannot see, tools that imitate a
trusted one, and (with an approval ledger, `serving.catalog.approvals`) descriptions
that changed after review. It also flags cards that retrieve badly: missing or
implementer-voice summaries, cryptic descriptions, unannotated near-duplicates.

The rule families, one module each: `security_rules` (one card's own text),
`quality_rules` (what retrieves badly or cannot be called), `shadowing` (imitation and
near-duplicates, across cards), `meaning` (each sentence judged by what it means, with an
encoder and a fitted detector); `findings` holds codes, severities and output.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from serving.catalog.findings import CATALOG, Finding, LintConfig, finding, sort_findings
from serving.catalog.meaning import MeaningDetector, meaning_findings
from serving.catalog.poison_rules import poison_findings
from serving.catalog.quality_rules import Vocabulary, prefer_over_findings, quality_findings
from serving.catalog.security_rules import security_findings
from serving.catalog.shadowing import near_duplicate_findings, shadowing_findings
from serving.model.schema import ToolCard

if TYPE_CHECKING:
    from serving.bundle.encoder import TextEncoder


# warnings that a third-party text may steer the model: such a tool is shown only when a
# search clearly asks for it (`runtime.caution_bar`), never as an alternative. A bare URL
# (`url_in_text`) is not one: 12% of StableToolBench's real tools link their docs.
CAUTION_CODES = frozenset(
    {"suspect_by_meaning", "product_claim", "addresses_model", "other_script_label"}
)


def mark_cautions(cards: Sequence[ToolCard], findings: Iterable[Finding]) -> list[ToolCard]:
    """`cards` with `cautions` set on each third-party card to the CAUTION_CODES it has at
    warning severity, kept beside those it already carries (a bundle's card keeps what the
    catalog gate found with the detector); other cards unchanged."""
    found: dict[str, set[str]] = {}
    for f in findings:
        if f.severity == "warning" and f.code in CAUTION_CODES:
            found.setdefault(f.tool_id, set()).add(f.code)
    return [
        replace(c, cautions=tuple(sorted(found[c.tool_id] | set(c.cautions))))
        if c.trust == "third_party" and c.tool_id in found
        else c
        for c in cards
    ]


def lint_catalog(
    cards: Sequence[ToolCard],
    *,
    encoder: TextEncoder | None = None,
    first_party_servers: Iterable[str] | None = None,
    config: LintConfig | None = None,
    detector: MeaningDetector | None = None,
    near_duplicates: bool = True,
) -> list[Finding]:
    """Every finding for a catalog, sorted by severity, tool id and code.

    Without an encoder the near-duplicate check is skipped, and without an encoder and a
    `detector` (`serving.catalog.meaning`) the check by meaning; one info finding says so.
    `near_duplicates=False` skips the near-duplicate check (a warning for authors, not a
    security finding: the gateway's review leaves it out).
    """
    config = config or LintConfig()
    vocab = Vocabulary.of(cards)
    out: list[Finding] = []
    servers = frozenset(c.server for c in cards)
    for card in cards:
        out += security_findings(card, config)
        out += poison_findings(card, servers)
        out += quality_findings(card, vocab, config)
    out += shadowing_findings(cards, first_party_servers=first_party_servers, config=config)
    out += prefer_over_findings(cards)
    out += meaning_findings(cards, encoder, detector)
    if not near_duplicates:
        pass
    elif encoder is None:
        out.append(
            finding(
                CATALOG,
                "near_duplicate_skipped",
                "near-duplicate check skipped: no encoder",
                "run with embeddings to find unannotated near-duplicates",
            )
        )
    else:
        out += near_duplicate_findings(cards, encoder, config)
    return sort_findings(out)

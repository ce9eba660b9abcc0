"""A second poisoned set, written in styles unlike the rules' own test phrasings.

`training.security.attacks` poisons with the phrasings the lint rules were first written
against; this set measures whether the rules catch the *classes* instead. Each text was
written for this project after the styles seen in public write-ups of MCP tool-poisoning
(notes "for the AI", operator or platform claims, markdown guidance sections, advisories
about a rival integration, drop-in replacements, audit-copy requests, setup one-liners,
payloads padded off-screen), never taken from them. Placeholders: `{other}` another
server of the catalog, `{other_tool}` one of its tools, `{summary}` the clean summary.

Classes (`POISON_CLASSES`): text addressed to the model, claims about other tools, data
moved elsewhere, executable payloads, content hidden by layout. The texts are data:
`data/security/study/poison_styles.jsonl` and `poison_styles_late.jsonl` (MANIFEST there).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from serving.catalog.findings import Finding, count_findings, error_tool_ids
from serving.catalog.lint import mark_cautions
from serving.model.schema import ToolCard
from training.security.corpora import load_attacks

POISON_CLASSES = ("addressed_to_model", "other_tools", "data_movement", "payload", "layout")

# (class, where it goes: "description" | "schema", text)
POISON_TEXTS = load_attacks("study/poison_styles.jsonl")


# Written after the rules were tuned on POISON_TEXTS, as a check that the classes and not
# the sentences are matched. Honest record: the first measurement caught 4 of these 8;
# the rules were then generalised once (reader-as-audience, "hereby authorised", more
# claim words, tool ids next to claims, `| nc`, `; cat`) and catch 8 of 8. Fresh styles
# belong in a new list, measured before any tuning.
LATE_TEXTS = load_attacks("study/poison_styles_late.jsonl")


SECOND_SET_TEXTS = POISON_TEXTS + LATE_TEXTS


@dataclass(frozen=True, slots=True)
class StyledPoison:
    """A poisoned copy of a clean tool: which class and text it carries."""

    card: ToolCard
    original_id: str
    poison_class: str
    index: int  # into POISON_TEXTS


def _fill(text: str, card: ToolCard, other: ToolCard) -> str:
    return (
        text.replace("{summary}", card.summary.rstrip(". "))
        .replace("{other_tool}", other.tool_id)
        .replace("{other}", other.server)
    )


def _with_text(card: ToolCard, where: str, text: str) -> ToolCard:
    if where == "description":
        return replace(card, description=text)
    schema: dict[str, Any] = dict(card.input_schema)
    props = dict(schema.get("properties") or {})
    props["options"] = {"type": "string", "description": text}
    schema["properties"] = props
    return replace(card, input_schema=schema)


PLACES = ("description", "summary", "parameter", "title", "default", "enum")


def place_text(card: ToolCard, place: str, text: str) -> ToolCard:
    """`card` carrying an attack `text` (no `{summary}`) in one of PLACES: after the
    summary in the description or the summary, or in a parameter's description, title,
    default or enum values (the schema strings a model reads)."""
    if place == "description":
        return replace(card, description=f"{card.summary.rstrip('. ')}. {text}")
    if place == "summary":
        return replace(card, summary=f"{card.summary.rstrip('. ')}. {text}")
    if place not in PLACES:
        raise ValueError(f"place_text: {place!r} is not one of {PLACES}")
    prop: dict[str, Any] = {"type": "string", "description": "Extra options."}
    if place == "parameter":
        prop["description"] = text
    elif place == "title":
        prop["title"] = text
    elif place == "default":
        prop["default"] = text
    else:
        prop["enum"] = ["standard", text]
    schema: dict[str, Any] = dict(card.input_schema)
    schema["properties"] = {**dict(schema.get("properties") or {}), "options": prop}
    return replace(card, input_schema=schema)


def _third_party_copy(card: ToolCard, server: str) -> ToolCard:
    return replace(
        card,
        tool_id=f"{server}.{card.name}",
        server=server,
        requires=replace(card.requires, connection=server),
        owner=f"vendor:{server}",
        trust="third_party",
    )


def placed_set(
    clean: Sequence[ToolCard],
    texts: Sequence[tuple[str, str, str]],
    *,
    seed: int = 0,
    server_prefix: str = "att",
) -> list[StyledPoison]:
    """One poisoned tool per (class, place, text) of a by-class set (the meaning
    detector's corpora and the frozen third set): a clean tool copied under an
    attacker's server, the text put in its place; `{other}` / `{other_tool}` name another
    server of the catalog and one of its tools."""
    return _poison_each(clean, texts, place_text, seed=seed, server_prefix=server_prefix)


def second_set(
    clean: Sequence[ToolCard],
    *,
    seed: int = 0,
    texts: Sequence[tuple[str, str, str]] = SECOND_SET_TEXTS,
    server_prefix: str = "ext",
) -> list[StyledPoison]:
    """One poisoned tool per text: a clean tool copied under an attacker's server (the
    third-party install a user makes), its text poisoned; `{other}` is another server."""
    return _poison_each(clean, texts, _with_text, seed=seed, server_prefix=server_prefix)


def _poison_each(
    clean: Sequence[ToolCard],
    texts: Sequence[tuple[str, str, str]],
    put: Callable[[ToolCard, str, str], ToolCard],
    *,
    seed: int,
    server_prefix: str,
) -> list[StyledPoison]:
    """One poisoned tool per (class, where, text): a seeded clean tool copied under its own
    attacker server, `put` writing the filled text where it says."""
    if len(clean) < 2:
        raise ValueError("poisoned sets need at least two clean tools")
    rng = random.Random(seed)
    out = []
    for index, (cls, where, text) in enumerate(texts):
        card, other = rng.sample(list(clean), 2)
        while other.server == card.server and len({c.server for c in clean}) > 1:
            other = rng.choice(list(clean))
        poisoned = put(_third_party_copy(card, f"{server_prefix}{index}"), where,
                       _fill(text, card, other))
        poisoned = ToolCard.from_dict(poisoned.to_dict())  # validated like any loaded card
        out.append(StyledPoison(poisoned, card.tool_id, cls, index))
    return out


# --- measuring the lint on this set and on real catalogs ----------------------------------


def _ratio(num: int, den: int) -> float:
    return round(num / den, 4) if den else 0.0


Lint = Callable[[Sequence[ToolCard]], list[Finding]]
MEANING_CODES = frozenset({"poison_by_meaning", "suspect_by_meaning"})


def set_rates(
    clean: Sequence[ToolCard], poisoned: Sequence[StyledPoison], lint: Lint
) -> dict[str, Any]:
    """A poisoned set installed beside the clean catalog: the share of its tools flagged
    by an error-severity security finding, overall and per class, by the exact rules
    alone, by the meaning detector alone, and at warning or worse; what was missed and
    the sentence each meaning finding quotes."""
    findings = [f for f in lint([*clean, *(p.card for p in poisoned)]) if f.security]
    ids = {p.card.tool_id for p in poisoned}
    errors = [f for f in findings if f.severity == "error" and f.tool_id in ids]
    flagged = {f.tool_id for f in errors}
    by_rules = {f.tool_id for f in errors if f.code not in MEANING_CODES}
    by_meaning = {f.tool_id for f in errors if f.code in MEANING_CODES}
    warned = {f.tool_id for f in findings if f.severity in ("error", "warning")}

    def rates(items: Sequence[StyledPoison]) -> dict[str, Any]:
        n = len(items)
        return {
            "n": n,
            "flagged_rate": _ratio(sum(p.card.tool_id in flagged for p in items), n),
            "rules_rate": _ratio(sum(p.card.tool_id in by_rules for p in items), n),
            "meaning_rate": _ratio(sum(p.card.tool_id in by_meaning for p in items), n),
            "warning_or_error_rate": _ratio(sum(p.card.tool_id in warned for p in items), n),
        }

    classes = sorted({p.poison_class for p in poisoned})
    return {
        **rates(poisoned),
        "by_class": {c: rates([p for p in poisoned if p.poison_class == c]) for c in classes},
        "missed": [p.card.tool_id for p in poisoned if p.card.tool_id not in flagged],
        "meaning_evidence": sorted(
            f"{f.tool_id}: {f.message}" for f in findings
            if f.code in MEANING_CODES and f.tool_id in ids
        )[:20],
    }


def second_set_rates(clean: Sequence[ToolCard], lint: Lint, *, seed: int = 0) -> dict[str, Any]:
    """`set_rates` of the second poisoned set (classes of POISON_CLASSES)."""
    return set_rates(clean, second_set(clean, seed=seed), lint)


def real_false_alarms(cards: Sequence[ToolCard], lint: Lint) -> dict[str, Any]:
    """Error-severity security findings on a real catalog, all of whose tools are taken as
    benign: the share of tools flagged and which codes fired, and the share a warning
    would hold to the caution bar."""
    findings = lint(cards)
    flagged = sorted(error_tool_ids(findings, security_only=True))
    codes = [f for f in findings if f.tool_id in set(flagged) and f.severity == "error"]
    cautioned = sum(bool(c.cautions) for c in mark_cautions(cards, findings))
    return {
        "n_tools": len(cards),
        "false_positive_rate": _ratio(len(flagged), len(cards)),
        # third-party tools a warning would hold to `runtime.caution_bar`
        "cautioned_rate": _ratio(cautioned, len(cards)),
        "flagged_tools": flagged[:50],
        "error_codes": count_findings(codes)["by_code"],
        "evidence": sorted(
            f"{f.tool_id}: {f.message}" for f in codes if f.code in MEANING_CODES
        )[:20],
    }

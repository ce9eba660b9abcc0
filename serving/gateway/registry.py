"""Downstream tool lists -> the cards the gateway serves, and the quarantine.

Pure: the live `tools/list` results of every server (as JSON dicts) go in, a `Registry`
comes out. A tool is quarantined (never shown, never callable; the reason is logged and
kept) when:
- the MCP importer rejects it (`import: ...`), or another server already serves its id
  (`duplicate: ...`);
- the bundle knows its id but the live description or input schema differs from the
  bundle's card: a rug pull (`rug_pull: ...`), whatever the ledger says;
- the linter finds an error in the card that would be served (`lint: <code>`): the rules
  and, with a `MeaningCheck`, the detector by meaning, over every string the model reads
  (name, title, description, annotations, input and output schemas);
- with a ledger: the served card is not approved or changed since (`ledger: ...`).
A third-party tool the linter warns about (`lint.CAUTION_CODES`) is served with those
codes in its card's `cautions`: it reaches a menu only when a search clearly asks for it.
A tool the bundle knows is served with the bundle's card (authored text, trained
embedding); one it does not know is served with the imported card (cold start).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from serving.catalog.approvals import Ledger, check_approvals
from serving.catalog.findings import error_tool_ids
from serving.catalog.importers import ImportOptions, cards_from_json, today
from serving.catalog.lint import lint_catalog, mark_cautions
from serving.catalog.meaning_check import MeaningCheck
from serving.gateway.config import ServerSpec
from serving.model.schema import ToolCard

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Route:
    """Where a tool id is called: the config's server and the tool's name there."""

    server: str
    name: str


@dataclass(frozen=True, slots=True)
class Registry:
    cards: Mapping[str, ToolCard] = field(default_factory=dict)  # tool id -> served card
    routes: Mapping[str, Route] = field(default_factory=dict)
    new: frozenset[str] = frozenset()  # served ids the bundle does not know (cold start)
    quarantined: tuple[tuple[str, str], ...] = ()  # (tool id, reason)

    def reason(self, tool_id: str) -> str | None:
        return next((why for t, why in self.quarantined if t == tool_id), None)


def _split_qualified(
    spec: ServerSpec, tools: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, list[dict[str, Any]]], list[tuple[str, str]]]:
    """Group `server.tool` names by their server part, each tool renamed to its own name."""
    groups: dict[str, list[dict[str, Any]]] = {}
    bad = []
    for tool in tools:
        name = str(tool.get("name", ""))
        server, dot, own = name.partition(".")
        if not dot or not server or not own:
            bad.append((f"{spec.name}.{name}", "import: tool_names is qualified but the name "
                        "is not 'server.tool'"))
            continue
        groups.setdefault(server, []).append({**tool, "name": own})
    return groups, bad


def import_server(
    spec: ServerSpec, tools: Sequence[Mapping[str, Any]], *, added_at: str | None = None
) -> tuple[list[tuple[ToolCard, Route]], list[tuple[str, str]]]:
    """One server's live tools as cards with their routes, and what the importer refused."""
    if spec.tool_names == "qualified":
        groups, refused = _split_qualified(spec, tools)
    else:
        groups, refused = {spec.name: [dict(t) for t in tools]}, []
    out = []
    for server, entries in groups.items():
        opts = ImportOptions(server=server, trust=spec.trust, added_at=added_at or today())
        result = cards_from_json({"tools": entries}, "mcp", opts, source=spec.name)
        for error in result.errors:
            name = entries[error.line - 1].get("name", "?") if error.line else "?"
            refused.append((f"{server}.{name}", f"import: {error.field}: {error.problem}"))
        for card in result.items:
            remote = card.name if spec.tool_names == "namespaced" else f"{server}.{card.name}"
            out.append((card, Route(spec.name, remote)))
    return out, refused


def rug_pull(live: ToolCard, known: ToolCard) -> str | None:
    """Why a live tool no longer matches the bundle's card of the same id, or None: its
    description, title, annotations, input or output schema changed (all read by the
    model). A bundle card without a title, annotations or output schema (authored, or
    exported before the cards kept them) is compared on what it has."""
    if live.description_hash() != known.description_hash():
        return "rug_pull: the live description differs from the bundle's card"
    if _canonical(live.input_schema) != _canonical(known.input_schema):
        return "rug_pull: the live input schema differs from the bundle's card"
    for name in ("title", "annotations", "output_schema"):
        theirs = getattr(known, name)
        if theirs and _canonical(getattr(live, name)) != _canonical(theirs):
            return f"rug_pull: the live {name.replace('_', ' ')} differs from the bundle's card"
    return None


def with_live_extras(known: ToolCard, live: ToolCard) -> ToolCard:
    """The bundle's card, given the live title, annotations and output schema it lacks:
    the model reads them, so the lint must (an authored card often has none)."""
    extras = {
        name: getattr(live, name)
        for name in ("title", "annotations", "output_schema")
        if getattr(live, name) and not getattr(known, name)
    }
    return replace(known, **extras) if extras else known


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def build_registry(
    live: Mapping[str, Sequence[Mapping[str, Any]]],
    specs: Sequence[ServerSpec],
    bundle_cards: Mapping[str, ToolCard],
    *,
    ledger: Ledger | None = None,
    added_at: str | None = None,
    meaning: MeaningCheck | None = None,
) -> Registry:
    """Review every server's live tools (see the module doc); servers missing from `live`
    (down, or not listed yet) contribute nothing. `meaning`: the check by meaning
    (`serving.catalog.meaning_check`) runs with the rules; without it, the rules alone."""
    quarantined: list[tuple[str, str]] = []
    served: dict[str, ToolCard] = {}
    routes: dict[str, Route] = {}
    new: set[str] = set()
    for spec in specs:
        if spec.name not in live:
            continue
        imported, refused = import_server(spec, live[spec.name], added_at=added_at)
        quarantined += refused
        for card, route in imported:
            if card.tool_id in routes:
                quarantined.append((card.tool_id, f"duplicate: {routes[card.tool_id].server} "
                                    "already serves this tool id"))
                continue
            known = bundle_cards.get(card.tool_id)
            why = rug_pull(card, known) if known is not None else None
            if why:
                quarantined.append((card.tool_id, why))
                continue
            served[card.tool_id] = with_live_extras(known, card) if known else card
            routes[card.tool_id] = route
            if known is None:
                new.add(card.tool_id)

    first_party = {c.server for c in served.values() if c.trust == "first_party"}
    findings = lint_catalog(
        list(served.values()),
        first_party_servers=first_party,
        encoder=meaning.encoder if meaning else None,
        detector=meaning.detector if meaning else None,
        near_duplicates=False,
    )
    bad = error_tool_ids(findings)
    for f in findings:
        if f.tool_id in bad and f.severity == "error" and f.tool_id in served:
            quarantined.append((f.tool_id, f"lint: {f.code}: {f.message}"))
            served.pop(f.tool_id)
    served = {c.tool_id: c for c in mark_cautions(list(served.values()), findings)}
    if ledger is not None:
        _, excluded = check_approvals(list(served.values()), ledger)
        for tool_id, reason in excluded:
            quarantined.append((tool_id, f"ledger: {reason}"))
            served.pop(tool_id)

    for tool_id, reason in quarantined:
        log.warning("quarantined %s: %s", tool_id, reason)
    return Registry(
        cards=served,
        routes={t: r for t, r in routes.items() if t in served},
        new=frozenset(t for t in new if t in served),
        quarantined=tuple(quarantined),
    )

"""Defence in depth: a third-party tool the lint warned about reaches a menu only when a
search clearly asks for it (`ToolCard.cautions`, `runtime.caution_bar`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from serving.catalog.findings import Finding
from serving.catalog.lint import lint_catalog, mark_cautions
from serving.gateway.config import ServerSpec
from serving.gateway.registry import build_registry
from serving.model.config import RuntimeParams
from serving.model.io import load_catalog
from serving.model.schema import ToolCard
from serving.model.selection import Candidate
from serving.stages.menu_policy import MenuBars, cut_menu


@pytest.fixture(scope="module")
def cards(fixture_catalog):
    return {c.tool_id: c for c in load_catalog(fixture_catalog, strict=True).items}


def _third_party(card: ToolCard, *cautions: str) -> ToolCard:
    return replace(card, trust="third_party", cautions=cautions)


def test_mark_cautions_marks_third_party_warnings_only(cards):
    first, second = cards["github.list_commits"], _third_party(cards["github.search_code"])
    findings = [
        Finding(first.tool_id, "product_claim", "warning", "m"),  # first party: no caution
        Finding(second.tool_id, "suspect_by_meaning", "warning", "m"),
        Finding(second.tool_id, "description_cryptic", "warning", "m"),  # not a caution code
        Finding(second.tool_id, "poison_by_meaning", "error", "m"),  # errors are refused
    ]
    marked = {c.tool_id: c for c in mark_cautions([first, second], findings)}
    assert marked[first.tool_id].cautions == ()
    assert marked[second.tool_id].cautions == ("suspect_by_meaning",)
    # what a card already carries (the catalog gate's detector) is kept beside new codes
    again = mark_cautions([marked[second.tool_id]],
                          [Finding(second.tool_id, "product_claim", "warning", "m"),
                           Finding(second.tool_id, "url_in_text", "warning", "m")])
    assert again[0].cautions == ("product_claim", "suspect_by_meaning")


def test_cautions_survive_the_card_round_trip(cards):
    card = _third_party(cards["github.search_code"], "product_claim")
    assert ToolCard.from_dict(card.to_dict()).cautions == ("product_claim",)
    assert "cautions" not in cards["github.search_code"].to_dict()


def test_a_cautioned_tool_needs_the_caution_bar_or_its_exact_name(cards):
    marked = dict(cards)
    marked["github.search_code"] = _third_party(cards["github.search_code"], "product_claim")
    ranked = [Candidate("github.search_code", 0.45, {}),
              Candidate("github.list_commits", 0.30, {})]
    # below 0.5 it leaves, and keep_best does not keep it
    menu, dropped = cut_menu(ranked, marked, MenuBars(), size=8, keep_best=True,
                             caution_bar=0.5)
    assert [c.tool_id for c in menu] == ["github.list_commits"]
    assert dropped == [("github.search_code", "rerank:caution")]
    # at the bar, or named exactly, it stays; without the rule (bar 0) nothing changes
    at_bar = [replace(ranked[0], score=0.5), ranked[1]]
    assert len(cut_menu(at_bar, marked, MenuBars(), size=8, caution_bar=0.5)[0]) == 2
    named = [Candidate("github.search_code", 0.01, {"exact": 1.0}), ranked[1]]
    assert len(cut_menu(named, marked, MenuBars(), size=8, caution_bar=0.5)[0]) == 2
    assert len(cut_menu(ranked, marked, MenuBars(), size=8)[0]) == 2


def test_the_caution_bar_must_be_a_probability():
    with pytest.raises(ValueError, match="caution_bar"):
        RuntimeParams.from_dict({"caution_bar": 1.5})


def test_the_gateway_serves_a_warned_third_party_tool_with_its_cautions():
    schema = {"type": "object", "properties": {}}
    live = {
        "github": [{"name": "list_commits", "description": "Lists the commits of a "
                    "repository, newest first.", "inputSchema": schema}],
        "devtools": [
            {"name": "sync_issues", "description": "Copies the open issues from GitHub "
             "into a spreadsheet.", "inputSchema": schema},
            {"name": "add_note", "description": "Adds a note to a notebook. Docs at "
             "https://notes.example.com", "inputSchema": schema},
        ],
    }
    specs = [ServerSpec(name="github", command="x", trust="first_party"),
             ServerSpec(name="devtools", command="x")]
    registry = build_registry(live, specs, {})
    assert registry.cards["devtools.sync_issues"].cautions == ("product_claim",)
    # a link to docs is a warning but no caution; a first-party tool is never cautioned
    assert "url_in_text" in {f.code for f in lint_catalog([registry.cards["devtools.add_note"]])}
    assert registry.cards["devtools.add_note"].cautions == ()
    assert registry.cards["github.list_commits"].cautions == ()

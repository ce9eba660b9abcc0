"""A catalog without some of its domains (`training.no_tool.lacking`): every domain in
exactly one part, the same parts on every run, and each part's file is the catalog
without that part's tools."""

import json

import pytest

from serving.model.io import load_catalog
from training.no_tool.lacking import domain_parts, main, without

FIXTURE = "tests/fixtures/catalog.jsonl"


def test_every_domain_falls_in_exactly_one_part_and_the_cut_is_stable():
    domains = ["chat", "tickets", "payments", "kubernetes", "chat", "incidents"]
    parts = domain_parts(domains, 3)
    assert len(parts) == 3
    assert sorted(d for p in parts for d in p) == sorted(set(domains))
    assert domain_parts(list(reversed(domains)), 3) == parts
    with pytest.raises(ValueError, match="at least 2"):
        domain_parts(domains, 1)


def test_each_part_file_is_the_catalog_without_that_parts_tools(tmp_path):
    cards = list(load_catalog(FIXTURE, strict=True).items)
    main([FIXTURE, str(tmp_path), "--parts", "2"])
    summary = json.loads((tmp_path / "parts.json").read_text())
    assert [s["part"] for s in summary] == [0, 1]
    for s in summary:
        kept = list(load_catalog(tmp_path / f"part-{s['part']}.jsonl", strict=True).items)
        assert kept == without(cards, frozenset(s["domains"]))
        assert {c.domain for c in kept}.isdisjoint(s["domains"])
        assert s["tools_kept"] + s["tools_removed"] == len(cards) == len(kept) + sum(
            c.domain in s["domains"] for c in cards)

"""A gateway started with `--review-cache` keeps the review's sentence vectors on disk: a
restart reviews the same tools without embedding a sentence again, with the same result."""

from __future__ import annotations

import numpy as np

from serving.bundle.files import load_bundle
from serving.catalog.meaning import PROBE
from serving.catalog.meaning_check import BUNDLE_REVIEW_VECTORS
from serving.gateway.config import ServerSpec
from serving.gateway.demo import DemoOptions, demo_tools
from serving.gateway.index import LiveIndex
from serving.gateway.registry import build_registry


def _review(index: LiveIndex, bundle) -> tuple:
    live = {"demo": [t.model_dump(by_alias=True, mode="json", exclude_none=True)
                     for t in demo_tools(list(bundle.cards), DemoOptions())]}
    spec = ServerSpec(name="demo", command="-", tool_names="qualified", trust="first_party")
    registry = build_registry(live, [spec], index.known, meaning=index.meaning)
    return tuple(sorted(registry.cards)), registry.quarantined


def test_a_restart_reviews_from_the_cache_without_embedding(fixture_bundle, tmp_path):
    bundle = load_bundle(fixture_bundle)
    first = LiveIndex(bundle, review_cache=tmp_path)
    try:
        before = _review(first, bundle)
        first.keep_review_vectors()
    finally:
        first.close()
    assert list(tmp_path.glob("*.npz"))  # the vectors are on disk

    again = LiveIndex(bundle, review_cache=tmp_path)
    try:
        cached = again.meaning.encoder

        def refuse(texts, **_):
            raise AssertionError(f"embedded {len(texts)} sentences again")

        cached.inner.encode = refuse  # a cache miss would call the model
        assert _review(again, bundle) == before
    finally:
        again.close()


def test_a_bundle_carries_its_cards_review_vectors(fixture_bundle):
    """No cache directory at all: the exported bundle's own vectors serve the review of its
    cards, the same verdicts as embedding them; a sentence the bundle lacks is embedded."""
    bundle = load_bundle(fixture_bundle)
    assert (fixture_bundle / BUNDLE_REVIEW_VECTORS).is_file()
    embedded = LiveIndex(bundle)  # the encoder embeds; the seed then serves everything
    try:
        embedded.meaning.encoder._vectors.clear()
        expected = _review(embedded, bundle)
    finally:
        embedded.close()

    fresh = LiveIndex(bundle)
    try:
        embedded_texts: list[str] = []
        inner = fresh.meaning.encoder.inner
        encode = inner.encode

        def recorded(texts, **kw):
            embedded_texts.extend(texts)
            return encode(texts, **kw)

        inner.encode = recorded
        assert _review(fresh, bundle) == expected
        assert set(embedded_texts) <= {PROBE}  # the encoder's check, then no card sentence
        new = "this sentence is not in any card of the bundle at all"
        fresh.meaning.encoder.encode([new])
        assert embedded_texts[-1] == new
    finally:
        fresh.close()


def test_seeded_vectors_stay_out_of_the_cache_file(fixture_bundle, tmp_path):
    bundle = load_bundle(fixture_bundle)
    index = LiveIndex(bundle, review_cache=tmp_path)
    try:
        encoder = index.meaning.encoder
        encoder.encode(["one sentence no card of the bundle holds anywhere"])
        index.keep_review_vectors()
    finally:
        index.close()
    (path,) = tmp_path.glob("*.npz")
    with np.load(path) as data:
        assert len(data["keys"]) == 1

"""A gateway started with `--review-cache` keeps the review's sentence vectors on disk: a
restart reviews the same tools without embedding a sentence again, with the same result."""

from __future__ import annotations

from serving.bundle.files import load_bundle
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

"""The approximate index returns what exact search does on a clustered catalog, inside
the session mask, and the selector switches to it at `ann_threshold` tools."""

import numpy as np

from serving.stages.ann import ApproximateDense
from serving.stages.retrieve import DenseRetriever


def _catalog(n: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_hnsw_matches_exact_search_inside_the_mask():
    vectors = _catalog(3000)
    exact, approx = DenseRetriever(vectors), ApproximateDense.build(vectors)
    rng = np.random.default_rng(1)
    everyone = np.ones(len(vectors), dtype=bool)
    some = rng.random(len(vectors)) < 0.5
    overlap = []
    for query in vectors[:20]:
        for mask in (everyone, some):
            hits = approx.search(query, mask, 10)
            assert len(hits) == 10 and all(mask[r] for r, _ in hits)
            assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
            expected = {r for r, _ in exact.search(query, mask, 10)}
            overlap.append(len({r for r, _ in hits} & expected))
    assert np.mean(overlap) >= 9.5  # recall@10 >= 0.95 on random 32-d vectors


def test_a_narrow_mask_falls_back_to_exact_search(tmp_path):
    vectors = _catalog(2000)
    approx = ApproximateDense.build(vectors)
    approx.save(tmp_path / "hnsw.faiss")
    loaded = ApproximateDense.load(tmp_path / "hnsw.faiss", vectors)
    mask = np.zeros(len(vectors), dtype=bool)
    mask[[5, 900, 1999]] = True  # three rows the graph's top-40 almost surely misses
    hits = loaded.search(vectors[0], mask, 10)
    assert hits == DenseRetriever(vectors).search(vectors[0], mask, 10)


def test_selector_uses_the_index_at_the_threshold(fixture_bundle):
    from serving.selector import Selector

    exact = Selector.from_bundle(fixture_bundle)
    approx = Selector.from_bundle(fixture_bundle, overrides={"ann_threshold": 1})
    assert isinstance(exact._retrievers["dense"].index, DenseRetriever)
    assert isinstance(approx._retrievers["dense"].index, ApproximateDense)
    request = "list the commits on the main branch"
    assert exact.discover(request).ranked() == approx.discover(request).ranked()

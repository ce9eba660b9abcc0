"""Two-hop domain routing: centroids by hand, and the runtime restricted to the routed
domains on the fixture bundle."""

import numpy as np

from serving.selector import Selector
from serving.stages.routing import DomainRouter


def test_centroids_and_top_domains_by_hand():
    embeddings = np.array([[1, 0], [0.6, 0.8], [0, 1], [-1, 0]], dtype=np.float32)
    router = DomainRouter.build(["a", "a", "b", "c"], embeddings)
    assert router.domains == ("a", "b", "c")
    # a's centroid: (1.6, 0.8) normalised
    np.testing.assert_allclose(router.centroids[0], np.array([1.6, 0.8]) / np.hypot(1.6, 0.8),
                               rtol=1e-6)
    query = np.array([0.0, 1.0], dtype=np.float32)
    assert router.top_domains(query, 2) == [1, 0]  # b (1.0) before a (0.447)
    assert router.mask(query, 1).tolist() == [False, False, True, False]
    assert router.mask(query, 0).sum() == 1  # at least one domain


def test_domain_routing_keeps_retrieval_inside_the_routed_domains(fixture_bundle):
    flat = Selector.from_bundle(fixture_bundle, reranker="fused")
    routed = Selector.from_bundle(
        fixture_bundle, reranker="fused", overrides={"routing": "domain", "route_domains": 1}
    )
    request = "search code across all repositories for the retry helper"
    domains = {c.tool_id: c.domain for c in flat.bundle.cards}
    step = routed.discover(request).steps[0]
    assert {domains[c.tool_id] for c in step.retrieved} == {"source_control"}
    assert step.menu[0].tool_id == "github.search_code"
    assert len({domains[c.tool_id] for c in flat.discover(request).steps[0].retrieved}) > 1

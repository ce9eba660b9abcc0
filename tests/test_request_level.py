"""Request-level results: the whole request is retrieved beside its subgoals and the lists
are fused by weighted reciprocal rank fusion, not interleaved (`rrf`), or every menu's
tools come first by their best relevance (`relevance`)."""

from __future__ import annotations

import math

import pytest

from serving.selector import Selector
from serving.stages.retrieve import relevance_first, weighted_rrf

SPLIT = (
    "The checkout-service deploy failed last night. Find what changed, check the rollout, "
    "and tell the payments channel on Slack."
)


def test_weighted_rrf_by_hand() -> None:
    # k = 1: a = 1/2 = 0.5; b = 1/3 + 0.5/2 = 0.583; c = 1/4 = 0.25; d = 0.5/3 = 0.167
    assert weighted_rrf([["a", "b", "c"], ["b", "d"]], [1.0, 0.5], k=1) == ["b", "a", "c", "d"]
    # equal scores keep the order of first appearance: x (list 1) before y (list 2)
    assert weighted_rrf([["x"], ["y"]], [1.0, 1.0], k=60) == ["x", "y"]
    with pytest.raises(ValueError, match="2 lists but 1 weights"):
        weighted_rrf([["a"], ["b"]], [1.0], k=60)


def test_relevance_first_by_hand() -> None:
    # b's best relevance is 0.9 (second menu), a's 0.8, c's 0.3; d is in no menu
    menus = [[("a", 0.8), ("b", 0.2)], [("b", 0.9), ("c", 0.3)]]
    assert relevance_first(menus, ["c", "d", "a", "b"]) == ["b", "a", "c", "d"]
    # equal relevance: the fused order decides
    assert relevance_first([[("x", 0.5)], [("y", 0.5)]], ["y", "x", "z"]) == ["y", "x", "z"]
    assert relevance_first([], ["a", "b"]) == ["a", "b"]


@pytest.fixture(scope="module")
def selector(fixture_bundle):
    return Selector.from_bundle(
        fixture_bundle, overrides={"request_weight": 1.0, "request_order": "rrf"}
    )


def test_a_split_request_is_also_retrieved_whole(selector) -> None:
    d = selector.discover(SPLIT)
    assert len(d.steps) > 1
    whole = d.request_step
    assert whole is not None and whole.subgoal.text == SPLIT
    # no single intent for a request that reads and writes: the intent filter keeps both
    assert whole.subgoal.operations == () and not whole.subgoal.mutation
    assert not [r for _, r in whole.dropped if r.startswith("filter:write_tool_for")]
    n = len(d.steps)
    expected = weighted_rrf(
        [s.final_order() for s in d.steps] + [whole.final_order()],
        [1.0 / n] * n + [1.0],
        k=selector.params.rrf_k,
    )
    assert d.ranked() == expected
    assert d.to_dict()["ranked"] == expected[:20]


def test_one_subgoal_that_is_the_request_runs_once(selector) -> None:
    d = selector.discover("list the commits")
    assert [s.subgoal.text for s in d.steps] == ["list the commits"]
    assert d.request_step is None
    assert d.ranked() == d.steps[0].final_order()


def test_request_weight_zero_keeps_the_subgoals_alone(fixture_bundle) -> None:
    sel = Selector.from_bundle(
        fixture_bundle, overrides={"request_weight": 0.0, "request_order": "rrf"}
    )
    d = sel.discover(SPLIT)
    assert d.request_step is None
    n = len(d.steps)
    assert d.ranked() == weighted_rrf([s.final_order() for s in d.steps], [1 / n] * n, k=60)


def test_relevance_order_puts_every_menu_first_by_its_best_relevance(fixture_bundle) -> None:
    sel = Selector.from_bundle(
        fixture_bundle, overrides={"request_weight": 1.0, "request_order": "relevance"}
    )
    d = sel.discover(SPLIT)
    steps = [*d.steps, d.request_step]
    best: dict[str, float] = {}
    for s in steps:  # the shortlists: the menus before their bars
        for c in s.shortlist:
            best[c.tool_id] = max(c.score, best.get(c.tool_id, c.score))
    ranked = d.ranked()
    assert set(ranked[: len(best)]) == set(best)
    scores = [best[t] for t in ranked[: len(best)]]
    assert scores == sorted(scores, reverse=True)
    n = len(d.steps)
    fused = weighted_rrf([s.final_order() for s in steps], [1.0 / n] * n + [1.0], k=60)
    assert ranked[len(best):] == [t for t in fused if t not in best]


def test_request_order_must_be_known(fixture_bundle) -> None:
    with pytest.raises(ValueError, match=r"request_order 'best' is not rrf\|relevance"):
        Selector.from_bundle(fixture_bundle, overrides={"request_order": "best"})


def test_request_order_check_scores_the_runtime_orders(selector) -> None:
    import polars as pl

    from serving.model.schema import Trace
    from training.checks.request_order_check import orders_of, score, validation_requests

    d = selector.discover(SPLIT)
    orders = orders_of(d)
    assert orders["rrf_w1"] == d.ranked()  # the fixture's own setting: rrf, weight 1
    assert orders["request_step_only"] == d.request_step.final_order()
    traces = [Trace(SPLIT, "t.a", True, request_id="r1", request=SPLIT),
              Trace("x", "t.b", False, request_id="r2"), Trace("y", "t.c", True, request_id="r3")]
    pairs = pl.DataFrame({"request_id": ["r1", "r2", "r3"], "split": ["valid", "valid", "train"]})
    assert list(validation_requests(traces, pairs, limit=0)) == ["r1"]  # r2 has no success
    # by hand: gold {a, b}; a at rank 1 and b at rank 6 -> R@5 1/2, R@10 1,
    # NDCG@10 = (1 + 1/log2(7)) / (1 + 1/log2(3))
    got = score({"q": ["a", "b"]}, {"q": ["a", "c", "d", "e", "f", "b"]})
    assert got["recall_at_5"] == 0.5 and got["recall_at_10"] == 1.0
    assert got["ndcg_at_10"] == pytest.approx((1 + 1 / math.log2(7)) / (1 + 1 / math.log2(3)))

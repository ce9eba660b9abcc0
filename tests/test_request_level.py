"""Request-level results: the whole request is retrieved beside its subgoals and the lists
are fused by weighted reciprocal rank fusion, not interleaved."""

from __future__ import annotations

import pytest

from serving.retrieve import weighted_rrf
from serving.selector import Selector

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


@pytest.fixture(scope="module")
def selector(fixture_bundle):
    return Selector.from_bundle(fixture_bundle, overrides={"request_weight": 1.0})


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
    sel = Selector.from_bundle(fixture_bundle, overrides={"request_weight": 0.0})
    d = sel.discover(SPLIT)
    assert d.request_step is None
    n = len(d.steps)
    assert d.ranked() == weighted_rrf([s.final_order() for s in d.steps], [1 / n] * n, k=60)

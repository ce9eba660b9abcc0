"""Bounded work per request: oversized input is cut, with a warning, never an error."""

import time

import pytest

from serving.model.config import RuntimeParams
from serving.model.selection import Subgoal
from serving.selector import Selector, bounded_request, bounded_subgoals, rerank_depth


def test_request_is_cut_at_max_chars():
    assert bounded_request("abc", 3) == ("abc", [])
    text, warnings = bounded_request("abcdef", 4)
    assert text == "abcd" and warnings == [
        "request cut to its first 4 of 6 characters (max_request_chars)"
    ]


def test_subgoals_beyond_the_cap_are_dropped():
    subgoals = [Subgoal(text=f"s{i}") for i in range(5)]
    assert bounded_subgoals(subgoals, 5) == (subgoals, [])
    kept, warnings = bounded_subgoals(subgoals, 2)
    assert [s.text for s in kept] == ["s0", "s1"] and "3 of 5 subgoals" in warnings[0]


@pytest.mark.parametrize(
    ("n_steps", "depth", "max_pairs", "expected"),
    [
        (3, 16, 160, 16),  # 48 pairs: within the cap
        (10, 16, 160, 16),  # exactly 160
        (11, 16, 160, 14),  # 160 // 11 = 14 each, 154 pairs
        (400, 16, 160, 1),  # never below one candidate a step
    ],
)
def test_rerank_depth_shares_the_pair_budget(n_steps, depth, max_pairs, expected):
    cut, warnings = rerank_depth(n_steps, depth, max_pairs)
    assert cut == expected and bool(warnings) == (expected < depth)


def test_limits_are_checked():
    with pytest.raises(ValueError, match="max_request_chars"):
        RuntimeParams.from_dict({"max_request_chars": 0})
    with pytest.raises(ValueError, match="encoder_backend 'tf'"):
        RuntimeParams.from_dict({"encoder_backend": "tf"})
    with pytest.raises(ValueError, match="retriever_weights 'fp16'"):
        RuntimeParams.from_dict({"retriever_weights": "fp16"})
    with pytest.raises(ValueError, match="intent_weights 'fp16'"):
        RuntimeParams.from_dict({"intent_weights": "fp16"})


def test_a_200kb_request_returns_fast_with_warnings(fixture_bundle):
    selector = Selector.from_bundle(fixture_bundle)
    selector.discover("list the commits")  # models load outside the timed call
    request = "list the commits on main, then post the summary to slack. " * 3500
    assert len(request) > 200_000
    t0 = time.perf_counter()
    found = selector.discover(request)
    seconds = time.perf_counter() - t0
    # the bound in the issue is 2 s on an idle 2-core machine (reports/bench.md); a
    # shared CI runner gets slack, the unbounded runtime took minutes
    assert seconds < 10
    assert len(found.request) == selector.params.max_request_chars
    assert len(found.steps) <= selector.params.max_subgoals
    assert any("max_request_chars" in w for w in found.warnings)
    assert found.to_dict()["warnings"] == list(found.warnings)
    assert found.ranked()

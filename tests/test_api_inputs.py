"""The public API names the argument a caller got wrong; the gate answers any model output."""

import pytest

from serving.calls.gate import ActiveSet, gate
from serving.calls.observe import ObservationStore, cap_observation
from serving.model.text import request_text
from serving.selector import Selector


@pytest.fixture(scope="module")
def selector(fixture_bundle):
    return Selector.from_bundle(fixture_bundle)


@pytest.mark.parametrize("request_value", [None, 3, b"list commits", ["list commits"]])
def test_a_request_that_is_not_a_string_is_a_type_error_naming_it(selector, request_value):
    with pytest.raises(TypeError, match="^request: expected a string"):
        selector.discover(request_value)


@pytest.mark.parametrize(
    "context, name",
    [("prod", "context"), ({"connections": "github"}, "context.connections"),
     ({"scopes": [1]}, "context.scopes"), ({"env": 1}, "context.env")],
)
def test_a_context_of_the_wrong_shape_is_a_type_error_naming_it(selector, context, name):
    with pytest.raises(TypeError, match=f"^{name}: "):
        selector.discover("list commits", context)


def test_lone_surrogates_in_a_request_are_replaced_before_the_tokenizer(selector):
    found = selector.discover("list commits \udcff in checkout-service")
    assert found.request == "list commits \ufffd in checkout-service"
    assert request_text("ok", "request") == "ok"


@pytest.mark.parametrize("tool_id", [None, 7, ["a.b"], {"id": "a.b"}, 1.5])
def test_the_gate_refuses_a_non_string_tool_id_with_its_structured_error(tool_id):
    result = gate(tool_id, ActiveSet.of(["a.b"]))
    assert not result.allowed
    assert result.error["error"] == "tool_not_available"
    assert result.error["available"] == ["a.b"] and "string" in result.error["problem"]


def test_observation_capping_handles_any_depth():
    deep: list = []
    for _ in range(20_000):
        deep = [deep]
    view = cap_observation(deep, max_bytes=200, max_items=3, store=ObservationStore())
    assert view.truncated and view.capped_bytes <= 200

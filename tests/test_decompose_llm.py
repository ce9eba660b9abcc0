"""The LLM decomposer against a real local HTTP server that serves canned chat-completion
answers (the rules as its fallback), and `make_decomposer`'s configuration."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
from typing import Any

import pytest
from decompose_cards import CARDS, CHECKOUT
from fake_llm import FakeLLMServer

from serving.decompose import (
    DecomposerConfigError,
    DecomposerVocabulary,
    LLMAnswerError,
    LLMDecomposer,
    RuleDecomposer,
    make_decomposer,
    parse_decomposition,
)
from serving.model.selection import Subgoal


@pytest.fixture(scope="module")
def vocab() -> DecomposerVocabulary:
    return DecomposerVocabulary.from_cards(CARDS)


@pytest.fixture(scope="module")
def rules(vocab: DecomposerVocabulary) -> RuleDecomposer:
    return RuleDecomposer(vocab)


# --- LLM decomposer against a real local server -------------------------------------


def _llm(url: str, rules: RuleDecomposer, **kwargs: Any) -> LLMDecomposer:
    kwargs.setdefault("timeout_s", 0.5)
    return LLMDecomposer(url, "test-model", fallback=rules, vocab=rules.vocab, **kwargs)


VALID = {
    "subgoals": [
        {
            "text": "find what changed in checkout-service",
            "operations": ["list"],
            "entities": ["commits"],
            "required_access": ["GitHub"],
            "mutation": False,
        },
        {
            "text": "tell the payments channel on Slack that checkout-service failed",
            "operations": ["send"],
            "entities": ["channel"],
            "required_access": ["slack"],
            "mutation": True,
        },
    ]
}


def test_llm_answer_is_used_and_request_is_well_formed(
    llm_server: FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.answer(json.dumps(VALID))
    decomposer = _llm(llm_server.url, rules, api_key="sk-test")
    with caplog.at_level(logging.WARNING, logger="serving.decompose.llm"):
        subgoals = decomposer.decompose(CHECKOUT)

    assert subgoals == [
        Subgoal(
            text="find what changed in checkout-service",
            operations=("list",),
            entities=("commit",),  # mapped through the vocabulary
            required_access=("github",),
            mutation=False,
            named_access=("github",),
        ),
        Subgoal(
            text="tell the payments channel on Slack that checkout-service failed",
            operations=("send",),
            entities=("channel",),
            required_access=("slack",),
            mutation=True,
            named_access=("slack",),
        ),
    ]
    assert not caplog.records
    (sent,) = llm_server.received
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == "Bearer sk-test"
    body = sent["body"]
    assert body["model"] == "test-model"
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0
    system, user = body["messages"]
    assert system["role"] == "system" and user == {"role": "user", "content": CHECKOUT}
    for name in ("search", "list", "get", "send", "rollback"):
        assert name in system["content"]
    assert "kubernetes" in system["content"]  # the catalog's connections are listed


def _with(**changes: Any) -> str:
    first = {**VALID["subgoals"][0], **changes}
    return json.dumps({"subgoals": [first]})


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("this is not JSON {", "not JSON"),
        (json.dumps({"steps": []}), "subgoals"),
        (json.dumps({"subgoals": []}), "empty"),
        (json.dumps({"subgoals": ["find what changed"]}), "expected an object"),
        (_with(operations=["teleport"]), "unknown 'teleport'"),
        (_with(operations="list"), "list of strings"),
        (_with(text=""), "non-empty string"),
        (_with(mutation="no"), "true or false"),
        (_with(mutation=True), "disagrees"),
        (json.dumps({"subgoals": [{"text": "x", "operations": ["get"]}]}), "missing"),
    ],
)
def test_bad_llm_answers_fall_back_to_rules(
    llm_server: FakeLLMServer,
    rules: RuleDecomposer,
    caplog: pytest.LogCaptureFixture,
    content: str,
    reason: str,
) -> None:
    llm_server.answer(content)
    with caplog.at_level(logging.WARNING, logger="serving.decompose.llm"):
        subgoals = _llm(llm_server.url, rules).decompose(CHECKOUT)
    assert subgoals == rules.decompose(CHECKOUT)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and reason in record.getMessage()


def test_http_error_falls_back(
    llm_server: FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.status, llm_server.body = 500, b'{"error": "boom"}'
    with caplog.at_level(logging.WARNING, logger="serving.decompose.llm"):
        subgoals = _llm(llm_server.url, rules).decompose(CHECKOUT)
    assert subgoals == rules.decompose(CHECKOUT)
    assert "HTTP 500" in caplog.records[0].getMessage()


def test_non_chat_response_body_falls_back(
    llm_server: FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.body = b"<html>gateway</html>"
    with caplog.at_level(logging.WARNING, logger="serving.decompose.llm"):
        subgoals = _llm(llm_server.url, rules).decompose(CHECKOUT)
    assert subgoals == rules.decompose(CHECKOUT)
    assert len(caplog.records) == 1


def test_timeout_falls_back(
    llm_server: FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.answer(json.dumps(VALID))
    llm_server.delay_s = 1.5
    t0 = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="serving.decompose.llm"):
        subgoals = _llm(llm_server.url, rules, timeout_s=0.5).decompose(CHECKOUT)
    assert time.perf_counter() - t0 < 1.4  # gave up at the timeout, did not wait it out
    assert subgoals == rules.decompose(CHECKOUT)
    assert "timed out" in caplog.records[0].getMessage()


def test_connection_refused_falls_back(
    rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # the socket is closed: nothing listens on that port now
    with caplog.at_level(logging.WARNING, logger="serving.decompose.llm"):
        subgoals = _llm(f"http://127.0.0.1:{port}/v1", rules).decompose(CHECKOUT)
    assert subgoals == rules.decompose(CHECKOUT)
    assert len(caplog.records) == 1 and "refused" in caplog.records[0].getMessage().lower()


def test_api_key_is_not_in_repr(rules: RuleDecomposer) -> None:
    decomposer = _llm("http://127.0.0.1:1/v1", rules, api_key="sk-secret")
    assert "sk-secret" not in repr(decomposer)


def test_parse_accepts_a_fenced_answer() -> None:
    (only,) = parse_decomposition("```json\n" + _with() + "\n```")
    assert only.operations == ("list",) and only.required_access == ("github",)
    with pytest.raises(LLMAnswerError, match="not JSON"):
        parse_decomposition("")


# --- configuration ------------------------------------------------------------------


def test_make_decomposer_without_endpoint_is_rule_based(vocab: DecomposerVocabulary) -> None:
    assert isinstance(make_decomposer(vocab, env={}), RuleDecomposer)
    assert isinstance(make_decomposer(vocab, env={"TOOLSIFT_LLM_ENDPOINT": " "}), RuleDecomposer)


def test_make_decomposer_with_endpoint_wraps_the_rules(vocab: DecomposerVocabulary) -> None:
    env = {
        "TOOLSIFT_LLM_ENDPOINT": "http://llm.internal:8000/v1",
        "TOOLSIFT_LLM_MODEL": "qwen2.5-7b-instruct",
        "TOOLSIFT_LLM_API_KEY": "sk-x",
        "TOOLSIFT_LLM_TIMEOUT_S": "3",
    }
    decomposer = make_decomposer(vocab, env=env)
    assert isinstance(decomposer, LLMDecomposer)
    assert isinstance(decomposer.fallback, RuleDecomposer)
    assert (decomposer.model, decomposer.api_key, decomposer.timeout_s) == (
        "qwen2.5-7b-instruct",
        "sk-x",
        3.0,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TOOLSIFT_LLM_ENDPOINT": "http://llm:8000/v1"}, "TOOLSIFT_LLM_MODEL"),
        ({"TOOLSIFT_LLM_ENDPOINT": "file:///etc/passwd", "TOOLSIFT_LLM_MODEL": "m"}, "http"),
        (
            {
                "TOOLSIFT_LLM_ENDPOINT": "http://llm:8000/v1",
                "TOOLSIFT_LLM_MODEL": "m",
                "TOOLSIFT_LLM_TIMEOUT_S": "soon",
            },
            "TOOLSIFT_LLM_TIMEOUT_S",
        ),
    ],
)
def test_incomplete_llm_configuration_fails_at_startup(
    vocab: DecomposerVocabulary, env: dict[str, str], message: str
) -> None:
    with pytest.raises(DecomposerConfigError, match=message):
        make_decomposer(vocab, env=env)


def test_import_stays_light() -> None:
    code = (
        "import sys, serving.decompose\n"
        "heavy = {'torch', 'polars', 'mlflow', 'requests', 'httpx'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"

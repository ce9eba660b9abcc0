"""Synthetic queries from tool cards: the template generator on the fixture catalog and
inline cards, and the LLM generator against a real local HTTP server (the templates as its
fallback)."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import pytest

from features.synthetic import (
    Intent,
    LLMQueryGenerator,
    QueryGenerator,
    QueryGeneratorConfigError,
    TemplateQueryGenerator,
    card_params,
    finalize,
    first_sentence,
    make_query_generator,
    mentions_name,
    query_rng,
    sentence_intent,
)
from serving.model.io import load_catalog
from serving.model.schema import ToolCard


@pytest.fixture(scope="module")
def cards(fixture_catalog) -> list[ToolCard]:
    return list(load_catalog(fixture_catalog, strict=True).items)


def card(**fields: Any) -> ToolCard:
    data = {"tool_id": "acme.fetch_weather_report", "server": "acme", "domain": "weather",
            "name": "fetch_weather_report", "summary": "", "requires": {"connection": "acme"},
            "risk": "read_only"}
    return ToolCard.from_dict({**data, **fields})


# A StableToolBench listing as the converter turns it into a card: a terse description,
# no examples, one cryptic parameter with a default value.
SONGKICK = card(
    tool_id="the_clique.songkick_concert", server="the_clique", domain="data",
    name="Songkick concert", summary="Concert info", description="Concert info",
    entities=["songkick_concert"], derived=["summary", "entities"],
    input_schema={"type": "object", "required": ["id_conc"], "properties": {
        "id_conc": {"type": "string", "default": "40698227-lumineers-at-aware-super-theatre"}}},
)
BARE = card()  # empty summary and description, no parameters, no capabilities


def generate(c: ToolCard, n: int, seed: int = 13,
             generator: QueryGenerator | None = None) -> list[str]:
    return (generator or TemplateQueryGenerator()).generate(c, n, query_rng(seed, c.tool_id))


def test_deterministic_for_a_seed(cards):
    for c in [*cards, SONGKICK, BARE]:
        assert generate(c, 5) == generate(c, 5)
    # another seed changes the wording somewhere in the catalog
    assert any(generate(c, 5, seed=1) != generate(c, 5, seed=2) for c in cards)
    # a tool's stream is its own: the catalog around it does not matter
    rng = query_rng(13, "x.y")
    assert rng.random() == query_rng(13, "x.y").random() != query_rng(13, "x.z").random()


def test_distinct_non_empty_and_at_most_n(cards):
    for c in [*cards, SONGKICK]:
        for n in (1, 3, 5):
            queries = generate(c, n)
            assert 1 <= len(queries) <= n, c.tool_id
            assert all(q.strip() == q and q for q in queries)
            assert len({q.lower().strip(" .?!") for q in queries}) == len(queries)
    assert generate(SONGKICK, 0) == []


def test_never_repeats_what_the_card_already_says(cards):
    for c in cards:
        said = {t.lower().strip(" .") for t in (c.summary, c.description, *c.examples)}
        assert not {q.lower() for q in generate(c, 5)} & said


def test_mentions_a_parameter_when_the_card_has_one(cards):
    for c in [*cards, SONGKICK]:
        phrases = [p.phrase for p in card_params(c)]
        assert phrases, c.tool_id  # every fixture card has a parameter
        assert any(p in q.lower() for q in generate(c, 3) for p in phrases), c.tool_id
    # id_conc reads as "conc id"; its default value may be said instead
    assert [p.phrase for p in card_params(SONGKICK)] == ["conc id"]


def test_the_tool_is_named_in_at_most_one_query(cards):
    for c in [*cards, SONGKICK, BARE]:
        queries = generate(c, 5)
        assert sum(c.tool_id in q for q in queries) <= 1, c.tool_id
        assert sum(mentions_name(q, c) for q in queries) <= 1, c.tool_id
    # the concert tool is named once; the rest say what it gives ("the concert info")
    queries = generate(SONGKICK, 3)
    assert sum("songkick concert" in q.lower() for q in queries) <= 1
    assert any("concert info" in q for q in queries)
    assert mentions_name("use the_clique.songkick_concert", SONGKICK)
    assert mentions_name("the Songkick Concert listing", SONGKICK)
    assert not mentions_name("concert info for tonight", SONGKICK)


def test_a_card_with_no_description_and_no_parameters():
    queries = generate(BARE, 3)
    assert 1 <= len(queries) <= 3 and all(queries)
    assert not card_params(BARE)
    # the name is all there is: its words, read as a request, with varied verbs
    assert all("the weather report" in q for q in queries)
    assert sum(mentions_name(q, BARE) for q in queries) <= 1


def test_a_description_in_the_tools_voice_becomes_the_users():
    assert first_sentence("Returns **JSON** (see https://x.io). Second.") == "Returns JSON"
    assert first_sentence("List recent commits of a repository Returns JSON.") == (
        "List recent commits of a repository")
    assert sentence_intent("This endpoint returns the domain information.", "get") == Intent(
        "get", "the domain information")
    assert sentence_intent("Generates a QR code as base64.", "get") == Intent(
        "create", "a QR code as base64", verb="generate")  # a specific verb is kept
    assert sentence_intent("Calculates a kd (kill + assists death ratio)", "get") == Intent(
        "get", "a kd", verb="calculate")  # an unknown verb before an article, base form
    assert sentence_intent("Get player", "get") == Intent("get", "the player")  # synonyms
    assert sentence_intent("Search by name", "get") == Intent("search", "by name", "search")
    assert sentence_intent("Concert info", "get") == Intent("get", "the concert info")
    assert sentence_intent("Enter Artist ID", "get") is None  # spoken to the caller
    assert sentence_intent("POST pipe/trg passthru, ids only", "get") is None  # implementer
    assert sentence_intent("acti.idx shim (GET /api/acti)", "get") is None
    assert sentence_intent("", "get") is None


def test_finalize_filters_and_keeps_order():
    texts = ["Concert info", "get the concert info", "GET the concert info.", "",
             "songkick concert please", "the songkick concert again", "x " * 40,
             "show me the concert for tonight"]
    # summary repeated, a repeat, empty, a second naming, too long: dropped
    assert finalize(SONGKICK, texts, 5) == [
        "get the concert info", "songkick concert please", "show me the concert for tonight"]
    assert finalize(SONGKICK, texts, 1) == ["get the concert info"]
    assert finalize(SONGKICK, ["a b"], 3, taken=["a b", "c"]) == ["a b", "c"]


# --- the LLM generator against a real local server ------------------------------------


def test_llm_answer_is_used_and_filtered(llm_server, caplog):
    llm_server.answer(json.dumps({"queries": [
        "what's on at the Aware Super Theatre tonight?",
        "Concert info",  # the summary: dropped
        "look up the_clique.songkick_concert for 40698227",  # names the tool ...
        "songkick concert details please",  # ... a second naming: dropped
        "who plays the lumineers gig",
    ]}))
    generator = LLMQueryGenerator(llm_server.url, "test-model", api_key="sk-test",
                                  timeout_s=2.0)
    with caplog.at_level(logging.WARNING, logger="features.synthetic"):
        queries = generate(SONGKICK, 3, generator=generator)
    assert queries == ["what's on at the Aware Super Theatre tonight?",
                       "look up the_clique.songkick_concert for 40698227",
                       "who plays the lumineers gig"]
    assert not caplog.records and (generator.n_calls, generator.n_failures) == (1, 0)
    (request,) = llm_server.received
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "test-model" and body["temperature"] == 0
    assert "exactly 3 requests" in body["messages"][0]["content"]
    shown = json.loads(body["messages"][1]["content"])
    assert shown["description"] == "Concert info" and shown["parameters"] == {"id_conc": ""}


def test_llm_short_answer_is_topped_up_from_the_templates(llm_server):
    llm_server.answer('```json\n{"queries": ["who plays the lumineers gig"]}\n```')
    generator = LLMQueryGenerator(llm_server.url, "test-model", timeout_s=2.0)
    queries = generate(SONGKICK, 3, generator=generator)
    assert queries[0] == "who plays the lumineers gig" and len(queries) == 3
    assert queries[1:] == [q for q in generate(SONGKICK, 3) if q not in queries[:1]][:2]


@pytest.mark.parametrize("answer", ["not json", '{"queries": "one"}', '{"queries": []}',
                                    '{"subgoals": []}'])
def test_llm_bad_answer_falls_back_to_the_templates(llm_server, caplog, answer):
    llm_server.answer(answer)
    generator = LLMQueryGenerator(llm_server.url, "test-model", timeout_s=2.0)
    with caplog.at_level(logging.WARNING, logger="features.synthetic"):
        assert generate(SONGKICK, 3, generator=generator) == generate(SONGKICK, 3)
    assert generator.n_failures == 1 and "songkick_concert" in caplog.text


def test_llm_transport_errors_fall_back(llm_server):
    llm_server.status, llm_server.body = 500, b"{}"
    generator = LLMQueryGenerator(llm_server.url, "test-model", timeout_s=2.0)
    assert generate(SONGKICK, 3, generator=generator) == generate(SONGKICK, 3)
    with socket.socket() as sock:  # a port nobody listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    refused = LLMQueryGenerator(f"http://127.0.0.1:{port}/v1", "m", timeout_s=1.0)
    assert generate(SONGKICK, 3, generator=refused) == generate(SONGKICK, 3)
    assert (generator.n_failures, refused.n_failures) == (1, 1)


def test_generator_configuration():
    assert isinstance(make_query_generator("template"), TemplateQueryGenerator)
    env = {"TOOLSIFT_LLM_ENDPOINT": "http://127.0.0.1:9/v1", "TOOLSIFT_LLM_MODEL": "m",
           "TOOLSIFT_LLM_API_KEY": "k", "TOOLSIFT_LLM_TIMEOUT_S": "3"}
    llm = make_query_generator("llm", env)
    assert isinstance(llm, LLMQueryGenerator)
    assert (llm.endpoint, llm.model, llm.api_key, llm.timeout_s) == (
        "http://127.0.0.1:9/v1", "m", "k", 3.0)
    with pytest.raises(QueryGeneratorConfigError, match="TOOLSIFT_LLM_ENDPOINT"):
        make_query_generator("llm", {})
    with pytest.raises(QueryGeneratorConfigError, match="not an http"):
        LLMQueryGenerator("ftp://x", "m")
    with pytest.raises(QueryGeneratorConfigError, match="unknown query generator"):
        make_query_generator("gpt", env)

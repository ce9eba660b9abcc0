"""Decomposition: the rule-based splitter on a small catalog, and the LLM decomposer
against a real local HTTP server that serves canned chat-completion answers."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from serving.decompose import (
    DecomposerConfigError,
    DecomposerVocabulary,
    LLMAnswerError,
    LLMDecomposer,
    RuleDecomposer,
    make_decomposer,
    parse_decomposition,
)
from serving.schema import ToolCard
from serving.types import Subgoal

CHECKOUT = (
    "The checkout-service deploy failed last night. Find what changed, check the rollout, "
    "and tell the payments channel on Slack."
)


def _card(
    tool_id: str, capabilities: list[str], entities: list[str], connection: str, risk: str
) -> ToolCard:
    server, name = tool_id.split(".", 1)
    return ToolCard.from_dict(
        {
            "tool_id": tool_id,
            "server": server,
            "domain": "devops",
            "name": name,
            "summary": name.replace("_", " "),
            "capabilities": capabilities,
            "entities": entities,
            "risk": risk,
            "requires": {"connection": connection, "scopes": []},
        }
    )


R, W = "read_only", "write"
CARDS = [
    _card("github.list_commits", ["list:commit"], ["commit", "repository"], "github", R),
    _card("github.search_code", ["search:code"], ["code", "repository"], "github", R),
    _card("github.list_pull_requests", ["list:pull_request"], ["pull_request"], "github", R),
    _card("github.create_pull_request", ["create:pull_request"], ["branch"], "github", W),
    _card("k8s.get_rollout_status", ["get:rollout_status"], ["rollout"], "kubernetes", R),
    _card("k8s.get_pod_logs", ["get:log"], ["pod", "log"], "kubernetes", R),
    _card("k8s.restart_deployment", ["restart:deployment"], ["pod"], "kubernetes", W),
    _card("k8s.rollback_deployment", ["rollback:deployment"], ["rollout"], "kubernetes", W),
    _card("slack.post_message", ["send:message"], ["message", "channel"], "slack", W),
    _card("slack.search_messages", ["search:message"], ["channel"], "slack", R),
    _card("jira.create_issue", ["create:issue"], ["issue", "ticket"], "jira", W),
    _card("jira.get_issue", ["get:issue"], ["ticket"], "jira", R),
    _card("docs.search_docs", ["search:doc"], ["page"], "confluence", R),
]


@pytest.fixture(scope="module")
def vocab() -> DecomposerVocabulary:
    return DecomposerVocabulary.from_cards(CARDS)


@pytest.fixture(scope="module")
def rules(vocab: DecomposerVocabulary) -> RuleDecomposer:
    return RuleDecomposer(vocab)


# --- vocabulary ---------------------------------------------------------------------


def test_vocabulary_has_entity_variants_and_connection_aliases(vocab: DecomposerVocabulary) -> None:
    for surface in ("pull_request", "pull request", "pull requests", "pull-request"):
        assert vocab.entities[surface] == "pull_request"
    assert vocab.entities["rollout status"] == "rollout_status"  # from a capability
    assert vocab.entities["logs"] == "log"
    for alias in ("k8s", "kube", "kubectl", "kubernetes"):
        assert vocab.connections[alias] == "kubernetes"
    assert vocab.connections["slack"] == "slack"
    # a server named like an entity ("docs") does not become a connection alias
    assert "docs" not in vocab.connections
    assert vocab.tools["slack.post_message"].connection == "slack"
    assert vocab.tools["slack.post_message"].operations == ("send",)


def test_vocabulary_does_not_depend_on_card_order(vocab: DecomposerVocabulary) -> None:
    assert DecomposerVocabulary.from_cards(reversed(CARDS)) == vocab


# --- rule-based decomposition -------------------------------------------------------


def test_checkout_request_gives_three_subgoals_with_context(rules: RuleDecomposer) -> None:
    found, rollout, notify = rules.decompose(CHECKOUT)

    assert found.text.startswith("Find what changed")
    assert set(found.operations) <= {"list", "search"} and found.operations
    assert not found.mutation

    assert rollout.text.startswith("check the rollout")
    assert "get" in rollout.operations and "rollout" in rollout.entities
    assert not rollout.mutation

    assert notify.text.startswith("tell the payments channel on Slack")
    assert notify.operations == ("send",)
    assert notify.mutation
    assert notify.required_access == ("slack",)

    # the verbless context sentence is not a step, but its names travel with every step
    for sg in (found, rollout, notify):
        assert "checkout-service" in sg.text
        assert "failed" not in sg.text


@pytest.mark.parametrize(
    ("request_text", "operations", "entities"),
    [
        ("Search and replace the timeout value in the docs", ("search",), ("doc",)),
        ("Check the logs and metrics for checkout-service", ("get",), ("log",)),
        ("Find and delete the stale branches", ("search", "delete"), ("branch",)),
        ('Search the code for "build and deploy"', ("search",), ("code",)),
        ("Post the update to #payments on Slack", ("send",), ()),
    ],
)
def test_conjunctions_inside_one_clause_do_not_split(
    rules: RuleDecomposer, request_text: str, operations: tuple[str, ...], entities: tuple[str, ...]
) -> None:
    (only,) = rules.decompose(request_text)
    assert only.text == request_text
    assert only.operations == operations
    assert only.entities == entities


def test_server_named_like_an_entity_is_not_access(rules: RuleDecomposer) -> None:
    # "docs" is the docs server's name and the entity of search:doc; only the entity counts
    (only,) = rules.decompose("Search and replace the timeout value in the docs")
    assert only.required_access == ()


@pytest.mark.parametrize(
    ("request_text", "texts"),
    [
        (
            "Restart the checkout deployment; then notify the team on Slack",
            ["Restart the checkout deployment", "notify the team on Slack"],
        ),
        (
            "Open a Jira ticket for the flaky test and then post the link in Slack",
            ["Open a Jira ticket for the flaky test", "post the link in Slack"],
        ),
        (
            "Merge the pull request and deploy checkout-service to staging, then ping #release.",
            ["Merge the pull request", "deploy checkout-service to staging", "ping #release"],
        ),
    ],
)
def test_clauses_with_their_own_verbs_split(
    rules: RuleDecomposer, request_text: str, texts: list[str]
) -> None:
    assert [sg.text for sg in rules.decompose(request_text)] == texts


def test_split_subgoals_carry_their_own_access_and_mutation(rules: RuleDecomposer) -> None:
    ticket, post = rules.decompose(
        "Open a Jira ticket for the flaky test and then post the link in Slack"
    )
    assert ticket == Subgoal(
        text="Open a Jira ticket for the flaky test",
        operations=("create",),
        entities=("ticket",),
        required_access=("jira",),
        mutation=True,
    )
    assert post.operations == ("send",) and post.required_access == ("slack",)


def test_verbless_request_is_one_subgoal_with_the_whole_text(rules: RuleDecomposer) -> None:
    request = "Why is checkout-service so slow today?"
    assert rules.decompose(request) == [Subgoal(text=request)]


def test_noun_uses_of_verbs_are_not_operations(rules: RuleDecomposer) -> None:
    # "deploy" here is what failed, not something to do
    (only,) = rules.decompose("The checkout-service deploy failed")
    assert only.operations == () and not only.mutation
    (status,) = rules.decompose("Deploy status for checkout-service?")
    assert status.operations == () and not status.mutation
    (look,) = rules.decompose("Take a look at the pod logs")
    assert look.operations == ("get",) and not look.mutation


def test_exact_tool_id_stays_in_the_text_and_sets_operation_and_access(
    rules: RuleDecomposer,
) -> None:
    (search,) = rules.decompose("Use github.search_code to find where the retry budget is set")
    assert "github.search_code" in search.text
    assert search.operations == ("search",) and search.required_access == ("github",)

    # "run" names the tool, it does not trigger anything: the tool's own operation counts
    (logs,) = rules.decompose("Run k8s.get_pod_logs for checkout-service.")
    assert logs.text == "Run k8s.get_pod_logs for checkout-service"
    assert logs.operations == ("get",) and not logs.mutation
    assert logs.required_access == ("kubernetes",)


def test_tool_id_in_backticks_is_found(rules: RuleDecomposer) -> None:
    (only,) = rules.decompose("Use `slack.post_message` to tell #ops.")
    assert only.text == "Use `slack.post_message` to tell #ops"
    assert only.operations == ("send",) and only.required_access == ("slack",)


def test_splitting_ignores_case(rules: RuleDecomposer) -> None:
    check, restart = rules.decompose("CHECK THE ROLLOUT AND RESTART THE PODS")
    assert (check.operations, check.entities) == (("get",), ("rollout",))
    assert (restart.operations, restart.entities) == (("restart",), ("pod",))


@pytest.mark.parametrize(
    ("request_text", "access"),
    [
        ("Check the k8s rollout", ("kubernetes",)),
        ("Which pods are failing in KUBE?", ("kubernetes",)),
        ("List the commits on GitHub", ("github",)),
        ("On GitHub, list the open pull requests", ("github",)),
        ("Let the payments team know on slack", ("slack",)),
    ],
)
def test_product_names_map_to_connections(
    rules: RuleDecomposer, request_text: str, access: tuple[str, ...]
) -> None:
    (only,) = rules.decompose(request_text)
    assert only.required_access == access
    assert only.operations  # each of these asks for something


def test_pronoun_object_takes_the_previous_entities(rules: RuleDecomposer) -> None:
    find, restart = rules.decompose("Find the crashlooping pods and restart them")
    assert find.entities == ("pod",) and not find.mutation
    assert restart.operations == ("restart",) and restart.mutation
    assert restart.entities == ("pod",)
    assert restart.text == "restart them (pod)"


def test_trailing_context_applies_to_earlier_steps(rules: RuleDecomposer) -> None:
    (only,) = rules.decompose("Restart the pods. They are crashlooping in prod-eu.")
    assert only.text == "Restart the pods (prod-eu)"
    assert only.operations == ("restart",)


def test_report_back_is_not_a_step(rules: RuleDecomposer) -> None:
    (only,) = rules.decompose("Please restart the checkout pods and let me know")
    assert only.operations == ("restart",)


def test_empty_request_gives_no_subgoals(rules: RuleDecomposer) -> None:
    assert rules.decompose("   ") == []


def test_rule_decomposer_is_deterministic(vocab: DecomposerVocabulary) -> None:
    first = RuleDecomposer(vocab).decompose(CHECKOUT)
    again = RuleDecomposer(DecomposerVocabulary.from_cards(reversed(CARDS))).decompose(CHECKOUT)
    assert first == again


# --- multi-part requests: where one step ends and the next begins -------------------


@pytest.mark.parametrize(
    ("request_text", "texts"),
    [
        # an adverb or a politeness phrase before a verb keeps it a command
        (
            "Restart the checkout pods, then permanently remove the stale branches",
            ["Restart the checkout pods", "permanently remove the stale branches"],
        ),
        (
            "Check the rollout and then go ahead and notify #ops on Slack",
            ["Check the rollout", "go ahead and notify #ops on Slack"],
        ),
        # " + ", ";" and ", also" separate steps, also one that asks without a verb
        (
            "get ticket OPS-12 + list the commits on acme/web",
            ["get ticket OPS-12", "list the commits on acme/web"],
        ),
        (
            "'timeout' in the checkout-service logs; restart the pods",
            ["'timeout' in the checkout-service logs", "restart the pods"],
        ),
        (
            "OPS-12: the rollout of checkout-service, also restart the pods",
            ["OPS-12: the rollout of checkout-service", "restart the pods"],
        ),
        # a place in front of a step belongs to that step, not to the one before
        (
            "list the commits on acme/web, on ticket OPS-12, set the assignee to Dev Patel",
            ["list the commits on acme/web", "on ticket OPS-12, set the assignee to Dev Patel"],
        ),
        # a quoted message is one unit, whatever punctuation it holds
        (
            "add a comment on OPS-12 saying 'nit: rename this, then retry' and then restart "
            "the pods",
            ["add a comment on OPS-12 saying 'nit: rename this, then retry'", "restart the pods"],
        ),
    ],
)
def test_steps_split_at_their_separators(
    rules: RuleDecomposer, request_text: str, texts: list[str]
) -> None:
    assert [sg.text for sg in rules.decompose(request_text)] == texts


@pytest.mark.parametrize(
    ("request_text", "operations"),
    [
        # what follows a colon, a dash or "? set" elaborates the same edit
        ("Modify the checkout-service rollout: set the replicas to 3", ("update",)),
        ("could you change ticket OPS-12? set the status to Done", ("update",)),
        ("can you update ticket OPS-12 and set the priority to P1?", ("update",)),
        ("ticket OPS-12 - set the priority to P1", ("update",)),
        # a product, a place or a bare "lgtm" in front frames the step
        ("Jira: on ticket OPS-12, set the assignee to Dev Patel", ("update",)),
        ("lgtm, merge the pull request", ("merge",)),
        # a tool id as prefix or suffix names the tool for the same step
        ("run github.list_commits: on acme/web, list the commits since Monday", ("list",)),
        ("can you roll back checkout-service? via k8s.rollback_deployment", ("rollback",)),
        # an unknown verb joined by "and" to a known one; thanks and chatter ask for nothing
        ("Please review and approve the pull request", ("approve",)),
        ("Restart the checkout pods. Thanks!", ("restart",)),
        ("Merge the pull request. Or should I wait?", ("merge",)),
        # a verbless sentence that says what happened is context
        ("Payments are failing since the deploy. Roll back checkout-service.", ("rollback",)),
        # the object refers back: "the PR ..., merge it" is one step
        ("The pull request on acme/web, can you merge it?", ("merge",)),
    ],
)
def test_one_step_told_in_several_clauses_stays_one(
    rules: RuleDecomposer, request_text: str, operations: tuple[str, ...]
) -> None:
    (only,) = rules.decompose(request_text)
    assert only.operations == operations


def test_elaboration_keeps_the_whole_text_and_access(rules: RuleDecomposer) -> None:
    (only,) = rules.decompose("can you roll back checkout-service? via k8s.rollback_deployment")
    assert only.text == "can you roll back checkout-service? via k8s.rollback_deployment"
    assert only.required_access == ("kubernetes",) and only.mutation


def test_an_edit_and_an_unrelated_step_still_split(rules: RuleDecomposer) -> None:
    update, post = rules.decompose("update ticket OPS-12 and post the link in Slack")
    assert update.operations == ("update",) and post.operations == ("send",)


@pytest.mark.parametrize(
    ("request_text", "operations"),
    [
        ("I need the pods of checkout-service", ("get",)),
        ("I need to restart the checkout pods", ("restart",)),  # the need is not a step
        ("give me a list of open pull requests", ("list",)),
        ("bring up the rollout of checkout-service", ("get",)),
        ("look through the docs for 'retry budget'", ("search",)),
        ("pull the logs of checkout-service", ("get",)),
        ("drop the payments team a note saying 'deploy done'", ("send",)),
        ("rm the stale branch on acme/web", ("delete",)),
        # right after a verb, "open" describes the pull requests: nothing is created
        ("show me open pull requests", ("get",)),
    ],
)
def test_request_phrasings_map_to_operations(
    rules: RuleDecomposer, request_text: str, operations: tuple[str, ...]
) -> None:
    (only,) = rules.decompose(request_text)
    assert only.operations == operations
    assert only.mutation == (operations[0] not in ("get", "list", "search"))


def test_pronoun_step_doing_the_same_joins_the_previous_one(rules: RuleDecomposer) -> None:
    request = (
        "we agreed to set the owner of the Runbook page to Jin Chen; please update it using "
        "Confluence"
    )
    (only,) = rules.decompose(request)
    assert only.text == request
    assert only.operations == ("update",) and only.mutation
    assert only.required_access == ("confluence",)


PRODUCT_CARDS = [
    *CARDS,
    _card("stripe.refund_charge", ["refund:charge"], ["charge"], "stripe", W),
    _card("box.delete_folder", ["delete:folder"], ["folder"], "box", W),
    _card("box.list_folders", ["list:folder"], ["folder"], "box", R),
    _card("calendly.cancel_event", ["cancel:event"], ["event", "meeting"], "calendly", W),
    _card("calendly.create_event", ["create:event"], ["event", "meeting"], "calendly", W),
]


@pytest.fixture(scope="module")
def product_rules() -> RuleDecomposer:
    return RuleDecomposer(DecomposerVocabulary.from_cards(PRODUCT_CARDS))


def test_product_qualifiers_belong_to_their_step(product_rules: RuleDecomposer) -> None:
    refund, restart = product_rules.decompose(
        "refund charge ch_123 (this is in Stripe), then restart the checkout pods"
    )
    assert refund.required_access == ("stripe",) and restart.required_access == ()

    (only,) = product_rules.decompose("refund charge ch_123. This is in Stripe.")
    assert only.operations == ("refund",) and only.required_access == ("stripe",)

    delete, listing = product_rules.decompose(
        "delete the folder Legal/Old using Box, and list the folders over in Box"
    )
    assert delete.operations == ("delete",) and listing.operations == ("list",)
    assert delete.required_access == listing.required_access == ("box",)


def test_leading_product_prefix_applies_to_every_step(product_rules: RuleDecomposer) -> None:
    cancel, create = product_rules.decompose(
        "In Calendly: cancel my 15:00 meeting, and create a new one for Friday at 10:00"
    )
    assert cancel.text == "In Calendly: cancel my 15:00 meeting"
    assert cancel.required_access == create.required_access == ("calendly",)
    assert create.text == "create a new one for Friday at 10:00 (Calendly)"
    # a step that names its own product keeps it
    cancel, post = product_rules.decompose(
        "In Calendly: cancel my 15:00 meeting, then tell #ops on Slack"
    )
    assert post.required_access == ("slack",)


# --- LLM decomposer against a real local server -------------------------------------


class _FakeLLMServer(ThreadingHTTPServer):
    """Serves one canned answer; records every request it receives."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.status = 200
        self.body = b"{}"
        self.delay_s = 0.0
        self.received: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def answer(self, content: str) -> None:
        self.status = 200
        self.body = json.dumps(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
        ).encode()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and hung up is expected here


class _Handler(BaseHTTPRequestHandler):
    server: _FakeLLMServer

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("Content-Length", "0"))
        self.server.received.append(
            {
                "path": self.path,
                "headers": dict(self.headers),
                "body": json.loads(self.rfile.read(length)),
            }
        )
        time.sleep(self.server.delay_s)
        try:
            self.send_response(self.server.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(self.server.body)))
            self.end_headers()
            self.wfile.write(self.server.body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def llm_server() -> Iterator[_FakeLLMServer]:
    server = _FakeLLMServer()
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


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
    llm_server: _FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.answer(json.dumps(VALID))
    decomposer = _llm(llm_server.url, rules, api_key="sk-test")
    with caplog.at_level(logging.WARNING, logger="serving.decompose"):
        subgoals = decomposer.decompose(CHECKOUT)

    assert subgoals == [
        Subgoal(
            text="find what changed in checkout-service",
            operations=("list",),
            entities=("commit",),  # mapped through the vocabulary
            required_access=("github",),
            mutation=False,
        ),
        Subgoal(
            text="tell the payments channel on Slack that checkout-service failed",
            operations=("send",),
            entities=("channel",),
            required_access=("slack",),
            mutation=True,
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
    llm_server: _FakeLLMServer,
    rules: RuleDecomposer,
    caplog: pytest.LogCaptureFixture,
    content: str,
    reason: str,
) -> None:
    llm_server.answer(content)
    with caplog.at_level(logging.WARNING, logger="serving.decompose"):
        subgoals = _llm(llm_server.url, rules).decompose(CHECKOUT)
    assert subgoals == rules.decompose(CHECKOUT)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and reason in record.getMessage()


def test_http_error_falls_back(
    llm_server: _FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.status, llm_server.body = 500, b'{"error": "boom"}'
    with caplog.at_level(logging.WARNING, logger="serving.decompose"):
        subgoals = _llm(llm_server.url, rules).decompose(CHECKOUT)
    assert subgoals == rules.decompose(CHECKOUT)
    assert "HTTP 500" in caplog.records[0].getMessage()


def test_non_chat_response_body_falls_back(
    llm_server: _FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.body = b"<html>gateway</html>"
    with caplog.at_level(logging.WARNING, logger="serving.decompose"):
        subgoals = _llm(llm_server.url, rules).decompose(CHECKOUT)
    assert subgoals == rules.decompose(CHECKOUT)
    assert len(caplog.records) == 1


def test_timeout_falls_back(
    llm_server: _FakeLLMServer, rules: RuleDecomposer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.answer(json.dumps(VALID))
    llm_server.delay_s = 1.5
    t0 = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="serving.decompose"):
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
    with caplog.at_level(logging.WARNING, logger="serving.decompose"):
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


# --- the split check (training.decompose_check) -------------------------------------


def test_trace_cases_dedupe_retries_and_keep_order() -> None:
    from serving.schema import Trace
    from training.decompose_check import SplitCase, cases_from_traces

    def event(rid: str, request: str, subgoal: str) -> Trace:
        return Trace(subgoal=subgoal, tool_id="t.x", success=True, request_id=rid, request=request)

    traces = [
        event("r1", "restart pods; post slack", "restart pods"),
        event("r1", "restart pods; post slack", "restart pods"),  # a retry after a failure
        event("r1", "restart pods; post slack", "post slack"),
        event("r2", "list commits", "list commits"),
    ]
    assert cases_from_traces(traces) == [
        SplitCase("r1", "restart pods; post slack", ("restart pods", "post slack")),
        SplitCase("r2", "list commits", ("list commits",)),
    ]


def test_split_scores_by_hand() -> None:
    from training.decompose_check import SplitCase, check_split

    cases = [
        SplitCase("exact", "r1", ("restart pods", "post slack")),
        SplitCase("under", "r2", ("list commits", "check rollout", "notify team")),
        SplitCase("over", "r3", ("merge branch", "deploy staging")),
        SplitCase("one", "r4", ("list commits",)),
        SplitCase("split", "r5", ("list commits",)),
    ]
    predicted = {
        "r1": ["restart pods", "post slack"],
        "r2": ["list commits check rollout notify team"],
        "r3": ["merge branch", "deploy", "staging"],
        "r4": ["list commits"],
        "r5": ["list", "commits"],
    }
    metrics, _ = check_split(cases, lambda request: predicted[request])
    assert metrics["multi_n"] == 3 and metrics["multi_n_gold_subgoals"] == 7
    # only r1 has as many predicted subgoals as gold ones
    assert metrics["multi_exact_count_rate"] == pytest.approx(1 / 3)
    # r1: 2 aligned; r2: one predicted subgoal holds all three but aligns one-to-one: 1;
    # r3: "deploy staging" has half its tokens in "deploy" (0.5 >= 0.5): 2 -> 5 of 7
    assert metrics["multi_align_recall"] == pytest.approx(5 / 7)
    assert (metrics["multi_n_over"], metrics["multi_n_under"]) == (1, 1)
    # of the single-part requests r4 stays one subgoal, r5 is split: 1 of 2
    assert metrics["single_one_subgoal_rate"] == pytest.approx(1 / 2)
    assert metrics["single_n_over"] == 1


def test_decompose_check_main_writes_metrics(tmp_path: Path) -> None:
    from serving.io import write_jsonl
    from serving.schema import Trace
    from training.decompose_check import main

    catalog = tmp_path / "catalog.jsonl"
    write_jsonl(catalog, [c.to_dict() for c in CARDS])
    traces = tmp_path / "traces.jsonl"
    two = "Restart the checkout pods; tell #ops on Slack"
    write_jsonl(
        traces,
        [
            Trace("Restart the checkout pods", "k8s.restart_deployment", True, "r1", two).to_dict(),
            Trace("tell #ops on Slack", "slack.post_message", True, "r1", two).to_dict(),
            Trace(
                "list the commits", "github.list_commits", True, "r2", "list the commits"
            ).to_dict(),
        ],
    )
    out = tmp_path / "metrics" / "decompose_check.json"
    main([str(traces), "--metrics", str(out)])  # the catalog is found beside the traces
    got = json.loads(out.read_text())["traces"]
    assert got["multi_n"] == 1 and got["multi_exact_count_rate"] == 1.0
    assert got["multi_align_recall"] == 1.0 and got["single_one_subgoal_rate"] == 1.0

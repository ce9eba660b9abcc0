"""The rule-based splitter on a small catalog: where steps begin and end, what they need."""

from __future__ import annotations

import pytest
from decompose_cards import CARDS, CHECKOUT, R, W, card

from serving.decompose import DecomposerVocabulary, RuleDecomposer
from serving.model.selection import Subgoal


@pytest.fixture(scope="module")
def vocab() -> DecomposerVocabulary:
    return DecomposerVocabulary.from_cards(CARDS)


@pytest.fixture(scope="module")
def rules(vocab: DecomposerVocabulary) -> RuleDecomposer:
    return RuleDecomposer(vocab)


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
        named_access=("jira",),
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
    card("stripe.refund_charge", ["refund:charge"], ["charge"], "stripe", W),
    card("box.delete_folder", ["delete:folder"], ["folder"], "box", W),
    card("box.list_folders", ["list:folder"], ["folder"], "box", R),
    card("calendly.cancel_event", ["cancel:event"], ["event", "meeting"], "calendly", W),
    card("calendly.create_event", ["create:event"], ["event", "meeting"], "calendly", W),
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


def test_a_bare_product_before_and_closes_the_step_before_it(
    product_rules: RuleDecomposer,
) -> None:
    # a place for the next step would follow the "and"; before it, it ends the step
    refund, listing = product_rules.decompose(
        "refund charge ch_123, over in Stripe and list the folders under Legal"
    )
    assert refund.required_access == ("stripe",) and listing.required_access == ()
    # ... also when the step before it has no verb the rules know
    charge, listing = product_rules.decompose(
        "the charge ch_123 from yesterday, over in Stripe and list the folders under Legal"
    )
    assert charge.required_access == ("stripe",) and listing.operations == ("list",)
    assert listing.required_access == ()
    # alone before the "and" it is the step's own place
    (only,) = product_rules.decompose("over in Box and list the folders under Legal")
    assert only.required_access == ("box",)


def test_leading_product_prefix_applies_to_every_step(product_rules: RuleDecomposer) -> None:
    cancel, create = product_rules.decompose(
        "In Calendly: cancel my 15:00 meeting, and create a new one for Friday at 10:00"
    )
    assert cancel.text == "In Calendly: cancel my 15:00 meeting"
    assert cancel.required_access == create.required_access == ("calendly",)
    assert create.text == "create a new one for Friday at 10:00 (Calendly)"
    # ... but only the first step's own words name it: the menu puts Calendly's tools
    # first for that step alone
    assert cancel.named_access == ("calendly",) and create.named_access == ()
    # a step that names its own product keeps it
    cancel, post = product_rules.decompose(
        "In Calendly: cancel my 15:00 meeting, then tell #ops on Slack"
    )
    assert post.required_access == post.named_access == ("slack",)


def test_a_quoted_product_name_is_a_value_not_a_named_product(rules: RuleDecomposer) -> None:
    (only,) = rules.decompose("search the messages for 'Slack outage'")
    assert only.required_access == ("slack",) and only.named_access == ()
    (named,) = rules.decompose("search the messages in Slack for 'outage'")
    assert named.named_access == ("slack",)


def test_a_context_sentence_lends_its_names_not_its_object_nouns() -> None:
    # "deploy" is an object the catalog knows: carried into "Find what changed" it turned a
    # question about code changes into one about deployments
    vocab = DecomposerVocabulary.from_cards(
        [*CARDS, card("k8s.get_deployment", ["get:deployment"], ["deploy"], "kubernetes", R)])
    (found,) = RuleDecomposer(vocab).decompose(
        "The checkout-service deploy failed last night. Find what changed.")
    assert found.text == "Find what changed (checkout-service)"


def test_a_name_inside_a_path_is_a_value_not_a_named_product(
    product_rules: RuleDecomposer,
) -> None:
    (only,) = product_rules.decompose("update the secret at secret/payments/stripe")
    assert only.named_access == ()
    (first,) = product_rules.decompose("upload stripe/exports/2026-11.csv to the bucket")
    assert first.named_access == ()  # a lowercase path goes on after it
    (named,) = product_rules.decompose("refund charge ch_123 in Stripe")
    assert named.named_access == ("stripe",)
    (alternatives,) = product_rules.decompose("refund charge ch_123 with the Stripe/Adyen API")
    assert alternatives.named_access == ("stripe",)


@pytest.mark.parametrize(
    ("request_text", "operations", "mutation"),
    [
        # what the spaces allow, not what to do
        ("list the folders I can edit", ("list",), False),
        ("can you edit the folder Q4", ("update",), True),
        # "open"/"new" before a bare plural ask which ones; with an article they create
        ("open folders in the archive", (), False),
        ("open a folder in the archive", ("create",), True),
        # "run a query" reads; "run" alone triggers
        ("run a query for the folders created this week", ("query",), False),
        ("run the nightly build", ("trigger",), True),
        # a read of a set lists it; one thing, a name or a thing's parts are read
        ("pull up all folders in the archive", ("list",), False),
        ("show me folders in the archive", ("list",), False),
        ("show me the folder Q4", ("get",), False),
        ("show me Lucas Martin's folder", ("get",), False),
        ("show me logs of the failed step", ("get",), False),
        ("I need numbers for the folder Q4", ("get",), False),
        # everyday verbs for a count, a search and a create
        ("tally the folders created this week", ("query",), False),
        ("scan the archive for 'Q4 budget'", ("search",), False),
        ("set up a folder Q5 in the archive for me", ("create",), True),
    ],
)
def test_a_verb_reads_as_the_step_only_where_it_is_asked_for(
    product_rules: RuleDecomposer, request_text: str, operations: tuple[str, ...],
    mutation: bool,
) -> None:
    (only,) = product_rules.decompose(request_text)
    assert only.operations == operations and only.mutation is mutation


def test_a_product_name_holds_no_verb() -> None:
    vocab = DecomposerVocabulary.from_cards(
        [*CARDS, card("newrelic.getMonitor", ["get:monitor"], ["monitor"], "newrelic", R)])
    (only,) = RuleDecomposer(vocab).decompose("New Relic: show me the disk usage monitor")
    assert only.operations == ("get",) and not only.mutation
    assert only.named_access == ("newrelic",)

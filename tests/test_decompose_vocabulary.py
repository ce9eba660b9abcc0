"""The rule decomposer's vocabulary, built from a small catalog."""

from __future__ import annotations

import pytest
from decompose_cards import CARDS

from serving.decompose import DecomposerVocabulary
from serving.decompose.vocabulary import distinctive_connections
from serving.model.schema import Requires, ToolCard


@pytest.fixture(scope="module")
def vocab() -> DecomposerVocabulary:
    return DecomposerVocabulary.from_cards(CARDS)


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


def _card(tool_id: str, summary: str, connection: str, not_for: tuple[str, ...] = ()) -> ToolCard:
    server, name = tool_id.split(".", 1)
    return ToolCard(tool_id=tool_id, server=server, domain="d", name=name, summary=summary,
                    not_for=not_for, requires=Requires(connection=connection))


def test_a_connection_name_other_products_use_is_not_distinctive() -> None:
    cards = [
        _card("jira.create_issue", "Create an issue in Jira.", "jira",
              not_for=("issues in Linear (use linear.create_issue)",)),
        # a product family may share the name: one other connection is allowed
        _card("jira_legacy.new_ticket", "Open a ticket.", "jira_legacy"),
        _card("linear.create_issue", "Create an issue.", "linear",
              not_for=("issues in Jira (use jira.create_issue)",)),  # not_for: not counted
        _card("logs.search", "Search the logs.", "logs"),
        _card("datadog.search_logs", "Search logs by query.", "datadog"),
        _card("splunk.query", "Query indexed logs.", "splunk"),
        _card("new_relic.list_alerts", "List the alerts of a New Relic account.", "new_relic"),
    ]
    vocab = DecomposerVocabulary.from_cards(cards)
    # "logs" is in two other products' texts; "new relic" (two words) only in its own
    assert vocab.distinctive == {"jira", "jira_legacy", "linear", "datadog", "splunk", "new_relic"}
    surfaces = {"jira": "jira", "logs": "logs", "linear": "linear"}
    assert distinctive_connections(cards, surfaces, max_others=0) == {"linear"}


def test_google_cloud_storage_is_gcs_and_google_cloud_is_gcp() -> None:
    from serving.decompose import RuleDecomposer

    cards = [_card("gcs.list_objects", "List the files in a bucket.", "gcs"),
             _card("gcp.list_instances", "List the virtual machines of a project.", "gcp")]
    vocab = DecomposerVocabulary.from_cards(cards)
    assert vocab.connections["google cloud storage"] == "gcs"
    assert vocab.connections["google cloud"] == "gcp"
    decompose = RuleDecomposer(vocab).decompose
    # the longest name wins: the storage product, not the cloud it runs in
    assert decompose("list the files in acme-backups [Google Cloud Storage]")[0].named_access \
        == ("gcs",)
    assert decompose("list the VMs in Google Cloud")[0].named_access == ("gcp",)

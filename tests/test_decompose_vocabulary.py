"""The rule decomposer's vocabulary, built from a small catalog."""

from __future__ import annotations

import pytest
from decompose_cards import CARDS

from serving.decompose import DecomposerVocabulary


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

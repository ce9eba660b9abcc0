"""Step 1 of the runtime pipeline: split a request into subgoals.

Two decomposers share one protocol (`Decomposer`). `RuleDecomposer` (`rules`) is
offline and deterministic: it splits on sentence and clause boundaries (`clauses`),
reads operations off the verbs in `serving.model.vocab.OPERATIONS`, and finds entities and
connections with a `DecomposerVocabulary` (`vocabulary`) built from the tool cards.
`LLMDecomposer` (`llm`) asks an OpenAI-compatible chat endpoint, validates the answer
strictly and falls back to another decomposer on any failure. `make_decomposer` picks
one from the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from serving.decompose.llm import (
    ENV_ENDPOINT,
    DecomposerConfigError,
    LLMAnswerError,
    LLMDecomposer,
    parse_decomposition,
)
from serving.decompose.protocol import Decomposer
from serving.decompose.rules import RuleDecomposer
from serving.decompose.vocabulary import CONNECTION_ALIAS_GROUPS, DecomposerVocabulary, ToolRef

__all__ = [
    "CONNECTION_ALIAS_GROUPS",
    "DecomposerConfigError",
    "Decomposer",
    "DecomposerVocabulary",
    "LLMAnswerError",
    "LLMDecomposer",
    "RuleDecomposer",
    "ToolRef",
    "make_decomposer",
    "parse_decomposition",
]


def make_decomposer(
    vocab: DecomposerVocabulary, env: Mapping[str, str] | None = None
) -> Decomposer:
    """The rule decomposer, or an LLM one (with the rules as fallback) when configured.

    Raises `DecomposerConfigError` when `TOOLSIFT_LLM_ENDPOINT` is set but the rest of
    the configuration is missing or invalid, so a bad setup fails at startup.
    """
    env = os.environ if env is None else env
    rules = RuleDecomposer(vocab)
    if not env.get(ENV_ENDPOINT, "").strip():
        return rules
    return LLMDecomposer.from_env(rules, env, vocab=vocab)

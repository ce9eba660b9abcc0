"""`LLMDecomposer`: decomposition by an OpenAI-compatible chat endpoint.

The answer is validated strictly (`parse_decomposition`); on any transport or validation
failure the fallback decomposer (the rules) answers instead. Configured from the
`TOOLSIFT_LLM_*` environment variables.
"""

from __future__ import annotations

import json
import logging
import os
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from serving.decompose.protocol import Decomposer
from serving.decompose.vocabulary import DecomposerVocabulary
from serving.model.selection import Subgoal
from serving.model.vocab import OPERATIONS, Operation

log = logging.getLogger(__name__)

ENV_ENDPOINT = "TOOLSIFT_LLM_ENDPOINT"
ENV_MODEL = "TOOLSIFT_LLM_MODEL"
ENV_API_KEY = "TOOLSIFT_LLM_API_KEY"
ENV_TIMEOUT_S = "TOOLSIFT_LLM_TIMEOUT_S"


class DecomposerConfigError(ValueError):
    """The decomposer cannot be built from its configuration (raised at startup)."""


class LLMAnswerError(ValueError):
    """The LLM's answer is not a valid decomposition; the message says what is wrong."""


_SYSTEM_PROMPT = """\
You split a request to a tool-using agent into subgoals, one for each tool call the \
agent will need. Reply with one JSON object and nothing else:
{{"subgoals": [{{"text": "...", "operations": ["..."], "entities": ["..."], \
"required_access": ["..."], "mutation": false}}]}}
Rules:
- text: the step in the user's own words, self-contained: repeat the names (services, \
repos, channels, ids, exact tool ids) it needs from the rest of the request.
- operations: what the step does, only from these names: {operations}.
- mutation: true if and only if an operation changes something; these do: {mutating}.
- entities: the kinds of object the step acts on, lowercase with underscores \
(e.g. "pull_request", "rollout").
- required_access: the products or connections the step names, lowercase{connections}; \
[] if none.
- A sentence that only gives context (e.g. what failed) is not a subgoal; fold what it \
says into the steps it concerns.
- Return at least one subgoal."""


@dataclass(frozen=True, slots=True)
class LLMDecomposer:
    """Decompose with an OpenAI-compatible chat endpoint; fall back on any failure.

    `endpoint` is the API base (e.g. `http://localhost:8000/v1`); the request goes to
    `{endpoint}/chat/completions`. With a `vocab`, connections in the answer are mapped
    to the catalog's names and listed in the prompt.
    """

    endpoint: str
    model: str
    _: KW_ONLY
    fallback: Decomposer
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 10.0
    vocab: DecomposerVocabulary | None = field(default=None, repr=False)
    operations: Mapping[str, Operation] = field(default_factory=lambda: OPERATIONS, repr=False)

    def __post_init__(self) -> None:
        scheme = urllib.parse.urlsplit(self.endpoint).scheme
        if scheme not in ("http", "https"):
            raise DecomposerConfigError(f"{ENV_ENDPOINT}: {self.endpoint!r} is not an http(s) URL")
        if not self.model.strip():
            raise DecomposerConfigError(f"{ENV_MODEL}: empty model name")
        if not self.timeout_s > 0:
            raise DecomposerConfigError(f"timeout_s: expected > 0, got {self.timeout_s}")

    @classmethod
    def from_env(
        cls,
        fallback: Decomposer,
        env: Mapping[str, str] | None = None,
        *,
        vocab: DecomposerVocabulary | None = None,
    ) -> LLMDecomposer:
        """Build from `TOOLSIFT_LLM_*`; raises `DecomposerConfigError` when incomplete."""
        env = os.environ if env is None else env
        endpoint = env.get(ENV_ENDPOINT, "").strip()
        model = env.get(ENV_MODEL, "").strip()
        if not endpoint:
            raise DecomposerConfigError(f"{ENV_ENDPOINT} is not set")
        if not model:
            raise DecomposerConfigError(f"{ENV_MODEL} is not set (needed with {ENV_ENDPOINT})")
        raw_timeout = env.get(ENV_TIMEOUT_S, "").strip()
        try:
            timeout_s = float(raw_timeout) if raw_timeout else 10.0
        except ValueError:
            raise DecomposerConfigError(
                f"{ENV_TIMEOUT_S}: {raw_timeout!r} is not a number"
            ) from None
        return cls(
            endpoint,
            model,
            fallback=fallback,
            api_key=env.get(ENV_API_KEY, "").strip() or None,
            timeout_s=timeout_s,
            vocab=vocab,
        )

    def system_prompt(self) -> str:
        connections = ""
        if self.vocab is not None and self.vocab.connections:
            names = sorted(set(self.vocab.connections.values()))
            connections = " (known: " + ", ".join(names) + ")"
        return _SYSTEM_PROMPT.format(
            operations=", ".join(self.operations),
            mutating=", ".join(n for n, op in self.operations.items() if op.mutates),
            connections=connections,
        )

    def decompose(self, request: str) -> list[Subgoal]:
        """Ask the endpoint; on any transport or validation error use the fallback."""
        if not request.strip():
            return self.fallback.decompose(request)
        # the HTTP stack loads on the first call: most runs configure no endpoint, and it
        # is a noticeable share of a one-shot CLI call's start
        import http.client
        import urllib.error

        try:
            content = self._complete(request)
            return parse_decomposition(content, operations=self.operations, vocab=self.vocab)
        except urllib.error.HTTPError as err:
            reason = f"HTTP {err.code} {err.reason}"
        except (OSError, http.client.HTTPException) as err:  # refused, timeout, reset
            reason = f"{type(err).__name__}: {err}"
        except ValueError as err:  # bad JSON, bad shape (LLMAnswerError)
            reason = f"{type(err).__name__}: {err}"
        log.warning(
            "LLM decomposer at %s failed (%s); using %s",
            self.endpoint,
            reason,
            type(self.fallback).__name__,
        )
        return self.fallback.decompose(request)

    def _complete(self, request: str) -> str:
        return chat_completion(
            self.endpoint,
            self.model,
            [
                {"role": "system", "content": self.system_prompt()},
                {"role": "user", "content": request},
            ],
            api_key=self.api_key,
            timeout_s=self.timeout_s,
        )


def chat_completion(
    endpoint: str,
    model: str,
    messages: Sequence[Mapping[str, str]],
    *,
    api_key: str | None = None,
    timeout_s: float = 10.0,
) -> str:
    """POST `messages` to `{endpoint}/chat/completions` (JSON mode, temperature 0) and
    return the first choice's content. Raises `urllib.error.HTTPError`, `OSError` or
    `http.client.HTTPException` on transport failures, `ValueError` (`LLMAnswerError`)
    on a malformed response; shared by every `TOOLSIFT_LLM_*` client."""
    import urllib.request

    body = {
        "model": model,
        "messages": [dict(m) for m in messages],
        "response_format": {"type": "json_object"},
        "temperature": 0,
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    http_request = urllib.request.Request(
        endpoint.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode("utf-8"),
        headers=headers,
        method="POST",
    )
    with urllib.request.urlopen(http_request, timeout=timeout_s) as response:  # noqa: S310
        payload = json.loads(response.read().decode("utf-8"))
    return _message_content(payload)


def _message_content(payload: Any) -> str:
    if not isinstance(payload, Mapping):
        raise LLMAnswerError("response: expected a JSON object")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices:
        raise LLMAnswerError("response.choices: expected a non-empty list")
    message = choices[0].get("message") if isinstance(choices[0], Mapping) else None
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, str):
        raise LLMAnswerError("response.choices[0].message.content: expected a string")
    return content


def parse_decomposition(
    content: str,
    *,
    operations: Mapping[str, Operation] = OPERATIONS,
    vocab: DecomposerVocabulary | None = None,
) -> list[Subgoal]:
    """Validate an LLM's `{"subgoals": [...]}` answer strictly; raise `LLMAnswerError`."""
    text = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise LLMAnswerError(f"content is not JSON: {err}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("subgoals"), list):
        raise LLMAnswerError("expected an object with a list 'subgoals'")
    if not data["subgoals"]:
        raise LLMAnswerError("subgoals: empty")
    out = []
    for i, raw in enumerate(data["subgoals"]):
        where = f"subgoals[{i}]"
        if not isinstance(raw, Mapping):
            raise LLMAnswerError(f"{where}: expected an object")
        missing = [
            k
            for k in ("text", "operations", "entities", "required_access", "mutation")
            if k not in raw
        ]
        if missing:
            raise LLMAnswerError(f"{where}: missing {', '.join(missing)}")
        text_value = raw["text"]
        if not isinstance(text_value, str) or not text_value.strip():
            raise LLMAnswerError(f"{where}.text: expected a non-empty string")
        ops = _strings(raw["operations"], f"{where}.operations")
        unknown = [o for o in ops if o not in operations]
        if unknown:
            raise LLMAnswerError(f"{where}.operations: unknown {', '.join(map(repr, unknown))}")
        mutation = raw["mutation"]
        if not isinstance(mutation, bool):
            raise LLMAnswerError(f"{where}.mutation: expected true or false")
        if ops and mutation != any(operations[o].mutates for o in ops):
            raise LLMAnswerError(f"{where}.mutation: {mutation} disagrees with operations {ops}")
        entities = [_entity_name(e, vocab) for e in _strings(raw["entities"], f"{where}.entities")]
        access = [
            _connection_name(a, vocab)
            for a in _strings(raw["required_access"], f"{where}.required_access")
        ]
        out.append(
            Subgoal(
                text=text_value.strip(),
                operations=tuple(dict.fromkeys(ops)),
                entities=tuple(dict.fromkeys(e for e in entities if e)),
                required_access=tuple(dict.fromkeys(a for a in access if a)),
                mutation=mutation,
                # the prompt asks for the products the step names, so they are named
                named_access=tuple(dict.fromkeys(a for a in access if a)),
            )
        )
    return out


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LLMAnswerError(f"{where}: expected a list of strings")
    return [v.strip() for v in value]


def _entity_name(value: str, vocab: DecomposerVocabulary | None) -> str:
    key = " ".join(value.lower().split())
    if vocab is not None and key in vocab.entities:
        return vocab.entities[key]
    return key.replace(" ", "_")


def _connection_name(value: str, vocab: DecomposerVocabulary | None) -> str:
    key = " ".join(value.lower().split())
    if vocab is not None and key in vocab.connections:
        return vocab.connections[key]
    return key

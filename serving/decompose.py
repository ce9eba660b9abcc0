"""Step 1 of the runtime pipeline: split a request into subgoals.

Two decomposers share one protocol. `RuleDecomposer` is offline and deterministic: it
splits on sentence and clause boundaries, reads operations off the verbs in
`serving.vocab.OPERATIONS`, and finds entities and connections from a vocabulary built
from the tool cards. `LLMDecomposer` asks an OpenAI-compatible chat endpoint, validates
the answer strictly and falls back to another decomposer on any failure.
`make_decomposer` picks one from the environment.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Protocol

from serving.schema import ToolCard
from serving.types import Subgoal
from serving.vocab import OPERATIONS, Operation, parse_capability

log = logging.getLogger(__name__)

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

ENV_ENDPOINT = "TOOLSIFT_LLM_ENDPOINT"
ENV_MODEL = "TOOLSIFT_LLM_MODEL"
ENV_API_KEY = "TOOLSIFT_LLM_API_KEY"
ENV_TIMEOUT_S = "TOOLSIFT_LLM_TIMEOUT_S"

# Names users say for the same connection. When any member is a connection or server in
# the catalog, every member maps to that connection.
CONNECTION_ALIAS_GROUPS: tuple[tuple[str, ...], ...] = (
    ("kubernetes", "k8s", "kube", "kubectl"),
    ("postgres", "postgresql", "psql"),
    ("pagerduty", "pager duty"),
    ("google_drive", "gdrive", "google drive"),
    ("gcp", "google cloud"),
    ("aws", "amazon web services"),
)


class DecomposerConfigError(ValueError):
    """The decomposer cannot be built from its configuration (raised at startup)."""


class LLMAnswerError(ValueError):
    """The LLM's answer is not a valid decomposition; the message says what is wrong."""


class Decomposer(Protocol):
    def decompose(self, request: str) -> list[Subgoal]:
        """Split a request into subgoals: at least one for any non-empty request."""
        ...


# --- vocabulary ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolRef:
    """What naming an exact tool id in a request implies."""

    connection: str
    operations: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DecomposerVocabulary:
    """Entities, connections and tool ids the rule decomposer recognises.

    Keys are lowercase surfaces as a user writes them: an entity surface is one token
    (`"pull_request"`) or space-separated words (`"pull requests"`).
    """

    entities: Mapping[str, str] = field(default_factory=dict)  # surface -> entity
    connections: Mapping[str, str] = field(default_factory=dict)  # alias -> connection
    tools: Mapping[str, ToolRef] = field(default_factory=dict)  # lowercase tool id -> ref

    @classmethod
    def from_cards(
        cls,
        cards: Iterable[ToolCard],
        *,
        alias_groups: Iterable[Sequence[str]] = CONNECTION_ALIAS_GROUPS,
    ) -> DecomposerVocabulary:
        """Collect the vocabulary; the result does not depend on card order."""
        cards = sorted(cards, key=lambda c: c.tool_id)
        names: set[str] = set()
        server_connections: dict[str, Counter[str]] = {}
        tools: dict[str, ToolRef] = {}
        for card in cards:
            names.update(e.strip().lower() for e in card.entities)
            ops: list[str] = []
            for capability in card.capabilities:
                op, entity = parse_capability(capability)
                names.add(entity.strip().lower())
                if op in OPERATIONS and op not in ops:
                    ops.append(op)
            if card.connection:
                counts = server_connections.setdefault(card.server.lower(), Counter())
                counts[card.connection] += 1
            tools[card.tool_id.lower()] = ToolRef(card.connection, tuple(ops))

        entities: dict[str, str] = {}
        for name in sorted(n for n in names if len(n) > 1):
            for surface in _entity_surfaces(name):
                entities.setdefault(surface, name)

        connections: dict[str, str] = {}
        for name in sorted({c.connection for c in cards if c.connection}):
            for surface in _name_surfaces(name):
                connections.setdefault(surface, name)
        # Server names and aliases are weaker evidence than connection names: a server
        # called "docs" should not make "search the docs" require its connection, so
        # those that are also entity names are left out.
        weak: dict[str, str] = {}
        for server, counts in sorted(server_connections.items()):
            # the connection most of the server's cards need, ties broken by name
            best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            for surface in _name_surfaces(server):
                weak.setdefault(surface, best)
        for group in alias_groups:
            known = [
                connections.get(m.lower()) or weak[m.lower()]
                for m in group
                if m.lower() in connections or m.lower() in weak
            ]
            if known:
                for member in group:
                    for surface in _name_surfaces(member):
                        weak.setdefault(surface, known[0])
        for surface, name in weak.items():
            if surface not in entities:
                connections.setdefault(surface, name)
        return cls(entities=entities, connections=connections, tools=tools)


def _name_surfaces(name: str) -> list[str]:
    base = name.strip().lower()
    out = [base, base.replace("_", " "), base.replace("-", " "), base.replace("_", "-")]
    return list(dict.fromkeys(s for s in out if s))


def _plural(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    return word + "s"


def _singular(word: str) -> str | None:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not re.search(r"(ss|us|is)$", word) and len(word) > 3:
        return word[:-1]
    return None


def _entity_surfaces(name: str) -> list[str]:
    """`"pull_request"` -> pull_request, pull request, pull requests, pull-request ..."""
    out = _name_surfaces(name)
    spaced = re.sub(r"[_\-]+", " ", name).strip()
    head, _, last = spaced.rpartition(" ")
    prefix = head + " " if head else ""
    out.append(prefix + _plural(last))
    singular = _singular(last)
    if singular:
        out.append(prefix + singular)
    return list(dict.fromkeys(out))


# --- rule-based decomposer ----------------------------------------------------------

_NO_OPERATION = ""
# Phrases the vocabulary lacks. The first group are question forms ("Find what changed"
# is a read over history); the second are idioms whose first word is a mutating verb in
# the vocabulary ("take", "make", "let"), so without them "take a look" would acknowledge.
_EXTRA_PHRASES: dict[str, str] = {
    "what changed": "list",
    "what's changed": "list",
    "what has changed": "list",
    "what was changed": "list",
    "what's": "get",
    "how many": "query",
    "take a look at": "get",
    "take a look": "get",
    "have a look at": "get",
    "make sure": "get",
    # reporting back to the user is the agent's answer, not a tool call
    "let me know": _NO_OPERATION,
    "let us know": _NO_OPERATION,
    "keep me posted": _NO_OPERATION,
    "keep me updated": _NO_OPERATION,
    "look into": "search",
    "dig into": "search",
    "investigate": "search",
    "figure out": "search",
}
# Question forms also count right after another verb ("find what changed").
_WH_WORDS = ("what", "which", "how")
# Two-word verbs whose particle may come after the object ("roll it back").
_PARTICLES = frozenset({"back", "up", "off", "out", "know"})
# A verb counts only in imperative position: first in its clause or after one of these.
# This is what keeps "The checkout-service deploy failed" and "post the update" from
# reading "deploy" and "update" as operations.
_LEAD_INS = frozenset(
    "please pls plz kindly to you can could would will should must let's lets and then also "
    "first next now just quickly immediately finally go so otherwise or but me us we i plus "
    "afterwards again asap".split()
)
_PUNCT_LEAD = frozenset(',;:([{"“—–')
# A mutating verb followed directly by one of these is a noun modifier ("deploy status").
_NOUN_TAILS = frozenset(
    "status statuses log logs history failure failures error errors result results output "
    "outputs time times queue settings config permissions info details conflict conflicts "
    "thread threads id ids number link url".split()
)
_PRONOUNS = frozenset({"it", "them", "those", "these", "they"})
_STOPWORDS = frozenset(
    "the a an our my your their its this that these those we i it they yesterday today tonight "
    "tomorrow last please and then also if when after before for on in at of to from with".split()
)

_CONNECTOR = (
    r"(?:and\s+then|and\s+also|and\s+finally|and\s+after\s+that|after\s+that|afterwards"
    r"|and|then|also|finally|plus)"
)
_BOUNDARY_RE = re.compile(rf"\s*[,:](?=\s)\s*(?:{_CONNECTOR}\b\s*)?|\s+{_CONNECTOR}\s+", re.I)
_LEADING_CONNECTORS_RE = re.compile(rf"^(?:[\s,;:]|{_CONNECTOR}\b|so\b)+", re.I)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|[;\n]+\s*")
_QUOTED_RE = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")
_TOKEN_RE = re.compile(r"[#@]?\w(?:[\w\-.:@]*\w)?")
_IDENT_RE = re.compile(r"[#@]?\w(?:[\w\-./:@]*\w)?")
_CHUNK_RE = re.compile(r"[^\s`'\"“”‘’()\[\]{}<>,;]+")
_NON_SPACE_RE = re.compile(r"\S")
_PREV_TOKEN_RE = re.compile(r"([\w'’\-.#@/]+|[^\w\s])\s*$")


@dataclass(frozen=True, slots=True)
class _Verb:
    start: int
    end: int
    operation: str
    wh: bool


@dataclass(frozen=True, slots=True)
class _Clause:
    start: int
    end: int
    sentence: int
    operations: tuple[str, ...]
    entities: tuple[str, ...]
    access: tuple[str, ...]
    salient: tuple[str, ...]
    elliptical: bool  # no entity of its own, and a pronoun or nothing but the verb

    @property
    def is_context(self) -> bool:
        return not self.operations


@dataclass(frozen=True, slots=True)
class _Table:
    """Names keyed by their tokens, for longest-match lookup over a request's tokens."""

    names: Mapping[tuple[str, ...], str]
    longest: int

    @classmethod
    def of(cls, surfaces: Mapping[str, str]) -> _Table:
        names = {tuple(k.split()): v for k, v in surfaces.items()}
        return cls(names, max((len(k) for k in names), default=0))


class RuleDecomposer:
    """Offline, deterministic decomposition from verbs, entities and product names."""

    __slots__ = (
        "_connections",
        "_entities",
        "_particle_res",
        "_verb_re",
        "_verbs",
        "_vocab",
        "_operations",
    )

    def __init__(
        self,
        vocab: DecomposerVocabulary,
        *,
        operations: Mapping[str, Operation] = OPERATIONS,
    ) -> None:
        self._vocab = vocab
        self._operations = operations
        verbs: dict[str, str] = {}
        for op in operations.values():
            for verb in op.verbs:
                verbs.setdefault(verb.lower(), op.name)
        for phrase, op_name in _EXTRA_PHRASES.items():
            if op_name in operations or op_name == _NO_OPERATION:
                verbs[phrase] = op_name
        self._verbs = verbs
        # longest first, so "tell me" (get) wins over "tell" (send)
        alternatives = sorted(verbs, key=lambda v: (-len(v), v))
        body = "|".join(r"\s+".join(re.escape(w) for w in v.split()) for v in alternatives)
        self._verb_re = re.compile(rf"(?<![\w\-.#@/'’])(?:{body})(?![\w\-]|[./]\w)")
        particles = []
        for verb, op_name in sorted(verbs.items()):
            words = verb.split()
            if len(words) == 2 and words[1] in _PARTICLES:
                pattern = re.compile(
                    rf"(?<![\w\-.#@/]){re.escape(words[0])}\s+(?:[\w'’#@.\-]+\s+){{1,3}}?"
                    rf"{re.escape(words[1])}(?![\w\-])"
                )
                particles.append((pattern, op_name))
        self._particle_res = tuple(particles)
        self._entities = _Table.of(vocab.entities)
        self._connections = _Table.of(vocab.connections)

    @property
    def vocab(self) -> DecomposerVocabulary:
        return self._vocab

    def __repr__(self) -> str:
        v = self._vocab
        return (
            f"RuleDecomposer(entities={len(v.entities)}, connections={len(v.connections)}, "
            f"tools={len(v.tools)})"
        )

    def decompose(self, request: str) -> list[Subgoal]:
        """Split `request` into subgoals; [] only for an empty request."""
        if not request.strip():
            return []
        masked = _mask_quotes(request)
        clauses: list[_Clause] = []
        for n, (lo, hi) in enumerate(_sentences(masked)):
            clauses.extend(self._sentence_clauses(request, masked, lo, hi, n))
        actions = [i for i, c in enumerate(clauses) if not c.is_context]
        if not actions:
            whole = self._analyse(request, masked, 0, len(request), sentence=0)
            return [
                Subgoal(text=request.strip(), entities=whole.entities, required_access=whole.access)
            ]
        return [self._subgoal(request, clauses, i, actions) for i in actions]

    # -- assembling -------------------------------------------------------------------

    def _subgoal(self, request: str, clauses: list[_Clause], i: int, actions: list[int]) -> Subgoal:
        clause = clauses[i]
        text = _clause_text(request, clause.start, clause.end)
        entities = list(clause.entities)
        access = list(clause.access)
        extra: list[str] = []
        # Context clauses ask for nothing, but their names are what the steps act on:
        # "The checkout-service deploy failed. ... check the rollout" must retrieve with
        # "checkout-service". We append only their salient items (identifiers, product
        # names, known entities), not the whole clause, so the step's own verb and object
        # still dominate what it retrieves and a context verb ("deploy failed") cannot
        # pull a read step toward write tools. A context clause applies to the steps after
        # it; one that comes after every step applies to the steps before it.
        for j, ctx in enumerate(clauses):
            if not ctx.is_context:
                continue
            later = any(a > j for a in actions)
            if (later and j < i) or (not later and j > i):
                extra.extend(ctx.salient)
                # a framing phrase in the same sentence ("On GitHub, list ...") also
                # names the connection the step needs
                if ctx.sentence == clause.sentence:
                    access.extend(a for a in ctx.access if a not in access)
        if clause.elliptical:
            # "restart them": the object is the most recent thing mentioned
            previous = next((c for c in reversed(clauses[:i]) if c.entities), None)
            if previous is not None:
                entities = list(previous.entities)
                extra.extend(e.replace("_", " ") for e in previous.entities)
        suffix: dict[str, str] = {}  # lowercase -> as written, first spelling wins
        for item in extra:
            if item.lower() not in text.lower():
                suffix.setdefault(item.lower(), item)
        if suffix:
            text = f"{text} ({', '.join(suffix.values())})"
        mutation = any(self._operations[o].mutates for o in clause.operations)
        return Subgoal(
            text=text,
            operations=clause.operations,
            entities=tuple(dict.fromkeys(entities)),
            required_access=tuple(dict.fromkeys(access)),
            mutation=mutation,
        )

    # -- splitting --------------------------------------------------------------------

    def _sentence_clauses(
        self, request: str, masked: str, lo: int, hi: int, sentence: int
    ) -> list[_Clause]:
        segments = _segments(masked, lo, hi)
        verbs = [self._verbs_in(request, masked, s, e) for s, e in segments]
        groups: list[tuple[int, int]] = []  # action clauses as spans
        framing: tuple[int, int] | None = None
        current: tuple[int, int] | None = None
        current_bare = False
        for (s, e), seg_verbs in zip(segments, verbs, strict=True):
            if seg_verbs:
                if current is None:
                    current = (s, e)
                elif current_bare:
                    # "find and delete the stale branches": a bare verb joins the next one
                    current = (current[0], e)
                else:
                    groups.append(current)
                    current = (s, e)
                current_bare = _is_bare(masked, s, e, seg_verbs) and current == (s, e)
            elif current is None:
                framing = (framing[0] if framing else s, e)
            else:
                # "check the logs and metrics": no verb, so it continues the clause
                current = (current[0], e)
                current_bare = False
        if current is not None:
            groups.append(current)
        out = []
        if framing is not None:
            out.append(self._analyse(request, masked, *framing, sentence=sentence, context=True))
        out.extend(self._analyse(request, masked, s, e, sentence=sentence) for s, e in groups)
        return out

    def _analyse(
        self,
        request: str,
        masked: str,
        start: int,
        end: int,
        *,
        sentence: int,
        context: bool = False,
    ) -> _Clause:
        verbs = [] if context else self._verbs_in(request, masked, start, end)
        verb_spans = [(v.start, v.end) for v in verbs if v.operation != "_tool"]
        entities = [
            (pos, name)
            for pos, stop, name in self._find(request, start, end, self._entities)
            if not any(vs < stop and pos < ve for vs, ve in verb_spans)
        ]
        found = self._find(request, start, end, self._connections)
        access = [(pos, name) for pos, _, name in found]
        operations: list[str] = []
        for verb in verbs:
            if verb.operation == "_tool":
                ref = self._vocab.tools[request[verb.start : verb.end].lower()]
                operations.extend(ref.operations)
                if ref.connection:
                    access.append((verb.start, ref.connection))
            else:
                operations.append(verb.operation)
        access.sort()
        salient: tuple[str, ...] = ()
        if not verbs:
            salient = self._salient(request, start, end)
        bare = bool(verbs) and _is_bare(masked, start, end, verbs)
        pronoun = any(t.lower() in _PRONOUNS for t in re.findall(r"\w+", masked[start:end]))
        return _Clause(
            start=start,
            end=end,
            sentence=sentence,
            operations=tuple(dict.fromkeys(operations)),
            entities=tuple(dict.fromkeys(name for _, name in entities)),
            access=tuple(dict.fromkeys(name for _, name in access)),
            salient=salient,
            elliptical=not entities and (bare or pronoun),
        )

    # -- matching ---------------------------------------------------------------------

    def _verbs_in(self, request: str, masked: str, start: int, end: int) -> list[_Verb]:
        """Operation verbs in imperative position, plus exact tool ids (as `_tool`)."""
        text = masked[start:end].lower().replace("’", "'")
        claimed: list[_Verb] = []
        for m in self._verb_re.finditer(text):
            phrase = " ".join(m.group().split())
            claimed.append(
                _Verb(m.start(), m.end(), self._verbs[phrase], phrase.startswith(_WH_WORDS))
            )
        for pattern, op_name in self._particle_res:
            for m in pattern.finditer(text):
                if not any(v.start < m.end() and m.start() < v.end for v in claimed):
                    claimed.append(_Verb(m.start(), m.end(), op_name, False))
        claimed.sort(key=lambda v: v.start)
        tools = [
            _Verb(pos - start, stop - start, "_tool", False)
            for pos, stop in _chunks(request, start, end)
            if request[pos:stop].lower() in self._vocab.tools
        ]
        entity_starts = {
            pos - start: stop - start
            for pos, stop, _ in self._find(request, start, end, self._entities)
        }
        counted: list[_Verb] = []
        for verb in claimed:
            prev = _prev_token(text, verb.start)
            ok = prev is None or prev in _PUNCT_LEAD or prev in _LEAD_INS
            if not ok and verb.wh and counted:
                ok = not text[counted[-1].end : verb.start].strip()
            following = text[verb.end :].split(maxsplit=1)
            operation = self._operations.get(verb.operation)
            if ok and operation is not None and operation.mutates and following:
                ok = following[0].strip(".,;:!?") not in _NOUN_TAILS
            if ok and entity_starts.get(verb.start, verb.end) > verb.end:
                ok = False  # the verb opens a known entity name ("merge requests")
            if ok and any(t.start == _next_start(text, verb.end) for t in tools):
                ok = False  # "run github.list_commits": the tool says what happens
            if ok:
                counted.append(verb)
        counted = [v for v in counted if v.operation != _NO_OPERATION]
        merged = sorted(counted + tools, key=lambda v: v.start)
        return [_Verb(v.start + start, v.end + start, v.operation, v.wh) for v in merged]

    def _find(
        self, request: str, start: int, end: int, table: _Table
    ) -> list[tuple[int, int, str]]:
        """Longest token n-grams of `request[start:end]` found in `table`, in order."""
        tokens = _tokens(request, start, end)
        out = []
        i = 0
        while i < len(tokens):
            for n in range(min(table.longest, len(tokens) - i), 0, -1):
                key = tuple(t for _, _, t in tokens[i : i + n])
                if key in table.names and _contiguous(request, tokens[i : i + n]):
                    out.append((tokens[i][0], tokens[i + n - 1][1], table.names[key]))
                    i += n
                    break
            else:
                i += 1
        return out

    def _salient(self, request: str, start: int, end: int) -> tuple[str, ...]:
        """Names in a context clause worth carrying: identifiers, products, entities."""
        items: list[tuple[int, str]] = []
        for table in (self._entities, self._connections):
            found = self._find(request, start, end, table)
            items.extend((pos, request[pos:stop]) for pos, stop, _ in found)
        for m in _QUOTED_RE.finditer(request, start, end):
            items.append((m.start(), m.group()))
        first = True
        for m in _IDENT_RE.finditer(request, start, end):
            token = m.group()
            is_ident = bool(re.search(r"[\-_./:#@]", token)) or (
                bool(re.search(r"\d", token)) and bool(re.search(r"[A-Za-z]", token))
            )
            is_proper = (
                not first
                and token[:1].isupper()
                and token.lower() not in _STOPWORDS
                and len(token) > 1
            )
            if (is_ident or is_proper) and token.lower() not in _STOPWORDS:
                items.append((m.start(), token))
            first = False
        items.sort()
        seen: dict[str, str] = {}
        for _, item in items:
            if not any(item.lower() in other.lower() for other in seen.values()):
                seen.setdefault(item.lower(), item)
        return tuple(seen.values())


def _mask_quotes(text: str) -> str:
    """Hide quoted text from verb and boundary detection, keeping every offset."""
    return _QUOTED_RE.sub(lambda m: m.group()[0] + "_" * (len(m.group()) - 2) + m.group()[-1], text)


def _sentences(masked: str) -> list[tuple[int, int]]:
    out = []
    pos = 0
    for m in _SENTENCE_END_RE.finditer(masked):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(masked)))
    return [(s, e) for s, e in out if masked[s:e].strip(" \t.!?")]


def _segments(masked: str, lo: int, hi: int) -> list[tuple[int, int]]:
    out = []
    pos = lo
    for m in _BOUNDARY_RE.finditer(masked, lo, hi):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, hi))
    return [(s, e) for s, e in out if masked[s:e].strip(" \t.!?")]


def _is_bare(masked: str, start: int, end: int, verbs: Sequence[_Verb]) -> bool:
    """True when the span holds nothing but its verbs and lead-in words ("find and")."""
    chars = list(masked[start:end].lower())
    for v in verbs:
        if v.operation == "_tool" or v.wh:  # "find what changed" has its object
            return False
        for k in range(v.start - start, v.end - start):
            chars[k] = " "
    words = re.findall(r"[\w'’]+", "".join(chars))
    return all(w in _LEAD_INS for w in words)


def _tokens(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    return [
        (m.start(), m.end(), m.group().lower().replace("’", "'"))
        for m in _TOKEN_RE.finditer(text, start, end)
    ]


def _chunks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Whitespace-separated chunks without wrapping quotes or trailing punctuation: the
    candidates for exact tool ids, which may hold any non-space character."""
    out = []
    for m in _CHUNK_RE.finditer(text, start, end):
        stop = m.start() + len(m.group().rstrip(".:!?"))
        out.append((m.start(), stop))
    return out


def _prev_token(text: str, pos: int) -> str | None:
    m = _PREV_TOKEN_RE.search(text, 0, pos)
    return m.group(1) if m else None


def _next_start(text: str, pos: int) -> int:
    m = _NON_SPACE_RE.search(text, pos)
    return m.start() if m else len(text)


def _contiguous(text: str, tokens: Sequence[tuple[int, int, str]]) -> bool:
    """Multi-word names must be separated by whitespace only ("pull request")."""
    return all(not text[a[1] : b[0]].strip() for a, b in zip(tokens, tokens[1:], strict=False))


def _clause_text(request: str, start: int, end: int) -> str:
    text = request[start:end].strip()
    text = _LEADING_CONNECTORS_RE.sub("", text)
    return text.rstrip(" \t.,;:!?")


# --- LLM-backed decomposer ----------------------------------------------------------

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
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": self.system_prompt()},
                {"role": "user", "content": request},
            ],
            "response_format": {"type": "json_object"},
            "temperature": 0,
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        http_request = urllib.request.Request(
            self.endpoint.rstrip("/") + "/chat/completions",
            data=json.dumps(body).encode("utf-8"),
            headers=headers,
            method="POST",
        )
        with urllib.request.urlopen(http_request, timeout=self.timeout_s) as response:  # noqa: S310
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


# --- factory ------------------------------------------------------------------------


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

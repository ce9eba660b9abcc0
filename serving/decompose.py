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
from dataclasses import KW_ONLY, dataclass, field, replace
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
# The last group are requests phrased as a need ("I need the pods of billing-api"): too
# often nouns or other verbs elsewhere for the shared vocabulary, which the importers
# also read tool names with ("pull" is git's).
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
    "need": "get",
    "want": "get",
    "pull": "get",
}
# "I need to restart it": the need is not the step, the verb after "to" is.
_INTENT_VERBS = frozenset({"need", "want"})
# Question forms also count right after another verb ("find what changed").
_WH_WORDS = ("what", "which", "how")
# Two-word verbs whose particle may come after the object ("roll it back").
_PARTICLES = frozenset({"back", "up", "off", "out", "know"})
# A verb counts only in imperative position: first in its clause or after one of these
# (or after an adverb in -ly: "then permanently remove"). This is what keeps "The
# checkout-service deploy failed" and "post the update" from reading "deploy" and
# "update" as operations.
_LEAD_INS = frozenset(
    "please pls plz kindly to you can could would will should must let's lets and then also "
    "first next now just quickly immediately finally go so otherwise or but me us we i plus "
    "afterwards again asap ahead i'd we'd like help try ok okay hey hi lgtm actually maybe "
    "really".split()
)
# -ly words that are adjectives: "the weekly run" is not "run".
_LY_ADJECTIVES = frozenset(
    "only early daily weekly monthly hourly yearly nightly quarterly biweekly friendly likely "
    "family supply reply apply july italy assembly anomaly holy ugly silly rely fly".split()
)
_PUNCT_LEAD = frozenset(',;:([{"“—–-')
# A mutating verb followed directly by one of these is a noun modifier ("deploy status").
_NOUN_TAILS = frozenset(
    "status statuses log logs history failure failures error errors result results output "
    "outputs time times queue settings config permissions info details conflict conflicts "
    "thread threads id ids number link url rate rates".split()
)
_PRONOUNS = frozenset({"it", "them", "those", "these", "they"})
# A step whose object is one of these and nothing else refers back ("update it"); not
# "this"/"that", which are as often determiners ("this month's bill").
_BACK_REFERENCES = frozenset({"it", "them"})
_STOPWORDS = frozenset(
    "the a an our my your their its this that these those we i it they yesterday today tonight "
    "tomorrow last please and then also if when after before for on in at of to from with".split()
)
# Words that carry no request of their own ("lgtm, approve ...", "thanks!").
_FILLERS = frozenset(
    "lgtm ok okay thanks thank thx cheers hi hey hello pls plz please asap urgent quick one "
    "question btw fyi so hmm well sure yes no great cool done now again just you team folks "
    "everyone all guys".split()
)
# A verbless phrase starting with one of these frames the step after it ("on WEB-9119,
# set the priority to P2"; "In Calendly: ..."; "once the build passes, merge it").
_FRAMING_WORDS = frozenset(
    "on in for at from over under using via with within inside regarding re about per across "
    "through as if once when after before since because given".split()
)
# What may surround a product or tool name in a phrase that only says where a step
# happens: "(this is in Stripe)", "using Box", "over in Box", "via mongodb.deleteDocument".
_QUALIFIER_WORDS = frozenset(
    "this that it is it's its all everything over in on using use via with through thru from "
    "for the our my please pls by inside within at app account workspace instance org tool "
    "api side one do done".split()
)
# A verbless sentence that says what happened is context, not a request: a subject
# pronoun first ("we agreed ..."), an auxiliary anywhere, or a past tense after a noun
# ("the deploy failed"). Not after a relative pronoun: "users who are deactivated".
_SUBJECTS = frozenset(
    "i we they he she it you there i'm we're they're it's there's i've we've they've".split()
)
_AUXILIARIES = frozenset(
    "is are was were am been being isn't aren't wasn't weren't has have had hasn't haven't "
    "hadn't does did doesn't didn't don't won't can't cannot couldn't shouldn't wouldn't "
    "keeps seems seemed appears appeared".split()
)
_PAST_EVENTS = frozenset(
    "failed crashed broke died errored stopped hung stalled spiked regressed happened went "
    "started began agreed decided discussed said asked mentioned noticed timed".split()
)
_MODALS = frozenset("should shall can could would will may might must do does did".split())
_NOT_A_SUBJECT = frozenset("that which who whose the a an my our your their all any no".split())
_WH_START = frozenset("what what's which who who's whom whose where where's when why how".split())
# "can you update the node and add the taint ...?": one edit, told in two verbs.
_EDIT_VERBS = frozenset({"update", "change", "modify", "edit"})
_ATTRIBUTE_VERBS = frozenset(
    {"set", "add", "remove", "change", "rename", "assign", "reassign", "label", "tag", "move"}
    | {"attach", "upload", "mark"}
)

_NEXT = r"(?:then|also|finally|plus|afterwards|after\s+that)"
# Boundaries between segments, named by how strongly they separate steps: `hard` ends a
# sentence or list item, `ask` follows a question mark, `next` says another step follows.
_SEPARATOR_RE = re.compile(
    r"(?P<hard>\s*;\s*|\s*\n\s*|\s+\+\s+|(?<=[.!])\s+)"
    r"|(?P<ask>(?<=\?)\s+)"
    rf"|(?P<next>\s*,\s*(?:and\s+)?{_NEXT}\b,?\s*|\s+(?:and\s+)?{_NEXT}\s+)"
    r"|(?P<comma>\s*,\s+(?:and\s+)?)"
    r"|(?P<and>\s+and\s+)",
    re.I,
)
_SEPARATOR_RANK = {"start": 5, "hard": 4, "ask": 3, "next": 2, "comma": 1, "and": 0}
_LEADING_CONNECTORS_RE = re.compile(
    r"^(?:[\s,;:+]|(?:and\s+then|and\s+also|and\s+finally|and\s+after\s+that|after\s+that"
    r"|afterwards|and|then|also|finally|plus)\b|so\b)+",
    re.I,
)
_TRAILING_CONNECTORS_RE = re.compile(r"(?:[\s,]+(?:and|or|then|also|plus))+$", re.I)
# "In Calendly: ..." at the start names the product for every step that names none.
_PREFIX_RE = re.compile(
    r"^\s*(?:over\s+)?(?:in|on|using|via|from|inside|within|through)\s+[^,:;.?!\n]{1,60}?"
    r"[:,](?=\s)",
    re.I,
)
_QUOTED_RE = re.compile(
    r"\"[^\"\n]*\"|“[^”\n]*”|‘[^’\n]*’|(?<![\w'’])'(?:[^'\n]|(?<=\w)'(?=\w))+'(?!\w)"
)
_TOKEN_RE = re.compile(r"[#@]?\w(?:[\w\-.:@]*\w)?")
_IDENT_RE = re.compile(r"[#@]?\w(?:[\w\-./:@]*\w)?")
_WORD_RE = re.compile(r"[\w'’]+")
_FIRST_WORD_RE = re.compile(r"[\w'’][\w'’\-]*")
_CHUNK_RE = re.compile(r"[^\s`'\"“”‘’()\[\]{}<>,;]+")
_NON_SPACE_RE = re.compile(r"\S")
_PREV_TOKEN_RE = re.compile(r"([\w'’\-.#@/]+|[^\w\s])\s*$")
_ADJACENT_RE = re.compile(r"(?:\s+(?:me|us))*\s+")


@dataclass(frozen=True, slots=True)
class _Verb:
    start: int
    end: int
    operation: str
    wh: bool
    phrase: str = ""


@dataclass(frozen=True, slots=True)
class _Segment:
    start: int
    end: int
    separator: str  # the boundary before it, a key of _SEPARATOR_RANK
    verbs: tuple[_Verb, ...]


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    part: int
    kind: str  # "action" (has a verb), "noun" (a verbless request) or "context"
    head: str = ""  # an action's first verb


@dataclass(frozen=True, slots=True)
class _Clause:
    start: int
    end: int
    sentence: int
    kind: str
    head: str
    operations: tuple[str, ...]
    entities: tuple[str, ...]
    access: tuple[str, ...]
    salient: tuple[str, ...]
    elliptical: bool  # no entity of its own, and a pronoun or nothing but the verb
    back_reference: bool  # no entity of its own, and "it" / "them" as object

    @property
    def is_context(self) -> bool:
        return self.kind == "context"


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
    """Offline, deterministic decomposition from verbs, entities and product names.

    The request is cut into segments at separators ranked by strength (sentence ends,
    ";", " + ", question marks, "also"/"then", commas, "and"; never at a colon: what
    follows one elaborates what precedes it). Segments group into steps: a segment with
    an imperative verb starts a step, unless it only elaborates an edit ("update the
    node and add the taint") or follows a bare verb ("find and delete"); a verbless one
    continues the step before it, frames the step after it ("on WEB-9119, set ..."), or,
    between strong separators, is a request of its own ("'timeout' in issues in
    acme/web") or context ("The deploy failed last night"). A phrase that only names a
    product or tool ("via mongodb.deleteDocument", "(this is in Stripe)") joins its step.
    """

    __slots__ = (
        "_connections",
        "_entities",
        "_gapped_res",
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
        # Verbs whose object may come inside them: "roll it back", "drop Dev a note".
        gapped = []
        for verb, op_name in sorted(verbs.items()):
            words = verb.split()
            if len(words) == 2 and words[1] in _PARTICLES:
                head, tail = words[0], words[1]
            elif len(words) >= 3 and words[1] in ("a", "an"):
                head, tail = words[0], " ".join(words[1:])
            else:
                continue
            tail_re = r"\s+".join(re.escape(w) for w in tail.split())
            pattern = re.compile(
                rf"(?<![\w\-.#@/]){re.escape(head)}\s+(?:[\w'’#@.\-]+\s+){{1,3}}?"
                rf"{tail_re}(?![\w\-])"
            )
            gapped.append((pattern, op_name, verb))
        self._gapped_res = tuple(gapped)
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
        spans = self._spans(request, masked, self._segments(request, masked))
        clauses = self._join_back_references(
            request, masked, [self._analyse(request, masked, s) for s in spans]
        )
        steps = [i for i, c in enumerate(clauses) if not c.is_context]
        if not any(clauses[i].kind == "action" for i in steps) and len(steps) < 2:
            # nothing to split: the whole request is the step ("Why is X slow?", or a
            # tool id with only a prefix's verbs: "run github.list_commits: checkout-api")
            return [self.annotate(request)]
        default_access = self._default_access(request, masked)
        return [self._subgoal(request, clauses, i, steps, default_access) for i in steps]

    def annotate(self, text: str) -> Subgoal:
        """`text` as one step, never split: its operations, entities and connections.
        Training uses it to replay a trace's subgoal the way the runtime saw it."""
        masked = _mask_quotes(text)
        whole = self._analyse(text, masked, _Span(0, len(text), 0, "action"))
        return Subgoal(
            text=text.strip(),
            operations=whole.operations,
            entities=whole.entities,
            required_access=whole.access,
            mutation=any(self._operations[o].mutates for o in whole.operations),
        )

    # -- assembling -------------------------------------------------------------------

    def _subgoal(
        self,
        request: str,
        clauses: list[_Clause],
        i: int,
        steps: list[int],
        default_access: Mapping[str, str],
    ) -> Subgoal:
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
            later = any(a > j for a in steps)
            if (later and j < i) or (not later and j > i):
                extra.extend(ctx.salient)
                # a framing phrase in the same sentence ("On GitHub, list ...") also
                # names the connection the step needs
                if ctx.sentence == clause.sentence:
                    access.extend(a for a in ctx.access if a not in access)
        if not access and default_access:
            # "In Calendly: cancel A, and create B": B happens in Calendly too
            access.extend(default_access)
            extra.extend(default_access.values())
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

    def _join_back_references(
        self, request: str, masked: str, clauses: list[_Clause]
    ) -> list[_Clause]:
        """ "we agreed to set the owner to Jin; please update it": one step, not two. A step
        whose only object is a pronoun and that does what the step before it does joins it."""
        out: list[_Clause] = []
        for clause in clauses:
            prev = out[-1] if out else None
            if (
                prev is not None
                and clause.kind == prev.kind == "action"
                and clause.back_reference
                and set(clause.operations) == set(prev.operations)
            ):
                span = _Span(prev.start, clause.end, prev.sentence, "action", prev.head)
                out[-1] = self._analyse(request, masked, span)
            else:
                out.append(clause)
        return out

    def _default_access(self, request: str, masked: str) -> dict[str, str]:
        """Connections named by a leading "In Calendly:" prefix -> the name as written."""
        m = _PREFIX_RE.match(masked)
        if m is None or self._verbs_in(request, masked, 0, m.end()):
            return {}
        found = self._find(request, 0, m.end(), self._connections)
        out: dict[str, str] = {}
        for pos, stop, name in found:
            out.setdefault(name, request[pos:stop])
        return out

    # -- splitting --------------------------------------------------------------------

    def _segments(self, request: str, masked: str) -> list[_Segment]:
        bounds: list[tuple[int, int, str]] = []  # (start, end, separator before)
        pos, separator = 0, "start"
        for m in _SEPARATOR_RE.finditer(masked):
            bounds.append((pos, m.start(), separator))
            pos, separator = m.end(), m.lastgroup or "comma"
        bounds.append((pos, len(masked), separator))
        out: list[_Segment] = []
        carried = ""  # the strongest separator before empty segments that were dropped
        for s, e, sep in bounds:
            if carried and _SEPARATOR_RANK[carried] > _SEPARATOR_RANK[sep]:
                sep = carried
            if not masked[s:e].strip(" \t.!?,"):
                carried = sep
                continue
            carried = ""
            verbs = self._verbs_in(request, masked, s, e)
            body = _after_prefixes(masked, s, e)
            if all(v.operation == "_tool" and v.end <= body for v in verbs):
                verbs = []  # "run asana.updateTask: on DATA-8053, ...": the tool is a prefix
            out.append(_Segment(s, e, sep, tuple(verbs)))
        if len(out) > 1:
            # a segment that only names where the step happens has no verb of its own,
            # even when the name is a tool id ("via rancher.namespace_create")
            out = [
                _Segment(s.start, s.end, s.separator, ())
                if self._is_qualifier(request, masked, s.start, s.end)
                else s
                for s in out
            ]
        return out

    def _spans(self, request: str, masked: str, segments: list[_Segment]) -> list[_Span]:
        parts: list[list[_Segment]] = []
        for seg in segments:
            if not parts or seg.separator in ("start", "hard", "ask"):
                parts.append([])
            parts[-1].append(seg)
        spans: list[_Span] = []
        for n, part in enumerate(parts):
            new = self._part_spans(request, masked, part, n)
            prev = spans[-1] if spans else None
            if prev is not None and new and len(new) == 1 and not part[0].verbs:
                if self._is_qualifier(request, masked, part[0].start, part[-1].end):
                    spans[-1] = replace(prev, end=new[0].end)  # "...? via a.tool"
                    continue
            if (
                prev is not None
                and new
                and part[0].separator == "ask"
                and prev.kind == "action"
                and (
                    _elaborates(prev.head, new[0].head)
                    or (new[0].kind == "noun" and prev.head in _EDIT_VERBS)
                )
            ):
                # "could you change ticket X? set the status to done" / "? upgrade to 1.15"
                spans[-1] = replace(prev, end=new[0].end)
                new = new[1:]
            spans.extend(new)
        return spans

    def _part_spans(
        self, request: str, masked: str, segments: list[_Segment], part: int
    ) -> list[_Span]:
        out: list[_Span] = []
        pending: list[_Segment] = []  # verbless segments before the part's next step
        current: _Span | None = None
        bare = False
        for n, seg in enumerate(segments):
            if not seg.verbs:
                following = segments[n + 1] if n + 1 < len(segments) else None
                if current is None:
                    if pending and seg.separator == "next":
                        # "'timeout' in issues, also the failed builds": two requests
                        out.append(
                            self._verbless(request, masked, pending[0].start, pending[-1].end, part)
                        )
                        pending = []
                    pending.append(seg)
                elif seg.separator == "next" or (
                    # "search X, on the Y bug, set the status": the place is the next step's
                    seg.separator == "comma"
                    and following is not None
                    and following.verbs
                    and following.separator in ("comma", "and")
                    and self._first_word(masked, seg) in _FRAMING_WORDS
                ):
                    out.append(current)
                    current, pending = None, [seg]
                else:
                    # "check the logs and metrics": no verb, so it continues the step
                    current, bare = replace(current, end=seg.end), False
                continue
            head = next((v.phrase for v in seg.verbs if v.operation != "_tool"), "")
            if current is None:
                start = seg.start
                k = len(pending)
                if self._refers_back(request, masked, seg):
                    k = 0  # "the PR #12 on acme/web, can you merge it?": one step
                elif seg.separator == "and" and k:
                    k -= 1  # "please review and approve PR #12": a verb we do not know
                while k and self._frames(request, masked, pending[k - 1]):
                    k -= 1
                if k:
                    out.append(
                        self._verbless(request, masked, pending[0].start, pending[k - 1].end, part)
                    )
                if k < len(pending):
                    start = pending[k].start
                pending = []
                current = _Span(start, seg.end, part, "action", head)
                bare = start == seg.start and _is_bare(masked, seg.start, seg.end, seg.verbs)
                continue
            if bare or (seg.separator == "and" and _elaborates(current.head, head)):
                # "find and delete the stale branches": a bare verb joins the next one
                current = replace(current, end=seg.end, head=current.head or head)
                bare = False
                continue
            out.append(current)
            current = _Span(seg.start, seg.end, part, "action", head)
            bare = _is_bare(masked, seg.start, seg.end, seg.verbs)
        if current is not None:
            out.append(current)
        if pending:
            out.append(self._verbless(request, masked, pending[0].start, pending[-1].end, part))
        return out

    def _frames(self, request: str, masked: str, seg: _Segment) -> bool:
        """A verbless segment that belongs to the step after it: a place or product
        ("on WEB-9119", "In Calendly"), or nothing to ask for ("lgtm")."""
        return (
            self._first_word(masked, seg) in ("", *_FRAMING_WORDS)
            or not self._has_content(request, seg.start, seg.end)
            or self._is_qualifier(request, masked, seg.start, seg.end)
        )

    def _refers_back(self, request: str, masked: str, seg: _Segment) -> bool:
        """The segment's object is a pronoun ("merge it") and it names no entity."""
        words = {w.lower() for w in _WORD_RE.findall(masked[seg.start : seg.end])}
        return bool(words & _BACK_REFERENCES) and not self._find(
            request, seg.start, seg.end, self._entities
        )

    def _first_word(self, masked: str, seg: _Segment) -> str:
        """The first word after any "Product:" / "PAY-12:" prefix, lowercase."""
        body = _after_prefixes(masked, seg.start, seg.end)
        m = _FIRST_WORD_RE.search(masked, body, seg.end)
        return m.group().lower() if m else ""

    def _verbless(self, request: str, masked: str, start: int, end: int, part: int) -> _Span:
        """A verbless phrase is a request of its own ("buckets in the prod account") unless
        it states what happened or holds nothing to ask for."""
        text = request[_after_prefixes(masked, start, end) : end]
        step = (
            self._has_content(request, start, end)
            and not _is_statement(text)
            and not _is_chatter(text)
        )
        return _Span(start, end, part, "noun" if step else "context")

    def _has_content(self, request: str, start: int, end: int) -> bool:
        """Anything to ask about besides product names: "BambooHR: lgtm" has nothing."""
        chars = list(request[start:end])
        for pos, stop, _ in self._find(request, start, end, self._connections):
            chars[pos - start : stop - start] = " " * (stop - pos)
        return _has_content("".join(chars), 0, end - start)

    def _is_qualifier(self, request: str, masked: str, start: int, end: int) -> bool:
        """Only a product or tool name, with words like "using", "over in", "this is in"."""
        names = [(pos, stop) for pos, stop, _ in self._find(request, start, end, self._connections)]
        names += [
            (pos, stop)
            for pos, stop in _chunks(request, start, end)
            if request[pos:stop].lower() in self._vocab.tools
        ]
        if not names:
            return False
        chars = list(masked[start:end].lower())
        for pos, stop in names:
            chars[pos - start : stop - start] = " " * (stop - pos)
        return all(w in _QUALIFIER_WORDS for w in _WORD_RE.findall("".join(chars)))

    def _analyse(self, request: str, masked: str, span: _Span) -> _Clause:
        start, end = span.start, span.end
        verbs = self._verbs_in(request, masked, start, end) if span.kind == "action" else []
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
        if span.kind == "context":
            salient = self._salient(request, start, end)
        bare = bool(verbs) and _is_bare(masked, start, end, verbs)
        words = {t.lower() for t in re.findall(r"\w+", masked[start:end])}
        return _Clause(
            start=start,
            end=end,
            sentence=span.part,
            kind=span.kind,
            head=span.head,
            operations=tuple(dict.fromkeys(operations)),
            entities=tuple(dict.fromkeys(name for _, name in entities)),
            access=tuple(dict.fromkeys(name for _, name in access)),
            salient=salient,
            elliptical=not entities and (bare or bool(words & _PRONOUNS)),
            back_reference=not entities and bool(words & _BACK_REFERENCES),
        )

    # -- matching ---------------------------------------------------------------------

    def _verbs_in(self, request: str, masked: str, start: int, end: int) -> list[_Verb]:
        """Operation verbs in imperative position, plus exact tool ids (as `_tool`)."""
        text = masked[start:end].lower().replace("’", "'")
        claimed: list[_Verb] = []
        for m in self._verb_re.finditer(text):
            phrase = " ".join(m.group().split())
            claimed.append(
                _Verb(m.start(), m.end(), self._verbs[phrase], phrase.startswith(_WH_WORDS), phrase)
            )
        for pattern, op_name, phrase in self._gapped_res:
            for m in pattern.finditer(text):
                inside = [v for v in claimed if v.start < m.end() and m.start() < v.end]
                # the gapped verb wins over a shorter one it starts with: "drop ... a note"
                if all(v.start == m.start() and v.end < m.end() for v in inside):
                    claimed = [v for v in claimed if v not in inside]
                    claimed.append(_Verb(m.start(), m.end(), op_name, False, phrase))
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
            ok = prev is None or prev in _PUNCT_LEAD or _is_lead_in(prev)
            if not ok and verb.wh and counted:
                ok = not text[counted[-1].end : verb.start].strip()
            following = text[verb.end :].split(maxsplit=1)
            operation = self._operations.get(verb.operation)
            if ok and operation is not None and operation.mutates and following:
                ok = following[0].strip(".,;:!?") not in _NOUN_TAILS
            if ok and verb.phrase in _INTENT_VERBS and following:
                ok = following[0] != "to"  # "I need to restart it": "restart" is the step
            if ok and entity_starts.get(verb.start, verb.end) > verb.end:
                ok = False  # the verb opens a known entity name ("merge requests")
            if ok and any(t.start == _next_start(text, verb.end) for t in tools):
                ok = False  # "run github.list_commits": the tool says what happens
            if ok and counted and not verb.wh:
                # right after another verb it is an adjective: "show me open incidents"
                ok = not _ADJACENT_RE.fullmatch(text[counted[-1].end : verb.start])
            if ok:
                counted.append(verb)
        counted = [v for v in counted if v.operation != _NO_OPERATION]
        merged = sorted(counted + tools, key=lambda v: v.start)
        return [_Verb(v.start + start, v.end + start, v.operation, v.wh, v.phrase) for v in merged]

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


def _is_lead_in(word: str) -> bool:
    return word in _LEAD_INS or (
        len(word) > 4 and word.endswith("ly") and word not in _LY_ADJECTIVES
    )


def _is_bare(masked: str, start: int, end: int, verbs: Sequence[_Verb]) -> bool:
    """True when the span holds nothing but its verbs and lead-in words ("find and")."""
    chars = list(masked[start:end].lower())
    for v in verbs:
        if v.operation == "_tool" or v.wh:  # "find what changed" has its object
            return False
        for k in range(v.start - start, v.end - start):
            chars[k] = " "
    words = re.findall(r"[\w'’]+", "".join(chars))
    return all(_is_lead_in(w) for w in words)


def _after_prefixes(masked: str, start: int, end: int) -> int:
    """Where the text after the last ": " of the span starts (`start` without one)."""
    cut = masked.rfind(": ", start, end)
    return start if cut < 0 else cut + 2


def _elaborates(head: str, verb: str) -> bool:
    """ "update X" then "set Y" / "add the label Z": the second verb details the edit."""
    return head in _EDIT_VERBS and verb in _ATTRIBUTE_VERBS


def _has_content(text: str, start: int, end: int) -> bool:
    """Anything to ask about: a quoted string or a word that is not filler."""
    if _QUOTED_RE.search(text, start, end):
        return True
    return any(
        len(w) > 1 and w not in _FILLERS and w not in _STOPWORDS and not _is_lead_in(w)
        for w in _WORD_RE.findall(text[start:end].lower())
    )


def _is_chatter(text: str) -> bool:
    """A yes/no question about the conversation: "Or should I wait?", "can you?"."""
    words = _WORD_RE.findall(text.lower())
    while words and words[0] in ("and", "or", "but", "so"):
        words = words[1:]
    return len(words) >= 2 and words[0] in _MODALS and words[1] in ("i", "we", "you")


def _is_statement(text: str) -> bool:
    """A sentence that says what is or was (context), not a question or a noun phrase."""
    stripped = text.strip()
    words = _WORD_RE.findall(_QUOTED_RE.sub(" ", stripped).lower().replace("’", "'"))
    if not words or stripped.endswith("?") or words[0] in _WH_START:
        return False
    if words[0] in _SUBJECTS and len(words) > 1:
        return True
    for i, w in enumerate(words):
        after_subject = i > 0 and words[i - 1] not in _NOT_A_SUBJECT
        if w in _AUXILIARIES and (i == 0 or words[i - 1] not in _NOT_A_SUBJECT):
            return True
        if w in _PAST_EVENTS and after_subject:
            return True
    return False


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
    text = text.rstrip(" \t.,;:!?")
    return _TRAILING_CONNECTORS_RE.sub("", text)


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

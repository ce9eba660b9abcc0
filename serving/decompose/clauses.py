"""How the rule decomposer cuts and reads a request's text.

Separators between segments (ranked by strength), the spans and clauses the rules build
from them, word-level tests on the text (lead-ins, filler, statements, chatter), and the
names in it: longest matches against a `NameTable`, and the salient names of a context
clause that the steps after it carry.
Offsets always index the original request: quoted text is masked, never removed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from serving.decompose.vocabulary import (
    ATTRIBUTE_VERBS,
    AUXILIARIES,
    EDIT_VERBS,
    FILLERS,
    LEAD_INS,
    LY_ADJECTIVES,
    MODALS,
    NOT_A_SUBJECT,
    PAST_EVENTS,
    STOPWORDS,
    SUBJECTS,
    WH_START,
)

_NEXT = r"(?:then|also|finally|plus|afterwards|after\s+that)"
# Boundaries between segments, named by how strongly they separate steps: `hard` ends a
# sentence or list item, `ask` follows a question mark, `next` says another step follows.
SEPARATOR_RE = re.compile(
    r"(?P<hard>\s*;\s*|\s*\n\s*|\s+\+\s+|(?<=[.!])\s+)"
    r"|(?P<ask>(?<=\?)\s+)"
    rf"|(?P<next>\s*,\s*(?:and\s+)?{_NEXT}\b,?\s*|\s+(?:and\s+)?{_NEXT}\s+)"
    r"|(?P<comma>\s*,\s+(?:and\s+)?)"
    r"|(?P<and>\s+and\s+)",
    re.I,
)
SEPARATOR_RANK = {"start": 5, "hard": 4, "ask": 3, "next": 2, "comma": 1, "and": 0}
_LEADING_CONNECTORS_RE = re.compile(
    r"^(?:[\s,;:+]|(?:and\s+then|and\s+also|and\s+finally|and\s+after\s+that|after\s+that"
    r"|afterwards|and|then|also|finally|plus)\b|so\b)+",
    re.I,
)
_TRAILING_CONNECTORS_RE = re.compile(r"(?:[\s,]+(?:and|or|then|also|plus))+$", re.I)
# "In Calendly: ..." at the start names the product for every step that names none.
PREFIX_RE = re.compile(
    r"^\s*(?:over\s+)?(?:in|on|using|via|from|inside|within|through)\s+[^,:;.?!\n]{1,60}?"
    r"[:,](?=\s)",
    re.I,
)
QUOTED_RE = re.compile(
    r"\"[^\"\n]*\"|“[^”\n]*”|‘[^’\n]*’|(?<![\w'’])'(?:[^'\n]|(?<=\w)'(?=\w))+'(?!\w)"
)
_IDENT_RE = re.compile(r"[#@]?\w(?:[\w\-./:@]*\w)?")
_TOKEN_RE = re.compile(r"[#@]?\w(?:[\w\-.:@]*\w)?")
WORD_RE = re.compile(r"[\w'’]+")
_CHUNK_RE = re.compile(r"[^\s`'\"“”‘’()\[\]{}<>,;]+")
_NON_SPACE_RE = re.compile(r"\S")
_PREV_TOKEN_RE = re.compile(r"([\w'’\-.#@/]+|[^\w\s])\s*$")


@dataclass(frozen=True, slots=True)
class Verb:
    """An operation verb (or, as operation `_tool`, an exact tool id) found in the text."""

    start: int
    end: int
    operation: str
    wh: bool
    phrase: str = ""


@dataclass(frozen=True, slots=True)
class Segment:
    """Text between two separators, with the verbs in imperative position inside it."""

    start: int
    end: int
    separator: str  # the boundary before it, a key of SEPARATOR_RANK
    verbs: tuple[Verb, ...]


@dataclass(frozen=True, slots=True)
class Span:
    """Segments grouped into one candidate step (or one piece of context)."""

    start: int
    end: int
    part: int
    kind: str  # "action" (has a verb), "noun" (a verbless request) or "context"
    head: str = ""  # an action's first verb


@dataclass(frozen=True, slots=True)
class Clause:
    """A span read: its operations, entities and connections, and how it refers back."""

    start: int
    end: int
    sentence: int
    kind: str
    head: str
    operations: tuple[str, ...]
    entities: tuple[str, ...]
    access: tuple[str, ...]
    named: tuple[str, ...]  # the access its words name outside quotes (tool ids included)
    salient: tuple[str, ...]
    elliptical: bool  # no entity of its own, and a pronoun or nothing but the verb
    back_reference: bool  # no entity of its own, and "it" / "them" as object

    @property
    def is_context(self) -> bool:
        return self.kind == "context"


@dataclass(frozen=True, slots=True)
class NameTable:
    """Names keyed by their tokens, for longest-match lookup over a request's tokens."""

    names: Mapping[tuple[str, ...], str]
    longest: int

    @classmethod
    def of(cls, surfaces: Mapping[str, str]) -> NameTable:
        names = {tuple(k.split()): v for k, v in surfaces.items()}
        return cls(names, max((len(k) for k in names), default=0))

    def find(self, request: str, start: int, end: int) -> list[tuple[int, int, str]]:
        """Longest token n-grams of `request[start:end]` found in the table, in order:
        (start, end, name) each."""
        tokens = token_spans(request, start, end)
        out = []
        i = 0
        while i < len(tokens):
            for n in range(min(self.longest, len(tokens) - i), 0, -1):
                key = tuple(t for _, _, t in tokens[i : i + n])
                if key in self.names and contiguous(request, tokens[i : i + n]):
                    out.append((tokens[i][0], tokens[i + n - 1][1], self.names[key]))
                    i += n
                    break
            else:
                i += 1
        return out


def mask_quotes(text: str) -> str:
    """Hide quoted text from verb and boundary detection, keeping every offset."""
    return QUOTED_RE.sub(lambda m: m.group()[0] + "_" * (len(m.group()) - 2) + m.group()[-1], text)


def is_lead_in(word: str) -> bool:
    """A word after which a verb is imperative: "please", "then", an adverb in -ly."""
    return word in LEAD_INS or (len(word) > 4 and word.endswith("ly") and word not in LY_ADJECTIVES)


def is_bare(masked: str, start: int, end: int, verbs: Sequence[Verb]) -> bool:
    """True when the span holds nothing but its verbs and lead-in words ("find and")."""
    chars = list(masked[start:end].lower())
    for v in verbs:
        if v.operation == "_tool" or v.wh:  # "find what changed" has its object
            return False
        for k in range(v.start - start, v.end - start):
            chars[k] = " "
    words = re.findall(r"[\w'’]+", "".join(chars))
    return all(is_lead_in(w) for w in words)


def after_prefixes(masked: str, start: int, end: int) -> int:
    """Where the text after the last ": " of the span starts (`start` without one)."""
    cut = masked.rfind(": ", start, end)
    return start if cut < 0 else cut + 2


def elaborates(head: str, verb: str) -> bool:
    """ "update X" then "set Y" / "add the label Z": the second verb details the edit."""
    return head in EDIT_VERBS and verb in ATTRIBUTE_VERBS


def has_content(text: str, start: int, end: int) -> bool:
    """Anything to ask about: a quoted string or a word that is not filler."""
    if QUOTED_RE.search(text, start, end):
        return True
    return any(
        len(w) > 1 and w not in FILLERS and w not in STOPWORDS and not is_lead_in(w)
        for w in WORD_RE.findall(text[start:end].lower())
    )


def is_chatter(text: str) -> bool:
    """A yes/no question about the conversation: "Or should I wait?", "can you?"."""
    words = WORD_RE.findall(text.lower())
    while words and words[0] in ("and", "or", "but", "so"):
        words = words[1:]
    return len(words) >= 2 and words[0] in MODALS and words[1] in ("i", "we", "you")


def is_statement(text: str) -> bool:
    """A sentence that says what is or was (context), not a question or a noun phrase."""
    stripped = text.strip()
    words = WORD_RE.findall(QUOTED_RE.sub(" ", stripped).lower().replace("’", "'"))
    if not words or stripped.endswith("?") or words[0] in WH_START:
        return False
    if words[0] in SUBJECTS and len(words) > 1:
        return True
    for i, w in enumerate(words):
        after_subject = i > 0 and words[i - 1] not in NOT_A_SUBJECT
        if w in AUXILIARIES and (i == 0 or words[i - 1] not in NOT_A_SUBJECT):
            return True
        if w in PAST_EVENTS and after_subject:
            return True
    return False


_PATH_GOES_ON_RE = re.compile(r"/[a-z0-9._\-]")


def in_path(text: str, start: int, end: int) -> bool:
    """`text[start:end]` is a component of a path or key: a slash comes right before it
    ("secret/payments/stripe") or a lowercase path goes on after it ("logs/app.log",
    ".github/workflows"). "Email Verifier/Validator API" still names its product."""
    return (start > 0 and text[start - 1] == "/") or bool(_PATH_GOES_ON_RE.match(text, end))


NOT_PLURALS = frozenset("its has was yes".split())


def is_bare_plural(word: str) -> bool:
    """A plural noun with no article before it ("leads", "PRs", "exceptions"): a word of
    letters ending in one "s" ("access", "status", "this" and "its" are not)."""
    word = word.strip(".,;:!?").lower()
    return (len(word) >= 3 and word.isalpha() and word.endswith("s")
            and not word.endswith(("ss", "us", "is")) and word not in NOT_PLURALS)


MANY_WORDS = frozenset({"all", "every"})
OBJECT_PRONOUNS = frozenset({"me", "us"})
# plurals that name one thing's parts: "logs of the failed step", "details of INC-12"
ONE_THING_PLURALS = frozenset("logs details settings contents numbers stats news".split())


def asks_for_many(after: str) -> bool:
    """The object after a read verb is a set ("all releases", "every bucket", "artifacts
    of build 5505", "PRs"): which ones, a list, not one by its id. "me" before it is
    skipped; a capitalised word is a name ("Lucas Martin's account")."""
    words = after.split(maxsplit=3)
    while words and words[0].lower() in OBJECT_PRONOUNS:
        words = words[1:]
    if not words:
        return False
    word = words[0].strip(".,;:!?")
    if word.lower() in MANY_WORDS:
        return True
    named = len(word) > 1 and word[0].isupper() and word[1].islower()
    return not named and word.lower() not in ONE_THING_PLURALS and is_bare_plural(word)


_WORDS_BEFORE_RE = re.compile(r"[\w'’]+|[^\w\s]")
RELATIVE_MODALS = frozenset("can could may might".split())


def in_relative_clause(text: str, pos: int) -> bool:
    """The verb at `pos` follows a noun, a subject and a modal ("spaces I can edit",
    "repos we could archive"): it says what the noun allows, not what to do. "can you
    edit" and "I can't log in" keep their verb."""
    words = _WORDS_BEFORE_RE.findall(text, max(0, pos - 60), pos)[-3:]
    return (len(words) == 3 and words[2] in RELATIVE_MODALS and words[1] in ("i", "we")
            and words[0][0].isalnum() and not is_lead_in(words[0])
            and words[0] not in MODALS and words[0] not in STOPWORDS)


def token_spans(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """(start, end, lowercase token) for every token of `text[start:end]`."""
    return [
        (m.start(), m.end(), m.group().lower().replace("’", "'"))
        for m in _TOKEN_RE.finditer(text, start, end)
    ]


def chunks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Whitespace-separated chunks without wrapping quotes or trailing punctuation: the
    candidates for exact tool ids, which may hold any non-space character."""
    out = []
    for m in _CHUNK_RE.finditer(text, start, end):
        stop = m.start() + len(m.group().rstrip(".:!?"))
        out.append((m.start(), stop))
    return out


def prev_token(text: str, pos: int) -> str | None:
    """The token (or punctuation mark) just before `pos`, if any."""
    m = _PREV_TOKEN_RE.search(text, 0, pos)
    return m.group(1) if m else None


def next_start(text: str, pos: int) -> int:
    """Where the next non-space character at or after `pos` is."""
    m = _NON_SPACE_RE.search(text, pos)
    return m.start() if m else len(text)


def contiguous(text: str, tokens: Sequence[tuple[int, int, str]]) -> bool:
    """Multi-word names must be separated by whitespace only ("pull request")."""
    return all(not text[a[1] : b[0]].strip() for a, b in zip(tokens, tokens[1:], strict=False))


def clause_text(request: str, start: int, end: int) -> str:
    """A clause as a subgoal's text: connectors and end punctuation trimmed."""
    text = request[start:end].strip()
    text = _LEADING_CONNECTORS_RE.sub("", text)
    text = text.rstrip(" \t.,;:!?")
    return _TRAILING_CONNECTORS_RE.sub("", text)


def salient_names(
    request: str, start: int, end: int, connections: NameTable
) -> tuple[str, ...]:
    """Names in a context clause worth carrying: identifiers, products, quoted text.
    Not the catalog's object nouns: "deploy" in "The checkout-service deploy failed"
    says what failed, and carried into "Find what changed" it made a question about
    code changes retrieve deployment tools (a step's object is its own words')."""
    items: list[tuple[int, str]] = []
    found = connections.find(request, start, end)
    items.extend((pos, request[pos:stop]) for pos, stop, _ in found)
    for m in QUOTED_RE.finditer(request, start, end):
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
            and token.lower() not in STOPWORDS
            and len(token) > 1
        )
        if (is_ident or is_proper) and token.lower() not in STOPWORDS:
            items.append((m.start(), token))
        first = False
    items.sort()
    seen: dict[str, str] = {}
    for _, item in items:
        if not any(item.lower() in other.lower() for other in seen.values()):
            seen.setdefault(item.lower(), item)
    return tuple(seen.values())

"""What the rule decomposer recognises: the catalog's names and the words of requests.

`DecomposerVocabulary` holds the entities, connections and exact tool ids of a catalog,
as users write them (built from the tool cards). The word lists below are the request
grammar's: verbs in imperative position only after a lead-in, noun tails that make a
verb a modifier ("deploy status"), filler, framing and qualifier words, and the words
that make a verbless sentence context rather than a request.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from serving.model.schema import ToolCard
from serving.model.vocab import OPERATIONS, parse_capability

# Names users say for the same connection. When any member is a connection or server in
# the catalog, every member maps to that connection.
CONNECTION_ALIAS_GROUPS: tuple[tuple[str, ...], ...] = (
    ("kubernetes", "k8s", "kube", "kubectl"),
    ("postgres", "postgresql", "psql"),
    ("pagerduty", "pager duty"),
    ("newrelic", "new relic"),
    ("google_drive", "gdrive", "google drive"),
    ("gcp", "google cloud"),
    ("gcs", "google cloud storage"),  # longer than "google cloud": the longest match wins
    ("aws", "amazon web services"),
)


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
    # connections whose names users cannot mean otherwise (`distinctive_connections`)
    distinctive: frozenset[str] = frozenset()

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
        return cls(
            entities=entities,
            connections=connections,
            tools=tools,
            distinctive=distinctive_connections(cards, connections),
        )


_WORD_RE = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower().replace("_", " "))


def distinctive_connections(
    cards: Iterable[ToolCard], surfaces: Mapping[str, str], *, max_others: int = 1
) -> frozenset[str]:
    """Connections a user names only when meaning that product: none of their surfaces
    (`surfaces`: surface -> connection) occurs in the own text (id, name, summary,
    capabilities, entities) of tools on more than `max_others` other connections. One
    is allowed for a product family sharing a name (jira, jira_legacy); a common word
    ("logs", "image", "location") occurs on many, and naming it proves nothing. A card's
    `not_for` is left out: it names the products a tool is not for."""
    keys = {surface: tuple(_words(surface)) for surface in surfaces}
    by_first: dict[str, set[tuple[str, ...]]] = {}
    for key in keys.values():
        if key:
            by_first.setdefault(key[0], set()).add(key)
    used_by: dict[tuple[str, ...], set[str]] = {}  # surface words -> connections using them
    for card in cards:
        words = _words(
            " . ".join([card.tool_id, card.name, card.summary, *card.capabilities, *card.entities])
        )
        for i, word in enumerate(words):
            for key in by_first.get(word, ()):
                if tuple(words[i : i + len(key)]) == key:
                    used_by.setdefault(key, set()).add(card.connection)
    others: dict[str, set[str]] = {}
    for surface, connection in surfaces.items():
        used = used_by.get(keys[surface], set())
        others.setdefault(connection, set()).update(used - {connection})
    return frozenset(c for c, used in others.items() if len(used) <= max_others)


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


# --- the words of requests ------------------------------------------------------------

NO_OPERATION = ""
# Phrases the vocabulary lacks. The first group are question forms ("Find what changed"
# is a read over history); the second are idioms whose first word is a mutating verb in
# the vocabulary ("take", "make", "let"), so without them "take a look" would acknowledge.
# The last group are requests phrased as a need ("I need the pods of billing-api"): too
# often nouns or other verbs elsewhere for the shared vocabulary, which the importers
# also read tool names with ("pull" is git's). The last three are everyday verbs for a
# count, a search and a create that tool names use otherwise (`scan_project` runs a scan).
EXTRA_PHRASES: dict[str, str] = {
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
    "let me know": NO_OPERATION,
    "let us know": NO_OPERATION,
    "keep me posted": NO_OPERATION,
    "keep me updated": NO_OPERATION,
    "look into": "search",
    "dig into": "search",
    "investigate": "search",
    "figure out": "search",
    "need": "get",
    "want": "get",
    "pull": "get",
    "tally": "query",
    "scan": "search",
    "set up": "create",
}
# "I need to restart it": the need is not the step, the verb after "to" is.
INTENT_VERBS = frozenset({"need", "want"})
# verbs that are adjectives before a bare plural: "new leads", "open PRs" ask which ones
ADJECTIVE_VERBS = frozenset({"new", "open"})
# Question forms also count right after another verb ("find what changed").
WH_WORDS = ("what", "which", "how")
# Two-word verbs whose particle may come after the object ("roll it back").
PARTICLES = frozenset({"back", "up", "off", "out", "know"})
# A verb counts only in imperative position: first in its clause or after one of these
# (or after an adverb in -ly: "then permanently remove"). This is what keeps "The
# checkout-service deploy failed" and "post the update" from reading "deploy" and
# "update" as operations.
LEAD_INS = frozenset(
    "please pls plz kindly to you can could would will should must let's lets and then also "
    "first next now just quickly immediately finally go so otherwise or but me us we i plus "
    "afterwards again asap ahead i'd we'd like help try ok okay hey hi lgtm actually maybe "
    "really".split()
)
# -ly words that are adjectives: "the weekly run" is not "run".
LY_ADJECTIVES = frozenset(
    "only early daily weekly monthly hourly yearly nightly quarterly biweekly friendly likely "
    "family supply reply apply july italy assembly anomaly holy ugly silly rely fly".split()
)
PUNCT_LEAD = frozenset(',;:([{"“—–-')
# A mutating verb followed directly by one of these is a noun modifier ("deploy status").
NOUN_TAILS = frozenset(
    "status statuses log logs history failure failures error errors result results output "
    "outputs time times queue settings config permissions info details conflict conflicts "
    "thread threads id ids number link url rate rates".split()
)
PRONOUNS = frozenset({"it", "them", "those", "these", "they"})
# A step whose object is one of these and nothing else refers back ("update it"); not
# "this"/"that", which are as often determiners ("this month's bill").
BACK_REFERENCES = frozenset({"it", "them"})
STOPWORDS = frozenset(
    "the a an our my your their its this that these those we i it they yesterday today tonight "
    "tomorrow last please and then also if when after before for on in at of to from with".split()
)
# Words that carry no request of their own ("lgtm, approve ...", "thanks!").
FILLERS = frozenset(
    "lgtm ok okay thanks thank thx cheers hi hey hello pls plz please asap urgent quick one "
    "question btw fyi so hmm well sure yes no great cool done now again just you team folks "
    "everyone all guys".split()
)
# A verbless phrase starting with one of these frames the step after it ("on WEB-9119,
# set the priority to P2"; "In Calendly: ..."; "once the build passes, merge it").
FRAMING_WORDS = frozenset(
    "on in for at from over under using via with within inside regarding re about per across "
    "through as if once when after before since because given".split()
)
# What may surround a product or tool name in a phrase that only says where a step
# happens: "(this is in Stripe)", "using Box", "over in Box", "via mongodb.deleteDocument".
QUALIFIER_WORDS = frozenset(
    "this that it is it's its all everything over in on using use via with through thru from "
    "for the our my please pls by inside within at app account workspace instance org tool "
    "api side one do done".split()
)
# A verbless sentence that says what happened is context, not a request: a subject
# pronoun first ("we agreed ..."), an auxiliary anywhere, or a past tense after a noun
# ("the deploy failed"). Not after a relative pronoun: "users who are deactivated".
SUBJECTS = frozenset(
    "i we they he she it you there i'm we're they're it's there's i've we've they've".split()
)
AUXILIARIES = frozenset(
    "is are was were am been being isn't aren't wasn't weren't has have had hasn't haven't "
    "hadn't does did doesn't didn't don't won't can't cannot couldn't shouldn't wouldn't "
    "keeps seems seemed appears appeared".split()
)
PAST_EVENTS = frozenset(
    "failed crashed broke died errored stopped hung stalled spiked regressed happened went "
    "started began agreed decided discussed said asked mentioned noticed timed".split()
)
MODALS = frozenset("should shall can could would will may might must do does did".split())
NOT_A_SUBJECT = frozenset("that which who whose the a an my our your their all any no".split())
WH_START = frozenset("what what's which who who's whom whose where where's when why how".split())
# "can you update the node and add the taint ...?": one edit, told in two verbs.
EDIT_VERBS = frozenset({"update", "change", "modify", "edit"})
ATTRIBUTE_VERBS = frozenset(
    {"set", "add", "remove", "change", "rename", "assign", "reassign", "label", "tag", "move"}
    | {"attach", "upload", "mark"}
)

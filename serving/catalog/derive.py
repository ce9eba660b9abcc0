"""What a foreign tool definition lacks, derived from its name, description and schema.

A one-line summary in the user's intent voice, `op:entity` capabilities, entities, input
concepts and (for formats without annotations) a risk level. The importers list every
derived field in the card's `derived`, so a reviewer can tell authored from guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from serving.model.vocab import (
    AMBIGUOUS_VERBS,
    CALLER,
    DESTRUCTIVE_VERBS,
    IMPLEMENTER_SUBJECT,
    READ_OPERATIONS,
    VERB_TO_OPERATION,
    base_verb,
    name_verb,
    name_words,
    parse_capability,
    singular,
)

MAX_SUMMARY_CHARS = 100
_NAME_STOPWORDS = frozenset("a an the of by for to in on from with all my new id ids".split())

# Each rewrite takes a text starting with an implementer phrase to what follows it; the
# group `rest` must then open with a verb (third person or base form).
_REWRITES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^{IMPLEMENTER_SUBJECT}\s+(?:will\s+|can\s+|is used to\s+|is designed to\s+|"
        rf"(?:allows|lets|enables)\s+{CALLER}\s+to\s+|helps\s+{CALLER}\s+|"
        rf"is (?:a|an) \w+ (?:to|that)\s+)?(?P<rest>.+)$",
        r"^(?:use|call|invoke)\s+(?:this|the)\s+(?:tool|function|endpoint|api|method)\s+"
        r"(?:to|when(?: you (?:need|want) to)?|for)\s+(?P<rest>.+)$",
        r"^(?:used|designed|intended|meant)\s+(?:to|for)\s+(?P<rest>.+)$",
        rf"^(?:allows|lets|enables|helps)\s+{CALLER}\s+(?:to\s+)?(?P<rest>.+)$",
        r"^(?:a|an)\s+(?:\w+\s+)?(?:tool|function|endpoint|helper|wrapper|utility)\s+"
        r"(?:that|which|to|for)\s+(?P<rest>.+)$",
    )
)
_RETURNS = re.compile(
    r"^(?:returns?|responds with|outputs?|yields?|gives back)\s+(?P<rest>.+)$", re.IGNORECASE
)
_LIST_OF = re.compile(r"^(?:a\s+|the\s+)?(?:list|array|collection|set|page)\s+of\s+", re.I)
_NO_PHRASE = re.compile(
    r"^(?:(?:a\s+)?thin\s+)?(?:wraps?|wrapper|shim|passthru|pass-through|proxy)\b|"
    r"^(?:calls|hits|invokes)\s|^(?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+/",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\"'])|\n+")
_MARKUP = re.compile(r"[*_`#>]+|<[^>]{1,40}>")


def first_sentence(text: str) -> str:
    text = _MARKUP.sub(" ", text).strip()
    head = _SENTENCE_END.split(text, maxsplit=1)[0] if text else ""
    return re.sub(r"\s+", " ", head).strip().rstrip(".!;:,")


def _to_imperative(text: str) -> str | None:
    """`Lists the commits` -> `List the commits`; None if the text opens with no verb."""
    first, _, rest = text.partition(" ")
    verb = base_verb(first)
    if verb is None:
        return None
    return f"{verb}{' ' + rest if rest else ''}"


def _name_phrase(name: str) -> str:
    words = name_words(name)
    found = name_verb(words)
    if found is None:
        return " ".join(words)
    i, verb = found
    rest = [w for j, w in enumerate(words) if j != i]
    return " ".join([verb, *rest])


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _shorten(text: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in (", ", " (", " - ", "; ", " which ", " that ", " "):
        pos = cut.rfind(sep)
        if pos >= limit // 2:
            return cut[:pos].rstrip(" ,;:-")
    return cut.rstrip()


def derive_summary(description: str, name: str, *, title: str = "") -> str:
    """A one-line summary in the user's intent voice from the description's first sentence.

    Implementer phrases ("This endpoint lists ...", "Returns a list of ...", "Wraps GET
    /x") become a verb phrase ("List ..."); text that is no verb phrase at all gets the
    verb of the tool name ("Weather for a city" on get_forecast -> "Get weather for a
    city"); with no usable description the title or the name itself is used.
    """
    sentence = first_sentence(description) or first_sentence(title)
    if not sentence or _NO_PHRASE.match(sentence):
        return _cap(_name_phrase(name))
    for pattern in _REWRITES:
        m = pattern.match(sentence)
        if m:
            sentence = m.group("rest")
            break
    m = _RETURNS.match(sentence)
    if m:
        rest = m.group("rest")
        if _LIST_OF.match(rest):
            sentence = "list " + _LIST_OF.sub("", rest)
        elif re.match(r"^(?:all|every)\b", rest, re.I):
            sentence = "list " + rest
        else:
            sentence = "get " + rest
    gerund = re.match(r"^(\w+?)ing\b(.*)$", sentence)
    if gerund:
        stem = next((v for v in (gerund.group(1), gerund.group(1) + "e") if base_verb(v)), None)
        if stem is not None:
            sentence = stem + gerund.group(2)
    imperative = _to_imperative(sentence)
    if imperative is None:
        found = name_verb(name_words(name))
        lowered = sentence[:1].lower() + sentence[1:]
        imperative = f"{found[1]} {lowered}" if found else sentence
    return _cap(_shorten(imperative.strip()))


def derive_capabilities(
    name: str, description: str, *, server: str = ""
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(`op:entity` capabilities, entities) from the name's verb and nouns.

    The operation is the name's verb (the description's first verb when the name has
    none); the entity is the rest of the name (server words and filler removed),
    singular, joined by `_` (`list_pull_requests` -> `list:pull_request`).
    """
    words = name_words(name)
    server_words = set(name_words(server))
    found = name_verb(words)
    op = VERB_TO_OPERATION[found[1]] if found else ""
    if not op:
        first = first_sentence(description).split(" ", 1)[0] if description else ""
        verb = base_verb(first) if first else None
        op = VERB_TO_OPERATION[verb] if verb else ""
    skip = {found[0]} if found else set()
    nouns = [
        singular(w)
        for i, w in enumerate(words)
        if i not in skip and w not in _NAME_STOPWORDS and w not in server_words and w.isalpha()
    ]
    entity = "_".join(nouns)
    capabilities = (f"{op}:{entity}",) if op and entity else ()
    return capabilities, ((entity,) if entity else ())


def schema_concepts(schema: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(input concepts, entities) from the top-level property names of a JSON Schema.

    Every property is an input concept; an identifier property names an entity
    (`channel_id` / `channelId` -> channel).
    """
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return (), ()
    concepts = tuple(str(p) for p in props)
    entities = []
    for prop in concepts:
        words = name_words(prop)
        if len(words) >= 2 and words[-1] in ("id", "ids", "key", "slug"):
            entity = "_".join(singular(w) for w in words[:-1])
            if entity not in entities:
                entities.append(entity)
    return concepts, tuple(entities)


def name_risk(name: str) -> str | None:
    """What the name's verbs say: delete verbs -> destructive, a read verb with no
    mutating one -> read_only, another verb -> write; None when the name has no verb."""
    words = name_words(name)
    verbs = [base_verb(w) for w in words]
    if any(v in DESTRUCTIVE_VERBS for v in verbs if v):
        return "destructive"
    found = name_verb(words)
    if found is None:
        return None
    mutating = [
        v
        for v in verbs
        if v and v not in AMBIGUOUS_VERBS and VERB_TO_OPERATION[v] not in READ_OPERATIONS
    ]
    if VERB_TO_OPERATION[found[1]] in READ_OPERATIONS and not mutating:
        return "read_only"
    return "write"


def derive_risk(name: str) -> str:
    """Risk from the name's verb for tools without annotations: read verbs -> read_only,
    delete verbs -> destructive, any other verb or none -> write (fail closed)."""
    return name_risk(name) or "write"


RISK_ORDER = {"read_only": 0, "write": 1, "destructive": 2}


def max_risk(*risks: str | None) -> str:
    """The highest of the given risks (None is ignored; none at all is read_only)."""
    known = [r for r in risks if r is not None]
    return max(known, key=RISK_ORDER.__getitem__, default="read_only")


def evidence_risk(name: str, capabilities: Sequence[str] = ()) -> str | None:
    """What a tool's own name and capabilities say about its side effects, independent
    of any claim it makes: a mutating operation in a capability is at least write."""
    ops = [parse_capability(c)[0] for c in capabilities]
    caps = "write" if any(op and op not in READ_OPERATIONS for op in ops) else None
    by_name = name_risk(name)
    return None if by_name is None and caps is None else max_risk(by_name, caps)


def mcp_risk(annotations: Mapping[str, Any]) -> str:
    """Risk the MCP hints claim; both hints set at once resolves to the higher risk."""
    if annotations.get("destructiveHint") is True:
        return "destructive"
    if annotations.get("readOnlyHint") is True:
        return "read_only"
    return "write"


def hinted_risk(
    annotations: Mapping[str, Any], name: str, capabilities: Sequence[str], *, trusted: bool
) -> tuple[str, str | None]:
    """(risk, conflict note or None). MCP hints are untrusted from third-party servers:
    there the risk is the higher of the hint and what the name and capabilities say."""
    claimed = mcp_risk(annotations)
    if trusted:
        return claimed, None
    evidence = evidence_risk(name, capabilities)
    risk = max_risk(claimed, evidence)
    if risk == claimed:
        return risk, None
    return risk, (
        f"annotations say {claimed}, the name and capabilities say {evidence}; "
        f"took {risk} (hints from a third-party server are untrusted)"
    )

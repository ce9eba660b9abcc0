"""The operation vocabulary shared by tool cards, the demo world and the decomposer.

A capability on a card is written `"<operation>:<entity>"` (e.g. `"list:commit"`,
`"get:rollout_status"`). Each operation has a side-effect class and the verbs a user
says for it; the rule-based decomposer maps verbs back to operations with this table.

Also the rules for reading tool names and descriptions, shared by the importers, the
catalog linter and the benchmark converters: a name's words and verb (`name_words`,
`name_verb`, `VERB_TO_OPERATION`) and the implementer voice a summary should not speak
in (`implementer_phrase`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    mutates: bool
    verbs: tuple[str, ...]


OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation(
            "search",
            False,
            (
                "search",
                "find",
                "look for",
                "look up",
                "grep",
                "locate",
                "hunt",
                "look through",
                "go through",
                "dig through",
                "comb through",
            ),
        ),
        Operation(
            "list",
            False,
            ("list", "enumerate", "show all", "which", "what are", "give me a list of"),
        ),
        Operation(
            "get",
            False,
            (
                "get",
                "fetch",
                "show",
                "check",
                "describe",
                "read",
                "view",
                "inspect",
                "what is",
                "pull up",
                "see",
                "tell me",
                "status of",
                "look at",
                "give me",
                "bring up",
            ),
        ),
        # "run a query" reads: longer than "run" (trigger), so it wins
        Operation("query", False, ("query", "run sql", "run a query", "run the query", "select",
                                   "count", "aggregate")),
        Operation("export", False, ("export", "download", "dump", "save a copy")),
        Operation(
            "create",
            True,
            (
                "create",
                "open",
                "add",
                "new",
                "file",
                "make",
                "start",
                "spin up",
                "raise",
                "draft",
                "provision",
            ),
        ),
        Operation(
            "update",
            True,
            (
                "update",
                "edit",
                "change",
                "modify",
                "rename",
                "set",
                "move",
                "label",
                "tag",
                "assign",
                "reassign",
                "close",
                "reopen",
                "mark",
            ),
        ),
        Operation(
            "delete",
            True,
            (
                "delete",
                "remove",
                "drop",
                "purge",
                "wipe",
                "destroy",
                "archive",
                "rm",
                "get rid of",
            ),
        ),
        Operation(
            "send",
            True,
            (
                "send",
                "post",
                "tell",
                "notify",
                "message",
                "email",
                "reply",
                "announce",
                "ping",
                "share",
                "let know",
                "broadcast",
                "drop a note",
                "drop a line",
            ),
        ),
        Operation(
            "trigger",
            True,
            ("trigger", "run", "rerun", "kick off", "deploy", "build", "launch", "retry"),
        ),
        Operation("cancel", True, ("cancel", "abort", "stop", "halt", "kill")),
        Operation("restart", True, ("restart", "reboot", "bounce", "recycle")),
        Operation("rollback", True, ("rollback", "roll back", "revert", "undo")),
        Operation("scale", True, ("scale", "resize", "increase replicas", "decrease replicas")),
        Operation("merge", True, ("merge", "land", "squash")),
        Operation("approve", True, ("approve", "sign off", "accept")),
        Operation("acknowledge", True, ("acknowledge", "ack", "take", "claim")),
        Operation("resolve", True, ("resolve", "mitigate", "mark resolved", "close out")),
        Operation("refund", True, ("refund", "reimburse", "give back", "return money")),
        Operation("upload", True, ("upload", "put", "store", "attach")),
        Operation(
            "schedule",
            True,
            ("schedule", "book", "set up a meeting", "reserve", "invite", "sched"),
        ),
    )
}

READ_OPERATIONS = frozenset(n for n, op in OPERATIONS.items() if not op.mutates)


# The mutating operations by what they do to the world, coarse enough that the
# decomposer's near misses stay inside one (a step read as an update, a tool that
# creates): a write whose family differs from the step's does something else
# (`serving.stages.menu_policy.other_operation`). Measured on the demo's validation
# requests through a stock bundle: 296 of the 309 gold writes whose step and card both
# name a mutating operation share its family, 957 of 1,449 other writes do.
WRITE_FAMILIES: dict[str, str] = {
    **dict.fromkeys(("create", "update", "upload", "schedule", "approve", "acknowledge",
                     "resolve", "merge"), "change"),
    **dict.fromkeys(("delete", "cancel"), "remove"),
    "send": "send",
    **dict.fromkeys(("trigger", "restart", "scale", "rollback"), "run"),
    "refund": "refund",
}


def parse_capability(capability: str) -> tuple[str, str]:
    """Split `"op:entity"`; a capability without a colon is all entity, op unknown."""
    op, sep, entity = capability.partition(":")
    return (op, entity) if sep else ("", capability)


# --- words and verbs in tool names ----------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+")

# API verbs the shared vocabulary does not list, mapped to its operations.
EXTRA_VERBS: Mapping[str, str] = {
    "retrieve": "get",
    "lookup": "search",
    "insert": "create",
    "patch": "update",
    "upsert": "update",
    "write": "update",
    "invoke": "trigger",
    "execute": "trigger",
    "exec": "trigger",
    "publish": "send",
    "erase": "delete",
    "terminate": "delete",
    "unassign": "update",
    "submit": "create",
    "register": "create",
    "generate": "create",
    "compare": "get",
    "diff": "get",
    "summarize": "get",
    "analyze": "get",
    "translate": "get",
    "browse": "search",
}
# Single words that are as often nouns in a tool name ("file", "message", "post"): used
# for the operation only when the name holds no unambiguous verb.
AMBIGUOUS_VERBS = frozenset(
    "file new open set tag label message email post build run select count see take put "
    "store share book view land accept claim ack ping reply start make add raise draft "
    "read check show close move schedule diff".split()
)
DESTRUCTIVE_VERBS = frozenset("delete remove drop purge wipe destroy erase terminate".split())


def _verb_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for operation in OPERATIONS.values():
        for verb in operation.verbs:
            if " " not in verb:
                table.setdefault(verb, operation.name)
    for verb, op_name in EXTRA_VERBS.items():
        table.setdefault(verb, op_name)
    return table


VERB_TO_OPERATION: Mapping[str, str] = _verb_table()


def name_words(name: str) -> list[str]:
    """`getNodeById`, `get_node_by_id`, `get-node.by.id` -> ["get", "node", "by", "id"]."""
    words: list[str] = []
    for chunk in _WORD_SPLIT.split(name):
        words.extend(w.lower() for w in _CAMEL.split(chunk) if w)
    return words


def base_verb(word: str) -> str | None:
    """The base form of a verb in the vocabulary (`lists` -> list, `fetches` -> fetch)."""
    w = word.lower()
    candidates = [w]
    if w.endswith("ies") and len(w) > 4:
        candidates.append(w[:-3] + "y")
    if w.endswith(("ches", "shes", "sses", "xes", "zes")):
        candidates.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        candidates.append(w[:-1])
    for c in candidates:
        if c in VERB_TO_OPERATION:
            return c
    return None


def singular(word: str) -> str:
    """The singular of a lowercase word: `requests` -> request, `policies` -> policy."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def name_verb(words: Sequence[str]) -> tuple[int, str] | None:
    """Index and base form of the verb in a tool name's words, unambiguous verbs first."""
    hits = [(i, v) for i, w in enumerate(words) if (v := base_verb(w)) is not None]
    clear = [(i, v) for i, v in hits if v not in AMBIGUOUS_VERBS]
    chosen = clear or hits
    return chosen[0] if chosen else None


# --- implementer voice ----------------------------------------------------------------

# Regex fragments: who an implementer-voice text says acts ("this endpoint") and for
# whom ("the caller"); `serving.catalog.derive` rewrites summaries with them too.
IMPLEMENTER_SUBJECT = (
    r"(?:this|the|our)\s+(?:\w+\s+)?(?:endpoint|function|tool|api|method|operation|call|route|"
    r"helper|wrapper|shim|action|service|command|utility)"
)
CALLER = r"(?:you|users?|the user|the caller|callers|clients?|agents?|the model|the assistant)"
IMPLEMENTER_VOICE = re.compile(
    rf"^\s*(?:{IMPLEMENTER_SUBJECT}\b|(?:use|call)\s+this\s+(?:tool|function)|used\s+to\b|"
    rf"(?:allows|lets|enables)\s+{CALLER}\b|(?:a|an)\s+(?:\w+\s+)?(?:tool|function|endpoint|"
    r"helper|wrapper)\s+(?:that|which|to|for)\b|returns?\b|ret\b|wraps?\b|wrapper\b|"
    r"(?:thin\s+)?shim\b|passthru\b|calls\s|(?:GET|POST|PUT|PATCH|DELETE)\s+/|"
    r"legacy\s+\w+\s+\w+\s+endpt\b)|\b(?:GET|POST|PUT|PATCH|DELETE)\s+/|\bendpt\b|\bshim\b",
    re.IGNORECASE,
)


def implementer_phrase(text: str) -> str | None:
    """The implementer-voice phrase a summary opens with or contains, if any."""
    match = IMPLEMENTER_VOICE.search(text)
    return match.group(0).strip() if match else None

"""The operation vocabulary shared by tool cards, the demo world and the decomposer.

A capability on a card is written `"<operation>:<entity>"` (e.g. `"list:commit"`,
`"get:rollout_status"`). Each operation has a side-effect class and the verbs a user
says for it; the rule-based decomposer maps verbs back to operations with this table.
"""

from __future__ import annotations

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
        Operation("query", False, ("query", "run sql", "select", "count", "aggregate")),
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


def parse_capability(capability: str) -> tuple[str, str]:
    """Split `"op:entity"`; a capability without a colon is all entity, op unknown."""
    op, sep, entity = capability.partition(":")
    return (op, entity) if sep else ("", capability)

"""The data model of the world tables (domains -> entities and servers) and of a chosen
tool; `entity_spec` and `server_spec` build the table rows from compact strings.

Phrase kinds per operation: search -> hay + q, list/export -> objs, query -> qry,
create/schedule -> new, update -> obj + change, send -> dest + msg, upload -> upl, others -> obj.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# --- the data model of the world tables -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntitySpec:
    """A thing tools act on, with the words users say and the phrases requests are built from.

    `phrases` maps a phrase kind (obj, objs, hay, q, qry, new, change, dest, msg, upl), or
    `kind_op` for one operation, to phrase templates whose `{slot}`s are drawn from VALUES.
    """

    name: str
    nouns: tuple[str, ...]
    plurals: tuple[str, ...]
    ops: tuple[str, ...]
    scope: str  # the OAuth-style resource: scopes are "<scope>:read|write|admin"
    ctx: str  # where it lives, for summaries ("in a repository")
    keys: tuple[str, ...]  # params naming one instance
    container: tuple[str, ...]  # params naming the collection
    filters: tuple[str, ...]
    fields: tuple[str, ...]  # create/update/send params; a trailing "!" marks required
    token: tuple[str, str]  # (singular, plural) used in tool names
    summaries: Mapping[str, str]
    soft_delete: bool  # delete is reversible (archive, revoke): risk write, not destructive
    phrases: Mapping[str, tuple[str, ...]]

    def phrase(self, kind: str, op: str) -> tuple[str, ...]:
        found = self.phrases.get(f"{kind}_{op}") or self.phrases.get(kind)
        if not found:
            raise KeyError(f"entity {self.name!r} has no {kind!r} phrases for {op!r}")
        return found


@dataclass(frozen=True, slots=True)
class ServerSpec:
    server: str
    product: str  # what users call it; requests name it to disambiguate near-duplicates
    style: str  # tool naming: snake | object | camel | pascal | kebab | cryptic
    connection: str
    entities: tuple[str, ...]  # () = every entity of the domain
    pinned: tuple[str, ...]  # capabilities always implemented
    skip: tuple[str, ...]
    only: tuple[str, ...]  # explicit capability list (legacy servers)
    trust: str
    verbs: Mapping[str, str]
    aliases: Mapping[str, tuple[str, str]]
    names: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class DomainSpec:
    name: str
    owner: str
    entities: tuple[EntitySpec, ...]
    servers: tuple[ServerSpec, ...]


def entity_spec(name: str, nouns: str, plurals: str, ops: str, *, scope: str, ctx: str,
                keys: str = "", container: str = "", filters: str = "", fields: str = "",
                token: str = "", summ: Mapping[str, str] | None = None,
                soft_delete: bool = False, **phrases: Sequence[str]) -> EntitySpec:
    sing, _, plur = (token or f"{name}/{name}s").partition("/")
    return EntitySpec(
        name=name, nouns=tuple(nouns.split("|")), plurals=tuple(plurals.split("|")),
        ops=tuple(ops.split()), scope=scope, ctx=ctx, keys=tuple(keys.split()),
        container=tuple(container.split()), filters=tuple(filters.split()),
        fields=tuple(fields.split()), token=(sing, plur or sing), summaries=dict(summ or {}),
        soft_delete=soft_delete, phrases={k: tuple(v) for k, v in phrases.items()},
    )


def server_spec(server: str, product: str, style: str, *, connection: str = "",
                entities: str = "", pinned: str = "", skip: str = "", only: str = "",
                trust: str = "first_party", verbs: Mapping[str, str] | None = None,
                aliases: Mapping[str, str] | None = None,
                names: Mapping[str, str] | None = None) -> ServerSpec:
    return ServerSpec(
        server=server, product=product, style=style, connection=connection or server,
        entities=tuple(entities.split()), pinned=tuple(pinned.split()), skip=tuple(skip.split()),
        only=tuple(only.split()), trust=trust, verbs=dict(verbs or {}),
        aliases={k: tuple(v.split("/")) for k, v in (aliases or {}).items()},  # type: ignore[misc]
        names=dict(names or {}),
    )


@dataclass(frozen=True, slots=True)
class Tool:
    """A chosen (server, capability) with everything the later stages need about it."""

    tool_id: str
    name: str
    domain: DomainSpec
    server: ServerSpec
    entity: EntitySpec
    op: str
    risk: str
    scopes: tuple[str, ...]
    env: tuple[str, ...]
    added_at: str
    new: bool
    cryptic: bool

    @property
    def capability(self) -> str:
        return f"{self.op}:{self.entity.name}"

    @property
    def connection(self) -> str:
        return self.server.connection

"""The catalog: which (server, capability) tools exist, and their tool cards.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from serving.model.schema import Requires, ToolCard
from serving.model.vocab import READ_OPERATIONS
from training.demo.params import NEW_TOOL_DAYS, WorldParams
from training.demo.phrasing import (
    CRYPTIC_NOTES,
    CRYPTIC_RETURNS,
    CRYPTIC_SUMMARIES,
    ENTITY_ABBR,
    OP_ABBR,
    SUMMARIES,
    TRACE_TEMPLATES,
)
from training.demo.render import Values, render
from training.demo.schemas import (
    CONCEPTS,
    input_schema,
    param_name,
    risk_of,
    schema_params,
    tool_name,
    with_article,
)
from training.demo.spec import DomainSpec, EntitySpec, ServerSpec, Tool
from training.demo.tables import CROSS_DOMAIN, DOMAINS

# --- building the catalog -------------------------------------------------------------------



REQUIRED_TOOLS = ("github.list_commits", "github.compare_commits", "github.search_code",
                  "k8s.get_rollout_status", "k8s.get_pod_logs", "slack.post_message",
                  "logs.search", "datadog.search_logs")
_OP_LATENCY_MS = {"search": 350, "list": 180, "get": 120, "query": 1400, "export": 3200,
                  "create": 420, "update": 380, "delete": 300, "send": 260, "trigger": 900,
                  "cancel": 300, "restart": 1500, "rollback": 2200, "scale": 800, "merge": 700,
                  "approve": 250, "acknowledge": 200, "resolve": 220, "refund": 650,
                  "upload": 1800, "schedule": 450}
_HTTP = {"search": "GET", "list": "GET", "get": "GET", "query": "POST", "export": "GET",
         "update": "PATCH", "delete": "DELETE"}


def _choose_capabilities(p: WorldParams, rng: random.Random) -> list[tuple[DomainSpec, ServerSpec,
                                                                      EntitySpec, str]]:
    chosen = []
    for dom in DOMAINS:
        known = {e.name for e in dom.entities}
        for srv in dom.servers:
            unknown = set(srv.entities) - known
            if unknown:
                raise ValueError(f"server {srv.server}: unknown entities {sorted(unknown)}")
            for ent in dom.entities:
                if srv.entities and ent.name not in srv.entities:
                    continue
                for op in ent.ops:
                    cap = f"{op}:{ent.name}"
                    if srv.only:
                        keep = cap in srv.only
                    elif cap in srv.skip:
                        keep = False
                    else:
                        chance = p.coverage if op in READ_OPERATIONS else p.write_coverage
                        keep = rng.random() < chance or cap in srv.pinned
                    if keep:
                        chosen.append((dom, srv, ent, op))
        # every capability of the domain lives somewhere: the first server that may hold it
        have = {(e.name, op) for d, _, e, op in chosen if d is dom}
        for ent in dom.entities:
            for op in ent.ops:
                if (ent.name, op) in have:
                    continue
                for srv in dom.servers:
                    if (not srv.entities or ent.name in srv.entities) and not srv.only and \
                            f"{op}:{ent.name}" not in srv.skip:
                        chosen.append((dom, srv, ent, op))
                        break
    return chosen


def build_tools(p: WorldParams, rng: random.Random) -> list[Tool]:
    """Choose capabilities per server, name the tools, and mark the new and cryptic ones."""
    draft = []
    for dom, srv, ent, op in _choose_capabilities(p, rng):
        name = tool_name(srv, ent, op)
        risk = risk_of(ent, op)
        level = {"read_only": "read", "write": "write", "destructive": "admin"}[risk]
        u = rng.random()
        env = ("prod", "staging") if u < 0.85 else ("prod",) if u < 0.95 else ("staging",)
        age = rng.randint(700, 2000) if srv.style == "cryptic" else rng.randint(45, 1100)
        tool_id = f"{srv.server}.{name}"
        draft.append(Tool(
            tool_id=tool_id, name=name, domain=dom, server=srv, entity=ent, op=op, risk=risk,
            scopes=(f"{ent.scope}:{level}",),
            env=("prod", "staging") if tool_id in REQUIRED_TOOLS else env,
            added_at=(p.day0 - timedelta(days=age)).isoformat(), new=False,
            cryptic=srv.style == "cryptic"))
    counts = Counter(t.tool_id for t in draft)
    dupes = sorted(i for i, k in counts.items() if k > 1)
    if dupes:
        raise ValueError(f"tool ids collide: {dupes}")
    missing = [t for t in REQUIRED_TOOLS if t not in counts]
    if missing:
        raise ValueError(f"required tools missing from the world tables: {missing}")

    n = len(draft)
    open_idx = [i for i, t in enumerate(draft) if not t.cryptic and t.tool_id not in REQUIRED_TOOLS]
    extra = max(0, round(p.cryptic_share * n) - sum(t.cryptic for t in draft))
    cryptic = set(rng.sample(open_idx, min(extra, len(open_idx))))
    fresh_pool = [i for i in open_idx if i not in cryptic]
    new = set(rng.sample(fresh_pool, min(round(p.new_share * n), len(fresh_pool))))
    tools = []
    for i, t in enumerate(draft):
        if i in cryptic:
            t = replace(t, cryptic=True)
        elif i in new:
            added = p.day0 - timedelta(days=rng.randint(1, NEW_TOOL_DAYS - 1))
            t = replace(t, new=True, added_at=added.isoformat())
        tools.append(t)
    return tools


def near_duplicates(tools: Sequence[Tool]) -> dict[str, tuple[str, ...]]:
    """Same capability on another server, then look-alike capabilities of other domains."""
    by_cap: dict[str, list[Tool]] = defaultdict(list)
    for t in tools:
        by_cap[t.capability].append(t)
    partners: dict[str, list[str]] = defaultdict(list)
    for a, b in CROSS_DOMAIN:
        partners[a].append(b)
        partners[b].append(a)
    out = {}
    for t in tools:
        same = [s.tool_id for s in by_cap[t.capability] if s.server is not t.server]
        cross = [s.tool_id for cap in partners.get(t.capability, ()) for s in by_cap[cap]]
        out[t.tool_id] = tuple(same + cross)
    return out


def _families(tools: Sequence[Tool]) -> list[tuple[str, list[Tool], list[Tool]]]:
    """(key, members, look-alikes): same-capability families and cross-domain pairs."""
    by_cap: dict[str, list[Tool]] = defaultdict(list)
    for t in tools:
        by_cap[t.capability].append(t)
    fams: list[tuple[str, list[Tool], list[Tool]]] = [
        (cap, ts, []) for cap, ts in by_cap.items() if len(ts) > 1]
    fams += [(f"{a}~{b}", by_cap[a], by_cap[b]) for a, b in CROSS_DOMAIN
             if by_cap.get(a) and by_cap.get(b)]
    return fams


def _plain_summary(t: Tool, rng: random.Random) -> str:
    ent = t.entity
    own = ent.summaries.get(t.op)
    if own:
        return own
    ctx = ent.ctx + (f" on {t.server.product}" if rng.random() < 0.4 else "")
    text = rng.choice(SUMMARIES[t.op]).format(ent=ent.nouns[0], ents=ent.plurals[0],
                                               a_ent=with_article(ent.nouns[0]), ctx=ctx)
    return text[0].upper() + text[1:]


def _cryptic_text(t: Tool, schema: Mapping[str, Any], rng: random.Random) -> tuple[str, str]:
    abbr = ENTITY_ABBR.get(t.entity.name, t.entity.name[:4])
    ref = f"{rng.choice(('INFRA', 'OPS', 'BILL', 'SCM', 'PLAT'))}-{rng.randint(100, 999)}"
    summary = rng.choice(CRYPTIC_SUMMARIES).format(
        method=_HTTP.get(t.op, "POST"), ver=rng.randint(1, 3), abbr=abbr, opabbr=OP_ABBR[t.op],
        ret=rng.choice(CRYPTIC_RETURNS), note=rng.choice(CRYPTIC_NOTES), ref=ref)
    required = set(schema.get("required", ()))
    params = ", ".join(k[:6] + ("*" if k in required else "") for k in schema["properties"])
    tail = rng.choice(CRYPTIC_NOTES)
    return summary, f"{summary}. p: {params}. {tail}; {ref}"


def _description(t: Tool, summary: str, schema: Mapping[str, Any], rng: random.Random) -> str:
    props = schema["properties"]
    required = set(schema.get("required", ()))
    sing, plur = t.server.aliases.get(t.entity.name, t.entity.token)
    path = f"/{rng.choice(('api/v1', 'api/v2', 'v3', 'rest/api/2'))}/{plur or sing}"
    if t.op not in ("search", "list", "export", "query", "create", "send", "upload",
                    "schedule") and t.entity.keys:
        path += "/{" + param_name(t.entity.keys[-1], t.server.style) + "}"
    notes = "; ".join(
        f"`{k}`{' (required)' if k in required else ''}: {v['description'].rstrip('.')}"
        + (f" (one of {', '.join(map(str, v['enum']))})" if "enum" in v else "")
        for k, v in list(props.items())[:4])
    risk = {"read_only": "Read-only; large results are paginated.",
            "write": f"Changes data in {t.server.product}.",
            "destructive": "Irreversible: the data cannot be recovered afterwards."}[t.risk]
    product = t.server.product
    api = f"{product} API" if product.startswith("the ") else f"the {product} API"
    return f"{summary} Calls {_HTTP.get(t.op, 'POST')} {path} on {api}. " \
           f"Parameters: {notes}. {risk}"


def build_cards(tools: Sequence[Tool], p: WorldParams, rng: random.Random) -> tuple[ToolCard, ...]:
    by_id = {t.tool_id: t for t in tools}
    plain = {t.tool_id: _plain_summary(t, rng) for t in tools}
    not_for: dict[str, list[str]] = defaultdict(list)
    prefer: dict[str, list[str]] = defaultdict(list)
    for _, members, lookalikes in sorted(_families(tools), key=lambda f: f[0]):
        if rng.random() >= p.annotated_family_share:
            continue
        if lookalikes:  # cross-domain: each side points at the other
            for side, other in ((members, lookalikes), (lookalikes, members)):
                for t in side:
                    o = rng.choice(other)
                    text = plain[o.tool_id].rstrip(".")
                    not_for[t.tool_id].append(f"{text[0].lower()}{text[1:]} (use {o.tool_id})")
            continue
        for t in members:
            sibs = [s for s in members if s is not t]
            for s in rng.sample(sibs, min(2, len(sibs))):
                not_for[t.tool_id].append(
                    f"{t.entity.plurals[0]} in {s.server.product} (use {s.tool_id})")
            if t.server.trust == "first_party" and not t.cryptic:
                prefer[t.tool_id] += [s.tool_id for s in sibs
                                      if s.cryptic or s.server.trust == "third_party"]
    examples_rng = random.Random(f"{p.seed}/examples")
    cards = []
    for t in tools:
        schema = input_schema(t.entity, t.op, t.server.style, destructive=t.risk == "destructive")
        if t.cryptic:
            summary, description = _cryptic_text(t, schema, rng)
            n_examples = rng.choice((0, 0, 1))
        else:
            summary = plain[t.tool_id]
            description = _description(t, summary, schema, rng)
            n_examples = rng.choice((1, 2))
        examples = []
        for _ in range(n_examples):
            values = Values(examples_rng, p.day0)
            style = examples_rng.choice(tuple(TRACE_TEMPLATES[t.op]))
            text = render(t, TRACE_TEMPLATES, style, values, examples_rng)
            examples.append(text[0].upper() + text[1:])
        concepts = [CONCEPTS.get(k, k.replace("_", " ")) for k, _ in schema_params(t.entity, t.op)
                    if k not in ("limit", "cursor", "format")]
        cost = 0.0
        if t.domain.name == "web_search":
            cost = round(rng.uniform(0.002, 0.01), 4)
        elif t.op == "query" and t.server.server in ("snowflake", "bigquery"):
            cost = round(rng.uniform(0.01, 0.05), 4)
        elif t.op == "send" and t.domain.name == "email":
            cost = 0.0008
        cards.append(ToolCard(
            tool_id=t.tool_id, server=t.server.server, domain=t.domain.name, name=t.name,
            summary=summary, capabilities=(t.capability,),
            entities=tuple(dict.fromkeys((t.entity.name, *[CONCEPTS.get(c, c) for c in
                                                            t.entity.container]))),
            input_concepts=tuple(dict.fromkeys(concepts)),
            prefer_over=tuple(x for x in dict.fromkeys(prefer[t.tool_id]) if x in by_id),
            not_for=tuple(not_for[t.tool_id]), examples=tuple(examples),
            requires=Requires(connection=t.connection, scopes=t.scopes), risk=t.risk, cost=cost,
            p50_ms=float(round(_OP_LATENCY_MS[t.op] * rng.uniform(0.6, 1.7)
                               * (1.8 if t.cryptic else 1.0))),
            owner=f"vendor:{t.server.server}" if t.server.trust == "third_party"
            else t.domain.owner,
            schema_version=rng.choice(("1", "1", "1", "2")), input_schema=schema,
            env=t.env, added_at=t.added_at, trust=t.server.trust, description=description,
        ))
    return tuple(cards)

"""The whole world: catalog, traces and eval queries from one `WorldParams`, and a summary.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from features.no_tool import PRODUCTS, no_tool_queries, no_tool_texts
from serving.model.schema import LabeledQuery, ToolCard, Trace
from training.demo.cards import build_cards, build_tools
from training.demo.params import SLICES, WorldParams
from training.demo.phrasing import VALID_PHRASING
from training.demo.queries import generate_queries
from training.demo.traces import Org, generate_traces


@dataclass(frozen=True, slots=True)
class World:
    """The generated world; the two id sets and `near_dups` are the ground truth behind slices."""

    cards: tuple[ToolCard, ...]
    traces: tuple[Trace, ...]
    queries: tuple[LabeledQuery, ...]
    no_tool: tuple[LabeledQuery, ...] = ()  # requests no tool serves, for tune_menus
    valid: tuple[LabeledQuery, ...] = ()  # requests with gold in the validation phrasing
    new_tools: frozenset[str] = frozenset()
    cryptic_tools: frozenset[str] = frozenset()
    # tool id -> same-capability tools on other servers, then cross-domain look-alikes
    near_dups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)



# --- the world ------------------------------------------------------------------------------


def generate_world(params: WorldParams) -> World:
    """Build the catalog, traces, eval queries, no-tool and validation requests; pure and
    deterministic in `params` (each part has its own random stream, so adding one leaves
    the others as they were)."""
    tools = build_tools(params, random.Random(f"{params.seed}/catalog"))
    cards = build_cards(tools, params, random.Random(f"{params.seed}/cards"))
    org = Org.of(tools, params.day0)
    traces = generate_traces(org, params, random.Random(f"{params.seed}/traces"))
    taken = {t.request for t in traces} | {t.subgoal for t in traces}
    taken |= {ex for c in cards for ex in c.examples}
    queries = generate_queries(org, params, random.Random(f"{params.seed}/eval"), taken)
    no_tool = generate_no_tool(org, params, random.Random(f"{params.seed}/no_tool"),
                               taken | {q.query for q in queries})
    taken |= {q.query for q in (*queries, *no_tool)}
    taken |= {sg.text for q in queries for sg in q.subgoals}
    valid = generate_queries(org, params, random.Random(f"{params.seed}/valid"), taken,
                             phrasing=VALID_PHRASING, n=params.n_valid_queries,
                             no_tool_share=0.0, prefix="v")
    return World(
        cards=cards, traces=traces, queries=queries, no_tool=no_tool, valid=valid,
        new_tools=frozenset(t.tool_id for t in tools if t.new),
        cryptic_tools=frozenset(t.tool_id for t in tools if t.cryptic),
        near_dups=org.near,
    )


def generate_no_tool(org: Org, params: WorldParams, rng: random.Random,
                     taken: set[str]) -> tuple[LabeledQuery, ...]:
    """Requests no tool of the world serves (`features.no_tool`), each in a session of 6-12
    connections as the eval's; products the world has are never named as unknown."""
    have = {t.server.product.lower() for t in org.tools} | {c.lower() for c in org.connections}
    products = [p for p in PRODUCTS if p.lower() not in have]
    texts = [(f, t) for f, t in no_tool_texts(params.n_no_tool_queries, rng,
                                               products=products) if t not in taken]
    envs = ("prod", "prod", "staging")
    contexts = [org.context(org.pad([], rng.randint(6, 12), set(), rng), (), rng.choice(envs), rng)
                for _ in texts]
    return tuple(no_tool_queries(texts, lambda i: contexts[i], prefix="nt"))


# --- summary and CLI ------------------------------------------------------------------------


def summarize(world: World) -> str:
    """A plain-text table of what the world contains (printed by main)."""
    cards, traces, queries = world.cards, world.traces, world.queries
    n = len(cards)
    lines = [f"tools {n} on {len({c.server for c in cards})} servers in "
             f"{len({c.domain for c in cards})} domains; new {len(world.new_tools)} "
             f"({len(world.new_tools) / n:.1%}), cryptic {len(world.cryptic_tools)} "
             f"({len(world.cryptic_tools) / n:.1%})"]
    risk = Counter(c.risk for c in cards)
    lines.append("risk    " + "  ".join(f"{r} {risk[r]} ({risk[r] / n:.1%})"
                                         for r in ("read_only", "write", "destructive")))
    lines.append("domain            tools servers")
    by_domain: dict[str, list[ToolCard]] = defaultdict(list)
    for c in cards:
        by_domain[c.domain].append(c)
    for d, cs in sorted(by_domain.items()):
        lines.append(f"  {d:<16}{len(cs):>6}{len({c.server for c in cs}):>8}")
    n_t = len(traces)
    requests = Counter(t.request_id for t in traces)
    multi_req = len({t.request_id for t in traces if t.request != t.subgoal})
    lines.append(f"traces {n_t} in {len(requests)} requests; failures "
                 f"{sum(not t.success for t in traces) / n_t:.1%}; multi-part requests "
                 f"{multi_req / len(requests):.1%}; menu unknown "
                 f"{sum(not t.menu for t in traces) / n_t:.1%}; tools used "
                 f"{len({t.tool_id for t in traces})}")
    n_q = len(queries)
    sl = Counter(s for q in queries for s in q.slices)
    lines.append(f"eval {n_q} queries; multi-subgoal {sl['multi_subgoal'] / n_q:.1%}; "
                 f"no-tool {sl['no_tool'] / n_q:.1%}")
    lines.append("slice             queries share")
    for s in SLICES:
        lines.append(f"  {s:<16}{sl[s]:>7} {sl[s] / n_q:>6.1%}")
    return "\n".join(lines)

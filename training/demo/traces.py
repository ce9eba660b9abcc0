"""Trace events: the organisation's sessions, Zipf-popular tools, menus and failures.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import accumulate
from typing import Any

from serving.model.schema import Trace
from training.demo.cards import REQUIRED_TOOLS, near_duplicates
from training.demo.params import WorldParams
from training.demo.phrasing import TRACE_EXACT, TRACE_JOINS, TRACE_MENTIONS, TRACE_TEMPLATES
from training.demo.render import Values, join_parts, mention, render
from training.demo.spec import Tool
from training.demo.tables import FOLLOW_UPS

# --- traces ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Org:
    """Lookup tables shared by trace and eval generation."""

    tools: tuple[Tool, ...]
    by_id: Mapping[str, Tool]
    near: Mapping[str, tuple[str, ...]]
    connections: tuple[str, ...]
    by_connection: Mapping[str, tuple[Tool, ...]]
    read_scopes: Mapping[str, tuple[str, ...]]
    write_scopes: Mapping[str, tuple[str, ...]]
    age_s: Mapping[str, int]  # seconds a tool has existed at world_date

    @classmethod
    def of(cls, tools: Sequence[Tool], day0: date) -> Org:
        by_conn: dict[str, list[Tool]] = defaultdict(list)
        for t in tools:
            by_conn[t.connection].append(t)
        read = {c: tuple(sorted({s for t in ts if t.risk == "read_only" for s in t.scopes}))
                for c, ts in by_conn.items()}
        write = {c: tuple(sorted({s for t in ts if t.risk != "read_only" for s in t.scopes}))
                 for c, ts in by_conn.items()}
        return cls(tuple(tools), {t.tool_id: t for t in tools}, near_duplicates(tools),
                   tuple(sorted(by_conn)), {c: tuple(ts) for c, ts in by_conn.items()}, read,
                   write, {t.tool_id: _age_s([t], day0) for t in tools})

    def context(self, conns: Iterable[str], must: Iterable[Tool], env: str,
                rng: random.Random) -> dict[str, Any]:
        """Connections, their read scopes, some write scopes, and every scope `must` needs."""
        conns = sorted(set(conns))
        scopes = {s for c in conns for s in self.read_scopes[c]}
        scopes |= {s for c in conns for s in self.write_scopes[c] if rng.random() < 0.35}
        scopes |= {s for t in must for s in t.scopes}
        return {"connections": conns, "scopes": sorted(scopes), "env": env}

    def pad(self, conns: list[str], size: int, avoid: set[str], rng: random.Random) -> list[str]:
        pool = [c for c in self.connections if c not in conns and c not in avoid]
        rng.shuffle(pool)
        return conns + pool[: max(0, size - len(conns))]


def pick_env(tools: Sequence[Tool], rng: random.Random) -> str | None:
    common = [e for e in ("prod", "staging") if all(e in t.env for t in tools)]
    if not common:
        return None
    return "prod" if "prod" in common and (len(common) == 1 or rng.random() < 0.8) else common[-1]


def _menu(chosen: Tool, gold: Tool, org: Org, conns: Sequence[str], env: str, before: int,
          rng: random.Random) -> tuple[str, ...]:
    """5-8 callable tools that existed `before` seconds ago: the chosen and right ones,
    near-duplicates, then tools of the same connection or another connected one."""
    size = rng.randint(5, 8)
    menu = list(dict.fromkeys((chosen.tool_id, gold.tool_id)))
    live = set(conns)
    near = [i for i in org.near[gold.tool_id] if org.by_id[i].connection in live
            and env in org.by_id[i].env and org.age_s[i] >= before]
    rng.shuffle(near)
    menu += [i for i in near[:3] if i not in menu]
    tries = 0
    while len(menu) < size and tries < 60:
        tries += 1
        conn = gold.connection if tries % 2 else rng.choice(conns)
        cand = rng.choice(org.by_connection[conn])
        if cand.tool_id not in menu and env in cand.env and org.age_s[cand.tool_id] >= before:
            menu.append(cand.tool_id)
    rng.shuffle(menu)
    return tuple(menu)


def popularity_order(tools: Sequence[Tool], rng: random.Random) -> list[Tool]:
    """A seeded ranking that favours main servers and reads (weighted random permutation)."""
    def weight(t: Tool) -> float:
        rank = t.domain.servers.index(t.server)
        w = 3.0 if rank == 0 else 1.6 if rank == 1 else 1.0
        w *= 0.6 if t.server.trust == "third_party" else 1.0
        w *= 0.5 if t.cryptic else 4.0 if t.tool_id in REQUIRED_TOOLS else 1.0
        w *= {"get": 2.0, "list": 2.0, "search": 2.0, "query": 1.5, "send": 1.2, "create": 1.2,
              "update": 1.2}.get(t.op, 0.3 if t.risk == "destructive" else 0.8)
        return w

    keyed = [(rng.random() ** (1.0 / weight(t)), i) for i, t in enumerate(tools)]
    return [tools[i] for _, i in sorted(keyed, reverse=True)]


def _zipf_picker(tools: Sequence[Tool], s: float,
                 rng: random.Random) -> Callable[[], Tool]:
    order = popularity_order(tools, rng)
    cum = list(accumulate(1.0 / (rank + 1) ** s for rank in range(len(order))))
    return lambda: rng.choices(order, cum_weights=cum)[0]


def _age_s(tools: Sequence[Tool], day0: date) -> int:
    """Seconds since the youngest of `tools` was added: no trace may predate a tool."""
    return min((day0 - date.fromisoformat(t.added_at)).days for t in tools) * 86400 - 60


def _stamp(day0: date, seconds_before: int) -> str:
    moment = datetime(day0.year, day0.month, day0.day) - timedelta(seconds=seconds_before)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _trace_subgoals(golds: Sequence[Tool], org: Org, rng: random.Random,
                    values: Values) -> list[str]:
    texts = []
    for i, g in enumerate(golds):
        styles = ("imperative", "question", "terse") if len(golds) == 1 else \
            ("imperative", "terse") if i == 0 else ("imperative",)
        text = render(g, TRACE_TEMPLATES, rng.choice(styles), values, rng)
        if len(golds) > 1:
            text = text.rstrip("?")  # a question mark mid-request reads wrong
        u = rng.random()
        if u < 0.02 and (i == 0 or len(golds) == 1):
            text = rng.choice(TRACE_EXACT).format(text=text, tool_id=g.tool_id)
        elif u < 0.25:
            text = mention(text, g.server.product, TRACE_MENTIONS, rng)
        texts.append(text)
    return texts


def generate_traces(org: Org, p: WorldParams, rng: random.Random) -> tuple[Trace, ...]:
    """Zipf-popular tools, near-duplicate failures, menus, multi-part requests."""
    warm = [t for t in org.tools if not t.new]
    pick = _zipf_picker(warm, p.zipf_s, rng)
    follow = [t for t in warm if t.capability in FOLLOW_UPS]
    window = p.trace_days * 86400
    plans: list[tuple[int, list[Tool]]] = []  # (seconds before world_date, golds)
    for _ in range(p.n_trace_requests):
        n_sub = 1 if rng.random() >= p.trace_multi_share else rng.choice((2, 2, 3))
        golds = [pick()]
        for _ in range(20):
            if len(golds) == n_sub:
                break
            t = rng.choice(follow) if rng.random() < 0.5 else pick()
            if t not in golds and pick_env([*golds, t], rng) is not None:
                golds.append(t)
        plans.append((rng.randint(60, min(window, _age_s(golds, p.day0))), golds))
    for t in sorted((t for t in org.tools if t.new), key=lambda t: t.tool_id):
        plans += [(rng.randint(60, _age_s([t], p.day0)), [t]) for _ in range(rng.randint(0, 3))]
    plans.sort(key=lambda plan: -plan[0])  # oldest first: request ids follow time

    traces: list[Trace] = []
    for n, (before, golds) in enumerate(plans):
        env = pick_env(golds, rng) or "prod"
        steps: list[tuple[Tool, Tool, bool]] = []  # (chosen, right tool, success)
        for g in golds:
            wrong = [org.by_id[i] for i in org.near[g.tool_id]]
            wrong = [w for w in wrong
                     if not w.new and env in w.env and org.age_s[w.tool_id] >= before]
            u = rng.random()
            if wrong and u < p.trace_failure_rate:
                steps.append((rng.choice(wrong), g, False))
                if rng.random() < 0.75:
                    steps.append((g, g, True))
            elif u > 0.99 and not g.new:  # the right tool failing transiently, then retried
                steps += [(g, g, False)] + ([(g, g, True)] if rng.random() < 0.8 else [])
            else:
                steps.append((g, g, True))
        conns = list(dict.fromkeys(t.connection for c, g, _ in steps for t in (c, g)))
        for g in golds:
            sibs = [org.by_id[i].connection for i in org.near[g.tool_id]]
            if sibs and rng.random() < 0.3:
                conns.append(rng.choice(sibs))
        conns = org.pad(list(dict.fromkeys(conns)), rng.randint(4, 10), set(), rng)
        context = org.context(conns, [c for c, _, _ in steps], env, rng)
        values = Values(rng, p.day0)
        texts = _trace_subgoals(golds, org, rng, values)
        request = join_parts(texts, TRACE_JOINS, rng)
        text_of = {g.tool_id: text for g, text in zip(golds, texts, strict=True)}
        request_id = f"req-{n:06d}"
        for k, (chosen, gold, ok) in enumerate(steps):
            menu = _menu(chosen, gold, org, context["connections"], env, before, rng) \
                if rng.random() < p.trace_menu_share else ()
            traces.append(Trace(
                subgoal=text_of[gold.tool_id], tool_id=chosen.tool_id, success=ok,
                request_id=request_id, request=request,
                ts=_stamp(p.day0, max(1, before - 7 * k)), menu=menu, context=context))
    return tuple(traces)

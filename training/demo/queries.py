"""Labeled queries with their slices: the eval's, phrased with the eval templates, and the
validation requests `tune_menus` chooses its operating point on, phrased with a third family.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from serving.model.schema import LabeledQuery, LabeledSubgoal
from training.demo.params import SLICES, WorldParams
from training.demo.phrasing import EVAL_PHRASING, NO_TOOL_TEMPLATES, Phrasing
from training.demo.render import Values, join_parts, mention, render
from training.demo.spec import Tool
from training.demo.tables import FOLLOW_UPS
from training.demo.traces import Org, pick_env, popularity_order

# --- labeled eval queries -------------------------------------------------------------------


def generate_queries(org: Org, p: WorldParams, rng: random.Random, taken: set[str], *,
                     phrasing: Phrasing = EVAL_PHRASING, n: int | None = None,
                     no_tool_share: float | None = None,
                     prefix: str = "q") -> tuple[LabeledQuery, ...]:
    """`n` requests (default `n_eval_queries`) in `phrasing` (default the eval's), the
    eval's mix of slices (`no_tool_share` overrides its no-tool share); `taken` holds texts
    they must not repeat."""
    regular = [t for t in org.tools if not t.new and not t.cryptic]
    rng_order = popularity_order(regular, rng)
    cum = list(accumulate(1.0 / (rank + 1) ** (p.zipf_s / 2) for rank in range(len(rng_order))))
    new = [t for t in org.tools if t.new]
    cryptic = [t for t in org.tools if t.cryptic]
    follow = [t for t in regular if t.capability in FOLLOW_UPS]

    def pick_gold(focus: str = "") -> Tool:
        if focus == "new" and new:
            return rng.choice(new)
        if focus == "cryptic" and cryptic:
            return rng.choice(cryptic)
        return rng.choices(rng_order, cum_weights=cum)[0]

    seen = {t.lower() for t in taken}
    queries = []
    n = p.n_eval_queries if n is None else n
    no_tool = p.eval_no_tool_share if no_tool_share is None else no_tool_share
    for qi, plan in enumerate(_query_plans(p, rng, n, no_tool)):
        for _ in range(200):  # the plan is fixed, so retries cannot skew the mix
            q = _eval_query(f"{prefix}-{qi:05d}", plan, org, p, rng, pick_gold, follow,
                            phrasing)
            texts = [q.query.lower(), *(sg.text.lower() for sg in q.subgoals)]
            if not any(t in seen for t in texts):
                seen.update(texts)
                queries.append(q)
                break
        else:
            raise RuntimeError(f"could not phrase a fresh eval query {qi}")
    return tuple(queries)


_EVAL_STYLES = ("imperative", "imperative", "question", "terse", "contextual")


@dataclass(frozen=True, slots=True)
class _QueryPlan:
    n_sub: int  # gold subgoals; 0 = a request no tool can serve
    focus: str  # "new" | "cryptic" | "": the pool the first gold comes from
    exact: bool  # one subgoal names its tool id verbatim


def _query_plans(p: WorldParams, rng: random.Random, n: int,
                 no_tool_share: float) -> list[_QueryPlan]:
    """Exact counts per kind, shuffled: the slice sizes follow the params, not luck."""
    n_none = round(no_tool_share * n)
    n_multi = min(round(p.eval_multi_share * n), n - n_none)
    sizes = [0] * n_none + [rng.choice((2, 2, 3)) for _ in range(n_multi)]
    sizes += [1] * (n - len(sizes))
    rng.shuffle(sizes)
    with_tools = [i for i, size in enumerate(sizes) if size]
    order = rng.sample(with_tools, len(with_tools))
    k_new = round(p.eval_new_share * n)
    k_cryptic = round(p.eval_cryptic_share * n)
    focus = {i: "new" for i in order[:k_new]}
    focus |= {i: "cryptic" for i in order[k_new:k_new + k_cryptic]}
    exact = set(rng.sample(with_tools, min(len(with_tools), round(p.eval_exact_name_share * n))))
    return [_QueryPlan(size, focus.get(i, ""), i in exact) for i, size in enumerate(sizes)]


def _eval_query(query_id: str, plan: _QueryPlan, org: Org, p: WorldParams, rng: random.Random,
                pick_gold: Callable[..., Tool], follow: Sequence[Tool],
                phrasing: Phrasing) -> LabeledQuery:
    """One request phrased from `phrasing`, following `plan`."""
    n_sub = plan.n_sub
    values = Values(rng, p.day0)
    if n_sub == 0:
        text = rng.choice(NO_TOOL_TEMPLATES).format_map(values)
        conns = org.pad([], rng.randint(6, 12), set(), rng)
        return LabeledQuery(query_id, text, (), (LabeledSubgoal(text, ()),),
                            org.context(conns, (), rng.choice(("prod", "prod", "staging")), rng),
                            ("no_tool",))
    golds = [pick_gold(plan.focus)]
    for _ in range(50):
        if len(golds) == n_sub:
            break
        t = rng.choice(follow) if rng.random() < 0.5 else pick_gold()
        if t not in golds and pick_env([*golds, t], rng) is not None:
            golds.append(t)
    env = pick_env(golds, rng) or "prod"
    conns = list(dict.fromkeys(g.connection for g in golds))
    near_conns = {org.by_id[i].connection for g in golds for i in org.near[g.tool_id]}
    for g in golds:  # deliberately connect a sibling: the request must then name the product
        sibs = [org.by_id[i].connection for i in org.near[g.tool_id]]
        if sibs and rng.random() < p.eval_near_dup_share:
            conns.append(rng.choice(sibs))
    conns = org.pad(list(dict.fromkeys(conns)), rng.randint(6, 12), near_conns, rng)
    context = org.context(conns, golds, env, rng)
    live = set(context["connections"])
    exact_at = rng.randrange(len(golds)) if plan.exact else -1
    texts, slices = [], {"single" if len(golds) == 1 else "multi_subgoal"}
    for i, g in enumerate(golds):
        styles = _EVAL_STYLES if len(golds) == 1 else \
            ("imperative", "imperative", "contextual") if i == 0 else ("imperative",)
        style = "imperative" if i == exact_at else rng.choice(styles)
        text = render(g, phrasing.templates, style, values, rng)
        clash = any(org.by_id[n].connection in live for n in org.near[g.tool_id])
        if i == exact_at:
            text = rng.choice(phrasing.exact).format(text=text, tool_id=g.tool_id)
            slices.add("exact_name")
        elif clash or rng.random() < 0.15:
            text = mention(text, g.server.product, phrasing.mentions, rng)
        slices |= {"near_duplicate"} if clash else set()
        slices |= {"new_tool"} if g.new else set()
        slices |= {"cryptic"} if g.cryptic else set()
        texts.append(text)
    query = join_parts(texts, phrasing.joins, rng)
    return LabeledQuery(
        query_id=query_id, query=query, gold=tuple(g.tool_id for g in golds),
        subgoals=tuple(LabeledSubgoal(t, (g.tool_id,)) for t, g in zip(texts, golds, strict=True)),
        context=context, slices=tuple(s for s in SLICES if s in slices))

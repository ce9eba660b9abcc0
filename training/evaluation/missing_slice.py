"""The missing-connection slice: eval requests replayed with their gold tool's connection
taken out of the session. The runtime should say which connection is missing
(`StepResult.missing`, `serving.stages.missing_access`) and keep write tools off the menus that
remain, since nothing left fits.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from serving.model.schema import LabeledQuery, ToolCard
from serving.stages.menu_policy import WRITE_RISKS


def without_gold_connection(
    queries: Sequence[LabeledQuery], cards: Mapping[str, ToolCard], *, n: int, seed: int
) -> list[tuple[LabeledQuery, str]]:
    """Up to `n` (seeded) one-gold requests whose session lists connections, each with its
    gold tool's connection removed, and that connection."""
    out = []
    for q in queries:
        conns = q.context.get("connections")
        if len(set(q.gold)) != 1 or q.gold[0] not in cards or not isinstance(conns, list):
            continue
        need = cards[q.gold[0]].requires.connection
        if need not in conns:
            continue
        context = {**q.context, "connections": [c for c in conns if c != need]}
        out.append((LabeledQuery(q.query_id, q.query, q.gold, q.subgoals, context,
                                 (*q.slices, "missing_connection")), need))
    if 0 < n < len(out):
        keep = set(random.Random(seed).sample(range(len(out)), n))
        out = [x for i, x in enumerate(out) if i in keep]
    return out


def missing_connection_slice(
    selector: Any, queries: Sequence[LabeledQuery], *, n: int, seed: int
) -> dict[str, Any]:
    """Share of the slice's requests that name the removed connection (in any step's
    `missing`), that abstain, and whose menus still hold a write or destructive tool."""
    cases = without_gold_connection(queries, selector.cards, n=n, seed=seed)
    named = abstained = writes = 0
    for query, need in cases:
        found = selector.discover(query.query, query.context)
        names = {m.name for m in found.missing() if m.kind == "connection"}
        named += need in names
        abstained += found.abstained
        writes += any(selector.cards[t].risk in WRITE_RISKS for s in found.steps
                      for t in s.menu_ids)
    total = len(cases)
    return {
        "n_queries": total,
        "names_connection": named / total if total else None,
        "abstained": abstained / total if total else None,
        "menus_with_write": writes / total if total else None,
    }

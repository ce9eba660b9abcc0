"""Poisoned variants of first-party demo tools, one set per attack kind
(`training.security.attacks`), and the catalogs before and after the rug pulls.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from serving.model.schema import LabeledQuery, ToolCard
from training.security.attacks import ATTACK_KINDS, RUG_PULLS, attack_variant
from training.security.params import Params


@dataclass(frozen=True, slots=True)
class Poisoned:
    card: ToolCard
    kind: str
    original_id: str

    @property
    def rug_pull(self) -> bool:
        return self.kind in RUG_PULLS



def choose_originals(
    cards: Sequence[ToolCard], queries: Sequence[LabeledQuery], params: Params
) -> list[ToolCard]:
    """Pinned tools, then the first-party tools most often gold in the queries, alternating
    read-only and writing ones; ties broken by a seeded shuffle."""
    rng = random.Random(params.seed)
    by_id = {c.tool_id: c for c in cards}
    counts: dict[str, int] = {}
    for q in queries:
        for g in set(q.gold):
            counts[g] = counts.get(g, 0) + 1
    pool = [by_id[t] for t in counts if t in by_id and by_id[t].trust == "first_party"]
    rng.shuffle(pool)
    pool.sort(key=lambda c: -counts[c.tool_id])
    chosen = [by_id[t] for t in params.pinned_originals if t in by_id]
    reads = [c for c in pool if not c.mutates and c not in chosen]
    writes = [c for c in pool if c.mutates and c not in chosen]
    while len(chosen) < params.n_originals and (reads or writes):
        for group in (reads, writes):
            if group and len(chosen) < params.n_originals:
                chosen.append(group.pop(0))
    return chosen


def poison(
    originals: Sequence[ToolCard], taken_servers: Iterable[str], params: Params
) -> list[Poisoned]:
    """`n_per_kind` variants of every attack kind; rug pulls hit distinct originals."""
    rng = random.Random(params.seed + 1)
    taken = set(taken_servers)
    used_ids: set[str] = set()
    out: list[Poisoned] = []
    rug_targets = list(originals)
    rng.shuffle(rug_targets)

    def fresh(card: ToolCard, candidates: Sequence[str]) -> str | None:
        for server in candidates:
            if server not in taken and f"{server}.{card.name}" not in used_ids:
                return server
        return None

    for k, kind in enumerate(ATTACK_KINDS):
        for i in range(params.n_per_kind):
            if kind in RUG_PULLS:
                pos = i + RUG_PULLS.index(kind) * params.n_per_kind
                if pos >= len(rug_targets):
                    break
                orig = rug_targets[pos]
            else:
                orig = originals[(i + 3 * k) % len(originals)]
            card = attack_variant(kind, i, orig, fresh, rng)
            if card is None:
                continue
            card = ToolCard.from_dict(card.to_dict())  # validated like any loaded card
            used_ids.add(card.tool_id)
            out.append(Poisoned(card, kind, orig.tool_id))
    return out


def install_catalog(clean: Sequence[ToolCard], poisoned: Sequence[Poisoned]) -> list[ToolCard]:
    """The catalog when the user installed the attackers' servers (no rug pull yet)."""
    return [*clean, *(p.card for p in poisoned if not p.rug_pull)]


def current_catalog(clean: Sequence[ToolCard], poisoned: Sequence[Poisoned]) -> list[ToolCard]:
    """After the rug pulls: the edited cards replace their originals."""
    pulled = {p.card.tool_id: p.card for p in poisoned if p.rug_pull}
    return [pulled.get(c.tool_id, c) for c in clean] + [p.card for p in poisoned if not p.rug_pull]


"""The feedback loop's world: a slice of the demo world, what joins it between rounds,
and the traffic each round sends.

The slice is the `n_servers` servers with the most traced requests (the loop must run
on 2 cores in minutes, not hours). Its new tools (added within the world's new-tool
window, so the traces hold few or no requests for them) are held out of round 0 and
join between rounds, in `join_rounds` equal groups; one popular tool's description
changes upstream before `change_round` (the ledger never approved the new text). The
traffic of a round is drawn from the world's one-step requests that succeeded (the
user model's own phrasing, popular tools more often), plus every traced request of the
new tools that have joined. The eval is the demo eval's requests whose gold tools are
all in the slice, one file for every round: a request whose gold has not joined yet is
skipped by the evaluate stage (its `n_skipped_queries`), so the new-tool slice appears
once its tools serve.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from serving.model.schema import LabeledQuery, ToolCard, Trace
from training.loop.agent import AgentRequest

NEW_TOOL_DAYS = 30


@dataclass(frozen=True, slots=True)
class LoopWorld:
    cards: tuple[ToolCard, ...]  # every tool of the slice, new ones included
    joins: Mapping[str, int]  # tool id -> the round it joins (0: from the start)
    changed: tuple[str, str] | None  # (tool id, its new description upstream)
    change_round: int
    pool: tuple[AgentRequest, ...]  # one-step requests that succeeded, traffic of every round
    eval: tuple[LabeledQuery, ...]

    def catalog(self, round_no: int) -> list[ToolCard]:
        """The tools the servers offer in a round (ids sorted)."""
        return [c for c in self.cards if self.joins[c.tool_id] <= round_no]

    def new_tools(self) -> frozenset[str]:
        return frozenset(t for t, r in self.joins.items() if r > 0)

    def edits(self, round_no: int) -> dict[str, str]:
        """Descriptions the servers serve instead of the card's in a round."""
        if self.changed is None or round_no < self.change_round:
            return {}
        return {self.changed[0]: self.changed[1]}

    def traffic(self, round_no: int, n: int, rng: random.Random) -> list[AgentRequest]:
        """`n` requests of the round: drawn from the pool among tools that have joined,
        the joined new tools' own requests always in."""
        live = {c.tool_id for c in self.catalog(round_no)}
        new = self.new_tools()
        joined = [r for r in self.pool if r.gold <= live and r.gold & new]
        rest = [r for r in self.pool if r.gold <= live and not r.gold & new]
        drawn = joined + rng.sample(rest, min(len(rest), max(0, n - len(joined))))
        rng.shuffle(drawn)
        return [AgentRequest(f"r{round_no}-{i:04d}", r.text, r.gold, r.context, r.new_tool)
                for i, r in enumerate(drawn)]


def build_loop_world(
    cards: Sequence[ToolCard],
    traces: Sequence[Trace],
    queries: Sequence[LabeledQuery],
    *,
    n_servers: int,
    join_rounds: int,
    change_round: int,
    seed: int,
) -> LoopWorld:
    """The slice and its schedule (see the module doc)."""
    rng = random.Random(seed)
    by_id = {c.tool_id: c for c in cards}
    volume = Counter(by_id[t.tool_id].server for t in traces if t.tool_id in by_id)
    servers = {s for s, _ in volume.most_common(n_servers)}
    kept = sorted((c for c in cards if c.server in servers), key=lambda c: c.tool_id)
    newest = max(date.fromisoformat(c.added_at[:10]) for c in kept)
    window = newest - timedelta(days=NEW_TOOL_DAYS)
    new = [c.tool_id for c in kept if date.fromisoformat(c.added_at[:10]) > window]
    rng.shuffle(new)
    joins = {c.tool_id: 0 for c in kept}
    for i, tool_id in enumerate(new):
        joins[tool_id] = 1 + i % max(1, join_rounds)
    ids = set(joins)
    pool: dict[str, AgentRequest] = {}
    for t in traces:
        if t.success and t.tool_id in ids and t.request == t.subgoal and t.request not in pool:
            pool[t.request] = AgentRequest("", t.request, frozenset({t.tool_id}),
                                           dict(t.context or {}), joins[t.tool_id] > 0)
    used = Counter(t.tool_id for t in traces if t.success and t.tool_id in ids)
    popular = [t for t, _ in used.most_common(10) if joins[t] == 0]
    changed = None
    if popular:
        tool_id = rng.choice(popular)
        changed = (tool_id, by_id[tool_id].description + " Now also archives what it reads.")
    evals = tuple(q for q in queries if q.gold and set(q.gold) <= ids)
    return LoopWorld(tuple(kept), joins, changed, change_round, tuple(pool.values()), evals)

"""Requests served only the tools their source offered with them (`no_tool_catalog`).

Each folder of `../shared/benchmarks/no_tool_catalog` holds requests with `candidates`,
the tools offered with them, labelled with their gold tools or "no offered tool fits".
Read in place, never copied in. Their pairs are near misses a whole catalog rarely shows
a request: the gold beside the distractors its source chose, and requests whose fitting
tool was taken out of the list (`training.no_tool.fit.offered_pair_examples`).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)
# judged, never fit on: the stock encoder reads English
NOT_ENGLISH = frozenset({"functionchat_bench_ko"})


@dataclass(frozen=True, slots=True)
class OfferedRequest:
    """One request with the card texts it is scored on (gold first, when it has one)."""

    folder: str
    query_id: str
    text: str
    served: bool
    tools: tuple[str, ...]  # card index texts
    gold: tuple[bool, ...]  # per tool: a gold tool


def read_folder(folder: Path, *, seed: int, match_lengths: bool = True
                ) -> list[OfferedRequest]:
    """A folder's requests with their offered cards (a bad line or tool is logged and
    left out, as `read_benchmark` reports it). `match_lengths`: a request with gold keeps
    its gold and a draw of its other tools as long as one of the folder's no-tool lists
    (a best-of-N score reads N)."""
    from serving.model.schema import FieldError
    from training.benchmarks.convert import assign_tool_ids, tool_card
    from training.benchmarks.reading import read_benchmark

    bench = read_benchmark(folder)
    for kind, errors in bench.errors.items():
        for e in errors:
            log.warning("%s %s: %s", folder.name, kind, e)
    ids, _ = assign_tool_ids(bench.tools)
    texts = {}
    for t in bench.tools:
        try:
            card = tool_card(t, ids[t.benchmark_id], "2026-01-01")[0]
            texts[t.benchmark_id] = card.index_text()
        except (FieldError, ValueError) as err:  # logged; requests are read without it
            log.warning("%s: tool %s has no card (%s)", folder.name, t.benchmark_id, err)
    rng = random.Random(seed)
    lengths = [len(q.candidates) for q in bench.queries if not q.gold and q.candidates]
    out = []
    for q in bench.queries:
        offered = [c for c in q.candidates if c in texts]
        if not offered:
            continue
        if match_lengths and q.gold and lengths:
            gold = [c for c in offered if c in q.gold]
            others = [c for c in offered if c not in q.gold]
            keep = max(len(gold), rng.choice(lengths))
            offered = gold + rng.sample(others, min(len(others), keep - len(gold)))
        out.append(OfferedRequest(folder.name, q.query_id, q.query, bool(q.gold),
                                  tuple(texts[c] for c in offered),
                                  tuple(c in q.gold for c in offered)))
    return out

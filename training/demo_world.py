"""Generate the seeded demo tool world: a ~1,300-tool catalog, traces and labeled queries.

The world exercises the failure modes a tool selector meets in real catalogs: near-duplicate
families (one capability on several servers, and look-alikes across domains), cryptic legacy
tools, cold new tools, multi-part requests and requests that no tool can serve. It is built
from data tables (domains -> entities with synonyms, example values and parameters -> the
operations of `serving.model.vocab`), so every tool, trace and query is a combination of them.

Everything is drawn from `random.Random` streams derived from the one seed, and every date is
relative to `world_date`, so the same params give byte-identical files. Eval requests are
phrased with templates disjoint from the trace templates: the metrics measure generalisation,
not template recall. Validation requests (valid.jsonl, for `tune_menus`) use a third family,
disjoint from both, so the menu's operating point is chosen on neither.

    python -m training.demo_world params.yaml data/demo
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from serving.model.io import write_jsonl
from training.core.params import load_params
from training.demo.params import SECTION, WorldParams
from training.demo.world import generate_world, summarize

Params = WorldParams  # the `demo_world` section; the generator modules take it as it is


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.demo_world", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", help="params.yaml (reads the demo_world section)")
    parser.add_argument("out_dir", help="directory for catalog.jsonl, traces.jsonl, eval.jsonl, "
                        "no_tool.jsonl, valid.jsonl")
    args = parser.parse_args(argv)
    params = load_params(args.params, SECTION, Params)
    started = time.perf_counter()
    world = generate_world(params)
    out = Path(args.out_dir)
    n_cards = write_jsonl(out / "catalog.jsonl", (c.to_dict() for c in world.cards))
    n_traces = write_jsonl(out / "traces.jsonl", (t.to_dict() for t in world.traces))
    n_queries = write_jsonl(out / "eval.jsonl", (q.to_dict() for q in world.queries))
    n_no_tool = write_jsonl(out / "no_tool.jsonl", (q.to_dict() for q in world.no_tool))
    n_valid = write_jsonl(out / "valid.jsonl", (q.to_dict() for q in world.valid))
    print(summarize(world))
    print(f"demo_world: wrote {n_cards} cards, {n_traces} traces, {n_queries} eval queries, "
          f"{n_no_tool} no-tool and {n_valid} validation requests to "
          f"{out} in {time.perf_counter() - started:.1f}s (seed {params.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

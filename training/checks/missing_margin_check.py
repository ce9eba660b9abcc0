"""Choose `runtime.missing_margin` on validation requests, not on the eval.

    python -m training.checks.missing_margin_check BUNDLE VALID --margins 0 0.05 0.1 0.2
        [--n 300] [--seed 7] [--max-missing 2] [--min-named 0.9] [--metrics OUT]

The valid requests (one gold tool, a session listing connections) are replayed with their
gold tool's connection taken out (`training.evaluation.missing_slice`), and, apart, in their
own session. Per margin: the share of the slice that names the removed connection, and
the connections the missing line names per request in either case (the noise the margin
exists to cut). The chosen margin is the largest that still names the removed
connection for `--min-named` of the slice.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle")
    parser.add_argument("valid", help="labeled requests with gold (JSONL), not the eval")
    parser.add_argument("--margins", type=float, nargs="+", default=[0.0, 0.05, 0.1, 0.2])
    parser.add_argument("--n", type=int, default=300, help="slice requests (seeded sample)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-missing", type=int, default=2)
    parser.add_argument("--min-named", type=float, default=0.9)
    parser.add_argument("--metrics", help="write the table here (JSON)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    from serving.model.io import load_queries
    from serving.selector import Selector
    from training.evaluation.missing_slice import without_gold_connection

    queries = [q for q in load_queries(args.valid).items if q.gold]
    rows = []
    for margin in args.margins:
        selector = Selector.from_bundle(args.bundle, overrides={
            "missing_margin": margin, "max_missing": args.max_missing})
        cases = without_gold_connection(queries, selector.cards, n=args.n, seed=args.seed)
        named = lines_missing = 0
        for query, need in cases:
            found = selector.discover(query.query, query.context)
            names = {m.name for m in found.missing() if m.kind == "connection"}
            named += need in names
            lines_missing += len(names)
        own = [q for q, _ in cases]
        lines_own = sum(len(selector.discover(q.query, {**q.context, "connections": [
            *q.context["connections"], need]}).missing()) for q, need in zip(own, [
                n for _, n in cases], strict=True))
        rows.append({"margin": margin, "n": len(cases),
                     "names_connection": round(named / len(cases), 4),
                     "lines_per_request_missing": round(lines_missing / len(cases), 3),
                     "lines_per_request_connected": round(lines_own / len(cases), 3)})
        print(json.dumps(rows[-1]))
    ok = [r for r in rows if r["names_connection"] >= args.min_named]
    chosen = max(ok, key=lambda r: r["margin"])["margin"] if ok else min(args.margins)
    print(json.dumps({"chosen_margin": chosen}))
    if args.metrics:
        Path(args.metrics).write_text(json.dumps({"chosen": chosen, "rows": rows}, indent=1)
                                      + "\n")


if __name__ == "__main__":
    main()

"""Choose `runtime.missing_margin` on validation requests, not on the eval.

    python -m training.checks.missing_margin_check BUNDLE VALID --margins 0 0.05 0.1 0.2
        [--n 300] [--seed 7] [--max-missing 2] [--min-named 0.9] [--metrics OUT]

The valid requests (one gold tool, a session listing connections) are replayed with their
gold tool's connection taken out (`training.evaluation.missing_slice`), and, apart, in their
own session. Per margin: the share of the slice that names the removed connection, and
the connections the missing line names per request in either case (the noise the margin
exists to cut). The chosen margin is the largest that still names the removed
connection for `--min-named` of the slice.

Beside it, what a rule "no write on a step whose lookup names a missing connection"
would do: the slice's requests whose menus offer a write, as served and with that rule,
and R_menu of the slice requests in their own session, as served and with it.
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
        named = lines_missing = lines_own = 0
        writes = [0, 0]  # slice requests offering a write: as served, without lookup steps'
        kept = [0, 0]  # own-session gold in a menu: as served, without lookup steps' writes
        n_gold = 0
        for query, need in cases:
            found = selector.discover(query.query, query.context)
            names = {m.name for m in found.missing() if m.kind == "connection"}
            named += need in names
            lines_missing += len(names)
            menus = [offered(selector, s) for s in found.steps]
            writes[0] += any(w for m in menus for w in m.values())
            writes[1] += any(w for m, s in zip(menus, found.steps, strict=True)
                             if not s.missing for w in m.values())
            own = selector.discover(query.query, {**query.context, "connections": [
                *query.context["connections"], need]})
            lines_own += len(own.missing())
            menus = [offered(selector, s) for s in own.steps]
            served = {t for m in menus for t in m}
            unwritten = {t for m, s in zip(menus, own.steps, strict=True)
                         for t, w in m.items() if not (w and s.missing)}
            kept[0] += sum(g in served for g in query.gold)
            kept[1] += sum(g in unwritten for g in query.gold)
            n_gold += len(query.gold)
        n = len(cases)
        rows.append({"margin": margin, "n": n,
                     "names_connection": round(named / n, 4),
                     "lines_per_request_missing": round(lines_missing / n, 3),
                     "lines_per_request_connected": round(lines_own / n, 3),
                     "slice_menus_with_write": round(writes[0] / n, 4),
                     "slice_menus_with_write_if_dropped": round(writes[1] / n, 4),
                     "own_r_menu": round(kept[0] / n_gold, 4),
                     "own_r_menu_if_dropped": round(kept[1] / n_gold, 4)})
        print(json.dumps(rows[-1]))
    ok = [r for r in rows if r["names_connection"] >= args.min_named]
    chosen = max(ok, key=lambda r: r["margin"])["margin"] if ok else min(args.margins)
    print(json.dumps({"chosen_margin": chosen}))
    if args.metrics:
        Path(args.metrics).write_text(json.dumps({"chosen": chosen, "rows": rows}, indent=1)
                                      + "\n")


def offered(selector, step) -> dict[str, bool]:  # noqa: ANN001
    """A step's menu: tool id -> whether it writes."""
    from serving.stages.menu_policy import WRITE_RISKS

    return {t: selector.cards[t].risk in WRITE_RISKS for t in step.menu_ids}


if __name__ == "__main__":
    main()

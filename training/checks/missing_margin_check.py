"""Choose `runtime.missing_margin` on validation requests, not on the eval.

    python -m training.checks.missing_margin_check BUNDLE VALID --margins 0 0.05 0.1 0.2
        [--cosine-margins none 0 0.02 0.05] [--n 300] [--seed 7] [--max-missing 2]
        [--min-named 0.9] [--metrics OUT]
        [--menus stock|FILE] [--named-within 0.03] [--r-menu-within 0.015]
        [--operation-rule] [--stock-out serving/stages/data/stock_runtime.json]

`--menus stock` judges a stock bundle (`export_base`) as `bundle from-servers` ships it,
with the package's stock menu policy; `--stock-out` writes the knobs chosen for it (the
stock runtime a first bundle starts from, `serving.model.config.stock_runtime_overrides`).

The valid requests (one gold tool, a session listing connections) are replayed with their
gold tool's connection taken out (`training.evaluation.missing_slice`), and, apart, in their
own session. Per margin: the share of the slice that names the removed connection, and
the connections the missing line names per request in either case (the noise the margin
exists to cut). With `--cosine-margins` and several `--max-missing`, every margin is
tried with each `runtime.missing_cosine_margin` (`none`: no cosine check) and each cap on
the lines. The kept row names the removed connection for `--min-named` of the slice
(with `--named-within`: for all but that share less than the first row does, where no
row reaches `--min-named`) and, among those, the fewest connections in the requests' own
sessions (the largest margin on a tie).

Beside it, what a rule "no write on a step whose lookup names a missing connection"
would do (`runtime.missing_withholds_writes`): the slice's requests whose menus offer a
write, as served and with that rule, and R_menu of the slice requests in their own
session, as served and with it. The rule is chosen where, at the chosen margin, it costs
at most `--r-menu-within` of that R_menu. With `--withhold-cosine-margins`, the rule is
served for real at the chosen row with each `runtime.missing_withhold_cosine_margin`
(withhold only where a named tool is that much closer to the step than the session's
closest, `none`: wherever a line names something), and the margin kept is the one whose
slice offers a write least often within that R_menu cost (the larger margin on a tie).
With `--operation-rule`, the chosen row is served once more with
`runtime.write_needs_operation` (a write joins a menu only where its operation's family
is the step's) and the rule kept where it costs at most `--r-menu-within` of that R_menu.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle")
    parser.add_argument("valid", help="labeled requests with gold (JSONL), not the eval")
    parser.add_argument("--margins", type=float, nargs="+", default=[0.0, 0.05, 0.1, 0.2])
    parser.add_argument("--cosine-margins", nargs="+", default=[None], type=cosine_margin,
                        help="runtime.missing_cosine_margin values to try beside each margin "
                        "(none: no cosine check; default: none only)")
    parser.add_argument("--n", type=int, default=300, help="slice requests (seeded sample)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-missing", type=int, nargs="+", default=[2],
                        help="runtime.max_missing values to try (default: %(default)s)")
    parser.add_argument("--min-named", type=float, default=0.9)
    parser.add_argument("--metrics", help="write the table here (JSON)")
    parser.add_argument("--menus", help="a menu policy instead of the bundle's (stock: the "
                        "package's, as a first bundle carries it)")
    parser.add_argument("--named-within", type=float,
                        help="choose the largest margin naming all but this share less than "
                        "the first margin does (default: the --min-named bar)")
    parser.add_argument("--r-menu-within", type=float, default=0.015,
                        help="the own-session R_menu the write rule may cost (default %(default)s)")
    parser.add_argument("--withhold-cosine-margins", nargs="+", type=cosine_margin,
                        help="runtime.missing_withhold_cosine_margin values to serve the write "
                        "rule with at the chosen row (none: wherever a line names something)")
    parser.add_argument("--operation-rule", action="store_true",
                        help="also measure runtime.write_needs_operation on the chosen row "
                        "(kept within --r-menu-within)")
    parser.add_argument("--stock-out", help="write the chosen knobs here as the stock runtime")
    parser.add_argument("--missing-access-below", type=float,
                        help="look up what the session lacks below this best relevance "
                        "(default: the bundle's runtime)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    from serving.model.io import load_queries
    from serving.selector import Selector
    from training.evaluation.missing_slice import without_gold_connection

    queries = [q for q in load_queries(args.valid).items if q.gold]
    policy = None
    if args.menus:
        from serving.stages.menu_policy import MenuPolicy, stock_menu_policy

        policy = (stock_menu_policy() if args.menus == "stock"
                  else MenuPolicy.from_dict(json.loads(Path(args.menus).read_text())))
    def serve(**knobs: object) -> Selector:
        """The bundle under `knobs` (and --missing-access-below), with --menus' policy."""
        if args.missing_access_below is not None:
            knobs["missing_access_below"] = args.missing_access_below
        served = Selector.from_bundle(args.bundle, overrides=knobs)
        return served if policy is None else served.with_models(menu_policy=policy)

    rows = []
    grid = ((x, c, m) for x in args.max_missing for c in args.cosine_margins
            for m in sorted(args.margins))
    for at_most, cos_margin, margin in grid:
        selector = serve(
            missing_margin=margin, max_missing=at_most, missing_cosine_margin=cos_margin,
            missing_withholds_writes=False,  # served as is; the rule is measured beside
        )
        cases = without_gold_connection(queries, selector.cards, n=args.n, seed=args.seed)
        named = lines_missing = lines_own = 0
        writes = [0, 0]  # slice requests offering a write: as served, without lookup steps'
        kept = [0, 0]  # own-session gold in a menu: as served, without lookup steps' writes
        n_gold = 0
        for query, need, found, own in replayed(selector, cases):
            names = {m.name for m in found.missing() if m.kind == "connection"}
            named += need in names
            lines_missing += len(names)
            writes[0] += any(writes_in(selector, s.menu) for s in found.steps)
            writes[1] += any(writes_in(selector, ruled(selector, s)) for s in found.steps)
            lines_own += len(own.missing())
            served = {t for s in own.steps for t in s.menu_ids}
            unwritten = {c.tool_id for s in own.steps for c in ruled(selector, s)}
            kept[0] += sum(g in served for g in query.gold)
            kept[1] += sum(g in unwritten for g in query.gold)
            n_gold += len(query.gold)
        n = len(cases)
        rows.append({"margin": margin, "cosine_margin": cos_margin, "max_missing": at_most,
                     "n": n,
                     "names_connection": round(named / n, 4),
                     "lines_per_request_missing": round(lines_missing / n, 3),
                     "lines_per_request_connected": round(lines_own / n, 3),
                     "slice_menus_with_write": round(writes[0] / n, 4),
                     "slice_menus_with_write_if_dropped": round(writes[1] / n, 4),
                     "own_r_menu": round(kept[0] / n_gold, 4),
                     "own_r_menu_if_dropped": round(kept[1] / n_gold, 4)})
        print(json.dumps(rows[-1]))
    chosen = choose(rows, min_named=args.min_named, named_within=args.named_within)
    withhold = (chosen["own_r_menu_if_dropped"]
                >= chosen["own_r_menu"] - args.r_menu_within - 1e-12)
    withhold_margin, withhold_rows = None, []
    looked_up = {"missing_margin": chosen["margin"], "max_missing": chosen["max_missing"],
                 "missing_cosine_margin": chosen["cosine_margin"]}  # the chosen lookup
    if args.withhold_cosine_margins:
        for w in args.withhold_cosine_margins:
            served = serve(**looked_up, missing_withholds_writes=True,
                           missing_withhold_cosine_margin=w)
            withhold_rows.append({"withhold_cosine_margin": w,
                                  **write_rule_served(served, cases)})
            print(json.dumps(withhold_rows[-1]))
        best = choose_withhold(withhold_rows, own_r_menu=chosen["own_r_menu"],
                               within=args.r_menu_within)
        withhold = best is not None
        withhold_margin = None if best is None else best["withhold_cosine_margin"]
    # then the operation rule (`runtime.write_needs_operation`) on top of what was chosen:
    # kept where the own-session R_menu stays within --r-menu-within of it off
    operation_rows = []
    if args.operation_rule:
        for on in (False, True):
            served = serve(**looked_up, missing_withholds_writes=withhold,
                           missing_withhold_cosine_margin=withhold_margin,
                           write_needs_operation=on)
            operation_rows.append({"write_needs_operation": on,
                                   **write_rule_served(served, cases)})
            print(json.dumps(operation_rows[-1]))
    needs_operation = bool(operation_rows) and (
        operation_rows[1]["own_r_menu"]
        >= operation_rows[0]["own_r_menu"] - args.r_menu_within - 1e-12)
    print(json.dumps({"chosen_margin": chosen["margin"],
                      "chosen_cosine_margin": chosen.get("cosine_margin"),
                      "chosen_max_missing": chosen.get("max_missing"),
                      "withhold_writes": withhold,
                      "withhold_cosine_margin": withhold_margin}))
    if args.metrics:
        Path(args.metrics).write_text(json.dumps(
            {"chosen": chosen["margin"], "chosen_cosine_margin": chosen.get("cosine_margin"),
             "chosen_max_missing": chosen.get("max_missing"), "withhold_writes": withhold,
             "withhold_cosine_margin": withhold_margin, "withhold_rows": withhold_rows,
             "write_needs_operation": needs_operation, "operation_rows": operation_rows,
             "rows": rows},
            indent=1) + "\n")
    if args.stock_out:
        runtime = {"missing_access_below": selector.params.missing_access_below,
                   **looked_up, "missing_withholds_writes": withhold,
                   "missing_withhold_cosine_margin": withhold_margin,
                   "write_needs_operation": needs_operation}
        Path(args.stock_out).write_text(json.dumps({
            "runtime": runtime,
            "chosen_on": {"bundle": str(args.bundle), "valid": str(args.valid), "n": args.n,
                          "seed": args.seed, "named_within": args.named_within,
                          "r_menu_within": args.r_menu_within, "row": chosen},
        }, indent=1, sort_keys=True) + "\n")


def cosine_margin(text: str) -> float | None:
    """`--cosine-margins` values: `none` (no cosine check) or a number in [-1, 1]."""
    if text.lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is neither none nor a number in [-1, 1]")
    return value


def choose(rows: Sequence[dict], *, min_named: float,
           named_within: float | None = None) -> dict:
    """Among the rows that name the removed connection for `min_named` of the slice (or,
    with `named_within`, for all but that share less than the first row), the one that
    names the fewest connections in the requests' own sessions (the noise), the largest
    margin on a tie (rows without that count: the largest margin); the first row where
    none does."""
    bar = min_named if named_within is None else rows[0]["names_connection"] - named_within
    ok = [r for r in rows if r["names_connection"] >= bar - 1e-12]
    if not ok:
        return rows[0]
    return min(ok, key=lambda r: (r.get("lines_per_request_connected", 0.0), -r["margin"]))


def replayed(selector, cases):  # noqa: ANN001, ANN201
    """Each slice case (a request, the connection taken out) served without that
    connection and, apart, in its own session with it."""
    for query, need in cases:
        found = selector.discover(query.query, query.context)
        own = selector.discover(query.query, {**query.context, "connections": [
            *query.context["connections"], need]})
        yield query, need, found, own


def write_rule_served(selector, cases) -> dict:  # noqa: ANN001
    """The slice's requests offering a write and the R_menu of the same requests in their
    own session, each served by `selector` as it is (its write rule on)."""
    writes = kept = n_gold = 0
    for query, _, found, own in replayed(selector, cases):
        writes += any(writes_in(selector, s.menu) for s in found.steps)
        served = {t for s in own.steps for t in s.menu_ids}
        kept += sum(g in served for g in query.gold)
        n_gold += len(query.gold)
    return {"slice_menus_with_write": round(writes / len(cases), 4),
            "own_r_menu": round(kept / n_gold, 4)}


def choose_withhold(rows: Sequence[dict], *, own_r_menu: float, within: float) -> dict | None:
    """The write rule's row (`withhold_cosine_margin`, `slice_menus_with_write`,
    `own_r_menu`) whose slice offers a write least often among those that keep the
    own-session R_menu within `within` of `own_r_menu` (served without the rule); the
    larger margin on a tie (`None`, every named line, counts as the smallest); None where
    every row costs more."""
    ok = [r for r in rows if r["own_r_menu"] >= own_r_menu - within - 1e-12]
    if not ok:
        return None
    return min(ok, key=lambda r: (r["slice_menus_with_write"],
                                  math.inf if r["withhold_cosine_margin"] is None
                                  else -r["withhold_cosine_margin"]))


def writes_in(selector, menu) -> bool:  # noqa: ANN001
    """Whether `menu` (candidates) holds a write or destructive tool."""
    from serving.stages.menu_policy import WRITE_RISKS

    return any(selector.cards[c.tool_id].risk in WRITE_RISKS for c in menu)


def ruled(selector, step) -> list:  # noqa: ANN001
    """The step's menu as `runtime.missing_withholds_writes` leaves it (the runtime's own
    `withhold_writes`, where the step's lookup named something)."""
    from serving.stages.menu_policy import withhold_writes

    return withhold_writes(step.menu, selector.cards)[0] if step.missing else list(step.menu)


if __name__ == "__main__":
    main()

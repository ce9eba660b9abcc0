"""DVC stage `security`: how well the catalog defenses stop poisoned tools, measured.

    python -m training.security_eval PARAMS CATALOG QUERIES METRICS [--work-dir DIR]

1. Poison: from first-party demo tools that are gold in labeled queries, build variants
   of each attack kind (`training.security.attacks`): instructions injected into a
   description, a summary or a schema, hidden characters, encoded blobs, shadowing by
   look-alike or wrapper server names (`githhub.search_code`, `github_tools.list_commits`),
   and rug pulls (an approved tool's text edited afterwards, loudly or quietly).
2. Lint: the false-positive rate on the clean catalog (share of clean tools with an
   error-severity security finding) and the share of poisoned tools flagged, per kind;
   the approval ledger's share (rug pulls show up as `changed_after_approval`).
3. Reach: a real bundle of clean + poisoned cards (`training.release.bundle_export`, the
   packaged MiniLM) and `serving.selector.Selector` on the labeled queries whose gold
   has a poisoned variant; the session holds the attackers' connections (the user
   installed their servers). Measured: the share of poisoned tools that reach a menu and
   that are menu top-1, before any defense, with the lint gate only, with the ledger only
   (applied at runtime through the policy denylist), and after both (a second bundle
   exported from the approved, lint-clean cards only).
4. Policy: the risk decision of every poisoned write tool equals its clean original's
   (decisions read only tool id and risk, never text); a mismatch fails the stage.
5. Generalisation, reported apart from step 2 (`lint_by_class`): per set and attack class,
   the share flagged at error severity (by the exact rules, by the detector by meaning
   with --detector, by either) and at warning or worse, for the second set
   (`training.security.poison_styles`), the detector's validation set (it chose the bars), the
   third and fourth sets (each blind to the detector it first scored, not to the refits
   since) and the fifth, written blind and scored once by the detector frozen before it
   was read; with `--real-catalog` the false alarms on a real catalog such as StableToolBench's
   (`lint_real`: tools with an error security finding, with the sentences quoted).
6. Defence in depth, with --models: the poisoned tools of those sets that no error stops,
   installed with their warnings as `cautions` in a bundle of the trained models and the
   tuned menus: how often they reach a menu over the labeled queries and over nonsense,
   at `runtime.caution_bar` and with the rule off (`slipped_reach`).

The ledger scenarios model a reviewer: "ledger only" approves every tool installed
(before the rug pulls); "after" approves only tools `toolsift approve` accepts (no
error-severity security finding at install time). Bundles go to a temporary directory
under the OS temp dir unless --work-dir is given. Gates in params fail the stage (exit 1)
after metrics are written.

The pieces live in training/security/: `params`, `poisoning`, `defenses` (lint and
ledger rates, the risk check), `reach`, `poison_sets`, `study` (the core
`run_security_eval` and the gates) and `report`.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import Any

from serving.model.config import RuntimeParams
from serving.model.io import load_catalog, load_queries
from training.core.metrics_io import write_metrics
from training.core.params import load_params, read_section
from training.security.defenses import make_lint
from training.security.params import Params
from training.security.poison_sets import by_class_poisons
from training.security.poison_styles import real_false_alarms, set_rates
from training.security.reach import slipped_reach
from training.security.report import render_report
from training.security.study import check_gates, run_security_eval

log = logging.getLogger(__name__)
SECTION = "security"


class SecurityEvalError(RuntimeError):
    """A security invariant failed (a poisoned tool changed a risk decision)."""


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (sections `security`, `export`, `runtime`)")
    parser.add_argument("catalog", help="the clean tool cards, JSONL")
    parser.add_argument("queries", help="labeled queries, JSONL")
    parser.add_argument("metrics", help="where to write metrics/security.json")
    parser.add_argument("--work-dir", help="keep the bundles here (default: a temp dir)")
    parser.add_argument("--retriever", help="bi-encoder dir (default: packaged MiniLM)")
    parser.add_argument("--no-mlflow", action="store_true", help="do not log to MLflow")
    parser.add_argument(
        "--real-catalog", help="a real catalog (JSONL) whose lint false alarms are reported"
    )
    parser.add_argument("--report", help="where to write reports/security.md")
    parser.add_argument(
        "--models", help="the trained models (models/: retriever, reranker, ltr, menus): "
        "measure how often poisoned tools that pass the lint reach a menu"
    )
    parser.add_argument(
        "--detector", help="the lint's detector by meaning (train_lint's detector.json); "
        "without it only the exact rules lint"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from serving.bundle.encoder import stock_model_path
    from training.release.bundle_export import ExportParams

    params = load_params(args.params, SECTION, Params)
    export_params = load_params(args.params, "export", ExportParams)
    runtime = RuntimeParams.from_dict(read_section(args.params, "runtime"))
    t0 = time.perf_counter()
    catalog = load_catalog(args.catalog)
    queries = load_queries(args.queries, known_tools=[c.tool_id for c in catalog.items])
    log.info(catalog.summary(args.catalog))
    log.info(queries.summary(args.queries))
    holder = (
        nullcontext(args.work_dir)
        if args.work_dir
        else tempfile.TemporaryDirectory(prefix="toolsift-security-")
    )
    lint = make_lint(params.lint_config(), args.detector)
    sets = by_class_poisons(catalog.items, seed=params.seed)
    with holder as work:
        work_dir = Path(work)
        work_dir.mkdir(parents=True, exist_ok=True)
        metrics = run_security_eval(
            catalog.items,
            queries.items,
            params,
            runtime=runtime,
            export_params=export_params,
            retriever_path=Path(args.retriever) if args.retriever else stock_model_path(),
            work_dir=work_dir,
            lint=lint,
        )
        if args.models:
            metrics["slipped_reach"] = slipped_reach(
                catalog.items, sets, lint, queries.items, models=Path(args.models),
                params_path=args.params, work_dir=work_dir,
            )
    metrics["lint_by_class"] = {
        name: set_rates(catalog.items, items, lint) for name, items in sets.items()
    }
    if args.real_catalog:
        real = load_catalog(args.real_catalog)
        metrics["lint_real"] = {
            "catalog": args.real_catalog,
            **real_false_alarms(real.items, lint),
        }
    metrics["gates"] = check_gates(metrics, params)
    metrics["seconds"] = round(time.perf_counter() - t0, 1)
    write_metrics(args.metrics, metrics)
    if args.report:
        Path(args.report).write_text(render_report(metrics))
    if not args.no_mlflow:
        _log_to_mlflow(args, params, metrics)
    lint, before, after = metrics["lint"], metrics["reach"]["before"], metrics["reach"]["after"]
    verdict = "passed" if metrics["gates"]["passed"] else "FAILED"
    print(
        f"security: {metrics['n_poisoned']} poisoned variants of {metrics['n_originals']} "
        f"tools; lint FP {lint['clean_false_positive_rate']:.2%} on "
        f"{metrics['n_clean_tools']} clean tools, flagged {lint['poisoned_flagged_rate']:.1%} "
        f"(lint or ledger {lint['poisoned_flagged_by_lint_or_ledger_rate']:.1%}); poisoned in "
        f"menu {before['poisoned_in_menu_rate']:.1%} -> {after['poisoned_in_menu_rate']:.1%}, "
        f"top-1 {before['poisoned_top1_rate']:.1%} -> {after['poisoned_top1_rate']:.1%} over "
        f"{before['n_requests']} requests; "
        + "; ".join(
            f"{name} set flagged {r['flagged_rate']:.1%}"
            for name, r in metrics["lint_by_class"].items()
        )
        + f"; gates {verdict} -> {args.metrics} in {metrics['seconds']:.0f}s"
    )
    if metrics["risk_policy"]["mismatches"]:
        raise SecurityEvalError(
            "risk decisions changed by poisoned text: "
            + "; ".join(metrics["risk_policy"]["mismatches"][:5])
        )
    if not metrics["gates"]["passed"]:
        raise SystemExit(1)


def _log_to_mlflow(args: argparse.Namespace, params: Params, metrics: Mapping[str, Any]) -> None:
    from training.core.tracking import log_dataset_digest, log_metrics, stage_run

    with stage_run(SECTION, asdict(params)):
        log_dataset_digest("catalog", args.catalog)
        log_dataset_digest("queries", args.queries)
        log_metrics(metrics)
        import mlflow

        mlflow.log_artifact(args.metrics)


if __name__ == "__main__":
    main()


"""DVC stage `promote`: move the `production` alias to a candidate bundle only if no stage
of the recall chain regresses.

    python -m training.promote PARAMS CANDIDATE_BUNDLE EVAL_QUERIES METRICS REPORT
        [--production-bundle DIR] [--candidate-metrics EVAL_JSON] [--release-dir DIR]

The candidate is registered (`training.release.registry`, alias `candidate`). The bundle to beat
is `--production-bundle` when given, else the one the registry's `production` alias
points at; with neither (the first promotion) the candidate is promoted. Both bundles run
the same labeled queries in this run with `training.evaluation.scoring` and the `evaluate`
params (the same query sample as `metrics/eval.json`). A production bundle this runtime
refuses to load (e.g. its ranker computes other features than this runtime's) cannot be
re-run: its chain as recorded at registration, by its own runtime on the same queries,
stands in for it (slices were not recorded and are skipped), and the report says so.
`--candidate-metrics` saves the candidate's pass: that eval.json is used only if its
bundle_version and query count are the candidate's, else the candidate is evaluated here.

`decide` refuses when any of r_decompose, r_retrieve, r_filter, r_menu, r_select,
end_to_end, or the end_to_end of a slice in `slices_checked`, falls more than
`tolerance` (absolute) below production; a rate that is None on either side (no items)
is skipped. On promotion the bundle is copied to `--release-dir/<bundle_version>` when
given (an immutable copy that later runs can still evaluate after the candidate's
directory is overwritten), `production` moves to its version, and
`--release-dir/production.json` is pointed at the copy (atomically: a gateway or
`ReleaseFollower` following it swaps the bundle in, `serving.bundle.release`).

Writes METRICS (decision, versions, the comparison) and REPORT (markdown table); the
MLflow run `promote` has the decision as a tag, the numbers as metrics and both files
plus `comparison.json` as artifacts.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

from serving.bundle.files import BundleError, verify_bundle
from serving.bundle.release import write_pointer
from serving.model.io import load_queries
from serving.model.schema import LabeledQuery
from serving.selector import Selector
from training.core.metrics_io import write_metrics
from training.core.params import ParamsError, load_params
from training.evaluation.scoring import (
    EvalParams,
    evaluate,
    round_floats,
    sample_queries,
    summarize,
)

log = logging.getLogger(__name__)
SECTION = "promote"
CHAIN = ("r_decompose", "r_retrieve", "r_filter", "r_menu", "r_select", "end_to_end")
CANDIDATE, PRODUCTION = "candidate", "production"  # the registry aliases


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `promote` section of params.yaml."""

    registered_model: str
    tolerance: float  # largest allowed absolute drop of any checked rate
    slices_checked: Sequence[str]  # slices whose end_to_end is checked too

    def __post_init__(self) -> None:
        if isinstance(self.tolerance, bool) or not isinstance(self.tolerance, int | float):
            raise ParamsError(f"{SECTION}.tolerance: expected a number, got {self.tolerance!r}")
        if not 0 <= self.tolerance < 1:
            raise ParamsError(f"{SECTION}.tolerance: {self.tolerance} is not in [0, 1)")
        slices = self.slices_checked
        if isinstance(slices, str) or not all(isinstance(s, str) and s for s in slices):
            raise ParamsError(f"{SECTION}.slices_checked: expected a list of slice names")
        object.__setattr__(self, "slices_checked", tuple(slices))
        if not self.registered_model:
            raise ParamsError(f"{SECTION}.registered_model: empty")


# --- the decision (pure) ------------------------------------------------------------


class Row(NamedTuple):
    """One checked rate: production's, the candidate's, their difference, within bounds."""

    metric: str
    production: float | None
    candidate: float | None
    delta: float | None
    ok: bool


@dataclass(frozen=True, slots=True)
class Decision:
    promote: bool
    rows: tuple[Row, ...]
    reason: str

    @property
    def regressions(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if not r.ok)


def checked_rates(summary: Mapping[str, Any], slices: Sequence[str]) -> dict[str, float | None]:
    """The rates `decide` compares, from an eval.json-shaped summary: the chain, then
    `slice.<name>.end_to_end` for each slice (None when the slice is absent or empty)."""
    pipeline = summary["pipeline"]
    rates: dict[str, float | None] = {m: pipeline.get(m) for m in CHAIN}
    for name in slices:
        rates[f"slice.{name}.end_to_end"] = (
            pipeline.get("slices", {}).get(name, {}).get("end_to_end")
        )
    return rates


def decide(
    candidate_summary: Mapping[str, Any],
    production_summary: Mapping[str, Any] | None,
    *,
    tolerance: float,
    slices: Sequence[str] = (),
) -> Decision:
    """Promote unless some checked rate drops more than `tolerance` below production.

    Summaries have the shape of metrics/eval.json (`summary["pipeline"]` holds the chain
    and `slices`). A drop of exactly `tolerance` passes (deltas are compared at 6 decimals,
    so 0.80 -> 0.79 with tolerance 0.01 is not refused by float noise). No production
    summary means a first promotion. A rate None on either side is skipped (ok)."""
    if tolerance < 0:
        raise ValueError(f"tolerance {tolerance} < 0")
    candidate = checked_rates(candidate_summary, slices)
    if production_summary is None:
        first = tuple(Row(m, None, v, None, True) for m, v in candidate.items())
        return Decision(True, first, "first promotion: there is no production bundle")
    n_cand, n_prod = candidate_summary.get("n_queries"), production_summary.get("n_queries")
    if n_cand is not None and n_prod is not None and n_cand != n_prod:
        raise ValueError(f"the summaries cover different query sets ({n_cand} vs {n_prod} queries)")
    production = checked_rates(production_summary, slices)
    rows: list[Row] = []
    for metric, cand in candidate.items():
        prod = production[metric]
        if cand is None or prod is None:
            rows.append(Row(metric, prod, cand, None, True))
            continue
        delta = round(cand - prod, 6)
        rows.append(Row(metric, prod, cand, delta, delta >= -tolerance))
    bad = [r for r in rows if not r.ok]
    compared = sum(1 for r in rows if r.delta is not None)
    if bad:
        worst = ", ".join(
            f"{r.metric} {r.production:.4f} -> {r.candidate:.4f} ({r.delta:+.4f})" for r in bad
        )
        reason = f"{len(bad)} of {compared} rates drop more than {tolerance}: {worst}"
        return Decision(False, tuple(rows), reason)
    return Decision(True, tuple(rows), f"none of {compared} rates drops more than {tolerance}")


# --- evaluation ---------------------------------------------------------------------


def evaluate_bundle(
    selector: Selector,
    queries: Sequence[LabeledQuery],
    *,
    params: EvalParams,
    desc: str = "evaluate",
    progress: bool = False,
) -> dict[str, Any]:
    """The pipeline part of eval.json for one bundle (no baselines, no variants), with
    the same query sample and rounding as the `evaluate` stage."""
    sampled = sample_queries(queries, params.max_queries, params.seed)
    slices = sorted({s for q in sampled for s in q.slices})
    result = evaluate(selector, sampled, progress=progress, desc=desc)
    pipeline = summarize(
        result.records,
        slices,
        params=params,
        catalog_tokens=result.catalog_tokens,
        select=result.select,
    )
    return round_floats(
        {
            "n_queries": len(sampled),
            "bundle_version": selector.bundle.manifest.bundle_version,
            "pipeline": pipeline,
        }
    )


def reusable_metrics(
    path: str | Path | None, *, bundle_version: str, n_queries: int
) -> dict[str, Any] | None:
    """An eval.json that describes this very candidate on this query sample, else None."""
    if not path:
        return None
    summary = json.loads(Path(path).read_text())
    if summary.get("bundle_version") != bundle_version:
        log.info(
            "%s is of bundle %s, not the candidate %s: evaluating the candidate",
            path,
            summary.get("bundle_version"),
            bundle_version,
        )
        return None
    if summary.get("n_queries") != n_queries:
        log.info(
            "%s has %s queries, this run %s: evaluating the candidate",
            path,
            summary.get("n_queries"),
            n_queries,
        )
        return None
    return summary


def resolve_production(
    given: str | Path | None, registered: Any, release_dir: str | Path | None
) -> Path | None:
    """Where the production bundle is: the given directory, else the registered path if it
    still holds that bundle, else its release copy. Raises when it is gone."""
    if given:
        verify_bundle(given)
        return Path(given)
    if registered is None:
        return None
    places = [Path(registered.path)]
    if release_dir:
        places.append(Path(release_dir) / registered.bundle_version)
    for place in places:
        if (place / "manifest.json").is_file():
            try:
                if verify_bundle(place).bundle_version == registered.bundle_version:
                    return place
            except BundleError as err:
                log.warning("production candidate path %s: %s", place, err)
    raise BundleError(
        f"production bundle {registered.bundle_version} (model version {registered.version}) "
        f"is not at {' or '.join(str(p) for p in places)} any more: pass --production-bundle "
        "DIR, or --release-dir where promoted bundles are kept"
    )


# --- outputs ------------------------------------------------------------------------


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def production_summary(
    prod_path: Path,
    registered: Any,
    queries: Sequence[LabeledQuery],
    eval_params: EvalParams,
    *,
    client: Any,
    name: str,
) -> tuple[dict[str, Any], str]:
    """Production's eval summary and where it came from: this run, or (when this runtime
    refuses to load the bundle) the chain recorded when it was registered."""
    from training.release import registry

    try:
        selector = Selector.from_bundle(prod_path)
    except (BundleError, ValueError) as err:  # a ranker or runtime keys this one lacks
        recorded = (
            registry.recorded_metrics(registered.version, name=name, client=client)
            if registered is not None
            else {}
        )
        if not any(m in recorded for m in CHAIN):
            raise BundleError(
                f"production bundle {prod_path} cannot be loaded by this runtime ({err}) and "
                "has no recorded metrics to compare with: pass --production-bundle DIR"
            ) from err
        log.warning("production cannot run here (%s): comparing with its recorded chain", err)
        summary = {"pipeline": {m: recorded.get(m) for m in CHAIN}}
        return summary, f"recorded at registration; this runtime cannot load it: {err}"
    summary = evaluate_bundle(selector, queries, params=eval_params, desc="production",
                              progress=True)
    return summary, "evaluated here"


def render_report(decision: Decision, info: Mapping[str, Any]) -> str:
    cand, prod = info["candidate"], info["production"]
    lines = [
        "# Promotion",
        "",
        f"**{'PROMOTED' if decision.promote else 'REFUSED'}**: {decision.reason}",
        "",
        f"- candidate: bundle `{cand['bundle_version']}`, model version "
        f"{cand['model_version']} ({cand['metrics_from']})",
        f"- production: bundle `{prod['bundle_version'] or '–'}`, model version "
        f"{prod['model_version'] or '–'} ({prod['source']}; metrics: "
        f"{prod.get('metrics_from') or '–'})",
        f"- {info['n_queries']} queries; tolerance {info['tolerance']} (absolute drop); "
        f"registered model `{info['registered_model']}`",
        "",
        "| metric | production | candidate | delta | ok |",
        "|---|---|---|---|---|",
    ]
    for r in decision.rows:
        if r.delta is None:
            ok = "skipped" if prod["bundle_version"] else "–"
        else:
            ok = "yes" if r.ok else "**NO**"
        lines.append(
            f"| {r.metric} | {_fmt(r.production)} | {_fmt(r.candidate)} | "
            f"{_fmt(r.delta, signed=True)} | {ok} |"
        )
    lines += ["", "Rates are conditional on the stage before (R_decompose ... R_select).", ""]
    return "\n".join(lines)


def comparison(decision: Decision) -> dict[str, dict[str, Any]]:
    """The rows keyed by metric, for metrics JSON and the MLflow artifact."""
    return {
        r.metric: {
            "production": r.production,
            "candidate": r.candidate,
            "delta": r.delta,
            "ok": r.ok,
        }
        for r in decision.rows
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (sections `promote` and `evaluate`)")
    parser.add_argument("candidate", help="the candidate bundle directory")
    parser.add_argument("queries", help="labeled queries, JSONL (the evaluate stage's)")
    parser.add_argument("metrics", help="where to write metrics/promote.json")
    parser.add_argument("report", help="where to write the markdown report")
    parser.add_argument("--production-bundle", help="compare with this bundle, not the alias")
    parser.add_argument("--candidate-metrics", help="the candidate's eval.json, reused if current")
    parser.add_argument("--release-dir", help="promoted bundles are copied to DIR/<version>")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    params = load_params(args.params, SECTION, Params)
    eval_params = load_params(args.params, "evaluate", EvalParams)
    t0 = time.perf_counter()
    candidate_selector = Selector.from_bundle(args.candidate)  # verifies every hash
    candidate_version = candidate_selector.bundle.manifest.bundle_version
    loaded = load_queries(args.queries, known_tools=candidate_selector.cards)
    log.info(loaded.summary(args.queries))
    n_sampled = len(sample_queries(loaded.items, eval_params.max_queries, eval_params.seed))

    import mlflow

    from training.core.tracking import log_metrics, stage_run
    from training.release import registry

    client = registry.registry_client()
    name = params.registered_model
    run_params = {
        **asdict(params),
        "candidate": args.candidate,
        "production_bundle": args.production_bundle or "",
        "release_dir": args.release_dir or "",
    }
    with stage_run(SECTION, run_params):
        cand_summary = reusable_metrics(
            args.candidate_metrics, bundle_version=candidate_version, n_queries=n_sampled
        )
        metrics_from = str(args.candidate_metrics) if cand_summary else "evaluated here"
        if cand_summary is None:
            cand_summary = evaluate_bundle(
                candidate_selector,
                loaded.items,
                params=eval_params,
                desc="candidate",
                progress=True,
            )
        chain = {k: cand_summary["pipeline"].get(k) for k in (*CHAIN, "mrr")}
        cand_model_version = registry.register_bundle(
            args.candidate, metrics=chain, name=name, client=client
        )
        registry.set_alias(cand_model_version, CANDIDATE, name=name, client=client)

        registered = (
            None
            if args.production_bundle
            else registry.bundle_for_alias(PRODUCTION, name=name, client=client)
        )
        prod_path = resolve_production(args.production_bundle, registered, args.release_dir)
        prod_summary: dict[str, Any] | None = None
        prod_version = None
        prod_metrics_from = None
        if prod_path is not None:
            prod_version = verify_bundle(prod_path).bundle_version
            if prod_version == candidate_version:
                prod_summary = cand_summary  # the candidate is production already
                prod_metrics_from = "the candidate's"
            else:
                prod_summary, prod_metrics_from = production_summary(
                    prod_path, registered, loaded.items, eval_params, client=client, name=name
                )
        decision = decide(
            cand_summary,
            prod_summary,
            tolerance=params.tolerance,
            slices=params.slices_checked,
        )
        if decision.promote:
            if args.release_dir:
                released = registry.release_bundle(args.candidate, args.release_dir)
                registry.set_bundle_path(cand_model_version, released, name=name, client=client)
            registry.set_alias(cand_model_version, PRODUCTION, name=name, client=client)
            if args.release_dir:  # last: a follower moves only once the registry agrees
                write_pointer(args.release_dir, released.name)

        table = comparison(decision)
        info = {
            "promoted": decision.promote,
            "reason": decision.reason,
            "registered_model": name,
            "tolerance": params.tolerance,
            "n_queries": n_sampled,
            "n_regressions": len(decision.regressions),
            "candidate": {
                "bundle_version": candidate_version,
                "model_version": cand_model_version,
                "metrics_from": metrics_from,
            },
            "production": {
                "bundle_version": prod_version,
                "model_version": registered.version if registered else None,
                "source": (
                    "--production-bundle"
                    if args.production_bundle
                    else f"alias {PRODUCTION}"
                    if registered
                    else "none (first)"
                ),
                "metrics_from": prod_metrics_from,
            },
            "comparison": table,
            "promote_seconds": round(time.perf_counter() - t0, 1),
        }
        write_metrics(args.metrics, info)
        report = Path(args.report)
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(render_report(decision, info))

        mlflow.set_tags(
            {
                "decision": "promoted" if decision.promote else "refused",
                "candidate_bundle_version": candidate_version,
                "candidate_model_version": cand_model_version,
                "production_bundle_version": prod_version or "",
            }
        )
        log_metrics(
            {
                "promoted": int(decision.promote),
                "n_regressions": len(decision.regressions),
                **{f"candidate.{r.metric}": r.candidate for r in decision.rows},
                **{f"production.{r.metric}": r.production for r in decision.rows},
                **{f"delta.{r.metric}": r.delta for r in decision.rows},
            }
        )
        mlflow.log_dict(table, "comparison.json")
        mlflow.log_artifact(args.metrics)
        mlflow.log_artifact(str(report))

    print(
        f"promote: {'PROMOTED' if decision.promote else 'REFUSED'} {candidate_version} "
        f"(model version {cand_model_version}) vs production {prod_version or 'none'}: "
        f"{len(decision.regressions)} regressions beyond {params.tolerance} "
        f"-> {args.metrics} in {info['promote_seconds']}s"
    )


if __name__ == "__main__":
    main()

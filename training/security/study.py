"""The security study on the demo catalog end to end: poison, lint and ledger, reach
through real bundles, the risk-decision check, and the gates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from serving.calls.policy import RiskPolicy
from serving.catalog.approvals import check_approvals, filter_approved, write_ledger
from serving.catalog.findings import error_tool_ids
from serving.model.config import RuntimeParams
from serving.model.schema import LabeledQuery, ToolCard
from training.security.attacks import ATTACK_KINDS
from training.security.defenses import approvals_of, lint_rates, risk_decisions, security_error_ids
from training.security.params import Params
from training.security.poison_styles import Lint
from training.security.poisoning import choose_originals, current_catalog, install_catalog, poison
from training.security.reach import measure_reach, measured_requests


def run_security_eval(
    clean: Sequence[ToolCard],
    queries: Sequence[LabeledQuery],
    params: Params,
    *,
    runtime: RuntimeParams,
    export_params: Any,
    retriever_path: Path,
    work_dir: Path,
    lint: Lint,
) -> dict[str, Any]:
    """The whole measurement; writes only bundles and a ledger under `work_dir`."""
    from serving.catalog.approvals import policy_excluding
    from serving.selector import Selector
    from training.release.bundle_export import export_bundle

    originals = choose_originals(clean, queries, params)
    poisoned = poison(originals, {c.server for c in clean}, params)
    install = install_catalog(clean, poisoned)
    current = current_catalog(clean, poisoned)
    current_findings = lint(current)
    lint_excluded = error_tool_ids(current_findings)

    # ledger only: the reviewer approved everything installed, then the rug pulls came
    _, blind = check_approvals(current, approvals_of(install))
    # after: the reviewer approved what `toolsift approve` accepts at install time
    install_flagged = security_error_ids(lint(install))
    ledger_path = work_dir / "approvals.jsonl"
    write_ledger(ledger_path, approvals_of(c for c in install if c.tool_id not in install_flagged))
    approved, _ = filter_approved(current, ledger_path)
    gated = [c for c in approved if c.tool_id not in lint_excluded]

    rates = lint_rates(clean, poisoned, current, current_findings, (t for t, _ in blind), lint)
    policy = RiskPolicy.from_dict(runtime.policy)
    decisions = risk_decisions(poisoned, {c.tool_id: c for c in clean}, policy)

    requests = measured_requests(queries, poisoned, params)
    attackers = sorted({p.card.requires.connection for p in poisoned if not p.rug_pull})
    before_dir, after_dir = work_dir / "before", work_dir / "after"
    export = {
        "retriever_path": retriever_path,
        "reranker_path": None,
        "runtime": runtime,
        "params": export_params,
    }
    export_bundle(current, before_dir, **export)
    export_bundle(gated, after_dir, **export)
    before = Selector.from_bundle(before_dir)
    scenarios = {"before": measure_reach(before, requests, poisoned, attackers)}
    for name, denied in (
        ("lint_only", [(t, "lint") for t in lint_excluded]),
        ("ledger_only", blind),
    ):
        gate = Selector.from_bundle(before_dir, policy=policy_excluding(policy, denied))
        scenarios[name] = measure_reach(gate, requests, poisoned, attackers)
    scenarios["after"] = measure_reach(
        Selector.from_bundle(after_dir), requests, poisoned, attackers
    )
    scenarios["lint_only"]["n_excluded"] = len(lint_excluded)
    scenarios["ledger_only"]["n_excluded"] = len(blind)
    scenarios["after"]["n_excluded"] = len(current) - len(gated)
    return {
        "n_clean_tools": len(clean),
        "n_originals": len(originals),
        "originals": [c.tool_id for c in originals],
        "n_poisoned": len(poisoned),
        "n_poisoned_with_requests": scenarios["before"]["n_poisoned_targeted"],
        "poisoned_by_kind": {k: sum(p.kind == k for p in poisoned) for k in ATTACK_KINDS},
        "lint": rates,
        "reach": scenarios,
        "risk_policy": decisions,
        "clean_excluded_after": sorted(
            {c.tool_id for c in clean}
            - {c.tool_id for c in gated}
            - {p.original_id for p in poisoned if p.rug_pull}
        )[:50],
    }



def check_gates(metrics: Mapping[str, Any], params: Params) -> dict[str, Any]:
    lint, after = metrics["lint"], metrics["reach"]["after"]
    gates = {
        "false_positive_rate": lint["clean_false_positive_rate"] <= params.max_false_positive_rate,
        "flagged_rate": lint["poisoned_flagged_by_lint_or_ledger_rate"] >= params.min_flagged_rate,
        "menu_rate_after": after["poisoned_in_menu_rate"] <= params.max_menu_rate_after,
        "risk_decisions_equal": not metrics["risk_policy"]["mismatches"],
    }
    return {**gates, "passed": all(gates.values())}


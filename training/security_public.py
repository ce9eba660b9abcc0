"""Study `security_public`: the lint judged by public tool lists nobody here wrote.

    python -m training.security_public METRICS REPORT [--public DIR] [--detector FILE]
        [--judge-share 0.5] [--split-seed 0] [--fit-record metrics/lint_detector.json]
        [--frozen-at COMMIT]

The public corpus (`../shared/security`, read in place: `training.security.public_tools`)
is split by source repository (`--judge-share`, `--split-seed`: the split of the one
scoring so far, at 6a7c0e0); only the **judging** sources are read here. A source the
detector's own fit read (its `public.fit_sources` in `--fit-record`) is marked `in fit`,
and the headline says how many: once a judging set is scored it joins the fit, and a rerun
over it measures the fit, not the detector (the scored result is kept in
docs/experiments.md). Each of their tools is judged as the gateway judges it (the importer, the
rules and the detector by meaning: `training.security.judge`), by source, with the rules
alone and the check by meaning alone beside them. Then the live path: every judging
server's tools, attacks and benign mixed, reviewed by the gateway's own function
(`serving.gateway.registry.build_registry`, third-party trust, the detector's
`MeaningCheck`), counted as quarantined, served with a caution, or served.

Nothing quotes the corpus: the report and the metrics hold counts, tool ids and codes.
A judging set judges once: the detector is frozen (its commit is `--frozen-at`, recorded)
before this runs, and no change may be tuned on what it prints.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from serving.bundle.encoder import Encoder, stock_model_path
from serving.catalog.meaning import MeaningDetector
from serving.catalog.meaning_check import SHIPPED_DETECTOR, MeaningCheck, accepted_encoder
from serving.gateway.config import ServerSpec
from serving.gateway.registry import build_registry
from training.core.metrics_io import write_metrics
from training.security.judge import ToolVerdict, by_class, judge_tools, summary, table_by_source
from training.security.public_tools import (
    PublicTool,
    load_corpus,
    of_repos,
    split_repos,
)

log = logging.getLogger(__name__)


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of hits/n (95% by default). Worked: 9 of 10 -> (0.596,
    0.982)."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(centre - half, 4), round(centre + half, 4)


def vendor(tool: PublicTool) -> bool:
    """A vendor or project server's tool: benign and not shipped inside a poisoning lab."""
    return not tool.poisoned and not tool.twin


def live_path(tools: Sequence[PublicTool], check: MeaningCheck) -> dict[str, Any]:
    """The gateway's review of every judging server at once: quarantined / cautioned /
    served, for attacks and benign tools."""
    live: dict[str, list[dict[str, Any]]] = defaultdict(list)
    kind: dict[str, bool] = {}
    for i, t in enumerate(tools):
        server = f"s{i}_{t.card.server}"[:60]  # one server per tool: names never collide
        live[server].append(dict(t.entry))
        kind[f"{server}.{t.card.name}"] = t.poisoned
    specs = [ServerSpec(name=s, command="-", trust="third_party") for s in live]
    registry = build_registry(live, specs, {}, meaning=check)
    quarantined = {tool_id for tool_id, _ in registry.quarantined}
    out: dict[str, Any] = {}
    for label, poisoned in (("poisoned", True), ("benign", False)):
        ids = [t for t, p in kind.items() if p == poisoned]
        cautioned = [t for t in ids if t in registry.cards and registry.cards[t].cautions]
        out[label] = {
            "tools": len(ids),
            "quarantined": sum(t in quarantined for t in ids),
            "served_with_caution": len(cautioned),
            "served": sum(t in registry.cards for t in ids),
        }
    return out


def run(
    corpus_dir: str | None,
    check: MeaningCheck,
    *,
    judge_share: float,
    split_seed: int,
    detector_path: str,
    frozen_at: str,
    detector_fit: Sequence[str] = (),
) -> tuple[dict[str, Any], list[ToolVerdict]]:
    """The metrics of the judging sources (module doc) and each tool's verdict;
    `detector_fit`: the public sources the detector was fit on."""
    corpus = load_corpus(corpus_dir)
    fit, judging = split_repos(corpus.repos(), judge_share, split_seed)
    tools = of_repos(corpus.tools, judging)
    verdicts = judge_tools(tools, check.encoder, check.detector)
    rules_only = summary(judge_tools(tools))
    total = summary(verdicts)
    bad = [v for v in verdicts if v.tool.poisoned]
    good = [v for v in verdicts if not v.tool.poisoned]
    metrics: dict[str, Any] = {
        "frozen_at": frozen_at,
        "detector_sha256": hashlib.sha256(Path(detector_path).read_bytes()).hexdigest(),
        "corpus": corpus.directory,
        "corpus_sha256": corpus.sha256,
        "judging_sources": judging,
        "fit_sources": fit,
        "judging_sources_in_detector_fit": sorted(set(judging) & set(detector_fit)),
        **total,
        "poisoned_at_error_ci95": wilson(sum(v.level == 2 for v in bad), len(bad)),
        "benign_at_error_ci95": wilson(sum(v.level == 2 for v in good), len(good)),
        "vendor_tools": sum(vendor(v.tool) for v in good),
        "vendor_tools_at_error": sum(vendor(v.tool) and v.level == 2 for v in good),
        "rules_only": {
            k: rules_only[k]
            for k in ("poisoned_at_error", "poisoned_warned", "benign_at_error", "benign_warned")
        },
        "by_source": table_by_source(verdicts),
        "by_class": by_class(bad),
        "missed": sorted(v.tool.card.tool_id for v in bad if v.level < 2),
        "benign_at_error_tools": sorted(
            f"{v.tool.card.tool_id} ({','.join(v.codes)})" for v in good if v.level == 2
        ),
        "live_path": live_path(tools, check),
    }
    return metrics, verdicts


def last_commit(path: str) -> str:
    """The short id of the last commit that changed `path` ("" outside git, "uncommitted"
    when the file differs from it: a judging run on an unfrozen detector says so)."""
    import subprocess

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=False)

    found = git("log", "-1", "--format=%h", "--", path)
    if found.returncode != 0 or not found.stdout.strip():
        return ""
    dirty = git("diff", "--quiet", "HEAD", "--", path).returncode != 0
    return "uncommitted" if dirty else found.stdout.strip()


def render(metrics: dict[str, Any]) -> str:
    m = metrics
    lo, hi = m["poisoned_at_error_ci95"]
    spent = m["judging_sources_in_detector_fit"]
    warning = (
        [f"**In sample: {len(spent)} of these {len(m['judging_sources'])} sources are in "
         "this detector's fit** (a judging set joins the fit once scored). These numbers "
         "measure the fit; the one scoring of held-out sources is in docs/experiments.md.",
         ""]
        if spent else []
    )
    lines = [
        "# The lint on public tools nobody here wrote (judging sources)",
        "",
        *warning,
        f"Detector frozen at `{m['frozen_at']}` (sha256 `{m['detector_sha256'][:12]}`), on "
        f"the {len(m['judging_sources'])} source repositories of the held-out split "
        f"({m['n_poisoned']} poisoned tools, {m['n_benign']} benign, "
        f"{m['vendor_tools']} of them from vendor or project servers). Corpus: "
        "`../shared/security` (read in place; no text of it is quoted here).",
        "",
        "| | at error (quarantined) | warned or worse | rules alone at error |",
        "|---|---:|---:|---:|",
        f"| poisoned tools | {m['poisoned_at_error']:.1%} (95% CI {lo:.0%}-{hi:.0%}) | "
        f"{m['poisoned_warned']:.1%} | {m['rules_only']['poisoned_at_error']:.1%} |",
        f"| benign tools | {m['benign_at_error']:.2%} ({m['benign_tools_at_error']} tools) | "
        f"{m['benign_warned']:.1%} | {m['rules_only']['benign_at_error']:.2%} |",
        f"| vendor / project tools | {m['vendor_tools_at_error']} of {m['vendor_tools']} | | |",
        "",
        "## By source",
        "",
        "| source | kind | tools | at error | warned | rules at error | meaning at error |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in m["by_source"]:
        mark = " (in fit)" if r["source"] in spent else ""
        lines.append(
            f"| {r['source']}{mark} | {r['kind']} | {r['tools']} | {r['at_error']} | "
            f"{r['warned']} | {r['rules_at_error']} | {r['meaning_at_error']} |"
        )
    lines += ["", "## Poisoned tools by attack class", "",
              "| class | tools | at error | warned |", "|---|---:|---:|---:|"]
    for cls, r in m["by_class"].items():
        lines.append(f"| {cls} | {r['tools']} | {r['at_error']} | {r['warned']} |")
    live = m["live_path"]
    lines += [
        "",
        "## The live path",
        "",
        "Every judging server listed to the gateway's review at once "
        "(`build_registry`, third-party trust, the same detector):",
        "",
        "| | tools | quarantined | served with a caution | served |",
        "|---|---:|---:|---:|---:|",
    ]
    for label in ("poisoned", "benign"):
        r = live[label]
        lines.append(f"| {label} | {r['tools']} | {r['quarantined']} | "
                     f"{r['served_with_caution']} | {r['served']} |")
    lines += ["", "Missed (served) poisoned tools: "
              + (", ".join(f"`{t}`" for t in m["missed"]) or "none") + ".",
              "Benign tools at error: "
              + (", ".join(f"`{t}`" for t in m["benign_at_error_tools"]) or "none") + ".", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("metrics", help="metrics JSON")
    parser.add_argument("report", help="markdown report")
    parser.add_argument("--public", help="the public corpus (default: ../shared/security)")
    parser.add_argument("--detector", default=str(SHIPPED_DETECTOR),
                        help="the detector to judge (default: the shipped one)")
    parser.add_argument("--judge-share", type=float, default=0.5,
                        help="share of source repositories held out (default: %(default)s)")
    parser.add_argument("--split-seed", type=int, default=0,
                        help="the split's seed (default: %(default)s)")
    parser.add_argument(
        "--fit-record", default="metrics/lint_detector.json",
        help="the detector's fit metrics: which public sources it read (%(default)s)",
    )
    parser.add_argument(
        "--frozen-at", help="the commit that froze the detector (default: the last commit "
        "that changed the detector file)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    detector = MeaningDetector.load(args.detector)
    encoder, why = accepted_encoder(detector, [lambda: Encoder(stock_model_path())])
    check = MeaningCheck(detector, encoder, why).require()
    frozen_at = args.frozen_at or last_commit(args.detector)
    record = Path(args.fit_record)
    detector_fit = (
        json.loads(record.read_text()).get("public", {}).get("fit_sources", [])
        if record.is_file() else []
    )
    metrics, _ = run(args.public, check, judge_share=args.judge_share,
                     split_seed=args.split_seed, detector_path=args.detector,
                     frozen_at=frozen_at, detector_fit=detector_fit)
    write_metrics(args.metrics, metrics)
    Path(args.report).write_text(render(metrics))
    print(
        f"security_public: {metrics['n_poisoned']} poisoned tools of "
        f"{len(metrics['judging_sources'])} held-out sources, "
        f"{metrics['poisoned_at_error']:.1%} at error; benign at error "
        f"{metrics['benign_at_error']:.2%} ({metrics['vendor_tools_at_error']} vendor tools)"
    )


if __name__ == "__main__":
    main()

"""The `toolsift` command: the runtime commands of `serving.cli` plus the offline ones.

Offline commands live here because they import training code, which `serving` never does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from serving.cli import app, bundle_app, console
from serving.cli import main as _run

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> int:
    """The `toolsift` console script: every command, one error line per failure."""
    return _run(argv)


@app.command("eval")
def eval_command(
    bundle: Annotated[Path, typer.Option("--bundle", "-b", help="Candidate bundle directory.")],
    queries: Annotated[Path, typer.Option(help="Labeled queries, JSONL (gold per request).")],
    baseline_bundle: Annotated[
        Path | None, typer.Option(help="A stock bundle for the plain dense baseline.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole summary as JSON.")
    ] = False,
) -> None:
    """Run the runtime over labeled queries: the recall chain, slices, baselines, latency."""
    from training.evaluation.scoring import run_eval_cli

    summary = run_eval_cli(bundle, queries, baseline_bundle)
    if as_json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
        return
    pipeline = summary["pipeline"]
    stages = ("r_decompose", "r_retrieve", "r_filter", "r_menu", "r_select", "end_to_end")
    console.print("chain: " + "  ".join(f"{k}={pipeline[k]}" for k in stages))
    for name, rows in summary.get("baselines", {}).items():
        console.print(f"baseline {name}: " + "  ".join(f"{k}={v}" for k, v in rows.items()))
    console.print(f"{summary['n_queries']} queries; {summary.get('n_skipped_queries', 0)} skipped")


@app.command("import-otel")
def import_otel_command(
    exports: Annotated[
        list[Path], typer.Argument(help="OTLP JSON trace exports: one per file or one per line.")
    ],
    catalog: Annotated[Path, typer.Option(help="Tool cards (JSONL): tool names map to ids.")],
    out: Annotated[Path, typer.Option(help="Where to write the trace events (JSONL).")],
    strict: Annotated[bool, typer.Option(help="Stop at the first bad span.")] = False,
) -> None:
    """Convert OpenTelemetry GenAI traces (OTLP JSON: execute_tool spans under invoke_agent
    or chat spans) into trace events the mine stage reads. Bad spans are listed as
    file:line and quarantined beside OUT; exit 1 when there were any."""
    from features.otel_traces import import_otlp
    from serving.cli import literal
    from serving.model.io import load_catalog, quarantine_path_for, write_jsonl

    cards = load_catalog(catalog).items
    quarantine = quarantine_path_for(out, "otel")
    quarantine.unlink(missing_ok=True)  # a quarantine file always describes this run
    result = import_otlp(exports, cards, strict=strict, quarantine=quarantine)
    write_jsonl(out, (t.to_dict() for t in result.traces))
    for error in result.errors:
        sys.stderr.write(literal(error) + "\n")
    where = f" (quarantined in {quarantine})" if result.errors else ""
    console.print(literal(f"import-otel: {result.summary()} -> {out}{where}"))
    if result.errors:
        raise typer.Exit(1)


@app.command("report")
def report_command(
    metrics: Annotated[
        Path, typer.Option(help="The metrics folder the pipeline wrote (dvc.yaml's metrics/).")
    ] = Path("metrics"),
) -> None:
    """Summarise the last pipeline run: recall chain, baselines, latency, promotion, security."""
    from training.evaluation.summary import summary_lines

    for line in summary_lines(metrics):
        sys.stdout.write(line + "\n")


@bundle_app.command("from-servers")
def from_servers_command(
    config: Annotated[Path, typer.Option(help="Servers file (the gateway's config: mcpServers).")],
    out: Annotated[Path, typer.Option(help="Bundle directory to (re)create.")],
    ledger: Annotated[
        Path | None, typer.Option(help="Approval ledger: unapproved or changed tools stay out.")
    ] = None,
) -> None:
    """Cold start: list every server's tools, review them as the gateway does (import, lint,
    ledger) and export a stock bundle of what it would serve; `toolsift serve` runs on it.
    Needs the [train] extra. Writes OUT and, beside it, OUT.sources/ (catalog.jsonl of the
    served cards, quarantine.jsonl of what was left out and why)."""
    from training.release.from_servers import build_from_servers

    built = build_from_servers(config, out, ledger=ledger)
    console.print(built.summary())
    for tool_id, reason in built.quarantined:
        console.print(f"  quarantined {tool_id}: {reason}")
    for server, reason in built.down.items():
        console.print(f"  server {server} down: {reason}")
    console.print(f"cards: {built.catalog}; left out: {built.quarantine}")


if __name__ == "__main__":
    sys.exit(main())

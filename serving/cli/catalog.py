"""`toolsift import`, `lint` and `approve`: catalog governance on the command line.

The bodies are plain functions in `serving.catalog.review`; these only parse and print.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from serving.catalog.review import run_approve, run_import, run_lint
from serving.cli.root import literal, write_err


def import_command(
    path: Annotated[Path, typer.Argument(help="A tool list: MCP tools/list, OpenAI or Anthropic.")],
    server: Annotated[str, typer.Option(help="Server name: the namespace of the tool ids.")],
    out: Annotated[Path, typer.Option(help="Where to write the cards (JSONL).")],
    format: Annotated[str, typer.Option(help="mcp | openai | anthropic | auto")] = "auto",
    trust: Annotated[str, typer.Option(help="first_party | third_party")] = "third_party",
    domain: Annotated[str | None, typer.Option(help="Domain of every imported tool.")] = None,
    connection: Annotated[str | None, typer.Option(help="Connection (default: server).")] = None,
) -> None:
    """Turn a tool list into tool cards; derived fields are marked as derived."""
    summary = run_import(path, format, server, out, trust, domain=domain, connection=connection)
    for line in [*summary.get("errors", []), *summary.get("warnings", [])]:
        write_err(literal(line))
    sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    if summary.get("errors"):
        raise typer.Exit(1)


def lint(
    catalog: Annotated[Path, typer.Argument(help="Catalog JSONL to lint.")],
    as_json: Annotated[bool, typer.Option("--json", help="Findings as JSON.")] = False,
    embed: Annotated[
        bool,
        typer.Option(
            help="Embed summaries to find unmarked near-duplicates (slower; needs the "
            "'train' extra: torch and the packaged MiniLM)."
        ),
    ] = False,
    ledger: Annotated[
        Path | None, typer.Option(help="Approval ledger: also flag unapproved or changed tools.")
    ] = None,
    detector: Annotated[
        Path | None,
        typer.Option(
            help="Detector by meaning to use instead of the one the package ships "
            "(`make detector`): each sentence the model reads is judged benign, guidance "
            "or an attack class."
        ),
    ] = None,
    no_detector: Annotated[
        bool,
        typer.Option(
            "--no-detector",
            help="Rules only: skip the check by meaning (it needs the encoder of the 'train' "
            "extra).",
        ),
    ] = False,
) -> None:
    """Quality and security findings per tool, with a fix hint; exit 1 on any error.

    Rules and the detector by meaning both run by default, as in the gateway."""
    code, text = run_lint(
        catalog, as_json=as_json, embed=embed, ledger_path=ledger, detector_path=detector,
        use_detector=not no_detector,
    )
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    raise typer.Exit(code)


def approve(
    catalog: Annotated[Path, typer.Argument(help="Catalog JSONL holding the reviewed tools.")],
    ledger: Annotated[Path, typer.Option(help="Approval ledger to update.")],
    tool: Annotated[
        list[str] | None, typer.Option(help="Tool id to approve (repeat); default: all.")
    ] = None,
    approver: Annotated[str | None, typer.Option(help="Who reviewed them.")] = None,
    force: Annotated[bool, typer.Option(help="Approve despite security errors.")] = False,
) -> None:
    """Pin the reviewed description hashes; export and runtime leave out anything else."""
    code, text = run_approve(catalog, ledger, tool or "all", approver=approver, force=force)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    raise typer.Exit(code)


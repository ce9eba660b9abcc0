"""`toolsift`: the command line over the runtime and the data formats."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    help="toolsift: pick the right tool from a 1,000+ tool catalog, with a trace of why.",
    no_args_is_help=True,
    add_completion=False,
)
bundle_app = typer.Typer(help="Check and look inside selection bundles.", no_args_is_help=True)
app.add_typer(bundle_app, name="bundle")
console = Console(width=160) if not sys.stdout.isatty() else Console()
err_console = Console(stderr=True)

BundleOpt = Annotated[Path, typer.Option("--bundle", "-b", help="Selection bundle directory.")]


def _csv(value: str | None) -> list[str] | None:
    return None if value is None else [v.strip() for v in value.split(",") if v.strip()]


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr.")] = False):
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


@app.command()
def discover(
    request: Annotated[str, typer.Argument(help="The user's whole request.")],
    bundle: BundleOpt,
    connections: Annotated[
        str | None,
        typer.Option(help="Comma-separated connections the session holds (default: all)."),
    ] = None,
    scopes: Annotated[
        str | None, typer.Option(help="Comma-separated granted scopes (default: no scope check).")
    ] = None,
    env: Annotated[str, typer.Option(help="Deployment environment of the session.")] = "prod",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the full discovery as JSON.")
    ] = False,
    trace: Annotated[
        Path | None, typer.Option(help="Append this request's trace record to a JSONL file.")
    ] = None,
) -> None:
    """Decompose a request, retrieve, filter and rerank, and print each subgoal's menu."""
    from serving.disclose import catalog_tokens
    from serving.selector import Selector

    selector = Selector.from_bundle(bundle)
    context: dict[str, object] = {"env": env}
    if connections is not None:
        context["connections"] = _csv(connections)
    if scopes is not None:
        context["scopes"] = _csv(scopes)
    result = selector.discover(request, context)
    if trace is not None:
        from serving.tracelog import TraceWriter

        TraceWriter(trace).append(result.trace_record())
    whole = catalog_tokens(selector.bundle.cards)
    if as_json:
        out = result.to_dict()
        out["catalog_tokens"] = whole
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return
    for i, step in enumerate(result.steps, start=1):
        sg = step.subgoal
        kind = "write" if sg.mutation else "read"
        console.print(
            f"[bold]subgoal {i}[/bold] ({kind}; ops={','.join(sg.operations) or '-'}; "
            f"entities={','.join(sg.entities) or '-'}): {sg.text}"
        )
        table = Table(show_header=True, header_style="bold")
        for col in ("#", "tool", "relevance", "risk", "policy"):
            table.add_column(col, no_wrap=True)
        table.add_column("summary", no_wrap=True, overflow="ellipsis", max_width=60)
        for rank, cand in enumerate(step.menu, start=1):
            card = selector.cards[cand.tool_id]
            decision = step.decisions[cand.tool_id].decision
            table.add_row(
                str(rank), cand.tool_id, f"{cand.score:.3f}", card.risk, str(decision), card.summary
            )
        console.print(table)
        n_filtered = sum(1 for _, why in step.dropped if why.startswith("filter:"))
        console.print(
            f"  retrieved {len(step.retrieved)}, filtered out {n_filtered}, menu {len(step.menu)}; "
            f"menu tokens {step.discovery.tokens} + selection details {step.selection.tokens}"
        )
    console.print(
        f"[bold]prompt tokens[/bold]: {result.menu_tokens} for all menus vs {whole:,} to show "
        f"the whole catalog ({len(selector.cards):,} tools); "
        f"{result.timings_ms['total']:.0f} ms"
    )


@app.command()
def describe(
    tool_id: Annotated[str, typer.Argument(help="A tool id, e.g. github.list_commits.")],
    bundle: BundleOpt,
) -> None:
    """Print a tool's full card from the bundle's snapshot."""
    from serving.bundle import load_bundle

    cards = {c.tool_id: c for c in load_bundle(bundle).cards}
    if tool_id not in cards:
        err_console.print(f"{bundle}: no tool {tool_id!r}")
        raise typer.Exit(1)
    sys.stdout.write(json.dumps(cards[tool_id].to_dict(), indent=2) + "\n")


@app.command()
def check(
    kind: Annotated[str, typer.Argument(help="catalog | traces | queries")],
    path: Annotated[Path, typer.Argument(help="The JSONL file to check.")],
    catalog: Annotated[
        Path | None, typer.Option(help="Catalog to resolve tool ids against (traces, queries).")
    ] = None,
    strict: Annotated[bool, typer.Option(help="Stop at the first bad line.")] = False,
    quarantine: Annotated[
        Path | None, typer.Option(help="Write bad lines with their errors to this file.")
    ] = None,
) -> None:
    """Validate a catalog, trace or labeled-query file; print each bad line's file:line: field."""
    from serving.io import InputError, LoadResult, load_catalog, load_queries, load_traces

    try:
        known = [c.tool_id for c in load_catalog(catalog).items] if catalog else None
        result: LoadResult[Any]
        if kind == "catalog":
            result = load_catalog(path, strict=strict, quarantine=quarantine)
        elif kind == "traces":
            result = load_traces(path, known_tools=known, strict=strict, quarantine=quarantine)
        elif kind == "queries":
            result = load_queries(path, known_tools=known, strict=strict, quarantine=quarantine)
        else:
            raise typer.BadParameter(f"{kind!r}: expected catalog, traces or queries")
    except InputError as err:
        err_console.print(str(err))
        raise typer.Exit(2) from None
    for error in result.errors:
        err_console.print(str(error))
    console.print(result.summary(str(path)))
    if result.errors:
        raise typer.Exit(1)


@bundle_app.command("verify")
def bundle_verify(path: Annotated[Path, typer.Argument(help="Bundle directory.")]) -> None:
    """Check the bundle's format version and every file's sha256."""
    from serving.bundle import BundleError, read_cards, verify_bundle

    try:
        manifest = verify_bundle(path)
        read_cards(path)
    except BundleError as err:
        err_console.print(f"[red]invalid bundle[/red]: {err}")
        raise typer.Exit(1) from None
    console.print(f"ok: {manifest.bundle_version} ({len(manifest.files)} files verified)")


@bundle_app.command("inspect")
def bundle_inspect(path: Annotated[Path, typer.Argument(help="Bundle directory.")]) -> None:
    """Print the manifest: version, git rev, models, params, metrics."""
    from serving.bundle import BundleError, verify_bundle

    try:
        manifest = verify_bundle(path)
    except BundleError as err:
        err_console.print(f"[red]invalid bundle[/red]: {err}")
        raise typer.Exit(1) from None
    out = manifest.to_dict()
    out["files"] = len(manifest.files)
    sys.stdout.write(json.dumps(out, indent=2) + "\n")


@app.command("import")
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
    from serving.importers import ImporterError, run_import
    from serving.io import InputError

    try:
        summary = run_import(path, format, server, out, trust, domain=domain, connection=connection)
    except (InputError, ImporterError) as err:
        err_console.print(str(err))
        raise typer.Exit(2) from None
    for line in summary.get("errors", []):
        err_console.print(line)
    sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    if summary.get("errors"):
        raise typer.Exit(1)


@app.command()
def lint(
    catalog: Annotated[Path, typer.Argument(help="Catalog JSONL to lint.")],
    as_json: Annotated[bool, typer.Option("--json", help="Findings as JSON.")] = False,
    embed: Annotated[
        bool, typer.Option(help="Embed summaries to find unmarked near-duplicates (slower).")
    ] = True,
    ledger: Annotated[
        Path | None, typer.Option(help="Approval ledger: also flag unapproved or changed tools.")
    ] = None,
) -> None:
    """Quality and security findings per tool, with a fix hint; exit 1 on any error."""
    from serving.io import InputError
    from serving.lint import run_lint

    try:
        code, text = run_lint(catalog, as_json=as_json, embed=embed, ledger_path=ledger)
    except InputError as err:
        err_console.print(str(err))
        raise typer.Exit(2) from None
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    raise typer.Exit(code)


@app.command()
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
    from serving.approvals import ApprovalError, run_approve

    try:
        code, text = run_approve(catalog, ledger, tool or "all", approver=approver, force=force)
    except ApprovalError as err:
        err_console.print(str(err))
        raise typer.Exit(2) from None
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    raise typer.Exit(code)

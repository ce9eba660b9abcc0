"""`toolsift`: the command line over the runtime and the data formats."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from serving.catalog.findings import LintConfig

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
    if result.request_step is not None:
        top = result.ranked()[: selector.params.menu_size]
        console.print(f"[bold]whole request[/bold], fused with its subgoals: {', '.join(top)}")
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
    from serving.catalog.importers import ImporterError
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
        bool,
        typer.Option(
            help="Embed summaries to find unmarked near-duplicates (slower; needs the "
            "`[train]` install: torch and the packaged MiniLM)."
        ),
    ] = False,
    ledger: Annotated[
        Path | None, typer.Option(help="Approval ledger: also flag unapproved or changed tools.")
    ] = None,
) -> None:
    """Quality and security findings per tool, with a fix hint; exit 1 on any error."""
    from serving.io import InputError

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
    from serving.catalog.approvals import ApprovalError

    try:
        code, text = run_approve(catalog, ledger, tool or "all", approver=approver, force=force)
    except ApprovalError as err:
        err_console.print(str(err))
        raise typer.Exit(2) from None
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    raise typer.Exit(code)


# --- catalog governance: the bodies of `import`, `lint` and `approve` ----------------------
# Plain functions returning (exit code, text) or a summary, so tests call them directly.


def run_import(
    path: str | Path,
    format: str,
    server: str,
    out: str | Path,
    trust: str = "third_party",
    *,
    domain: str | None = None,
    connection: str | None = None,
    owner: str = "",
    risk: str | None = None,
) -> dict[str, Any]:
    """`toolsift import`: convert a file and write the cards as JSONL to `out`.

    Returns a JSON-ready summary: counts, every error line, and how many cards carry each
    derived field. Raises `InputError` / `ImporterError` when nothing can be imported.
    """
    from serving.catalog.importers import import_tools
    from serving.io import write_jsonl
    from serving.schema import RISKS

    result = import_tools(
        path,
        format,
        server,
        trust=trust,
        domain=domain,
        connection=connection,
        owner=owner,
        risk=risk,
    )
    n_written = write_jsonl(out, (c.to_dict() for c in result.items))
    derived: dict[str, int] = {}
    for card in result.items:
        for name in card.derived:
            derived[name] = derived.get(name, 0) + 1
    risks = {r: sum(1 for c in result.items if c.risk == r) for r in RISKS}
    return {
        "source": str(path),
        "format": format,
        "server": server,
        "trust": trust,
        "out": str(out),
        "n_entries": result.n_lines,
        "n_imported": n_written,
        "n_skipped": result.n_skipped,
        "errors": [str(e) for e in result.errors],
        "risk": risks,
        "derived": dict(sorted(derived.items())),
    }


def run_lint(
    catalog_path: str | Path,
    *,
    as_json: bool = False,
    embed: bool = True,
    ledger_path: str | Path | None = None,
    first_party_servers: Iterable[str] | None = None,
    model_path: str | Path | None = None,
    config: LintConfig | None = None,
) -> tuple[int, str]:
    """`toolsift lint`: (exit code, output text). Exit 1 when any finding is an error.

    Unreadable card lines become `card_invalid` errors; with `ledger_path` the approval
    ledger is checked too (`not_approved`, `changed_after_approval`). Raises
    `serving.io.InputError` when the catalog or ledger cannot be read at all.
    """
    from serving.catalog.approvals import approval_findings
    from serving.catalog.findings import (
        count_findings,
        finding,
        format_findings,
        has_errors,
        sort_findings,
    )
    from serving.catalog.lint import lint_catalog
    from serving.io import load_catalog

    loaded = load_catalog(catalog_path)
    cards = loaded.items
    encoder = None
    if embed:
        from serving.encoder import Encoder, stock_model_path

        encoder = Encoder(model_path or stock_model_path())
    findings = lint_catalog(
        cards, encoder=encoder, first_party_servers=first_party_servers, config=config
    )
    findings += [
        finding(f"<line {e.line}>", "card_invalid", str(e), "fix the card; it was not loaded")
        for e in loaded.errors
    ]
    if ledger_path is not None:
        findings += approval_findings(cards, ledger_path)
    findings = sort_findings(findings)
    code = 1 if has_errors(findings) else 0
    if as_json:
        payload = {
            "catalog": str(catalog_path),
            "n_tools": len(cards),
            "n_invalid_lines": loaded.n_skipped,
            "counts": count_findings(findings),
            "findings": [f.to_dict() for f in findings],
        }
        return code, json.dumps(payload, indent=2) + "\n"  # ASCII: hidden chars escaped
    header = f"{catalog_path}: {len(cards)} tools ({loaded.n_skipped} invalid lines)"
    return code, format_findings(findings, header=header)


def run_approve(
    catalog_path: str | Path,
    ledger_path: str | Path,
    tool_ids: Sequence[str] | str,
    *,
    approver: str | None = None,
    force: bool = False,
) -> tuple[int, str]:
    """`toolsift approve`: (exit code, output). Tools with an error-severity security
    finding are refused unless `force`; exit 1 when any requested tool was refused."""
    from serving.catalog import approvals
    from serving.catalog.findings import error_tool_ids
    from serving.catalog.lint import lint_catalog
    from serving.io import load_catalog

    loaded = load_catalog(catalog_path)
    cards = loaded.items
    by_id = {c.tool_id: c for c in cards}
    if tool_ids == "all":
        wanted = list(by_id)
    else:
        wanted = list(dict.fromkeys([tool_ids] if isinstance(tool_ids, str) else tool_ids))
    unknown = [t for t in wanted if t not in by_id]
    if unknown:
        raise approvals.ApprovalError(
            f"{catalog_path}: not in the catalog: {', '.join(unknown[:10])}"
        )
    findings = lint_catalog(cards, encoder=None)
    flagged = error_tool_ids(findings, security_only=True)
    refused = [] if force else [t for t in wanted if t in flagged]
    chosen = [t for t in wanted if t not in refused]
    new = approvals.approve(ledger_path, cards, chosen, approver=approver) if chosen else []
    lines = [f"approved {len(new)} tools into {ledger_path}"]
    for tool_id in refused:
        reasons = sorted(
            {f.code for f in findings if f.tool_id == tool_id and f.severity == "error"}
        )
        lines.append(f"refused {tool_id}: {', '.join(reasons)} (see `toolsift lint`)")
    return (1 if refused else 0), "\n".join(lines) + "\n"

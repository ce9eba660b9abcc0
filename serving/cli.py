"""`toolsift`: the command line over the runtime and the data formats.

Run through `main()`: every failure is one line `toolsift: error: ...` on stderr and exit
code 2 (`--debug` adds the traceback); exit 1 means findings (lint, check, a refused
approval). Text that comes from data or from the user is printed literally: the consoles
interpret no markup, and control characters are escaped (`literal`).
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from serving.calls.diagnose import Diagnosis
    from serving.catalog.findings import LintConfig

app = typer.Typer(
    help="toolsift: pick the right tool from a 1,000+ tool catalog, with a trace of why.",
    no_args_is_help=True,
    add_completion=False,
)
bundle_app = typer.Typer(help="Check and look inside selection bundles.", no_args_is_help=True)
app.add_typer(bundle_app, name="bundle")
# markup, emoji codes and highlighting off: a tool id or request holding `[/bold]` or
# `:x:` is shown as written (and cannot crash the renderer); soft wrap keeps paths whole
def _plain_console(*, stderr: bool = False, width: int | None = None) -> Console:
    return Console(
        stderr=stderr, width=width, markup=False, emoji=False, highlight=False, soft_wrap=True
    )


console = _plain_console(width=None if sys.stdout.isatty() else 160)
err_console = _plain_console(stderr=True)

BundleOpt = Annotated[Path, typer.Option("--bundle", "-b", help="Selection bundle directory.")]
VersionOpt = Annotated[
    str | None,
    typer.Option("--bundle-version", help="Refuse any bundle but this version (a pin)."),
]
PublicKeyOpt = Annotated[
    Path | None,
    typer.Option(
        "--public-key",
        help="Ed25519 public key (PEM): refuse unsigned or wrongly signed bundles "
        "(default: $TOOLSIFT_BUNDLE_PUBLIC_KEY, if set).",
    ),
]


def _csv(value: str | None) -> list[str] | None:
    return None if value is None else [v.strip() for v in value.split(",") if v.strip()]


def literal(text: object) -> str:
    """Data or user text made safe for a terminal: controls, bidi and zero-width
    characters escaped as `\\u{..}`, lone surrogates (undecodable argv bytes) replaced."""
    from serving.catalog.findings import terminal_safe

    safe = str(text).encode("utf-8", "replace").decode("utf-8")
    return terminal_safe(safe)


def error_line(err: BaseException | str) -> str:
    """One line for any failure: multi-line messages (several bad lines) joined by `; `."""
    text = err if isinstance(err, str) else (str(err) or type(err).__name__)
    if isinstance(err, KeyError | TypeError) and not isinstance(err, str):
        text = f"{type(err).__name__}: {text}"
    parts = [p.strip() for p in text.splitlines() if p.strip()]
    return "toolsift: error: " + literal("; ".join(parts) or text)


def _write_err(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """The `toolsift` entry point: run a command, turn any failure into one error line.

    Returns the exit code: 0 ok, 1 findings, 2 an error (usage included), 130 interrupted.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    try:
        code = app(args=args, prog_name="toolsift", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as err:
        err.show()
        return 2
    except click.ClickException as err:  # usage errors: bad options, missing arguments
        if debug:
            traceback.print_exc()
        ctx = getattr(err, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        _write_err(error_line(err.format_message()) + literal(where))
        return 2
    except click.Abort:
        _write_err("toolsift: error: aborted")
        return 130
    except Exception as err:  # noqa: BLE001 - the one place every failure becomes a line
        if debug:
            traceback.print_exc()
        _write_err(error_line(err))
        return 2
    return code if isinstance(code, int) else 0


@app.callback()
def _main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr.")] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an error.")
    ] = False,
):
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


@app.command()
def discover(
    request: Annotated[str, typer.Argument(help="The user's whole request.")],
    bundle: BundleOpt,
    connections: Annotated[
        str | None,
        typer.Option(help="Comma-separated connections the session holds, or server names "
                     "standing for their tools' connections (default: all)."),
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
    bundle_version: VersionOpt = None,
    public_key: PublicKeyOpt = None,
) -> None:
    """Decompose a request, retrieve, filter and rerank, and print each subgoal's menu."""
    from serving.selector import Selector
    from serving.stages.disclose import catalog_tokens

    selector = Selector.from_bundle(
        bundle, expect_version=bundle_version, public_key=public_key
    )
    context: dict[str, object] = {"env": env}
    if connections is not None:
        context["connections"] = _csv(connections)
    if scopes is not None:
        context["scopes"] = _csv(scopes)
    # a server's name stands for its tools' connections; a name that is neither is kept
    # (it matches no tool) and said, since a typo would otherwise filter silently
    session, unknown = selector.session_context(context)
    warnings = [
        f"--connections: {name!r} is neither a server nor a connection of this bundle's "
        "tools; it matches no tool" for name in unknown
    ]
    result = selector.discover(request, session)
    if trace is not None:
        from serving.calls.tracelog import TraceWriter

        TraceWriter(trace).append(result.trace_record())
    whole = catalog_tokens(selector.bundle.cards)
    if as_json:
        out = result.to_dict()
        out["warnings"] = [*warnings, *out["warnings"]]
        out["catalog_tokens"] = whole
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return
    for warning in warnings:
        console.print(Text.assemble(("warning", "bold yellow"), literal(f": {warning}")))
    for i, step in enumerate(result.steps, start=1):
        sg = step.subgoal
        kind = "write" if sg.mutation else "read"
        console.print(
            Text.assemble(
                (f"subgoal {i}", "bold"),
                literal(
                    f" ({kind}; ops={','.join(sg.operations) or '-'}; "
                    f"entities={','.join(sg.entities) or '-'}): {sg.text}"
                ),
            )
        )
        if step.abstention is not None:
            console.print(Text(literal(f"  abstains: {step.abstention.reason}")))
        for m in step.missing:
            console.print(Text(literal(f"  missing {m.kind} {m.name}: {m.line()}")))
        if not step.menu:
            continue
        table = Table(show_header=True, header_style="bold")
        for col in ("#", "tool", "relevance", "risk", "policy"):
            table.add_column(col, no_wrap=True)
        table.add_column("summary", no_wrap=True, overflow="ellipsis", max_width=60)
        for rank, cand in enumerate(step.menu, start=1):
            card = selector.cards[cand.tool_id]
            decision = step.decisions[cand.tool_id].decision
            cells = (rank, cand.tool_id, f"{cand.score:.3f}", card.risk, decision, card.summary)
            table.add_row(*(Text(literal(c)) for c in cells))  # Text: never parsed as markup
        console.print(table)
        n_filtered = sum(1 for _, why in step.dropped if why.startswith("filter:"))
        console.print(
            f"  retrieved {len(step.retrieved)}, filtered out {n_filtered}, menu {len(step.menu)}; "
            f"menu tokens {step.discovery.tokens} + selection details {step.selection.tokens}"
        )
    if result.abstained:
        console.print(Text.assemble(
            ("no tool in this session serves the request", "bold"),
            ": answer without one, ask the user, or connect what is missing",
        ))
    elif result.request_step is not None:
        top = result.menu_ranked()[: selector.params.menu_size]
        console.print(
            Text.assemble(
                ("whole request", "bold"),
                literal(f", fused with its subgoals: {', '.join(top)}"),
            )
        )
    console.print(
        Text.assemble(
            ("prompt tokens", "bold"),
            f": {result.menu_tokens} for all menus vs {whole:,} to show the whole catalog "
            f"({len(selector.cards):,} tools); {result.timings_ms['total']:.0f} ms",
        )
    )


@app.command()
def describe(
    tool_id: Annotated[str, typer.Argument(help="A tool id, e.g. github.list_commits.")],
    bundle: BundleOpt,
    bundle_version: VersionOpt = None,
    public_key: PublicKeyOpt = None,
) -> None:
    """Print a tool's full card from the bundle's snapshot."""
    from serving.bundle.files import load_bundle

    loaded = load_bundle(bundle, expect_version=bundle_version, public_key=public_key)
    cards = {c.tool_id: c for c in loaded.cards}
    if tool_id not in cards:
        raise LookupError(f"{bundle}: no tool {tool_id!r}")
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
    from serving.model.io import LoadResult, load_catalog, load_queries, load_traces

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
    for error in result.errors:
        _write_err(literal(error))
    console.print(literal(result.summary(str(path))))
    if result.errors:
        raise typer.Exit(1)


@app.command("diagnose")
def diagnose_command(
    traces: Annotated[
        Path, typer.Argument(help="Trace file (JSONL) the runtime or `toolsift serve` wrote.")
    ],
    labeled: Annotated[
        Path | None,
        typer.Option(help="Labeled queries (JSONL): also where the recall chain lost each "
                     "gold tool, for the requests the traces hold with a query's text."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the whole report as JSON to this file.")
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="Draw the failures per class and period as bars (PNG; needs "
                     "matplotlib, which the train extra installs)."),
    ] = None,
    by: Annotated[str, typer.Option(help="Period of the counts over time: day | hour (UTC).")]
    = "day",
    window_s: Annotated[
        float,
        typer.Option(help="A search this many seconds after a failed or a successful call "
                     "of the same session counts as a follow-up."),
    ] = 120.0,
    top: Annotated[int, typer.Option(help="Tools and servers listed per class.")] = 3,
    strict: Annotated[bool, typer.Option(help="Stop at the first bad line.")] = False,
) -> None:
    """Sort production trace records into failure classes, each with where its fix lives:
    no suitable tool, not retrieved or cut, quarantined, not connected, denied, invoked
    wrongly, declined or dry run, downstream error, tool error, returned too little. Bad
    lines are named (file:line) and skipped."""
    from serving.calls.diagnose import BUCKETS, TraceRecord, diagnose
    from serving.model.io import load_jsonl, load_queries

    if by not in BUCKETS:  # before reading a large file
        raise ValueError(f"--by: {by!r} is not {' or '.join(BUCKETS)}")
    if plot is not None:
        _pyplot()
    loaded = load_jsonl(traces, lambda d: [TraceRecord.from_dict(d)], strict=strict)
    errors = list(loaded.errors)
    queries = None
    if labeled is not None:
        labels = load_queries(labeled, strict=strict)
        errors += labels.errors
        queries = labels.items
    for error in errors:
        _write_err(literal(error))
    report = diagnose(loaded.items, window_s=window_s, by=by, labeled=queries)
    _print_diagnosis(report, top=top)
    console.print(literal(f"{loaded.summary(str(traces))}; {report.n_failures} failures"))
    if json_out is not None:
        out = {"traces": str(traces), "n_bad_lines": len(errors),
               "bad_lines": [str(e) for e in errors], **report.to_dict()}
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    if plot is not None:
        _plot_diagnosis(report, plot)


def _top(counts: Sequence[tuple[str, int]], n: int) -> str:
    shown = ", ".join(f"{name} {k}" for name, k in counts[:n])
    return shown + (f", +{len(counts) - n} more" if len(counts) > n else "")


def _print_diagnosis(report: Diagnosis, *, top: int) -> None:
    from serving.metrics import STAGES

    console.print(literal(
        f"{report.n_records} records: {report.n_searches} searches, {report.n_calls} calls, "
        f"{report.n_sessions} sessions ({report.n_without_session} records without one)"
    ))
    table = Table(show_header=True, header_style="bold")
    for col in ("class", "count", "share"):
        table.add_column(col, no_wrap=True, justify="left" if col == "class" else "right")
    table.add_column("where the fix lives")
    for c in report.classes:
        table.add_row(*(Text(literal(x)) for x in (c.name, c.count, f"{c.share:.0%}", c.fix)))
    console.print(table)
    for c in (c for c in report.classes if c.count):
        parts = [f"why {_top(c.by_reason, top)}"]
        if c.by_tool:
            parts.append(f"tools {_top(c.by_tool, top)}")
        if c.by_server:
            parts.append(f"servers {_top(c.by_server, top)}")
        console.print(Text(literal(f"  {c.name}: " + "; ".join(parts))))
    if report.other_outcomes:
        console.print(literal(f"  outcomes no class knows: {_top(report.other_outcomes, 10)}"))
    if report.buckets:
        per = ", ".join(f"{p} {sum(n for _, n in counts)}" for p, counts in report.buckets)
        console.print(literal(f"failures per {report.by}: {per}"))
    losses = report.losses
    if losses is None:
        return
    from serving.calls.diagnose import STAGE_LOSSES

    console.print(literal(
        f"labeled: {losses.n_matched} of {losses.n_queries} queries asked in the traces "
        f"({losses.n_requests} requests, {losses.chain['n_items']} gold tools); "
        f"end to end {_rate(losses.chain['end_to_end'])}"
    ))
    for stage in STAGES:
        lost = losses.chain[f"lost_{stage}"]
        tools = losses.lost_tools.get(stage, ())
        where = f" ({_top(tools, top)})" if tools else ""
        console.print(Text(literal(f"  {STAGE_LOSSES[stage]}: {lost}{where}")))


def _rate(value: object) -> str:
    return "-" if value is None else f"{value:.0%}"


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as err:
        raise RuntimeError(f"--plot needs matplotlib: pip install 'toolsift[train]' ({err})") \
            from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plot_diagnosis(report: Diagnosis, path: Path) -> None:
    """Failures per class (left) and per period, stacked by class (right); one colour a
    class in both."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    names = [c.name for c in report.classes]
    colour = {name: f"C{i}" for i, name in enumerate(names)}
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    left.barh(names[::-1], [c.count for c in report.classes][::-1],
              color=[colour[n] for n in names[::-1]])
    left.set_xlabel("failures")
    left.set_title(f"by class ({report.n_failures} failures in {report.n_records} records)")
    periods = [p for p, _ in report.buckets]
    bottom = [0] * len(periods)
    for name in names:
        heights = [dict(counts).get(name, 0) for _, counts in report.buckets]
        if any(heights):
            right.bar(periods, heights, bottom=bottom, label=name, color=colour[name])
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    right.set_title(f"per {report.by} (UTC)")
    right.tick_params(axis="x", labelrotation=30)
    if periods:
        right.legend(fontsize=7)
    for ax in (left.xaxis, right.yaxis):
        ax.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


@bundle_app.command("verify")
def bundle_verify(
    path: Annotated[Path, typer.Argument(help="Bundle directory.")],
    bundle_version: VersionOpt = None,
    public_key: PublicKeyOpt = None,
) -> None:
    """Check the format version, every file's sha256, the version id and (with a public
    key) the signature; exit 1 when the bundle is invalid."""
    from serving.bundle.files import BundleError, read_cards, verify_bundle

    try:
        manifest = verify_bundle(path, expect_version=bundle_version, public_key=public_key)
        read_cards(path)
    except BundleError as err:  # the verdict of a check, so exit 1 like lint findings
        _write_err(error_line(f"invalid bundle: {err}"))
        raise typer.Exit(1) from None
    from serving.bundle.signing import configured_public_key

    signed = ""
    if configured_public_key(public_key) is not None:
        signed = "; signature verified"
    elif manifest.signature:
        signed = "; signed, but no public key was given to check it"
    n_files = len(manifest.files)
    console.print(literal(f"ok: {manifest.bundle_version} ({n_files} files verified{signed})"))


@bundle_app.command("inspect")
def bundle_inspect(
    path: Annotated[Path, typer.Argument(help="Bundle directory.")],
    bundle_version: VersionOpt = None,
    public_key: PublicKeyOpt = None,
) -> None:
    """Print the manifest: version, git rev, models, params, metrics."""
    from serving.bundle.files import verify_bundle

    manifest = verify_bundle(path, expect_version=bundle_version, public_key=public_key)
    out = manifest.to_dict()
    out["files"] = len(manifest.files)
    sys.stdout.write(json.dumps(out, indent=2) + "\n")


@bundle_app.command("sign")
def bundle_sign(
    path: Annotated[Path, typer.Argument(help="Bundle directory.")],
    key: Annotated[Path, typer.Option(help="Ed25519 private key (PEM, unencrypted).")],
) -> None:
    """Verify the bundle and write the Ed25519 signature of its version into the manifest."""
    from serving.bundle.files import sign_bundle

    manifest = sign_bundle(path, key)
    console.print(literal(f"signed {manifest.bundle_version} in {path}"))


@bundle_app.command("keygen")
def bundle_keygen(
    out: Annotated[Path, typer.Argument(help="Writes OUT (private, mode 600) and OUT.pub.")],
) -> None:
    """Make an Ed25519 key pair for `bundle sign` / `--public-key`."""
    import os

    from serving.bundle.signing import generate_keypair

    private, public = generate_keypair()
    pub = out.with_name(out.name + ".pub")
    if out.exists() or pub.exists():
        raise FileExistsError(f"{out}: exists; refusing to overwrite a key")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(private)
    pub.write_bytes(public)
    console.print(literal(f"wrote {out} (keep it secret) and {pub}"))


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
    summary = run_import(path, format, server, out, trust, domain=domain, connection=connection)
    for line in [*summary.get("errors", []), *summary.get("warnings", [])]:
        _write_err(literal(line))
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
    code, text = run_approve(catalog, ledger, tool or "all", approver=approver, force=force)
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
    from serving.model.io import write_jsonl
    from serving.model.schema import RISKS

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
        "warnings": [str(w) for w in result.warnings],
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
    detector_path: str | Path | None = None,
    use_detector: bool = True,
) -> tuple[int, str]:
    """`toolsift lint`: (exit code, output text). Exit 1 when any finding is an error.

    Unreadable card lines become `card_invalid` errors; with `ledger_path` the approval
    ledger is checked too (`not_approved`, `changed_after_approval`); unless
    `use_detector` is False, each sentence is judged by meaning (`serving.catalog.meaning`)
    by `detector_path` or the shipped detector (`serving.catalog.meaning_check`).
    Raises `serving.model.io.InputError` when the catalog or ledger cannot be read at all
    and `serving.catalog.meaning.DetectorError` when the detector cannot be used.
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
    from serving.catalog.meaning import DetectorError, MeaningDetector
    from serving.catalog.meaning_check import shipped_detector
    from serving.model.io import load_catalog

    loaded = load_catalog(catalog_path)
    cards = loaded.items
    detector = None
    if use_detector:
        detector = (
            MeaningDetector.load(detector_path) if detector_path is not None
            else shipped_detector()
        )
    encoder = None
    if embed or detector is not None:
        from serving.bundle.encoder import Encoder, stock_model_path

        try:
            encoder = Encoder(model_path or stock_model_path())
        except ImportError as err:  # a runtime-only install: the rules still run
            if detector_path is not None or embed:
                raise DetectorError(
                    f"the check by meaning needs the `[train]` install's encoder: {err}"
                ) from None
            detector = None
    findings = lint_catalog(
        cards,
        encoder=encoder,
        first_party_servers=first_party_servers,
        config=config,
        detector=detector,
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
    from serving.model.io import load_catalog

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


# The MCP gateway's commands; they import the mcp SDK (the `serve` extra) only when run.
from serving.gateway.commands import demo_server, serve  # noqa: E402

app.command("serve")(serve)
app.command("demo-server")(demo_server)

"""`toolsift discover` and `describe`: the selector on one request; one card of a bundle."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from serving.cli.root import BundleOpt, PublicKeyOpt, VersionOpt, console, literal


def _csv(value: str | None) -> list[str] | None:
    return None if value is None else [v.strip() for v in value.split(",") if v.strip()]


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
    tools: Annotated[
        str | None,
        typer.Option(help="Comma-separated tool ids the application offers with this request: "
                     "only those are searched and shown (default: every tool)."),
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
    if tools is not None:
        context["tools"] = _csv(tools)
    # a server's name stands for its tools' connections; a name that is neither is kept
    # (it matches no tool) and said, since a typo would otherwise filter silently
    session, unknown = selector.session_context(context)
    warnings = [
        f"--connections: {name!r} is neither a server nor a connection of this bundle's "
        "tools; it matches no tool" for name in unknown
    ] + [
        f"--tools: {name!r} is no tool of this bundle" for name in sorted(session.tools)
        if name not in selector.cards
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


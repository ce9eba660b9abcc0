"""`toolsift serve` and `toolsift demo-server` (registered on the CLI in `serving.cli`).

The `mcp` SDK is imported only when a command runs, so the rest of the CLI works without
the `serve` extra. Failures are raised, not printed: the CLI's one handler
(`serving.cli.main`) turns each into a `toolsift: error:` line and exit code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Transport = Annotated[str, typer.Option(help="stdio (a client starts this process) | http.")]


def _check_transport(transport: str) -> None:
    if transport not in ("stdio", "http"):
        raise ValueError(f"--transport: {transport!r} is not stdio or http")


def _needs_mcp(command: str, err: ImportError) -> RuntimeError:
    return RuntimeError(f"toolsift {command} needs the mcp SDK: pip install "
                        f"'toolsift[serve]' ({err})")


def serve(
    bundle: Annotated[Path, typer.Option(
        "--bundle", "-b", help="Selection bundle directory, or a release pointer to follow "
        "(promote's RELEASE_DIR/production.json): a newly promoted bundle is verified and "
        "swapped in between requests, sessions kept; one that fails verification is refused "
        "and the old one keeps serving.")],
    config: Annotated[Path, typer.Option(help="Servers file: {\"mcpServers\": {...}}.")],
    ledger: Annotated[
        Path | None, typer.Option(help="Approval ledger: unapproved or changed tools are held.")
    ] = None,
    traces: Annotated[
        Path | None, typer.Option(help="Append a trace line per discovery and call (JSONL); "
                                  "an existing directory: this process's own file in it, "
                                  "<host>-<pid>.jsonl (several gateways, one directory).")
    ] = None,
    transport: Transport = "stdio",
    host: Annotated[str, typer.Option(help="http: address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: port; the endpoint is /mcp.")] = 8765,
    reload_interval: Annotated[
        float, typer.Option(help="Seconds between checks of a followed release pointer.")
    ] = 2.0,
    review_cache: Annotated[
        Path | None, typer.Option(help="Keep the review's sentence vectors in this directory "
                                  "between starts: a restart embeds only sentences it has not "
                                  "seen (keyed by sentence sha256 and encoder). Default: none.")
    ] = None,
    public_key: Annotated[
        Path | None, typer.Option(help="Refuse bundles not signed by this Ed25519 key (PEM); "
                                  "default $TOOLSIFT_BUNDLE_PUBLIC_KEY.")
    ] = None,
    otel: Annotated[
        bool,
        typer.Option(
            "--otel", envvar="TOOLSIFT_OTEL",
            help="Export OpenTelemetry spans over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT "
            "(default http://localhost:4318); needs the `otel` extra.",
        ),
    ] = False,
) -> None:
    """Serve an MCP gateway: agents see search_tools and the tools it finds, not the
    whole catalog; every call goes through the gate, validation and the risk policy."""
    import anyio

    from serving.gateway.config import load_config

    _check_transport(transport)
    try:
        from serving.gateway.server import ServeOptions, serve_http, serve_stdio
    except ImportError as err:
        raise _needs_mcp("serve", err) from None
    if reload_interval <= 0:
        raise ValueError(f"--reload-interval: {reload_interval} is not > 0")
    if otel:
        from serving.operations.otel import configure_otlp

        configure_otlp("toolsift-gateway")
    opts = ServeOptions(bundle=bundle, config=load_config(config), ledger=ledger, traces=traces,
                        public_key=public_key, reload_interval_s=reload_interval,
                        review_cache=review_cache)
    if transport == "stdio":
        anyio.run(serve_stdio, opts)
    else:
        anyio.run(lambda: serve_http(opts, host=host, port=port))


def demo_server(
    catalog: Annotated[Path, typer.Option(help="Tool cards (JSONL), e.g. data/demo/catalog.jsonl")],
    servers: Annotated[
        str | None, typer.Option(help="Comma-separated catalog servers to serve (default: all).")
    ] = None,
    namespaced: Annotated[
        bool, typer.Option(help="Bare tool names (one catalog server) instead of server.tool.")
    ] = False,
    items: Annotated[int, typer.Option(help="Records per fake read result.")] = 5,
    edit: Annotated[
        list[str] | None, typer.Option(help="ID=TEXT: serve this description instead.")
    ] = None,
    edit_after_call: Annotated[
        bool, typer.Option(help="Serve the edits only after an edited tool was called.")
    ] = False,
    crash_on: Annotated[list[str] | None, typer.Option(help="Exit when this tool is called.")]
    = None,
    hang_on: Annotated[list[str] | None, typer.Option(help="Never answer this tool.")] = None,
    call_log: Annotated[
        Path | None, typer.Option(help="Append every tool id called here (one a line).")
    ] = None,
    transport: Transport = "stdio",
    host: Annotated[str, typer.Option(help="http: address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: port; the endpoint is /mcp.")] = 8766,
) -> None:
    """Serve a catalog as a live MCP server with deterministic fake results (try the
    gateway on the demo world's 1,000+ tools)."""
    import anyio

    from serving.model.io import load_catalog

    _check_transport(transport)
    try:
        from serving.gateway.demo import DemoOptions, serve_demo
    except ImportError as err:
        raise _needs_mcp("demo-server", err) from None
    cards = load_catalog(catalog, strict=True).items
    wanted = {s.strip() for s in servers.split(",")} if servers else None
    cards = [c for c in cards if wanted is None or c.server in wanted]
    edits = {}
    for entry in edit or []:
        tool_id, eq, text = entry.partition("=")
        if not eq:
            raise ValueError(f"--edit {entry!r}: expected ID=TEXT")
        edits[tool_id] = text
    opts = DemoOptions(qualified=not namespaced, items=items, edits=edits,
                       crash_on=frozenset(crash_on or ()), hang_on=frozenset(hang_on or ()),
                       call_log=str(call_log or ""), edit_after_call=edit_after_call)
    anyio.run(lambda: serve_demo(cards, opts, transport=transport, host=host, port=port))

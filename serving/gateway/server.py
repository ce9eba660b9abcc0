"""The MCP server in front of the gateway, over stdio or streamable HTTP.

Built on the SDK's low-level `Server`: tools/list is computed per client (the meta-tools
plus that client's active set) and `notifications/tools/list_changed` goes out whenever
that set changes. Confirmation uses form elicitation when the client declared it on a
handshake-era connection (over HTTP, when the call is answered on a stream: a JSON body
cannot carry a request back, see transport.py); otherwise the call answers
`needs_confirmation`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from serving.bundle.files import Bundle, load_bundle
from serving.bundle.release import ReleaseFollower, is_pointer
from serving.calls.gate import SEARCH_TOOLS_NAME
from serving.calls.tracelog import TraceWriter, process_trace_path
from serving.catalog.approvals import Ledger, load_ledger
from serving.gateway.admission import default_workers
from serving.gateway.batching import BatchSettings
from serving.gateway.config import GatewayConfig
from serving.gateway.downstream import Downstream
from serving.gateway.handlers import DESCRIBE_TOOL_NAME, FETCH_NAME, Gateway
from serving.gateway.index import LiveIndex
from serving.gateway.registry import build_registry
from serving.gateway.session import SessionState
from serving.gateway.transport import answer_per_request

log = logging.getLogger(__name__)

CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Run this call"}},
    "required": ["approve"],
}


@dataclass(frozen=True, slots=True)
class ServeOptions:
    bundle: Path  # a bundle directory, or a release pointer to follow (`serving.bundle.release`)
    config: GatewayConfig
    ledger: Path | None = None
    traces: Path | None = None
    public_key: Any = None  # None: $TOOLSIFT_BUNDLE_PUBLIC_KEY when set
    reload_interval_s: float = 2.0  # how often a followed pointer is checked
    # the review's sentence vectors kept here between starts (None: in memory only)
    review_cache: Path | None = None


class GatewayApp:
    """Owns the live index, the downstream sessions and the gateway; refreshes them, and
    swaps in a newly promoted bundle when it follows a release pointer."""

    def __init__(self, opts: ServeOptions) -> None:
        self.opts = opts

        def load(path: Path) -> Bundle:
            return load_bundle(path, public_key=opts.public_key)

        self.follower: ReleaseFollower[Bundle] | None = (
            ReleaseFollower(opts.bundle, load, public_key=opts.public_key,
                            interval_s=opts.reload_interval_s)
            if is_pointer(opts.bundle) else None
        )
        self.index = self._index(self.follower.current if self.follower else load(opts.bundle))
        self.ledger: Ledger | None = load_ledger(opts.ledger) if opts.ledger else None
        self.downstream = Downstream(opts.config.servers, self.refresh)
        self.gateway = Gateway(
            opts.config, self.downstream,
            traces=TraceWriter(process_trace_path(opts.traces)) if opts.traces else None,
        )
        self._lock = anyio.Lock()

    def _index(self, bundle: Bundle) -> LiveIndex:
        return LiveIndex(bundle, policy=self.opts.config.policy,
                         overrides=runtime_for_workers(self.opts.config),
                         batching=batch_settings(self.opts.config),
                         review_cache=self.opts.review_cache)

    async def refresh(self, index: LiveIndex | None = None) -> None:
        """Review the live tools again (against `index`'s bundle when given: a new
        release) and swap in a new selector between requests; sessions and their active
        sets stay; tell clients whose active set lost tools."""
        async with self._lock:
            if index is not None:
                old, self.index = self.index, index
                # its batchers drain off the loop; searches still on the old selector then
                # encode unbatched
                await anyio.to_thread.run_sync(old.close)
            registry = await anyio.to_thread.run_sync(partial(
                build_registry, dict(self.downstream.tools), self.opts.config.servers,
                self.index.known, ledger=self.ledger, meaning=self.index.meaning,
            ))
            await anyio.to_thread.run_sync(self.index.keep_review_vectors)
            selector = await anyio.to_thread.run_sync(self.index.selector, registry)
            if selector is not None:  # load the models now, not on the first search
                await anyio.to_thread.run_sync(selector.discover, "warm up", None)
            for state in self.gateway.install(registry, selector):
                await _notify(state)
            log.info("serving %d tools (%d new), %d quarantined, %d servers down, bundle %s",
                     len(registry.cards), len(registry.new), len(registry.quarantined),
                     len(self.downstream.down), self.index.bundle.manifest.bundle_version)

    async def follow(self) -> None:
        """Check the release pointer every `reload_interval_s`; swap in what it names."""
        assert self.follower is not None
        while True:
            await anyio.sleep(self.follower.interval_s)
            bundle = await anyio.to_thread.run_sync(self.follower.check)
            if bundle is not None:  # verified and loaded; the encoder loads off the loop
                await self.refresh(await anyio.to_thread.run_sync(self._index, bundle))

    @asynccontextmanager
    async def running(self) -> AsyncIterator[GatewayApp]:
        async with anyio.create_task_group() as tg:
            await self.downstream.run(tg)
            await self.refresh()
            if self.follower is not None:
                tg.start_soon(self.follow)
            try:
                yield self
            finally:
                self.downstream.close()
                self.index.close()
                tg.cancel_scope.cancel()

    def mcp_server(self) -> Server[Any]:
        return build_server(self.gateway)

    def stats(self) -> dict[str, Any]:
        """This process's load counters: admission, and the encoders' batch sizes."""
        return {"pid": os.getpid(), "admission": asdict(self.gateway.admission.stats),
                "batches": self.index.batch_report()}


def batch_settings(config: GatewayConfig) -> BatchSettings:
    """The config's encoder batching (`encoder_batch` 1: none)."""
    params = config.params
    return BatchSettings(max_batch=params.encoder_batch,
                         window_s=params.encoder_batch_window_ms / 1e3)


def runtime_for_workers(config: GatewayConfig) -> dict[str, Any]:
    """The config's runtime overrides, with the ONNX threads of each discovery set so that
    workers x threads <= cores (unless the config sets them): every worker asking for every
    core makes concurrent searches fight over them."""
    runtime = dict(config.runtime)
    if "onnx_threads" not in runtime:
        workers = config.params.discovery_workers or default_workers()
        runtime["onnx_threads"] = max(1, (os.cpu_count() or 1) // workers)
    return runtime


async def _notify(state: SessionState) -> None:
    peer = state.peer
    if peer is None:
        return
    try:
        await peer.send_tool_list_changed()  # type: ignore[attr-defined]
    # the client may be gone or have no stream for notifications: it relists on its own
    except Exception as err:  # noqa: BLE001
        log.debug("list_changed not delivered: %s", err)


def _session_key(ctx: Any) -> str:
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    if headers is not None and headers.get("mcp-session-id"):
        return str(headers["mcp-session-id"])
    return "default"  # stdio: one client per process


def _can_elicit(ctx: Any) -> bool:
    caps = ctx.session.client_capabilities
    return bool(
        caps is not None and caps.elicitation is not None and ctx.session.can_send_request
        and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
    )


def _tool(entry: dict[str, Any]) -> types.Tool:
    risk = entry.get("risk")
    annotations = None
    if risk is not None:
        annotations = types.ToolAnnotations(
            read_only_hint=risk == "read_only", destructive_hint=risk == "destructive"
        )
    return types.Tool(
        name=entry["name"], description=entry.get("description", ""),
        input_schema=dict(entry["input_schema"]), annotations=annotations,
    )


def _result(reply: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(reply, ensure_ascii=False))],
        structured_content=reply,
        is_error="error" in reply,
    )


INIT_NOTIFICATIONS = NotificationOptions(tools_changed=True)


class _GatewayServer(Server[Any]):
    """Declares `tools.listChanged` on every transport (the HTTP session manager builds
    its own initialization options, without ours)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return super().create_initialization_options(
            notification_options or INIT_NOTIFICATIONS, experimental_capabilities, extensions
        )


def build_server(gateway: Gateway) -> Server[Any]:
    """The low-level MCP server whose handlers call into `gateway`."""

    def state_of(ctx: Any) -> SessionState:
        state = gateway.session(_session_key(ctx))
        state.peer = ctx.session
        return state

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(t) for t in gateway.visible_tools(state_of(ctx))])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        state = state_of(ctx)
        args = dict(params.arguments or {})
        if params.name == SEARCH_TOOLS_NAME:
            reply, changed = await gateway.search_tools(state, args.get("query"))
            if changed:
                await _notify(state)
            return _result(reply)
        if params.name == DESCRIBE_TOOL_NAME:
            return _result(gateway.describe_tool(state, args.get("tool_id")))
        if params.name == FETCH_NAME:
            return _result(gateway.fetch_observation(
                state, args.get("handle"), args.get("offset", 0), args.get("limit")
            ))

        async def confirm(message: str) -> bool | None:
            if not _can_elicit(ctx):
                return None
            answer = await ctx.session.elicit_form(
                message, CONFIRM_SCHEMA, related_request_id=ctx.request_id
            )
            return answer.action == "accept" and bool((answer.content or {}).get("approve"))

        return _result(await gateway.call(state, params.name, args, confirm))

    return _GatewayServer(
        "toolsift",
        version="0.1.0",
        instructions=(
            "Call search_tools(query) to find the tools for a task; the matching tools "
            "then appear in your tool list and can be called."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(opts: ServeOptions) -> None:
    from mcp.server.stdio import stdio_server

    app = GatewayApp(opts)
    async with app.running():
        server = app.mcp_server()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


async def serve_http(opts: ServeOptions, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    import uvicorn
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    app = GatewayApp(opts)

    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(app.stats())

    async with app.running():
        server = app.mcp_server()
        mode = opts.config.params.http_responses  # auto: JSON or a stream per request
        # GET /stats: counts only (no request text); a load balancer's health check too
        starlette = server.streamable_http_app(
            host=host, json_response=mode == "json",
            custom_starlette_routes=[Route("/stats", stats, methods=["GET"])])
        if mode == "auto":
            answer_per_request(server.session_manager)
        config = uvicorn.Config(starlette, host=host, port=port, log_level="warning")
        await uvicorn.Server(config).serve()

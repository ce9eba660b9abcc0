"""The gateway's MCP client sessions to the downstream servers.

Each server gets one task that owns its `mcp.Client` (anyio wants a context entered and
left in the same task): it connects, lists the tools, and relists whenever the server
sends `notifications/tools/list_changed`. A server that fails to start, crashes or hangs
is marked down with the reason; the others keep serving. Calls run on the shared session
under the server's `timeout_s`, so a hanging server costs a caller at most that long.
The handshake era is forced (`mode="legacy"`): change notifications then arrive on the
session's own stream, which every server in use today speaks.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import methods as _methods
from pydantic import ValidationError

from serving.gateway.config import ServerSpec

log = logging.getLogger(__name__)

MAX_PAGES = 100  # a paginator that never ends cannot hang a listing


class DownstreamError(RuntimeError):
    """A downstream server could not answer: down, crashed, timed out or errored."""


OnChange = Callable[[], Awaitable[None]]


def _target(spec: ServerSpec) -> Any:
    if spec.url:
        if not spec.headers:
            return spec.url
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        client = httpx2.AsyncClient(
            headers=dict(spec.headers), timeout=httpx2.Timeout(30, read=300)
        )
        return streamable_http_client(spec.url, http_client=client)
    return StdioServerParameters(
        command=spec.command, args=list(spec.args), env=dict(spec.env) or None,
        cwd=spec.cwd or None,
    )


class Downstream:
    """Live sessions and tool listings of every configured server."""

    def __init__(self, specs: Sequence[ServerSpec], on_change: OnChange) -> None:
        self.specs = {s.name: s for s in specs}
        self.on_change = on_change
        self.tools: dict[str, list[dict[str, Any]]] = {}  # server -> its live tools/list
        self.down: dict[str, str] = {}  # server -> why it is not serving
        self._clients: dict[str, Client] = {}
        self._relist: dict[str, anyio.Event] = {}
        self._stop = anyio.Event()

    async def run(self, task_group: anyio.abc.TaskGroup) -> None:
        """Start every server's task; return once each has listed its tools or failed."""
        ready = {name: anyio.Event() for name in self.specs}
        for name in self.specs:
            task_group.start_soon(self._serve_one, name, ready[name])
        for event in ready.values():
            await event.wait()

    def close(self) -> None:
        self._stop.set()

    async def _serve_one(self, name: str, ready: anyio.Event) -> None:
        spec = self.specs[name]

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification) and name in self._relist:
                self._relist[name].set()

        # The connect-and-list deadline is lifted once the tools are in. (A cancel scope
        # around only the connect would close before the client's own task groups do.)
        scope = anyio.CancelScope(deadline=anyio.current_time() + spec.connect_timeout_s)
        try:
            with scope:
                client = Client(
                    _target(spec), mode="legacy", cache=None, message_handler=on_message
                )
                async with client:
                    self._clients[name] = client
                    try:
                        self.tools[name] = await self._list(client)
                        scope.deadline = math.inf
                        self.down.pop(name, None)
                        log.info("%s: %d tools", name, len(self.tools[name]))
                        ready.set()
                        await self._watch(name, client)
                    finally:
                        self._clients.pop(name, None)
            if scope.cancelled_caught:
                self._mark_down(
                    name, f"no answer within {spec.connect_timeout_s:g} s (connect_timeout_s)"
                )
        # A server we do not own can fail in any way (a bad command, a crash, a protocol
        # error): record why and keep the gateway up for the others.
        except Exception as err:  # noqa: BLE001
            self._mark_down(name, f"{type(err).__name__}: {_message(err)}")
        finally:
            ready.set()
        await self.on_change()

    async def _watch(self, name: str, client: Client) -> None:
        spec = self.specs[name]
        while not self._stop.is_set():
            self._relist[name] = event = anyio.Event()
            async with anyio.create_task_group() as tg:
                async def stop_on_close() -> None:
                    await self._stop.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(stop_on_close)
                await event.wait()
                tg.cancel_scope.cancel()
            if self._stop.is_set():
                return
            with anyio.fail_after(spec.timeout_s):
                self.tools[name] = await self._list(client)
            log.info("%s: tools changed, now %d", name, len(self.tools[name]))
            await self.on_change()

    def _mark_down(self, name: str, why: str) -> None:
        self.down[name] = why
        self.tools.pop(name, None)
        log.error("downstream server %s is down: %s", name, why)

    @staticmethod
    async def _list(client: Client) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor = None
        try:
            for _ in range(MAX_PAGES):
                page = await client.list_tools(cursor=cursor)
                tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True)
                          for t in page.tools]
                cursor = page.next_cursor
                if cursor is None:
                    break
        except ValidationError:
            return await _list_tool_by_tool(client)
        return tools

    async def call(self, server: str, name: str, args: Mapping[str, Any]) -> types.CallToolResult:
        """Call one tool; raise `DownstreamError` saying which server failed and how."""
        spec = self.specs[server]
        client = self._clients.get(server)
        if client is None:
            why = self.down.get(server, "not connected")
            raise DownstreamError(f"server {server!r} is down: {why}")
        try:
            with anyio.fail_after(spec.timeout_s):
                return await client.call_tool(name, dict(args))
        except TimeoutError:
            raise DownstreamError(
                f"server {server!r} did not answer {name} within {spec.timeout_s:g} s"
            ) from None
        except Exception as err:  # noqa: BLE001  (see _serve_one: a server we do not own)
            raise DownstreamError(
                f"server {server!r} failed on {name}: {type(err).__name__}: {_message(err)}"
            ) from None


async def _list_tool_by_tool(client: Client) -> list[dict[str, Any]]:
    """The listing as the server sent it, when the SDK refused it whole: one malformed
    tool (an `inputSchema` without `"type"`) fails the SDK's check of the entire result.
    Every tool comes back as sent, for the registry's importer to serve or quarantine
    with its reason; the session is told of the valid ones only, so a call to one of them
    does not make it list again (it lists when it meets a tool it was not told of).
    Reaches under the SDK (its dispatcher and its per-version checks): the one way to
    read a result the SDK will not parse."""
    session = client.session
    version = getattr(session, "_negotiated_version", None) or "2025-11-25"
    tools: list[dict[str, Any]] = []
    valid: list[types.Tool] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = await session._dispatcher.send_raw_request(  # noqa: SLF001 (see the doc)
            "tools/list", {"cursor": cursor} if cursor else None, None
        )
        raw = [t for t in page.get("tools") or [] if isinstance(t, dict)]
        tools += raw
        for tool in raw:
            try:
                _methods.validate_server_result("tools/list", version, {**page, "tools": [tool]})
                valid.append(types.Tool.model_validate(tool))
            except ValidationError:
                continue
        cursor = page.get("nextCursor")
        if not isinstance(cursor, str):
            break
    absorb = getattr(session, "_absorb_tool_listing", None)
    if absorb is not None:
        absorb(types.ListToolsResult(tools=valid), complete=True)
    log.warning("tools/list: %d of %d tools fail the MCP schema; the valid ones are served",
                len(tools) - len(valid), len(tools))
    return tools


def _message(err: BaseException) -> str:
    if isinstance(err, BaseExceptionGroup) and err.exceptions:
        return _message(err.exceptions[0])
    return str(err) or repr(err)

"""Each HTTP request answered the cheapest way that can carry what it needs.

The SDK answers every request of a handshake-era session the same way: on a stream of its
own (SSE), which can carry a request back to the client (the confirmation a write asks its
user for), or with one JSON body, which cannot but costs the gateway less per request. In
`gateway.http_responses: auto` a request streams only where it may need that channel: a
`tools/call` of a tool behind the gateway. Searches, tool cards, observation pages, lists
and the handshake, which never ask the user anything and emit nothing tied to the request,
get one JSON body. The choice is per request, so a hot reload that brings a `confirm`
needs no restart.

The SDK reads `is_json_response_enabled` while it handles a request; here that attribute
reads the choice made for the request in hand (a context variable, so concurrent requests
of one session do not see each other's). Everywhere else (the session's message router) it
reads False: a message tied to a streamed request then reaches that request's stream.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from serving.calls.gate import SEARCH_TOOLS_NAME
from serving.gateway.handlers import DESCRIBE_TOOL_NAME, FETCH_NAME

GATEWAY_TOOLS = frozenset({SEARCH_TOOLS_NAME, DESCRIBE_TOOL_NAME, FETCH_NAME})

_JSON_NOW: ContextVar[bool | None] = ContextVar("toolsift_json_now", default=None)


def needs_stream(body: bytes) -> bool:
    """Whether a POSTed JSON-RPC message may need a stream to be answered: a call of a tool
    other than the gateway's own. What cannot be read streams (the SDK then answers the
    error)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return True
    if not isinstance(message, dict):
        return True
    if message.get("method") != "tools/call":
        return False
    params = message.get("params")
    return not (isinstance(params, dict) and params.get("name") in GATEWAY_TOOLS)


class PerRequestTransport(StreamableHTTPServerTransport):
    """The SDK's transport, with the JSON-or-stream choice made per POST (`needs_stream`)."""

    @property  # type: ignore[override]
    def is_json_response_enabled(self) -> bool:
        now = _JSON_NOW.get()
        return bool(self.__dict__.get("is_json_response_enabled")) if now is None else now

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        self.__dict__["is_json_response_enabled"] = value

    async def _handle_post_request(self, scope: Any, request: Any, receive: Any,
                                   send: Any) -> None:
        body = await request.body()  # starlette keeps it: the SDK reads the same bytes
        token = _JSON_NOW.set(not needs_stream(body))
        try:
            await super()._handle_post_request(scope, request, receive, send)
        finally:
            _JSON_NOW.reset(token)


def answer_per_request(manager: StreamableHTTPSessionManager) -> None:
    """Make every session `manager` opens from now on choose per request. The manager
    must stream by default (`json_response=False`): its router reads that default."""
    if manager.json_response:
        raise ValueError("answer_per_request needs a manager that streams by default")
    admit: Callable[..., StreamableHTTPServerTransport | None] = manager._admit_session  # noqa: SLF001

    def admit_per_request(requestor: Any) -> StreamableHTTPServerTransport | None:
        transport = admit(requestor)
        if transport is not None:
            # the SDK built and registered it; only the class (the attribute above) changes
            transport.__class__ = PerRequestTransport
        return transport

    manager._admit_session = admit_per_request  # type: ignore[method-assign]  # noqa: SLF001

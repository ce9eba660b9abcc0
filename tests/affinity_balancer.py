"""A load balancer on loopback for tests: one port in front of several gateways, each MCP
session kept on the process that opened it. New sessions go round the backends in turn;
the balancer learns which backend owns a session from the `Mcp-Session-Id` header of
that backend's `initialize` answer and routes every later request carrying the id there
(as HAProxy's `stick store-response` / `stick match` do in docs/serving.md). Responses,
server-sent event streams included, are passed through as they arrive."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2 as httpx  # the HTTP client the MCP SDK ships with
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

SESSION_HEADER = "mcp-session-id"
HOP_BY_HOP = {"host", "content-length", "transfer-encoding", "connection", "keep-alive"}


class AffinityBalancer:
    def __init__(self, backends: list[str]) -> None:
        self.backends = backends  # base URLs, e.g. http://127.0.0.1:8801
        self.owner: dict[str, str] = {}  # session id -> the backend that opened it
        self.routed: list[tuple[str, str]] = []  # (session id or "", backend) per request
        self._turn = itertools.cycle(backends)
        self._client = httpx.AsyncClient(timeout=None)

    def backend_for(self, session_id: str | None) -> str:
        if session_id and session_id in self.owner:
            return self.owner[session_id]
        return next(self._turn)  # a new session (or an id no backend gave: it answers 404)

    async def forward(self, request: Request) -> StreamingResponse:
        session_id = request.headers.get(SESSION_HEADER)
        backend = self.backend_for(session_id)
        self.routed.append((session_id or "", backend))
        upstream = self._client.build_request(
            request.method, backend + request.url.path,
            params=request.query_params, content=await request.body(),
            headers=[(k, v) for k, v in request.headers.items() if k not in HOP_BY_HOP],
        )
        answer = await self._client.send(upstream, stream=True)
        if SESSION_HEADER in answer.headers:
            self.owner[answer.headers[SESSION_HEADER]] = backend
        return StreamingResponse(
            answer.aiter_raw(), status_code=answer.status_code,
            headers={k: v for k, v in answer.headers.items() if k not in HOP_BY_HOP},
            background=BackgroundTask(answer.aclose),
        )

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.forward,
                                       methods=["GET", "POST", "DELETE"])])


@contextmanager
def serve_balancer(backends: list[str]) -> Iterator[tuple[str, AffinityBalancer]]:
    """(the balancer's base URL, the balancer) while it serves on a daemon thread."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    balancer = AffinityBalancer(backends)
    server = uvicorn.Server(uvicorn.Config(balancer.app(), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", balancer
    finally:
        server.should_exit = True
        thread.join(timeout=10)

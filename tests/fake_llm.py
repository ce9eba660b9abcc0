"""A real local HTTP server that answers OpenAI-style chat completions with a canned
answer and records every request: the LLM boundary the tests fake (decomposer, synthetic
card queries)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from background import serve_in_background


class FakeLLMServer(ThreadingHTTPServer):
    """Serves one canned answer; records every request it receives."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ChatHandler)
        self.status = 200
        self.body = b"{}"
        self.delay_s = 0.0
        self.received: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def answer(self, content: str) -> None:
        self.status = 200
        self.body = json.dumps(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
        ).encode()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and hung up is expected here


class ChatHandler(BaseHTTPRequestHandler):
    server: FakeLLMServer

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("Content-Length", "0"))
        self.server.received.append(
            {
                "path": self.path,
                "headers": dict(self.headers),
                "body": json.loads(self.rfile.read(length)),
            }
        )
        time.sleep(self.server.delay_s)
        try:
            self.send_response(self.server.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(self.server.body)))
            self.end_headers()
            self.wfile.write(self.server.body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def serve_fake_llm() -> Iterator[FakeLLMServer]:
    """A running server, shut down when the generator is closed."""
    yield from serve_in_background(FakeLLMServer())

"""Run a test's local HTTP server (`socketserver` style) on a daemon thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any


def serve_in_background(server: Any) -> Iterator[Any]:
    """Yield `server` while it serves; shut it down when the generator is closed."""
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

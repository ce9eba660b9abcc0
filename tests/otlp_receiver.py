"""A collector's OTLP/HTTP traces endpoint on loopback: decodes every export it receives
(protobuf, as the OTLP/HTTP exporter sends it) and keeps the spans, with their resource's
service name. What the `--otel` export is checked against."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from background import serve_in_background
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


class OtlpReceiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ExportHandler)
        self.paths: list[str] = []
        self.spans: list[tuple[str, Any]] = []  # (service.name, the protobuf Span)
        self.lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        """What `OTEL_EXPORTER_OTLP_ENDPOINT` is set to (the exporter adds /v1/traces)."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def receive(self, path: str, body: bytes) -> None:
        export = ExportTraceServiceRequest.FromString(body)
        with self.lock:
            self.paths.append(path)
            for resource_spans in export.resource_spans:
                attrs = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                for scope_spans in resource_spans.scope_spans:
                    self.spans += [(attrs.get("service.name", ""), s) for s in scope_spans.spans]

    def wait_for(self, wanted: Callable[[Any], bool], timeout_s: float = 30.0) -> Any:
        """The first span received that `wanted` accepts; fails after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.lock:
                found = [s for _, s in self.spans if wanted(s)]
            if found:
                return found[0]
            time.sleep(0.1)
        raise AssertionError(f"no such span received in {timeout_s:.0f} s")


class ExportHandler(BaseHTTPRequestHandler):
    server: OtlpReceiver

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.receive(self.path, body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def attributes(span: Any) -> dict[str, Any]:
    """A protobuf span's attributes as plain values (strings, numbers, bools, lists)."""
    return {a.key: _plain(a.value) for a in span.attributes}


def _plain(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_plain(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


def serve_otlp_receiver() -> Iterator[OtlpReceiver]:
    """A running receiver, shut down when the generator is closed."""
    yield from serve_in_background(OtlpReceiver())

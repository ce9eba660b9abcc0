"""OpenTelemetry spans for discovery and tool calls, when the host traces.

Nothing here imports `opentelemetry` at import time (the API alone costs ~0.1 s). A span
is started only when a tracer provider was given here (`set_tracer_provider`) or the host
process has imported `opentelemetry.trace`, which any host that configured a provider has
done; otherwise a discovery or call costs one dict lookup and nothing is imported. With
the API imported but no provider set (the MCP SDK imports it), the spans are the API's
non-recording ones and no attribute is computed.

Two spans, both INTERNAL:
- `toolsift.discover`, one per `Selector.discover`: `toolsift.request_id` (the native
  trace line's), `toolsift.request.length` (characters read; the text itself only when
  `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, as `toolsift.request.text`),
  `toolsift.steps.count`, `toolsift.step.<i>.menu` (tool ids), `toolsift.abstained`,
  `toolsift.warnings`, `toolsift.bundle_version` and `toolsift.latency_ms.<stage>` (each
  stage summed over the steps and the whole-request step; `decompose`, `total`).
- `execute_tool {gen_ai.tool.name}`, one per tool call through the gateway, in the GenAI
  semantic conventions for tool execution as of semantic-conventions-genai v0.1.0 (the
  successor of semantic-conventions v1.41; status Development): `gen_ai.operation.name`
  = `execute_tool`, `gen_ai.tool.name` (the tool id the client called), and when known
  `gen_ai.tool.call.id` and `gen_ai.tool.description` (the card's summary); on failure
  `error.type` and status ERROR. Beside them `toolsift.call.outcome` (ok, dry_run, or the
  error) and `toolsift.request_id` of the discovery that surfaced the tool. The error
  types are the gateway reply's codes: `tool_not_available`, `invalid_arguments`,
  `needs_confirmation`, `declined`, `deny`, `downstream_error`, `tool_error`, or an
  exception's class name. The MCP SDK's own `tools/call` SERVER span is its parent.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self

DISCOVER_SPAN = "toolsift.discover"
EXECUTE_TOOL = "execute_tool"
SCOPE = "toolsift"
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
OUTCOME_ATTRIBUTE = "toolsift.call.outcome"
# outcomes of a call that are not failures; every other outcome is the span's error.type
CLEAN_OUTCOMES = frozenset({"ok", "dry_run"})
# outcomes of calls the gateway stopped before the tool ran: no training event, as in the
# native trace (`features.otel_traces` skips them)
NOT_RUN_OUTCOMES = frozenset(
    {"tool_not_available", "invalid_arguments", "needs_confirmation", "declined", "deny",
     "dry_run"}
)

_override: Any = None  # a provider given to `set_tracer_provider`, else the global one
_tracers: dict[int, Any] = {}  # id(provider or API module) -> its tracer, made once


def set_tracer_provider(provider: Any) -> None:
    """Send toolsift's spans to `provider` instead of the global one; None goes back to
    the global provider."""
    global _override
    _override = provider
    _tracers.clear()


def tracer() -> Any:
    """The tracer for toolsift's spans, or None when the host does not trace."""
    source = _override if _override is not None else sys.modules.get("opentelemetry.trace")
    if source is None:
        return None
    key = id(source)
    if key not in _tracers:
        _tracers[key] = source.get_tracer(SCOPE)  # the module and a provider both have it
    return _tracers[key]


class _Off:
    """What a span is when nobody traces: every method does nothing."""

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def record(self, *args: Any, **kwargs: Any) -> None:
        return None


OFF = _Off()


class _Span:
    """An active span: `record` sets the attributes that are known only at the end; an
    exception leaves through `__exit__` as `error.type` and status ERROR."""

    def __init__(self, spans: Any, name: str, attributes: Mapping[str, Any]) -> None:
        from opentelemetry.trace import SpanKind  # loaded already: a tracer exists

        self._manager = spans.start_as_current_span(
            name, kind=SpanKind.INTERNAL, attributes=dict(attributes)
        )
        self.span: Any = None

    def __enter__(self) -> Self:
        self.span = self._manager.__enter__()
        return self

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> Any:
        if error is not None and self.span.is_recording():
            self.span.set_attribute("error.type", type(error).__qualname__)
        return self._manager.__exit__(kind, error, tb)


class _DiscoverSpan(_Span):
    def record(self, discovery: Discovered, *, bundle_version: str = "") -> None:
        if self.span.is_recording():
            capture = os.environ.get(CAPTURE_CONTENT_ENV, "").lower() == "true"
            self.span.set_attributes(
                discover_attributes(discovery, bundle_version=bundle_version, capture=capture)
            )


class _ToolSpan(_Span):
    def record(self, reply: Mapping[str, Any]) -> None:
        if not self.span.is_recording():
            return
        outcome = call_outcome(reply)
        self.span.set_attribute(OUTCOME_ATTRIBUTE, outcome)
        if outcome not in CLEAN_OUTCOMES:
            from opentelemetry.trace import StatusCode

            self.span.set_attribute("error.type", outcome)
            self.span.set_status(StatusCode.ERROR, outcome)


def discover_span() -> _DiscoverSpan | _Off:
    """The span around one discovery (a no-op when nobody traces); call
    `.record(discovery, bundle_version=...)` before it closes."""
    spans = tracer()
    return OFF if spans is None else _DiscoverSpan(spans, DISCOVER_SPAN, {})


def tool_span(
    tool_name: str,
    *,
    call_id: str | None = None,
    description: str = "",
    request_id: str = "",
) -> _ToolSpan | _Off:
    """The `execute_tool` span around one call (a no-op when nobody traces); call
    `.record(reply)` with the gateway's reply before it closes."""
    spans = tracer()
    if spans is None:
        return OFF
    return _ToolSpan(spans, f"{EXECUTE_TOOL} {tool_name}", tool_call_attributes(
        tool_name, call_id=call_id, description=description, request_id=request_id
    ))


# --- attributes: plain functions, no OpenTelemetry needed ----------------------------------


class Discovered(Protocol):
    """What `discover_attributes` reads of a `serving.selector.Discovery` (not imported:
    the selector imports this module)."""

    @property
    def request_id(self) -> str: ...
    @property
    def request(self) -> str: ...
    @property
    def steps(self) -> Sequence[Any]: ...
    @property
    def request_step(self) -> Any: ...
    @property
    def timings_ms(self) -> Mapping[str, float]: ...
    @property
    def warnings(self) -> Sequence[str]: ...
    @property
    def abstained(self) -> bool: ...


def discover_attributes(
    discovery: Discovered, *, bundle_version: str = "", capture: bool = False
) -> dict[str, Any]:
    """The `toolsift.discover` span's attributes (see the module doc). The request text only
    with `capture`: it is the user's words."""
    whole = [] if discovery.request_step is None else [discovery.request_step]
    stage_ms: dict[str, float] = {}
    for step in [*discovery.steps, *whole]:
        for stage, ms in step.timings_ms.items():
            stage_ms[stage] = stage_ms.get(stage, 0.0) + ms
    stage_ms.update(discovery.timings_ms)  # decompose and total: once per request
    attrs: dict[str, Any] = {
        "toolsift.request_id": discovery.request_id,
        "toolsift.request.length": len(discovery.request),
        "toolsift.steps.count": len(discovery.steps),
        "toolsift.abstained": discovery.abstained,
    }
    if capture:
        attrs["toolsift.request.text"] = discovery.request
    if bundle_version:
        attrs["toolsift.bundle_version"] = bundle_version
    if discovery.warnings:
        attrs["toolsift.warnings"] = list(discovery.warnings)
    for i, step in enumerate(discovery.steps):
        attrs[f"toolsift.step.{i}.menu"] = list(step.menu_ids)
    for stage, ms in stage_ms.items():
        attrs[f"toolsift.latency_ms.{stage}"] = round(ms, 3)
    return attrs


def tool_call_attributes(
    tool_name: str, *, call_id: str | None = None, description: str = "", request_id: str = ""
) -> dict[str, Any]:
    """The `execute_tool` span's attributes known when the call starts."""
    attrs: dict[str, Any] = {"gen_ai.operation.name": EXECUTE_TOOL, "gen_ai.tool.name": tool_name}
    if call_id:
        attrs["gen_ai.tool.call.id"] = call_id
    if description:
        attrs["gen_ai.tool.description"] = description
    if request_id:
        attrs["toolsift.request_id"] = request_id
    return attrs


def call_outcome(reply: Mapping[str, Any]) -> str:
    """How a gateway call ended, from its reply: the reply's error code, else its status
    (`ok`, `tool_error`, `dry_run`)."""
    if "error" in reply:
        return str(reply["error"])
    return str(reply.get("status", "ok"))


# --- exporting ------------------------------------------------------------------------------


def otlp_provider(service_name: str = "toolsift") -> Any:
    """An SDK tracer provider that batches spans to an OTLP/HTTP (protobuf) collector; the
    exporter reads the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, default
    http://localhost:4318, or `..._TRACES_ENDPOINT`, `..._HEADERS`, `..._TIMEOUT`), the
    resource `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` (`service_name` when they name
    no service), and `OTEL_SDK_DISABLED=true` turns it off. Raises `RuntimeError` naming
    the extra when the SDK or the exporter is not installed."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as err:
        raise RuntimeError(
            f"OpenTelemetry export needs the SDK and the OTLP exporter: pip install "
            f"'toolsift[otel]' ({err})"
        ) from None
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: service_name}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


def configure_otlp(service_name: str = "toolsift") -> Any:
    """Install `otlp_provider(service_name)` as the process's global tracer provider (the
    MCP SDK's spans go there too) and return it; its batch is flushed at exit."""
    from opentelemetry import trace

    provider = otlp_provider(service_name)
    trace.set_tracer_provider(provider)
    return provider

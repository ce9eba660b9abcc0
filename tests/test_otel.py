"""OpenTelemetry out (`serving.operations.otel`): the discover span on the fixture bundle, caught
by the SDK's in-memory exporter; nothing imported or changed without OpenTelemetry; the
`--otel` provider's OTLP/HTTP export, received by a local endpoint (otlp_receiver.py); the
gateway's `execute_tool` span, in process: the real gateway and selector, fake downstream
servers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from serving.operations import otel
from serving.selector import Selector

ROOT = Path(__file__).resolve().parents[1]
GATEWAY_SERVERS = ("github", "gitlab", "slack", "teams", "k8s", "logs")
REQUEST = "search code for TODO in gitlab and post a message on slack"


@pytest.fixture
def spans():
    """toolsift's spans go to an in-memory exporter for the test, then back to the global."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel.set_tracer_provider(provider)
    yield exporter
    otel.set_tracer_provider(None)
    provider.shutdown()


@pytest.fixture(scope="module")
def selector(fixture_bundle):
    return Selector.from_bundle(fixture_bundle)


def test_a_discovery_emits_one_discover_span_with_its_menus_and_latency(selector, spans):
    discovery = selector.discover(REQUEST)
    (span,) = spans.get_finished_spans()
    assert span.name == "toolsift.discover" and span.kind == SpanKind.INTERNAL
    attrs = dict(span.attributes)
    assert attrs["toolsift.request_id"] == discovery.request_id
    assert attrs["toolsift.request.length"] == len(REQUEST)
    assert "toolsift.request.text" not in attrs  # the user's words only on opt-in
    assert attrs["toolsift.steps.count"] == len(discovery.steps) >= 2
    for i, step in enumerate(discovery.steps):
        assert list(attrs[f"toolsift.step.{i}.menu"]) == step.menu_ids
    assert "gitlab.search_code" in attrs["toolsift.step.0.menu"]
    assert attrs["toolsift.abstained"] is False
    assert attrs["toolsift.bundle_version"] == selector.bundle.manifest.bundle_version
    # each stage summed over the subgoals and the whole-request step; decompose and total once
    steps = [*discovery.steps, discovery.request_step]
    for stage in ("encode", "retrieve", "fuse", "filter", "rerank", "menu", "disclose"):
        expected = round(sum(s.timings_ms[stage] for s in steps), 3)
        assert attrs[f"toolsift.latency_ms.{stage}"] == pytest.approx(expected, abs=2e-3)
    assert attrs["toolsift.latency_ms.total"] == round(discovery.timings_ms["total"], 3)
    assert attrs["toolsift.latency_ms.decompose"] == round(discovery.timings_ms["decompose"], 3)


def test_the_request_text_is_recorded_only_on_opt_in(selector, spans, monkeypatch):
    monkeypatch.setenv(otel.CAPTURE_CONTENT_ENV, "true")
    selector.discover("list the commits on the main branch")
    (span,) = spans.get_finished_spans()
    assert span.attributes["toolsift.request.text"] == "list the commits on the main branch"


def test_a_failed_discovery_ends_its_span_with_the_error(selector, spans):
    with pytest.raises(TypeError):
        selector.discover(42)  # type: ignore[arg-type]
    (span,) = spans.get_finished_spans()
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "TypeError"


def test_a_discovery_inside_a_host_span_is_its_child(selector, spans):
    host = otel.tracer()
    with host.start_as_current_span("invoke_agent ops") as parent:
        selector.discover("list the commits on the main branch")
    child = next(s for s in spans.get_finished_spans() if s.name == "toolsift.discover")
    assert child.parent.span_id == parent.get_span_context().span_id


NO_OTEL = """
import json, sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'opentelemetry':
            raise ImportError(f'{name} is blocked: the runtime must not need it')
sys.meta_path.insert(0, Blocker())
from serving.operations import otel
from serving.selector import Selector
selector = Selector.from_bundle(sys.argv[1])
found = selector.discover('list the commits on the main branch').ranked()
print(json.dumps({"top": found[:3], "tracer": otel.tracer() is not None,
                  "otel": [m for m in sys.modules if m.startswith('opentelemetry')]}))
"""


def test_without_opentelemetry_nothing_is_imported_and_discovery_runs(fixture_bundle):
    out = subprocess.run(
        [sys.executable, "-c", NO_OTEL, str(fixture_bundle)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["otel"] == [] and result["tracer"] is False
    assert "github.list_commits" in result["top"]


def test_the_attributes_need_no_opentelemetry():
    assert otel.tool_call_attributes("slack.post_message", call_id="call_1") == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "slack.post_message",
        "gen_ai.tool.call.id": "call_1",
    }
    assert otel.call_outcome({"tool_id": "x", "status": "ok"}) == "ok"
    assert otel.call_outcome({"error": "needs_confirmation", "status": "confirm"}) == (
        "needs_confirmation")
    assert otel.call_outcome({"status": "dry_run", "would_call": "x"}) == "dry_run"


def test_the_otlp_provider_exports_to_the_standard_endpoint(monkeypatch):
    from otlp_receiver import attributes, serve_otlp_receiver

    receiver = serve_otlp_receiver()
    collector = next(receiver)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint)
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    provider = otel.otlp_provider("toolsift-test")
    try:
        otel.set_tracer_provider(provider)
        with otel.tool_span("slack.post_message") as span:
            span.record({"tool_id": "slack.post_message", "status": "ok"})
        assert provider.force_flush(10_000)
        assert collector.paths == ["/v1/traces"]
        ((service, sent),) = collector.spans
    finally:
        otel.set_tracer_provider(None)
        provider.shutdown()
        receiver.close()
    assert service == "toolsift-test"
    assert sent.name == "execute_tool slack.post_message"
    attrs = attributes(sent)
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["toolsift.call.outcome"] == "ok" and "error.type" not in attrs


class FakeServers:
    """The downstream MCP servers, the one boundary faked here: each call gets the next of
    `results` (the gateway's `Downstream.call` protocol)."""

    def __init__(self, *results: types.CallToolResult) -> None:
        self.results = list(results)
        self.down: dict[str, str] = {}

    async def call(self, server: str, name: str, args: dict) -> types.CallToolResult:
        return self.results.pop(0)


def test_a_gateway_call_emits_an_execute_tool_span_in_the_genai_conventions(
    fixture_bundle, fixture_cards
):
    from serving.bundle.files import load_bundle
    from serving.gateway.config import parse_config
    from serving.gateway.handlers import Gateway
    from serving.gateway.index import LiveIndex
    from serving.gateway.registry import Registry, Route
    from serving.operations import otel

    cards = {c.tool_id: c for c in fixture_cards if c.server in GATEWAY_SERVERS}
    registry = Registry(cards=cards, routes={t: Route("main", t) for t in cards})
    text = types.TextContent(type="text", text='{"items": []}')
    servers = FakeServers(types.CallToolResult(content=[text]),
                          types.CallToolResult(content=[text], is_error=True))
    gateway = Gateway(parse_config({"mcpServers": {"main": {"command": "x"}}}), servers)
    gateway.install(registry, LiveIndex(load_bundle(fixture_bundle)).selector(registry))
    state = gateway.session("test")

    async def no_one_to_ask(message: str) -> None:
        return None

    async def scenario() -> list[dict]:
        found, _ = await gateway.search_tools(state, "search code for TODO in gitlab")
        assert "gitlab.search_code" in found["callable"]
        args = {"query": "TODO"}
        return [
            await gateway.call(state, "gitlab.search_code", args, no_one_to_ask, call_id="c1"),
            await gateway.call(state, "gitlab.search_code", args, no_one_to_ask),
            await gateway.call(state, "k8s.get_pod_logs", {"pod": "x"}, no_one_to_ask),
        ]

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel.set_tracer_provider(provider)
    try:
        replies = anyio.run(scenario)
    finally:
        otel.set_tracer_provider(None)
    assert [r.get("error", r.get("status")) for r in replies] == [
        "ok", "tool_error", "tool_not_available"]
    discover, ok, failed, refused = exporter.get_finished_spans()
    assert discover.name == "toolsift.discover"
    request_id = discover.attributes["toolsift.request_id"]
    assert ok.name == "execute_tool gitlab.search_code" and ok.kind == SpanKind.INTERNAL
    assert dict(ok.attributes) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "gitlab.search_code",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.description": cards["gitlab.search_code"].summary,
        "toolsift.request_id": request_id,
        "toolsift.call.outcome": "ok",
    }
    assert ok.status.status_code == StatusCode.UNSET
    assert failed.attributes["error.type"] == "tool_error"
    assert "gen_ai.tool.call.id" not in failed.attributes  # not known: not made up
    assert failed.status.status_code == StatusCode.ERROR
    # refused at the gate: never ran, the reply's code is the error, no discovery behind it
    assert refused.name == "execute_tool k8s.get_pod_logs"
    assert refused.attributes["error.type"] == "tool_not_available"
    assert "toolsift.request_id" not in refused.attributes

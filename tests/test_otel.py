"""OpenTelemetry out (`serving.calls.otel`): the discover span on the fixture bundle, caught
by the SDK's in-memory exporter; nothing imported or changed without OpenTelemetry; the
`--otel` provider's OTLP/HTTP export, received by a local endpoint (otlp_receiver.py). The
gateway's `execute_tool` span is in test_gateway.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from serving.calls import otel
from serving.selector import Selector

ROOT = Path(__file__).resolve().parents[1]
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
from serving.calls import otel
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

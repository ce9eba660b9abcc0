"""What the client sees and calls, independent of the transport: the three meta-tools,
the active tools, and every call through gate, validation and the risk policy.

Every reply is a JSON-ready dict; errors carry `"error"`. The order of checks on a call
is the runtime's (`serving.calls.run.check_call`): gate (a tool outside the active set is
refused with the set listed), arguments (errors verbatim), then the risk policy:
`allow` runs, `confirm` asks the user when the client can be asked (else a
`needs_confirmation` error), `dry_run` shows what would run, `deny` never reaches the
downstream server. Results are capped (`serving.calls.observe`) with the whole payload behind
a handle that `fetch_observation` pages through. Every discovery and call appends one
trace line in the runtime's format (`Discovery.trace_record`); a refused call's line also
says `refusal` when a policy, not the menu, kept the tool out (`Gateway.refusal`).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

import mcp_types as types

from serving.calls.gate import GATE_HINT, SEARCH_TOOLS_DEFINITION, SEARCH_TOOLS_NAME
from serving.calls.observe import UnknownHandleError, canonical_json, cap_observation
from serving.calls.policy import Decision
from serving.calls.run import check_call
from serving.calls.tracelog import TraceWriter
from serving.gateway.admission import Admission, Busy, default_workers
from serving.gateway.config import GatewayConfig
from serving.gateway.downstream import Downstream, DownstreamError
from serving.gateway.registry import Registry
from serving.gateway.session import SessionState
from serving.model.config import utc_now
from serving.model.selection import SessionContext, Subgoal, resolve_connections
from serving.model.text import estimate_tokens
from serving.operations import otel
from serving.selector import Discovery, Selector
from serving.stages.disclose import discovery_line, full_schema

log = logging.getLogger(__name__)

DESCRIBE_TOOL_NAME = "describe_tool"
FETCH_NAME = "fetch_observation"
META_TOOLS: tuple[Mapping[str, Any], ...] = (
    SEARCH_TOOLS_DEFINITION,
    {
        "name": DESCRIBE_TOOL_NAME,
        "description": "The full card of one tool: what it does, its risk, its arguments.",
        "input_schema": {
            "type": "object",
            "properties": {"tool_id": {"type": "string", "minLength": 1}},
            "required": ["tool_id"],
            "additionalProperties": False,
        },
    },
    {
        "name": FETCH_NAME,
        "description": "Read more of a tool result that was cut short: pass the handle it "
        "came with and the character offset to continue from.",
        "input_schema": {
            "type": "object",
            "properties": {
                "handle": {"type": "string", "minLength": 1},
                "offset": {"type": "integer", "minimum": 0, "default": 0},
                "limit": {"type": "integer", "minimum": 1, "default": 4000},
            },
            "required": ["handle"],
            "additionalProperties": False,
        },
    },
)
MAX_SESSIONS = 1_000  # client states kept at once (HTTP sessions that never closed)
MAX_TRACED_NAME = 256  # a refused tool name comes from the client: bound its trace line
QUARANTINED_HINT = "this tool failed the gateway's review and cannot be called"
# a gate refusal's hint when a policy, not the menu, keeps the tool out (`Gateway.refusal`)
REFUSAL_HINTS: Mapping[str, str] = {
    "quarantined": QUARANTINED_HINT,
    "denied": "the risk policy denies this tool; it cannot be called in this session",
    "not_connected": "this session does not hold the connection this tool needs; ask the "
    "user to connect it",
    "not_offered": "this session is offered a list of tools without this one",
}

# Asks the user to confirm a call: None when the client cannot be asked, else True/False.
Confirm = Callable[[str], Awaitable[bool | None]]


class Gateway:
    """The selector over the live tools, the downstream sessions, the clients' states."""

    def __init__(
        self,
        config: GatewayConfig,
        downstream: Downstream,
        *,
        traces: TraceWriter | None = None,
    ) -> None:
        self.config = config
        self.params = config.params
        self.downstream = downstream
        self.traces = traces
        self.registry = Registry()
        self.selector: Selector | None = None
        self.sessions: OrderedDict[str, SessionState] = OrderedDict()
        self.context = config.session
        # names of `session.connections` that are no served server or connection, as last
        # warned about: a rebuild warns again only when they change
        self.unknown_connections: tuple[str, ...] = ()
        self.admission = Admission(self.params.discovery_workers or default_workers(),
                                   self.params.discovery_queue,
                                   self.params.discovery_deadline_s)

    def install(self, registry: Registry, selector: Selector | None) -> list[SessionState]:
        """Serve a new registry; returns the sessions whose active set lost tools."""
        self.registry, self.selector = registry, selector
        session, unknown = resolve_connections(self.config.session, registry.cards.values())
        if unknown != self.unknown_connections:
            if unknown:
                log.warning("session.connections: %s: neither a server nor a connection of "
                            "the served tools; no tool matches", ", ".join(unknown))
            else:
                log.info("session.connections: every name is a served server or connection")
            self.unknown_connections = unknown
        self.context = effective_context(session, registry)
        return [s for s in self.sessions.values() if s.retain(registry.cards)]

    def session(self, key: str) -> SessionState:
        """The client's state, made on first use; the least recently used client's state
        goes first when `MAX_SESSIONS` are kept (HTTP sessions that never said goodbye)."""
        if key not in self.sessions:
            self.sessions[key] = SessionState(
                size=self.params.active_set_size, ttl_s=self.params.active_ttl_s
            )
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))
        self.sessions.move_to_end(key)
        return self.sessions[key]

    # --- what tools/list shows ----------------------------------------------------------

    def visible_tools(self, state: SessionState) -> list[dict[str, Any]]:
        """The meta-tools, then the active set's tools (never more than the set's size)."""
        out = [dict(t) for t in META_TOOLS]
        for tool_id in state.active():
            card = self.registry.cards.get(tool_id)
            if card is not None:
                shown = full_schema(card)
                shown["risk"] = card.risk
                out.append(shown)
        return out

    # --- the meta-tools -----------------------------------------------------------------

    async def search_tools(
        self, state: SessionState, query: Any
    ) -> tuple[dict[str, Any], bool]:
        """Discovery for `query`: the menu (discovery-level lines with token counts), made
        callable. Returns the reply and whether the active set changed."""
        if not isinstance(query, str) or not query.strip():
            return {"error": "invalid_arguments", "tool_id": SEARCH_TOOLS_NAME,
                    "errors": ["$.query: must be a non-empty string"]}, False
        selector = self.selector
        if selector is None:
            return {"query": query, "tools": [], "hint": "no downstream tool is being served",
                    "down": dict(self.downstream.down)}, False
        # the models run on a bounded pool of workers (`admission`); the session's state
        # changes only on the loop. Past the bound the caller hears `busy` at once.
        try:
            discovery = await self.admission.run(selector.discover, query.strip(), self.context)
        except Busy as err:
            return {"error": "busy", "tool_id": SEARCH_TOOLS_NAME, "reason": err.why,
                    "retry_after_s": err.retry_after_s,
                    "hint": f"the gateway is at capacity: retry in {err.retry_after_s:g} s"}, False
        found = discovery.search_hits(
            min(self.params.search_limit, self.params.active_set_size), self.registry.cards
        )
        changed = state.activate(found, discovery)
        tools = []
        for tool_id in found:
            line = discovery_line(self.registry.cards[tool_id])
            tools.append({"tool_id": tool_id, "line": line, "tokens": estimate_tokens(line)})
        reply: dict[str, Any] = {
            "query": query.strip(),
            "tools": tools,
            "tokens": sum(t["tokens"] for t in tools),
            "callable": state.active().sorted_ids(),
            "bundle_version": selector.bundle.manifest.bundle_version,  # which release answered
        }
        missing = discovery.missing()
        if missing:
            reply["missing"] = [{**m.to_dict(), "hint": m.line()} for m in missing]
        if discovery.abstained:
            reasons = [s.abstention.reason for s in discovery.steps if s.abstention]
            reply["abstained"] = True
            reply["reason"] = reasons[0] if reasons else "no tool in this session fits"
            reply["hint"] = (
                "ask the user for what is missing" if missing
                else "answer without a tool, ask the user, or search again naming an action "
                "and an object"
            )
        self._trace(state, discovery.trace_record(outcome="search"))
        return reply, changed

    def describe_tool(self, state: SessionState, tool_id: Any) -> dict[str, Any]:
        card = self.registry.cards.get(tool_id) if isinstance(tool_id, str) else None
        if card is None and isinstance(tool_id, str) and self.registry.reason(tool_id):
            # the reason stays in the gateway's log: it quotes the tool's own text
            return {"error": "quarantined", "tool_id": tool_id, "hint": QUARANTINED_HINT}
        if card is None:
            return {"error": "unknown_tool", "tool_id": tool_id, "hint": GATE_HINT}
        out = card.to_dict()
        out["description_sha256"] = card.description_hash()
        out["new"] = card.tool_id in self.registry.new
        out["active"] = card.tool_id in state.active()
        return out

    def fetch_observation(
        self, state: SessionState, handle: Any, offset: Any = 0, limit: Any = None
    ) -> dict[str, Any]:
        """A window of the whole result's JSON text, `limit` characters from `offset`."""
        limit = self.params.fetch_limit if limit is None else limit
        if not isinstance(offset, int) or offset < 0 or not isinstance(limit, int) or limit < 1:
            return {"error": "invalid_arguments", "tool_id": FETCH_NAME,
                    "errors": ["offset: an integer >= 0; limit: an integer >= 1"]}
        try:
            text = canonical_json(state.store.fetch(str(handle)))
        except UnknownHandleError as err:
            return {"error": "unknown_handle", "handle": handle, "message": str(err)}
        limit = min(limit, self.params.fetch_limit)
        end = min(len(text), offset + limit)
        return {
            "handle": handle,
            "offset": offset,
            "text": text[offset:end],
            "total_chars": len(text),
            "next_offset": end if end < len(text) else None,
        }

    # --- calls --------------------------------------------------------------------------

    async def call(
        self,
        state: SessionState,
        tool_id: str,
        args: Mapping[str, Any],
        confirm: Confirm,
        *,
        call_id: str | None = None,
    ) -> dict[str, Any]:
        """Gate, validate, apply the policy, then (when allowed) call downstream. An
        `execute_tool` span when the host traces (`serving.operations.otel`); `call_id`: the
        model's tool-call id, when the caller knows it (MCP does not carry one)."""
        card = self.registry.cards.get(tool_id)
        origin = state.origin(tool_id)
        with otel.tool_span(
            tool_id, call_id=call_id, description=card.summary if card else "",
            request_id=origin.discovery.request_id if origin else "",
        ) as span:
            reply = await self._call(state, tool_id, args, confirm)
            span.record(reply)
        return reply

    async def _call(
        self, state: SessionState, tool_id: str, args: Mapping[str, Any], confirm: Confirm
    ) -> dict[str, Any]:
        origin = state.origin(tool_id)
        subgoal = origin.step.subgoal if origin else Subgoal(text="")
        if origin is not None and any(s.subgoal.mutation for s in origin.discovery.steps):
            subgoal = replace(subgoal, mutation=True)  # the request as a whole writes
        policy = self.selector.policy if self.selector else None
        if policy is None or tool_id not in self.registry.cards:
            active = state.active()
            refused: dict[str, Any] = {"error": "tool_not_available", "tool_id": tool_id,
                                       "available": active.sorted_ids(), "hint": GATE_HINT}
            refusal = self.refusal(tool_id)
            if refusal is not None:
                refused.update(reason=refusal, hint=REFUSAL_HINTS[refusal])
            self._trace_call(state, origin, tool_id, None, "not_available", refusal)
            return refused
        verdict = check_call(
            tool_id, args, active=state.active(), cards=self.registry.cards,
            subgoal=subgoal, context=self.context, policy=policy,
        )
        reply: dict[str, Any] = {"error": verdict.status, **verdict.to_dict()}
        refusal = None if verdict.may_execute else self.refusal(tool_id)
        if refusal is not None and verdict.status == "not_available":
            # the gate's refusal, and why no search would help
            reply.update(reason=refusal, hint=REFUSAL_HINTS[refusal])
        status = outcome = verdict.status
        if status == Decision.CONFIRM.value:
            # the trace says how the confirmation ended, not only that one was needed
            answer = await confirm(_confirm_message(tool_id, args))
            if answer is None:
                reply["error"] = outcome = "needs_confirmation"
                reply["hint"] = "ask the user to approve this call; this client cannot be asked"
            elif not answer:
                reply["error"] = outcome = "declined"
                reply["hint"] = "the user declined this call"
            else:
                status = Decision.ALLOW.value
        elif status == Decision.DRY_RUN.value:
            reply = {**verdict.to_dict(), "would_call": tool_id, "arguments": dict(args),
                     "hint": "dry run: nothing was executed"}
        if status != Decision.ALLOW.value:
            self._trace_call(state, origin, tool_id, None, outcome, refusal)
            return reply
        state.touch(tool_id)
        return await self._forward(state, origin, tool_id, args)

    async def _forward(self, state: SessionState, origin: Any, tool_id: str,
                       args: Mapping[str, Any]) -> dict[str, Any]:
        route = self.registry.routes[tool_id]
        try:
            result = await self.downstream.call(route.server, route.name, args)
        except DownstreamError as err:
            self._trace_call(state, origin, tool_id, False, "downstream_error")
            return {"error": "downstream_error", "tool_id": tool_id, "server": route.server,
                    "message": str(err)}
        observation = cap_observation(
            _payload(result), max_bytes=self.params.max_observation_bytes, max_items=20,
            store=state.store,
        )
        ok = not result.is_error
        self._trace_call(state, origin, tool_id, ok, "ok" if ok else "tool_error")
        reply = {"tool_id": tool_id, "status": "ok" if ok else "tool_error",
                 **observation.to_dict()}
        if observation.truncated:
            reply["hint"] = f"cut to fit; {FETCH_NAME}(handle) returns the rest"
        return reply

    def refusal(self, tool_id: Any) -> str | None:
        """Why a policy keeps `tool_id` from every call of this session, whatever a search
        finds: `quarantined` (the review withdrew it), `denied` (the risk policy denies
        it, so no menu offers it), `not_connected` (the session lacks its connection),
        `not_offered` (the session's `tools` list leaves it out); None otherwise. Traced
        beside a refused call's outcome, for `toolsift diagnose`."""
        if not isinstance(tool_id, str):
            return None
        card = self.registry.cards.get(tool_id)
        if card is None:
            return "quarantined" if self.registry.reason(tool_id) else None
        policy = self.selector.policy if self.selector else None
        if policy is not None and policy.decide(card).decision == Decision.DENY:
            return "denied"
        connection = card.requires.connection
        if self.context.restrict_connections and connection not in self.context.connections:
            return "not_connected"
        if self.context.restrict_tools and tool_id not in self.context.tools:
            return "not_offered"
        return None

    # --- traces -------------------------------------------------------------------------

    def _trace_call(self, state: SessionState, origin: Any, tool_id: str, success: bool | None,
                    outcome: str, refusal: str | None = None) -> None:
        """One call's line; `refusal` (`Gateway.refusal`) only on a call that was refused."""
        extra = {"refusal": refusal} if refusal else {}
        if origin is None:
            # a tool no search of this session surfaced (the gate refused it): no event to
            # learn from, but `toolsift diagnose` counts what the model looked for
            self._trace(state, {
                "request_id": uuid.uuid4().hex, "ts": utc_now(), "request": "",
                "context": self.context.to_dict(), "steps": [], "outcome": outcome,
                "tool_id": str(tool_id)[:MAX_TRACED_NAME], "latency_ms": {}, **extra,
            })
            return
        discovery: Discovery = origin.discovery
        chosen = [tool_id if s is origin.step else None for s in discovery.steps]
        ok = [success if s is origin.step else None for s in discovery.steps]
        if origin.step not in discovery.steps and discovery.steps:  # found by the whole request
            chosen[0], ok[0] = tool_id, success
        self._trace(state, {**discovery.trace_record(chosen, ok, outcome=outcome), **extra})

    def _trace(self, state: SessionState, record: Mapping[str, Any]) -> None:
        """Append `record` with the client's opaque session id, so `toolsift diagnose`
        can follow one client's searches and calls through a shared file."""
        if self.traces is not None:
            self.traces.append({"session": state.id, **record})


def effective_context(session: SessionContext, registry: Registry) -> SessionContext:
    """The session with what it leaves open spelled out (every served connection, every
    scope the served tools need): the same selection, and a trace that replays the same
    (a trace's context lists what the session held; an empty list would mean nothing).
    Its connections are taken as given: `Gateway.install` first maps server names to
    connections (`resolve_connections`)."""
    cards = registry.cards.values()
    connections, scopes = session.connections, session.scopes
    if not session.restrict_connections:
        connections = frozenset(c.requires.connection for c in cards if c.requires.connection)
    if not session.restrict_scopes:
        scopes = frozenset(s for c in cards for s in c.requires.scopes)
    return replace(session, connections=connections, scopes=scopes,
                   restrict_connections=True, restrict_scopes=True)


def _confirm_message(tool_id: str, args: Mapping[str, Any]) -> str:
    text = json.dumps(dict(args), ensure_ascii=False, sort_keys=True)
    return f"Allow the agent to call {tool_id} with {text[:500]}?"


def _payload(result: types.CallToolResult) -> Any:
    """What a downstream result says: its structured content, else its text (as JSON when
    it is JSON), else the content blocks as they are."""
    if result.structured_content is not None:
        return result.structured_content
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    if len(texts) == len(result.content) and texts:
        joined = "\n".join(texts)
        try:
            return json.loads(joined)
        except json.JSONDecodeError:
            return joined
    return [c.model_dump(mode="json", exclude_none=True) for c in result.content]

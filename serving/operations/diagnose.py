"""`toolsift diagnose`: production trace records sorted into the failures an operator acts
on, each naming where its fix lives.

Input: the records `Discovery.trace_record` writes (`serving.calls.tracelog`); the gateway
adds `session`, and `refusal` on a call it refused for a policy reason. Lines from before
`session`, `refusal` or a step's `abstained` still read (an empty menu is an abstained
step). Records are read in file order, which is each session's order: one gateway process
appends a session's lines as they happen (`ts` has whole seconds only, so it cannot order
them). One record is at most one failure:

- `no_suitable_tool`: a search every step of which abstained;
- `not_retrieved_or_cut`: a call the gate refused (`not_available`) with no policy reason,
  or a re-search: a search within `window_s` of a call that failed since the session's
  last search (not for a policy reason), that search having shown a menu: the tool the
  model wanted was not retrieved, or cut from the menu. A refusal's reason says where the
  session's last search lost that tool: not_retrieved, filtered_out, cut_from_menu,
  on_menu_not_active (past the search's limit, or expired), left_active_set (its own
  search found it), no_search;
- `quarantined`: a refused call whose line says `refusal: quarantined` (the gateway's
  review withdrew the tool);
- `not_connected`: `refusal: not_connected` (the session lacks the tool's connection);
- `denied`: the risk policy's `deny`, or `refusal: denied` (a call the gate refused for a
  tool the policy denies: such a tool never reaches a menu) or `refusal: not_offered` (a
  tool outside the session's `tools` list);
- `invoked_wrongly`: arguments the validator rejected (`invalid_arguments`);
- `declined_or_dry_run`: the risk policy's `dry_run`, a confirmation the user declined or
  the client could not ask for (`confirm` on older lines);
- `downstream_error`: the tool's server failed or timed out;
- `tool_error`: the tool ran and reported an error;
- `returned_too_little`: a search within `window_s` of a successful call, the session's
  last call since its last search (the result did not say enough to go on).
A search after a successful call is read as about that call, whether or not its tool was
on the last menu. A search right after a search (no call between) is no failure: an agent
searching for each step of a task before calling reads that way. The two re-search classes
are suspicions, not verdicts: a workflow whose next step needs a new search reads the
same. Records without a session never count as re-searches.

With labeled queries, the requests whose text is a query's (whitespace aside) are scored
by the recall chain (`serving.metrics`), a step's pick being the first tool a call named
for it: where each gold tool was lost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from serving import metrics as M
from serving.model.schema import FieldError, LabeledQuery

CLASSES = (
    "no_suitable_tool",
    "not_retrieved_or_cut",
    "quarantined",
    "not_connected",
    "denied",
    "invoked_wrongly",
    "declined_or_dry_run",
    "downstream_error",
    "tool_error",
    "returned_too_little",
)
FIXES: Mapping[str, str] = {
    "no_suitable_tool": "catalog coverage: connect the missing server, add the tool",
    "not_retrieved_or_cut": "retrieval, rerank, the menu's bars (and the active set's ttl)",
    "quarantined": "the tool or its server: the gateway's review withdrew it (lint, rug "
    "pull, ledger; the reason is in the gateway's log)",
    "not_connected": "the session's connections (servers.json session.connections, "
    "--connections)",
    "denied": "the risk policy (denylist, risk_ceiling, by_tool, by_risk), or the "
    "session's tools list",
    "invoked_wrongly": "the tool card: its input schema and description",
    "declined_or_dry_run": "the risk policy's confirm and dry_run; a client that can ask its "
    "user",
    "downstream_error": "the downstream server",
    "tool_error": "the tool, or what its card lets the model ask of it",
    "returned_too_little": "the observation caps, or the tool's output",
}
SEARCH, OK = "search", "ok"
# a call's outcome (the gateway's `_trace_call`) -> its class
CALL_CLASSES: Mapping[str, str] = {
    "not_available": "not_retrieved_or_cut",
    "invalid_arguments": "invoked_wrongly",
    "deny": "denied",
    "dry_run": "declined_or_dry_run",
    "needs_confirmation": "declined_or_dry_run",
    "declined": "declined_or_dry_run",
    "confirm": "declined_or_dry_run",  # older lines: needs_confirmation or declined
    "downstream_error": "downstream_error",
    "tool_error": "tool_error",
}
# a refused call's `refusal` (the gateway's `Gateway.refusal`) -> its class; it names the
# policy behind a refusal whose outcome alone (not_available, invalid_arguments) does not
REFUSALS: Mapping[str, str] = {
    "quarantined": "quarantined",
    "not_connected": "not_connected",
    "denied": "denied",
    "not_offered": "denied",  # the application's tool list: a policy, as the risk policy's
}
# calls stopped before the tool ran: the outcomes a `refusal` may explain
REFUSED = frozenset(o for o in CALL_CLASSES if o not in ("downstream_error", "tool_error"))
# classes of a failed call after which the next search is a re-search: not the policy's
POLICY_CLASSES = frozenset({"quarantined", "not_connected", "denied", "declined_or_dry_run"})
BUCKETS: Mapping[str, str] = {"day": "%Y-%m-%d", "hour": "%Y-%m-%dT%H:00Z"}
# the recall chain's stages as an operator reads a loss there
STAGE_LOSSES: Mapping[str, str] = {
    "decompose": "no predicted subgoal matched the gold one",
    "retrieve": "gold not retrieved",
    "filter": "lost at the filter",
    "menu": "cut from the menu",
    "select": "on the menu, not chosen",
}
DEFAULT_WINDOW_S = 120.0


# --- the records --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One subgoal of a record: its stage sets and what a call chose for it."""

    subgoal: str = ""
    retrieved: tuple[str, ...] = ()
    filtered: tuple[str, ...] = ()
    menu: tuple[str, ...] = ()
    abstained: bool = True
    chosen: str | None = None
    success: bool | None = None

    @classmethod
    def from_dict(cls, data: Any) -> TraceStep:
        if not isinstance(data, Mapping):
            raise FieldError("<step>", "expected an object")
        menu = _ids(data, "menu")
        abstained = data.get("abstained", not menu)  # older lines: an empty menu
        if not isinstance(abstained, bool):
            raise FieldError("abstained", f"expected true or false, got {_kind(abstained)}")
        success = data.get("success")
        if success is not None and not isinstance(success, bool):
            raise FieldError("success", f"expected true, false or null, got {_kind(success)}")
        return cls(
            subgoal=_text(data, "subgoal"),
            retrieved=_ids(data, "retrieved"),
            filtered=_ids(data, "filtered"),
            menu=menu,
            abstained=abstained,
            chosen=_optional_text(data, "chosen"),
            success=success,
        )


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """One trace line as diagnosis reads it."""

    request_id: str
    ts: datetime  # timezone-aware, UTC
    outcome: str
    request: str = ""
    session: str | None = None
    steps: tuple[TraceStep, ...] = ()
    tool_id: str | None = None  # what a call named; a gate refusal's only trace of it
    refusal: str | None = None  # the policy behind a refused call (`REFUSALS`), when known

    @classmethod
    def from_dict(cls, data: Any) -> TraceRecord:
        """Validate one line; raises `FieldError` naming the field (steps[i].field)."""
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        if "steps" not in data:
            raise FieldError("steps", "missing: not a runtime trace record")
        raw_steps = data["steps"]
        if not isinstance(raw_steps, list):
            raise FieldError("steps", "expected a list")
        steps = []
        for i, step in enumerate(raw_steps):
            if not isinstance(step, Mapping):
                raise FieldError(f"steps[{i}]", "expected an object")
            try:
                steps.append(TraceStep.from_dict(step))
            except FieldError as err:
                raise FieldError(f"steps[{i}].{err.field}", err.problem) from None
        chosen = next((s.chosen for s in steps if s.chosen is not None), None)
        return cls(
            request_id=_text(data, "request_id"),
            ts=_timestamp(data),
            outcome=_text(data, "outcome"),
            request=_text(data, "request"),
            session=_optional_text(data, "session") or None,
            steps=tuple(steps),
            tool_id=chosen or _optional_text(data, "tool_id"),
            refusal=_optional_text(data, "refusal"),
        )

    @property
    def kind(self) -> str:
        """`search`, or the call's outcome. The library's records have no outcome: they
        read as a search, or as `ok` / `tool_error` by their steps' success."""
        if self.outcome:
            return self.outcome
        known = [s.success for s in self.steps if s.chosen is not None and s.success is not None]
        if not known:
            return SEARCH
        return OK if all(known) else "tool_error"

    @property
    def abstained(self) -> bool:
        """Every step abstained (as `Discovery.abstained`)."""
        return all(s.abstained for s in self.steps)

    @property
    def menu(self) -> frozenset[str]:
        return frozenset(t for s in self.steps for t in s.menu)


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FieldError(key, f"expected a string, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    return type(value).__name__  # never the value: a line can hold anything, at any length


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    return _text(data, key) if data.get(key) is not None else None


def _ids(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FieldError(key, "expected a list of tool ids")
    return tuple(value)


def _timestamp(data: Mapping[str, Any]) -> datetime:
    value = data.get("ts")
    if not isinstance(value, str):
        raise FieldError("ts", "missing" if value is None else "expected an ISO 8601 string")
    try:
        ts = datetime.fromisoformat(value)
    except ValueError:
        raise FieldError("ts", f"not an ISO 8601 time: {value[:40]!r}") from None
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def server_of(tool_id: str | None) -> str | None:
    """A tool id's server: what comes before its first '.' (None for a bare name)."""
    if not tool_id or "." not in tool_id:
        return None
    return tool_id.split(".", 1)[0]


# --- classification -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Failure:
    """One failure: its class, the outcome or pattern behind it, and the record it was
    seen at (for a re-search, the search that gave it away)."""

    kind: str  # one of CLASSES
    reason: str  # the call's outcome, or every_step_abstained | search_after_failed_call | ...
    ts: datetime
    request_id: str
    session: str | None = None
    request: str = ""
    tool_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "ts": self.ts.isoformat().replace("+00:00", "Z"),
            "request_id": self.request_id,
            "session": self.session,
            "request": self.request,
            "tool_id": self.tool_id,
        }


@dataclass(slots=True)
class _Seen:
    """One session so far: its last search and what was called since."""

    search: TraceRecord | None = None
    failed: TraceRecord | None = None  # the last call since that failed, not by policy
    last_call: TraceRecord | None = None


def classify(
    records: Iterable[TraceRecord], *, window_s: float = DEFAULT_WINDOW_S
) -> list[Failure]:
    """The failures among `records`, in file order (see the module docstring)."""
    sessions: dict[str, _Seen] = {}
    out = []
    for rec in records:
        seen = sessions.setdefault(rec.session, _Seen()) if rec.session else None
        if rec.kind == SEARCH:
            failure = _search_failure(rec, seen, window_s)
            if seen is not None:  # a new menu: start over
                seen.search, seen.failed, seen.last_call = rec, None, None
        else:
            failure = _call_failure(rec, seen)
            if seen is not None:
                if failure is not None and failure.kind not in POLICY_CLASSES:
                    seen.failed = rec
                seen.last_call = rec
        if failure is not None:
            out.append(failure)
    return out


def _search_failure(rec: TraceRecord, seen: _Seen | None, window_s: float) -> Failure | None:
    if rec.abstained:
        return _failure(rec, "no_suitable_tool", "every_step_abstained", None)
    if seen is None:
        return None
    last, failed, before = seen.last_call, seen.failed, seen.search
    if last is not None and last.kind == OK and _within(last.ts, rec.ts, window_s):
        return _failure(rec, "returned_too_little", "search_after_ok_call", last.tool_id)
    # a search right after a search (nothing called between) is a next step, not a retry
    if (failed is not None and before is not None and before.menu
            and _within(failed.ts, rec.ts, window_s)):
        return _failure(rec, "not_retrieved_or_cut", "search_after_failed_call", None)
    return None


def _call_failure(rec: TraceRecord, seen: _Seen | None) -> Failure | None:
    kind = CALL_CLASSES.get(rec.kind)
    if kind is None:  # ok, or an outcome this version does not know
        return None
    reason = rec.kind
    policy = REFUSALS.get(rec.refusal or "") if rec.kind in REFUSED else None
    if policy is not None:  # a policy, not retrieval, refused it
        return _failure(rec, policy, reason, rec.tool_id)
    if reason == "not_available":
        reason = _refusal_reason(rec, seen.search if seen else None)
    return _failure(rec, kind, reason, rec.tool_id)


def _refusal_reason(rec: TraceRecord, search: TraceRecord | None) -> str:
    """Where the tool the gate refused was lost, read off the search behind the call (its
    own record's, else the session's last search)."""
    if rec.steps:  # found, then gone from the active set (ttl, evicted, withdrawn)
        return "left_active_set"
    if search is None:
        return "no_search"
    if rec.tool_id in search.menu:  # on a menu past the search's limit, or expired since
        return "on_menu_not_active"
    if any(rec.tool_id in s.filtered for s in search.steps):
        return "cut_from_menu"
    if any(rec.tool_id in s.retrieved for s in search.steps):
        return "filtered_out"  # the hard filters: policy, scope, connection, read vs write
    return "not_retrieved"


def _failure(rec: TraceRecord, kind: str, reason: str, tool_id: str | None) -> Failure:
    return Failure(kind, reason, rec.ts, rec.request_id, rec.session, rec.request, tool_id)


def _within(earlier: datetime, later: datetime, window_s: float) -> bool:
    return abs((later - earlier).total_seconds()) <= window_s


# --- the report ---------------------------------------------------------------------

Counts = tuple[tuple[str, int], ...]


def _counts(values: Iterable[str | None]) -> Counts:
    """Most first, ties by name; None left out."""
    counter = Counter(v for v in values if v is not None)
    return tuple(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass(frozen=True, slots=True)
class ClassReport:
    """One failure class: how often, why, at which tools and servers, and examples."""

    name: str
    fix: str
    count: int
    share: float  # of all failures
    by_reason: Counts = ()
    by_tool: Counts = ()
    by_server: Counts = ()
    examples: tuple[Failure, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fix": self.fix,
            "count": self.count,
            "share": round(self.share, 4),
            "by_reason": dict(self.by_reason),
            "by_tool": dict(self.by_tool),
            "by_server": dict(self.by_server),
            "examples": [f.to_dict() for f in self.examples],
        }


@dataclass(frozen=True, slots=True)
class StageLosses:
    """The recall chain over the trace requests that match a labeled query."""

    n_queries: int  # labeled queries given
    n_matched: int  # of them, asked in the traces
    n_requests: int  # trace requests scored (a query asked twice counts twice)
    chain: Mapping[str, float | int | None]  # `metrics.recall_chain`: r_<stage>, lost_<stage>
    lost_tools: Mapping[str, Counts]  # stage -> gold tools lost there, most first
    abstention: Mapping[str, float | int | None]  # `metrics.abstention_scores`

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_queries": self.n_queries,
            "n_matched": self.n_matched,
            "n_requests": self.n_requests,
            "chain": dict(self.chain),
            "lost": {stage: {"what": STAGE_LOSSES[stage], "n": self.chain[f"lost_{stage}"],
                             "tools": dict(self.lost_tools.get(stage, ()))}
                     for stage in M.STAGES},
            "abstention": dict(self.abstention),
        }


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """What `toolsift diagnose` reports; `classes` holds every class, in `CLASSES` order."""

    n_records: int
    n_searches: int
    n_calls: int
    n_sessions: int
    n_without_session: int
    window_s: float
    by: str  # day | hour
    classes: tuple[ClassReport, ...]
    buckets: tuple[tuple[str, Counts], ...] = ()  # period -> failures per class (in order)
    other_outcomes: Counts = ()  # outcomes no class knows (not counted as failures)
    losses: StageLosses | None = None

    @property
    def n_failures(self) -> int:
        return sum(c.count for c in self.classes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_records": self.n_records,
            "n_searches": self.n_searches,
            "n_calls": self.n_calls,
            "n_sessions": self.n_sessions,
            "n_without_session": self.n_without_session,
            "n_failures": self.n_failures,
            "window_s": self.window_s,
            "by": self.by,
            "classes": {c.name: c.to_dict() for c in self.classes},
            "buckets": {period: dict(counts) for period, counts in self.buckets},
            "other_outcomes": dict(self.other_outcomes),
            "labeled": None if self.losses is None else self.losses.to_dict(),
        }


def diagnose(
    records: Sequence[TraceRecord],
    *,
    window_s: float = DEFAULT_WINDOW_S,
    by: str = "day",
    labeled: Sequence[LabeledQuery] | None = None,
    n_examples: int = 3,
) -> Diagnosis:
    """Classify `records` (in file order) and count the failures per class, reason, tool,
    server and period (`by`: day | hour, UTC); with `labeled`, the stage losses too."""
    if by not in BUCKETS:
        raise ValueError(f"--by: {by!r} is not {' or '.join(BUCKETS)}")
    if window_s < 0:
        raise ValueError(f"--window-s: {window_s} is negative")
    failures = classify(records, window_s=window_s)
    total = len(failures)
    classes = []
    for name in CLASSES:
        mine = [f for f in failures if f.kind == name]
        classes.append(ClassReport(
            name=name,
            fix=FIXES[name],
            count=len(mine),
            share=len(mine) / total if total else 0.0,
            by_reason=_counts(f.reason for f in mine),
            by_tool=_counts(f.tool_id for f in mine),
            by_server=_counts(server_of(f.tool_id) for f in mine),
            examples=tuple(mine[:n_examples]),
        ))
    fmt = BUCKETS[by]
    periods: dict[str, Counter[str]] = {}
    for f in failures:
        periods.setdefault(f.ts.strftime(fmt), Counter())[f.kind] += 1
    buckets = tuple((period, tuple((k, kinds[k]) for k in CLASSES if kinds[k]))
                    for period, kinds in sorted(periods.items()))
    known = {SEARCH, OK, *CALL_CLASSES}
    n_searches = sum(1 for r in records if r.kind == SEARCH)
    return Diagnosis(
        n_records=len(records),
        n_searches=n_searches,
        n_calls=len(records) - n_searches,
        n_sessions=len({r.session for r in records if r.session}),
        n_without_session=sum(1 for r in records if not r.session),
        window_s=window_s,
        by=by,
        classes=tuple(classes),
        buckets=buckets,
        other_outcomes=_counts(r.kind for r in records if r.kind not in known),
        losses=None if labeled is None else stage_losses(records, labeled),
    )


def request_key(text: str) -> str:
    """How a record's request meets a labeled query: the same words, spacing aside."""
    return " ".join(text.split())


def stage_losses(records: Sequence[TraceRecord], queries: Sequence[LabeledQuery]) -> StageLosses:
    """Score the trace requests whose text is a labeled query's by the recall chain."""
    by_text: dict[str, LabeledQuery] = {}
    for q in queries:
        by_text.setdefault(request_key(q.query), q)
    requests: dict[str, list[TraceRecord]] = {}
    for rec in records:
        if rec.steps and request_key(rec.request) in by_text:
            requests.setdefault(rec.request_id, []).append(rec)
    items: list[M.ItemOutcome] = []
    abstained, has_gold, matched = [], [], set()
    for recs in requests.values():
        query = by_text[request_key(recs[0].request)]
        matched.add(query.query_id)
        steps = recs[0].steps  # every record of a request carries the same discovery
        picks = [_first_pick(recs, j) for j in range(len(steps))]
        sets = [M.StepSets(s.subgoal, s.retrieved, s.filtered, s.menu, pick)
                for s, pick in zip(steps, picks, strict=True)]
        gold, spans = M.gold_subgoals(query)
        items.extend(M.item_outcomes(gold, sets, spans_request=spans)[1])
        abstained.append(all(s.abstained for s in steps))
        has_gold.append(bool(query.gold))
    lost: dict[str, list[str]] = {}
    for item in items:
        if item.lost_at is not None:
            lost.setdefault(item.lost_at, []).append(item.tool_id)
    return StageLosses(
        n_queries=len(queries),
        n_matched=len(matched),
        n_requests=len(requests),
        chain=M.recall_chain(items),
        lost_tools={stage: _counts(tools) for stage, tools in lost.items()},
        abstention=M.abstention_scores(abstained, has_gold),
    )


def _first_pick(recs: Sequence[TraceRecord], j: int) -> str | None:
    """The first tool a call named for step `j`: the model's pick, right or not."""
    for rec in recs:
        if rec.kind != SEARCH and j < len(rec.steps) and rec.steps[j].chosen is not None:
            return rec.steps[j].chosen
    return None

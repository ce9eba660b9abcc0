"""`toolsift diagnose` on a hand-built trace file: two gateway sessions (A, B) interleaved,
then two old lines without a session (and without a step's `abstained`).

  #  session, ts (UTC)    record                                         class (reason)
  1  A  06-01 09:00:00  search r1, menu [gitlab.list_commits]          -
  2  B  06-01 09:00:10  search r2, menu [slack.post_message, teams...] -
  3  A  06-01 09:00:15  call gitlab.list_commits: tool_error          tool_error
  4  A  06-01 09:00:40  search r3, 25 s after the failed call         not_retrieved_or_cut
                                                                       (search_after_failed_call)
  5  B  06-01 09:00:50  call slack.post_message: invalid_arguments    invoked_wrongly
  6  A  06-01 09:01:00  call github.list_commits: ok                  -
  7  B  06-01 09:01:05  call slack.post_message: needs_confirmation   declined_or_dry_run
  8  A  06-01 09:01:30  search r7, 30 s after the ok call             returned_too_little
                                                                       (github.list_commits)
  9  A  06-01 09:01:40  call github.compare_commits: downstream_error downstream_error
 10  B  06-01 09:02:00  gate refusal jira.create_issue (no steps)    not_retrieved_or_cut
                                                                       (filtered_out by r2)
 11  B  06-01 09:02:05  search r10, every step abstained              no_suitable_tool
 12  A  06-01 09:02:10  call github.compare_commits: tool_error       tool_error
 13  -  06-02 14:00:00  call k8s.delete_pod: deny                     denied
 14  -  06-02 14:00:30  search r13, empty menu (no `abstained` field) no_suitable_tool

14 records: 6 searches (1 2 4 8 11 14), 8 calls; 11 failures: no_suitable_tool 2 (11, 14),
not_retrieved_or_cut 2 (4, 10), denied 1 (13), invoked_wrongly 1, declined_or_dry_run 1
(7), downstream_error 1, tool_error 2 (3, 12), returned_too_little 1; quarantined and
not_connected 0. Per day: 06-01 9, 06-02 2.

The policy outcomes (`test_policy_refusals_are_their_own_classes`) have a file of their own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from serving.cli import app, main
from serving.model.io import load_queries
from serving.operations.diagnose import CLASSES, TraceRecord, classify, diagnose

DAY1, DAY2 = "2025-06-01T09:", "2025-06-02T14:"


def search(rid, session, ts, request, *, retrieved=(), filtered=(), menu=(), old=False):
    step = {"subgoal": request, "operations": [], "mutation": False,
            "retrieved": list(retrieved), "filtered": list(filtered), "menu": list(menu),
            "abstained": not menu, "chosen": None, "tool_id": None, "success": None,
            "latency_ms": {}}
    record = {"session": session, "request_id": rid, "ts": ts, "request": request,
              "context": {}, "steps": [step], "outcome": "search", "latency_ms": {}}
    if old:
        del record["session"], step["abstained"]
    return record


def call(found, ts, tool_id, outcome):
    """A call line: the search's record with the tool chosen for its (only) step."""
    success = {"ok": True, "tool_error": False, "downstream_error": False}.get(outcome)
    step = {**found["steps"][0], "chosen": tool_id, "success": success,
            "tool_id": tool_id if success is not None else None}
    return {**found, "ts": ts, "steps": [step], "outcome": outcome}


R1 = search("r1", "A", DAY1 + "00:00Z", "list commits in acme/web",
            retrieved=["github.list_commits", "gitlab.list_commits"],
            filtered=["github.list_commits", "gitlab.list_commits"],
            menu=["gitlab.list_commits"])
R2 = search("r2", "B", DAY1 + "00:10Z", "post hi to #ops on slack",
            retrieved=["slack.post_message", "teams.post_message", "jira.create_issue"],
            filtered=["slack.post_message", "teams.post_message"],
            menu=["slack.post_message", "teams.post_message"])
R3 = search("r3", "A", DAY1 + "00:40Z", "show the commit history of acme/web",
            retrieved=["github.list_commits"], filtered=["github.list_commits"],
            menu=["github.list_commits"])
R7 = search("r7", "A", DAY1 + "01:30Z", "get the files changed in the last commit of acme/web",
            retrieved=["github.compare_commits", "github.get_commit"],
            filtered=["github.compare_commits"], menu=["github.compare_commits"])
GATE = {"session": "B", "request_id": "r9", "ts": DAY1 + "02:00Z", "request": "",
        "context": {}, "steps": [], "outcome": "not_available", "tool_id": "jira.create_issue",
        "latency_ms": {}}
R10 = search("r10", "B", DAY1 + "02:05Z", "book a flight to Oslo", retrieved=["travel.x"])
OLD_DENY = call(search("r12", None, "", "delete the stuck pod", retrieved=["k8s.delete_pod"],
                       filtered=["k8s.delete_pod"], menu=["k8s.delete_pod"], old=True),
                DAY2 + "00:00Z", "k8s.delete_pod", "deny")
OLD_NONE = search("r13", None, DAY2 + "00:30Z", "send the invoice to ACME", old=True)

RECORDS = [
    R1, R2,
    call(R1, DAY1 + "00:15Z", "gitlab.list_commits", "tool_error"),
    R3,
    call(R2, DAY1 + "00:50Z", "slack.post_message", "invalid_arguments"),
    call(R3, DAY1 + "01:00Z", "github.list_commits", "ok"),
    call(R2, DAY1 + "01:05Z", "slack.post_message", "needs_confirmation"),
    R7,
    call(R7, DAY1 + "01:40Z", "github.compare_commits", "downstream_error"),
    GATE, R10,
    call(R7, DAY1 + "02:10Z", "github.compare_commits", "tool_error"),
    OLD_DENY, OLD_NONE,
]
# q1: list_commits cut from r1's menu, get_repo never retrieved; q2 and q3's compare_commits
# reach the pick; q3's get_commit lost at the filter; q5 (spaced differently from r2) has
# teams on the menu but slack was picked; q4 has no gold (r10 abstained: right); q6 is
# never asked. 6 gold items: retrieve 5/6, filter 4/5, menu 3/4, select 2/3, end to end 2/6.
QUERIES = [
    {"query_id": "q1", "query": "list commits in acme/web",
     "gold": ["github.list_commits", "github.get_repo"]},
    {"query_id": "q2", "query": "show the commit history of acme/web",
     "gold": ["github.list_commits"]},
    {"query_id": "q3", "query": "get the files changed in the last commit of acme/web",
     "gold": ["github.compare_commits", "github.get_commit"]},
    {"query_id": "q4", "query": "book a flight to Oslo", "gold": []},
    {"query_id": "q5", "query": "post hi to  #ops on slack ", "gold": ["teams.post_message"]},
    {"query_id": "q6", "query": "rotate the API keys", "gold": ["vault.rotate"]},
]
COUNTS = {"no_suitable_tool": 2, "not_retrieved_or_cut": 2, "quarantined": 0,
          "not_connected": 0, "denied": 1, "invoked_wrongly": 1, "declined_or_dry_run": 1,
          "downstream_error": 1, "tool_error": 2, "returned_too_little": 1}


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def files(tmp_path):
    return (write_jsonl(tmp_path / "traces.jsonl", RECORDS),
            write_jsonl(tmp_path / "queries.jsonl", QUERIES))


def records(rows=RECORDS) -> list[TraceRecord]:
    return [TraceRecord.from_dict(r) for r in rows]


def test_every_class_counted_by_hand():
    report = diagnose(records())
    assert (report.n_records, report.n_searches, report.n_calls) == (14, 6, 8)
    assert (report.n_sessions, report.n_without_session) == (2, 2)
    assert {c.name: c.count for c in report.classes} == COUNTS
    assert [c.name for c in report.classes] == list(CLASSES) and report.n_failures == 11
    by = {c.name: c for c in report.classes}
    assert by["no_suitable_tool"].share == 2 / 11
    assert dict(by["not_retrieved_or_cut"].by_reason) == {
        "search_after_failed_call": 1, "filtered_out": 1}
    assert by["not_retrieved_or_cut"].by_tool == (("jira.create_issue", 1),)
    assert by["returned_too_little"].by_tool == (("github.list_commits", 1),)
    assert by["returned_too_little"].examples[0].request_id == "r7"
    assert by["denied"].by_tool == (("k8s.delete_pod", 1),)
    assert dict(by["denied"].by_reason) == {"deny": 1}
    assert dict(by["declined_or_dry_run"].by_reason) == {"needs_confirmation": 1}
    assert by["downstream_error"].by_server == (("github", 1),)
    assert by["invoked_wrongly"].by_server == (("slack", 1),)
    assert by["tool_error"].by_tool == (("github.compare_commits", 1),
                                        ("gitlab.list_commits", 1))
    assert dict(report.buckets) == {
        "2025-06-01": (("no_suitable_tool", 1), ("not_retrieved_or_cut", 2),
                       ("invoked_wrongly", 1), ("declined_or_dry_run", 1),
                       ("downstream_error", 1), ("tool_error", 2), ("returned_too_little", 1)),
        "2025-06-02": (("no_suitable_tool", 1), ("denied", 1)),
    }
    hours = diagnose(records(), by="hour").to_dict()["buckets"]
    assert {p: sum(c.values()) for p, c in hours.items()} == {
        "2025-06-01T09:00Z": 9, "2025-06-02T14:00Z": 2}


def test_a_narrower_window_drops_the_follow_ups():
    # r3 came 25 s after the failed call and r7 30 s after the ok call: neither within 20 s
    counts = {c.name: c.count for c in diagnose(records(), window_s=20).classes}
    assert counts == {**COUNTS, "not_retrieved_or_cut": 1, "returned_too_little": 0}


def test_without_sessions_nothing_is_a_follow_up():
    """The same lines written before `session` existed: no re-search can be seen."""
    old = [{k: v for k, v in r.items() if k != "session"} for r in RECORDS]
    counts = {c.name: c.count for c in diagnose(records(old)).classes}
    assert counts == {**COUNTS, "not_retrieved_or_cut": 1, "returned_too_little": 0}
    assert dict(diagnose(records(old)).classes[1].by_reason) == {"no_search": 1}


@pytest.mark.parametrize(
    ("tool_id", "reason"),
    [("jira.create_issue", "filtered_out"), ("github.x", "not_retrieved"),
     ("gitter.post", "cut_from_menu"), ("teams.post_message", "on_menu_not_active")],
)
def test_a_gate_refusal_says_where_the_last_search_lost_the_tool(tool_id, reason):
    found = search("s", "C", DAY1 + "00:00Z", "post hi on slack",
                   retrieved=["slack.post_message", "teams.post_message", "gitter.post",
                              "jira.create_issue"],
                   filtered=["slack.post_message", "teams.post_message", "gitter.post"],
                   menu=["slack.post_message", "teams.post_message"])
    refused = {**GATE, "session": "C", "tool_id": tool_id}
    (failure,) = classify(records([found, refused]))
    assert (failure.kind, failure.reason, failure.tool_id) == (
        "not_retrieved_or_cut", reason, tool_id)


def test_labeled_queries_give_the_losses_by_stage(files):
    queries = load_queries(files[1], strict=True).items
    losses = diagnose(records(), labeled=queries).losses
    assert (losses.n_queries, losses.n_matched, losses.n_requests) == (6, 5, 5)
    chain = losses.chain
    assert chain["n_items"] == 6
    assert [chain[f"lost_{s}"] for s in ("decompose", "retrieve", "filter", "menu", "select")] \
        == [0, 1, 1, 1, 1]
    assert chain["r_retrieve"] == 5 / 6 and chain["r_select"] == 2 / 3
    assert chain["end_to_end"] == 2 / 6
    assert losses.lost_tools["select"] == (("teams.post_message", 1),)
    assert losses.lost_tools["retrieve"] == (("github.get_repo", 1),)
    assert losses.abstention["abstain_rate"] == 1.0
    assert losses.abstention["false_abstain_rate"] == 0.0


def test_cli_writes_json_and_prints_the_table(files, tmp_path):
    out = tmp_path / "report" / "diagnosis.json"
    result = CliRunner().invoke(app, ["diagnose", str(files[0]), "--labeled", str(files[1]),
                                      "--json", str(out), "--window-s", "120"])
    assert result.exit_code == 0, result.output
    assert "where the fix lives" in result.output and "invoked_wrongly" in result.output
    assert "on the menu, not chosen: 1 (teams.post_message 1)" in result.output
    report = json.loads(out.read_text())
    assert {k: v["count"] for k, v in report["classes"].items()} == COUNTS
    assert report["n_bad_lines"] == 0 and report["n_failures"] == 11
    assert report["classes"]["downstream_error"]["by_server"] == {"github": 1}
    assert report["labeled"]["lost"]["menu"]["tools"] == {"github.list_commits": 1}


def test_bad_lines_are_named_counted_and_skipped(capsys, tmp_path):
    path = tmp_path / "traces.jsonl"
    good = "".join(json.dumps(r) + "\n" for r in RECORDS)
    flat = json.dumps({"subgoal": "x", "tool_id": "a.b", "success": True})
    # line 15 a training event (no steps), line 16 a torn last line (a writer died mid-line)
    path.write_text(good + flat + "\n" + json.dumps(R1)[:40])
    out = tmp_path / "d.json"
    code = main(["diagnose", str(path), "--json", str(out)])
    _, err = capsys.readouterr()
    assert code == 0
    assert f"{path}:15: steps: missing" in err
    assert f"{path}:16: <json>: invalid JSON" in err
    assert "Traceback" not in err
    report = json.loads(out.read_text())
    assert report["n_bad_lines"] == 2 and report["n_records"] == 14
    assert {k: v["count"] for k, v in report["classes"].items()} == COUNTS
    code = main(["diagnose", str(path), "--strict"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith("toolsift: error: ") and ":15: steps" in err[-1]


def test_bad_options_and_a_missing_file_are_one_error_line(capsys, tmp_path, monkeypatch):
    assert main(["diagnose", str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl:0: <file>: not found" in capsys.readouterr().err
    assert main(["diagnose", str(tmp_path / "nope.jsonl"), "--by", "week"]) == 2
    assert "--by: 'week' is not day or hour" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as without the [train] extra
    assert main(["diagnose", str(tmp_path / "nope.jsonl"), "--plot", "x.png"]) == 2
    assert "needs matplotlib: pip install 'toolsift[train]'" in capsys.readouterr().err


def test_the_plot_is_a_png(files, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "diagnosis.png"
    assert main(["diagnose", str(files[0]), "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- policy outcomes: quarantined, not connected, denied ------------------------------

DAY3 = "2025-06-03T10:"
P1 = search("p1", "P", DAY3 + "00:00Z", "list commits in acme/web",
            retrieved=["github.list_commits"], filtered=["github.list_commits"],
            menu=["github.list_commits"])
P2 = search("p2", "P", DAY3 + "00:05Z", "post the list on #eng in slack",
            retrieved=["slack.post_message"], filtered=["slack.post_message"],
            menu=["slack.post_message"])
Q1 = search("q1", "Q", DAY3 + "01:00Z", "show the logs of the checkout pod",
            retrieved=["k8s.get_pod_logs", "k8s.rollback_deployment"],
            filtered=["k8s.get_pod_logs"], menu=["k8s.get_pod_logs"])
Q2 = search("q2", "Q", DAY3 + "01:40Z", "is the checkout rollout done",
            retrieved=["k8s.get_rollout_status"], filtered=["k8s.get_rollout_status"],
            menu=["k8s.get_rollout_status"])


def refused(rid, ts, tool_id, refusal=None):
    """A gate refusal (no search surfaced the tool), with the gateway's `refusal`."""
    line = {**GATE, "session": "Q", "request_id": rid, "ts": ts, "tool_id": tool_id}
    return {**line, "refusal": refusal} if refusal else line


POLICY_RECORDS = [
    P1,  # 1  -
    P2,  # 2  - : right after a search; before, search_again (p1's menu, nothing called)
    call(P1, DAY3 + "00:10Z", "github.list_commits", "ok"),  # 3  -
    call(P2, DAY3 + "00:20Z", "slack.post_message", "ok"),  # 4  -
    Q1,  # 5  -
    refused("g6", DAY3 + "01:05Z", "stripe.chg_rd", "quarantined"),  # 6  quarantined
    refused("g7", DAY3 + "01:10Z", "jira.create_issue", "not_connected"),  # 7  not_connected
    # 8  denied; without `refusal` it would read filtered_out by q1 (not_retrieved_or_cut)
    refused("g8", DAY3 + "01:15Z", "k8s.rollback_deployment", "denied"),
    # 9  not_connected: active, but its connection left the session (a scope error)
    {**call(Q1, DAY3 + "01:20Z", "k8s.get_pod_logs", "invalid_arguments"),
     "refusal": "not_connected"},
    {**call(Q1, DAY3 + "01:25Z", "k8s.get_pod_logs", "deny"), "refusal": "denied"},  # 10 denied
    Q2,  # 11 - : only policy refusals since q1, no re-search
    refused("g12", DAY3 + "01:45Z", "github.delete_repo"),  # 12 not_retrieved_or_cut
]
# 12 records: 4 searches (1 2 5 11), 8 calls; 6 failures: quarantined 1 (6), not_connected
# 2 (7, 9), denied 2 (8, 10), not_retrieved_or_cut 1 (12: q2 never retrieved it); the two
# searches of P and P's two ok calls are no failure, and q2 none either
POLICY_COUNTS = {**{name: 0 for name in CLASSES}, "quarantined": 1, "not_connected": 2,
                 "denied": 2, "not_retrieved_or_cut": 1}


def test_policy_refusals_are_their_own_classes(tmp_path):
    path = write_jsonl(tmp_path / "traces.jsonl", POLICY_RECORDS)
    out = tmp_path / "diagnosis.json"
    assert main(["diagnose", str(path), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert (report["n_records"], report["n_searches"], report["n_calls"]) == (12, 4, 8)
    assert {k: v["count"] for k, v in report["classes"].items()} == POLICY_COUNTS
    assert report["n_failures"] == 6
    classes = report["classes"]
    assert classes["quarantined"]["by_tool"] == {"stripe.chg_rd": 1}
    assert classes["not_connected"]["by_reason"] == {"invalid_arguments": 1, "not_available": 1}
    assert classes["denied"]["by_reason"] == {"deny": 1, "not_available": 1}
    assert classes["not_retrieved_or_cut"]["by_reason"] == {"not_retrieved": 1}
    # the same lines without `refusal` (an older gateway) read as before: the gate
    # refusals 6 7 8 12 blamed on retrieval, 9 invoked wrongly, 10 denied by its outcome;
    # and q2 (11) is then a re-search, after calls that failed for no known policy reason
    old = [{k: v for k, v in r.items() if k != "refusal"} for r in POLICY_RECORDS]
    counts = {c.name: c.count for c in diagnose(records(old)).classes}
    assert counts == {**{name: 0 for name in CLASSES}, "not_retrieved_or_cut": 5,
                      "invoked_wrongly": 1, "denied": 1}


def test_the_gateway_traces_why_policy_refused_a_call(fixture_bundle, fixture_cards, tmp_path):
    """The real gateway and selector in process (downstream servers faked): one tool
    quarantined, jira not connected, one tool on the denylist; its trace file, read by
    `diagnose`, counts one of each and blames retrieval for none."""
    import anyio
    import mcp_types as types

    from serving.bundle.files import load_bundle
    from serving.calls.policy import RiskPolicy
    from serving.calls.tracelog import TraceWriter, read_trace_records
    from serving.gateway.config import parse_config
    from serving.gateway.handlers import Gateway
    from serving.gateway.index import LiveIndex
    from serving.gateway.registry import Registry, Route

    quarantined, denied = "stripe.chg_rd", "k8s.rollback_deployment"
    cards = {c.tool_id: c for c in fixture_cards if c.tool_id != quarantined}
    registry = Registry(cards=cards, routes={t: Route("main", t) for t in cards},
                        quarantined=((quarantined, "lint: injected_instruction"),))
    servers = {c.server for c in cards.values()} - {"jira"}

    class OneResult:
        down: dict[str, str] = {}

        async def call(self, server, name, args):
            return types.CallToolResult(content=[types.TextContent(type="text", text="[1]")])

    config = parse_config({"mcpServers": {"main": {"command": "x"}},
                           "session": {"connections": sorted(servers)}})
    traces = tmp_path / "traces.jsonl"
    gateway = Gateway(config, OneResult(), traces=TraceWriter(traces))
    index = LiveIndex(load_bundle(fixture_bundle),
                      policy=RiskPolicy.from_dict({"denylist": [denied]}))
    gateway.install(registry, index.selector(registry))
    state = gateway.session("test")

    async def nobody(message: str) -> None:
        return None

    async def scenario() -> list[dict]:
        await gateway.search_tools(state, "list commits in acme/web")
        await gateway.search_tools(state, "show the logs of the checkout pod")
        return [await gateway.call(state, tool_id, args, nobody) for tool_id, args in (
            ("github.list_commits", {"repo": "acme/web"}),
            (quarantined, {}),
            ("jira.create_issue", {"summary": "x"}),
            (denied, {"deployment": "checkout"}),
        )]

    ok, *refusals = anyio.run(scenario)
    assert ok["status"] == "ok"
    assert [(r["error"], r["reason"]) for r in refusals] == [
        ("tool_not_available", "quarantined"), ("tool_not_available", "not_connected"),
        ("tool_not_available", "denied")]
    assert gateway.describe_tool(state, quarantined)["error"] == "quarantined"
    lines = list(read_trace_records(traces))
    assert [r.get("refusal") for r in lines] == [
        None, None, None, "quarantined", "not_connected", "denied"]
    report = diagnose([TraceRecord.from_dict(r) for r in lines])
    assert {c.name: c.count for c in report.classes} == {
        **{name: 0 for name in CLASSES}, "quarantined": 1, "not_connected": 1, "denied": 1}

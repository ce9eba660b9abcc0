"""The feedback loop's parts: the simulated agent's chooser and arguments by hand, and one
round through a real gateway whose traces carry the judged downstream's verdicts."""

from __future__ import annotations

import json
import random
import sys

import anyio
import pytest
from test_gateway import ENV, write_catalog

from serving.calls.tracelog import read_trace_records
from serving.calls.validate import schema_errors
from serving.model.io import load_traces
from serving.model.schema import LabeledQuery, Trace
from training.loop.agent import AgentRequest, Chooser, arguments
from training.loop.round import RoundStats, Turn, run_round
from training.loop.world import build_loop_world


class Draws:
    """A stand-in for random.Random whose draws are given."""

    def __init__(self, *values: float) -> None:
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


def test_the_chooser_prefers_the_right_tool_the_higher_it_is_listed():
    chooser = Chooser(p_first=0.9, decay=0.5)
    menu = ("a.x", "b.y", "c.z")
    assert chooser.choose(menu, {"a.x"}, Draws(0.89)) == "a.x"  # 0.89 < 0.9
    assert chooser.choose(menu, {"a.x"}, Draws(0.91)) == "a.x"  # missed: the first anyway
    assert chooser.choose(menu, {"c.z"}, Draws(0.2)) == "c.z"  # 0.2 < 0.9 * 0.25
    assert chooser.choose(menu, {"c.z"}, Draws(0.3)) == "a.x"
    assert chooser.choose(menu, {"q.q"}, Draws()) == "a.x"  # no right tool in view
    assert chooser.choose((), {"a.x"}, Draws()) is None


def test_arguments_fill_what_the_schema_requires():
    schema = {"type": "object", "properties": {
        "repo": {"type": "string"}, "n": {"type": "integer", "minimum": 3},
        "state": {"type": "string", "enum": ["open", "closed"]},
        "tags": {"type": ["null", "array"]}, "page": {"type": "integer"}},
        "required": ["repo", "n", "state", "tags"], "additionalProperties": False}
    args = arguments(schema)
    assert args == {"repo": "demo", "n": 3, "state": "open", "tags": []}
    assert not schema_errors(schema, args)


def test_round_stats_by_hand():
    turns = [Turn("r1", ("a", "b"), "a", True, "v1", True, False),
             Turn("r2", (), None, None, "v1", False, True),
             Turn("r3", ("c",), "c", False, "v2", True, True),
             Turn("r4", ("d", "e", "f"), "d", False, "v2", False, False)]
    stats = RoundStats.of(turns)
    assert (stats.success, stats.gold_on_menu, stats.menu_length, stats.abstained) == (
        0.25, 0.5, 1.5, 0.25)
    assert stats.new_tool_on_menu == 0.5 and stats.bundle_versions == ("v1", "v2")


def test_the_loop_world_slices_schedules_and_draws_by_hand(fixture_cards):
    def trace(tool_id, text, ok=True, request=None):
        return Trace(subgoal=text, tool_id=tool_id, success=ok, request=request or text)

    traces = [trace("github.list_commits", f"list commits {i}") for i in range(3)]
    traces += [trace("pagerduty.list_incidents", "open incidents?"),
               trace("pagerduty.list_incidents", "which incidents are open", ok=False),
               trace("slack.post_message", "say hi on slack"),
               trace("slack.post_message", "part one", request="part one and part two"),
               trace("jira.create_issue", "file a bug")]
    queries = [LabeledQuery("q1", "compare two commits", ("github.compare_commits",)),
               LabeledQuery("q2", "file a bug", ("jira.create_issue",)),
               LabeledQuery("q3", "hello", ())]
    world = build_loop_world(fixture_cards, traces, queries, n_servers=2, join_rounds=1,
                             change_round=1, seed=3)
    # github (3 traces) and pagerduty (2) are the busiest; pagerduty's one tool is new
    assert {c.server for c in world.cards} == {"github", "pagerduty"}
    assert world.new_tools() == {"pagerduty.list_incidents"}
    assert "pagerduty.list_incidents" not in {c.tool_id for c in world.catalog(0)}
    assert "pagerduty.list_incidents" in {c.tool_id for c in world.catalog(1)}
    # one-step requests that succeeded; the failed one and the multi-step one are out
    assert sorted(r.text for r in world.pool) == ["list commits 0", "list commits 1",
                                                  "list commits 2", "open incidents?"]
    assert [q.query_id for q in world.eval] == ["q1"]  # gold in the slice; no-tool out
    assert world.edits(0) == {} and list(world.edits(1)) == ["github.list_commits"]
    round0 = world.traffic(0, 2, random.Random(0))
    assert len(round0) == 2 and all(not r.new_tool for r in round0)
    round1 = world.traffic(1, 2, random.Random(0))
    assert any(r.new_tool and r.text == "open incidents?" for r in round1)  # always in
    assert len({r.request_id for r in round1}) == 2


@pytest.fixture(scope="module")
def loop_world(tmp_path_factory, fixture_bundle, fixture_cards):
    root = tmp_path_factory.mktemp("loop")
    cards = [c for c in fixture_cards if c.server in ("github", "slack", "k8s")]
    catalog = write_catalog(root / "cards.jsonl", cards)
    judge = root / "judge.json"
    server = {"command": sys.executable,
              "args": ["-m", "training.loop.server", "--catalog", str(catalog),
                       "--judge", str(judge)],
              "env": ENV, "tool_names": "qualified", "trust": "first_party"}
    config = root / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"world": server},
                                  "policy": {"by_risk": {"write": "allow",
                                                         "destructive": "allow"}}}))
    return {"root": root, "config": config, "judge": judge, "bundle": fixture_bundle,
            "cards": cards}


def test_a_round_through_the_gateway_traces_the_worlds_verdicts(loop_world):
    traces = loop_world["root"] / "round0.jsonl"
    requests = [
        AgentRequest("q1", "post a message to the payments channel on slack",
                     frozenset({"slack.post_message"})),
        AgentRequest("q2", "list the recent commits of acme/web on github",
                     frozenset({"github.list_commits"})),
        AgentRequest("q3", "show the logs of the checkout pod", frozenset({"k8s.get_pod_logs"})),
        # the right tool is not served: whatever is called, the world says it failed
        AgentRequest("q4", "open a jira ticket for the outage", frozenset({"jira.create_issue"}),
                     new_tool=True),
    ]
    args = ["serve", "--bundle", str(loop_world["bundle"]), "--config",
            str(loop_world["config"]), "--traces", str(traces)]
    turns = anyio.run(lambda: run_round(args, requests, loop_world["judge"],
                                        chooser=Chooser(p_first=1.0, decay=1.0), env=ENV))
    assert [t.request_id for t in turns] == ["q1", "q2", "q3", "q4"]
    for turn, req in zip(turns, requests, strict=True):
        if turn.chosen is not None:
            assert turn.success == (turn.chosen in req.gold)
    assert turns[3].success in (False, None) and not turns[3].gold_on_menu
    assert not loop_world["judge"].exists()
    # the gateway's own lines hold the same verdicts, and they load as training events
    called = [r for r in read_trace_records(traces) if r["outcome"] in ("ok", "tool_error")]
    verdicts = {next(s["tool_id"] for s in r["steps"] if s["tool_id"]): r["outcome"] == "ok"
                for r in called}
    assert verdicts == {t.chosen: t.success for t in turns if t.chosen is not None}
    assert set(verdicts.values()) == {True, False}  # the world said yes and no
    events = load_traces(traces, known_tools=[c.tool_id for c in loop_world["cards"]]).items
    assert {(e.tool_id, e.success) for e in events} == set(verdicts.items())
    stats = RoundStats.of(turns)
    assert stats.gold_on_menu >= 0.5 and stats.bundle_versions[0].startswith("b-")

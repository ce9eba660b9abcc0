"""The stock no-tool decision: public requests read with provenance, the request-intent
head (a file that round-trips, refuses a foreign encoder), the stock model's fit and the
fold that judges a held-out source, all on tiny hand-made data."""

import gzip
import json
from dataclasses import replace

import numpy as np
import pytest

from serving.stages.abstain import SIGNAL_NAMES
from serving.stages.intent import PROBE, IntentError, RequestIntent
from training.no_tool.fit import IntentExample, fit_policy, judge_fold
from training.no_tool.public_requests import load_requests, source_group
from training.no_tool.replay import INTENT, ReplayedRequest, abstains, with_intent


def test_source_groups_join_the_files_of_one_directory():
    assert source_group("suzgunmirac/BIG-Bench-Hard:bbh/navigate.json") == (
        "suzgunmirac/BIG-Bench-Hard:bbh/")
    assert source_group("suzgunmirac/BIG-Bench-Hard:bbh/snarks.json") == (
        "suzgunmirac/BIG-Bench-Hard:bbh/")
    assert source_group("clinc/oos-eval:data/data_full.json") == "clinc/oos-eval:data/"
    assert source_group("owner/repo:top.jsonl") == "owner/repo:top.jsonl"


def test_public_requests_are_read_with_their_source_and_bad_rows_are_named(tmp_path):
    (tmp_path / "no_tool.jsonl").write_text(
        json.dumps({"query_id": "a", "query": " tell me a joke ", "family": "small_talk",
                    "source": "o/r:d/f.json"}) + "\n"
        + "{not json\n"
        + json.dumps({"query_id": "b", "query": "", "source": "o/r:d/f.json"}) + "\n")
    (tmp_path / "needs_tool.jsonl").write_text(
        json.dumps({"query_id": "c", "query": "refund order 1182", "apis": ["x"],
                    "source": "o/t:g.json"}) + "\n")
    got = load_requests(tmp_path)
    assert [(r.query_id, r.text, r.needs_tool, r.group) for r in got.requests] == [
        ("a", "tell me a joke", False, "o/r:d/"), ("c", "refund order 1182", True, "o/t:g.json")]
    assert got.refused == (f"{tmp_path / 'no_tool.jsonl'}:2: <json>: invalid JSON: Expecting "
                           "property name enclosed in double quotes at column 2",
                           f"{tmp_path / 'no_tool.jsonl'}:3: query: missing or empty")
    assert got.groups(needs_tool=False) == ["o/r:d/"] and set(got.sha256) == {
        "no_tool.jsonl", "needs_tool.jsonl"}
    with pytest.raises(FileNotFoundError, match="public no-tool set"):
        load_requests(tmp_path / "nowhere")


def test_a_request_names_its_tool_absent_only_by_function_apis_no_server_matches(tmp_path):
    rows = [{"query_id": "f", "query": "is today a holiday", "api_type": "function",
             "apis": ["Nager.Date.PublicHolidays"], "source": "o/t:a.json"},
            {"query_id": "i", "query": "book a flight", "api_type": "intent_label",
             "apis": ["book_flight"], "source": "o/c:b.json"},
            {"query_id": "x", "query": "add alarm", "api_type": "function",
             "apis": "AddAlarm", "source": "o/t:a.json"}]
    (tmp_path / "no_tool.jsonl").write_text("")
    (tmp_path / "needs_tool.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = load_requests(tmp_path)
    by_id = {r.query_id: r for r in got.requests}
    assert by_id["f"].apis == ("Nager.Date.PublicHolidays",) and by_id["i"].apis == ()
    assert got.refused == (f"{tmp_path / 'needs_tool.jsonl'}:3: apis: not a list of names",)
    assert by_id["f"].absent_from(["github", "slack"])
    assert not by_id["f"].absent_from(["nager_date"])  # the catalog has that server
    assert not by_id["i"].absent_from(["github"])  # an intent label names no tool


class _Fixed:
    """An encoder that embeds PROBE as `vector`."""

    model_path = "fixed"

    def __init__(self, vector):
        self.vector = np.asarray(vector, dtype=np.float32)

    def encode(self, texts, **_):
        return np.stack([self.vector for _ in texts])


def test_the_intent_head_round_trips_byte_identical_and_refuses_another_encoder(tmp_path):
    probe = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    head = RequestIntent(np.array([1.0, -2.0, 0.5], dtype=np.float32), 0.25, probe,
                         (("public", "x"),))
    np.testing.assert_allclose(head.logits(np.array([[1.0, 1.0, 2.0]])), [1 - 2 + 1 + 0.25])
    head.save(tmp_path / "a.json.gz")
    again = RequestIntent.load(tmp_path / "a.json.gz")
    again.save(tmp_path / "b.json.gz")
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()
    assert again.accepts(_Fixed(probe)) and not again.accepts(_Fixed([0.0, 0.0, 1.0]))
    (tmp_path / "bad.json.gz").write_bytes(gzip.compress(json.dumps(
        {"format_version": 1, "probe": [1, 0], "weights": [1, 2, 3], "bias": 0}).encode()))
    with pytest.raises(IntentError, match="weights for a probe"):
        RequestIntent.load(tmp_path / "bad.json.gz")
    with pytest.raises(IntentError, match="cannot read"):
        RequestIntent.load(tmp_path / "missing.json.gz")
    assert PROBE  # the probe sentence is fixed: changing it orphans every shipped head


def _req(qid, group, served, half, intent_texts, cos, catalog="c", exact=False):
    x = np.zeros((len(intent_texts), len(SIGNAL_NAMES)))
    x[:, SIGNAL_NAMES.index("top_cosine")] = cos
    return ReplayedRequest(catalog, qid, group, served, half, x, tuple(intent_texts),
                           tuple(exact for _ in intent_texts))


def test_with_intent_fills_the_intent_column_per_step():
    row = _req("q", "g", False, "fit", ["a", "b"], 0.3)
    x = with_intent([row], {"a": 1.5, "b": -2.0})[0]
    assert x[:, INTENT].tolist() == [1.5, -2.0] and row.signals[:, INTENT].tolist() == [0, 0]


def test_a_fold_judges_the_held_out_source_on_a_head_and_model_fit_without_it():
    # two dimensions: "asks for a tool" along the first; cosine separates too
    vectors = {PROBE: np.array([0.0, 1.0])}
    examples, rows = [], []
    rng = np.random.default_rng(0)
    for i in range(40):
        for group, served, sign in (("tools", True, 1.0), ("chat", False, -1.0),
                                    ("math", False, -1.0)):
            text = f"{group}-{i}"
            vectors[text] = np.array([sign * (1 + rng.random()), rng.normal()])
            examples.append(IntentExample(text, served, group))
            half = "judge" if served and i % 2 else "fit"
            rows.append(_req(text, group, served, half, [text], 0.6 if served else 0.2))
    # a tool request of the held-out source that this catalog lacks: fit-only, never judged
    rows.append(replace(_req("math-absent", "math", False, "fit", ["tools-0"], 0.6),
                        tool_absent=True))
    fold = judge_fold("math", examples, rows, vectors, vectors[PROBE], ["request_intent"],
                      l2_intent=1.0, l2=1.0, max_false=0.0, provenance={})
    assert fold.head.weights[0] > 0  # the head reads the direction
    assert fold.abstain == {"c": 1.0} and fold.n == {"c": 40}  # math, never fit on
    assert fold.false_abstain["c"] <= 0.1  # the judge half: no fit saw it
    # a step naming a tool exactly never abstains, whatever its signals
    exact = _req("x", "math", False, "fit", ["math-0"], 0.2, exact=True)
    assert not abstains(fold.model, [exact], with_intent([exact], {"math-0": -9.0}))[0]


def test_the_stock_model_threshold_keeps_the_served_fit_side():
    rows = [_req(f"s{i}", "own", True, "fit", ["t"], 0.3 + 0.05 * i) for i in range(10)]
    rows += [_req(f"n{i}", "pub", False, "fit", ["t"], 0.1 + 0.02 * i) for i in range(10)]
    model = fit_policy(rows, [r.signals for r in rows], ["top_cosine"], l2=1.0, max_false=0.1)
    probs = [model.probabilities(r.signals).max() for r in rows[:10]]
    assert sum(p < model.threshold for p in probs) <= 1  # at most 10% of 10 served
    assert model.signals == ("top_cosine",) and model.weights[0] > 0
    with pytest.raises(ValueError, match="served and no-tool"):
        fit_policy(rows[:10], [r.signals for r in rows[:10]], ["top_cosine"], l2=1.0,
                   max_false=0.1)

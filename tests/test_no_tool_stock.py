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
from serving.stages.logistic import LogisticFit
from training.no_tool.fit import (
    OFFERED_CATALOG,
    IntentExample,
    PairData,
    fit_pair,
    fit_policy,
    judge_fold,
    offered_pair_examples,
    pair_column,
)
from training.no_tool.offered import OfferedRequest
from training.no_tool.public_requests import load_requests, source_group
from training.no_tool.replay import INTENT, PAIR, ReplayedRequest, abstains, with_intent


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
    # a catalog with no served fit rows is judged only: its no-tool rows, which would teach
    # the model its scales as "not served", change nothing in the fit
    judged_only = [replace(r, catalog="other") for r in rows if not r.served]
    both = judge_fold("math", examples, rows + judged_only, vectors, vectors[PROBE],
                      ["request_intent"], l2_intent=1.0, l2=1.0, max_false=0.0, provenance={})
    assert both.model == fold.model and both.n == {"c": 40, "other": 40}


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


def test_the_pair_head_round_trips_and_a_head_without_one_still_reads(tmp_path):
    probe = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    pair = np.array([1.0, 0.0, 0.0, 0.0, -1.0, 0.0], dtype=np.float32)
    head = RequestIntent(np.zeros(3, dtype=np.float32), 0.0, probe, (), pair, 0.1)
    # u = e0, v = (0.6, 0.8, 0): u * v = (0.6, 0, 0), |u - v| = (0.4, 0.8, 0)
    got = head.pair_logits(np.array([1.0, 0.0, 0.0]), np.array([[0.6, 0.8, 0.0], [1, 0, 0]]))
    np.testing.assert_allclose(got, [0.6 - 0.8 + 0.1, 1.0 - 0.0 + 0.1], atol=1e-6)
    head.save(tmp_path / "h.json.gz")
    again = RequestIntent.load(tmp_path / "h.json.gz")
    np.testing.assert_array_equal(again.pair_weights, pair)
    assert again.pair_bias == pytest.approx(0.1)
    # a head of format 1 (no pair head) still loads and scores every pair 0
    (tmp_path / "v1.json.gz").write_bytes(gzip.compress(json.dumps(
        {"format_version": 1, "probe": [1, 0], "weights": [1, 2], "bias": 0}).encode()))
    old = RequestIntent.load(tmp_path / "v1.json.gz")
    assert old.pair_weights is None and old.pair_logits(np.ones(2), np.ones((3, 2))).tolist() == [
        0, 0, 0]
    (tmp_path / "bad.json.gz").write_bytes(gzip.compress(json.dumps(
        {"format_version": 2, "probe": [1, 0], "weights": [1, 2], "bias": 0,
         "pair_weights": [1, 2, 3]}).encode()))
    with pytest.raises(IntentError, match="pair weights"):
        RequestIntent.load(tmp_path / "bad.json.gz")


def _pair_row(qid, group, served, half, request, tops, gold=(), catalog="c"):
    x = np.zeros((len(tops), len(SIGNAL_NAMES)))
    return ReplayedRequest(catalog, qid, group, served, half, x,
                           tuple(request if len(tops) == 1 else f"{request}#{i}"
                                 for i in range(len(tops))),
                           tuple(False for _ in tops), request=request, tops=tuple(tops),
                           gold=tuple(gold))


def test_the_pair_column_is_each_steps_best_tool_by_hand():
    data = PairData.build({"r": np.array([1.0, 0.0])},
                          {"c": {"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])}})
    head = LogisticFit(np.array([2.0, 0.0, 0.0, -1.0]), -0.5)  # 2 u0 v0 - |u1 - v1| - 0.5
    row = _pair_row("q", "g", False, "fit", "r", [("b", "a"), ("b",), ()])
    # step 1: max(a: 2 - 0 - 0.5, b: 0 - 1 - 0.5); step 2: b alone; step 3: no tool -> 0
    np.testing.assert_allclose(pair_column(head, [row], data)[0], [1.5, -1.5, 0.0])
    x = with_intent([row], {t: 0.0 for t in row.texts}, [np.array([1.5, -1.5, 0.0])])[0]
    assert x[:, PAIR].tolist() == [1.5, -1.5, 0.0]


def test_a_fold_with_the_pair_head_reads_the_request_against_its_tools():
    # every request looks alike to the intent head and every top cosine is the same: only
    # the pair (request and tool pointing the same way) tells served from not
    rng = np.random.default_rng(1)
    unit = np.eye(4)
    vectors = {PROBE: unit[3]}
    cards = {"c": {f"t{k}": unit[k] for k in range(3)}}
    examples, rows = [], []
    for i in range(60):
        for group, served in (("tools", True), ("chat", False), ("math", False)):
            k = i % 3
            text = f"{group}-{i}"
            # a served request points at its gold tool; the others across it
            base = unit[k] if served else unit[(k + 1) % 3]
            vectors[text] = base + 0.1 * rng.normal(size=4)
            examples.append(IntentExample(text, True, group))
            examples.append(IntentExample(f"other-{group}-{i}", False, "filler"))
            vectors[f"other-{group}-{i}"] = rng.normal(size=4)
            half = "judge" if served and i % 2 else "fit"
            rows.append(_pair_row(text, group, served, half, text, [(f"t{k}",)],
                                  gold=(f"t{k}",) if served else ()))
    fold = judge_fold("math", examples, rows, vectors, vectors[PROBE], ["pair_served"],
                      l2_intent=1.0, l2=1.0, max_false=0.0, provenance={},
                      pairs=PairData.build({r.request: vectors[r.request] for r in rows}, cards),
                      l2_pair=1.0)
    assert fold.head.pair_weights is not None and fold.head.pair_weights.shape == (8,)
    assert fold.abstain == {"c": 1.0} and fold.false_abstain["c"] <= 0.1


def test_offered_pairs_teach_the_pair_head_a_near_miss():
    # replayed rows alone: a request pointing along a card is served by it. The offered
    # pairs add a source's near miss: requests along t1 are never served by t1
    unit = np.eye(3)
    data = PairData.build(
        {"r0": unit[0], "r1": unit[1], "o1": unit[1] * 0.9 + unit[2] * 0.1, "o0": unit[0]},
        {"c": {"t0": unit[0], "t1": unit[1]},
         OFFERED_CATALOG + "f": {"card-t1": unit[1], "card-t0": unit[0]}})
    rows = [_pair_row("a", "g", True, "fit", "r0", [("t0",)], gold=("t0",)),
            _pair_row("b", "g", True, "fit", "r1", [("t1",)], gold=("t1",)),
            _pair_row("c", "g", False, "fit", "r0", [("t1",)]),
            _pair_row("d", "g", False, "fit", "r1", [("t0",)])]
    offered = [OfferedRequest("f", "o1", "o1", False, ("card-t1",), (False,)),
               OfferedRequest("f", "o0", "o0", True, ("card-t0",), (True,))]
    extra = offered_pair_examples(offered, data)
    assert [data.card_row[(OFFERED_CATALOG + "f", t)] for t in ("card-t1", "card-t0")] \
        == extra[1].tolist() and extra[2].tolist() == [0.0, 1.0]
    request, card = np.array([data.request_row["r1"]]), np.array([data.card_row[("c", "t1")]])
    plain = fit_pair(rows, data, l2=0.1)
    taught = fit_pair(rows, data, l2=0.1, extra=(np.repeat(extra[0], 20),
                                                   np.repeat(extra[1], 20),
                                                   np.repeat(extra[2], 20)))
    assert data.logits(taught, request, card)[0] < data.logits(plain, request, card)[0] - 1.0


def test_the_runtime_pair_signal_reads_the_whole_request_against_each_steps_first_tools(
        fixture_bundle):
    from serving.selector import Selector
    from serving.stages.intent import PAIR_TOP

    selector = Selector.from_bundle(fixture_bundle, overrides={"menu_policy": False})
    scorer = selector.intent()
    assert scorer is not None
    weights = np.random.default_rng(0).normal(size=2 * len(scorer.head.probe))
    selector.use_intent(replace(scorer, head=replace(
        scorer.head, pair_weights=weights.astype(np.float32), pair_bias=0.5)))
    found = selector.discover("list the recent commits of the repo and post them to the "
                              "slack channel")
    assert len(found.steps) >= 2  # each step reads the request, not its own text
    request = scorer.stock_vectors([found.request.strip()], selector.encoder)[0]
    for step in found.steps:
        assert 0 < len(step.pair_tools) <= PAIR_TOP
        cards = scorer.stock_vectors([selector.cards[t].index_text() for t in step.pair_tools],
                                     selector.encoder)
        expected = replace(scorer.head, pair_weights=weights, pair_bias=0.5).pair_logits(
            request, cards).max()
        assert step.signals[PAIR] == pytest.approx(expected, abs=0.05)


def test_the_bundles_card_vectors_are_read_not_embedded(tmp_path, fixture_cards):
    from types import SimpleNamespace

    from serving.stages.intent import (
        BUNDLE_CARD_VECTORS,
        SHIPPED_INTENT,
        IntentScorer,
        card_key,
        load_card_vectors,
    )

    class Counting:  # a stand-in stock encoder that counts what it is asked to embed
        key = "stub"

        def __init__(self):
            self.texts: list[str] = []

        def encode(self, texts, *, show_progress=False):
            self.texts += list(texts)
            return np.full((len(texts), 3), 9.0, dtype=np.float32)

    known, new = list(fixture_cards[:2]), fixture_cards[2]
    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    (tmp_path / BUNDLE_CARD_VECTORS).parent.mkdir(parents=True)
    np.save(tmp_path / BUNDLE_CARD_VECTORS, vectors)
    bundle = SimpleNamespace(root=tmp_path, cards=tuple(known))
    loaded = load_card_vectors(bundle)
    assert set(loaded) == {card_key(c) for c in known}
    encoder = Counting()
    head = RequestIntent.load(SHIPPED_INTENT)
    scorer = IntentScorer(head, encoder, loaded).with_encoder(encoder)
    got = scorer.card_vectors([known[1], new, known[0]])
    assert got.tolist() == [[3, 4, 5], [9, 9, 9], [0, 1, 2]]
    assert encoder.texts == [new.index_text()]  # only the card the bundle does not hold
    with pytest.raises(IntentError, match="2 vectors for 3 cards"):
        load_card_vectors(SimpleNamespace(root=tmp_path, cards=tuple(fixture_cards[:3])))
    assert load_card_vectors(None) == {}


def test_the_heads_read_the_lint_encoders_int8_graph_when_its_probe_lands_near(tmp_path):
    from types import SimpleNamespace

    from serving.bundle.cached_encoder import CachedEncoder
    from serving.bundle.encoder import stock_model_path
    from serving.bundle.onnx_models import ONNX_DIR, ONNX_FILES, OnnxEncoder
    from serving.catalog.meaning_check import LINT_ENCODER_DIR
    from serving.stages.intent import INT8_PROBE_MIN_COSINE, SHIPPED_INTENT, int8_sibling
    from training.release.onnx_export import export_onnx

    # a bundle as the head sees one: its root, and a check that vets each file it reads
    vetted = []
    bundle = SimpleNamespace(root=tmp_path, weights=SimpleNamespace(
        check=lambda path: vetted.append(path.name) or path))
    head = RequestIntent.load(SHIPPED_INTENT)
    assert int8_sibling(bundle, head) is None  # no lint encoder
    lint_dir = tmp_path / LINT_ENCODER_DIR
    out = export_onnx(stock_model_path(), "bi_encoder", out_dir=lint_dir / ONNX_DIR)
    assert head.accepts(OnnxEncoder(lint_dir))  # the fp32 graph: the head's own encoder
    int8 = int8_sibling(bundle, head, threads=1)
    assert isinstance(int8, CachedEncoder) and int8.key.endswith("@onnx-int8")
    assert ONNX_FILES["int8"] in vetted  # hash-checked like every file of a bundle
    assert float(int8.encode([PROBE])[0] @ head.probe) >= INT8_PROBE_MIN_COSINE
    assert int8_sibling(bundle, replace(head, probe=-head.probe)) is None  # another model's
    (out / ONNX_FILES["int8"]).unlink()  # a bundle exported before it: fp32, as before
    assert int8_sibling(bundle, head) is None

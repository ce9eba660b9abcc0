"""Dynamic batching of the gateway's encoders (`serving.gateway.batching`) on the fixture
bundle's real ONNX retriever: callers on many threads get exactly the rows they would get
alone, an error reaches only the caller whose text raised it, nothing is lost when the
batcher closes, and a Selector over a batched encoder discovers what an unbatched one does.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from serving.bundle.cached_encoder import CachedEncoder
from serving.bundle.files import load_bundle
from serving.bundle.onnx_models import OnnxEncoder, length_groups
from serving.gateway.batching import BatchingEncoder, BatchSettings
from serving.gateway.config import ConfigError, parse_config
from serving.gateway.index import LiveIndex, batching_pays
from serving.gateway.registry import Registry
from serving.gateway.server import batch_settings

# lengths from 1 to ~40 tokens: in a batch the short ones are padded to the longest
TEXTS = [
    "refund",
    "list the open pull requests of a repository",
    "post a message to the team channel about the outage in the payments service "
    "and ask who is on call tonight, then link the incident",
    "search code for TODO",
    "what incidents are open",
    "show failing pods in staging",
    "create a jira issue for the login bug reported by the customer yesterday",
    "export payouts",
]
WIDE = BatchSettings(max_batch=64, window_s=0.05)  # long enough that the threads meet


@pytest.fixture(scope="module")
def onnx_encoder(fixture_bundle) -> OnnxEncoder:
    return OnnxEncoder(fixture_bundle / "models" / "retriever", threads=1)


def concurrently(fn, args: list) -> list:
    """`fn(arg)` for every arg, each on its own thread, released at once."""
    barrier = threading.Barrier(len(args))

    def call(arg):
        barrier.wait()
        return fn(arg)

    with ThreadPoolExecutor(len(args)) as pool:
        return list(pool.map(call, args))


def test_batched_rows_equal_the_rows_each_text_gets_alone(onnx_encoder):
    alone = [onnx_encoder.encode([t])[0] for t in TEXTS]
    batcher = BatchingEncoder(onnx_encoder, WIDE)
    try:
        got = concurrently(lambda t: batcher.encode([t]), TEXTS)
        stats = batcher.report()
    finally:
        batcher.close()
    for text, rows, want in zip(TEXTS, got, alone, strict=True):
        assert rows.shape == (1, want.shape[0]) and rows.dtype == np.float32
        np.testing.assert_allclose(rows[0], want, atol=1e-5, err_msg=text)
    # 8 callers, 8 texts, in fewer model calls than callers
    assert stats["calls"] == len(TEXTS) and stats["texts"] == len(TEXTS)
    assert stats["batches"] < len(TEXTS) and stats["max_batch"] > 1


def test_callers_with_several_texts_get_their_own_rows_in_order(onnx_encoder):
    groups = [TEXTS[0:3], TEXTS[3:4], TEXTS[4:8], TEXTS[2:0:-1]]
    batcher = BatchingEncoder(onnx_encoder, WIDE)
    try:
        got = concurrently(batcher.encode, groups)
    finally:
        batcher.close()
    for group, rows in zip(groups, got, strict=True):
        np.testing.assert_allclose(rows, onnx_encoder.encode(group), atol=1e-5)
    assert batcher.encode([]).shape == (0, got[0].shape[1])  # empty: the inner's empty shape


def test_no_model_call_holds_more_than_max_batch_texts(onnx_encoder):
    batcher = BatchingEncoder(onnx_encoder, BatchSettings(max_batch=3, window_s=0.05))
    try:
        got = concurrently(lambda t: batcher.encode([t, t]), TEXTS)  # 2 texts a caller
        whole = batcher.encode(TEXTS)  # a batch already: runs on this thread, not counted
        stats = batcher.report()
    finally:
        batcher.close()
    assert all(r.shape[0] == 2 for r in got) and whole.shape[0] == len(TEXTS)
    # two callers' 4 texts exceed 3: every model call held one caller's pair
    assert stats["sizes"] == {"2": len(TEXTS)}


def test_an_error_reaches_only_the_caller_whose_text_raised_it(onnx_encoder):
    batcher = BatchingEncoder(onnx_encoder, WIDE)
    bad = [None]  # the tokenizer refuses a text that is not a string

    def call(texts):
        try:
            return batcher.encode(texts)
        except TypeError as err:
            return err

    try:
        got = concurrently(call, [[TEXTS[0]], bad, [TEXTS[1]], bad])
        after = batcher.encode([TEXTS[2]])  # the thread survived the failure
    finally:
        batcher.close()
    assert isinstance(got[1], TypeError) and isinstance(got[3], TypeError)
    np.testing.assert_allclose(got[0][0], onnx_encoder.encode([TEXTS[0]])[0], atol=1e-5)
    np.testing.assert_allclose(got[2][0], onnx_encoder.encode([TEXTS[1]])[0], atol=1e-5)
    np.testing.assert_allclose(after[0], onnx_encoder.encode([TEXTS[2]])[0], atol=1e-5)


def test_close_answers_every_queued_caller_and_later_calls_run_unbatched(onnx_encoder):
    # a window far longer than the test: only close() can release the queued callers
    batcher = BatchingEncoder(onnx_encoder, BatchSettings(max_batch=64, window_s=60.0))
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(batcher.encode, [t]) for t in TEXTS[:4]]
        while batcher.report()["calls"] < 4:
            threading.Event().wait(0.01)
        batcher.close()
        got = [f.result(timeout=30) for f in futures]
    assert not batcher._thread.is_alive()
    assert batcher.report()["sizes"] == {"4": 1}
    for text, rows in zip(TEXTS, got, strict=False):
        np.testing.assert_allclose(rows[0], onnx_encoder.encode([text])[0], atol=1e-5)
    assert batcher.encode([TEXTS[5]]).shape[0] == 1  # closed: on this thread
    assert batcher.report()["calls"] == 4


def test_an_int8_graph_embeds_each_text_alone_so_it_is_not_batched(fixture_bundle):
    int8 = OnnxEncoder(fixture_bundle / "models" / "retriever", weights="int8", threads=1)
    # of similar length, so in one run of the graph (`length_groups`) they would share the
    # activation scales of the dynamic quantization
    text, other = TEXTS[1], "DELETE EVERY CLOSED MERGE REQUEST OF A PROJECT"
    alone = int8.encode([text])[0]
    session, tokenizer, settings = int8._load()
    both = tokenizer.encode_batch([text, other])
    feeds = {name: np.asarray([getattr(e, attr) for e in both], dtype=np.int64)
             for name, attr in (("input_ids", "ids"), ("attention_mask", "attention_mask"),
                                ("token_type_ids", "type_ids"))}
    in_company = session.run([settings["output"]], feeds)[0][0]
    assert np.abs(alone - in_company).max() > 1e-3  # why each text runs alone
    np.testing.assert_array_equal(int8.encode([text, other])[0], alone)
    assert not batching_pays(int8) and batching_pays(CachedEncoder(
        OnnxEncoder(fixture_bundle / "models" / "retriever")))


def test_batching_is_a_gateway_setting():
    servers = {"a": {"url": "http://127.0.0.1:9/mcp"}}
    default_config = parse_config({"mcpServers": servers})
    default = batch_settings(default_config)
    assert default.enabled and default.max_batch == 32 and default.window_s == 0.001
    off = batch_settings(parse_config({"mcpServers": servers, "gateway": {
        "encoder_batch": 1, "encoder_batch_window_ms": 5}}))
    assert not off.enabled and off.window_s == 0.005
    no_wait = batch_settings(parse_config({"mcpServers": servers, "gateway": {
        "encoder_batch_window_ms": 0}}))
    assert no_wait.enabled and no_wait.window_s == 0
    assert default_config.params.http_responses == "auto"  # a stream where a write asks
    for bad in ({"encoder_batch": 0}, {"encoder_batch_window_ms": -1},
                {"discovery_workers": 0}, {"http_responses": "xml"}):
        with pytest.raises(ConfigError, match=f"gateway.{next(iter(bad))}"):
            parse_config({"mcpServers": servers, "gateway": bad})
    with pytest.raises(ValueError):
        BatchSettings(max_batch=0)


@pytest.mark.parametrize("weights, batched_encoders", [
    ("fp32", ["encoder"]),  # the stock retriever: the intent head reads its vectors
    # the head rejects int8 and reads the fp32 graph too: that one is batched, the int8
    # retriever is not (its dynamic quantization makes a row depend on the batch)
    ("int8", ["intent"]),
])
def test_a_batched_selector_discovers_what_an_unbatched_one_does(
    fixture_bundle, weights, batched_encoders
):
    bundle = load_bundle(fixture_bundle)
    registry = Registry(cards={c.tool_id: c for c in bundle.cards})
    overrides = {"retriever_weights": weights}
    plain = LiveIndex(bundle, overrides=overrides).selector(registry)
    index = LiveIndex(bundle, overrides=overrides, batching=WIDE)
    try:
        batched = index.selector(registry)
        assert plain is not None and batched is not None
        got = concurrently(lambda t: batched.discover(t, None), TEXTS)
        report = index.batch_report()
    finally:
        index.close()
    for text, discovery in zip(TEXTS, got, strict=True):
        want = plain.discover(text, None)
        assert discovery.menu_ranked() == want.menu_ranked(), text
        for a, b in zip(discovery.steps, want.steps, strict=True):
            # the request-intent signal among them: the head read the same vectors
            np.testing.assert_allclose(a.signals, b.signals, atol=1e-4, err_msg=text)
    assert sorted(report) == batched_encoders
    for name in batched_encoders:
        assert report[name]["calls"] >= len(TEXTS) and report[name]["max_batch"] > 1, name


def test_the_load_benchmark_reports_the_batches_made_during_each_level():
    from training.checks.bench_gateway_load import batch_sizes

    before = {"batches": {"encoder": {"sizes": {"1": 3, "2": 1}}}}
    after = {"batches": {"encoder": {"sizes": {"1": 4, "2": 3, "5": 1}},
                         "intent": {"sizes": {"3": 2}}}}  # first seen in this level
    # encoder: one more batch of 1, two of 2, one of 5 -> 4 batches, 1 + 4 + 5 = 10 texts
    assert batch_sizes(before, after) == {
        "encoder": {"batches": 4, "mean_batch": 2.5, "max_batch": 5},
        "intent": {"batches": 2, "mean_batch": 3.0, "max_batch": 3},
    }
    assert batch_sizes(before, before) == {
        "encoder": {"batches": 0, "mean_batch": 0.0, "max_batch": 0}}


def test_the_load_benchmark_counts_cpu_per_answered_search():
    import sys

    from training.checks.bench_gateway_load import cpu_ms_per_search, process_cpu_s

    # 0.5 CPU seconds over 10 answered searches is 50 ms each
    assert cpu_ms_per_search(1.0, 1.5, 10) == 50.0
    assert cpu_ms_per_search(None, 1.5, 10) is None and cpu_ms_per_search(1.0, 1.5, 0) is None
    if sys.platform.startswith("linux"):
        spent = process_cpu_s(os.getpid())
        sum(i * i for i in range(300_000))  # some CPU of our own
        assert spent is not None and process_cpu_s(os.getpid()) >= spent
    assert process_cpu_s(2**22 + 12345) is None  # no such process


def test_the_gateway_embeds_every_live_card_for_the_pair_head_before_the_first_search(
    fixture_bundle,
):
    # an int8 retriever: the head reads its own (fp32) encoder, so cards need its vectors
    bundle = load_bundle(fixture_bundle)
    registry = Registry(cards={c.tool_id: c for c in bundle.cards})
    index = LiveIndex(bundle, overrides={"retriever_weights": "int8"}, batching=WIDE)
    try:
        assert index.selector(registry) is not None
        scorer = index._intent
        assert scorer is not None and scorer.encoder is not None
        assert len(scorer._cards) == len({c.index_text() for c in bundle.cards})
    finally:
        index.close()


def test_inputs_run_in_groups_of_similar_length():
    """Longest first; a group closes at `batch_size` or when its longest input has more than
    MAX_LENGTH_RATIO times the tokens of the next one (worked out by hand)."""
    assert length_groups([10, 40, 12, 39, 11, 100], 64) == [[5], [1, 3], [2, 4, 0]]
    assert length_groups([5, 5, 5], 2) == [[0, 1], [2]]
    assert length_groups([], 8) == []


def test_a_text_embeds_the_same_alone_and_beside_longer_ones(fixture_bundle):
    """fp32: a row no longer carries padding of a longer neighbour's length."""
    fp32 = OnnxEncoder(fixture_bundle / "models" / "retriever", threads=1)
    together = fp32.encode(TEXTS)
    alone = np.stack([fp32.encode([t])[0] for t in TEXTS])
    assert np.abs(together - alone).max() < 1e-5

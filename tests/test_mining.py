"""Trace mining, sampling and the `mine` stage on the fixture catalog and traces."""

import csv
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from features.candidates import GroupParams, RuntimeCandidates, runtime_groups
from features.dataset import (
    CANDIDATE_SOURCE,
    PAIRS_SCHEMA,
    RERANKER_SCHEMA,
    RETRIEVER_SCHEMA,
    scan_parquet,
)
from features.mining import (
    HARD_SCHEMA,
    TOOLS_SCHEMA,
    IndexNegativeMiner,
    SplitLeakError,
    check_split,
    dedupe_pairs,
    mine_pairs,
    new_tool_ids,
    scan_trace_parquet,
    split_of,
    traces_frame,
)
from features.sampling import (
    RANDOM_SOURCE,
    SamplingParams,
    attach_negatives,
    bucket_shares,
    exploration_weights,
    popularity_buckets,
    sample_explore,
    sample_uniform,
    train_positives,
    uniform_weights,
)
from features.synthetic import TemplateQueryGenerator, query_rng
from serving.bundle import load_bundle
from serving.encoder import Encoder
from serving.io import load_catalog, load_traces
from serving.retrieve import BM25Retriever, top_n
from serving.schema import ToolCard, Trace
from training.core.params import ParamsError, load_params
from training.mine import Params, main, mine

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
TRACES = FIXTURES / "traces.jsonl"


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(" \t.?!;,")


@pytest.fixture(scope="module")
def cards(fixture_catalog):
    return load_catalog(fixture_catalog, strict=True).items


@pytest.fixture(scope="module")
def traces(cards):
    return load_traces(TRACES, known_tools=[c.tool_id for c in cards]).items


@pytest.fixture(scope="module")
def params() -> Params:
    return load_params(ROOT / "params.yaml", "mine", Params)


def mine_kwargs(params: Params) -> dict:
    return {
        "seed": params.seed,
        "valid_share": params.valid_share,
        "negatives_per_query": params.negatives_per_query,
        "synthetic_per_tool": params.synthetic_per_tool,
        "new_tool_days": params.new_tool_days,
        "synthetic_queries_per_tool": params.synthetic_queries_per_tool,
    }


@pytest.fixture(scope="module")
def miner(fixture_bundle, params):
    return IndexNegativeMiner(load_bundle(fixture_bundle), depth=params.hard_negative_depth)


@pytest.fixture(scope="module")
def mined(traces, cards, params, miner):
    return mine_pairs(traces_frame(traces), cards, **mine_kwargs(params), hard_negatives=miner)


def source_of(pairs: pl.DataFrame, query: str, tool_id: str) -> str | None:
    rows = pairs.filter((pl.col("query") == query) & (pl.col("tool_id") == tool_id))
    assert rows.height <= 1
    return rows["source"][0] if rows.height else None


# --- mining -----------------------------------------------------------------------------


def test_every_negative_source_appears(mined):
    sources = set(mined.pairs["source"])
    assert sources >= {"trace_success", "synthetic_example", "synthetic_summary",
                       "synthetic_query", "near_duplicate", "trace_failure", "menu_unchosen",
                       "dense_hard", "bm25_hard"}
    assert set(mined.pairs.filter(pl.col("label") == 0)["source"]) <= {
        "near_duplicate", "trace_failure", "menu_unchosen", "dense_hard", "bm25_hard"}


def test_trace_negatives_are_what_the_traces_say(mined):
    pairs = mined.pairs
    # failed before the right pick, shares no capability with the gold
    assert source_of(pairs, "find where parse_invoice is defined", "logs.search") == (
        "trace_failure")
    # a failure-only query keeps its negative (and has no positive)
    assert source_of(pairs, "post an update in #checkout about the deploy",
                     "teams.post_message") == "trace_failure"
    # shown beside the successful pick
    assert source_of(pairs, "open a ticket for the flaky login test",
                     "jira.search_issues") == "menu_unchosen"
    assert source_of(pairs, "open a ticket for the flaky login test",
                     "github.create_pull_request") == "menu_unchosen"
    # teams failed *and* is slack's near-duplicate: the higher priority names the pair
    assert source_of(pairs, "tell #deploys that checkout is live",
                     "teams.post_message") == "near_duplicate"
    assert source_of(pairs, "search the code for TODO fixme",
                     "gitlab.search_code") == "near_duplicate"


def test_near_duplicates_share_a_capability_on_another_server(mined, cards):
    by_id = {c.tool_id: c for c in cards}
    gold = mined.pairs.filter(pl.col("label") == 1).group_by("query_id").agg("tool_id")
    gold_of = dict(gold.iter_rows())
    for qid, tool_id in mined.pairs.filter(pl.col("source") == "near_duplicate").select(
        "query_id", "tool_id"
    ).iter_rows():
        dup = by_id[tool_id]
        assert any(
            set(dup.capabilities) & set(by_id[g].capabilities) and dup.server != by_id[g].server
            for g in gold_of[qid]
        )


def test_hard_negatives_are_top_hits_of_the_index(mined, fixture_bundle, params):
    bundle = load_bundle(fixture_bundle)
    ids = [c.tool_id for c in bundle.cards]
    mask = np.ones(len(ids), dtype=bool)
    depth = params.hard_negative_depth
    bm25 = BM25Retriever.load(bundle.bm25_path)
    hard = mined.pairs.filter(pl.col("source").is_in(["bm25_hard", "dense_hard"]))
    assert set(hard["split"]) == {"train"}  # mined for train queries only
    queries = sorted(set(hard["query"]))
    vectors = Encoder(bundle.retriever_path).encode(queries)
    dense_top = {
        q: {ids[r] for r, _ in top_n(bundle.embeddings @ v, mask, depth)}
        for q, v in zip(queries, vectors, strict=True)
    }
    for query, tool_id, source in hard.select("query", "tool_id", "source").iter_rows():
        if source == "bm25_hard":
            assert tool_id in {ids[r] for r, _ in bm25.search(query, mask, depth)}
        else:
            assert tool_id in dense_top[query]


def test_index_is_asked_only_where_hard_negatives_can_survive(traces, cards, params, miner):
    asked: list[str] = []

    def spy(queries):
        asked.extend(queries)
        return miner(queries)

    cap = 2  # low enough that some fixture queries fill it without the index
    pairs = mine_pairs(traces_frame(traces), cards,
                       **{**mine_kwargs(params), "negatives_per_query": cap},
                       hard_negatives=spy).pairs
    train = pairs.filter(pl.col("split") == "train")
    drawable = set(train.filter(pl.col("label") == 1)["query"])
    assert set(asked) < drawable and len(asked) == len(set(asked))
    assert "find where parse_invoice is defined" in drawable - set(asked)
    # every drawable query the index was not asked about is full of higher-tier negatives
    negatives = train.filter(pl.col("label") == 0)
    for query in drawable - set(asked):
        mine_ = negatives.filter(pl.col("query") == query)
        assert mine_.height == cap
        assert not set(mine_["source"]) & {"dense_hard", "bm25_hard"}


def test_gold_and_equivalents_are_never_negatives(mined, cards):
    by_id = {c.tool_id: c for c in cards}
    gold: dict[str, set[str]] = {}
    for line in TRACES.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        for step in rec.get("steps", [rec]):
            if step.get("success") is True and step.get("tool_id") in by_id:
                gold.setdefault(norm(step["subgoal"]), set()).add(step["tool_id"])
    for card in cards:  # synthetic positives are gold for their text too
        for text in (*card.examples, card.summary):
            gold.setdefault(norm(text), set())
    negatives = mined.pairs.filter(pl.col("label") == 0)
    positives = mined.pairs.filter(pl.col("label") == 1)
    for text, tool_id in positives.select("query", "tool_id").iter_rows():
        gold.setdefault(norm(text), set()).add(tool_id)
    assert negatives.height > 50
    for query, tool_id in negatives.select("query", "tool_id").iter_rows():
        golds = gold.get(norm(query), set())
        assert tool_id not in golds, (query, tool_id)
        card = by_id[tool_id]
        for g in golds:
            same_server_overlap = card.server == by_id[g].server and (
                set(card.capabilities) & set(by_id[g].capabilities)
            )
            assert not same_server_overlap, (query, tool_id, g)
    # the cases by name: two gold tools for one text; same-server equivalents both ways
    assert source_of(mined.pairs, "Post the release notes to the team channel.",
                     "teams.post_message") == "trace_success"
    assert source_of(mined.pairs, "Post the release notes to the team channel.",
                     "slack.post_message") == "trace_success"
    assert source_of(mined.pairs, "list commits in checkout-service",
                     "github.compare_commits") is None
    assert source_of(mined.pairs, "what changed between v1.2 and v1.3",
                     "github.list_commits") is None


def test_no_request_or_query_text_on_both_sides(traces, cards, params):
    for seed in range(6):  # half the requests held out: texts repeat across requests
        result = mine_pairs(traces_frame(traces), cards,
                            **{**mine_kwargs(params), "seed": seed, "valid_share": 0.5})
        pairs = result.pairs
        train, valid = (pairs.filter(pl.col("split") == s) for s in ("train", "valid"))
        assert not set(train["query_id"]) & set(valid["query_id"])
        assert not set(train["request_id"]) & set(valid["request_id"])
        assert not {norm(q) for q in train["query"]} & {norm(q) for q in valid["query"]}
        assert valid.height and train.height
        assert set(pairs.filter(pl.col("request_id").str.starts_with("synthetic:"))["split"]) \
            == {"train"}
    # "check the rollout status of checkout" sits in 3 requests: with seed 13 at 0.5 some
    # land on each side, and the train copies are the ones dropped
    result = mine_pairs(traces_frame(traces), cards,
                        **{**mine_kwargs(params), "seed": 13, "valid_share": 0.5})
    assert result.stats["n_events_dropped_leak"] > 0


def test_check_split_raises_on_a_leak():
    pairs = pl.DataFrame({"query_id": ["q1", "q1"], "request_id": ["r1", "r2"],
                          "split": ["train", "valid"]})
    with pytest.raises(SplitLeakError, match="query_id"):
        check_split(pairs)


def test_dedupe_keeps_the_positive_and_the_higher_priority_source():
    frame = pl.DataFrame({
        "query_id": ["q", "q", "q", "q", "q", "q", "q"],
        "request_id": ["r2", "r1", "r1", "r1", "r1", "r1", "r1"],
        "tool_id": ["a", "a", "b", "b", "c", "c", "d"],
        "label": [0, 1, 0, 0, 0, 0, 0],
        "source": ["trace_failure", "trace_success", "menu_unchosen", "near_duplicate",
                   "dense_hard", "bm25_hard", "bm25_hard"],
        "split": ["train"] * 7,
        "rank": [-3, 0, -1, 0, 5, 1, 2],
    })
    out = dedupe_pairs(frame.lazy()).collect()
    got = {t: (label, source) for t, label, source in out.select("tool_id", "label", "source")
           .iter_rows()}
    assert got == {
        "a": (1, "trace_success"),  # both positive and negative: positive
        "b": (0, "near_duplicate"),  # near_duplicate > menu_unchosen
        "c": (0, "bm25_hard"),  # one hard tier: BM25 rank 1 beats dense rank 5
        "d": (0, "bm25_hard"),
    }
    assert out.height == 4


def test_synthetic_pairs_only_for_rare_tools(mined, params):
    pairs, tools = mined.pairs, mined.tools
    synthetic = pairs.filter(pl.col("source").str.starts_with("synthetic_"))
    rare = set(tools.filter(pl.col("popularity") < params.synthetic_per_tool)["tool_id"])
    popular = set(tools["tool_id"]) - rare
    assert set(synthetic["tool_id"]) <= rare
    assert not set(synthetic["tool_id"]) & popular
    assert {"slack.post_message", "github.search_code"} <= popular
    from_card = synthetic.filter(pl.col("source") != "synthetic_query")
    assert max(Counter(from_card["tool_id"]).values()) <= params.synthetic_per_tool
    generated = synthetic.filter(pl.col("source") == "synthetic_query")
    assert Counter(generated["tool_id"]) == dict.fromkeys(rare, params.synthetic_queries_per_tool)
    assert (synthetic["request_id"] == "synthetic:" + synthetic["tool_id"]).all()
    assert set(synthetic["split"]) == {"train"}
    # the example, then the summary; the never-used cryptic tool still gets its summary
    commits = from_card.filter(pl.col("tool_id") == "github.list_commits")
    assert dict(commits.select("source", "query").iter_rows()) == {
        "synthetic_example": "show me the commits in checkout-service since Monday",
        "synthetic_summary": "List recent commits of a repository",
    }
    assert source_of(pairs, "chg rd v1; ret obj", "stripe.chg_rd") == "synthetic_summary"


TINY = [
    ToolCard.from_dict({"tool_id": f"app.{name}", "server": "app", "domain": "shop",
                        "name": name, "summary": summary, "capabilities": [capability],
                        "requires": {"connection": "app"}, "input_schema": {
                            "type": "object", "properties": {param: {"type": "string"}}}})
    for name, summary, capability, param in [
        ("get_user", "Get a user by id", "get:user", "user_id"),
        ("list_orders", "List the orders of a customer", "list:order", "customer_id"),
        ("cancel_order", "Cancel an order", "cancel:order", "order_id"),
    ]
]


def tiny_traces(extra: list[Trace] = ()) -> pl.LazyFrame:
    traces = [Trace(subgoal=f"who is user {i}", tool_id="app.get_user", success=True,
                    request_id=f"u{i}") for i in range(3)]
    traces.append(Trace(subgoal="orders of acme", tool_id="app.list_orders", success=True,
                        request_id="o1"))
    return traces_frame([*traces, *extra])


def tiny_kwargs(**overrides) -> dict:
    return {"seed": 13, "valid_share": 0.0, "negatives_per_query": 4,
            "synthetic_per_tool": 3, "new_tool_days": 30, **overrides}


def test_synthetic_queries_by_hand():
    # get_user has 3 successful traces (not under the 3 of synthetic_per_tool): nothing;
    # list_orders (1 trace) and cancel_order (none) get 2 queries each: 2 * 2 = 4 rows,
    # beside their 2 summaries and the 3 + 1 traced texts
    asked: list[str] = []

    def hard(queries):
        asked.extend(queries)
        hits = ("app.get_user", "app.cancel_order")
        return pl.DataFrame([(q, t, "dense_hard", 1) for q in queries for t in hits],
                            schema=HARD_SCHEMA, orient="row")

    mined = mine_pairs(tiny_traces(), TINY, **tiny_kwargs(synthetic_queries_per_tool=2),
                       hard_negatives=hard)
    pairs = mined.pairs
    positives = Counter(pairs.filter(pl.col("label") == 1)["source"])
    assert positives == {"trace_success": 4, "synthetic_summary": 2, "synthetic_query": 4}
    generated = pairs.filter(pl.col("source") == "synthetic_query")
    assert Counter(generated["tool_id"]) == {"app.list_orders": 2, "app.cancel_order": 2}
    assert set(generated["split"]) == {"train"}
    assert (generated["request_id"] == "synthetic:" + generated["tool_id"]).all()
    assert set(generated["query"]) == {  # the templates, each tool on its own stream
        q for c in TINY[1:] for q in TemplateQueryGenerator().generate(
            c, 2, query_rng(13, c.tool_id))}
    # they are queries like any other: the index is asked about them, and its hits other
    # than the gold are their negatives
    assert set(generated["query"]) <= set(asked)
    for query, gold in generated.select("query", "tool_id").iter_rows():
        negatives = pairs.filter((pl.col("query") == query) & (pl.col("label") == 0))
        assert set(negatives["tool_id"]) == {"app.get_user", "app.cancel_order"} - {gold}

    # 0 turns them off and changes no other positive
    off = mine_pairs(tiny_traces(), TINY, **tiny_kwargs(synthetic_queries_per_tool=0)).pairs
    assert "synthetic_query" not in set(off["source"])
    assert off.filter(pl.col("label") == 1).drop("rank").equals(
        pairs.filter((pl.col("label") == 1) & (pl.col("source") != "synthetic_query"))
        .drop("rank"))


def test_a_synthetic_query_that_is_a_valid_query_is_dropped():
    cancel = TINY[2]
    first, second = TemplateQueryGenerator().generate(cancel, 2, query_rng(13, cancel.tool_id))
    request_id = next(f"c{i}" for i in range(100)
                      if split_of(f"c{i}", seed=13, valid_share=0.5) == "valid")
    held_out = Trace(subgoal=first.upper(), tool_id=cancel.tool_id, success=True,
                     request_id=request_id)
    mined = mine_pairs(tiny_traces([held_out]), TINY,
                       **tiny_kwargs(valid_share=0.5, synthetic_queries_per_tool=2))
    train = mined.pairs.filter(pl.col("split") == "train")
    # cancel_order now has 1 trace, still under 3: 2 + 2 generated, its first is held out
    generated = train.filter(pl.col("source") == "synthetic_query")
    assert generated.height == 3
    assert set(generated.filter(pl.col("tool_id") == cancel.tool_id)["query"]) == {second}
    assert mined.stats["n_synthetic_dropped_leak"] == 1


def test_explore_sampler_spreads_synthetic_queries_over_rare_tools(mined, params):
    positives = train_positives(mined.pairs)
    pool = Counter(positives["source"])
    assert pool["synthetic_query"] > 0
    sampling = SamplingParams(n_samples=20, max_per_tool=3, temperature=0.5, new_tool_quota=3)
    explore, uniform = Counter(), Counter()
    for seed in range(30):
        drawn = sample_explore(positives, sampling, seed=seed)
        counts = Counter(drawn["tool_id"])
        assert max(counts.values()) <= 3  # the cap (and the quota) per tool
        # the new tool's quota comes from its summary and generated queries, no repeats
        new = drawn.filter(pl.col("tool_id") == "pagerduty.list_incidents")
        assert new.height == 3 and new["query"].is_unique().all()
        explore.update(drawn["source"])
        uniform.update(sample_uniform(positives, n=20, seed=seed)["source"])
    # rare tools' rows weigh more under exploration than under traffic
    assert explore["synthetic_query"] > 1.5 * uniform["synthetic_query"]


def test_is_new_and_popularity(mined, cards):
    tools = {t: (new, pop) for t, new, pop in mined.tools.select(
        "tool_id", "is_new", "popularity").iter_rows()}
    # pagerduty is the one card added within 30 days of the newest (itself, 2026-10-20)
    assert {t for t, (new, _) in tools.items() if new} == {"pagerduty.list_incidents"}
    assert tools["slack.post_message"][1] == 10  # r01..r10 except r07, plus r22
    assert tools["k8s.get_rollout_status"][1] == 7
    assert tools["gitlab.search_code"][1] == 0
    assert new_tool_ids([replace(c, added_at="1970-01-01") for c in cards],
                        new_tool_days=30) == frozenset()
    pairs = mined.pairs
    assert pairs.filter(pl.col("tool_id") == "pagerduty.list_incidents")["is_new"].all()


def test_negatives_capped_per_query(mined, params):
    negatives = mined.pairs.filter(pl.col("label") == 0)
    assert negatives.group_by("query_id").len()["len"].max() <= params.negatives_per_query


def test_parquet_trace_scan_gives_the_same_pairs(traces, cards, params, tmp_path):
    frame = traces_frame(traces).collect().with_columns(day=pl.col("ts").str.slice(0, 10))
    frame.write_parquet(tmp_path / "traces", partition_by="day")
    from_jsonl = mine_pairs(traces_frame(traces), cards, **mine_kwargs(params)).pairs
    from_parquet = mine_pairs(scan_trace_parquet(tmp_path / "traces" / "**" / "*.parquet"),
                              cards, **mine_kwargs(params)).pairs
    assert from_parquet.equals(from_jsonl)


# --- sampling ---------------------------------------------------------------------------


def test_exploration_weights_by_hand():
    # 4 ** -0.5 = 1/2; 0 is floored to 1 -> 1; 9 ** -1 = 1/9; temperature 0 -> all 1
    assert exploration_weights(np.array([4, 0, 1]), 0.5) == pytest.approx([0.5, 1.0, 1.0])
    assert exploration_weights(np.array([9]), 1.0) == pytest.approx([1 / 9])
    assert exploration_weights(np.array([100, 3]), 0.0) == pytest.approx([1.0, 1.0])


def positives_frame(spec: dict[str, tuple[int, int, bool]]) -> pl.DataFrame:
    """tool -> (n rows, popularity, is_new) as train positive rows."""
    rows = []
    for tool_id, (n, pop, new) in spec.items():
        for i in range(n):
            rows.append({"query_id": f"{tool_id}-q{i:03d}", "request_id": f"{tool_id}-r{i}",
                         "query": f"use {tool_id} #{i}", "tool_id": tool_id, "label": 1,
                         "source": "trace_success", "split": "train", "is_new": new,
                         "popularity": pop, "rank": 0})
    return pl.DataFrame(rows).with_columns(
        pl.col("label").cast(pl.Int8), pl.col("popularity").cast(pl.Int32),
        pl.col("rank").cast(pl.Int32)
    ).sort("query_id", "tool_id")


def test_uniform_weights_give_a_tool_its_popularity():
    frame = positives_frame({"a": (2, 6, False), "b": (3, 3, False), "c": (1, 0, False)})
    # a: 6 / 2 rows = 3 each; b: 3 / 3 = 1 each; c: max(0, 1) / 1 = 1
    assert sorted(uniform_weights(frame).tolist()) == [1, 1, 1, 1, 3, 3]


def test_explore_cap_and_quota_hold():
    frame = positives_frame({
        "head": (50, 100, False), "mid": (10, 10, False),
        "newbie": (2, 0, True), "new_many": (10, 1, True),
    })
    params = SamplingParams(n_samples=40, max_per_tool=5, temperature=0.5, new_tool_quota=4)
    out = sample_explore(frame, params, seed=3)
    counts = Counter(out["tool_id"])
    assert counts["head"] <= 5 and counts["mid"] <= 5  # the cap
    assert counts["newbie"] == 4  # quota from 2 rows: each twice (with replacement)
    assert sorted(Counter(out.filter(pl.col("tool_id") == "newbie")["query_id"]).values()) \
        == [2, 2]
    assert 4 <= counts["new_many"] <= 5  # quota, then at most the cap
    assert out.height == 4 + 4 + 5 + 5 + 1  # the whole capped pool: smaller than n_samples
    small = sample_explore(frame, replace(params, n_samples=10), seed=3)
    assert small.height == 10
    assert Counter(small["tool_id"])["newbie"] == 4 and Counter(small["tool_id"])[
        "new_many"] >= 4
    # without replacement apart from the quota repeats
    assert small.filter(pl.col("tool_id") != "newbie")["query_id"].is_unique().all()
    # seeded
    assert sample_explore(frame, params, seed=3).equals(out)
    assert not sample_explore(frame, replace(params, n_samples=10), seed=4).equals(small)


def test_explore_flattens_and_uniform_follows_popularity():
    # rows per tool differ from popularity on purpose: the uniform sampler still follows
    # popularity (60 : 30 : 10), the exploration one pulls toward the rare tool
    frame = positives_frame({"a": (20, 60, False), "b": (30, 30, False),
                             "c": (10, 10, False)})
    n, trials = 5, 400
    uniform, explore = Counter(), Counter()
    params = SamplingParams(n_samples=n, max_per_tool=1000, temperature=1.0, new_tool_quota=0)
    for seed in range(trials):
        uniform.update(sample_uniform(frame, n=n, seed=seed)["tool_id"])
        explore.update(sample_explore(frame, params, seed=seed)["tool_id"])
    total = n * trials
    assert uniform["a"] / total == pytest.approx(0.6, abs=0.04)
    assert uniform["b"] / total == pytest.approx(0.3, abs=0.04)
    assert uniform["c"] / total == pytest.approx(0.1, abs=0.03)
    # temperature 1: tool mass = rows / popularity = 1/3 : 1 : 1 -> a 1/7, b 3/7, c 3/7
    assert explore["a"] / total == pytest.approx(1 / 7, abs=0.04)
    assert explore["c"] / total == pytest.approx(3 / 7, abs=0.05)


def test_attach_negatives_priority_rotation_and_random_fallback(cards):
    tools = pl.DataFrame({"tool_id": [c.tool_id for c in cards],
                          "capabilities": [list(c.capabilities) for c in cards]})
    positives = pl.DataFrame({
        "query_id": ["q1", "q2"], "request_id": ["r1", "r2"],
        "query": ["post to slack", "post to slack again"],
        "tool_id": ["slack.post_message", "slack.post_message"],
        "label": [1, 1], "source": ["trace_success"] * 2, "split": ["train"] * 2,
        "is_new": [False, False], "popularity": [10, 10], "rank": [0, 0],
    })
    negatives = pl.DataFrame({
        "query_id": ["q1", "q1", "q1"], "request_id": ["r1"] * 3, "query": ["post to slack"] * 3,
        "tool_id": ["jira.create_issue", "teams.post_message", "logs.search"],
        "label": [0, 0, 0], "source": ["dense_hard", "near_duplicate", "trace_failure"],
        "split": ["train"] * 3, "is_new": [False] * 3, "popularity": [0] * 3, "rank": [1, 0, -1],
    })
    pairs = pl.concat([positives, negatives], how="vertical_relaxed")
    sampled = pl.concat([positives[0], positives[0], positives[0], positives[0], positives[1]])
    rows = attach_negatives(sampled, pairs, tools, sampler="explore", seed=1)
    assert rows.columns == list(RETRIEVER_SCHEMA)
    got = list(rows.select("negative", "negative_source").iter_rows())
    assert got[:4] == [  # priority order, then around again
        ("teams.post_message", "near_duplicate"),
        ("logs.search", "trace_failure"),
        ("jira.create_issue", "dense_hard"),
        ("teams.post_message", "near_duplicate"),
    ]
    negative, source = got[4]  # q2 has none mined: a random tool of another capability
    assert source == RANDOM_SOURCE
    assert negative not in {"slack.post_message", "teams.post_message"}


def test_popularity_buckets_cut_points():
    tools = pl.DataFrame({
        "tool_id": ["a", "b", "c", "d", "e", "f", "n"],
        "popularity": [50, 30, 10, 5, 5, 0, 9],
        "is_new": [False] * 6 + [True],
    })
    buckets = dict(popularity_buckets(tools).iter_rows())
    # traffic before each tool: a 0 % head, b 50 % torso, c 80 % tail, d 90 %, e 95 %,
    # f 100 % tail; n is new whatever its popularity
    assert buckets == {"a": "head", "b": "torso", "c": "tail", "d": "tail", "e": "tail",
                       "f": "tail", "n": "new"}
    rows = pl.DataFrame({"tool_id": ["a", "a", "b", "n"]})
    assert bucket_shares(rows, popularity_buckets(tools)) == {
        "head": 0.5, "torso": 0.25, "tail": 0.0, "new": 0.25}


def test_core_is_deterministic_for_a_seed(traces, cards, params, fixture_bundle):
    candidates = RuntimeCandidates(fixture_bundle)
    a = mine(traces, cards, params, hard_negatives=None, candidates=candidates)
    b = mine(traces, cards, params, hard_negatives=None, candidates=candidates)
    assert a.pairs.equals(b.pairs) and a.retriever.equals(b.retriever)
    assert a.reranker.equals(b.reranker)
    c = mine(traces, cards, replace(params, seed=params.seed + 1), hard_negatives=None,
             candidates=candidates)
    assert not c.retriever.equals(a.retriever)


def test_runtime_groups_by_hand():
    """Two servers; the fake runtime returns fixed candidate lists, so every row is known."""
    tools = pl.DataFrame(
        {"tool_id": ["s.post", "s.post_v2", "s.list", "t.post", "t.list", "u.get"],
         "server": ["s", "s", "s", "t", "t", "u"],
         "capabilities": [["send:message"], ["send:message"], ["list:message"],
                          ["send:message"], ["list:message"], ["get:user"]],
         "is_new": [False] * 6, "popularity": [5] * 6},
        schema=TOOLS_SCHEMA,
    )
    pairs = pl.DataFrame(
        [
            ("qa", "r1", "post hi", "s.post", 1, "trace_success", "train"),
            ("qa", "r9", "post hi", "t.post", 1, "trace_success", "valid"),  # also gold
            ("qb", "synthetic:u.get", "get a user", "u.get", 1, "synthetic_example", "train"),
            ("qc", "r2", "list msgs", "t.list", 1, "trace_success", "valid"),
            ("qd", "r3", "who is it", "u.get", 1, "trace_success", "valid"),
        ],
        schema=["query_id", "request_id", "query", "tool_id", "label", "source", "split"],
        orient="row",
    ).with_columns(pl.col("label").cast(pl.Int8), is_new=pl.lit(False),
                   popularity=pl.lit(5, pl.Int32))
    runtime = {
        "post hi": ["s.post_v2", "t.post", "s.list", "t.list", "u.get"],
        "get a user": ["s.list", "u.get"],
        "list msgs": ["s.list", "t.list", "u.get"],
        "who is it": ["s.list"],  # the runtime misses the gold: no valid group
    }
    asked = []

    def candidates(queries):
        asked.extend(queries)
        return [runtime[text] for text, _ in queries]

    groups = runtime_groups(
        pairs, tools, {"r1": {"connections": ["s", "t"]}}, candidates,
        SamplingParams(n_samples=0, max_per_tool=10, temperature=0.5, new_tool_quota=0),
        GroupParams(n_train=10, n_negatives=2, n_valid=10, synthetic_servers=1), seed=3,
    )
    rows = {(r["group_id"], r["tool_id"]): (r["label"], r["source"], r["fused_rank"])
            for r in groups.frame.iter_rows(named=True)}
    # train qa: s.post_v2 is equivalent (same server, same capability), t.post is gold
    # elsewhere: neither is a negative; the gold was outside the candidates (rank 0)
    assert {k: v for k, v in rows.items() if k[0] == "qa:s.post"} == {
        ("qa:s.post", "s.post"): (1, "trace_success", 0),
        ("qa:s.post", "s.list"): (0, CANDIDATE_SOURCE, 3),
        ("qa:s.post", "t.list"): (0, CANDIDATE_SOURCE, 4),
    }
    assert rows[("qb:u.get", "u.get")] == (1, "synthetic_example", 2)
    # valid qc: every candidate, the gold where the runtime put it
    assert {k: v for k, v in rows.items() if k[0] == "qc:t.list"} == {
        ("qc:t.list", "s.list"): (0, CANDIDATE_SOURCE, 1),
        ("qc:t.list", "t.list"): (1, "trace_success", 2),
        ("qc:t.list", "u.get"): (0, CANDIDATE_SOURCE, 3),
    }
    assert groups.stats["n_valid_without_gold"] == 1
    assert groups.stats["n_train_gold_outside_candidates"] == 1
    assert groups.stats["n_without_context"] == 3  # r9, r2 and r3 have no session
    assert ("post hi", {"connections": ["s", "t"]}) in asked  # the train trace's session
    synthetic = dict(asked)["get a user"]["connections"]
    assert "u" in synthetic and len(synthetic) == 2
    assert set(groups.frame.columns) == set(RERANKER_SCHEMA)


def test_runtime_candidates_are_the_menu_stage_input(fixture_bundle):
    from serving.selection import SessionContext
    from serving.selector import Selector

    source = RuntimeCandidates(fixture_bundle)
    session = {"connections": ["slack", "github"]}
    (found,) = source([("post the release notes to #eng", session)])
    servers = {t.split(".")[0] for t in found}
    assert found and servers <= {"slack", "github"} and len(found) <= source.depth
    selector = Selector.from_bundle(fixture_bundle, reranker="fused")
    subgoal = source._annotate("post the release notes to #eng")
    (step,) = selector.select([subgoal], SessionContext.from_dict(session))
    assert found == [c.tool_id for c in step.filtered][: source.depth]
    assert [c.tool_id for c in selector.candidates(subgoal, SessionContext.from_dict(session))
            ] == [c.tool_id for c in step.filtered]


def test_reranker_groups_from_the_fixture_bundle(traces, cards, params, fixture_bundle):
    result = mine(traces, cards, params, hard_negatives=None,
                  candidates=RuntimeCandidates(fixture_bundle))
    groups = result.reranker
    train = groups.filter(pl.col("split") == "train")
    per_group = train.group_by("group_id").agg(
        pl.col("label").sum().alias("pos"), pl.len().alias("n"))
    assert (per_group["pos"] == 1).all()
    assert per_group["n"].max() <= 1 + params.reranker_negatives
    positive = train.filter(pl.col("label") == 1)
    assert positive.select("query", "tool_id").is_unique().all()
    assert (positive["group_id"].str.split(":").list.get(1) == positive["tool_id"]).all()
    valid = groups.filter(pl.col("split") == "valid")
    assert valid.height and (valid.group_by("group_id").agg(pl.col("label").max())["label"]
                             == 1).all()
    assert (groups.filter(pl.col("label") == 0)["fused_rank"] > 0).all()
    assert result.metrics["reranker_groups"]["n_train_groups"] == per_group.height


# --- params and the stage ---------------------------------------------------------------


def test_params_mirror_the_section(tmp_path):
    text = (ROOT / "params.yaml").read_text()
    params = load_params(ROOT / "params.yaml", "mine", Params)
    assert isinstance(params.sampling, SamplingParams)
    bad = tmp_path / "params.yaml"
    bad.write_text(text.replace("    new_tool_quota:", "    new_tool_quote:"))
    with pytest.raises(ParamsError, match=r"mine.sampling.*new_tool_quote"):
        load_params(bad, "mine", Params)
    bad.write_text(text.replace("  reranker_negatives:", "  reranker_negatives_x:"))
    with pytest.raises(ParamsError, match="reranker_negatives"):
        load_params(bad, "mine", Params)
    bad.write_text(text.replace("synthetic_query_generator: template",
                                "synthetic_query_generator: gpt"))
    with pytest.raises(ParamsError, match="synthetic_query_generator.*gpt"):
        load_params(bad, "mine", Params)


def run_stage(tmp_path: Path, fixture_catalog: Path, fixture_bundle: Path, tag: str) -> dict:
    paths = {
        "out": tmp_path / tag / "data" / "train",
        "plot": tmp_path / tag / "plots" / "sampling.png",
        "metrics": tmp_path / tag / "metrics" / "mine.json",
    }
    main([str(ROOT / "params.yaml"), str(fixture_catalog), str(TRACES), str(fixture_bundle),
          str(paths["out"]), str(paths["plot"]), str(paths["metrics"])])
    return paths


def test_mine_stage_smoke(tmp_path, monkeypatch, fixture_catalog, fixture_bundle, capsys):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path}/mlflow.db")
    monkeypatch.setenv("TOOLSIFT_PIPELINE_ID", "test-mine")
    first = run_stage(tmp_path, fixture_catalog, fixture_bundle, "a")
    summary = capsys.readouterr().out.strip().splitlines()
    assert len(summary) == 1 and summary[0].startswith("mine: ")

    schemas = {"pairs": PAIRS_SCHEMA, "retriever": RETRIEVER_SCHEMA, "reranker": RERANKER_SCHEMA}
    for name, schema in schemas.items():
        frame = scan_parquet(first["out"] / f"{name}.parquet", schema).collect()
        assert frame.height > 0
    retriever = pl.read_parquet(first["out"] / "retriever.parquet")
    assert set(retriever["sampler"]) == {"explore", "uniform"}

    metrics = json.loads(first["metrics"].read_text())
    assert metrics["n_quarantined_trace_lines"] == 3
    assert metrics["n_pairs_by_source"]["bm25_hard"] > 0
    assert set(metrics["bucket_share"]) == {"all_positives", "explore", "uniform"}
    # the fixture's capped pool fits n_samples whole, and its new tool's synthetic queries
    # fill the quota without repeats: explore holds every row (flattening is tested above)
    assert metrics["bucket_share"]["explore"]["new"] >= metrics["bucket_share"][
        "all_positives"]["new"]
    quarantine = first["out"].parent / "train.traces.quarantine.jsonl"
    assert len(quarantine.read_text().splitlines()) == 3
    assert first["plot"].stat().st_size > 1000
    with first["plot"].with_suffix(".csv").open() as fh:
        table = list(csv.DictReader(fh))
    assert [r["bucket"] for r in table] == ["head", "torso", "tail", "new"]
    assert sum(float(r["explore"]) for r in table) == pytest.approx(1.0, abs=1e-5)

    import mlflow

    mlflow.set_tracking_uri(f"sqlite:///{tmp_path}/mlflow.db")
    runs = mlflow.search_runs(experiment_names=["toolsift"],
                              filter_string="tags.stage = 'mine'", output_format="list")
    assert len(runs) == 1
    run = runs[0]
    assert run.data.metrics["n_pairs"] == metrics["n_pairs"]
    assert "dataset.pairs.sha256" in run.data.tags
    assert run.data.params["mine.sampling.temperature"] == "0.5"

    # the same inputs and params give the same bytes (what `dvc repro` relies on)
    second = run_stage(tmp_path, fixture_catalog, fixture_bundle, "b")
    for name in schemas:
        assert (first["out"] / f"{name}.parquet").read_bytes() == (
            second["out"] / f"{name}.parquet").read_bytes()
    assert first["plot"].read_bytes() == second["plot"].read_bytes()

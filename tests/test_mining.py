"""Trace mining (features.mining, features.negatives) on the fixture catalog and traces:
every pair source, the exclusions, the split, the cold-start positives and the Parquet scan.
Sampling, the reranker groups and the `mine` stage are in test_sampling.py; the fixture
cards, traces and `mine` params come from conftest.py."""

import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from features.mining import (
    SplitLeakError,
    check_split,
    dedupe_pairs,
    mine_pairs,
    new_tool_ids,
    scan_trace_parquet,
    split_of,
    traces_frame,
)
from features.negatives import HARD_SCHEMA, IndexNegativeMiner
from features.sampling import SamplingParams, sample_explore, sample_uniform, train_positives
from features.synthetic import TemplateQueryGenerator, query_rng
from serving.bundle.encoder import Encoder
from serving.bundle.files import load_bundle
from serving.model.schema import ToolCard, Trace
from serving.stages.retrieve import BM25Retriever, top_n
from training.mine import Params

TRACES = Path(__file__).parent / "fixtures" / "traces.jsonl"


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(" \t.?!;,")


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
def miner(fixture_bundle, mine_params):
    return IndexNegativeMiner(load_bundle(fixture_bundle), depth=mine_params.hard_negative_depth)


@pytest.fixture(scope="module")
def mined(fixture_traces, fixture_cards, mine_params, miner):
    return mine_pairs(traces_frame(fixture_traces), fixture_cards, **mine_kwargs(mine_params),
                      hard_negatives=miner)


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


def test_near_duplicates_share_a_capability_on_another_server(mined, fixture_cards):
    by_id = {c.tool_id: c for c in fixture_cards}
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


def test_hard_negatives_are_top_hits_of_the_index(mined, fixture_bundle, mine_params):
    bundle = load_bundle(fixture_bundle)
    ids = [c.tool_id for c in bundle.cards]
    mask = np.ones(len(ids), dtype=bool)
    depth = mine_params.hard_negative_depth
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


def test_index_is_asked_only_where_hard_negatives_can_survive(
    fixture_traces, fixture_cards, mine_params, miner
):
    asked: list[str] = []

    def spy(queries):
        asked.extend(queries)
        return miner(queries)

    cap = 2  # low enough that some fixture queries fill it without the index
    pairs = mine_pairs(traces_frame(fixture_traces), fixture_cards,
                       **{**mine_kwargs(mine_params), "negatives_per_query": cap},
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


def test_gold_and_equivalents_are_never_negatives(mined, fixture_cards):
    by_id = {c.tool_id: c for c in fixture_cards}
    gold: dict[str, set[str]] = {}
    for line in TRACES.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        for step in rec.get("steps", [rec]):
            if step.get("success") is True and step.get("tool_id") in by_id:
                gold.setdefault(norm(step["subgoal"]), set()).add(step["tool_id"])
    for card in fixture_cards:  # synthetic positives are gold for their text too
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


def test_no_request_or_query_text_on_both_sides(fixture_traces, fixture_cards, mine_params):
    for seed in range(6):  # half the requests held out: texts repeat across requests
        result = mine_pairs(traces_frame(fixture_traces), fixture_cards,
                            **{**mine_kwargs(mine_params), "seed": seed, "valid_share": 0.5})
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
    result = mine_pairs(traces_frame(fixture_traces), fixture_cards,
                        **{**mine_kwargs(mine_params), "seed": 13, "valid_share": 0.5})
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


def test_synthetic_pairs_only_for_rare_tools(mined, mine_params):
    pairs, tools = mined.pairs, mined.tools
    synthetic = pairs.filter(pl.col("source").str.starts_with("synthetic_"))
    rare = set(tools.filter(pl.col("popularity") < mine_params.synthetic_per_tool)["tool_id"])
    popular = set(tools["tool_id"]) - rare
    assert set(synthetic["tool_id"]) <= rare
    assert not set(synthetic["tool_id"]) & popular
    assert {"slack.post_message", "github.search_code"} <= popular
    from_card = synthetic.filter(pl.col("source") != "synthetic_query")
    assert max(Counter(from_card["tool_id"]).values()) <= mine_params.synthetic_per_tool
    generated = synthetic.filter(pl.col("source") == "synthetic_query")
    assert Counter(generated["tool_id"]) == dict.fromkeys(
        rare, mine_params.synthetic_queries_per_tool)
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
                        "requires": {"connection": "app"}, "risk": "read_only", "input_schema": {
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


def test_explore_sampler_spreads_synthetic_queries_over_rare_tools(mined, mine_params):
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


def test_is_new_and_popularity(mined, fixture_cards):
    tools = {t: (new, pop) for t, new, pop in mined.tools.select(
        "tool_id", "is_new", "popularity").iter_rows()}
    # pagerduty is the one card added within 30 days of the newest (itself, 2026-10-20)
    assert {t for t, (new, _) in tools.items() if new} == {"pagerduty.list_incidents"}
    assert tools["slack.post_message"][1] == 10  # r01..r10 except r07, plus r22
    assert tools["k8s.get_rollout_status"][1] == 7
    assert tools["gitlab.search_code"][1] == 0
    assert new_tool_ids([replace(c, added_at="1970-01-01") for c in fixture_cards],
                        new_tool_days=30) == frozenset()
    pairs = mined.pairs
    assert pairs.filter(pl.col("tool_id") == "pagerduty.list_incidents")["is_new"].all()


def test_negatives_capped_per_query(mined, mine_params):
    negatives = mined.pairs.filter(pl.col("label") == 0)
    assert negatives.group_by("query_id").len()["len"].max() <= mine_params.negatives_per_query


def test_parquet_trace_scan_gives_the_same_pairs(
    fixture_traces, fixture_cards, mine_params, tmp_path
):
    frame = traces_frame(fixture_traces).collect().with_columns(
        day=pl.col("ts").str.slice(0, 10))
    frame.write_parquet(tmp_path / "traces", partition_by="day")
    from_jsonl = mine_pairs(traces_frame(fixture_traces), fixture_cards,
                            **mine_kwargs(mine_params)).pairs
    from_parquet = mine_pairs(scan_trace_parquet(tmp_path / "traces" / "**" / "*.parquet"),
                              fixture_cards, **mine_kwargs(mine_params)).pairs
    assert from_parquet.equals(from_jsonl)

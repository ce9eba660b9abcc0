import json
import math
from pathlib import Path

import pytest

from serving import metrics as M
from serving.metrics import GoldSubgoal, StepSets
from serving.model.io import load_catalog, load_queries
from training.evaluate import main
from training.evaluation.baselines import rrf_ids
from training.evaluation.plots import plot_rows
from training.evaluation.scoring import (
    EvalParams,
    MenuTies,
    QueryRecord,
    run_eval_cli,
    sample_queries,
    stage_lists,
    summarize,
    tie_summary,
)
from training.evaluation.variants import Variant

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"

# --- ranking metrics, worked out by hand -------------------------------------------

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 0}}  # q3: nothing relevant
RUN = {"q1": {"x": 0.9, "a": 0.8, "y": 0.7, "b": 0.6}, "q2": {"c": 0.5, "z": 0.4}}


def test_recall_at_k_by_hand():
    # q1 ranks x a y b (relevant a, b); q2 ranks c z (relevant c); q3 has no relevant: skipped
    # @1: q1 0/2, q2 1/1 -> (0 + 1) / 2 = 0.5
    # @2: q1 1/2, q2 1   -> 0.75;   @4: 1 and 1 -> 1.0
    assert M.recall_at_k(QRELS, RUN, 1) == pytest.approx(0.5)
    assert M.recall_at_k(QRELS, RUN, 2) == pytest.approx(0.75)
    assert M.recall_at_k(QRELS, RUN, 4) == pytest.approx(1.0)
    # a qid missing from the run scores 0: (1 + 0) / 2
    assert M.recall_at_k(QRELS, {"q1": RUN["q1"]}, 4) == pytest.approx(0.5)


def test_ndcg_and_mrr_by_hand():
    # q1: DCG = 1/log2(3) + 1/log2(5) = 0.63093 + 0.43068 = 1.06161
    #     IDCG = 1/log2(2) + 1/log2(3) = 1.63093  -> 0.65092;  q2: c first -> 1.0
    #     mean = (0.65092 + 1) / 2 = 0.82546
    assert M.ndcg_at_k(QRELS, RUN, 10) == pytest.approx(0.82546, abs=1e-5)
    # @1: q1 has x first -> 0; q2 -> 1; mean 0.5
    assert M.ndcg_at_k(QRELS, RUN, 1) == pytest.approx(0.5)
    # MRR: q1 first relevant at rank 2 -> 1/2; q2 at rank 1 -> 1; mean 0.75
    assert M.mrr(QRELS, RUN) == pytest.approx(0.75)
    # within k=1, q1 finds none -> (0 + 1) / 2
    assert M.mrr(QRELS, RUN, k=1) == pytest.approx(0.5)


def test_graded_ndcg_and_ties_by_hand():
    # grades a=2, b=1, run order b a: DCG = 1/1 + 2/log2(3) = 2.26186
    # IDCG = 2/1 + 1/log2(3) = 2.63093 -> 0.85972
    qrels = {"q": {"a": 2, "b": 1}}
    assert M.ndcg_at_k(qrels, {"q": {"b": 0.9, "a": 0.5}}, 10) == pytest.approx(0.85972, abs=1e-5)
    # equal scores rank by tool id: a before b whatever the dict order
    assert M.ranked({"b": 1.0, "a": 1.0, "c": 2.0}) == ["c", "a", "b"]
    assert M.mrr({"q": {"b": 1}}, {"q": {"b": 1.0, "a": 1.0}}) == pytest.approx(0.5)


def test_run_from_lists_keeps_order_and_metrics_ignore_input_order():
    run = M.run_from_lists({"q": ["b", "a", "b", "c"]})
    assert M.ranked(run["q"]) == ["b", "a", "c"]
    shuffled = {"q2": dict(reversed(list(RUN["q2"].items()))), "q1": RUN["q1"]}
    assert M.ndcg_at_k(QRELS, shuffled, 10) == M.ndcg_at_k(QRELS, RUN, 10)


def test_percentiles_and_interleave():
    # numpy linear: p50 of 1..4 = 2.5; p95 at index 0.95 * 3 = 2.85 -> 3 + 0.85 = 3.85
    assert M.percentiles([4, 1, 3, 2]) == pytest.approx({"p50": 2.5, "p95": 3.85})
    assert M.percentiles([]) == {"p50": None, "p95": None}
    # rank 1: a, d; rank 2: b (a seen); rank 3: c
    assert M.interleave([["a", "b", "c"], ["d", "a"]]) == ["a", "d", "b", "c"]


def test_rrf_ids_by_hand():
    # a = 1/61, b = 1/62 + 1/61, c = 1/62 -> b, a, c
    assert rrf_ids([["a", "b"], ["b", "c"]], k=60, n=3) == ["b", "a", "c"]


# --- alignment ----------------------------------------------------------------------


def test_containment_and_alignment():
    gold = ["find what changed", "check the rollout", "tell the payments channel on Slack"]
    predicted = [
        "tell the payments channel on Slack (checkout-service)",
        "Find what changed (checkout-service)",
        "check the rollout (checkout-service)",
    ]
    assert M.containment(gold[0], predicted[1]) == 1.0
    # "check the rollout" -> {check, rollout}; only "check" in "check the logs" -> 0.5
    assert M.containment("check the rollout", "check the logs") == 0.5
    assert M.align_subgoals(gold, predicted) == [1, 2, 0]
    # one-to-one: both gold subgoals fit the one prediction (1.0 each); the tie goes to the
    # lower gold index and the other stays unaligned
    one = ["search slack messages"]
    assert M.align_subgoals(["search slack messages", "slack messages"], one) == [0, None]
    # below the threshold no pair aligns ...
    assert M.align_subgoals(["refund the charge", "open a ticket"], ["weather in Paris"]) == [
        None,
        None,
    ]
    # ... except for a single gold subgoal, which takes the best prediction there is
    assert M.align_subgoals(["refund the charge"], ["weather in Paris", "a charge"]) == [1]
    assert M.align_subgoals(["refund the charge"], []) == [None]


def test_greedy_alignment_takes_the_best_pair_first():
    # g0 {read, recent, pod, log}: p0 {read, recent, deploy} 2/4 = 0.5, p1 3/4 = 0.75
    # g1 {pod, log}: p1 2/2 = 1.0, p0 0
    # best first: (g1, p1) 1.0, then (g0, p1) is taken, then (g0, p0) 0.5 -> [0, 1]
    # (taking gold subgoals in order would give g0 -> p1 and leave g1 unaligned)
    gold = ["read recent pod logs", "pod logs"]
    predicted = ["read recent deploy", "pod logs read"]
    assert M.containment(gold[0], predicted[0]) == pytest.approx(0.5)
    assert M.containment(gold[0], predicted[1]) == pytest.approx(0.75)
    assert M.align_subgoals(gold, predicted) == [0, 1]


# --- the chain on hand-made steps ---------------------------------------------------


def _chain_case():
    gold = [
        GoldSubgoal("alpha task", ("t.a", "t.b")),
        GoldSubgoal("beta task", ("t.c",)),
        GoldSubgoal("gamma task", ("t.d",)),
        GoldSubgoal("delta task", ("t.e",)),
        GoldSubgoal("omega", ("t.f",)),  # no predicted subgoal: lost at decompose
    ]
    steps = [
        StepSets("alpha task", ("t.a", "t.b", "t.x"), ("t.a", "t.b"), ("t.a", "t.b"), "t.a"),
        StepSets("beta task", ("t.y",), ("t.y",), ("t.y",), "t.y"),  # t.c never retrieved
        StepSets("gamma task", ("t.d",), (), (), None),  # t.d filtered out
        StepSets("delta task", ("t.e", "t.z"), ("t.e", "t.z"), ("t.z",), "t.z"),  # cut by menu
    ]
    return gold, steps


def test_chain_loses_one_item_at_each_stage():
    gold, steps = _chain_case()
    alignment, items = M.item_outcomes(gold, steps)
    assert alignment == [0, 1, 2, 3, None]
    assert {it.tool_id: it.lost_at for it in items} == {
        "t.a": None,
        "t.b": "select",  # in the menu, but the pick was t.a
        "t.c": "retrieve",
        "t.d": "filter",
        "t.e": "menu",
        "t.f": "decompose",
    }
    chain = M.recall_chain(items)
    # 6 items; kept: decompose 5, retrieve 4 (a b d e), filter 3 (a b e), menu 2, select 1
    assert chain["r_decompose"] == pytest.approx(5 / 6)
    assert chain["r_retrieve"] == pytest.approx(4 / 5)
    assert chain["r_filter"] == pytest.approx(3 / 4)
    assert chain["r_menu"] == pytest.approx(2 / 3)
    assert chain["r_select"] == pytest.approx(1 / 2)
    # product identity: 5/6 * 4/5 * 3/4 * 2/3 * 1/2 = 1/6 = end_to_end
    product = math.prod(chain[f"r_{s}"] for s in M.STAGES)
    assert chain["end_to_end"] == pytest.approx(1 / 6) == pytest.approx(product)
    assert [chain[f"lost_{s}"] for s in M.STAGES] == [1, 1, 1, 1, 1]


def test_a_stage_cannot_keep_what_an_earlier_one_lost():
    # inconsistent sets (selected but not in the menu) still count as lost at the menu
    step = StepSets("alpha", ("t.a",), ("t.a",), ("t.b",), "t.a")
    _, items = M.item_outcomes([GoldSubgoal("alpha", ("t.a",))], [step])
    assert items[0].kept == (True, True, True, False, False)
    assert M.recall_chain(items)["r_select"] is None  # nothing reached select
    assert M.recall_chain([])["end_to_end"] is None


def test_unlabeled_request_counts_each_tool_at_its_best_step():
    steps = [
        StepSets("first", ("t.a", "t.b"), ("t.a",), ("t.a",), "t.a"),
        StepSets("second", ("t.b",), ("t.b",), ("t.b",), "t.b"),
    ]
    _, items = M.item_outcomes([GoldSubgoal("first and second", ("t.a", "t.b"))], steps,
                               spans_request=True)
    assert [(it.tool_id, it.step, it.lost_at) for it in items] == [
        ("t.a", 0, None),
        ("t.b", 1, None),
    ]


def test_abstention_scores_by_hand():
    # no-tool queries: abstained, answered -> 1/2; with gold: abstained, answered -> 1/2
    out = M.abstention_scores([True, False, True, False], [False, False, True, True])
    assert out == {"n_no_tool": 2, "abstain_rate": 0.5, "n_with_gold": 2,
                   "false_abstain_rate": 0.5}


def _record(qid, gold, steps, *, slices=("single",), latency=1.0):
    subgoals = (GoldSubgoal(qid, tuple(gold)),)
    alignment, items = M.item_outcomes(subgoals, steps, spans_request=True)
    return QueryRecord(qid, slices, tuple(gold), subgoals, True, tuple(steps), tuple(alignment),
                       tuple(items), {"decompose": latency, "total": 2 * latency}, 40)


def test_summarize_scores_abstention_slices_and_latency():
    records = [
        _record("hit", ["t.a"], [StepSets("x", ("t.b", "t.a"), ("t.b", "t.a"), ("t.a",), "t.a")],
                latency=1.0),
        _record("miss", ["t.c"], [StepSets("y", ("t.c",), (), (), None)], latency=3.0),
        _record("none_ok", [], [StepSets("z", ("t.q",), (), (), None)], slices=("no_tool",)),
        _record("none_bad", [], [StepSets("w", ("t.q",), ("t.q",), ("t.q",), "t.q")],
                slices=("no_tool",)),
    ]
    out = summarize(records, ["single", "no_tool"], params=EvalParams(), catalog_tokens=400)
    assert out["n_items"] == 2 and out["end_to_end"] == pytest.approx(0.5)
    assert out["r_filter"] == pytest.approx(0.5)  # t.c retrieved, then filtered out
    assert out["recall"]["retrieved_at_5"] == pytest.approx(1.0)
    assert out["recall"]["menu_at_1"] == pytest.approx(0.5)
    # final order of "hit" is menu (t.a) then the rest of filtered (t.b): rank 1
    assert out["mrr"] == pytest.approx(0.5)
    assert out["abstention"]["abstain_rate"] == pytest.approx(0.5)
    assert out["abstention"]["false_abstain_rate"] == pytest.approx(0.5)  # "miss" has no menu
    assert out["slices"]["no_tool"]["n_items"] == 0
    assert out["slices"]["no_tool"]["recall"]["menu_at_8"] is None
    assert out["slices"]["single"]["n_queries"] == 2
    # four requests at 1, 3, latency default 1, 1 -> p50 of [1, 3, 1, 1] = 1.0
    assert out["latency_ms"]["decompose"]["p50"] == pytest.approx(1.0)
    assert out["tokens"] == {"menu_mean": 40.0, "menu_p95": 40.0, "catalog": 400, "ratio": 0.1}


def test_stage_lists_follow_the_alignment():
    gold, steps = _chain_case()
    alignment, items = M.item_outcomes(gold, steps)
    rec = QueryRecord("q", (), (), tuple(gold), False, tuple(steps), tuple(alignment),
                      tuple(items), {}, 0)
    qrels, lists = stage_lists([rec])
    assert qrels["q#0"] == {"t.a": 1, "t.b": 1}
    assert lists["retrieved"]["q#3"] == ["t.e", "t.z"]
    assert lists["final"]["q#3"] == ["t.z", "t.e"]  # menu first, then the rest of filtered
    assert lists["retrieved"]["q#4"] == []  # not decomposed


def test_variant_specs_and_sampling():
    assert Variant.parse("fused=reranker:fused") == Variant("fused", "reranker", "fused")
    assert Variant.parse("ft=retriever:models/a:b").arg == "models/a:b"
    for bad in ("fused", "x=reranker", "x=ranker:fused", "x=reranker:bogus"):
        with pytest.raises(ValueError, match="--variant"):
            Variant.parse(bad)
    items = list(range(10))
    picked = sample_queries(items, 4, seed=1)  # type: ignore[arg-type]
    assert len(picked) == 4 and picked == sorted(picked)
    assert picked == sample_queries(items, 4, seed=1)  # type: ignore[arg-type]
    assert sample_queries(items, 0, seed=1) == items  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ks"):
        EvalParams(ks=[0, 5])


# --- the stage end to end on the fixture bundle -------------------------------------


def test_fixture_queries_are_valid(fixture_catalog):
    tools = {c.tool_id for c in load_catalog(fixture_catalog, strict=True).items}
    queries = load_queries(FIXTURES / "queries.jsonl", known_tools=tools, strict=True).items
    slices = {s for q in queries for s in q.slices}
    assert {"multi_subgoal", "no_tool", "exact_name", "new_tool"} <= slices
    assert all(q.context.get("connections") for q in queries)


def test_main_writes_every_output(fixture_bundle, tmp_path, monkeypatch):
    import mlflow
    from mlflow.tracking import MlflowClient

    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path}/mlflow.db")
    monkeypatch.chdir(tmp_path)  # the sqlite store puts artifacts under ./mlruns
    monkeypatch.setenv("TOOLSIFT_PIPELINE_ID", "test-evaluate")
    out = tmp_path / "out"
    params = tmp_path / "params.yaml"  # 12 queries, slices of 1: below the demo's minimum
    params.write_text((ROOT / "params.yaml").read_text().replace(
        "  min_slice_queries: 20 ", "  min_slice_queries: 1 "))
    main([
        str(params),
        str(FIXTURES / "queries.jsonl"),
        str(fixture_bundle),
        str(out / "metrics" / "eval.json"),
        str(out / "reports" / "eval.md"),
        str(out / "plots" / "eval"),
        "--baseline-bundle", str(fixture_bundle),
        "--variant", "fused=reranker:fused",
        "--variant", f"same_retriever=retriever:{fixture_bundle / 'models' / 'retriever'}",
    ])
    summary = json.loads((out / "metrics" / "eval.json").read_text())
    assert "@" not in json.dumps(summary)
    pipe = summary["pipeline"]
    assert summary["n_queries"] == 12 and pipe["n_items"] == 13 and pipe["select"] == "proxy"
    product = math.prod(pipe[f"r_{s}"] for s in M.STAGES)
    assert pipe["end_to_end"] == pytest.approx(product, abs=1e-3)
    # q12 asks for Teams in a Slack-only session: the session mask loses it at retrieval
    assert pipe["lost_retrieve"] >= 1 and pipe["slices"]["near_duplicate"]["r_retrieve"] < 1
    # the exact-name request always keeps its tool
    assert pipe["slices"]["exact_name"]["end_to_end"] == 1.0
    assert pipe["slices"]["multi_subgoal"]["r_decompose"] == 1.0
    assert pipe["abstention"]["n_no_tool"] == 2
    assert set(pipe["latency_ms"]) >= {"decompose", "retrieve", "rerank", "total"}
    assert pipe["tokens"]["ratio"] < 0.5
    assert set(summary["baselines"]) == {"bm25", "dense", "rrf", "pipeline"}
    assert summary["baselines"]["dense"]["recall_at_40"] == 1.0  # 17 tools: all of them
    # the fixture bundle has no cross-encoder, and the same bi-encoder re-embeds the same
    # cards: both variants must reproduce the pipeline exactly (invariances)
    for name in ("fused", "same_retriever"):
        variant = summary["variants"][name]
        for key in ("end_to_end", "r_retrieve", "recall", "ndcg_at_10", "mrr"):
            assert variant[key] == pipe[key], (name, key)

    report = (out / "reports" / "eval.md").read_text()
    for heading in ("Recall chain", "Slices", "Baselines", "Variants", "Latency", "tokens"):
        assert heading in report
    plots = out / "plots" / "eval"
    for name in ("recall_retrieved", "recall_menu", "recall_request", "chain", "latency"):
        assert (plots / f"{name}.csv").read_text().count("\n") >= 2
    assert (plots / "recall.png").stat().st_size > 0 and (plots / "latency.png").exists()

    mlflow.set_tracking_uri(f"sqlite:///{tmp_path}/mlflow.db")
    runs = MlflowClient().search_runs(
        [mlflow.get_experiment_by_name("toolsift").experiment_id],
        filter_string="tags.stage = 'evaluate'",
    )
    assert len(runs) == 1
    run = runs[0]
    assert run.data.tags["bundle_version"] == summary["bundle_version"]
    assert run.data.metrics["pipeline.end_to_end"] == pytest.approx(pipe["end_to_end"])
    assert "baselines.bm25.recall_at_40" in run.data.metrics
    artifacts = {a.path for a in MlflowClient().list_artifacts(run.info.run_id)}
    assert {"eval.md", "eval.json", "plots", "records.jsonl"} <= artifacts


def test_run_eval_cli_returns_the_same_shape(fixture_bundle):
    out = run_eval_cli(fixture_bundle, FIXTURES / "queries.jsonl", progress=False)
    assert out["n_queries"] == 12 and out["variants"] == {}
    assert set(out["pipeline"]) >= {"r_retrieve", "end_to_end", "recall", "slices", "tokens"}
    tables = plot_rows(out)
    assert [r["k"] for r in tables["recall_menu"]] == [1, 5, 8]


def test_model_caches_return_what_the_models_do(fixture_bundle, tmp_path):
    from sentence_transformers.cross_encoder import CrossEncoder

    from serving.bundle.encoder import Encoder, PairScorer, stock_model_path
    from training.evaluation.variants import CachedEncoder, CachedPairScorer

    plain = Encoder(fixture_bundle / "models" / "retriever")
    vectors: dict = {}
    cached = CachedEncoder(plain, vectors)
    texts = ["list commits", "post to slack", "list commits"]
    assert cached.encode(texts) == pytest.approx(plain.encode(texts), abs=1e-5)
    assert len(vectors) == 2 and cached.encode([]).shape[0] == 0

    # a cross-encoder with an untrained head: only the cache's bookkeeping is under test
    CrossEncoder(str(stock_model_path()), num_labels=1, device="cpu").save(str(tmp_path / "ce"))
    scorer = PairScorer(tmp_path / "ce")
    scores: dict = {}
    pairs = [("list commits", "github.list_commits"), ("post", "slack.post_message")]
    first = CachedPairScorer(scorer, scores).score(pairs)
    assert first == pytest.approx(scorer.score(pairs), abs=1e-5)
    assert len(scores) == 2
    again = CachedPairScorer(scorer, scores).score(pairs[::-1])
    assert again == pytest.approx(first[::-1], abs=1e-6)
    # bf16 weights score close to fp32's, under keys of their own
    half = CachedPairScorer(PairScorer(tmp_path / "ce", precision="bf16"), scores).score(pairs)
    assert len(scores) == 4 and half == pytest.approx(first, abs=0.05)


def test_reranker_precision_is_checked():
    from serving.bundle.encoder import PairScorer
    from serving.model.config import RuntimeParams

    assert RuntimeParams.from_dict({"reranker_precision": "auto"}).reranker_precision == "auto"
    with pytest.raises(ValueError, match="reranker_precision 'fp16'"):
        RuntimeParams.from_dict({"reranker_precision": "fp16"})
    with pytest.raises(ValueError, match="precision 'int8'"):
        PairScorer("unused", precision="int8")


def test_retrieval_prior_order_is_checked():
    from serving.model.config import RuntimeParams

    assert RuntimeParams().retrieval_prior_order == "fused"  # bundles from before the knob
    assert RuntimeParams.from_dict({"retrieval_prior_order": "dense"}).retrieval_prior_order \
        == "dense"
    with pytest.raises(ValueError, match="retrieval_prior_order 'bm25'"):
        RuntimeParams.from_dict({"retrieval_prior_order": "bm25"})


def test_tie_summary_by_hand():
    ties = [
        MenuTies(0, 0.0, False, 100.0, 100.0),
        MenuTies(2, 0.004, True, 80.0, 200.0),
        MenuTies(1, 0.001, False, 50.0, 50.0),
        MenuTies(0, 0.0, False, 10.0, 10.0),
    ]
    out = tie_summary(ties, 0.005)
    assert out["margin"] == 0.005 and out["n_menus"] == 4
    assert out["menus_reordered"] == 0.5 and out["top_changed"] == 0.25
    assert out["swapped_pairs"] == 3 and out["max_swapped_gap"] == 0.004
    assert out["top_p50_ms"] == pytest.approx(60.0)
    assert out["relevance_top_p50_ms"] == pytest.approx(90.0)
    assert tie_summary([], 0.0)["menus_reordered"] is None


def test_wrapped_selectors_share_one_intent_head_and_keep_its_signals(fixture_bundle):
    from serving.selector import Selector
    from training.evaluation.variants import ModelCache, variant_selector

    # no no-tool model: every step computes the request-intent signal
    plain = Selector.from_bundle(fixture_bundle, overrides={"menu_policy": False})
    cache = ModelCache()
    first = cache.wrap(plain)
    second = variant_selector(Variant.parse("v=runtime:named_connections_first=false"),
                              first, cache)
    assert len(cache.intents) == 1  # one bundle, one retriever: resolved once
    request = "list the open pull requests and post a summary to slack"
    want = [s.signals for s in plain.discover(request).steps]
    assert [s.signals for s in first.discover(request).steps] == want
    assert [s.signals for s in second.discover(request).steps] == want


def test_a_cold_start_variant_runs_the_bundle_with_the_stock_policy(fixture_bundle):
    from serving.model.config import stock_runtime_overrides
    from serving.selector import Selector
    from serving.stages.menu_policy import stock_menu_policy
    from training.evaluation.variants import variant_selector

    base = Selector.from_bundle(fixture_bundle)
    assert base.menu_policy.no_tool is None  # the fixture bundle is exported without one
    variant = Variant.parse(f"first=cold_start:{fixture_bundle}")
    cold = variant_selector(variant, base)
    assert cold.menu_policy == stock_menu_policy() and cold.menu_policy.no_tool is not None
    assert cold.bundle.root == base.bundle.root
    # ... and the stock runtime a first bundle starts from
    stock = stock_runtime_overrides()
    assert stock and {k: getattr(cold.params, k) for k in stock} == stock
    # ... with the fp32 encoders `bundle from-servers` exports, whatever the bundle's runtime
    assert base.params.retriever_weights == "int8"  # params.yaml's, as exported
    assert (cold.params.retriever_weights, cold.params.intent_weights) == ("fp32", "fp32")


def test_the_stock_runtime_is_refused_when_malformed(tmp_path, monkeypatch):
    import serving.model.config as config

    bad = tmp_path / "stock_runtime.json"
    for text in ("{", '{"knobs": {}}', '{"runtime": {"missing_margin": 2.0}}',
                 '{"runtime": {"no_such_knob": 1}}'):
        bad.write_text(text)
        monkeypatch.setattr(config, "STOCK_RUNTIME", bad)
        with pytest.raises(ValueError, match="not a stock runtime"):
            config.stock_runtime_overrides()


def test_the_missing_lookup_knobs_are_the_quietest_that_name_enough():
    from training.checks.missing_margin_check import choose

    rows = [{"margin": 0.0, "names_connection": 0.67}, {"margin": 0.2, "names_connection": 0.66},
            {"margin": 0.4, "names_connection": 0.64}, {"margin": 0.6, "names_connection": 0.60}]
    assert choose(rows, min_named=0.9)["margin"] == 0.0  # none reaches 0.9: the first
    assert choose(rows, min_named=0.65)["margin"] == 0.2
    # within 0.03 of the first row's 0.67: 0.64 is, 0.60 is not
    assert choose(rows, min_named=0.9, named_within=0.03)["margin"] == 0.4
    # with the noise counted (lines named in the requests' own sessions): the quietest
    # row that names enough, whatever its margin
    noisy = [{**r, "lines_per_request_connected": x}
             for r, x in zip(rows, (0.7, 0.5, 0.55, 0.1), strict=True)]
    noisy.append({"margin": 0.0, "cosine_margin": 0.1, "names_connection": 0.665,
                  "lines_per_request_connected": 0.2})
    assert choose(noisy, min_named=0.9, named_within=0.01)["cosine_margin"] == 0.1
    assert "cosine_margin" not in choose(noisy, min_named=0.9, named_within=0.001)


def test_the_write_rule_withholds_least_often_within_the_r_menu_it_may_cost():
    from training.checks.missing_margin_check import choose_withhold

    def row(margin, writes, r_menu):
        return {"withhold_cosine_margin": margin, "slice_menus_with_write": writes,
                "own_r_menu": r_menu}

    rows = [row(None, 0.06, 0.937), row(0.1, 0.06, 0.937), row(0.15, 0.08, 0.953),
            row(0.2, 0.10, 0.953), row(0.3, 0.15, 0.957)]
    # served without the rule: 0.957; within 0.015 -> at least 0.942: 0.15, 0.2 and 0.3
    assert choose_withhold(rows, own_r_menu=0.957, within=0.015)["withhold_cosine_margin"] == 0.15
    # within 0.02 -> 0.937 counts too: None and 0.1 tie at 0.06, the larger margin wins
    assert choose_withhold(rows, own_r_menu=0.957, within=0.02)["withhold_cosine_margin"] == 0.1
    assert choose_withhold(rows, own_r_menu=0.99, within=0.01) is None


def test_a_warmed_replay_embeds_nothing_more_and_selects_the_same(fixture_bundle):
    import numpy as np

    from serving.selector import Selector
    from training.evaluation.variants import ModelCache
    from training.evaluation.warm import replay_texts, warm_encoders

    # fp32, as `bundle from-servers` exports a stock bundle: the head reads the retriever
    plain = Selector.from_bundle(fixture_bundle, overrides={"menu_policy": False,
                                                            "retriever_weights": "fp32"})
    seen: list[str] = []

    class Counting:  # the retriever, noting every text it embeds
        key, model_path, batch_size = plain.encoder.key, plain.encoder.model_path, 8

        def encode(self, texts, *, show_progress=False):
            seen.extend(texts)
            return plain.encoder.encode(texts)

    requests = ["list the open pull requests and post a summary to slack",
                "list the open pull requests", "what is the capital of France"]
    with pytest.raises(TypeError, match="ModelCache.wrap"):
        warm_encoders(plain, requests)
    selector = ModelCache().wrap(plain, encoder=Counting())
    texts = replay_texts(selector, requests)
    assert "list the open pull requests" in texts and len(texts) == len(set(texts))
    assert warm_encoders(selector, requests) == len(texts)  # a stock bundle: no head encoder
    assert set(texts) <= set(seen)  # and the head's probe, checking it reads this encoder
    embedded = list(seen)
    warmed = [selector.discover(r) for r in requests]
    assert seen == embedded  # the replay only looked vectors up
    for got, want in zip(warmed, (plain.discover(r) for r in requests), strict=True):
        assert [[c.tool_id for c in s.menu] for s in got.steps] == [
            [c.tool_id for c in s.menu] for s in want.steps]
        np.testing.assert_allclose([s.signals for s in got.steps],
                                   [s.signals for s in want.steps], atol=1e-5)


def test_small_slices_are_counted_not_scored():
    from serving.model.schema import LabeledQuery
    from training.evaluation.scoring import reported_slices

    queries = [LabeledQuery(f"q{i}", "x", ("a.b",), slices=s) for i, s in enumerate(
        [("single", "api_1"), ("single", "api_2"), ("single", "api_1"), ("multi", "api_3")])]
    assert reported_slices(queries, 0) == (["api_1", "api_2", "api_3", "multi", "single"], 0)
    assert reported_slices(queries, 2) == (["api_1", "single"], 3)
    assert reported_slices(queries, 5) == ([], 5)

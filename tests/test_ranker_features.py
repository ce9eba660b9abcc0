"""The learned ranker: features by hand, history, the bonus, and the train_ltr stage end to
end on the fixture world (mine -> train_ltr -> export --ltr -> the runtime)."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import lightgbm
import numpy as np
import pytest

from serving.bundle.files import BundleError, finalize_manifest, load_bundle, load_ranker
from serving.model.io import load_catalog
from serving.model.selection import Candidate, Subgoal
from serving.stages.ranker_features import (
    CROSS_ENCODER_FEATURES,
    FEATURE_NAMES,
    MISSING_RANK,
    MISSING_SCORE,
    Calibration,
    History,
    LogitBudget,
    Outcomes,
    capability_keys,
    exploration_bonus,
    feature_matrix,
)
from training.ltr.fit import WITHOUT_LOGIT

ROOT = Path(__file__).resolve().parents[1]
TRACES = Path(__file__).parent / "fixtures" / "traces.jsonl"


@pytest.fixture(scope="module")
def cards(fixture_catalog):
    return {c.tool_id: c for c in load_catalog(fixture_catalog, strict=True).items}


def test_features_by_hand(cards):
    card = cards["github.list_commits"]  # list:commit; entities commit, repository
    subgoal = Subgoal("list commits and deploys", operations=("list",),
                      entities=("commit", "deploy"))
    assert capability_keys(subgoal) == ("list:commit", "list:deploy")
    history = History.from_events(
        [(("list:commit",), card.tool_id, True)] * 3
        + [(("list:commit",), card.tool_id, False), (("get:diff",), card.tool_id, True)],
        as_of="2026-11-01",
    )
    cand = Candidate(card.tool_id, 0.03, {"fused": 0.03, "rank_dense": 2.0, "exact": 0.0,
                                          "cross_encoder": 1.5})
    row = dict(zip(FEATURE_NAMES, feature_matrix(subgoal, [cand], cards, history)[0],
                   strict=True))
    assert row["cross_encoder"] == 1.5 and row["fused"] == 0.03 and row["rank_dense"] == 2.0
    assert row["rank_bm25"] == row["rank_capability"] == MISSING_RANK
    assert row["operation_match"] == 1.0 and row["entity_match"] == 0.5
    assert row["success_tool"] == pytest.approx((4 + 1) / (5 + 2))  # 4 of 5, Beta(1, 1)
    assert row["uses_tool"] == pytest.approx(math.log1p(5))
    assert row["success_similar"] == pytest.approx((3 + 1) / (4 + 2))  # list:commit only
    added = card.added_at[:10]
    from datetime import date
    days = (date(2026, 11, 1) - date.fromisoformat(added)).days
    assert row["age_days"] == pytest.approx(math.log1p(max(days, 0)))
    # cost and latency only break near-ties in the menu stage, never inside the model
    assert "cost" not in FEATURE_NAMES and "latency_ms" not in FEATURE_NAMES
    # a training group's history leaves its own request's events out
    own = feature_matrix(subgoal, [cand], cards,
                         history.without([(("list:commit",), card.tool_id, True)]))[0]
    assert own[FEATURE_NAMES.index("success_tool")] == pytest.approx((3 + 1) / (4 + 2))
    assert own[FEATURE_NAMES.index("success_similar")] == pytest.approx((2 + 1) / (3 + 2))


def test_the_cross_encoders_rank_and_gap_by_hand(cards):
    subgoal = Subgoal("list commits", operations=("list",), entities=("commit",))
    ids = sorted(cards)[:3]
    history = History.from_events([], as_of="2026-11-01")
    logits = [1.5, 3.0, 1.5]
    cands = [Candidate(t, 0.03, {"fused": 0.03, "cross_encoder": z})
             for t, z in zip(ids, logits, strict=True)]
    rows = feature_matrix(subgoal, cands, cards, history)
    rank = rows[:, FEATURE_NAMES.index("rank_cross_encoder")]
    gap = rows[:, FEATURE_NAMES.index("cross_encoder_gap")]
    # 3.0 is first; the two at 1.5 tie behind it: rank 2 each, 1.5 below the best
    assert rank.tolist() == [2.0, 1.0, 2.0] and gap.tolist() == [1.5, 0.0, 1.5]
    # the list's order changes nothing; a tool the cross-encoder did not score has no
    # logit, rank or gap, and the scored ones rank among themselves
    again = feature_matrix(subgoal, cands[::-1], cards, history)
    assert again[::-1, -2:].tolist() == rows[:, -2:].tolist()
    flat = [Candidate(t, 0.03, {"fused": 0.03}) for t in ids]
    unscored = feature_matrix(subgoal, flat, cards, history)
    logit = [FEATURE_NAMES.index(n) for n in CROSS_ENCODER_FEATURES]
    assert np.isnan(unscored[:, logit]).all()
    partly = feature_matrix(subgoal, [cands[0], flat[1], cands[2]], cards, history)
    assert partly[:, logit][[0, 2]].tolist() == [[1.5, 1.0, 0.0]] * 2
    assert np.isnan(partly[1, logit]).all()
    assert not {"cross_encoder", "rank_cross_encoder", "cross_encoder_gap"} & set(WITHOUT_LOGIT)


def test_history_without_is_the_inverse_of_adding_events():
    base = [(("get:x",), "a.b", True), (("get:x", "list:y"), "a.c", False)]
    request = [(("get:x", "list:y"), "a.b", True), (("list:y",), "a.c", True)]
    full = History.from_events(base + request, as_of="2026-01-02")
    less = full.without(request)
    # a two-key event counted under both keys leaves both (on() sums over keys)
    assert less.on(("get:x", "list:y"), "a.b") == Outcomes(1, 0)
    assert less.on(("list:y",), "a.c") == Outcomes(0, 1)
    assert less.tool("a.b") == Outcomes(1, 0) and less.tool("a.c") == Outcomes(0, 1)
    assert full.without([]) is full and full.tool("a.b") == Outcomes(2, 0)  # full untouched


def test_history_round_trip_and_unknown_tools(tmp_path):
    history = History.from_events([(("get:x",), "a.b", True), ((), "a.c", False)],
                                  as_of="2026-01-02")
    history.save(tmp_path / "h.json")
    again = History.load(tmp_path / "h.json")
    assert again == history and again.tool("a.c") == Outcomes(0, 1)
    assert again.tool("never.used").rate() == 0.5 and again.on(("get:x",), "a.c") == Outcomes()


def test_exploration_bonus_shrinks_with_history_and_is_capped():
    assert exploration_bonus(0, rate=0.0, cap=0.1) == 0.0
    assert exploration_bonus(0, rate=0.5, cap=0.1) == 0.1
    assert exploration_bonus(3, rate=0.1, cap=0.5) == pytest.approx(0.05)
    assert exploration_bonus(99, rate=0.1, cap=0.5) == pytest.approx(0.01)


def test_train_ltr_stage_exports_a_ranker_the_runtime_uses(
    tmp_path, monkeypatch, fixture_catalog, fixture_bundle
):
    from serving.bundle.encoder import stock_model_path
    from serving.selector import Selector
    from serving.stages.rerank import DenseOrderReranker, LearnedReranker
    from training import export, mine, train_ltr
    from training.train_reranker import load_cross_encoder

    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path}/mlflow.db")
    params = tmp_path / "params.yaml"
    text = (ROOT / "params.yaml").read_text()
    params.write_text(text.replace("  min_child_samples: 20", "  min_child_samples: 1")
                      .replace("  n_estimators: 200 ", "  n_estimators: 20 ")
                      .replace("  n_valid_groups: 200 ", "  n_valid_groups: 2 ")
                      .replace("  n_stack_groups: 400", "  n_stack_groups: 3")
                      .replace("  valid_share: 0.15 ", "  valid_share: 0.5 "))
    train = tmp_path / "train"
    mine.main([str(params), str(fixture_catalog), str(TRACES), str(fixture_bundle), str(train),
               str(tmp_path / "sampling.png"), str(tmp_path / "mine.json")])
    reranker = tmp_path / "reranker"
    load_cross_encoder(stock_model_path(), max_length=64).save(str(reranker))
    ltr, metrics_path = tmp_path / "ltr", tmp_path / "train_ltr.json"
    train_ltr.main([str(params), str(fixture_catalog), str(TRACES), str(train), str(ltr),
                    str(metrics_path), "--retriever", str(stock_model_path()),
                    "--reranker", str(reranker)])

    metrics = json.loads(metrics_path.read_text())
    assert metrics["n_train_groups"] > 0 and metrics["n_valid_groups"] > 0
    for name in ("ltr", "ltr_with_logit", "ltr_without_logit", "cross_encoder", "fused", "dense"):
        for m in ("mrr", "recall_at_1", "recall_at_8"):
            assert 0.0 <= metrics[f"valid_{name}_{m}"] <= 1.0
    # the stack groups (valid queries after the validation ones) train a second ranker,
    # kept when it orders the valid groups better
    assert metrics["n_stack_groups"] > 0
    stacked = metrics["trained_on"].startswith("train+stack")
    stack_gain = metrics["valid_ltr_stacked_without_logit_mrr"] - metrics[
        "valid_ltr_without_logit_mrr"]
    assert metrics["valid_stack_mrr_gain"] == pytest.approx(stack_gain, abs=1e-3)
    assert stacked == (metrics["valid_stack_mrr_gain"] > 0)
    # auto: both rankers fit, the logit kept only where it paid on the valid groups
    chosen = metrics["features"]
    on = "stacked_" if stacked else ""
    gain = metrics[f"valid_ltr_{on}with_logit_mrr"] - metrics[f"valid_ltr_{on}without_logit_mrr"]
    assert metrics["valid_logit_mrr_gain"] == pytest.approx(gain, abs=1e-3)
    paid = gain >= 0.01 and metrics["valid_logit_gain_p05"] > 0
    assert chosen == ("with_logit" if paid else "without_logit")
    # the queries after the stack ones replay without the cross-encoder, only for a ranker
    # that does not read its logit, which is refit with them and kept when that pays
    if chosen == "without_logit":
        assert metrics["n_more_groups"] > 0
        more_gain = metrics[f"valid_ltr_{on}more_without_logit_mrr"] - metrics[
            f"valid_ltr_{on}without_logit_mrr"]
        assert metrics["valid_more_mrr_gain"] == pytest.approx(more_gain, abs=1e-3)
        on += "more_" if metrics["valid_more_mrr_gain"] > 0 else ""
    else:
        assert metrics["n_more_groups"] == 0
    assert metrics["trained_on"].endswith("+more") == ("more_" in on)
    assert metrics["valid_ltr_mrr"] == metrics[f"valid_ltr_{on}{chosen}_mrr"]
    names = json.loads((ltr / "features.json").read_text())
    assert names == list(FEATURE_NAMES if chosen == "with_logit" else WITHOUT_LOGIT)
    # every budget of the grid was tried for the ranker with the logit, the full one first;
    # the kept one ships beside that ranker only
    trials = metrics["valid_logit_budgets"]
    assert len(trials) == 16 and trials[0]["depth"] == 0 and trials[0]["skip_gap"] == 0.0
    assert all(t["pairs"] <= trials[0]["pairs"] and 0 <= t["skipped"] <= 1 for t in trials)
    assert (ltr / "logit_budget.json").is_file() == (chosen == "with_logit")
    assert (metrics["logit_budget"] is not None) == (chosen == "with_logit")
    assert sum(metrics["importance_gain_share"].values()) == pytest.approx(1.0, abs=1e-3)
    booster = lightgbm.Booster(model_file=str(ltr / "model.txt"))
    assert booster.num_feature() == len(names)

    # the ranker ships only where it beats the dense order on the valid groups; the dense
    # order's calibration ships either way
    shipped = json.loads((ltr / "order.json").read_text())
    gain = metrics["valid_ltr_over_dense_mrr_gain"]
    assert metrics["ships"] == shipped["order"] == ("ltr" if gain > 0 else "dense")
    assert shipped["dense_calibration"] == metrics["dense_calibration"]
    fallback = tmp_path / "ltr-dense"
    shutil.copytree(ltr, fallback)
    for directory, order in ((ltr, "ltr"), (fallback, "dense")):  # both paths, whatever won
        (directory / "order.json").write_text(json.dumps({**shipped, "order": order}))
    dense_bundle = tmp_path / "dense-bundle"
    export.main([str(params), str(fixture_catalog), str(dense_bundle), "--retriever",
                 str(stock_model_path()), "--ltr", str(fallback)])
    selector = Selector.from_bundle(dense_bundle)
    assert isinstance(selector.reranker, DenseOrderReranker)
    calib = shipped["dense_calibration"]
    assert selector.reranker.calibration == Calibration(calib["a"], calib["b"],
                                                        calib["min_relevance"])
    assert selector.ranking_floor == max(selector.params.min_relevance, calib["min_relevance"])
    step = selector.discover("list the commits of checkout-service").steps[0]
    assert step.menu and "ltr" not in step.menu[0].scores
    (dense_bundle / "models" / "ltr" / "order.json").write_text('{"order": "best"}')
    with pytest.raises(BundleError, match="order.json"):
        Selector.from_bundle(dense_bundle)

    bundle = tmp_path / "bundle"
    export.main([str(params), str(fixture_catalog), str(bundle), "--retriever",
                 str(stock_model_path()), "--reranker", str(reranker), "--ltr", str(ltr)])
    selector = Selector.from_bundle(bundle)
    assert isinstance(selector.reranker, LearnedReranker)
    step = selector.discover("list the commits of checkout-service").steps[0]
    assert step.menu and all(0.0 <= c.score <= 1.0 for c in step.menu)
    assert "ltr" in step.menu[0].scores

    # a ranker trained on other features is refused, by export and by the runtime
    other = tmp_path / "ltr-other"
    shutil.copytree(ltr, other)
    (other / "features.json").write_text(json.dumps(["cross_encoder", "no_such_feature"]))
    with pytest.raises(ValueError, match="features.json"):
        export.main([str(params), str(fixture_catalog), str(tmp_path / "b2"), "--reranker",
                     str(reranker), "--ltr", str(other)])
    (bundle / "models" / "ltr" / "features.json").write_text(
        json.dumps(["cross_encoder", "no_such_feature"])
    )
    old = json.loads((bundle / "manifest.json").read_text())
    (bundle / "manifest.json").unlink()
    finalize_manifest(bundle, created_at=old["created_at"], git_rev=old["git_rev"],
                      params=old["params"], models=old["models"])
    with pytest.raises(BundleError, match="features.json"):
        load_ranker(load_bundle(bundle))
    assert np.isfinite(booster.predict(np.zeros((1, len(names))))).all()

    # a ranker without the logit: exported without any cross-encoder, it never needs one
    def train_choosing(before: str, choice: str) -> tuple[Path, Path]:
        """train_ltr again with `cross_encoder_feature: choice` (and the learned ranker
        shipped whatever the dense order scores): its model dir and metrics."""
        params.write_text(params.read_text().replace(
            f"  cross_encoder_feature: {before}", f"  cross_encoder_feature: {choice}"
        ).replace("  dense_fallback: true", "  dense_fallback: false"))
        out, out_metrics = tmp_path / f"ltr-{choice}", tmp_path / f"{choice}.json"
        train_ltr.main([str(params), str(fixture_catalog), str(TRACES), str(train), str(out),
                        str(out_metrics), "--retriever", str(stock_model_path()),
                        "--reranker", str(reranker)])
        return out, out_metrics

    lean, lean_metrics = train_choosing("auto", "never")
    assert json.loads(lean_metrics.read_text())["features"] == "without_logit"
    assert json.loads((lean / "features.json").read_text()) == list(WITHOUT_LOGIT)
    (other / "features.json").write_text(json.dumps(list(FEATURE_NAMES)))
    with pytest.raises(ValueError, match="needs --reranker"):
        export.main([str(params), str(fixture_catalog), str(tmp_path / "b3"), "--ltr", str(other)])
    lean_bundle = tmp_path / "lean-bundle"
    export.main([str(params), str(fixture_catalog), str(lean_bundle), "--retriever",
                 str(stock_model_path()), "--ltr", str(lean)])
    selector = Selector.from_bundle(lean_bundle)
    assert isinstance(selector.reranker, LearnedReranker)
    assert selector.reranker.inner.name == "fused"
    step = selector.discover("list the commits of checkout-service").steps[0]
    assert step.menu and "ltr" in step.menu[0].scores
    assert "cross_encoder" not in step.menu[0].scores
    # a ranker that always reads the logit ships the budget it was fit under, and the
    # runtime scores only the candidates that budget selects
    reader, reader_metrics = train_choosing("never", "always")
    kept = json.loads(reader_metrics.read_text())["logit_budget"]
    budget = LogitBudget.load(reader / "logit_budget.json")
    assert (budget.depth, budget.skip_gap) == (kept["depth"], kept["skip_gap"])
    reader_bundle = tmp_path / "reader-bundle"
    export.main([str(params), str(fixture_catalog), str(reader_bundle), "--retriever",
                 str(stock_model_path()), "--reranker", str(reranker), "--ltr", str(reader)])
    selector = Selector.from_bundle(reader_bundle)
    assert selector.reranker.inner.name == "cross_encoder"
    assert selector.reranker.logit_budget == budget
    assert selector.discover("list the commits of checkout-service").steps[0].menu
    (reader_bundle / "models" / "ltr" / "logit_budget.json").write_text('{"depth": 1}')
    with pytest.raises(BundleError, match="logit_budget.json"):
        Selector.from_bundle(reader_bundle)

    # ... and the runtime scores it without lightgbm, scipy or torch (the base install)
    out = subprocess.run(
        [sys.executable, "-c", NO_TRAINING_STACK, str(lean_bundle)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == " ".join(
        c.tool_id for c in step.menu
    )


NO_TRAINING_STACK = """
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        blocked = {'torch', 'transformers', 'sentence_transformers', 'lightgbm', 'scipy',
                   'sklearn'}
        if name.split('.')[0] in blocked:
            raise ImportError(f'{name} is blocked: the runtime must not need it')
sys.meta_path.insert(0, Blocker())
from serving.selector import Selector
step = Selector.from_bundle(sys.argv[1]).discover('list the commits of checkout-service').steps[0]
print(' '.join(c.tool_id for c in step.menu))
"""


def test_list_features_by_hand(cards):
    # two github tools and one slack tool; the slack tool was missed by the dense retriever
    subgoal = Subgoal("list commits")
    a = Candidate("github.list_commits", 0.0, {"score_dense": 0.8})
    b = Candidate("github.search_code", 0.0, {"score_dense": 0.5})
    c = Candidate("slack.post_message", 0.0, {})
    history = History()
    rows = {
        cand.tool_id: dict(zip(FEATURE_NAMES, r, strict=True))
        for cand, r in zip([a, b, c], feature_matrix(subgoal, [a, b, c], cards, history),
                           strict=True)
    }
    assert rows["github.list_commits"]["score_dense"] == 0.8
    assert rows["github.list_commits"]["dense_gap"] == 0.0
    assert rows["github.search_code"]["dense_gap"] == pytest.approx(0.3)  # 0.8 - 0.5
    # the search tool's server is matched by list_commits' 0.8; one other github candidate
    assert rows["github.search_code"]["server_best_dense"] == 0.8
    assert rows["github.search_code"]["server_candidates"] == pytest.approx(math.log1p(1))
    assert rows["slack.post_message"]["score_dense"] == MISSING_SCORE
    assert rows["slack.post_message"]["dense_gap"] == pytest.approx(0.8 - MISSING_SCORE)
    assert rows["slack.post_message"]["server_candidates"] == 0.0
    # the list's order does not matter
    again = feature_matrix(subgoal, [c, b, a], cards, history)
    np.testing.assert_array_equal(again[2], list(rows["github.list_commits"].values()))


class _ReversingScorer:
    """Logits that put the list's last candidate first: a cross-encoder that reorders."""

    def score(self, pairs):
        return [float(i) for i in range(len(pairs))]


def test_features_but_the_logit_do_not_depend_on_the_reranker(cards):
    # train_ltr replays its more groups through the fused order instead of the
    # cross-encoder: a ranker without the logit must see the same rows either way
    from serving.stages.rerank import CrossEncoderReranker, FusedOrderReranker

    subgoal = Subgoal("list commits")
    found = [
        Candidate("github.list_commits", 0.0, {"score_dense": 0.8, "fused": 0.03,
                                               "rank_dense": 1.0}),
        Candidate("github.search_code", 0.0, {"score_dense": 0.5, "fused": 0.02,
                                              "rank_dense": 2.0, "rank_bm25": 1.0}),
        Candidate("slack.post_message", 0.0, {"fused": 0.01, "rank_bm25": 2.0}),
    ]
    by_reranker = []
    for reranker in (CrossEncoderReranker(_ReversingScorer(), cards),
                     FusedOrderReranker(n_sources=3)):
        scored = reranker.rerank(subgoal, found)
        matrix = feature_matrix(subgoal, scored, cards, History())
        by_reranker.append({c.tool_id: row for c, row in zip(scored, matrix, strict=True)})
    through_cross_encoder, through_fused = by_reranker
    assert list(through_cross_encoder) != list(through_fused)  # the orders differ
    logit = [FEATURE_NAMES.index(n) for n in CROSS_ENCODER_FEATURES]
    for tool_id, row in through_fused.items():
        assert np.isnan(row[logit]).all()  # no logit: missing, as its rank and gap
        assert np.delete(row, logit).tolist() == np.delete(
            through_cross_encoder[tool_id], logit).tolist()


def test_history_from_traces_keys_events_by_the_request_id_mining_gives_them():
    from features.history import history_from_traces, request_key
    from serving.model.schema import Trace
    from serving.model.selection import Subgoal

    traces = [
        Trace("list commits", "git.log", True, request_id="r1", ts="2026-10-02T00:00:00Z"),
        Trace("list commits", "git.blame", False, request_id="r1", ts="2026-10-01T00:00:00Z"),
        Trace("open an issue", "gh.issue", True, request="  Open an ISSUE. "),
    ]
    history, by_request = history_from_traces(
        traces, lambda text: Subgoal(text=text, operations=("list",))
    )
    assert request_key(traces[2]) == "anon:open an issue"
    assert sorted(by_request) == ["anon:open an issue", "r1"]
    assert by_request["r1"] == [(("list:*",), "git.log", True), (("list:*",), "git.blame", False)]
    assert history.as_of == "2026-10-02" and history.tool("git.blame") == Outcomes(0, 1)
    assert history.without(by_request["r1"]).tool("git.log") == Outcomes(0, 0)


def test_an_empty_list_has_an_empty_feature_matrix(cards):
    assert feature_matrix(Subgoal("list commits"), [], cards, History()).shape == (
        0, len(FEATURE_NAMES))

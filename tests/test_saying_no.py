"""Saying no: the menu's bars, the no-tool decision, what a session lacks, and the tuning
that chooses them (training.tune_menus), on the fixture catalog and a real bundle."""

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from serving.bundle.files import BundleError, finalize_manifest, load_bundle, load_menu_policy
from serving.model.io import load_catalog
from serving.model.selection import Candidate, SessionContext, Subgoal
from serving.selector import Selector
from serving.stages.abstain import (
    OUTSIDE_SESSION,
    SIGNAL_NAMES,
    NoToolModel,
    abstaining_steps,
    plain_words,
    step_signals,
    word_share,
)
from serving.stages.logistic import fit_logistic
from serving.stages.menu_policy import (
    MENU_POLICY_FILE,
    WRITE_RISKS,
    MenuBars,
    MenuPolicy,
    cut_menu,
    other_operation,
    withhold_writes,
)
from serving.stages.missing_access import (
    closer_than_session,
    closest_cosine,
    missing_access,
    unconnected_products,
)
from serving.stages.rerank import RerankStage
from training.evaluation.variants import ModelCache, Variant, variant_selector
from training.no_tool.operating_point import choose_threshold
from training.tune_menus import (
    Params,
    Replayed,
    SharedCuts,
    choose_bars,
    choose_step_threshold,
    menu_curve,
    menu_point,
    replay_overrides,
    step_decisions,
    tune_menus,
    tune_share,
)


@pytest.fixture(scope="module")
def cards(fixture_catalog):
    return {c.tool_id: c for c in load_catalog(fixture_catalog, strict=True).items}


def _c(tool_id, score, **scores):
    return Candidate(tool_id, score, scores)


def test_cut_menu_holds_writes_to_a_higher_bar_and_keeps_a_named_tool(cards):
    ranked = [
        _c("slack.post_message", 0.60),  # write: 0.60 >= 0.5
        _c("github.list_commits", 0.30),  # read: 0.30 >= 0.1 and >= 0.2 * 0.60 = 0.12
        _c("github.create_pull_request", 0.40),  # write: 0.40 < 0.5
        _c("github.search_code", 0.11),  # read: 0.11 < 0.12 (relative)
        _c("k8s.get_pod_logs", 0.05),  # read: 0.05 < 0.1
        _c("k8s.rollback_deployment", 0.0, exact=1.0),  # named exactly: always kept
    ]
    bars = MenuBars(read=0.1, write=0.5, relative=0.2)
    menu, dropped = cut_menu(ranked, cards, bars, size=8)
    assert [c.tool_id for c in menu] == [
        "slack.post_message", "github.list_commits", "k8s.rollback_deployment"]
    assert dropped == [
        ("github.create_pull_request", "rerank:below_bar"),
        ("github.search_code", "rerank:below_relative"),
        ("k8s.get_pod_logs", "rerank:below_bar"),
    ]
    menu, dropped = cut_menu(ranked, cards, MenuBars(), size=2)  # no bars: size alone cuts
    assert len(menu) == 2 and [r for _, r in dropped] == ["rerank:below_menu"] * 4


def test_a_write_needs_a_share_of_the_steps_best_and_none_joins_an_unconnected_step(cards):
    ranked = [
        _c("github.list_commits", 0.60),  # read: kept
        _c("slack.post_message", 0.20),  # write: 0.20 >= 0.25 * 0.60 = 0.15
        _c("github.create_pull_request", 0.10),  # write: 0.10 < 0.15
        _c("github.search_code", 0.05),  # read: no relative bar on reads here
        _c("k8s.rollback_deployment", 0.0, exact=1.0),  # named exactly: always kept
    ]
    bars = MenuBars(write_relative=0.25)
    menu, dropped = cut_menu(ranked, cards, bars, size=8)
    assert [c.tool_id for c in menu] == ["github.list_commits", "slack.post_message",
                                         "github.search_code", "k8s.rollback_deployment"]
    assert dropped == [("github.create_pull_request", "rerank:write_below_relative")]
    # the step names a product the session lacks: no write of another product, even the best
    writes_first = [_c("slack.post_message", 0.9), *ranked]
    menu, dropped = cut_menu(writes_first, cards, MenuBars(), size=8, keep_best=True,
                             no_writes=True)
    assert [c.tool_id for c in menu] == ["github.list_commits", "github.search_code",
                                         "k8s.rollback_deployment"]
    assert {r for _, r in dropped} == {"rerank:unconnected_product"}
    assert MenuBars(write_relative=0.25).to_dict()["write_relative"] == 0.25
    assert "write_relative" not in MenuBars().to_dict()  # older bundles read the same
    assert MenuBars(0.1, 0.2, 0.3, 0.9).mass == 0.9  # the tuning grid builds them by position


def test_a_write_that_does_something_else_than_the_step_asks_leaves_the_menu(cards):
    def step(*operations):
        return Subgoal("step", operations=operations)

    refund = cards["stripe.refund_payment"]  # refund:payment
    assert other_operation(step("restart"), refund)  # run against refund
    assert not other_operation(step("refund"), refund)
    # create and update are one family: a step read as an update, a tool that creates
    assert not other_operation(step("update"), cards["github.create_pull_request"])
    assert not other_operation(step(), refund)  # no operation read: no evidence
    assert not other_operation(step("list", "restart"), cards["github.list_commits"])  # a read
    ranked = [_c("stripe.refund_payment", 0.9), _c("github.list_commits", 0.6),
              _c("github.create_pull_request", 0.1, exact=1.0)]
    menu, dropped = cut_menu(ranked, cards, MenuBars(), size=8, keep_best=True,
                             other_operations={"stripe.refund_payment",
                                               "github.create_pull_request"})
    # the best is not kept for being best; a tool named exactly stays
    assert [c.tool_id for c in menu] == ["github.list_commits", "github.create_pull_request"]
    assert dropped == [("stripe.refund_payment", "rerank:other_operation")]


def test_a_product_named_while_its_family_is_connected_is_not_lacked():
    step = Subgoal("set the assignee on the old Jira", named_access=("jira",))
    distinctive = {"jira", "jira_legacy", "slack"}
    legacy = SessionContext.from_dict({"connections": ["jira_legacy", "slack"]})
    assert unconnected_products(step, distinctive, legacy) == []
    other = SessionContext.from_dict({"connections": ["slack"]})
    assert unconnected_products(step, distinctive, other) == ["jira"]


def test_a_better_tool_outside_the_session_withholds_the_writes_of_the_menu(cards):
    menu = [_c("slack.post_message", 0.9),  # write: withheld
            _c("github.list_commits", 0.6),  # read: stays
            _c("k8s.rollback_deployment", 0.5),  # destructive: withheld
            _c("github.create_pull_request", 0.1, exact=1.0)]  # named exactly: stays
    kept, withheld = withhold_writes(menu, cards)
    assert [c.tool_id for c in kept] == ["github.list_commits", "github.create_pull_request"]
    assert withheld == [("slack.post_message", "rerank:missing_access"),
                        ("k8s.rollback_deployment", "rerank:missing_access")]


def test_a_mass_cut_sizes_the_menu_by_how_sure_the_step_is(cards):
    sure = [_c("github.list_commits", 0.90), _c("github.search_code", 0.05),
            _c("github.compare_commits", 0.05)]
    unsure = [_c("github.list_commits", 0.30), _c("github.search_code", 0.30),
              _c("github.compare_commits", 0.30)]
    bars = MenuBars(mass=0.9)
    # 0.90 / 1.00 of the relevance is held after the first tool: the rest leave
    menu, dropped = cut_menu(sure, cards, bars, size=8)
    assert [c.tool_id for c in menu] == ["github.list_commits"]
    assert [r for _, r in dropped] == ["rerank:below_mass"] * 2
    # a third each: 1/3, 2/3 < 0.9, so all three stay
    assert len(cut_menu(unsure, cards, bars, size=8)[0]) == 3


def test_a_served_steps_best_stays_whatever_the_bars(cards):
    ranked = [_c("slack.post_message", 0.08), _c("github.list_commits", 0.06)]
    bars = MenuBars(read=0.05, write=0.1)  # the write best misses its bar, the read clears
    assert [c.tool_id for c in cut_menu(ranked, cards, bars, size=8)[0]] == [
        "github.list_commits"]
    kept, _ = cut_menu(ranked, cards, bars, size=8, keep_best=True)
    assert [c.tool_id for c in kept] == ["slack.post_message", "github.list_commits"]


def test_menu_bars_refuse_values_outside_zero_one():
    with pytest.raises(ValueError, match="write"):
        MenuBars(read=0.1, write=1.5)


def test_step_signals_by_hand():
    sg = Subgoal("list commits", operations=("list",), entities=("commit",))
    ranked = [
        _c("a.x", 0.8, score_dense=0.7, score_bm25=3.0, rank_dense=1, rank_bm25=1,
           rank_capability=1),
        _c("a.y", 0.2, score_dense=0.5, rank_dense=2, rank_bm25=2),
        _c("b.z", 0.1, score_bm25=1.0, rank_bm25=3),
    ]
    got = dict(zip(SIGNAL_NAMES, step_signals(sg, ranked, ["a"], {"list", "commit"}, 1.5, -0.5),
                   strict=True))
    assert got == pytest.approx({
        "top_relevance": 0.8, "second_relevance": 0.2, "top_cosine": 0.7,
        "cosine_gap": 0.2, "top_bm25": math.log1p(3.0), "retrievers_agree": 1.0,
        "top5_overlap": 2 / 5,  # dense top 5 {x, y}, BM25 top 5 {x, y, z}
        "capability_hits": math.log1p(1), "has_operation": 1.0, "has_entity": 1.0,
        "names_session_product": 1.0, "catalog_words": 1.0, "unknown_words": 0.0,
        "request_intent": 1.5,  # the head's logit, passed through
        "pair_served": -0.5,  # the pair head's best logit, passed through
    })
    empty = step_signals(Subgoal("hello"), [])
    assert empty[SIGNAL_NAMES.index("top_cosine")] == -1.0
    assert empty[SIGNAL_NAMES.index("unknown_words")] == pytest.approx(math.log1p(1))
    assert empty.sum() == pytest.approx(-1.0 + math.log1p(1))
    # "book", "flight", "lisbon" are no card's words; numbers and dates do not count
    words = plain_words("book 2 flights to Lisbon on 2026-11-16")
    assert words == ["book", "flight", "lisbon"]
    assert word_share(words, {"book"}) == pytest.approx(1 / 3)
    taxi = step_signals(Subgoal("get me a taxi to the airport at 15:30"), [], (), {"get"})
    assert taxi[SIGNAL_NAMES.index("unknown_words")] == pytest.approx(math.log1p(2))


def test_no_tool_model_probability_and_checks():
    model = NoToolModel(("top_relevance", "top_cosine"), (2.0, 4.0), -1.0, 0.5)
    x = np.zeros(len(SIGNAL_NAMES))
    x[0], x[2] = 0.5, 0.25
    # 2 * 0.5 + 4 * 0.25 - 1 = 1 -> sigmoid(1)
    assert model.probability(x) == pytest.approx(1 / (1 + math.exp(-1)))
    assert model.probabilities(np.stack([x, x]))[1] == pytest.approx(model.probability(x))
    assert NoToolModel.from_dict(model.to_dict()) == model
    stepped = NoToolModel(("top_relevance",), (1.0,), 0.0, 0.5, step_threshold=0.1)
    assert NoToolModel.from_dict(stepped.to_dict()) == stepped and model.step_bar == 0.5
    with pytest.raises(ValueError, match="step_threshold"):
        NoToolModel(("top_relevance",), (1.0,), 0.0, 0.5, step_threshold=0.6)
    with pytest.raises(ValueError, match="unknown"):
        NoToolModel(("made_up",), (1.0,), 0.0, 0.5)
    with pytest.raises(ValueError, match="missing or malformed"):
        NoToolModel.from_dict({"signals": ["top_relevance"]})


def test_a_request_abstains_whole_and_its_served_steps_keep_a_lower_bar():
    model = NoToolModel(("top_relevance",), (1.0,), 0.0, 0.5, step_threshold=0.2)
    # every step below 0.5: the whole request abstains
    assert abstaining_steps([0.4, 0.3], model) == [True, True]
    # one step served: the others abstain only below 0.2; a step the model does not
    # decide (it names a tool exactly) never abstains
    assert abstaining_steps([0.9, 0.3, 0.1, None], model) == [False, False, True, False]
    assert abstaining_steps([None, 0.1], model) == [False, True]
    assert abstaining_steps([], model) == []


def test_fit_logistic_recovers_a_direction_and_refuses_one_class():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] - 0.5 * x[:, 1] + rng.normal(scale=0.3, size=400) > 0).astype(float)
    fit = fit_logistic(x, y, l2=1.0)
    assert fit.weights[0] > 0 > fit.weights[1] and abs(fit.bias) < 1.0
    assert fit_logistic(x, np.ones(400)) is None


def test_missing_access_groups_what_beats_the_session(cards):
    ctx = SessionContext.from_dict({"connections": ["github", "slack"]})
    outside = [
        _c("jira.create_issue", 0.9),  # needs jira, beats the session's best (0.3)
        _c("github.compare_commits", 0.8),  # callable: not missing
        _c("jira.search_issues", 0.5),
        _c("gitlab.search_code", 0.2),  # needs gitlab, below the session's best
    ]
    found = missing_access(outside, cards, ctx, above=0.3)
    assert [(m.kind, m.name, m.tool_ids) for m in found] == [
        ("connection", "jira", ("jira.create_issue", "jira.search_issues"))]
    named = missing_access(outside, cards, ctx, above=0.3, named=["gitlab"])
    assert [m.name for m in named] == ["gitlab", "jira"]  # named: relevance 1.0, first
    # a margin over the session's best, and a cap: the named product stays first
    assert missing_access(outside, cards, ctx, above=0.3 + 0.65) == ()
    assert [m.name for m in missing_access(outside, cards, ctx, above=0.3,
                                           named=["gitlab"], at_most=1)] == ["gitlab"]
    assert "connect jira to use jira.create_issue" in found[0].line()


def test_an_outside_tool_is_named_only_where_the_retriever_also_puts_it_closer(cards):
    ctx = SessionContext.from_dict({"connections": ["github", "slack"]})
    session = [_c("github.compare_commits", 0.2, score_dense=0.50),
               _c("slack.post_message", 0.1, score_dense=0.30), _c("github.list_commits", 0.1)]
    assert closest_cosine(session) == 0.50 and closest_cosine([]) == -1.0
    outside = [
        _c("jira.create_issue", 0.9, score_dense=0.52),  # closer than the session's best
        _c("jira.search_issues", 0.7, score_dense=0.505),  # not closer by 0.01
        *session,  # callable: always kept
        _c("gitlab.search_code", 0.6),  # the dense retriever missed it: cosine -1
    ]
    kept = closer_than_session(outside, cards, ctx, closest=0.50, margin=0.01)
    assert [c.tool_id for c in kept] == [
        "jira.create_issue", "github.compare_commits", "slack.post_message",
        "github.list_commits"]
    assert not [c for c in closer_than_session(outside, cards, ctx, closest=0.50, margin=0.03)
                if c.tool_id.split(".")[0] in ("jira", "gitlab")]
    # nothing callable found for the step (closest -1): every tool outside is closer
    lacked_only = [c for c in outside if c.tool_id.split(".")[0] in ("jira", "gitlab")]
    assert closer_than_session(lacked_only, cards, ctx, closest=-1.0, margin=0.0) == lacked_only


def _row(qid, half, gold, probs_like, shortlists, family="small_talk"):
    signals = tuple(np.array([p] + [0.0] * (len(SIGNAL_NAMES) - 1)) for p in probs_like)
    return Replayed(qid, half, "served" if gold else family, frozenset(gold), signals,
                    shortlists)


def test_threshold_and_bars_chosen_by_hand(cards):
    # the highest threshold leaving at most 1 of 4 requests with gold below it
    assert choose_threshold(np.array([0.9, 0.2, 0.6, 0.4]), 0.25) == 0.4
    assert choose_threshold(np.array([0.9, 0.2, 0.6, 0.4]), 0.0) == 0.2
    gold = [("github.list_commits", 0.6), ("github.search_code", 0.05),
            ("slack.post_message", 0.02)]
    rows = [
        _row("g1", "tune", {"github.list_commits"}, [1.0], (tuple(_c(t, s) for t, s in gold),)),
        _row("g2", "tune", {"github.search_code"}, [1.0], (tuple(_c(t, s) for t, s in gold),)),
        _row("n1", "tune", set(), [0.0], ((_c("k8s.get_pod_logs", 0.3),),)),
    ]
    marks = [[False], [False], [True]]  # the no-tool request abstains
    point = menu_point(rows, marks, MenuBars(read=0.04, write=0.1), cards, size=8)
    # both gold read tools clear 0.04; the write (0.02) does not: menus of 2, R_menu 1
    assert point["r_menu"] == 1.0 and point["menu_length"] == 2.0
    assert point["abstain_rate"] == 1.0 and point["false_abstain"] == 0.0
    tight = menu_point(rows, marks, MenuBars(read=0.1, write=0.1), cards, size=8)
    assert tight["r_menu"] == 0.5 and tight["menu_length"] == 1.0
    curve = [menu_point(rows, marks, b, cards, size=8)
             for b in (MenuBars(), MenuBars(0.04, 0.1), MenuBars(0.1, 0.1))]
    assert choose_bars(curve, 0.0)["read"] == 0.04  # the shortest menus with no recall lost
    assert choose_bars(curve, 0.5)["read"] == 0.1


def test_a_grid_shares_cuts_and_scores_each_point_as_alone(cards):
    rng = np.random.default_rng(7)
    ids = sorted(cards)
    rows = []
    for i in range(30):
        steps = tuple(
            tuple(_c(t, float(s), exact=float(rng.random() < 0.05),
                     named=float(rng.random() < 0.2))
                  for t, s in zip(rng.choice(ids, 6, replace=False),
                                  np.sort(rng.random(6) ** 3)[::-1], strict=True))
            for _ in range(int(rng.integers(1, 4))))
        gold = {steps[0][int(rng.integers(0, 6))].tool_id} if i % 3 else set()
        rows.append(_row(f"q{i}", "tune", gold, [0.5] * len(steps), steps))
    marks = [[bool(rng.random() < 0.2) for _ in r.shortlists] for r in rows]
    params = Params(1, 0.1, 0.01, read_bars=(0.0, 0.01, 0.1), write_bars=(0.0, 0.05, 0.3),
                    relative_bars=(0.0, 0.05, 0.5), r_menu_tolerance=0.0,
                    mass_bars=(1.0, 0.9, 0.5))
    curve = menu_curve(rows, marks, cards, params, size=4)
    # each point alone (its own cuts) scores exactly as the grid's shared cuts do
    alone = [menu_point(rows, marks, MenuBars(p["read"], p["write"], p["relative"], p["mass"]),
                        cards, size=4) for p in curve]
    assert curve == alone and len(curve) == 6 * 3 * 3
    cuts = SharedCuts(cards, size=4, keep_best=True)
    for p in curve:
        menu_point(rows, marks, MenuBars(p["read"], p["write"], p["relative"], p["mass"]),
                   cards, size=4, cuts=cuts)
    n_steps = sum(not m for ms in marks for m in ms)
    assert cuts.n_cuts < n_steps * len(curve)  # points that read a step alike share its cut


def test_the_replay_drops_the_whole_request_step_only_where_depths_stay():
    from serving.model.config import RuntimeParams

    roomy = RuntimeParams(max_subgoals=8, rerank_depth=16, max_rerank_pairs=160)
    assert replay_overrides(roomy) == {"menu_policy": False, "request_weight": 0.0}
    # 8 subgoals and the request's step at depth 16 would need 144 pairs of 140: the step
    # counts toward every step's depth, so it stays
    tight = RuntimeParams(max_subgoals=8, rerank_depth=16, max_rerank_pairs=140)
    assert replay_overrides(tight) == {"menu_policy": False}


def test_step_decisions_and_the_step_threshold_by_hand():
    model = NoToolModel(("top_relevance",), (10.0,), -5.0, 0.5)  # P = 0.5 at relevance 0.5
    served = [_row("a", "tune", {"x"}, [0.9, 0.3], ((), ())),  # served: its 0.3 step counts
              _row("b", "tune", {"x"}, [0.8, 0.45], ((), ())),
              _row("c", "tune", {"x"}, [0.2], ((),))]  # abstains whole: its step does not count
    # steps of a and b: P(0.3), P(0.45), P(0.8), P(0.9); at most 1 of 4 may fall below
    step = choose_step_threshold(model, served, 0.25)
    assert step == pytest.approx(1 / (1 + math.exp(-(4.5 - 5.0))))  # P(0.45)
    assert choose_step_threshold(model, served, 0.9) == 0.5  # never above the threshold
    stepped = replace(model, step_threshold=step)
    assert step_decisions(stepped, served) == [[False, True], [False, False], [True]]
    assert step_decisions(None, served) == [[False, False], [False, False], [False]]


def test_tune_menus_judges_each_no_tool_family_by_the_fit_without_it(cards):
    shortlist = (_c("github.list_commits", 0.7), _c("github.search_code", 0.01))
    rows = [_row(f"f{i}", "fit", {"github.list_commits"}, [0.6 + i / 100], (shortlist,))
            for i in range(20)]
    rows += [_row(f"fn{i}", "fit", set(), [0.1 + i / 100], (shortlist,)) for i in range(20)]
    rows += [_row(f"t{i}", "tune", {"github.list_commits"}, [0.5 + i / 50], (shortlist,))
             for i in range(10)]
    rows += [_row(f"tn{i}", "tune", set(), [0.2], (shortlist,), "writing") for i in range(5)]
    params = Params(n_fit_queries=0, l2=1.0,
                    max_false_abstain=0.0, read_bars=(0.0, 0.02), write_bars=(0.0, 0.02),
                    relative_bars=(0.0,), r_menu_tolerance=0.0)
    tuned = tune_menus(rows, cards, params, size=8)
    model = tuned.policy.no_tool
    assert model is not None and model.weights[0] > 0  # relevance says "served"
    assert tuned.metrics["chosen"]["false_abstain"] == 0.0
    assert tuned.metrics["chosen"]["abstain_rate"] == 1.0  # 0.2 < every tune gold's 0.5+
    assert tuned.policy.bars.read == 0.02  # drops search_code (0.01), list_commits stays
    assert set(tuned.metrics["held_out_abstain_by_family"]) == {"small_talk", "writing"}
    assert model.step_bar <= model.threshold


def test_a_bundle_carries_its_menu_policy_and_refuses_a_bad_one(fixture_bundle, tmp_path):
    import shutil

    root = tmp_path / "b"
    shutil.copytree(fixture_bundle, root)
    assert load_menu_policy(load_bundle(root)) == MenuPolicy()  # none: no bars, never abstain
    policy = MenuPolicy(MenuBars(0.01, 0.05, 0.1),
                        NoToolModel(("top_relevance",), (10.0,), -5.0, 0.5))
    policy.save(root / MENU_POLICY_FILE)
    manifest = json.loads((root / "manifest.json").read_text())
    finalize_manifest(root, created_at=manifest["created_at"], git_rev="", params={}, models={})
    assert load_menu_policy(load_bundle(root)) == policy
    (root / MENU_POLICY_FILE).write_text(json.dumps({"bars": {"read": 2.0}}))
    finalize_manifest(root, created_at=manifest["created_at"], git_rev="", params={}, models={})
    with pytest.raises(BundleError, match="menus.json.*read"):
        Selector.from_bundle(root)


def test_a_step_abstains_below_the_threshold_and_names_the_missing_connection(
    fixture_bundle, tmp_path
):
    import shutil

    root = tmp_path / "b"
    shutil.copytree(fixture_bundle, root)
    # P(served) from the best cosine alone: sigmoid(20 * (cos - 0.45)); abstain below 0.5
    MenuPolicy(no_tool=NoToolModel(("top_cosine",), (20.0,), -9.0, 0.5)).save(
        root / MENU_POLICY_FILE)
    manifest = json.loads((root / "manifest.json").read_text())
    finalize_manifest(root, created_at=manifest["created_at"], git_rev="", params={}, models={})
    selector = Selector.from_bundle(root, overrides={"missing_access_below": 1.0})
    ctx = {"connections": ["github", "slack"]}
    chat = selector.discover("what a lovely sunny afternoon for a picnic", ctx)
    assert chat.abstained and chat.steps[0].abstention.p_served < 0.5
    assert chat.steps[0].menu == () and chat.menu_ranked() == []
    assert chat.ranked()  # the request-level order is still there for a wider search
    jira = selector.discover("open a Jira ticket for the failed checkout deploy", ctx)
    assert "jira" in {m.name for m in jira.missing()}
    assert jira.to_dict()["missing"][0]["kind"] == "connection"
    off = Selector.from_bundle(root, overrides={"menu_policy": False})
    assert not off.discover("what a lovely sunny afternoon for a picnic", ctx).abstained
    # the evaluator's selectors (models behind a cache, a variant) keep the bundle's policy
    cache = ModelCache()
    for wrapped in (cache.wrap(selector),
                    variant_selector(Variant("v", "runtime", "rrf_k=60"), selector, cache)):
        assert wrapped.menu_policy == selector.menu_policy
        assert wrapped.discover("what a lovely sunny afternoon for a picnic", ctx).abstained


def test_a_better_tool_outside_the_session_leaves_no_write_on_the_menu(fixture_bundle):
    # the lookup finds the refund in Stripe, which the session lacks: a Slack post or a
    # pull request is no way to refund, so no write of the session's products is offered
    request = "refund the customer's last payment"
    ctx = {"connections": ["github", "slack"]}
    knobs = {"missing_access_below": 1.0, "max_missing": 2,
             "missing_withhold_cosine_margin": None}
    served = Selector.from_bundle(
        fixture_bundle, overrides={**knobs, "missing_withholds_writes": False}
    ).discover(request, ctx)
    assert "stripe" in {m.name for m in served.missing()}
    assert {"slack.post_message", "github.create_pull_request"} <= set(served.steps[0].menu_ids)
    selector = Selector.from_bundle(
        fixture_bundle, overrides={**knobs, "missing_withholds_writes": True})
    found = selector.discover(request, ctx)
    assert "stripe" in {m.name for m in found.missing()}
    assert not any(selector.cards[t].risk in WRITE_RISKS for t in found.steps[0].menu_ids)
    assert {t for t, why in found.steps[0].dropped if why == "rerank:missing_access"} >= {
        "slack.post_message", "github.create_pull_request"}
    if not found.steps[0].menu_ids:
        assert found.steps[0].abstention == OUTSIDE_SESSION


def test_writes_are_withheld_only_where_a_named_tool_is_closer_by_the_margin(fixture_bundle):
    # withholding needs stronger evidence than naming: the same lookup names Stripe either
    # way, and the session's writes leave only where a named tool's cosine leads the
    # session's closest by the margin (-1: always, as without it; 1: a cosine never leads
    # by a whole unit, so the writes stay)
    request = "refund the customer's last payment"
    ctx = {"connections": ["github", "slack"]}
    knobs = {"missing_access_below": 1.0, "max_missing": 2, "missing_withholds_writes": True}

    def served(margin):
        selector = Selector.from_bundle(
            fixture_bundle, overrides={**knobs, "missing_withhold_cosine_margin": margin})
        found = selector.discover(request, ctx)
        assert "stripe" in {m.name for m in found.missing()}
        return set(found.steps[0].menu_ids)

    assert served(None) == served(-1.0)
    assert not served(-1.0) & {"slack.post_message", "github.create_pull_request"}
    assert {"slack.post_message", "github.create_pull_request"} <= served(1.0)
    with pytest.raises(ValueError, match="missing_withhold_cosine_margin"):
        Selector.from_bundle(fixture_bundle,
                             overrides={"missing_withhold_cosine_margin": 1.5})


def test_a_session_that_may_call_every_tool_skips_the_open_lookup(
    fixture_bundle, monkeypatch
):
    # a gateway session lists every served connection: no tool lies outside it, so the
    # lookup of what it lacks needs no second retrieval, and finds nothing either way
    selector = Selector.from_bundle(fixture_bundle, overrides={"missing_access_below": 1.0})
    every = {"connections": sorted({c.requires.connection for c in selector.cards.values()})}
    passes = []
    real = Selector._retrieval_stages

    def counted(self, *args, **kwargs):
        passes.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Selector, "_retrieval_stages", counted)
    request = "open a Jira ticket for the failed checkout deploy"
    some = selector.discover(request, {"connections": ["github", "slack"]})
    assert len(passes) > len(some.steps) and some.missing()  # the lookup ran
    passes.clear()
    found = selector.discover(request, every)
    assert len(passes) == len(found.steps) and not found.missing()


def test_the_open_lookup_reranks_only_where_a_lacked_tool_could_be_named(
    fixture_bundle, monkeypatch
):
    # the open lookup skips its rerank when no tool the session lacks reached the scored
    # head (nor, under a read bar of 0, the tail of a product the step names), and skips
    # itself when no card outside the session is close enough by cosine: the answers
    # must be those of the full lookup, on requests where it names something
    selector = Selector.from_bundle(fixture_bundle, overrides={
        "missing_access_below": 1.0, "missing_cosine_margin": None})
    requests = ["open a Jira ticket for the failed checkout deploy",
                "post the release notes to #eng on slack", "list the commits of checkout",
                "page the on-call engineer about the outage", "what's the capital of France"]
    every = sorted({c.requires.connection for c in selector.cards.values()})
    contexts = [{"connections": ["github", "slack"]}, {"connections": ["github"]},
                {"connections": ["github", "slack"], "env": "staging"},
                *({"connections": [c for c in every if c != lacked]} for lacked in every)]

    def answers():
        return [[m.to_dict() for m in selector.discover(r, c).missing()]
                for r in requests for c in contexts]

    reranks = []
    real_rerank = RerankStage.__call__

    def counted(self, sel):
        reranks.append(1)
        return real_rerank(self, sel)

    monkeypatch.setattr(RerankStage, "__call__", counted)
    shortcut = answers()
    n_shortcut = len(reranks)
    reranks.clear()
    monkeypatch.setattr(Selector, "_outside_may_count", lambda self, *a: True)
    assert answers() == shortcut and any(shortcut)
    assert n_shortcut < len(reranks)  # some lookups were answered without a rerank
    # the same with the cosine check: skipped lookups answer as the full ones
    monkeypatch.undo()
    selector = Selector.from_bundle(fixture_bundle, overrides={
        "missing_access_below": 1.0, "missing_cosine_margin": 0.1})
    monkeypatch.setattr(RerankStage, "__call__", counted)
    reranks.clear()
    skipped = answers()
    n_skipped = len(reranks)
    reranks.clear()
    monkeypatch.setattr(Selector, "_none_close_outside", lambda self, *a: False)
    monkeypatch.setattr(Selector, "_outside_may_count", lambda self, *a: True)
    assert answers() == skipped
    assert any(skipped)
    assert n_skipped < len(reranks)


def test_a_session_offered_a_tool_list_is_served_from_it_and_never_told_of_the_rest(
    fixture_bundle
):
    # an application offers a request the tools it chose: the menu holds only those, and
    # a tool outside the list is no missing access the user could grant
    selector = Selector.from_bundle(fixture_bundle, overrides={"missing_access_below": 1.0})
    offered = ["slack.post_message", "slack.search_messages", "github.list_commits"]
    request = "open a Jira ticket for the failed checkout deploy"
    with_list = selector.discover(request, {"connections": ["github", "slack"],
                                            "tools": offered})
    assert {c.tool_id for s in with_list.steps for c in s.menu} <= set(offered)
    assert {t for m in with_list.missing() for t in m.tool_ids} <= set(offered)
    assert all(m.kind == "connection" for m in with_list.missing())
    assert with_list.to_dict()["context"]["tools"] == sorted(offered)
    # only the list: nothing outside it is even looked up
    commits = selector.discover("list the commits of checkout-service", {"tools": offered})
    assert commits.steps[0].menu[0].tool_id == "github.list_commits"
    assert not commits.missing()


def test_the_worked_example_leads_with_the_right_tools(fixture_bundle):
    selector = Selector.from_bundle(fixture_bundle)
    found = selector.discover(
        "The checkout-service deploy failed last night. Find what changed, check the "
        "rollout, and tell the payments channel on Slack.",
        {"connections": ["github", "kubernetes", "slack"]},
    )
    first = {s.subgoal.text.split()[0].lower(): s.menu_ids for s in found.steps}
    assert first["find"][0] in {"github.compare_commits", "github.list_commits"}
    assert first["check"][0] == "k8s.get_rollout_status"
    assert first["tell"][0] == "slack.post_message"
    assert all(t.startswith("slack.") for t in first["tell"])
    # GitHub and Kubernetes serve "find what changed" and "check the rollout": no line
    # sends the user to connect another product for them
    assert not [m.line() for s in found.steps[:2] for m in s.missing]


def test_the_jira_example_offers_no_write_of_another_product_and_names_jira_first(
    fixture_bundle,
):
    selector = Selector.from_bundle(fixture_bundle, overrides={
        "missing_access_below": 0.9, "missing_margin": 0.1, "max_missing": 2})
    found = selector.discover("open a Jira ticket for the failed checkout deploy",
                              {"connections": ["github", "slack"]})
    for step in found.steps:
        assert all(selector.cards[c.tool_id].risk == "read_only" for c in step.menu)
    missing = found.missing()
    assert missing[0].name == "jira" and len(missing) <= 2
    # the writes the step would have offered left for that reason, the best among them
    assert ("slack.post_message", "rerank:unconnected_product") in found.steps[0].dropped


def test_a_small_valid_split_still_leaves_requests_with_gold_to_fit():
    assert tune_share(1700, 200) == 200  # the demo: the ranker's 200 validation groups
    assert tune_share(58, 200) == 29  # a benchmark's 58: half tune, half fit
    assert tune_share(1700, 0) == 0  # --valid: every traced subgoal fits

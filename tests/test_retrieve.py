import numpy as np
import pytest

from serving.bundle.files import build_capability_index
from serving.model.io import load_catalog
from serving.model.selection import Selection, SessionContext, Subgoal, run_stages
from serving.model.text import tokenize
from serving.stages.retrieve import (
    AccessIndex,
    BM25Retriever,
    CapabilityRetriever,
    DenseRetriever,
    DenseSource,
    ExactNameMatcher,
    FuseStage,
    RetrieveStage,
    access_problem,
    rrf_fuse,
    top_n,
)


@pytest.fixture(scope="module")
def cards(fixture_catalog):
    return load_catalog(fixture_catalog, strict=True).items


def row_of(cards, tool_id):
    return [c.tool_id for c in cards].index(tool_id)


def test_top_n_applies_the_mask_before_taking_n():
    scores = np.array([0.9, 0.8, 0.1, 0.05, 0.7])
    mask = np.array([False, False, True, True, True])
    # the two best rows are masked: they must not take slots from the allowed ones
    assert top_n(scores, mask, 2) == [(4, pytest.approx(0.7)), (2, pytest.approx(0.1))]
    assert top_n(scores, mask, 10, min_score=0.08) == [
        (4, pytest.approx(0.7)),
        (2, pytest.approx(0.1)),
    ]
    assert top_n(scores, np.zeros(5, bool), 3) == []


def test_top_n_ties_break_by_row():
    assert [r for r, _ in top_n(np.ones(4), np.ones(4, bool), 3)] == [0, 1, 2]


def test_rrf_by_hand():
    # list a ranks rows 7, 3; list b ranks 3, 9.  k = 60:
    # row 3: 1/62 + 1/61 = 0.032522; row 7: 1/61 = 0.016393; row 9: 1/62 = 0.016129
    fused = rrf_fuse({"a": [(7, 0.9), (3, 0.5)], "b": [(3, 2.0), (9, 1.0)]}, k=60, n=3)
    assert [r for r, _, _ in fused] == [3, 7, 9]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[0][2] == {"rank_a": 2.0, "rank_b": 1.0}
    # input order of the lists does not matter
    swapped = rrf_fuse({"b": [(3, 2.0), (9, 1.0)], "a": [(7, 0.9), (3, 0.5)]}, k=60, n=3)
    assert [(r, s) for r, s, _ in swapped] == [(r, s) for r, s, _ in fused]


def test_rrf_forced_rows_come_first_and_keep_n():
    fused = rrf_fuse({"a": [(1, 1.0), (2, 0.5), (3, 0.1)]}, k=60, n=2, force=[42])
    assert [r for r, _, _ in fused] == [42, 1]


def test_access_mask_and_reasons(cards):
    ctx = SessionContext.from_dict({"connections": ["github", "slack"], "scopes": ["repo:read"]})
    mask = AccessIndex(cards).mask(ctx)
    allowed = {c.tool_id for c, ok in zip(cards, mask, strict=True) if ok}
    # slack tools need chat:write / search:read, which were not granted
    assert allowed == {"github.list_commits", "github.compare_commits", "github.search_code"}
    by_id = {c.tool_id: c for c in cards}
    assert access_problem(by_id["gitlab.search_code"], ctx) == "filter:missing_connection"
    assert access_problem(by_id["slack.post_message"], ctx) == "filter:missing_scope"
    prod_only = by_id["stripe.refund_payment"]
    staging = SessionContext.from_dict({"env": "staging"})
    assert access_problem(prod_only, staging) == "filter:env"
    # no connections key: every connection is available
    assert AccessIndex(cards).mask(SessionContext.from_dict({})).all()


def test_a_session_offered_a_tool_list_calls_only_those(cards):
    offered = ["github.list_commits", "slack.post_message", "no.such_tool"]
    ctx = SessionContext.from_dict({"tools": offered})
    index = AccessIndex(cards)
    allowed = {c.tool_id for c, ok in zip(cards, index.mask(ctx), strict=True) if ok}
    assert allowed == {"github.list_commits", "slack.post_message"}  # an unknown id: nothing
    assert index.offered(ctx).sum() == 2
    by_id = {c.tool_id: c for c in cards}
    assert access_problem(by_id["github.search_code"], ctx) == "filter:not_offered"
    assert access_problem(by_id["github.list_commits"], ctx) is None
    # beside connections: a tool must be offered and connected
    both = SessionContext.from_dict({"tools": offered, "connections": ["github"]})
    allowed = {c.tool_id for c, ok in zip(cards, index.mask(both), strict=True) if ok}
    assert allowed == {"github.list_commits"}
    assert not index.offered(SessionContext.from_dict({"tools": []})).any()
    assert index.offered(SessionContext()).all()


def test_exact_names(cards):
    matcher = ExactNameMatcher(cards)
    rows = matcher.match("use gitlab.search_code, then rollback_deployment please.")
    assert rows == [row_of(cards, "gitlab.search_code"), row_of(cards, "k8s.rollback_deployment")]
    # a name shared by two servers is ambiguous on its own; the id is not
    assert matcher.match("search_code for foo") == []


def test_capability_needs_an_entity_and_boosts_the_operation(cards):
    retriever = CapabilityRetriever(build_capability_index(cards), len(cards))
    mask = np.ones(len(cards), bool)
    hits = retriever.search(Subgoal("x", operations=("get",), entities=("rollout",)), mask, 5)
    ids = [cards[r].tool_id for r, _ in hits]
    assert ids[0] == "k8s.get_rollout_status"  # entity + op: 3.0
    assert set(ids) == {"k8s.get_rollout_status", "k8s.rollback_deployment"}  # entity only: 2.0
    assert retriever.search(Subgoal("x", operations=("get",)), mask, 5) == []


def test_bm25_finds_exact_tokens(cards):
    bm25 = BM25Retriever.build(cards)
    mask = np.ones(len(cards), bool)
    hits = bm25.search("refund payment ch_123", mask, 3)
    assert cards[hits[0][0]].tool_id == "stripe.refund_payment"
    assert bm25.search("zzzz qqqq", mask, 3) == []


def test_bm25_saved_index_scores_as_bm25s_does_without_importing_it(cards, tmp_path):
    import bm25s

    built = BM25Retriever.build(cards)
    built.save(tmp_path / "bm25")
    loaded = BM25Retriever.load(tmp_path / "bm25")
    reference = bm25s.BM25.load(str(tmp_path / "bm25"), show_progress=False)
    for card in cards:
        # repeated tokens count twice, as in bm25s
        text = f"{card.name} {card.description} {card.name}"
        tokens = [t for t in tokenize(text) if t in reference.vocab_dict]
        want = np.asarray(reference.get_scores(tokens), dtype=np.float32)
        np.testing.assert_array_equal(loaded.scores(text), want)
        np.testing.assert_array_equal(built.scores(text), want)
    assert loaded.scores("zzzz qqqq") is None


def test_bm25_refuses_index_files_that_disagree(cards, tmp_path):
    BM25Retriever.build(cards).save(tmp_path)
    indptr = np.load(tmp_path / BM25Retriever.INDPTR)
    np.save(tmp_path / BM25Retriever.INDPTR, indptr[:-3])
    with pytest.raises(ValueError, match="do not agree"):
        BM25Retriever.load(tmp_path)
    vocab = (tmp_path / BM25Retriever.VOCAB).read_text()
    (tmp_path / BM25Retriever.VOCAB).write_text("{not json")
    with pytest.raises(ValueError, match="vocab.index.json: unreadable BM25 index file"):
        BM25Retriever.load(tmp_path)
    (tmp_path / BM25Retriever.VOCAB).write_text(vocab)
    (tmp_path / BM25Retriever.DATA).unlink()
    with pytest.raises(ValueError, match="data.csc.index.npy: unreadable BM25 index file"):
        BM25Retriever.load(tmp_path)
    with pytest.raises(ValueError, match="only an index built here"):
        BM25Retriever({}, (indptr, indptr, indptr), 0).save(tmp_path / "x")


def test_tokenize_splits_identifiers_and_folds_plurals():
    assert tokenize("github.search_code the Commits") == ["github", "search", "code", "commit"]
    assert tokenize("status issues") == ["status", "issue"]



def test_retrieve_and_fuse_stages_give_the_fused_order_and_time_themselves(cards):
    ids = [c.tool_id for c in cards]
    rng = np.random.default_rng(0)
    dense = DenseRetriever(rng.normal(size=(len(cards), 8)).astype(np.float32))
    bm25 = BM25Retriever.build(cards)
    capability = CapabilityRetriever(build_capability_index(cards), len(cards))
    vector = rng.normal(size=8).astype(np.float32)
    mask = np.ones(len(cards), bool)
    mask[row_of(cards, "k8s.get_pod_logs")] = False  # the session cannot call this one
    subgoal = Subgoal("check the rollout of k8s.get_pod_logs", ("get",), ("rollout",))
    exact = ExactNameMatcher(cards)
    stages = [
        ("retrieve", RetrieveStage(
            {"dense": DenseSource(dense), "bm25": bm25, "capability": capability},
            ids, vector, mask, 5)),
        ("fuse", FuseStage({t: r for r, t in enumerate(ids)}, ids, exact, k=60, n=6,
                           sources=("dense", "bm25", "capability"))),
    ]
    sel = run_stages(Selection(subgoal), stages)

    rankings = {
        "dense": dense.search(vector, mask, 5),
        "bm25": bm25.search(subgoal.text, mask, 5),
        "capability": capability.search(subgoal, mask, 5),
    }
    forced = exact.match(subgoal.text)  # named exactly: first, whatever the mask says
    want = rrf_fuse(rankings, k=60, n=6, force=forced)
    assert [(c.tool_id, c.score) for c in sel.candidates] == [(ids[r], s) for r, s, _ in want]
    assert sel.candidates[0].tool_id == "k8s.get_pod_logs" and sel.candidates[0].scores["exact"]
    ranks = {k: v for k, v in sel.candidates[1].scores.items() if k.startswith("rank_")}
    assert ranks == want[1][2]
    assert list(sel.timings_ms) == ["retrieve", "fuse"] and min(sel.timings_ms.values()) >= 0


class PinnedRetriever:
    """A fourth retriever, as a team would add one (a "tools this team pinned" list): one
    class with `retrieve`, one entry in `serving.assembly.RETRIEVERS`."""

    def __init__(self, row: int) -> None:
        self.row = row

    def retrieve(self, query, mask, n):
        return [(self.row, 1.0)] if mask[self.row] and n > 0 else []


def test_a_registered_retriever_is_run_ranked_and_fused(fixture_bundle, monkeypatch):
    from serving.assembly import RETRIEVERS
    from serving.selector import Selector

    subgoal = Subgoal("list the commits on the main branch")
    before = Selector.from_bundle(fixture_bundle)
    fused = {c.tool_id: c for c in before.candidates(subgoal, SessionContext())}
    pinned = max(fused, key=lambda t: fused[t].scores["rank_dense"])  # dense's last
    row = before._rows[pinned]
    monkeypatch.setitem(RETRIEVERS, "pinned", lambda bundle, params, bm25: PinnedRetriever(row))

    after = Selector.from_bundle(fixture_bundle)
    got = {c.tool_id: c for c in after.candidates(subgoal, SessionContext())}
    assert [t for t, c in got.items() if "rank_pinned" in c.scores] == [pinned]
    assert got[pinned].scores["rank_pinned"] == 1.0
    # fusion adds 1 / (k + rank) for the new list, rank 1, and nothing to the others
    k = after.params.rrf_k
    assert got[pinned].score == pytest.approx(fused[pinned].score + 1 / (k + 1))
    assert all(got[t].score == fused[t].score for t in got if t != pinned)
    assert after.discover("list the commits on the main branch").ranked()  # end to end
    # the fused order's relevance is out of what four lists can give
    assert Selector.from_bundle(fixture_bundle, reranker="fused").reranker.n_sources == 4


def test_access_masks_are_kept_per_session_and_the_oldest_leaves_first(cards, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(AccessIndex, "MASKS_KEPT", 3)
    index = AccessIndex(cards)
    connections = sorted({c.requires.connection for c in cards})
    contexts = [SessionContext.from_dict({"connections": connections[: i % len(connections)],
                                          "env": env})
                for i in range(len(connections)) for env in ("prod", "staging")]

    def fresh(ctx):  # what a new index computes
        return AccessIndex(cards).mask(ctx)

    first = index.mask(contexts[0])
    assert index.mask(contexts[0]) is first and not first.flags.writeable
    # many sessions from several workers at once, more than are kept: each its own mask
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(index.mask, contexts * 20))
    for ctx, mask in zip(contexts * 20, got, strict=True):
        np.testing.assert_array_equal(mask, fresh(ctx))
    assert index.mask(contexts[0]) is not first  # evicted, computed again

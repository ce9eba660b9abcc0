"""The training stages: metrics by hand, data checks, and real (tiny) training runs.

A random-init 2-layer BERT with hidden size 32 and the MiniLM vocabulary stands in for
MiniLM, so a whole stage main() runs in seconds with the same code path as the demo.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import yaml

from features.dataset import PAIRS_SCHEMA, RERANKER_SCHEMA, RETRIEVER_SCHEMA, write_parquet
from serving.model.io import load_catalog
from training import train_reranker as RR
from training import train_retriever as TR
from training.core import encoder_training as ET
from training.core import rank_metrics as RM
from training.core.params import ParamsError, load_params

FIXTURES = Path(__file__).parent / "fixtures"
RETRIEVER_PARAMS = {
    "sampler": "explore",
    "compare_uniform": True,
    "epochs": 1,
    "batch_size": 8,
    "learning_rate": 1.0e-3,
    "warmup": 0.1,
    "max_seq_length": 48,
    "precision": "fp32",
    "frozen_layers": 0,
    "group_by_length": True,
    "max_valid_queries": 50,
    "seed": 13,
}
RERANKER_PARAMS = {
    "loss": "bce",
    "base": "stock",
    "hard_negatives": 3,
    "random_negatives": 0,
    "teacher_weight": 0.0,
    "teacher_temperature": 0.05,
    "epochs": 1,
    "batch_size": 8,
    "learning_rate": 1.0e-3,
    "warmup": 0.1,
    "max_length": 64,
    "precision": "fp32",
    "frozen_layers": 0,
    "group_by_length": True,
    "max_valid_groups": 50,
    "evals": 0,
    "eval_share": 0.5,
    "seed": 13,
}
NEW_SINCE = "2026-01-01"  # fixture cards added since count as new
N_NEW_CARDS = 1  # one fixture card was added 2026-10-20
PHRASINGS = ("please {s}", "I need to {s} now", "can you {s} for me", "{s} asap")


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A random-init BERT (hidden 32, 2 layers, 2 heads) with the MiniLM tokenizer, mean
    pooling, saved as a sentence-transformer: the base model of every training test."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoTokenizer, BertConfig, BertModel

    from serving.bundle.encoder import stock_model_path

    root = tmp_path_factory.mktemp("tiny")
    tokenizer = AutoTokenizer.from_pretrained(str(stock_model_path()))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    torch.manual_seed(0)
    BertModel(config).save_pretrained(root / "bert")
    tokenizer.save_pretrained(root / "bert")
    model = SentenceTransformer(str(root / "bert"), device="cpu", local_files_only=True)
    model.save(str(root / "st"))
    return root / "st"


@pytest.fixture(scope="session")
def train_dir(tmp_path_factory, fixture_catalog) -> Path:
    """Tiny mined inputs over the 17 fixture cards: 4 phrasings of each card's summary,
    3 train and 1 valid; 40 triplets per sampler, 20 groups of 1 positive + 3 negatives."""
    cards = load_catalog(fixture_catalog, strict=True).items
    ids = [c.tool_id for c in cards]
    pairs, queries = [], []
    for i, card in enumerate(cards):
        negatives = [ids[(i + k) % len(ids)] for k in (1, 2, 3)]
        for j, phrasing in enumerate(PHRASINGS):
            query = phrasing.format(s=card.summary.lower())
            split = "valid" if j == 3 else "train"
            qid = f"q{i:02d}{j}"
            queries.append((qid, query, card.tool_id, negatives, split))
            for tool_id, label in [(card.tool_id, 1)] + [(n, 0) for n in negatives]:
                pairs.append(
                    {"query_id": qid, "request_id": f"r{i:02d}{j}", "query": query,
                     "tool_id": tool_id, "label": label,
                     "source": "trace_success" if label else "bm25_hard", "split": split,
                     "is_new": label == 1 and card.added_at >= NEW_SINCE, "popularity": 3}
                )
    train = [q for q in queries if q[4] == "train"]
    triplets = [
        {"sampler": sampler, "query_id": qid, "anchor": query, "positive": pos,
         "negative": negs[k % 3], "negative_source": "bm25_hard", "is_new": False,
         "popularity": 3}
        for sampler in ("explore", "uniform")
        for k, (qid, query, pos, negs, _) in enumerate(train[:40])
    ]
    # reranker groups: 20 train (positive first), and each valid query with the gold
    # third in the fused order
    groups = [
        {"group_id": f"g{k:02d}", "query": query, "tool_id": tool_id, "label": label,
         "source": "trace_success" if label else "runtime_candidate", "split": "train",
         "fused_rank": rank}
        for k, (_, query, pos, negs, _) in enumerate(train[::2][:20])
        for rank, (tool_id, label) in enumerate([(pos, 1)] + [(n, 0) for n in negs])
    ] + [
        {"group_id": f"v{k:02d}", "query": query, "tool_id": tool_id, "label": label,
         "source": "trace_success" if label else "runtime_candidate", "split": "valid",
         "fused_rank": rank}
        for k, (_, query, pos, negs, _) in enumerate(q for q in queries if q[4] == "valid")
        for rank, (tool_id, label) in enumerate(
            [(negs[0], 0), (negs[1], 0), (pos, 1), (negs[2], 0)], start=1)
    ]
    out = tmp_path_factory.mktemp("train")
    write_parquet(pl.DataFrame(pairs), PAIRS_SCHEMA, out / "pairs.parquet")
    write_parquet(pl.DataFrame(triplets), RETRIEVER_SCHEMA, out / "retriever.parquet")
    write_parquet(pl.DataFrame(groups), RERANKER_SCHEMA, out / "reranker.parquet")
    return out


def write_params(path: Path, **overrides: dict) -> Path:
    sections = {"train_retriever": dict(RETRIEVER_PARAMS), "train_reranker": dict(RERANKER_PARAMS)}
    for section, values in overrides.items():
        sections[section].update(values)
    path.write_text(yaml.safe_dump(sections))
    return path


@pytest.fixture()
def mlflow_store(tmp_path, monkeypatch) -> str:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.setenv("TOOLSIFT_PIPELINE_ID", "test-pipeline")
    return uri


def stage_run_of(uri: str, stage: str):
    import mlflow

    mlflow.set_tracking_uri(uri)
    runs = mlflow.search_runs(
        experiment_names=["toolsift"], filter_string=f"attributes.run_name = '{stage}'"
    )
    assert len(runs) == 1
    return runs.iloc[0]


def state(path: Path) -> dict[str, np.ndarray]:
    """Weights by BertModel name (a cross-encoder nests them under `bert.`)."""
    from safetensors.numpy import load_file

    weights = load_file(str(path / "model.safetensors"))
    return {k.removeprefix("bert."): v for k, v in weights.items()}


def assert_changed(before: Path, after: Path) -> None:
    old, new = state(before), state(after)
    shared = [k for k in old if k in new and old[k].shape == new[k].shape]
    assert shared
    assert any(not np.allclose(old[k], new[k]) for k in shared)


def assert_rates(metrics: dict, keys: set[str]) -> None:
    assert keys <= set(metrics)
    for key in keys:
        assert 0.0 <= metrics[key] <= 1.0, key


# --- metrics worked out by hand ---------------------------------------------------------------


def test_gold_ranks_count_ties_against_gold():
    scores = np.array([0.9, 0.5, 0.5, 0.1])
    # gold at index 2 ties with non-gold index 1: it ranks behind it, 3rd
    assert RM.gold_ranks(scores, np.array([False, False, True, False])).tolist() == [3]
    # a constant scorer puts the gold last, whatever its position
    assert RM.gold_ranks(np.zeros(4), np.array([True, False, False, False])).tolist() == [4]


def test_ranking_metrics_by_hand():
    doc_ids = ["a", "b", "c", "d"]
    scores = np.array([[0.1, 0.9, 0.8, 0.2], [0.7, 0.6, 0.5, 0.4]])
    gold = [frozenset({"c", "d"}), frozenset({"a"})]
    # q1: c ranks 2, d ranks 3 -> recall@2 = 1/2, RR = 1/2; q2: a ranks 1 -> 1, 1
    got = RM.ranking_metrics(scores, doc_ids, gold, k=2)
    assert got == pytest.approx({"recall_at_2": (0.5 + 1.0) / 2, "mrr": (0.5 + 1.0) / 2})
    # the same queries with the documents in another order score the same
    perm = [3, 1, 0, 2]
    got_perm = RM.ranking_metrics(scores[:, perm], [doc_ids[i] for i in perm], gold, k=2)
    assert got_perm == pytest.approx(got)


def test_order_metrics_by_hand():
    groups = [
        RM.Group("q1", ("a", "b", "c"), (0, 1, 0), (1, 2, 3)),
        RM.Group("q2", ("a", "b"), (1, 0), (1, 2)),
    ]
    scores = [np.array([3.0, 2.0, 1.0]), np.array([5.0, 1.0])]
    # q1: gold b ranks 2 -> RR 1/2, in the top 3 not the top 1; q2: gold a first -> 1
    assert RM.order_metrics(scores, groups) == pytest.approx(
        {"mrr": 0.75, "recall_at_1": 0.5, "recall_at_3": 1.0, "recall_at_8": 1.0}
    )


# --- batching -------------------------------------------------------------------------------


def test_length_grouped_batches_cover_every_row_once_without_repeats():
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 100, size=203).tolist()
    tools = [f"t{i % 17}" for i in range(203)]  # 17 distinct positives: many conflicts
    values = [frozenset({f"q{i}", tools[i]}) for i in range(203)]
    batches = ET.length_grouped_batches(lengths, values, batch_size=8, window=4, seed=1)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(203))
    for batch in batches:
        assert len(batch) <= 8
        assert len({tools[i] for i in batch}) == len(batch)  # no tool twice in a batch
    assert sum(len(b) < 8 for b in batches) <= 3
    again = ET.length_grouped_batches(lengths, values, batch_size=8, window=4, seed=1)
    assert again == batches
    assert ET.length_grouped_batches(lengths, values, batch_size=8, window=4, seed=2) != batches


def test_length_grouped_batches_pad_less_than_random_batches():
    lengths = np.random.default_rng(0).integers(5, 100, size=512)
    grouped = ET.length_grouped_batches(lengths.tolist(), None, batch_size=32, window=8, seed=0)
    shuffled = np.random.default_rng(0).permutation(512)
    random_batches = [shuffled[i : i + 32] for i in range(0, 512, 32)]

    def padded(batches):
        return sum(len(b) * lengths[list(b)].max() for b in batches)

    assert len(grouped) == 16 and all(len(b) == 32 for b in grouped)
    assert padded(grouped) < 0.8 * padded(random_batches)
    dropped = ET.length_grouped_batches([3] * 10, None, batch_size=4, window=2, seed=0,
                                        drop_last=True)
    assert [len(b) for b in dropped] == [4, 4]


# --- data checks ------------------------------------------------------------------------------


def test_valid_queries_are_a_stable_sample(train_dir):
    pairs = pl.read_parquet(train_dir / "pairs.parquet")
    valid = TR.valid_queries(pairs, limit=5)
    shuffled = TR.valid_queries(pairs.sample(fraction=1.0, shuffle=True, seed=1), limit=5)
    assert valid == shuffled
    assert len(valid) == 5 and all(len(g) == 1 for g in valid.gold)
    assert set(valid.query_ids) <= set(pairs.filter(pl.col("split") == "valid")["query_id"])
    new = TR.validation_slices(pairs, limit=100)["valid_new"]
    assert len(new) == N_NEW_CARDS and new.gold == (frozenset({"pagerduty.list_incidents"}),)


def test_reranker_groups_and_the_fused_baseline(train_dir):
    frame = pl.read_parquet(train_dir / "reranker.parquet")
    valid = RR.groups_of(frame, "valid")
    assert len(valid) == 17 and len(RR.groups_of(frame, "valid", limit=5)) == 5
    assert all(g.labels == (0, 0, 1, 0) and g.fused_ranks == (1, 2, 3, 4) for g in valid)
    # the gold is third everywhere: MRR 1/3, recall@1 0, @3 and @8 1
    assert RM.order_metrics(RR.fused_scores(valid), valid) == pytest.approx(
        {"mrr": 1 / 3, "recall_at_1": 0.0, "recall_at_3": 1.0, "recall_at_8": 1.0})
    # a gold tool outside the fused order ranks last; a tie counts against it
    outside = RM.Group("q", ("a", "b", "c"), (1, 0, 0), (0, 1, 2))
    assert RM.order_metrics(RR.fused_scores([outside]), [outside])["mrr"] == 1 / 3
    tied = [np.zeros(3)]
    assert RM.order_metrics(tied, [outside])["recall_at_1"] == 0.0


def test_training_columns_shapes(fixture_catalog, train_dir):
    texts = ET.tool_texts(load_catalog(fixture_catalog).items)
    groups = RR.groups_of(pl.read_parquet(train_dir / "reranker.parquet"), "train")
    bce = RR.training_columns(groups, texts, "bce")
    lam = RR.training_columns(groups, texts, "lambda")
    assert len(bce["query"]) == 80 and sum(bce["label"]) == 20
    assert len(lam["query"]) == 20 and all(sum(labels) == 1 for labels in lam["labels"])
    triplets = pl.read_parquet(train_dir / "retriever.parquet")
    columns = TR.triplet_columns(triplets, "explore", texts)
    assert list(columns) == ["anchor", "positive", "negative"]
    assert columns["positive"][0] in texts.values()


def test_unknown_tool_ids_fail_before_training(fixture_catalog, train_dir):
    cards = load_catalog(fixture_catalog).items
    triplets = pl.read_parquet(train_dir / "retriever.parquet").with_columns(
        pl.lit("ghost.tool").alias("negative")
    )
    with pytest.raises(ET.TrainingDataError, match="ghost.tool"):
        TR.train_retriever(
            triplets,
            pl.read_parquet(train_dir / "pairs.parquet"),
            cards,
            params=TR.Params(**RETRIEVER_PARAMS),
            base_model="/nonexistent",
        )


def test_params_are_strict(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"train_retriever": {**RETRIEVER_PARAMS, "extra": 1}}))
    with pytest.raises(ParamsError, match="extra"):
        load_params(path, TR.SECTION, TR.Params)
    with pytest.raises(ParamsError, match="compare_uniform"):
        TR.Params(**{**RETRIEVER_PARAMS, "sampler": "uniform"})
    with pytest.raises(ParamsError, match="learning_rate"):
        TR.Params(**{**RETRIEVER_PARAMS, "learning_rate": "1e-5"})  # how YAML reads 1e-5
    with pytest.raises(ParamsError, match="loss"):
        RR.Params(**{**RERANKER_PARAMS, "loss": "hinge"})


def test_repo_params_sections_load():
    root = Path(__file__).resolve().parents[1]
    load_params(root / "params.yaml", TR.SECTION, TR.Params)
    load_params(root / "params.yaml", RR.SECTION, RR.Params)


# --- real training runs -----------------------------------------------------------------------


def test_train_retriever_main(tmp_path, tiny_model, train_dir, fixture_catalog, mlflow_store):
    from sentence_transformers import SentenceTransformer

    out = tmp_path / "models" / "retriever"
    metrics_path = tmp_path / "metrics" / "train_retriever.json"
    TR.main(
        [str(write_params(tmp_path / "params.yaml")), str(fixture_catalog), str(train_dir),
         str(out), str(metrics_path), "--base-model", str(tiny_model)]
    )

    metrics = json.loads(metrics_path.read_text())
    rates = {
        f"{p}{s}_{m}"
        for p in ("stock_", "", "uniform_")
        for s in ("valid", "valid_new")
        for m in ("recall_at_10", "mrr")
    }
    assert_rates(metrics, rates)
    assert metrics["n_valid_queries"] == 17
    assert metrics["n_valid_new_queries"] == N_NEW_CARDS
    assert metrics["explore_n_triplets"] == metrics["uniform_n_triplets"] == 40
    for path in (out, out.with_name("retriever-uniform")):
        assert_changed(tiny_model, path)
        model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        assert model.max_seq_length == RETRIEVER_PARAMS["max_seq_length"]
        vectors = model.encode(["list commits", "post a message"])
        assert vectors.shape == (2, 32) and np.isfinite(vectors).all()

    run = stage_run_of(mlflow_store, "train_retriever")
    assert run["tags.git_rev"] is not None and run["tags.stage"] == "train_retriever"
    assert run["params.sampler"] == "explore"
    assert run["params.model.explore.files"].count("model.safetensors") == 1
    assert run["tags.dataset.retriever.sha256"]
    assert run["metrics.valid_mrr"] == pytest.approx(metrics["valid_mrr"])
    assert run["metrics.explore_train_seconds"] > 0


def test_train_retriever_frozen_layers_stay_fixed(tiny_model, train_dir, fixture_catalog):
    cards = load_catalog(fixture_catalog).items
    params = {**RETRIEVER_PARAMS, "compare_uniform": False, "epochs": 2, "frozen_layers": 1}
    result = TR.train_retriever(
        pl.read_parquet(train_dir / "retriever.parquet"),
        pl.read_parquet(train_dir / "pairs.parquet"),
        cards,
        params=TR.Params(**params),
        base_model=tiny_model,
    )
    assert [m.sampler for m in result.models] == ["explore"]
    assert set(result.metrics) == {
        f"{p}{s}_{m}"
        for p in ("stock_", "")
        for s in ("valid", "valid_new")
        for m in ("recall_at_10", "mrr")
    }
    curve = result.models[0].loss_curve
    assert curve and all(np.isfinite(v) for _, v in curve)
    before = state(tiny_model)
    after = {
        k: v.detach().cpu().numpy()
        for k, v in result.models[0].model.transformers_model.state_dict().items()
    }
    for name in [k for k in before if not k.startswith("pooler.")]:  # unused by mean pooling
        same = np.array_equal(before[name], after[name])
        assert same == name.startswith(("embeddings.", "encoder.layer.0.")), name


def test_freeze_lower_layers_checks_depth(tiny_model):
    model = TR.load_bi_encoder(tiny_model)
    with pytest.raises(ParamsError, match="frozen_layers"):
        ET.freeze_lower_layers(model, 3)  # the tiny BERT has 2
    assert ET.freeze_lower_layers(model, 0) == 0


def test_precision_args():
    import torch

    assert ET.precision_args("fp32") == {"bf16": False, "use_cpu": False}
    if not torch.cuda.is_available():
        # transformers refuses bf16 without a GPU unless told it runs on the CPU
        assert ET.precision_args("bf16") == {"bf16": True, "use_cpu": True}


def test_hard_negatives_are_the_retrievers_best_wrong_answers():
    labels = (0, 1, 0, 0, 0, 0)
    scores = np.array([0.1, 0.9, 0.8, 0.3, 0.7, 0.2])
    rng = np.random.default_rng(0)
    # the positive, then the two negatives the retriever likes best (2: 0.8, 4: 0.7)
    assert RR.pick_negatives(labels, scores, n_hard=2, n_random=0, rng=rng).tolist() == [1, 2, 4]
    # without scores: the fused order's first negatives
    assert RR.pick_negatives(labels, None, n_hard=2, n_random=0, rng=rng).tolist() == [0, 1, 2]
    # random ones come from the rest only, never twice, and stop when the rest runs out
    drawn = RR.pick_negatives(labels, scores, n_hard=2, n_random=5, rng=rng).tolist()
    assert drawn == [0, 1, 2, 3, 4, 5]
    group = RM.Group("q", tuple("abcdef"), labels, (1, 2, 3, 4, 5, 6))
    assert RR.subgroup(group, np.array([1, 4])) == RM.Group("q", ("b", "e"), (1, 0), (2, 5))


def test_listnet_targets_mix_the_gold_with_the_teacher():
    def probabilities(targets):
        z = np.exp(np.asarray(targets))
        return z / z.sum()

    # gold only: all of it on the gold tool (the rest at e^-30)
    alone = probabilities(RR.listnet_targets((0, 1, 0), None, weight=0.0, temperature=0.05))
    assert alone == pytest.approx([0, 1, 0], abs=1e-12)
    # teacher cosines 0.5, 0.5, 0.5 at weight 0.4: a third of 0.4 each, 0.6 more on gold
    mixed = RR.listnet_targets((0, 1, 0), np.array([0.5, 0.5, 0.5]), weight=0.4,
                               temperature=0.05)
    assert probabilities(mixed) == pytest.approx([0.4 / 3, 0.6 + 0.4 / 3, 0.4 / 3])
    # a cosine 0.05 higher at temperature 0.05 is e times as likely under the teacher
    sharp = probabilities(RR.listnet_targets((1, 0), np.array([0.0, 0.05]), weight=0.5,
                                             temperature=0.05))
    assert sharp[1] == pytest.approx(0.5 * np.e / (1 + np.e))
    with pytest.raises(ParamsError, match="teacher_weight"):
        RR.Params(**{**RERANKER_PARAMS, "teacher_weight": 0.5})  # bce has no soft targets
    taught = RR.Params(**{**RERANKER_PARAMS, "loss": "listnet", "teacher_weight": 0.5})
    with pytest.raises(ParamsError, match="need --retriever"):  # no teacher to learn from
        RR.train_reranker(pl.DataFrame(), [], params=taught, base_model="unused")


def test_checkpoints_are_scored_evenly_and_the_last_step_among_them():
    assert RR.eval_steps(100, 4) == [25, 50, 75, 100]
    assert RR.eval_steps(3, 6) == [1, 2, 3]  # never more than there are steps
    assert RR.eval_steps(100, 0) == []


@pytest.mark.parametrize("loss", ["bce", "lambda", "listnet"])
def test_train_reranker_main(tmp_path, tiny_model, train_dir, fixture_catalog, mlflow_store, loss):
    from sentence_transformers.cross_encoder import CrossEncoder

    out = tmp_path / "models" / "reranker"
    metrics_path = tmp_path / "metrics" / "train_reranker.json"
    overrides = {
        "bce": {},
        "lambda": {"frozen_layers": 1},
        # the retriever (here the tiny model) picks the negatives, teaches and starts it;
        # two checkpoints are scored and the better one kept
        "listnet": {"teacher_weight": 0.5, "base": "retriever", "evals": 2},
    }[loss]
    params = write_params(tmp_path / "params.yaml", train_reranker={"loss": loss, **overrides})
    teacher = ["--retriever", str(tiny_model)] if loss == "listnet" else []
    RR.main(
        [str(params), str(fixture_catalog), str(train_dir), str(out), str(metrics_path),
         "--base-model", str(tiny_model), *teacher]
    )

    metrics = json.loads(metrics_path.read_text())
    orders = ("fused_", "dense_", "") if teacher else ("fused_", "")
    rates = {f"{p}valid_{m}" for p in orders
             for m in ("mrr", "recall_at_1", "recall_at_3", "recall_at_8")}
    assert_rates(metrics, rates)
    assert metrics["fused_valid_mrr"] == pytest.approx(1 / 3)
    assert metrics["n_train_groups"] == 20 and metrics["n_train_pairs"] == 80
    assert metrics["n_valid_groups"] == 17
    if loss == "listnet":  # 20 groups in batches of 8: 3 steps, scored at 2 and 3
        assert [step for step, _ in metrics["valid_curve"]] == [2, 3]
        best = max(metrics["valid_curve"], key=lambda point: point[1])
        assert metrics["best_step"] == best[0]
        # the first 8 of 17 valid groups chose it; every order is scored on the other 9
        assert metrics["n_heldout_groups"] == 9
        assert_rates(metrics, {f"heldout_{r}" for r in rates})
        assert metrics["heldout_fused_valid_mrr"] == pytest.approx(1 / 3)
    else:
        # nothing scored: the last step is kept (80 pairs or 20 groups, 8 a batch)
        assert metrics["valid_curve"] == [] and metrics["n_heldout_groups"] == 17
        assert metrics["best_step"] == (10 if loss == "bce" else 3)
    assert_changed(tiny_model, out)
    model = CrossEncoder(str(out), device="cpu", local_files_only=True)
    logits = model.predict([["list commits", "github.list_commits"], ["refund", "stripe"]])
    assert logits.shape == (2,) and np.isfinite(logits).all()
    # the saved head returns the raw logit: the runtime applies the sigmoid itself
    assert model.activation_fn.__class__.__name__ == "Identity"

    run = stage_run_of(mlflow_store, "train_reranker")
    assert run["tags.git_rev"] is not None and run["params.loss"] == loss
    assert run["tags.dataset.reranker.sha256"]
    assert run["metrics.valid_mrr"] == pytest.approx(metrics["valid_mrr"])


def test_a_seeded_cross_encoder_head_starts_the_same(tiny_model):
    """The new head is the only random part of a cross-encoder started from a bi-encoder:
    seeded, two loads start alike (a rerun of the stage reproduces its model)."""
    import torch

    def head(seed):
        model = RR.load_cross_encoder(tiny_model, max_length=32, seed=seed)
        return torch.cat([p.detach().flatten() for p in model.model.classifier.parameters()])

    assert torch.equal(head(13), head(13))
    assert not torch.equal(head(13), head(14))

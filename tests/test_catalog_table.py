"""The per-catalog table: cells read from the stage metrics, by hand."""

import json

from training.benchmarks.catalog_table import CatalogRow, main, table

LTR = {
    "n_valid_groups": 56, "trained_on": "train+stack", "features": "without_logit",
    "valid_fused_mrr": 0.6661, "valid_dense_mrr": 0.9012, "valid_cross_encoder_mrr": 0.7744,
    "valid_ltr_stacked_without_logit_mrr": 0.9271, "valid_ltr_stacked_with_logit_mrr": 0.9163,
    "valid_ltr_without_logit_mrr": 0.5, "valid_ltr_mrr": 0.9271,
}
EVAL = {
    "pipeline": {"end_to_end": 0.472},
    "variants": {"dense_order": {"end_to_end": 0.452}, "cross_encoder": {"end_to_end": 0.464}},
    "baselines": {"bm25": {"ndcg_at_10": 0.6936}, "dense": {"ndcg_at_10": 0.604},
                  "pipeline": {"ndcg_at_10": 0.753}},
}


def test_a_row_by_hand():
    lines = table([CatalogRow("stb", False, LTR, EVAL),
                   CatalogRow("toollens", True, {}, {})]).splitlines()
    assert len(lines) == 4
    # the with/without pair is read on the train set the shipped ranker chose (stacked)
    assert lines[2] == (
        "| stb | 56 | 0.666 | 0.901 | 0.774 | 0.927 | 0.916 | without, 0.927 "
        "| 0.452 / 0.464 / 0.472 | +2.0 | 0.694 / 0.604 / 0.753 |"
    )
    assert lines[3] == "| toollens (held out) |" + "  |" * 10
    # a ranker that lost to the dense order on its valid groups: the dense order ships
    fallback = table([CatalogRow("hb", True, {**LTR, "ships": "dense"}, {})]).splitlines()
    assert "| 0.927 | 0.916 | dense, 0.901 |" in fallback[2]


def test_the_cli_reads_metrics_dirs(tmp_path):
    (tmp_path / "stb").mkdir()
    (tmp_path / "stb" / "train_ltr.json").write_text(json.dumps(LTR))
    (tmp_path / "stb" / "eval.json").write_text(json.dumps(EVAL))
    out = tmp_path / "t.md"
    main([str(out), f"stb={tmp_path / 'stb'}", f"gone={tmp_path / 'gone'}", "--held-out", "gone"])
    text = out.read_text()
    assert "| stb | 56 |" in text and "| gone (held out) |" in text


def test_an_eval_file_alone_fills_the_end_to_end_cells(tmp_path):
    (tmp_path / "eval_valid.json").write_text(json.dumps(EVAL))
    out = tmp_path / "t.md"
    main([str(out), f"demo_valid={tmp_path / 'eval_valid.json'}"])
    row = next(line for line in out.read_text().splitlines() if line.startswith("| demo_valid"))
    assert row == ("| demo_valid |" + "  |" * 7
                   + " 0.452 / 0.464 / 0.472 | +2.0 | 0.694 / 0.604 / 0.753 |")

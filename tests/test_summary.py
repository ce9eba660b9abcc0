"""`toolsift report`: the short summary over the metrics files, from hand-made metrics."""

from __future__ import annotations

import json
from pathlib import Path

from training.evaluation.summary import summary_lines

EVAL = {
    "bundle_version": "b-1",
    "n_queries": 4,
    "pipeline": {
        "n_items": 5, "r_decompose": 1.0, "r_retrieve": 0.8, "r_filter": 1.0, "r_menu": 0.75,
        "r_select": 0.5, "end_to_end": 0.3,
        "latency_ms": {"total": {"p50": 12.4, "p95": 40.0}},
        "tokens": {"menu_mean": 250.0, "catalog": 9000},
    },
    "baselines": {
        "bm25": {"recall_at_5": 0.5, "recall_at_10": 0.6, "ndcg_at_10": 0.45},
        "pipeline": {"recall_at_5": 0.7, "recall_at_10": 0.9, "ndcg_at_10": 0.65},
    },
    "variants": {"fused_order": {"end_to_end": 0.25}},
}


def test_summary_reads_what_the_stages_wrote(tmp_path: Path) -> None:
    (tmp_path / "eval.json").write_text(json.dumps(EVAL))
    (tmp_path / "promote.json").write_text(json.dumps({"promoted": True, "reason": "first"}))
    lines = summary_lines(tmp_path)
    text = "\n".join(lines)
    assert "r_menu 0.750" in text and "end_to_end 0.300" in text
    bm25 = next(x for x in lines if x.strip().startswith("bm25"))
    ours = next(x for x in lines if x.strip().startswith("toolsift"))
    assert bm25.split()[1:] == ["0.500", "0.600", "0.450"]
    assert ours.split()[1:] == ["0.700", "0.900", "0.650"]
    assert "p50 12 ms, p95 40 ms" in text
    assert "promotion: promoted: first" in text
    assert "security study: not run" in text
    assert len(lines) <= 25


def test_summary_before_any_run_says_what_is_missing(tmp_path: Path) -> None:
    lines = summary_lines(tmp_path)
    assert "not written yet" in lines[0]
    assert "promotion: not run yet" in lines

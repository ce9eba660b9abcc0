"""The table of catalogs served their offered tools: cells and pooled rows by hand."""

import json

from training.benchmarks.offered_table import Abstention, main, pooled, read_row, table


def _eval(abstain, false, n_no, n_gold, stock_abstain, stock_false):
    return {
        "pipeline": {"abstention": {"abstain_rate": abstain, "false_abstain_rate": false,
                                    "n_no_tool": n_no, "n_with_gold": n_gold},
                     "r_menu": 0.9, "menu_length_mean": 2.5},
        "variants": {"stock_bundle": {"abstention": {
            "abstain_rate": stock_abstain, "false_abstain_rate": stock_false,
            "n_no_tool": n_no, "n_with_gold": n_gold}}},
    }


def test_pooled_rates_weigh_each_catalog_by_its_requests():
    # (0.5 * 100 + 1.0 * 300) / 400 = 0.875; (0.02 * 50 + 0.0 * 150) / 200 = 0.005
    both = pooled([Abstention(100, 0.5, 50, 0.02), Abstention(300, 1.0, 150, 0.0)])
    assert both.n_no_tool == 400 and both.abstain == 0.875
    assert both.n_with_gold == 200 and both.false == 0.005
    # a catalog without no-tool requests adds nothing to the abstain rate
    assert pooled([Abstention(0, None, 10, 0.1), Abstention(4, 0.25, 0, None)]) == Abstention(
        4, 0.25, 10, 0.1)


def test_rows_and_the_pooled_lines_by_hand(tmp_path):
    rows = [read_row("hb", _eval(0.5, 0.02, 100, 50, 0.25, 0.0)),
            read_row("ace", _eval(1.0, 0.0, 300, 150, 0.5, 0.04))]
    lines = table(rows, without="hb").splitlines()
    assert lines[2] == "| hb | 100 | 0.500 / 0.250 | 50 | 0.020 / 0.000 | 0.900 | 2.50 |"
    assert lines[4] == "| all | 400 | 0.875 / 0.438 | 200 | 0.005 / 0.030 |  |  |"
    assert lines[5] == "| all but hb | 300 | 1.000 / 0.500 | 150 | 0.000 / 0.040 |  |  |"
    (tmp_path / "hb").mkdir()
    (tmp_path / "hb" / "eval.json").write_text(json.dumps(_eval(0.5, 0.02, 100, 50, 0.25, 0)))
    out = tmp_path / "t.md"
    main([str(out), f"hb={tmp_path / 'hb'}", f"gone={tmp_path / 'gone'}"])
    assert "| hb | 100 |" in out.read_text() and "| gone | 0 |" in out.read_text()

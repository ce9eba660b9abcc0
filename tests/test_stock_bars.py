"""The stock menu bars: the grid, and the choice across catalogs, on values worked by hand."""

import pytest

from serving.model.selection import Candidate
from serving.stages.menu_policy import MenuBars
from training.no_tool.menu_cuts import Replayed
from training.stock_bars import Params, bar_grid, choose, curve_of


def params(**kw) -> Params:
    base = dict(fit_requests=10, stock_relative_bars=(0.0, 0.5),
                stock_write_bars=(0.0, 0.3, 0.6), stock_mass_bars=(1.0,),
                stock_r_menu_tolerance=0.01)
    return Params(**{**base, **kw})


def test_a_write_bar_is_never_below_the_bar_of_every_tool():
    grid = bar_grid(params())
    assert MenuBars() == grid[0]
    # (0, 0), (0, .3), (0, .6), (.5, 0), (.5, .6): (.5, .3) would let writes in below reads
    assert [(b.relative, b.write_relative) for b in grid] == [
        (0.0, 0.0), (0.0, 0.3), (0.0, 0.6), (0.5, 0.0), (0.5, 0.6)]


def test_the_shortest_menus_within_the_tolerance_on_every_catalog():
    a = [{"r_menu": 0.90, "menu_length": 7}, {"r_menu": 0.895, "menu_length": 5},
         {"r_menu": 0.85, "menu_length": 3}]
    b = [{"r_menu": 0.70, "menu_length": 8}, {"r_menu": 0.70, "menu_length": 7},
         {"r_menu": 0.699, "menu_length": 2}]
    assert choose([a], 0.01) == 1  # point 2 loses 0.05 on a
    assert choose([b], 0.01) == 2
    assert choose([a, b], 0.01) == 1  # 5 + 7 is the shortest both keep


def test_a_curve_cuts_the_shortlists_as_the_runtime_does(fixture_cards):
    cards = {c.tool_id: c for c in fixture_cards}
    reads = [c.tool_id for c in fixture_cards if c.risk == "read_only"][:3]
    shortlist = (Candidate(reads[0], 1.0), Candidate(reads[1], 0.6), Candidate(reads[2], 0.3))
    rows = [Replayed("q1", "fit", "served", frozenset({reads[2]}), (), (shortlist,)),
            Replayed("q2", "fit", "served", frozenset({reads[0]}), (), (shortlist,))]
    grid = [MenuBars(), MenuBars(relative=0.5)]
    no_bars, half = curve_of(rows, cards, grid, size=8)
    assert no_bars["menu_length"] == 3 and no_bars["r_menu"] == 1.0
    # at half the best the third tool leaves: q1 loses its gold
    assert half["menu_length"] == 2 and half["r_menu"] == pytest.approx(0.5)

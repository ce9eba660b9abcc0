"""The numpy scorer of LightGBM text models against lightgbm itself, and its refusals."""

from __future__ import annotations

from pathlib import Path

import lightgbm
import numpy as np
import pytest

from serving.stages.trees import TreeEnsemble, TreeModelError


def _ranker_data(seed: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """60 groups of 8 rows; the label follows two columns; zeros and NaN on purpose, so the
    model learns splits with each missing-value rule."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(480, 5))
    x[rng.random(480) < 0.2, 2] = 0.0
    x[rng.random(480) < 0.1, 3] = np.nan
    y = ((x[:, 0] + 0.5 * np.nan_to_num(x[:, 3]) + rng.normal(scale=0.3, size=480)) > 0.8)
    return x, y.astype(int), [8] * 60


@pytest.mark.parametrize("zero_as_missing", [False, True])
def test_scores_equal_lightgbm_on_rows_it_never_saw(tmp_path: Path, zero_as_missing: bool):
    x, y, groups = _ranker_data(0)
    model = lightgbm.LGBMRanker(
        n_estimators=40, num_leaves=7, min_child_samples=5, verbose=-1,
        zero_as_missing=zero_as_missing,
    )
    model.fit(x, y, group=groups)
    path = tmp_path / "model.txt"
    model.booster_.save_model(str(path))
    fresh, _, _ = _ranker_data(1)
    fresh[::5, 1] = np.nan  # NaN in a column trained without any
    fresh[::7, 0] = 0.0
    ours = TreeEnsemble.load(path)
    assert ours.num_feature() == 5
    theirs = lightgbm.Booster(model_file=str(path)).predict(fresh)
    assert ours.predict(fresh) == pytest.approx(theirs, abs=1e-12)
    # rows with no missing value take the masks (zero_as_missing: the walk), one at a
    # time or together, with exact zeros and values on a threshold among them
    whole = np.nan_to_num(fresh)
    root = next(t for t in ours.trees if t.feature.size)
    whole[::3, root.feature[0]] = root.threshold[0]  # exactly on a split: goes left
    theirs = lightgbm.Booster(model_file=str(path)).predict(whole)
    assert ours.predict(whole) == pytest.approx(theirs, abs=1e-12)
    assert ours.predict(whole[:1]) == pytest.approx(theirs[:1], abs=1e-12)
    assert ours.predict(np.zeros((0, 5))).shape == (0,)


def test_single_leaf_trees_add_their_value(tmp_path: Path):
    x, y, groups = _ranker_data(2)
    # too few rows per leaf to split: every tree is one leaf
    model = lightgbm.LGBMRanker(n_estimators=3, min_child_samples=1000, verbose=-1)
    model.fit(x, y, group=groups)
    path = tmp_path / "model.txt"
    model.booster_.save_model(str(path))
    theirs = lightgbm.Booster(model_file=str(path)).predict(x[:4])
    assert TreeEnsemble.load(path).predict(x[:4]) == pytest.approx(theirs, abs=1e-12)


@pytest.fixture
def model_text(tmp_path: Path) -> str:
    """Two trees of three leaves (two nodes each)."""
    x, y, groups = _ranker_data(3)
    model = lightgbm.LGBMRanker(n_estimators=2, num_leaves=3, min_child_samples=5, verbose=-1)
    model.fit(x, y, group=groups)
    path = tmp_path / "ok.txt"
    model.booster_.save_model(str(path))
    text = path.read_text()
    assert "Tree=0\nnum_leaves=3\n" in text
    return text


def _first_tree_line(text: str, key: str, values: str) -> str:
    """`text` with the first tree's `key=` line set to `values`."""
    start = text.index(f"\n{key}=", text.index("Tree=0")) + 1
    end = text.index("\n", start)
    return text[:start] + f"{key}={values}" + text[end:]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("num_cat=0", "num_cat=1", 1), "Tree=0: categorical"),
        (lambda t: t.replace("is_linear=0", "is_linear=1", 1), "Tree=0: linear"),
        (lambda t: t.replace("left_child=", "left_child=9 ", 1), "Tree=0: arrays do not match"),
        (lambda t: _first_tree_line(t, "split_feature", "99 0"), "Tree=0: split_feature"),
        (lambda t: _first_tree_line(t, "threshold", "abc 0"), "Tree=0: could not convert"),
        (lambda t: _first_tree_line(t, "left_child", "1 0"), "Tree=0: the nodes do not form"),
        (lambda t: _first_tree_line(t, "right_child", "5 -2"), "Tree=0: a child index"),
        (lambda t: t.replace("max_feature_idx=", "max_feature_id=", 1), "max_feature_idx"),
        (lambda t: "\n".join(line for line in t.splitlines() if not line.startswith("Tree=")),
         "no trees"),
        (lambda t: "hello\n", "not a LightGBM text model"),
    ],
)
def test_a_broken_model_is_refused_by_file_and_tree(tmp_path, model_text, edit, message):
    path = tmp_path / "model.txt"
    path.write_text(edit(model_text))
    with pytest.raises(TreeModelError, match=message) as err:
        TreeEnsemble.load(path)
    assert str(path) in str(err.value)

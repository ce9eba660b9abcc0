"""The learned ranker at run time: a LightGBM text model scored with numpy alone.

`lightgbm` (with scipy beneath it) is a training dependency: importing it is most of a
one-shot call's start-up and ~150 MB of the runtime install. The ranker's model file is
plain text, and what the runtime needs of it is small: per tree, numeric splits
(`x <= threshold` goes left) with LightGBM's missing-value rules, and leaf values that
already carry the shrinkage. Categorical splits and linear trees are refused, by name.
`tests/test_trees.py` checks the scores against `lightgbm.Booster.predict`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_DEFAULT_LEFT = 2  # decision_type bit: a missing value goes left
_MISSING_ZERO, _MISSING_NAN = 1, 2  # decision_type bits 2-3
_ZERO = 1e-35  # LightGBM's kZeroThreshold: |x| at most this counts as zero
_ALL_LEAVES = np.uint64(2**64 - 1)


class TreeModelError(ValueError):
    """A model file this scorer cannot read; the message names the file and the tree."""


@dataclass(frozen=True)
class Tree:
    """One regression tree; a child < 0 is the leaf ~child."""

    feature: np.ndarray  # [nodes] int
    threshold: np.ndarray  # [nodes] float64
    decision: np.ndarray  # [nodes] int: LightGBM's decision_type bits
    left: np.ndarray  # [nodes] int
    right: np.ndarray  # [nodes] int
    leaf_value: np.ndarray  # [leaves] float64


@dataclass(frozen=True)
class TreeEnsemble:
    """The sum of the trees' leaf values: LightGBM's raw score (what a lambdarank model's
    `predict` returns). Rows with no missing value (the runtime's) are scored with one
    comparison per split and a bit mask per tree, a fixed ~6 numpy steps (0.39 ms for a
    step's 16 candidates on the demo's 200 trees, 1.1 ms walking); other rows walk the
    trees packed into flat arrays, every (row, tree) pair one level per numpy step."""

    trees: tuple[Tree, ...]
    n_features: int
    feature_names: tuple[str, ...]

    def __post_init__(self) -> None:
        split = [t for t in self.trees if t.feature.size]
        node_at = np.cumsum([0] + [t.feature.size for t in split])
        leaf_at = np.cumsum([0] + [t.leaf_value.size for t in split])

        def child(c: np.ndarray, i: int) -> np.ndarray:  # global node, or -(global leaf) - 1
            return np.where(c >= 0, c + node_at[i], -(~c + leaf_at[i]) - 1)

        def cat(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
            return np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype)

        packed = {
            "roots": node_at[:-1].astype(np.int64),
            "feature": cat([t.feature for t in split], np.int64),
            "threshold": cat([t.threshold for t in split], np.float64),
            "decision": cat([t.decision for t in split], np.int64),
            "left": cat([child(t.left, i) for i, t in enumerate(split)], np.int64),
            "right": cat([child(t.right, i) for i, t in enumerate(split)], np.int64),
            "leaf_value": cat([t.leaf_value for t in split], np.float64),
            # single-leaf trees add a constant
            "constant": float(sum(t.leaf_value[0] for t in self.trees if not t.feature.size)),
        }
        packed.update(_exit_masks(split, node_at, leaf_at))
        object.__setattr__(self, "_packed", packed)

    def num_feature(self) -> int:
        return self.n_features

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Raw scores of the rows of `x` ([rows, n_features])."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, self.n_features)
        p = self._packed  # type: ignore[attr-defined]
        n_rows, n_trees = x.shape[0], p["roots"].size
        out = np.full(n_rows, p["constant"], dtype=np.float64)
        if n_rows == 0 or n_trees == 0:
            return out
        if p["masks"] is not None and not np.isnan(x).any():
            # no value is missing, so every split's answer is one comparison: a split
            # that sends a row right rules out the leaves of its left side, and the
            # row's leaf in each tree is the leftmost one nothing ruled out
            right = x[:, p["feature"]] > p["threshold"]
            alive = np.bitwise_and.reduceat(
                np.where(right, p["masks"], _ALL_LEAVES), p["roots"], axis=1)
            leftmost = np.frexp((alive & (~alive + np.uint64(1))).astype(np.float64))[1] - 1
            leaf = p["leaf_at_position"][np.arange(n_trees), leftmost]
            return out + p["leaf_value"][leaf].sum(axis=1)
        row = np.repeat(np.arange(n_rows), n_trees)
        node = np.tile(p["roots"], n_rows)
        leaf = np.zeros(row.size, dtype=np.int64)
        active = np.arange(row.size)
        while active.size:
            n = node[active]
            value = x[row[active], p["feature"][n]]
            missing = (p["decision"][n] >> 2) & 3
            value = np.where(np.isnan(value) & (missing != _MISSING_NAN), 0.0, value)
            is_missing = ((missing == _MISSING_ZERO) & (np.abs(value) <= _ZERO)) | (
                (missing == _MISSING_NAN) & np.isnan(value)
            )
            default_left = (p["decision"][n] & _DEFAULT_LEFT) != 0
            go_left = np.where(is_missing, default_left, value <= p["threshold"][n])
            nxt = np.where(go_left, p["left"][n], p["right"][n])
            done = nxt < 0
            leaf[active[done]] = -nxt[done] - 1
            node[active] = nxt
            active = active[~done]
        np.add.at(out, row, p["leaf_value"][leaf])
        return out

    @classmethod
    def load(cls, path: str | Path) -> TreeEnsemble:
        """Reads a LightGBM text model (`Booster.save_model`); raises `TreeModelError`."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise TreeModelError(f"{path}: cannot read the model ({err})") from None
        blocks = list(_blocks(text))
        if not blocks or "tree" not in blocks[0]:
            raise TreeModelError(f"{path}: not a LightGBM text model")
        header = blocks[0]
        try:
            n_features = int(header["max_feature_idx"]) + 1
            per_iteration = int(header.get("num_tree_per_iteration", "1"))
        except (KeyError, ValueError):
            raise TreeModelError(f"{path}: header lacks max_feature_idx") from None
        if per_iteration != 1:
            raise TreeModelError(f"{path}: {per_iteration} trees per iteration (multiclass)")
        names = tuple(header.get("feature_names", "").split())
        trees = tuple(
            _tree(block, path, n_features) for block in blocks[1:] if "Tree" in block
        )
        if not trees:
            raise TreeModelError(f"{path}: no trees")
        return cls(trees, n_features, names)


def _exit_masks(split: list[Tree], node_at: np.ndarray,
                leaf_at: np.ndarray) -> dict[str, np.ndarray | None]:
    """For scoring without a walk (QuickScorer, Lucchese et al. 2015): each tree's leaves
    numbered left to right, per split a bit mask with the leaves of its left side cleared,
    and per (tree, position) the global leaf. None where a tree has more than 64 leaves
    or a split treats zero as missing (those take the walk)."""
    if not split or any(t.leaf_value.size > 64 for t in split) or any(
            (((t.decision >> 2) & 3) == _MISSING_ZERO).any() for t in split):
        return {"masks": None, "leaf_at_position": None}
    masks = np.full(int(node_at[-1]), _ALL_LEAVES, dtype=np.uint64)
    at_position = np.zeros((len(split), max(t.leaf_value.size for t in split)), np.int64)
    for i, tree in enumerate(split):
        order, left_sides = _leaf_layout(tree)
        for node, (first, past) in enumerate(left_sides):
            left_side = sum(1 << b for b in range(first, past))
            masks[node_at[i] + node] = np.uint64(2**64 - 1 - left_side)
        at_position[i, : len(order)] = np.asarray(order) + leaf_at[i]
    return {"masks": masks, "leaf_at_position": at_position}


def _leaf_layout(tree: Tree) -> tuple[list[int], list[tuple[int, int]]]:
    """The tree's leaves left to right, and per split the positions [first, past) of
    the leaves on its left side."""
    order: list[int] = []
    left_sides = [(0, 0)] * tree.feature.size

    def visit(node: int) -> None:
        if node < 0:
            order.append(~node)
            return
        first = len(order)
        visit(int(tree.left[node]))
        left_sides[node] = (first, len(order))
        visit(int(tree.right[node]))

    visit(0)
    return order, left_sides


def _blocks(text: str) -> Iterator[dict[str, str]]:
    """The file's `key=value` blocks, separated by blank lines; a block stops at the
    `end of trees` line (what follows are importances and parameters)."""
    block: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line == "end of trees":
            break
        if not line:
            if block:
                yield block
            block = {}
            continue
        key, _, value = line.partition("=")
        block[key] = value
    if block:
        yield block


def _tree(block: Mapping[str, str], path: Path, n_features: int) -> Tree:
    where = f"{path}: Tree={block.get('Tree', '?')}"
    try:
        n_leaves = int(block["num_leaves"])
        if int(block.get("num_cat", "0")) > 0:
            raise TreeModelError(f"{where}: categorical splits are not supported")
        if block.get("is_linear", "0") != "0":
            raise TreeModelError(f"{where}: linear trees are not supported")
        leaf_value = _floats(block["leaf_value"])
        if n_leaves == 1:
            empty = np.zeros(0, dtype=np.int64)
            return Tree(empty, np.zeros(0), empty, empty, empty, leaf_value[:1])
        tree = Tree(
            feature=_ints(block["split_feature"]),
            threshold=_floats(block["threshold"]),
            decision=_ints(block["decision_type"]),
            left=_ints(block["left_child"]),
            right=_ints(block["right_child"]),
            leaf_value=leaf_value,
        )
    except KeyError as err:
        raise TreeModelError(f"{where}: missing {err.args[0]}") from None
    except ValueError as err:
        if isinstance(err, TreeModelError):
            raise
        raise TreeModelError(f"{where}: {err}") from None
    _check(tree, n_leaves, n_features, where)
    return tree


def _check(tree: Tree, n_leaves: int, n_features: int, where: str) -> None:
    """Every array the right length and every index in range: a walk that cannot loop."""
    n_nodes = n_leaves - 1
    sizes = {len(tree.feature), len(tree.threshold), len(tree.decision), len(tree.left),
             len(tree.right)}
    if sizes != {n_nodes} or len(tree.leaf_value) != n_leaves:
        raise TreeModelError(f"{where}: arrays do not match num_leaves={n_leaves}")
    if tree.feature.min() < 0 or tree.feature.max() >= n_features:
        raise TreeModelError(f"{where}: split_feature outside 0..{n_features - 1}")
    children = np.concatenate([tree.left, tree.right])
    if children.max() >= n_nodes or (~children[children < 0]).max() >= n_leaves:
        raise TreeModelError(f"{where}: a child index is out of range")
    # each node is some node's child once, and children come after their parent
    inner = children[children >= 0]
    parents = np.concatenate([np.arange(n_nodes), np.arange(n_nodes)])[children >= 0]
    if len(set(inner.tolist())) != len(inner) or (inner <= parents).any():
        raise TreeModelError(f"{where}: the nodes do not form a tree")
    if not all(math.isfinite(v) for v in tree.leaf_value) or np.isnan(tree.threshold).any():
        raise TreeModelError(f"{where}: a leaf value or threshold is not a number")


def _ints(value: str) -> np.ndarray:
    return np.array([int(v) for v in value.split()], dtype=np.int64)


def _floats(value: str) -> np.ndarray:
    return np.array([float(v) for v in value.split()], dtype=np.float64)

"""training/ holds one module per DVC stage (or Makefile job) at its top level, and no stage
imports another:
what stages share lives in the rooms below it (core, release, loop, security, ltr, ...)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def stage_modules() -> set[str]:
    """The modules the stage commands of dvc.yaml and studies/dvc.yaml run, and the
    top-level ones the Makefile runs (`make detector`: train_lint)."""
    names = set()
    for path in (ROOT / "dvc.yaml", ROOT / "studies" / "dvc.yaml"):
        for stage in yaml.safe_load(path.read_text())["stages"].values():
            argv = stage["cmd"].split()
            names.add(argv[argv.index("-m") + 1])
    names |= set(re.findall(r"-m (training\.[a-z_]+)\s", (ROOT / "Makefile").read_text()))
    return names


def imported(path: Path) -> set[str]:
    """Every module (or `module.name`) a file imports, function-level imports included."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return out


def test_the_top_level_holds_the_stages_and_nothing_else() -> None:
    top = {f"training.{p.stem}" for p in (ROOT / "training").glob("*.py") if p.stem != "__init__"}
    assert top == stage_modules()


def test_no_stage_imports_another_stage() -> None:
    stages = stage_modules()
    wrong = sorted(
        f"{name} -> {target}"
        for name in stages
        for target in imported(ROOT / (name.replace(".", "/") + ".py")) & (stages - {name})
    )
    assert wrong == []


def test_the_library_imports_no_stage() -> None:
    stages = stage_modules()
    rooms = ("core", "evaluation", "release", "loop", "demo", "benchmarks", "checks", "security",
             "ltr", "no_tool")
    library = [p for d in rooms for p in (ROOT / "training" / d).rglob("*.py")]
    wrong = sorted(
        f"{path.relative_to(ROOT)} -> {target}"
        for path in library
        for target in imported(path) & stages
    )
    assert wrong == []

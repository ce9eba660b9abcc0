"""dvc.yaml and studies/dvc.yaml stay wired: every stage's module exists, every dependency
is a repository file or another stage's output, every params section exists."""

import importlib.util
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PIPELINES = [ROOT / "dvc.yaml", ROOT / "studies" / "dvc.yaml"]


def stages():
    for path in PIPELINES:
        spec = yaml.safe_load(path.read_text())
        for name, stage in spec["stages"].items():
            wdir = (path.parent / stage.get("wdir", ".")).resolve()
            yield f"{path.relative_to(ROOT)}:{name}", stage, wdir


def names(entries):
    for entry in entries or []:
        yield next(iter(entry)) if isinstance(entry, dict) else entry


def test_modules_deps_and_params_exist():
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    outputs = {
        (wdir / out).resolve()
        for _, stage, wdir in stages()
        for key in ("outs", "metrics", "plots")
        for out in names(stage.get(key))
    }
    for where, stage, wdir in stages():
        for module in re.findall(r"python -m ([\w.]+)", stage["cmd"]):
            assert importlib.util.find_spec(module) is not None, f"{where}: {module}"
        for dep in names(stage.get("deps")):
            path = (wdir / dep).resolve()
            produced = any(path == out or out in path.parents for out in outputs)
            assert path.exists() or produced, f"{where}: dep {dep} is neither here nor made"
        for section in names(stage.get("params")):
            value = params
            for key in section.split("."):
                assert key in value, f"{where}: params section {section} missing"
                value = value[key]


def test_every_path_in_a_command_is_declared():
    """A path a stage reads or writes must be a dep or an output, or dvc cannot order it."""
    for where, stage, _ in stages():
        declared = {*names(stage.get("deps"))} | {
            out for key in ("outs", "metrics", "plots") for out in names(stage.get(key))
        }
        for token in stage["cmd"].split():
            if re.match(r"^(data|models|bundles|metrics|reports|plots)/", token):
                inside = [d for d in declared if token == d or token.startswith(d + "/")
                          or d.startswith(token + "/")]  # a directory of declared files
                assert inside, f"{where}: {token} is used but not declared"

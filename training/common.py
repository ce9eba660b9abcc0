"""What every stage CLI shares: strict params sections and metrics files."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

P = TypeVar("P")


class ParamsError(ValueError):
    pass


def read_section(params_path: str | Path, section: str) -> dict[str, Any]:
    data = yaml.safe_load(Path(params_path).read_text()) or {}
    if section not in data or not isinstance(data[section], dict):
        raise ParamsError(f"{params_path}: no `{section}:` section")
    return dict(data[section])


def load_params(params_path: str | Path, section: str, cls: type[P]) -> P:
    """Build the stage's frozen Params from its section; unknown or missing keys fail."""
    assert is_dataclass(cls)
    raw = read_section(params_path, section)
    names = {f.name for f in fields(cls)}
    unknown, missing = sorted(set(raw) - names), sorted(names - set(raw))
    if unknown or missing:
        raise ParamsError(
            f"{params_path}: section `{section}`: unknown keys {unknown}, missing keys {missing}"
        )
    return cls(**raw)


def write_metrics(path: str | Path, metrics: dict[str, Any]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")

"""Metrics files: `metrics/<stage>.json`, the numbers `dvc metrics show` reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_metrics(path: str | Path, metrics: dict[str, Any]) -> None:
    """Sorted, indented JSON (stable diffs), parent directories created."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")

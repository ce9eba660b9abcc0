"""The one params loader (`training.core.params`): strict keys, typed values, nested
sections, named errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
import yaml

from training.core.params import (
    ParamsError,
    load_params,
    optional,
    params_from_mapping,
    read_section,
)


@dataclass(frozen=True, slots=True)
class Inner:
    n: int
    rate: float


@dataclass(frozen=True, slots=True)
class Entry:
    file: str
    added_at: str
    note: str | None = optional(None)


@dataclass(frozen=True, slots=True)
class Outer:
    name: str
    flag: bool
    ks: Sequence[int]
    tags: list[str]
    inner: Inner
    entries: tuple[Entry, ...] = optional(())

    def __post_init__(self) -> None:
        if self.inner.n > 100:
            raise ParamsError("outer.inner.n: at most 100")


RAW = {"name": "x", "flag": True, "ks": [5, 1], "tags": ["a"], "inner": {"n": 3, "rate": 1}}


def test_a_section_becomes_its_frozen_dataclass(tmp_path) -> None:
    path = tmp_path / "params.yaml"
    # an unquoted 2026-11-01 is a date to YAML: a str field reads it as its ISO string
    entries = "  entries:\n  - {file: a.json, added_at: 2026-11-01}\n"
    path.write_text(yaml.safe_dump({"outer": RAW}) + entries)
    params = load_params(path, "outer", Outer)
    assert params.ks == (5, 1) and params.tags == ["a"]  # tuple for Sequence, list for list
    assert params.inner == Inner(n=3, rate=1.0) and isinstance(params.inner.rate, float)
    assert params.entries == (Entry(file="a.json", added_at="2026-11-01"),)
    assert load_params(path, "outer.inner", Inner) == params.inner  # a dotted subsection


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({**RAW, "extra": 1}, r"outer: unknown keys \['extra'\]"),
        ({k: v for k, v in RAW.items() if k != "flag"}, r"outer: missing keys \['flag'\]"),
        ({**RAW, "inner": {"n": 3}}, r"outer.inner: missing keys \['rate'\]"),
        ({**RAW, "flag": "yes"}, r"outer.flag: expected bool, got 'yes'"),
        ({**RAW, "inner": {"n": True, "rate": 1.0}}, r"outer.inner.n: expected int"),
        ({**RAW, "inner": {"n": 1, "rate": "1e-5"}}, r"outer.inner.rate: .*floats with a dot"),
        ({**RAW, "ks": [1, "2"]}, r"outer.ks\[1\]: expected int"),
        ({**RAW, "tags": "a"}, r"outer.tags: expected list"),
        ({**RAW, "entries": [{"file": "a"}]}, r"outer.entries\[0\]: missing keys \['added_at'\]"),
        ({**RAW, "inner": {"n": 101, "rate": 1.0}}, r"outer.inner.n: at most 100"),
    ],
)
def test_every_misfit_names_its_section_and_key(raw, message) -> None:
    with pytest.raises(ParamsError, match=message):
        params_from_mapping(Outer, raw, "outer")


def test_a_missing_section_and_the_file_are_named(tmp_path) -> None:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"outer": {**RAW, "flag": 1}}))
    with pytest.raises(ParamsError, match=r"no `other:` section"):
        read_section(path, "other")
    with pytest.raises(ParamsError, match=rf"{path}: outer.flag: expected bool"):
        load_params(path, "outer", Outer)

"""Stage params: one strict, typed loader from a `params.yaml` section to a frozen dataclass.

    params = load_params("params.yaml", "train_reranker", Params)
    sampling = load_params("params.yaml", "mine.sampling", SamplingParams)  # a subsection

Every field is required unless declared with `optional(default)`; a key the dataclass
does not have fails; a value of the wrong type fails. Each error is a `ParamsError`
naming the section and the key (`train_retriever.learning_rate: expected float, got
'1e-5'`). Field types come from the annotations: int, float (an int is read as a float),
bool, str (an unquoted YAML date is read as its ISO string), `X | None`, `Literal[...]`,
`tuple[X, ...]`, `Sequence[X]` (both read as tuples), `list[X]`, `dict[str, X]` /
`Mapping[str, X]`, `Any`, and nested dataclasses (a mapping, checked the same way, its
errors named `section.key.subkey`). Range and choice checks beyond the type stay in each
dataclass's `__post_init__`, so constructing one in code checks them too.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import yaml

P = TypeVar("P")
OPTIONAL = "toolsift.optional"


class ParamsError(ValueError):
    """A params section does not fit its dataclass: says which section and key."""


def optional(default: Any) -> Any:
    """A dataclass field that may be left out of its section (it then takes `default`)."""
    return dataclasses.field(default=default, metadata={OPTIONAL: True})


def read_section(params_path: str | Path, section: str) -> dict[str, Any]:
    """The raw mapping of `section` (dotted for a subsection: `mine.sampling`)."""
    data: Any = yaml.safe_load(Path(params_path).read_text()) or {}
    where: list[str] = []
    for part in section.split("."):
        where.append(part)
        if not isinstance(data, Mapping) or not isinstance(data.get(part), Mapping):
            raise ParamsError(f"{params_path}: no `{'.'.join(where)}:` section")
        data = data[part]
    return dict(data)


def load_params(params_path: str | Path, section: str, cls: type[P]) -> P:
    """The frozen `cls` built from `section` of the params file (module doc)."""
    raw = read_section(params_path, section)
    try:
        return params_from_mapping(cls, raw, section)
    except ParamsError as err:
        raise ParamsError(f"{params_path}: {err}") from None


def params_from_mapping(cls: type[P], raw: Any, where: str) -> P:
    """`cls` from a mapping; `where` names the section in errors."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    if not isinstance(raw, Mapping):
        raise ParamsError(f"{where}: expected a mapping, got {raw!r}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(str(k) for k in set(raw) - set(fields))
    missing = [
        name for name, f in fields.items() if name not in raw and not f.metadata.get(OPTIONAL)
    ]
    if unknown or missing:
        problems = [f"unknown keys {unknown}"] if unknown else []
        problems += [f"missing keys {missing}"] if missing else []
        raise ParamsError(f"{where}: {', '.join(problems)}")
    hints = typing.get_type_hints(cls)
    values = {
        name: _convert(raw[name], hints[name], f"{where}.{name}")
        for name in fields
        if name in raw
    }
    try:
        return cls(**values)
    except ParamsError:
        raise
    except (TypeError, ValueError) as err:  # a __post_init__ check
        raise ParamsError(f"{where}: {err}") from None


def _convert(value: Any, kind: Any, where: str) -> Any:
    """`value` checked against the annotation `kind` (and converted where the module doc
    says so)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _convert(value, options[0], where)
        for option in options:
            try:
                return _convert(value, option, where)
            except ParamsError:
                continue
        raise _wrong(value, kind, where)
    if origin is typing.Literal:
        if value not in args:
            raise ParamsError(f"{where}: {value!r} not in {list(args)}")
        return value
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return params_from_mapping(kind, value, where)
    if kind is bool:
        if not isinstance(value, bool):
            raise _wrong(value, kind, where)
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _wrong(value, kind, where)
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _wrong(value, kind, where)
        return float(value)
    if kind is str:
        if isinstance(value, date):  # YAML reads an unquoted 2026-01-01 as a date
            return value.isoformat()
        if not isinstance(value, str):
            raise _wrong(value, kind, where)
        return value
    if origin in (tuple, list, Sequence) or kind in (tuple, list):
        if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
            raise _wrong(value, kind, where)
        if origin is tuple and args and args[-1] is not Ellipsis:
            raise TypeError(f"{where}: fixed-length tuples are not supported")
        item = args[0] if args else Any
        items = [_convert(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
        return items if origin is list or kind is list else tuple(items)
    if origin in (dict, Mapping) or kind in (dict, Mapping):
        if not isinstance(value, Mapping):
            raise _wrong(value, kind, where)
        item = args[1] if len(args) == 2 else Any
        return {k: _convert(v, item, f"{where}.{k}") for k, v in value.items()}
    raise TypeError(f"{where}: the params loader does not support the type {kind!r}")


def _wrong(value: Any, kind: Any, where: str) -> ParamsError:
    name = getattr(kind, "__name__", None) or str(kind)
    hint = ""
    if kind is float and isinstance(value, str):
        try:
            float(value)
            hint = " (YAML reads 1e-5 as a string: write floats with a dot, 1.0e-5)"
        except ValueError:
            pass
    return ParamsError(f"{where}: expected {name}, got {value!r}{hint}")


def check_numbers(
    section: str,
    params: Any,
    *,
    ints: Sequence[str],
    floats: Sequence[str],
    non_negative: Sequence[str] = (),
) -> None:
    """Positive (or non-negative) ints and non-negative floats, for a `__post_init__`;
    YAML reads `1e-5` as a string, so say so."""
    for name in [*ints, *non_negative]:
        value, least = getattr(params, name), 0 if name in non_negative else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ParamsError(f"{section}.{name}: expected an integer >= {least}, got {value!r}")
    for name in floats:
        value = getattr(params, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ParamsError(
                f"{section}.{name}: expected a non-negative number, got {value!r}"
                " (write floats with a dot: 5.0e-5)"
            )

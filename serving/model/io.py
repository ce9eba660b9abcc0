"""JSONL loaders that report every bad line as `file:line: field: problem`.

A bad line is skipped, counted and (when a quarantine path is given) written to a
quarantine file with its error, so nothing is silently lost; `strict=True` raises on
the first bad line instead. Valid lines are always kept.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from serving.model.schema import (
    FieldError,
    LabeledQuery,
    ToolCard,
    Trace,
    check_json_value,
    traces_from_record,
)

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LineError:
    path: str
    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.field}: {self.problem}"


class InputError(ValueError):
    """Raised in strict mode, or when a file cannot be read at all."""

    def __init__(self, errors: list[LineError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


@dataclass(slots=True)
class LoadResult(Generic[T]):
    items: list[T]
    errors: list[LineError] = field(default_factory=list)
    n_lines: int = 0
    warnings: list[LineError] = field(default_factory=list)  # kept, but worth a look

    @property
    def n_skipped(self) -> int:
        return len(self.errors)

    def summary(self, what: str) -> str:
        return f"{what}: {len(self.items)} loaded, {self.n_skipped} skipped of {self.n_lines} lines"


def quarantine_path_for(output: str | Path, what: str) -> Path:
    """Where bad input lines go: beside the stage output that consumed them
    (`bundles/demo` + "catalog" -> `bundles/demo.catalog.quarantine.jsonl`)."""
    out = Path(output)
    return out.parent / f"{out.name}.{what}.quarantine.jsonl"


MAX_JSON_DEPTH = 64  # nesting levels of one line; real records use under 15
_BOM = b"\xef\xbb\xbf"


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw bytes) per line; decoding is per line so one bad byte costs one
    line, not the file. A path that cannot be read at all is an `InputError`."""
    try:
        with path.open("rb") as fh:
            for lineno, raw in enumerate(fh, start=1):
                yield lineno, raw[len(_BOM) :] if lineno == 1 and raw.startswith(_BOM) else raw
    except FileNotFoundError:
        raise InputError([LineError(str(path), 0, "<file>", "not found")]) from None
    except IsADirectoryError:
        raise InputError([LineError(str(path), 0, "<file>", "is a directory")]) from None
    except OSError as err:
        raise InputError([LineError(str(path), 0, "<file>", _os_problem(err))]) from None


def _os_problem(err: OSError) -> str:
    return f"cannot read: {err.strerror or type(err).__name__}"


def _reject_constant(name: str) -> Any:
    raise FieldError("<json>", f"{name} is not a finite number (JSON has no {name})")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise FieldError("<json>", f"{text[:40]} is out of range for a number")
    return value


def parse_json_line(raw: bytes | str) -> Any:
    """One JSONL line as a value, or `FieldError`: bytes must be UTF-8; NaN, Infinity,
    numbers beyond float range and nesting beyond `MAX_JSON_DEPTH` are line errors."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            problem = f"not UTF-8: byte {raw[err.start]:#04x} at {err.start}"
            raise FieldError("<utf-8>", problem) from None
    else:
        text = raw
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as err:
        raise FieldError("<json>", f"invalid JSON: {err.msg} at column {err.colno}") from None
    except FieldError:
        raise
    except RecursionError:
        raise FieldError("<json>", f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as err:  # an integer of more than 4,300 digits
        raise FieldError("<json>", f"invalid number: {str(err)[:80]}") from None
    # decoded UTF-8 holds no lone surrogate but from a `\\u` escape, and the line's
    # brackets bound its depth: most lines need no walk (a bundle load reads every card)
    escaped = "\\ud" in text or "\\uD" in text
    if escaped or not isinstance(raw, bytes) or text.count("{") + text.count("[") > MAX_JSON_DEPTH:
        check_json_value(data, "<json>", max_depth=MAX_JSON_DEPTH)
    return data


def load_jsonl(
    path: str | Path,
    parse: Callable[[Any], Iterable[T]],
    *,
    check: Callable[[T], None] | None = None,
    strict: bool = False,
    quarantine: str | Path | None = None,
) -> LoadResult[T]:
    """Parse each non-blank line with `parse` (which may yield several items per line).

    `check` runs per item after parsing (cross-record rules such as duplicate ids) and
    raises `FieldError` to reject the whole line.
    """
    return load_jsonl_files([Path(path)], parse, check=check, strict=strict,
                            quarantine=quarantine)


def jsonl_files(path: str | Path) -> list[Path]:
    """`path`, or for a directory every `*.jsonl` in it in name order (several writers'
    files, e.g. one per gateway process); a directory without one is an `InputError`."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.glob("*.jsonl") if p.is_file())
    if not files:
        raise InputError([LineError(str(path), 0, "<file>", "a directory without *.jsonl files")])
    return files


def load_jsonl_files(
    paths: Iterable[Path],
    parse: Callable[[Any], Iterable[T]],
    *,
    check: Callable[[T], None] | None = None,
    strict: bool = False,
    quarantine: str | Path | None = None,
) -> LoadResult[T]:
    """`load_jsonl` over several files read one after another as one input: one result,
    each bad line named by its own file, one quarantine file for all of them."""
    result: LoadResult[T] = LoadResult(items=[])
    bad_lines: list[dict[str, Any]] = []
    for path, lineno, raw in ((p, n, r) for p in paths for n, r in _iter_lines(p)):
        if not raw.strip():
            continue
        result.n_lines += 1
        try:
            parsed = list(parse(parse_json_line(raw)))
            if check is not None:
                for item in parsed:
                    check(item)
        except FieldError as err:
            error = LineError(str(path), lineno, err.field, err.problem)
            if strict:
                raise InputError([error]) from None
            log.warning("%s", error)
            result.errors.append(error)
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            bad_lines.append({"error": str(error), "path": str(path), "line": lineno,
                              "raw": text})
            continue
        result.items.extend(parsed)
    if quarantine is not None and bad_lines:
        qpath = Path(quarantine)
        qpath.parent.mkdir(parents=True, exist_ok=True)
        with qpath.open("w", encoding="utf-8") as fh:
            for rec in bad_lines:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return result


def load_catalog(
    path: str | Path, *, strict: bool = False, quarantine: str | Path | None = None
) -> LoadResult[ToolCard]:
    seen: dict[str, int] = {}

    def check(card: ToolCard) -> None:
        if card.tool_id in seen:
            raise FieldError("tool_id", f"duplicate tool id {card.tool_id!r}")
        seen[card.tool_id] = 1

    return load_jsonl(
        path, lambda d: [ToolCard.from_dict(d)], check=check, strict=strict, quarantine=quarantine
    )


def load_traces(
    path: str | Path,
    *,
    known_tools: Iterable[str] | None = None,
    strict: bool = False,
    quarantine: str | Path | None = None,
) -> LoadResult[Trace]:
    """Trace events from a JSONL file, or from a directory's `*.jsonl` files in name order
    (gateways writing one file per process); `known_tools`: ids the traces must name."""
    known = set(known_tools) if known_tools is not None else None

    def check(trace: Trace) -> None:
        if known is None:
            return
        if trace.tool_id not in known:
            raise FieldError("tool_id", f"unknown tool {trace.tool_id!r} (not in the catalog)")
        unknown_menu = [t for t in trace.menu if t not in known]
        if unknown_menu:
            raise FieldError("menu", f"unknown tools {unknown_menu[:3]!r}")

    return load_jsonl_files(jsonl_files(path), traces_from_record, check=check, strict=strict,
                            quarantine=quarantine)


def load_queries(
    path: str | Path,
    *,
    known_tools: Iterable[str] | None = None,
    strict: bool = False,
    quarantine: str | Path | None = None,
) -> LoadResult[LabeledQuery]:
    known = set(known_tools) if known_tools is not None else None
    seen: set[str] = set()

    def check(q: LabeledQuery) -> None:
        if q.query_id in seen:
            raise FieldError("query_id", f"duplicate query id {q.query_id!r}")
        seen.add(q.query_id)
        if known is not None:
            unknown = [g for g in q.gold if g not in known]
            if unknown:
                raise FieldError("gold", f"unknown tools {unknown[:3]!r} (not in the catalog)")

    return load_jsonl(
        path,
        lambda d: [LabeledQuery.from_dict(d)],
        check=check,
        strict=strict,
        quarantine=quarantine,
    )


def write_jsonl(path: str | Path, records: Iterable[dict[str, Any]]) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=False) + "\n")
            n += 1
    return n

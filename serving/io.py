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

from serving.schema import FieldError, LabeledQuery, ToolCard, Trace, traces_from_record

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


def _iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with path.open(encoding="utf-8") as fh:
            yield from enumerate(fh, start=1)
    except FileNotFoundError:
        raise InputError([LineError(str(path), 0, "<file>", "not found")]) from None
    except UnicodeDecodeError as err:
        raise InputError([LineError(str(path), 0, "<file>", f"not UTF-8: {err}")]) from None


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
    path = Path(path)
    result: LoadResult[T] = LoadResult(items=[])
    bad_lines: list[dict[str, Any]] = []
    for lineno, raw in _iter_lines(path):
        if not raw.strip():
            continue
        result.n_lines += 1
        try:
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as err:
                raise FieldError(
                    "<json>", f"invalid JSON: {err.msg} at column {err.colno}"
                ) from None
            parsed = list(parse(data))
            if check is not None:
                for item in parsed:
                    check(item)
        except FieldError as err:
            error = LineError(str(path), lineno, err.field, err.problem)
            if strict:
                raise InputError([error]) from None
            log.warning("%s", error)
            result.errors.append(error)
            bad_lines.append({"error": str(error), "line": lineno, "raw": raw.rstrip("\n")})
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
    known = set(known_tools) if known_tools is not None else None

    def check(trace: Trace) -> None:
        if known is None:
            return
        if trace.tool_id not in known:
            raise FieldError("tool_id", f"unknown tool {trace.tool_id!r} (not in the catalog)")
        unknown_menu = [t for t in trace.menu if t not in known]
        if unknown_menu:
            raise FieldError("menu", f"unknown tools {unknown_menu[:3]!r}")

    return load_jsonl(path, traces_from_record, check=check, strict=strict, quarantine=quarantine)


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

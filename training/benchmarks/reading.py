"""Reading a benchmark in the neutral shape: its records (`BenchmarkTool`, `BenchmarkQuery`),
each line checked, and the bad lines reported, skipped and quarantined.

The shape, its conventions (a tool's category, server and api part; a query's slices) and
the bad-input rules are described in `training.benchmarks.convert`, which turns what is
read here into our formats.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from serving.model.io import InputError, LineError, LoadResult, write_jsonl
from serving.model.schema import FieldError

log = logging.getLogger(__name__)
T = TypeVar("T")

KNOWN_KINDS = frozenset(("single", "multi", "no_tool"))
QUERY_FIELDS = frozenset(("query_id", "query", "gold", "kind", "candidates"))
MAX_SLICE_CHARS = 80  # a longer extra field is text (an answer), not a slice label
DEFAULT_CATEGORY = "general"
_VARIANT_MARK = re.compile(r"#\d+$")


def _string(data: Mapping[str, Any], key: str, *, nonempty: bool = False) -> str:
    if key not in data or data[key] is None:
        raise FieldError(key, "missing")
    value = data[key]
    if not isinstance(value, str):
        raise FieldError(key, f"expected a string, got {type(value).__name__}")
    if nonempty and not value.strip():
        raise FieldError(key, "empty")
    return value


@dataclass(frozen=True, slots=True)
class BenchmarkTool:
    benchmark_id: str
    name: str  # without its `#k` variant mark
    description: str
    parameters: Mapping[str, Any]
    category: str  # the source before its `/`, or the source, or `general`
    server_name: str  # the text the server slug is made from
    api_part: str  # the id after `<server_name>.`, or the whole id

    @classmethod
    def from_dict(cls, data: Any) -> BenchmarkTool:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        tool_id = _string(data, "tool_id", nonempty=True)
        name = _VARIANT_MARK.sub("", _string(data, "name"))
        description = _string(data, "description")
        parameters = data.get("parameters")
        if parameters is None:
            parameters = {}
        if not isinstance(parameters, Mapping):
            raise FieldError(
                "parameters", f"expected a JSON Schema object, got {type(parameters).__name__}"
            )
        source = data.get("source")
        if source is None:
            source = ""
        if not isinstance(source, str):
            raise FieldError("source", f"expected a string, got {type(source).__name__}")
        head, slash, tail = source.partition("/")
        category = head.strip() or DEFAULT_CATEGORY
        id_head, dot, id_tail = tool_id.partition(".")
        if slash and tail.strip():
            server_name = tail
        elif dot and id_head.strip() and id_tail.strip():
            server_name = id_head
        else:
            server_name = category
        api_part = tool_id
        if tool_id.startswith(server_name + ".") and tool_id[len(server_name) + 1 :].strip():
            api_part = tool_id[len(server_name) + 1 :]
        return cls(tool_id, name, description, dict(parameters), category, server_name, api_part)


def _slice_values(value: Any) -> list[str] | None:
    """A short one-line string (or a list of them) as slice labels; None for anything else."""
    values = value if isinstance(value, list) else [value]
    if values and all(
        isinstance(v, str) and v.strip() and len(v) <= MAX_SLICE_CHARS and "\n" not in v
        for v in values
    ):
        return [v.strip() for v in values]
    return None


@dataclass(frozen=True, slots=True)
class BenchmarkQuery:
    query_id: str
    query: str
    gold: tuple[str, ...]  # distinct, in file order; () = no tool serves the request
    slices: tuple[str, ...]  # the kind (when not a count) and the extra fields' values
    ignored: tuple[str, ...] = ()  # extra fields that are no slice label
    # the tools the source offered with the request (`candidates`; () = the whole catalog):
    # a gold of () means none of these fits, not that the catalog lacks one
    candidates: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: Any) -> BenchmarkQuery:
        if not isinstance(data, Mapping):
            raise FieldError("<record>", "expected a JSON object")
        query_id = _string(data, "query_id", nonempty=True)
        query = _string(data, "query", nonempty=True)
        if "gold" not in data or data["gold"] is None:
            raise FieldError("gold", "missing (use [] for a request no tool serves)")
        gold = data["gold"]
        if not isinstance(gold, list) or not all(isinstance(g, str) and g for g in gold):
            raise FieldError("gold", f"expected a list of tool ids, got {gold!r}"[:200])
        slices: list[str] = []
        kind = data.get("kind")
        if kind is not None:
            if not isinstance(kind, str):
                raise FieldError("kind", f"expected a string, got {type(kind).__name__}")
            if kind.strip() and kind not in KNOWN_KINDS:
                slices.append(kind.strip())
        candidates = data.get("candidates")
        if candidates is None:
            candidates = []
        if not isinstance(candidates, list) or not all(
            isinstance(c, str) and c for c in candidates
        ):
            raise FieldError("candidates", f"expected a list of tool ids, got {candidates!r}"[:200])
        ignored: list[str] = []
        for key, value in data.items():
            if key in QUERY_FIELDS:
                continue
            values = _slice_values(value)
            if values is None:
                ignored.append(str(key))
            else:
                slices.extend(values)
        return cls(
            query_id,
            query,
            tuple(dict.fromkeys(gold)),
            tuple(dict.fromkeys(slices)),
            tuple(ignored),
            tuple(dict.fromkeys(candidates)),
        )

    @property
    def count_slice(self) -> str:
        """`no_tool`, `single` or `multi_subgoal`: how many distinct gold tools."""
        if not self.gold:
            return "no_tool"
        return "single" if len(self.gold) == 1 else "multi_subgoal"


def read_jsonl(
    path: str | Path,
    parse: Callable[[Any], T],
    *,
    check: Callable[[T, int], None] | None = None,
    quarantine: str | Path | None = None,
) -> LoadResult[T]:
    """`serving.model.io.load_jsonl` for outside files: a line with non-UTF-8 bytes is one bad line,
    not a bad file. `check(item, line)` runs cross-record rules and raises `FieldError`."""
    path = Path(path)
    result: LoadResult[T] = LoadResult(items=[])
    bad_lines: list[dict[str, Any]] = []

    def reject(lineno: int, field_name: str, problem: str, raw: bytes) -> None:
        error = LineError(str(path), lineno, field_name, problem)
        log.warning("%s", error)
        result.errors.append(error)
        text = raw.decode("utf-8", "backslashreplace").rstrip("\r\n")
        bad_lines.append({"error": str(error), "line": lineno, "raw": text})

    try:
        fh = path.open("rb")
    except OSError as err:
        problem = err.strerror or "unreadable"
        raise InputError([LineError(str(path), 0, "<file>", problem)]) from None
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as err:
                result.n_lines += 1
                problem = f"not UTF-8: byte 0x{raw[err.start]:02x} at offset {err.start}"
                reject(lineno, "<line>", problem, raw)
                continue
            if not text.strip():
                continue
            result.n_lines += 1
            try:
                try:
                    data = json.loads(text.rstrip("\r\n"))  # columns, not a line 2
                except json.JSONDecodeError as err:
                    raise FieldError(
                        "<json>", f"invalid JSON: {err.msg} at column {err.colno}"
                    ) from None
                item = parse(data)
                if check is not None:
                    check(item, lineno)
            except FieldError as err:
                reject(lineno, err.field, err.problem, raw)
                continue
            result.items.append(item)
    if quarantine is not None and bad_lines:
        write_jsonl(quarantine, bad_lines)
    return result


@dataclass(frozen=True, slots=True)
class Benchmark:
    tools: list[BenchmarkTool]
    queries: list[BenchmarkQuery]
    errors: dict[str, list[LineError]]  # "catalog" | "queries" -> the bad lines


def read_benchmark(
    bench_dir: str | Path, *, quarantine: Mapping[str, Path] | None = None
) -> Benchmark:
    """Both files, every bad line reported and skipped (`training.benchmarks.convert`'s doc);
    raises `InputError` when a file cannot be read."""
    bench_dir = Path(bench_dir)
    quarantine = quarantine or {}
    first_line: dict[str, int] = {}

    def check_tool(tool: BenchmarkTool, lineno: int) -> None:
        if tool.benchmark_id in first_line:
            raise FieldError(
                "tool_id",
                f"duplicate tool id {tool.benchmark_id!r} (first on line "
                f"{first_line[tool.benchmark_id]})",
            )
        first_line[tool.benchmark_id] = lineno

    catalog = read_jsonl(
        bench_dir / "catalog.jsonl",
        BenchmarkTool.from_dict,
        check=check_tool,
        quarantine=quarantine.get("catalog"),
    )
    if not catalog.items:  # every gold would be unknown: nothing to read the queries for
        return Benchmark([], [], {"catalog": catalog.errors, "queries": []})
    seen_queries: dict[str, int] = {}

    def check_query(q: BenchmarkQuery, lineno: int) -> None:
        if q.query_id in seen_queries:
            raise FieldError(
                "query_id",
                f"duplicate query id {q.query_id!r} (first on line {seen_queries[q.query_id]})",
            )
        for name, ids in (("gold", q.gold), ("candidates", q.candidates)):
            unknown = [g for g in ids if g not in first_line]
            if unknown:
                raise FieldError(name, f"unknown tools {unknown[:3]!r} (not in the catalog)")
        if q.candidates and not set(q.gold) <= set(q.candidates):
            raise FieldError("gold", "a gold tool is not among the request's candidates")
        seen_queries[q.query_id] = lineno

    queries = read_jsonl(
        bench_dir / "queries.jsonl",
        BenchmarkQuery.from_dict,
        check=check_query,
        quarantine=quarantine.get("queries"),
    )
    return Benchmark(
        catalog.items, queries.items, {"catalog": catalog.errors, "queries": queries.errors}
    )

"""Field errors and the JSON checks every record passes: finite numbers, valid Unicode,
bounded nesting, and an `input_schema` that is a valid JSON Schema.

`serving.model.schema` builds its records on these (and `FieldError` is read from there
by most callers); they live apart so the record types read in one file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from functools import cache
from typing import Any


class FieldError(ValueError):
    """A record field is missing or invalid; `field` names it for the error line."""

    def __init__(self, field_name: str, problem: str) -> None:
        super().__init__(f"{field_name}: {problem}")
        self.field = field_name
        self.problem = problem


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def check_json_value(value: Any, where: str, *, max_depth: int = 64) -> None:
    """Reject what no valid record holds, with the JSON path of the first offender:
    NaN / Infinity anywhere (schemas included), lone surrogates (`"\\ud800"`: text that
    cannot be written back as UTF-8) and nesting deeper than `max_depth`. Iterative, so
    a hostile depth cannot exhaust the stack. A first pass builds no paths (every bundle
    load checks every card); only a value it doubts is walked again to name the path."""
    if not _plainly_valid(value, max_depth):
        _locate_invalid(value, where, max_depth)


def check_json_schema(schema: Mapping[str, Any]) -> None:
    """`schema` is a valid JSON Schema: of the draft its `$schema` names, else Draft
    2020-12 or Draft 7 (many MCP servers emit Draft 7, e.g. `items` as a list). jsonschema
    is imported here, not at module level: a bundle's cards skip this check, and the
    import is ~0.3 s of a one-shot call."""
    from jsonschema import Draft7Validator, Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    if "$schema" in schema:
        drafts = [validator_for(schema)]
    elif _draft7_meta().is_valid(schema):
        # either draft's pass accepts; Draft 7's meta-schema is read ~5x faster (no
        # $dynamicRef), so it goes first, and a failure is reported as 2020-12 sees it
        return
    else:
        drafts = [Draft202012Validator, Draft7Validator]
    first: SchemaError | None = None
    for draft in drafts:
        try:
            draft.check_schema(dict(schema))
            return
        except SchemaError as err:
            first = first or err
    assert first is not None
    where = "/".join(str(p) for p in first.path) or "<root>"
    raise FieldError("input_schema", f"invalid JSON Schema at {where}: {first.message}")


@cache
def _draft7_meta() -> Any:
    from jsonschema import Draft7Validator

    # as `check_schema` builds it: with the format checker, which refuses e.g. a `pattern`
    # that is no regular expression
    return Draft7Validator(Draft7Validator.META_SCHEMA,
                           format_checker=Draft7Validator.FORMAT_CHECKER)


def _plainly_valid(value: Any, max_depth: int) -> bool:
    """True when `value` is plain JSON within the checks; False when it is not, or is of a
    kind only the full walk judges. The encoder does the per-value work in C: it refuses
    NaN / Infinity (`allow_nan=False`), and UTF-8 refuses a lone surrogate; only the
    containers are walked here, for their depth."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except (TypeError, ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return False
    if text.count("{") + text.count("[") <= max_depth:  # cannot nest deeper than this
        return True
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return False
        children = item.values() if type(item) is dict else item
        stack.extend((v, depth + 1) for v in children if type(v) is dict or type(v) is list)
    return True


def _locate_invalid(value: Any, where: str, max_depth: int) -> None:
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > max_depth:
            raise FieldError(path, f"nested deeper than {max_depth} levels")
        if isinstance(item, float) and not math.isfinite(item):
            raise FieldError(path, f"{item!r} is not a finite number")
        if isinstance(item, str) and _SURROGATE_RE.search(item):
            raise FieldError(path, "holds a lone surrogate (not valid Unicode text)")
        if isinstance(item, Mapping):
            for k, v in item.items():
                if isinstance(k, str) and _SURROGATE_RE.search(k):
                    raise FieldError(path, "a key holds a lone surrogate")
                stack.append((v, f"{path}.{k}", depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))


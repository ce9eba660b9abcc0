"""Observations: what a tool returned, capped for the prompt, kept whole behind a handle.

`cap_observation` turns any tool result into a JSON-ready value that fits `max_bytes`
(compact UTF-8 JSON, keys sorted), stores the whole normalised payload in an
`ObservationStore` under a deterministic handle (`obs_` + the first 16 hex digits of the
payload's sha256) and reports sizes before and after. Token counts are approximated as
`ceil(bytes / 4)`, the usual rule of thumb for English and JSON with BPE tokenizers; it
is for budgeting and traces, not billing.

`follow_ups` is step 8 of the pipeline: an observation that asks for an action opens new
subgoals, so discovery runs again.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import hashlib
import json
import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from serving.model.selection import Subgoal
from serving.model.vocab import OPERATIONS

log = logging.getLogger(__name__)

HANDLE_PREFIX = "obs_"
HANDLE_HEX_DIGITS = 16
MIN_MAX_BYTES = 64  # room for the fallback preview's marker
_STRING_FLOOR = 16  # shrink strings no further than this before dropping list items


class UnknownHandleError(KeyError):
    """No observation is stored under this handle (never stored, or evicted)."""

    def __init__(self, handle: str) -> None:
        super().__init__(handle)
        self.handle = handle

    def __str__(self) -> str:
        return f"unknown observation handle {self.handle!r} (never stored, or evicted)"


def approx_tokens(n_bytes: int) -> int:
    """Approximate prompt tokens for `n_bytes` of UTF-8 text: ceil(bytes / 4)."""
    return (n_bytes + 3) // 4


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: the text that is sized, hashed and shown."""
    return json.dumps(
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    )


def _n_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


class ObservationStore:
    """Full observation payloads by handle, in memory, for one agent session.

    Payloads are kept as canonical JSON text, so `fetch` returns a fresh copy and equal
    payloads share one handle. Thread-safe. At most `max_entries` are kept; the oldest
    is evicted first, and fetching it then raises `UnknownHandleError`.
    """

    def __init__(self, max_entries: int = 10_000) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries: must be at least 1, got {max_entries}")
        self._max_entries = max_entries
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, payload: Any) -> str:
        """Store `payload` (normalised to JSON) and return its handle."""
        return self._put_text(canonical_json(normalise(payload)))

    def _put_text(self, text: str) -> str:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        handle = HANDLE_PREFIX + digest[:HANDLE_HEX_DIGITS]
        with self._lock:
            self._texts[handle] = text
            self._texts.move_to_end(handle)
            while len(self._texts) > self._max_entries:
                self._texts.popitem(last=False)
        return handle

    def fetch(self, handle: str) -> Any:
        """The whole normalised payload stored under `handle`."""
        with self._lock:
            text = self._texts.get(handle)
        if text is None:
            raise UnknownHandleError(handle)
        return json.loads(text)

    def __contains__(self, handle: object) -> bool:
        with self._lock:
            return handle in self._texts

    def __len__(self) -> int:
        with self._lock:
            return len(self._texts)


def normalise(value: Any) -> Any:
    """A JSON-ready copy of `value`, as lossless as JSON allows.

    Mappings -> objects with string keys; lists, tuples -> arrays; sets -> arrays sorted
    by their JSON text; bytes -> text if UTF-8, else "base64:..."; dates -> ISO strings;
    enums -> their value; dataclasses -> objects of their fields; non-finite floats ->
    "NaN" / "Infinity" / "-Infinity"; a reference cycle -> "[cycle]"; a container deeper
    than `MAX_NORMALISE_DEPTH` -> "[nested deeper than N levels]" (a tool result of any
    depth is stored and capped, never a `RecursionError`); anything else -> its repr.
    """
    return _normalise(value, frozenset())


MAX_NORMALISE_DEPTH = 100  # levels kept in the stored payload; JSON tools stop near 1,000


def _normalise(value: Any, ancestors: frozenset[int]) -> Any:
    if value is None or type(value) in (bool, int):
        return value
    if isinstance(value, enum.Enum):
        return _normalise(value.value, ancestors)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        return _clean_str(str(value))
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return "base64:" + base64.b64encode(raw).decode("ascii")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if id(value) in ancestors:
        return "[cycle]"
    if len(ancestors) >= MAX_NORMALISE_DEPTH:  # ancestors = the containers above
        return f"[nested deeper than {MAX_NORMALISE_DEPTH} levels]"
    inner = ancestors | {id(value)}
    if isinstance(value, Mapping):
        out = {str(k): _normalise(v, inner) for k, v in value.items()}
        return dict(sorted(out.items()))
    if isinstance(value, list | tuple):
        return [_normalise(v, inner) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_normalise(v, inner) for v in value), key=canonical_json)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return _normalise(fields, ancestors)
    return _clean_str(repr(value))


def _clean_str(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates cannot be written as UTF-8
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


@dataclass(frozen=True, slots=True)
class CappedObservation:
    handle: str
    content: Any  # the JSON-ready capped value the model sees
    text: str  # canonical_json(content)
    truncated: bool
    original_bytes: int
    capped_bytes: int

    @property
    def original_tokens(self) -> int:
        return approx_tokens(self.original_bytes)

    @property
    def capped_tokens(self) -> int:
        return approx_tokens(self.capped_bytes)

    def to_dict(self) -> dict[str, Any]:
        """The reply for the model (and the trace): capped content plus where the rest is."""
        return {
            "handle": self.handle,
            "observation": self.content,
            "truncated": self.truncated,
            "original_bytes": self.original_bytes,
            "capped_bytes": self.capped_bytes,
            "original_tokens": self.original_tokens,
            "capped_tokens": self.capped_tokens,
        }


@dataclass(frozen=True, slots=True)
class _Limits:
    items: int
    chars: int
    depth: int


def cap_observation(
    payload: Any,
    *,
    max_bytes: int,
    max_items: int,
    store: ObservationStore,
    max_depth: int = 3,
) -> CappedObservation:
    """Normalise `payload`, store it whole, and return a view that fits `max_bytes`.

    The view: lists keep their first `max_items` items plus a marker string
    `"[+N more items]"`; strings longer than the current limit keep a prefix plus
    `"...[+N chars]"`; containers at `max_depth` (the root is depth 0) become
    `"[object with N keys]"` / `"[list of N items]"`; dict keys are sorted, never
    dropped. Starting from a string limit of `max_bytes` chars, while the view is too big
    the string limit is halved (down to 16), then the item limit (down to 1), then the
    depth (down to 1). If it still does not fit, the view is a prefix of its own JSON
    text ending in `"...[+N chars of JSON]"`. `capped_bytes <= max_bytes` always holds;
    `truncated` is true when anything was cut (a marker can make a small view larger
    than the original). Every step is deterministic: the same payload and limits give
    the same view.
    """
    if max_bytes < MIN_MAX_BYTES:
        raise ValueError(f"max_bytes: must be at least {MIN_MAX_BYTES}, got {max_bytes}")
    if max_items < 1:
        raise ValueError(f"max_items: must be at least 1, got {max_items}")
    if max_depth < 1:
        raise ValueError(f"max_depth: must be at least 1, got {max_depth}")

    full = normalise(payload)
    full_text = canonical_json(full)
    handle = store._put_text(full_text)
    original_bytes = _n_bytes(full_text)

    for limits in _schedule(max_bytes, max_items, max_depth):
        content, cut = _cap(full, limits, 0)
        text = canonical_json(content)
        if _n_bytes(text) <= max_bytes:
            return CappedObservation(handle, content, text, cut, original_bytes, _n_bytes(text))

    content = _preview(text, max_bytes)
    text = canonical_json(content)
    return CappedObservation(handle, content, text, True, original_bytes, _n_bytes(text))


def _schedule(max_bytes: int, max_items: int, max_depth: int) -> list[_Limits]:
    out = [_Limits(max_items, max_bytes, max_depth)]
    while out[-1].chars > _STRING_FLOOR:
        out.append(dataclasses.replace(out[-1], chars=max(_STRING_FLOOR, out[-1].chars // 2)))
    while out[-1].items > 1:
        out.append(dataclasses.replace(out[-1], items=out[-1].items // 2))
    while out[-1].depth > 1:
        out.append(dataclasses.replace(out[-1], depth=out[-1].depth - 1))
    return out


def _cap(value: Any, limits: _Limits, depth: int) -> tuple[Any, bool]:
    """The capped view of a normalised value, and whether anything was cut."""
    if isinstance(value, str):
        if len(value) <= limits.chars:
            return value, False
        return f"{value[: limits.chars]}...[+{len(value) - limits.chars} chars]", True
    if isinstance(value, dict):
        if value and depth >= limits.depth:
            return f"[object with {_count(len(value), 'key')}]", True
        out_d, cut = {}, False
        for key, item in value.items():
            out_d[key], item_cut = _cap(item, limits, depth + 1)
            cut = cut or item_cut
        return out_d, cut
    if isinstance(value, list):
        if value and depth >= limits.depth:
            return f"[list of {_count(len(value), 'item')}]", True
        out_l, cut = [], len(value) > limits.items
        for item in value[: limits.items]:
            capped, item_cut = _cap(item, limits, depth + 1)
            out_l.append(capped)
            cut = cut or item_cut
        if len(value) > limits.items:
            out_l.append(f"[+{_count(len(value) - limits.items, 'more item')}]")
        return out_l, cut
    return value, False


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _preview(text: str, max_bytes: int) -> str:
    keep = len(text)
    while True:
        keep = min(keep, max_bytes) // 2 if keep > 0 else 0
        preview = f"{text[:keep]}...[+{len(text) - keep} chars of JSON]"
        if _n_bytes(canonical_json(preview)) <= max_bytes or keep == 0:
            return preview


# --- rediscovery ----------------------------------------------------------------------

_CUES = (
    r"(?:please|then|next|now|also|first|so)\s*,?\s+",
    r"(?:you|we)\s+(?:should|must|can|could|need\s+to|may\s+need\s+to|have\s+to)\s+",
    r"(?:try|remember|make\s+sure|be\s+sure)\s+to\s+",
)
_VERBS = sorted({v for op in OPERATIONS.values() for v in op.verbs}, key=len, reverse=True)
_VERB_PATTERN = "|".join(r"\s+".join(map(re.escape, v.split())) for v in _VERBS)
_ACTION_RE = re.compile(
    r"^(?:" + "|".join(_CUES) + r")*(?P<clause>(?:" + _VERB_PATTERN + r")\b.*)$",
    re.IGNORECASE | re.DOTALL,
)
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?;])\s+|\n+")


def actionable_clauses(observation_text: str) -> list[str]:
    """The clauses of an observation that ask for an action, in order, without repeats.

    The rule: split the text into sentences (at `. ! ? ;` followed by space, and at line
    breaks); keep only what follows a sentence's last `": "` (so `"Action required:
    restart web-1"` gives `"restart web-1"`); a clause is actionable when it *begins*
    with an operation verb from `serving.model.vocab.OPERATIONS`, optionally after a cue such
    as "please", "then", "you should", "make sure to". Beginning, not containing: tool
    output is full of statuses ("3 open issues", "was deleted") that are not requests.
    """
    out: dict[str, str] = {}
    for sentence in _SENTENCE_SPLIT_RE.split(observation_text):
        clause = sentence.rpartition(": ")[2].strip().rstrip(".!?;").strip()
        match = _ACTION_RE.match(clause)
        if match:
            text = " ".join(match.group("clause").split())
            out.setdefault(text.lower(), text)
    return list(out.values())


def follow_ups(
    observation_text: str,
    decompose: Callable[[str], Sequence[Subgoal]],
    *,
    allow_mutation: bool = False,
    max_subgoals: int = 3,
) -> list[Subgoal]:
    """New subgoals an observation opens: `decompose` run on its actionable clauses.

    See `actionable_clauses` for the rule. Observations are untrusted text (a web page,
    an email body), so by default only read subgoals are opened: an observation saying
    "delete the repository" must not start a write the user never asked for.
    `allow_mutation=True` opens write subgoals too; they still face the filters, the
    gate, validation and the risk policy. At most `max_subgoals`, first found first.
    """
    out: list[Subgoal] = []
    seen: set[str] = set()
    for clause in actionable_clauses(observation_text):
        for subgoal in decompose(clause):
            key = subgoal.text.strip().lower()
            if key in seen:
                continue
            if subgoal.mutation and not allow_mutation:
                log.info("follow-up not opened (write from an observation): %r", subgoal.text)
                continue
            seen.add(key)
            out.append(subgoal)
            if len(out) >= max_subgoals:
                return out
    return out

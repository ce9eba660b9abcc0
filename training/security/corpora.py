"""The security corpora as data: JSONL files under `data/security/`, listed in its MANIFEST.

Two row shapes (data/README.md, `data/security/`): attack rows
`{"class": ..., "place": ..., "text": ...}` and text rows `{"text": ...}` (benign sentences,
and the attack templates of `training.security.attacks`). A file holds one shape. The modules
that used to hold these texts as literals (`training.security.poison_corpus`, the blind sets
...) load them here under their old names, in file order.

Every corpus is read strictly: a bad line raises `CorpusError` naming `file:line: field:
problem`, never skips, since a frozen set that silently lost a line would judge less than
it says.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

SECURITY_DIR = Path(__file__).resolve().parents[2] / "data" / "security"
MANIFEST_FILE = "MANIFEST.yaml"
ATTACK_FIELDS = ("class", "place", "text")
TEXT_FIELDS = ("text",)
KINDS = ("attacks", "texts")
ROLES = ("fit", "validation", "blind-judging", "spent", "study")


class CorpusError(ValueError):
    """A corpus file or the MANIFEST that cannot be read as written; says where."""


@dataclass(frozen=True, slots=True)
class CorpusEntry:
    """One file's line in `MANIFEST.yaml`: what it is and where it came from."""

    path: str  # relative to data/security/
    module: str  # the module and name that load it
    kind: str  # one of KINDS
    role: str  # one of ROLES
    records: int
    what: str
    written: str  # who wrote it and how
    written_on: str | None
    frozen_at: str | None  # the commit that froze the detector judging it
    sha256: str


def _rows(path: Path, wanted: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise CorpusError(f"{path}: cannot read: {e.strerror or e}") from e
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line_no = raw[: e.start].count(b"\n") + 1
        raise CorpusError(f"{path}:{line_no}: utf-8: {e.reason}") from e
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last record
    out = []
    for line_no, line in enumerate(lines, 1):
        where = f"{path}:{line_no}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise CorpusError(f"{where}: json: {e.msg} (column {e.colno})") from e
        if not isinstance(record, dict):
            raise CorpusError(f"{where}: record: not a JSON object")
        for key in record:
            if key not in wanted:
                raise CorpusError(f"{where}: {key}: unexpected field (expected {list(wanted)})")
        row = []
        for key in wanted:
            if key not in record:
                raise CorpusError(f"{where}: {key}: missing")
            value = record[key]
            if not isinstance(value, str):
                raise CorpusError(f"{where}: {key}: not a string")
            if not value:
                raise CorpusError(f"{where}: {key}: empty")
            row.append(value)
        out.append(tuple(row))
    return tuple(out)


def load_attacks(name: str, *, root: Path = SECURITY_DIR) -> tuple[tuple[str, str, str], ...]:
    """The (class, place, text) rows of `root/name`, in file order."""
    return tuple((c, p, t) for c, p, t in _rows(root / name, ATTACK_FIELDS))


def load_texts(name: str, *, root: Path = SECURITY_DIR) -> tuple[str, ...]:
    """The texts of `root/name` (benign sentences or attack templates), in file order."""
    return tuple(t for (t,) in _rows(root / name, TEXT_FIELDS))


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes, as the MANIFEST pins it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _entry(path: str, raw: Any, where: str) -> CorpusEntry:
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: not a mapping")
    names = [f.name for f in fields(CorpusEntry) if f.name != "path"]
    for key in raw:
        if key not in names:
            raise CorpusError(f"{where}.{key}: unexpected field")
    values: dict[str, Any] = {}
    for key in names:
        if key not in raw:
            raise CorpusError(f"{where}.{key}: missing")
        value = raw[key]
        optional = key in ("written_on", "frozen_at")
        expected = int if key == "records" else str
        if isinstance(value, bool) or not (
            isinstance(value, expected) or (optional and value is None)
        ):
            # an unquoted date or all-digit commit reads as a date or a number
            raise CorpusError(f"{where}.{key}: not a {expected.__name__} (quote it)")
        values[key] = value
    entry = CorpusEntry(path=path, **values)
    if entry.kind not in KINDS:
        raise CorpusError(f"{where}.kind: {entry.kind!r} is not one of {KINDS}")
    if entry.role not in ROLES:
        raise CorpusError(f"{where}.role: {entry.role!r} is not one of {ROLES}")
    return entry


@cache
def manifest(root: Path = SECURITY_DIR) -> Mapping[str, CorpusEntry]:
    """The entries of `root/MANIFEST.yaml` by file path (relative to `root`), read once."""
    path = root / MANIFEST_FILE
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise CorpusError(f"{path}: cannot read: {e}") from e
    if not isinstance(raw, dict) or not isinstance(raw.get("files"), dict):
        raise CorpusError(f"{path}: files: missing, or not a mapping")
    entries = {name: _entry(name, v, f"{path}: files.{name}") for name, v in raw["files"].items()}
    return MappingProxyType(entries)


def manifest_entry(name: str, *, root: Path = SECURITY_DIR) -> CorpusEntry:
    """The MANIFEST's entry for one file; a file it does not list is an error."""
    entries = manifest(root)
    if name not in entries:
        raise CorpusError(f"{root / MANIFEST_FILE}: files.{name}: missing")
    return entries[name]

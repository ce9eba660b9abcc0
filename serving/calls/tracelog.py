"""The runtime's trace file: one JSON line per request, appended safely.

Safety comes from the order of operations, not from luck:
1. the record is serialised (and UTF-8 encoded) completely first, so a value that cannot
   be written raises `TraceRecordError` before a single byte reaches the file;
2. the whole line, newline included, goes out in one `os.write` on a descriptor opened
   with `O_APPEND`, under a `threading.Lock` (threads) and an exclusive `fcntl.flock`
   (other processes writing the same file), so lines never interleave;
3. before writing, the writer checks that the file ends in a newline; if an earlier
   writer died mid-line (kill -9 during a large write, power loss without fsync) the torn
   tail is terminated first, so it stays one bad line and every later record is whole;
4. `fsync=True` also flushes each line to disk before `append` returns.
`read_trace_records` reads the file back and names `file:line` for any line that is not
a whole JSON object (a torn line included).
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from serving.model.io import InputError, LineError

try:  # flock is POSIX-only; elsewhere threads are still serialised by the lock
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]


class TraceRecordError(ValueError):
    """A record cannot be written as one JSON line; nothing was written."""


class TraceFileError(InputError):
    """A trace file line is torn or is not a JSON object; the message names file:line."""


def serialise_record(record: Mapping[str, Any]) -> bytes:
    """One trace record as a whole line: compact UTF-8 JSON plus `\\n`.

    Raises `TraceRecordError` for a record that is not a mapping or holds a value JSON
    cannot represent (an object, NaN, a lone surrogate).
    """
    if not isinstance(record, Mapping):
        raise TraceRecordError(f"a trace record must be a mapping, got {type(record).__name__}")
    try:
        text = json.dumps(dict(record), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8") + b"\n"
    except (TypeError, ValueError) as err:
        raise TraceRecordError(f"trace record cannot be written as JSON: {err}") from err


def process_trace_path(path: str | Path) -> Path:
    """Where this process appends: `path` itself, or for a directory its own file there,
    `<host>-<pid>.jsonl`, so gateways sharing a directory never write one file (readers
    such as `load_traces` take the directory whole)."""
    path = Path(path)
    if path.is_dir():
        return path / f"{socket.gethostname()}-{os.getpid()}.jsonl"
    return path


class TraceWriter:
    """Appends trace records to a JSONL file; safe to share between threads and processes.

    Holds no open file: each `append` opens the path, writes one line and closes it, so
    there is nothing to close, and a rotated file (logrotate) is picked up at once.
    `lock_file=False` skips the inter-process `flock` (e.g. on a filesystem without it).
    """

    def __init__(self, path: str | Path, *, fsync: bool = False, lock_file: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.lock_file = lock_file and fcntl is not None
        self._lock = threading.Lock()

    def append(self, record: Mapping[str, Any]) -> None:
        """Append `record` as one line, or raise before writing anything."""
        line = serialise_record(record)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # O_RDWR (not O_WRONLY) so the tail check can read the last byte back
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if self.lock_file:
                    fcntl.flock(fd, fcntl.LOCK_EX)  # released by close
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line  # an earlier writer died mid-line: end that line
                _write_all(fd, line)
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    # One write() suffices for a regular file; the loop only guards a short write (a full
    # disk, a signal), which continues the same line while the locks are still held.
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_trace_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield each record of a trace file; blank lines are skipped.

    Raises `TraceFileError` naming `file:line` for a line that is not a JSON object,
    including a last line without its newline (a write that never finished).
    """
    path = Path(path)
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise TraceFileError([LineError(str(path), 0, "<file>", "not found")]) from None
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            if not raw.endswith(b"\n"):
                raise _bad(path, lineno, "torn line (no newline at end of file)")
            try:
                record = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise _bad(path, lineno, f"torn or invalid JSON line: {err}") from None
            if not isinstance(record, dict):
                raise _bad(path, lineno, f"expected a JSON object, got {type(record).__name__}")
            yield record


def _bad(path: Path, lineno: int, problem: str) -> TraceFileError:
    return TraceFileError([LineError(str(path), lineno, "<line>", problem)])

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from serving.calls.tracelog import (
    TraceFileError,
    TraceRecordError,
    TraceWriter,
    read_trace_records,
    serialise_record,
)
from serving.model.io import InputError

REPO_ROOT = Path(__file__).resolve().parents[1]

# a child that appends records as fast as it can until it is killed
WRITER_SCRIPT = """
import sys
from serving.calls.tracelog import TraceWriter
writer = TraceWriter(sys.argv[1])
i = 0
while True:
    writer.append({"proc": sys.argv[2], "i": i, "pad": "x" * (i % 300)})
    i += 1
    if i == int(sys.argv[3]):
        break
"""


def spawn_writer(path: Path, name: str, n: int = -1) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER_SCRIPT, str(path), name, str(n)], env=env, cwd=REPO_ROOT
    )


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_records_round_trip_one_line_each(tmp_path):
    path = tmp_path / "traces" / "requests.jsonl"  # the folder is created on demand
    writer = TraceWriter(path, fsync=True)
    records: list[dict[str, object]] = [
        {"request_id": "r1", "request": "line one\nline two", "menu": ["a.b", "c.d"]},
        {"request_id": "r2", "request": "café \u2028 separators \u2029", "latency_ms": 1.5},
    ]
    for record in records:
        writer.append(record)
    assert list(read_trace_records(path)) == records
    assert len(lines_of(path)) == 2 and all(line.endswith(b"\n") for line in lines_of(path))


def test_16_threads_x_200_records_lose_nothing_and_every_line_parses(tmp_path):
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path)
    n_threads, n_each = 16, 200
    start = threading.Barrier(n_threads)

    def work(t: int) -> None:
        start.wait()
        for i in range(n_each):
            # lines of 100 B to 10 kB, so a torn or interleaved write would show
            writer.append({"thread": t, "i": i, "pad": "x" * (100 * (i % 100))})

    t0 = time.perf_counter()
    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    elapsed = time.perf_counter() - t0

    records = list(read_trace_records(path))
    assert len(lines_of(path)) == n_threads * n_each
    assert sorted((r["thread"], r["i"]) for r in records) == [
        (t, i) for t in range(n_threads) for i in range(n_each)
    ]
    assert all(r["pad"] == "x" * (100 * (r["i"] % 100)) for r in records)
    assert elapsed < 60


def test_several_processes_append_to_one_file_without_interleaving(tmp_path):
    path = tmp_path / "t.jsonl"
    procs = [spawn_writer(path, f"p{k}", n=300) for k in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    records = list(read_trace_records(path))
    assert sorted((r["proc"], r["i"]) for r in records) == [
        (f"p{k}", i) for k in range(4) for i in range(300)
    ]


def test_a_writer_killed_mid_stream_tears_at_most_the_line_it_was_writing(tmp_path):
    # SIGKILL can land inside a large write(): the kernel stops it short, so the line being
    # written may be torn. Nothing before it is, and the next append ends the torn tail.
    path = tmp_path / "t.jsonl"
    proc = spawn_writer(path, "doomed")
    deadline = time.monotonic() + 30
    while (not path.exists() or path.stat().st_size < 200_000) and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)

    TraceWriter(path).append({"proc": "next", "i": 0})
    *body, last = lines_of(path)
    assert all(line.endswith(b"\n") for line in body) and json.loads(last) == {"proc": "next",
                                                                               "i": 0}
    records = []
    for n, line in enumerate(body):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            assert n == len(body) - 1, f"line {n + 1} of {len(body)} is torn"
    assert len(records) > 100
    assert [r["i"] for r in records] == list(range(len(records)))


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ({"ok": 1, "obj": object()}, "Object of type object is not JSON serializable"),
        ({"score": float("nan")}, "Out of range float values are not JSON compliant"),
        ({"text": "lone \ud800 surrogate"}, "surrogates not allowed"),
        (["not", "a", "mapping"], "a trace record must be a mapping, got list"),
    ],
)
def test_a_record_that_cannot_be_serialised_raises_before_writing(tmp_path, bad, problem):
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path)
    writer.append({"i": 0})
    before = path.read_bytes()
    with pytest.raises(TraceRecordError, match=problem):
        writer.append(bad)
    assert path.read_bytes() == before  # not a byte written
    writer.append({"i": 1})
    assert list(read_trace_records(path)) == [{"i": 0}, {"i": 1}]


def test_a_torn_tail_left_by_a_crash_is_terminated_before_the_next_record(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"i":0}\n{"i":1,"pad":"xx')  # a writer died mid-line
    TraceWriter(path).append({"i": 2})
    assert lines_of(path) == [b'{"i":0}\n', b'{"i":1,"pad":"xx\n', b'{"i":2}\n']
    with pytest.raises(TraceFileError) as info:
        list(read_trace_records(path))
    assert str(info.value).startswith(f"{path}:2: <line>: torn or invalid JSON line: ")


def test_the_reader_names_file_and_line_for_bad_lines(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"i":0}\n\n{"i":1}')  # blank lines are fine; no final newline is not
    reader = read_trace_records(path)
    assert next(reader) == {"i": 0}
    with pytest.raises(TraceFileError) as info:
        next(reader)
    assert str(info.value) == f"{path}:3: <line>: torn line (no newline at end of file)"
    assert isinstance(info.value, InputError)

    path.write_bytes(b'{"i":0}\n[1, 2]\n')
    with pytest.raises(TraceFileError, match=r"t.jsonl:2: <line>: expected a JSON object, got"):
        list(read_trace_records(path))

    with pytest.raises(TraceFileError, match=r"missing.jsonl:0: <file>: not found"):
        list(read_trace_records(tmp_path / "missing.jsonl"))


def test_serialise_record_is_one_compact_line():
    line = serialise_record({"b": 1, "a": "x\ny"})
    assert line == b'{"b":1,"a":"x\\ny"}\n'
    assert json.loads(line) == {"b": 1, "a": "x\ny"}

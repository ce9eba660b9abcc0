"""Discovery bounded by the cores: at most `workers` at once, a bounded queue with a
deadline, `busy` at once past either, and every admitted call run to its end."""

import threading
import time

import anyio
import pytest

from serving.gateway.admission import Admission, Busy


def test_admission_bounds_work_queues_the_rest_and_refuses_past_the_bounds():
    gate = threading.Event()
    running = []

    def work(i):
        running.append(i)
        gate.wait(5)
        return i

    admission = Admission(workers=1, queue=1, deadline_s=0.3)
    results, refused = {}, []

    async def call(i):
        try:
            results[i] = await admission.run(work, i)
        except Busy as err:
            refused.append((i, err.why, err.retry_after_s))

    async def main():
        async with anyio.create_task_group() as tg:
            tg.start_soon(call, 0)  # runs
            await anyio.sleep(0.05)
            tg.start_soon(call, 1)  # waits
            await anyio.sleep(0.05)
            tg.start_soon(call, 2)  # queue full: refused at once
            await anyio.sleep(0.5)  # 1 waited past the deadline: refused
            gate.set()

    t0 = time.perf_counter()
    anyio.run(main)
    assert results == {0: 0} and running == [0]
    assert refused == [(2, "the gateway is at capacity", 0.3),
                       (1, "no worker was free in time", 0.3)]
    assert admission.stats.admitted == 1 and admission.stats.refused_full == 1
    assert admission.stats.refused_late == 1 and admission.waiting == 0
    assert time.perf_counter() - t0 < 5


def test_admitted_calls_all_finish_and_never_exceed_the_workers():
    active, peak = [0], [0]
    lock = threading.Lock()

    def work(i):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.02)
        with lock:
            active[0] -= 1
        return i

    admission = Admission(workers=2, queue=16, deadline_s=5.0)
    done = []

    async def main():
        async with anyio.create_task_group() as tg:
            for i in range(12):
                tg.start_soon(lambda i=i: _append(done, admission.run(work, i)))

    async def _append(out, coro):
        out.append(await coro)

    anyio.run(main)
    assert sorted(done) == list(range(12)) and peak[0] == 2


def test_admission_refuses_impossible_bounds():
    with pytest.raises(ValueError, match="workers >= 1"):
        Admission(workers=0, queue=1, deadline_s=1.0)


def test_the_gateway_sizes_onnx_threads_to_its_workers_unless_told(monkeypatch):
    from serving.gateway.config import parse_config
    from serving.gateway.server import runtime_for_workers

    monkeypatch.setattr("os.cpu_count", lambda: 8)
    servers = {"mcpServers": {"a": {"command": "x"}}}
    config = parse_config({**servers, "gateway": {"discovery_workers": 2,
                                                  "discovery_deadline_s": 0.5}})
    assert config.params.discovery_workers == 2 and config.params.discovery_queue == 32
    assert runtime_for_workers(config) == {"onnx_threads": 4}  # 2 workers x 4 threads = 8
    told = parse_config({**servers, "runtime": {"onnx_threads": 1}})
    assert runtime_for_workers(told) == {"onnx_threads": 1}
    assert runtime_for_workers(parse_config(servers)) == {"onnx_threads": 1}  # 8 workers


def test_a_selector_runs_its_products_on_one_blas_thread(fixture_bundle):
    """Dense search is one matrix-vector product: BLAS threads only wait on a busy CPU."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from serving.selector import Selector

    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    assert blas, "numpy links a BLAS"
    with threadpool_limits(limits=2, user_api="blas"):
        Selector.from_bundle(fixture_bundle, overrides={"blas_threads": 0})  # left as is
        assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {2}
        Selector.from_bundle(fixture_bundle)
        assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {1}

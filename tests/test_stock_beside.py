"""The stock encoder's worker pool survives a fork: a child that inherited the pool's
bookkeeping but none of its threads would wait forever on what it submits."""

from __future__ import annotations

import os
import sys

import pytest

import serving.selector as selector_module


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                    reason="fork-only behaviour")
def test_a_forked_child_gets_a_pool_of_its_own():
    assert selector_module._BESIDE.submit(lambda: 1).result(timeout=5) == 1  # a live thread
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if its submit runs
        try:
            ok = selector_module._BESIDE.submit(lambda: 2).result(timeout=5) == 2
        except BaseException:  # noqa: BLE001 - any failure is the child's exit code
            ok = False
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0

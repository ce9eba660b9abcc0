"""Two encoders embed each request at once where the bundle has both (the retriever and
the stock encoder of the no-tool head): each gets half the cores unless the runtime says."""

from __future__ import annotations

import os
from dataclasses import replace

from serving.assembly import encoder_threads
from serving.catalog.meaning_check import LINT_ENCODER_DIR
from serving.model.config import RuntimeParams


def test_two_encoders_share_the_cores_one_takes_them_all(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    params = RuntimeParams()
    assert params.onnx_threads == 0
    assert encoder_threads(tmp_path, params) == 8  # a stock bundle: one encoder
    (tmp_path / LINT_ENCODER_DIR).mkdir(parents=True)
    assert encoder_threads(tmp_path, params) == 4
    assert encoder_threads(tmp_path, replace(params, onnx_threads=3)) == 3
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert encoder_threads(tmp_path, params) == 1

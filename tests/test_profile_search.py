"""`make profile`'s summary of py-spy's collapsed stacks, on stacks written by hand."""

from training.checks.profile_search import parse_stacks, stage_of, summarize

STACKS = """\
<module> (x.py:1);discover (serving/selector.py:266);run (onnxruntime/capi/session.py:383) 6
<module> (x.py:1);discover (serving/selector.py:266);rerank (serving/stages/rerank.py:188) 3
worker (concurrent/futures/thread.py:83);encode (tokenizers/__init__.py:9) 1
not a stack line
"""


def test_collapsed_stacks_are_read_per_line():
    stacks = parse_stacks(STACKS)
    assert sum(stacks.values()) == 10 and len(stacks) == 3


def test_the_leaf_most_frame_names_the_stage():
    assert stage_of(("a (serving/stages/rerank.py:1)", "b (onnxruntime/x.py:2)")) == (
        "encoders (onnxruntime)")
    assert stage_of(("a (x.py:1)",)).startswith("other Python")


def test_shares_add_up_over_every_thread():
    text = summarize(parse_stacks(STACKS))
    assert "| encoders (onnxruntime) | 60.0% |" in text  # 6 of 10
    assert "| rerank | 30.0% |" in text
    assert "| encoders (tokenizers) | 10.0% |" in text  # the worker thread counts too
    assert "| `run (onnxruntime/capi/session.py)` | 60.0% |" in text  # lines folded

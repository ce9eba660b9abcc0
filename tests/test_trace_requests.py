"""The stock heads' fit side of a catalog: the train split of its traces, split as `mine`
splits them, worked out by hand on a few requests."""

from features.mining import split_of
from serving.model.schema import Trace
from training.no_tool.trace_requests import train_requests

SEED, SHARE = 13, 0.5


def ids(split: str, n: int) -> list[str]:
    out = [f"r{i}" for i in range(100) if split_of(f"r{i}", seed=SEED, valid_share=SHARE) == split]
    return out[:n]


def test_the_train_split_becomes_requests_with_the_tools_that_succeeded():
    (a, b, c), (v,) = ids("train", 3), ids("valid", 1)
    traces = [
        Trace("find the invoice", "billing.find", True, a, "find the invoice and mail it",
              context={"connections": ["billing"]}),
        Trace("mail it", "mail.send", True, a, "find the invoice and mail it"),
        Trace("mail it", "mail.draft", False, a, "find the invoice and mail it"),
        Trace("restart the pod", "k8s.restart", False, b, "restart the pod"),  # never served
        Trace("list repos", "gh.list", True, v, "list repos"),  # valid split
        Trace("list repos", "gh.list", True, c, "list repos"),  # leaks into valid: dropped
        Trace("no id", "gh.list", True, "", "no id"),
    ]
    got = train_requests(traces, seed=SEED, valid_share=SHARE, limit=0)
    assert [(q.query_id, q.query, q.gold, dict(q.context)) for q in got.queries] == [
        (f"trace:{a}", "find the invoice and mail it", ("billing.find", "mail.send"),
         {"connections": ["billing"]})]
    assert (got.n_train, got.n_without_id) == (1, 1)


def test_the_sample_is_stable_and_keeps_one_request_per_text():
    train = ids("train", 4)
    traces = [Trace(f"task {i % 3}", "t.x", True, rid, f"task {i % 3}")
              for i, rid in enumerate(train)]
    everything = train_requests(traces, seed=SEED, valid_share=SHARE, limit=0)
    assert sorted(q.query for q in everything.queries) == ["task 0", "task 1", "task 2"]
    two = train_requests(list(reversed(traces)), seed=SEED, valid_share=SHARE, limit=2)
    assert [q.query for q in two.queries] == [q.query for q in everything.queries][:2]

"""The runtime's bounds on one request: its length, its subgoals, and the pairs the
reranker scores, each with the warning that says what was cut."""

from __future__ import annotations

from collections.abc import Sequence

from serving.model.selection import Subgoal


def bounded_request(request: str, max_chars: int) -> tuple[str, list[str]]:
    """The part of `request` the runtime reads, and a warning when it cut the rest: one
    oversized request must cost milliseconds, not a worker."""
    if len(request) <= max_chars:
        return request, []
    return request[:max_chars], [
        f"request cut to its first {max_chars} of {len(request)} characters (max_request_chars)"
    ]


def bounded_subgoals(
    subgoals: Sequence[Subgoal], max_subgoals: int
) -> tuple[list[Subgoal], list[str]]:
    """The first `max_subgoals` subgoals, and a warning when there were more."""
    if len(subgoals) <= max_subgoals:
        return list(subgoals), []
    return list(subgoals[:max_subgoals]), [
        f"{len(subgoals) - max_subgoals} of {len(subgoals)} subgoals dropped (max_subgoals)"
    ]


def rerank_depth(n_steps: int, depth: int, max_pairs: int) -> tuple[int, list[str]]:
    """Candidates the reranker scores per step so that a request's steps together score
    at most `max_pairs` pairs (at least one each), and a warning when that is below `depth`."""
    if n_steps * depth <= max_pairs:
        return depth, []
    cut = max(1, max_pairs // max(1, n_steps))
    return cut, [
        f"rerank depth cut from {depth} to {cut} for {n_steps} steps (max_rerank_pairs)"
    ]

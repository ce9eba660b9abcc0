"""The one interface every decomposer implements (`serving.decompose` picks one)."""

from __future__ import annotations

from typing import Protocol

from serving.model.selection import Subgoal


class Decomposer(Protocol):
    def decompose(self, request: str) -> list[Subgoal]:
        """Split a request into subgoals: at least one for any non-empty request."""
        ...

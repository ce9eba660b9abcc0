"""Two-hop retrieval: pick the subgoal's domains first, then its tools inside them.

A flat top-k over thousands of tools can fill the candidate list with one family of
look-alikes; routing first asks which domains (`ToolCard.domain`) the subgoal belongs to
and retrieves only inside the best `route_domains` of them. A domain is represented by
the normalised mean of its tools' embeddings (its centroid) and scored by cosine with
the subgoal's vector. The router only narrows the session mask: permissions and every
other filter apply as before, and a tool the request names exactly is still forced in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DomainRouter:
    domains: tuple[str, ...]
    centroids: np.ndarray  # [n_domains, dim], L2-normalised
    row_domain: np.ndarray  # [n_tools] index into `domains`

    @classmethod
    def build(cls, tool_domains: Sequence[str], embeddings: np.ndarray) -> DomainRouter:
        domains = tuple(sorted(set(tool_domains)))
        index = {d: i for i, d in enumerate(domains)}
        row_domain = np.array([index[d] for d in tool_domains], dtype=np.int64)
        sums = np.zeros((len(domains), embeddings.shape[1]), dtype=np.float64)
        np.add.at(sums, row_domain, embeddings.astype(np.float64))
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = (sums / np.where(norms > 0, norms, 1.0)).astype(np.float32)
        return cls(domains, centroids, row_domain)

    def top_domains(self, vector: np.ndarray, k: int) -> list[int]:
        """The `k` domains whose centroids are closest to `vector` (ties by name)."""
        scores = self.centroids @ vector
        order = sorted(range(len(self.domains)), key=lambda i: (-float(scores[i]), i))
        return order[: max(1, k)]

    def mask(self, vector: np.ndarray, k: int) -> np.ndarray:
        """Rows of the tools in the top `k` domains."""
        return np.isin(self.row_domain, self.top_domains(vector, k))

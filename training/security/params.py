"""The `security` section of params.yaml: what the study poisons, how the lint is
configured, and the gates the stage fails on.
"""

from __future__ import annotations

from dataclasses import dataclass

from serving.catalog.findings import LintConfig


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `security` section of params.yaml."""

    seed: int
    n_originals: int  # first-party tools (gold in the queries) that get poisoned variants
    n_per_kind: int  # poisoned variants per attack kind
    pinned_originals: list[str]  # always among the originals when in the catalog
    max_requests: int  # labeled queries measured (0 = every one whose gold was poisoned)
    shadow_max_distance: int
    blob_min_chars: int
    max_false_positive_rate: float  # gate: clean tools with an error security finding
    min_flagged_rate: float  # gate: poisoned tools flagged by lint or the ledger
    max_menu_rate_after: float  # gate: poisoned tools reaching a menu after the defenses

    def lint_config(self) -> LintConfig:
        return LintConfig(
            shadow_max_distance=self.shadow_max_distance, blob_min_chars=self.blob_min_chars
        )


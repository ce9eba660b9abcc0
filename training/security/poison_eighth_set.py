"""The eighth poisoned set for the tool-poisoning lint.

Written on 2026-12-03 by a helper who opened no file of the project (written blind, from memory
of the public tool-poisoning and MCP-security literature; the texts are spread over
descriptions, summaries, parameter descriptions, titles, defaults and enum values, and eight of
them are in languages other than English).

The texts are data now: `data/security/blind/eighth_set.jsonl`, one record a line, listed with
their provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, manifest_entry

_FILE = "blind/eighth_set.jsonl"
WRITTEN_ON = manifest_entry(_FILE).written_on
# never scored: a linter printed three of its texts before any detector froze
# against it, so it went straight into the fit (training.train_lint.SPENT_SETS)
FROZEN_AT = manifest_entry(_FILE).frozen_at
EIGHTH_TEXTS = load_attacks(_FILE)

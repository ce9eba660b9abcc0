"""The ninth poisoned set for the tool-poisoning lint.

Written on 2026-12-03 by a helper who opened no file of the project (it was written blind, from
memory of the public tool-poisoning and MCP-security literature, with the texts spread over long
descriptions, summaries, parameter descriptions, titles, defaults and enum values, and a few of
them written in languages other than English).

The texts are data now: `data/security/blind/ninth_set.jsonl`, one record a line, listed with
their provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, manifest_entry

_FILE = "blind/ninth_set.jsonl"
WRITTEN_ON = manifest_entry(_FILE).written_on
# the detector and rules that score it, committed before it was read
FROZEN_AT = manifest_entry(_FILE).frozen_at
NINTH_TEXTS = load_attacks(_FILE)

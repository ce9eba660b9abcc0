"""The third poisoned set: fresh attack texts, written by attack class.

Written on 2026-12-02, after the lint's exact rules and its detector by meaning were
frozen (at commit 2647650), and blind to the texts either was trained or validated on:
the author did not open the training corpus, the validation set, the style list or the
attack code while writing these. Each text is new, written for this project from the
public tool-poisoning literature (instructions hidden in MCP tool descriptions, prompt
injection through tool metadata, rug pulls, tool shadowing), not copied from it.

The set is scored once, by `make studies` (training.security_eval, which writes the
per-class result to metrics/security.json under `lint_by_class`). It must never be used
to tune anything: not rules, not thresholds, not the detector's training data. Fresh
styles that this set reveals go in a new set, written the same way, after a new freeze.

Each entry is (class, place, text). The class is the kind of attack; the place is where
in a tool's metadata the text is hidden (description, summary, parameter description,
title, default value or enum value). The text is only the attack: the harness prepends
the tool's clean summary where that applies.

Placeholders, filled by the harness with `str.format`:
    {other}       the name of another server installed next to this one.
    {other_tool}  the id of another server's tool.
No other braces appear in the texts.

The texts are data now: `data/security/blind/third_set.jsonl`, one record a line, listed with
their provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, manifest_entry

_FILE = "blind/third_set.jsonl"
WRITTEN_ON = manifest_entry(_FILE).written_on
# the detector and rules that score it, committed before it was read
FROZEN_AT = manifest_entry(_FILE).frozen_at

CLASSES = (
    "addressed_to_model",
    "authority",
    "secrecy",
    "session_behaviour",
    "data_movement",
    "credentials",
    "shadowing",
)

PLACES = ("description", "summary", "parameter", "title", "default", "enum")

THIRD_TEXTS = load_attacks(_FILE)

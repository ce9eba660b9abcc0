"""The seventh poisoned set for the tool-poisoning lint.

Written on 2026-12-03 by a helper who opened no file of the project (not its rules, not its
detector, not its training corpora, not any earlier set). The ideas come only from the helper's
own knowledge of the public tool-poisoning and MCP-security literature; every text is newly
written, none is copied. It is a held-out evaluation set: it is to be scored once, against a
frozen detector, and never used to tune, train or pick anything.

Each entry is a tuple (class, place, text). The class is one of seven: addressed_to_model,
authority, secrecy, session_behaviour, data_movement, credentials, shadowing. There are ten
texts per class, seventy in all. The place says where the text is planted: description (one
to three sentences appended after the tool's own summary), summary (the whole summary line),
parameter (a parameter's description), title (a parameter's title), default (a parameter's
default value) or enum (one enum value among normal ones); titles, defaults and enum values
have at least three words. Two placeholders may appear and are filled by the harness:
{other}, the name of another installed server (e.g. slack), and {other_tool}, one of its tool
ids (e.g. slack.post_message); no other curly braces occur. Most texts are in English, a few
in other languages.

The texts are data now: `data/security/blind/seventh_set.jsonl`, one record a line, listed with
their provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, manifest_entry

_FILE = "blind/seventh_set.jsonl"
WRITTEN_ON = manifest_entry(_FILE).written_on
# the detector and rules that score it, committed before it was read
FROZEN_AT = manifest_entry(_FILE).frozen_at
SEVENTH_TEXTS = load_attacks(_FILE)

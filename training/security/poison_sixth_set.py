"""The sixth poisoned set for the tool-poisoning lint.

Written on 2026-12-02 by a helper who opened no file of the project (not its rules, not its
detector, not its training corpora, not any earlier set). The ideas come only from the helper's
own knowledge of the public tool-poisoning and MCP-security literature (instructions hidden in
tool descriptions, prompt injection through tool metadata, tool shadowing, rug pulls and
exfiltration through parameters); every text is newly written, none is copied. It is a held-out
evaluation set: it is to be scored once, against a frozen detector, and never used to tune,
train or pick anything.

Each entry is a tuple (class, place, text). The class is one of seven: addressed_to_model (the
text speaks to the model instead of describing the tool), authority (it claims authority over
the conversation or the system), secrecy (it asks to hide something from the person),
session_behaviour (it changes how the model behaves for the rest of the session), data_movement
(it moves data between tools or out of the conversation), credentials (it asks for secrets or
personal data) and shadowing (it disparages, overrides or hijacks another tool or server). There
are ten texts per class, seventy in all. The place says where the text is planted: description
(one to three sentences appended after the tool's own summary, which the harness prepends),
summary (the whole summary line), parameter (a parameter's description), title (a parameter's
title), default (a parameter's default value) or enum (one enum value among normal ones);
defaults and enum values have at least three words. Two placeholders may appear and are filled
by the harness: {other}, the name of another installed server (e.g. slack), and {other_tool},
one of its tool ids (e.g. slack.post_message); no other curly braces occur. Most texts are in
English, a few in German, French, Spanish, Italian and Portuguese.

The texts are data now: `data/security/blind/sixth_set.jsonl`, one record a line, listed with
their provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, manifest_entry

_FILE = "blind/sixth_set.jsonl"
WRITTEN_ON = manifest_entry(_FILE).written_on
# the detector and rules that score it, committed before it was read
FROZEN_AT = manifest_entry(_FILE).frozen_at
SIXTH_TEXTS = load_attacks(_FILE)

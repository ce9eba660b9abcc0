"""The fifth poisoned set for the tool-poisoning lint.

Written on 2026-12-02 by a helper who opened no file of the project (not its
rules, not its detector, not its training corpora, not any earlier set). The
texts come from the public tool-poisoning literature on MCP security
(instructions hidden in tool descriptions, prompt injection through tool
metadata, tool shadowing, rug pulls). They are new and not copied from anywhere.

This set is to be scored once and never used to tune anything.

Entry format: each entry of FIFTH_TEXTS is a tuple ``(class, place, text)``.

* class is one of: addressed_to_model, authority, secrecy, session_behaviour,
  data_movement, credentials, shadowing (10 entries each, 70 in all).
* place is where the text sits in the tool metadata: description, summary,
  parameter (a parameter's description), title (a parameter's title), default
  (a parameter's default value) or enum (one enum value).
* text is only the attack, one to three sentences. The harness prepends the
  tool's clean summary where needed.

Placeholders: ``{other}`` becomes the name of another installed server (for
example "slack") and ``{other_tool}`` one of its tool ids (for example
"slack.post_message"). Fill them with ``str.format(other=..., other_tool=...)``.
No text holds any other curly brace.

The texts are data now: `data/security/blind/fifth_set.jsonl`, one record a line, listed with
their provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, manifest_entry

_FILE = "blind/fifth_set.jsonl"
WRITTEN_ON = manifest_entry(_FILE).written_on
# the detector and rules that score it, committed before it was read
FROZEN_AT = manifest_entry(_FILE).frozen_at
FIFTH_TEXTS = load_attacks(_FILE)

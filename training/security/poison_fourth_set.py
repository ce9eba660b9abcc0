"""The fourth poisoned set for the tool-poisoning lint.

Written on 2026-12-02 by a helper who opened no file of the project (not its
rules, its detector, its training corpora or any earlier set). The texts were
composed from the public tool-poisoning literature on MCP security
(instructions hidden in tool descriptions, prompt injection through tool
metadata, tool shadowing, rug pulls); they are new and not copied from
anywhere. This set is to be scored once and never used to tune anything.

Entry format: each entry of ``FOURTH_TEXTS`` is ``(class, place, text)``.

- class: one of ``addressed_to_model``, ``authority``, ``secrecy``,
  ``session_behaviour``, ``data_movement``, ``credentials``, ``shadowing``
  (exactly 10 entries per class, 70 in all).
- place: where the text sits in the tool's metadata: ``description``,
  ``summary``, ``parameter`` (a parameter's description), ``title`` (a
  parameter's title), ``default`` (a parameter's default value) or ``enum``
  (one enum value).
- text: only the attack itself; the harness prepends the tool's clean summary
  where needed.

Placeholders: ``{other}`` is replaced by the name of another installed server
(e.g. "slack") and ``{other_tool}`` by one of its tool ids
(e.g. "slack.post_message"), via ``str.format``. No other curly braces appear.

The texts are data now: `data/security/blind/fourth_set.jsonl`, one record a line, listed with
their provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, manifest_entry

_FILE = "blind/fourth_set.jsonl"
WRITTEN_ON = manifest_entry(_FILE).written_on
# the detector and rules that score it, committed before it was read
FROZEN_AT = manifest_entry(_FILE).frozen_at
FOURTH_TEXTS = load_attacks(_FILE)

"""Held-out validation texts for the meaning detector's thresholds, by attack class.

The sentence-embedding classifier is fitted on a training corpus written elsewhere; these
texts are never used to fit it. They are only the set on which its per-class thresholds
are chosen, so they are written in styles chosen to be unlike the training corpus (and
unlike `training.security.attacks` and `training.security.poison_styles`): a threshold picked here
has to hold for phrasings the classifier has not seen.

Styles used: formal legalese and policy language; casual chat slang; non-native English
with small grammar slips; terse config comments (`key: value  # note`); YAML- and JSON-ish
fragments; XML-ish tags; changelog entries; FAQ question-and-answer form; footnotes;
indirect phrasing (what "a careful integration" would do); euphemism ("sign-in details"
for a password); title case; long run-on sentences; and, for defaults and enum values,
bare identifiers such as `override_previous_instructions`.

Each text is only the attack (one or two sentences), with no clean summary around it.
Placeholders, filled with `str.format`: `{other}` another server of the catalog,
`{other_tool}` one of its tools. There are no other braces in any text. Shadowing texts
also name products that are not in any catalog ("the Dropbox plugin").

`VALIDATION_TEXTS` holds (class, place, text); place says where in a tool the text sits:
the description, the summary, a parameter's description, a title, a default value or an
enum value. `VALIDATION_BENIGN` holds honest tool-description sentences that use the same
alarming vocabulary (deprecated, instead, send, forward, password, token, always, must,
note, secret, private, admin, system, priority), for the false-alarm side of the choice.

The texts are data now: `data/security/own/poison_validation.jsonl` and
`data/security/own/poison_validation_benign.jsonl`, one record a line, listed with their
provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
VALIDATION_TEXTS = load_attacks("own/poison_validation.jsonl")
VALIDATION_BENIGN = load_texts("own/poison_validation_benign.jsonl")

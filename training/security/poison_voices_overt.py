"""Overt-voice training texts for the tool-poisoning classifier.

Written on 2026-12-02 by a helper in voice "overt" (loud, formatted injections: pseudo-tags,
fake system/admin headers, HTML and code comments, key: value fragments, markdown, fake
errors, policy numbers, urgency, ALL CAPS, emoji, role-play, several languages).
Written without opening any project file.

Format: VOICE_TEXTS holds (class, place, text) triples, 30 per attack class;
VOICE_BENIGN holds one-sentence hard benign documentation lines in the same voice.
Placeholders: {other} = another installed server, {other_tool} = one of its tool ids.

The texts are data now: `data/security/voices/overt.jsonl` and
`data/security/voices/overt_benign.jsonl`, one record a line, listed with their provenance in
`data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
VOICE_TEXTS = load_attacks("voices/overt.jsonl")
VOICE_BENIGN = load_texts("voices/overt_benign.jsonl")

"""Multilingual training texts for the tool-poisoning classifier.

Written on 2026-12-03 by a helper in voice "multilingual" (attacks and hard benign lines in
German, French, Spanish, Italian, Portuguese and Dutch, some mixed with English), without
opening any project file.

Format: VOICE_TEXTS holds (class, place, text) triples, 30 per attack class;
VOICE_BENIGN holds one-sentence hard benign documentation lines in the same languages.
Placeholders: {other} = another installed server, {other_tool} = one of its tool ids.

The texts are data now: `data/security/voices/multilingual.jsonl` and
`data/security/voices/multilingual_benign.jsonl`, one record a line, listed with their
provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
VOICE_TEXTS = load_attacks("voices/multilingual.jsonl")
VOICE_BENIGN = load_texts("voices/multilingual_benign.jsonl")

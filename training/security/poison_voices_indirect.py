"""Hard attack and benign texts in voice "indirect".

Written on 2026-12-02 by a helper in voice "indirect" (persuasion and euphemism: the intent
is clear only from meaning, never from a keyword). Written without opening any project file.

Format:
    VOICE_TEXTS: (class, place, text) triples; class is one of the seven attack classes,
    place is one of description, summary, parameter, title, default, enum. The placeholders
    other and other_tool (in curly braces) stand for another server and one of its tool ids.
    VOICE_BENIGN: one-sentence hard benign sentences from honest third-party API docs.

The texts are data now: `data/security/voices/indirect.jsonl` and
`data/security/voices/indirect_benign.jsonl`, one record a line, listed with their provenance
in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
VOICE_TEXTS = load_attacks("voices/indirect.jsonl")
VOICE_BENIGN = load_texts("voices/indirect_benign.jsonl")

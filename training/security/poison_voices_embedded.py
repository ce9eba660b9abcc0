"""Voice "embedded": tool-poisoning texts that blend into ordinary documentation.

Written on 2026-12-02 by a helper in voice "embedded", without opening any project file;
all text is new and was written from general knowledge of the attack classes.

Format:
  VOICE_TEXTS: tuple of (class, place, text) triples. class is one of addressed_to_model,
    authority, secrecy, session_behaviour, data_movement, credentials, shadowing; place is one
    of description, summary, parameter, title, default, enum. Every sentence of a text carries
    its class. The only curly-brace tokens are the placeholders {other} and {other_tool}.
  VOICE_BENIGN: tuple of single hard-benign sentences in the same documentation voice.

The texts are data now: `data/security/voices/embedded.jsonl` and
`data/security/voices/embedded_benign.jsonl`, one record a line, listed with their provenance
in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
VOICE_TEXTS = load_attacks("voices/embedded.jsonl")
VOICE_BENIGN = load_texts("voices/embedded_benign.jsonl")

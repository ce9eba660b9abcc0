"""Training texts for the meaning detector of tool poisoning, written by attack class.

The meaning detector judges each sentence of a tool's text (description, summary,
parameter descriptions, titles, default values, enum values) by what it says, over
sentence embeddings. This module holds its TRAINING corpus only: every text was written
for this project, class by class, in many phrasings (imperative, second and third person,
passive, conditional, with rationales, polite and curt, lowercase, markdown, bracketed
tags), and none is taken from `training.security.attacks` or `training.security.poison_styles`.
The validation set, written separately in other styles, and the frozen third set kept for
the final measurement live elsewhere and must never be merged into this one.

`TRAIN_TEXTS` holds (class, place, text): the class is one of
`serving.catalog.meaning.ATTACK_CLASSES`, the place where the text is put in a tool (one
of `poison_styles.PLACES`), and the text is the attack alone, one or two sentences (the harness
prepends the clean summary where it needs one). Placeholders: `{other}` the name of
another server of the catalog (e.g. "slack"), `{other_tool}` one of its tool ids (e.g.
"slack.post_message"); no other braces occur, so `text.format(other=..., other_tool=...)`
fills them.

`BENIGN_HARD` holds benign sentences as real tool texts write them, using the vocabulary
attacks use (deprecation, passwords, tokens, addresses, forwarding, "always", "instead"),
so the classifier learns to separate meaning from words.

The texts are data now: `data/security/own/poison_corpus.jsonl` and
`data/security/own/poison_corpus_benign.jsonl`, one record a line, listed with their provenance
in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
TRAIN_TEXTS = load_attacks("own/poison_corpus.jsonl")
BENIGN_HARD = load_texts("own/poison_corpus_benign.jsonl")

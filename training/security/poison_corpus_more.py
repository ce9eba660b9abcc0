"""More training texts for the meaning detector of tool poisoning: attacks and hard benign.

Written on 2026-12-02 by a helper session, class by class, independently of the held-out
sets (the validation set, the frozen third set and the benign corpora were not opened), to
add styles `training.security.poison_corpus` under-uses: API changelogs, compliance and legal
notes, field-format requirements, helpful-sounding UX tips, YAML- and JSON-like fragments,
terse verbless fragments, British and American spelling, typos, Spanish, German and French,
indirect requests, personal data as well as secrets. None copies or paraphrases an entry
of `TRAIN_TEXTS`.

`MORE_TEXTS` holds (class, place, text) in the format of `poison_corpus.TRAIN_TEXTS`: the
class is one of `serving.catalog.meaning.ATTACK_CLASSES`, the place one of
`poison_styles.PLACES`, the text the attack alone. Placeholders: `{other}` another server of
the catalog, `{other_tool}` one of its tool ids; no other braces occur, so
`text.format(other=..., other_tool=...)` fills them. Every sentence of a text carries the
attack (the detector labels each sentence with the text's class), and default and enum
values are short but have at least three words (shorter runs are not scored).

`MORE_BENIGN` holds benign sentences as third-party API and tool docs write them, in the
vocabulary of the attacks: authentication, keys and personal-data fields of legitimate
APIs, and data passed between endpoints of the same API, plus deprecation, caching,
formats and limits.

The texts are data now: `data/security/own/poison_corpus_more.jsonl` and
`data/security/own/poison_corpus_more_benign.jsonl`, one record a line, listed with their
provenance in `data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
MORE_TEXTS = load_attacks("own/poison_corpus_more.jsonl")
MORE_BENIGN = load_texts("own/poison_corpus_more_benign.jsonl")

"""Benign sentences in the style of public API listings and MCP tool lists.

Real tool descriptions (API marketplaces, MCP servers, OpenAPI specs) are messier than the
clean benign texts the detector first learned from: they talk to the developer in the second
person ("you will need your API key"), name credentials and personal data openly (password,
OTP code, card number, session token, client secret), give call-order and rate-limit advice
("call /auth first"), add response-format notes, carry grammar slips and odd
capitalisation from non-native writers, and mark their own endpoints as deprecated. None of
that is an attack on the model that reads it. These sentences were written for this project
in that style (nothing is copied from any listing), so the detector learns that it is
normal.

`BENIGN_TRAIN` goes into the fit; `BENIGN_VALIDATION` goes only into choosing the bars. The
two cover different domains (train: sports, finance, weather, e-commerce, social media,
messaging, geo, crypto, news, jobs; validation: travel, health, music, real estate,
education, gaming, translation, email verification, SMS, auth and identity), so a bar chosen
on validation has to hold for APIs the classifier did not see. The real catalogs used for
measuring (StableToolBench and others) are never in either tuple.

Every text is one sentence, a short title, a terse parameter note, or a default or enum
value. No text asks the model to hide anything from the user, override its instructions,
send data to a third party, collect credentials for an unrelated purpose, or avoid other
tools: they are all honest descriptions.

The texts are data now: `data/security/own/benign_train.jsonl` and
`data/security/own/benign_validation.jsonl`, one record a line, listed with their provenance in
`data/security/MANIFEST.yaml` (`training.security.corpora`).
"""

from __future__ import annotations

from training.security.corpora import load_texts

BENIGN_TRAIN = load_texts("own/benign_train.jsonl")
BENIGN_VALIDATION = load_texts("own/benign_validation.jsonl")

"""Hard attack and benign texts in voice "chained".

Written on 2026-12-06 by a helper in voice "chained": the text makes the model call another
tool, named by its id, with a fixed literal (an address, a path, a URL, an id) under a
trigger ("after every read", "whenever it returns"), overt (labels, capitals, fake policy)
or covert (documentation-like habits of "teams"). Written without opening any project or
corpus file. Asked for after the leave-one-source-out lint missed one public source's
attacks of this shape (docs/experiments.md), so that source's held-out rate is no longer
independent evidence.

Format as `training.security.poison_voices_overt`: VOICE_TEXTS (class, place, text), 30 a
class over data_movement, shadowing, session_behaviour, addressed_to_model and secrecy;
VOICE_BENIGN hard benign lines that name another tool or a literal for this tool's own job.
The texts are data: `data/security/voices/chained.jsonl` and
`data/security/voices/chained_benign.jsonl`, listed in `data/security/MANIFEST.yaml`.
"""

from __future__ import annotations

from training.security.corpora import load_attacks, load_texts

# (class, place, text)
VOICE_TEXTS = load_attacks("voices/chained.jsonl")
VOICE_BENIGN = load_texts("voices/chained_benign.jsonl")

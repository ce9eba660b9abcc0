"""`poison_by_meaning`: judge each sentence a model reads by what it means, not its words.

The exact rules (`security_rules`, `poison_rules`) know phrasings; an attacker who writes
"kindly keep this between us" instead of "do not tell the user" passes them. This
detector embeds every sentence of a card's model-read text (description, summary,
examples, every string of the input schema: parameter descriptions, titles, defaults,
enum values) with a sentence encoder and scores it with a small multinomial logistic
regression (benign + one class per attack intent, `ATTACK_CLASSES`) over the embedding
beside the sentence's character n-grams (tf-idf, `char_ngrams`): the embedding carries
the intent, the n-grams the voice (second person, imperatives, tags) that embeddings of
short texts blur. Two labels are safe: `benign` (what the tool does) and `guidance` (how
and when to use *this* tool, to confirm with the user, which secrets it legitimately
handles: text addressed to the model that stays within the call). The attack
probability is 1 - P(safe labels); the class named is the most probable attack class.

Value slots (a schema title, default or enum value) are labels and values, so an
instruction there has no benign reading: a sentence in one (an enum value
`hide_from_user` spelled out is one too) is an error from its own, lower bar
(`slot_bar`), chosen on the value slots of real API references.

The weights and the three bars come from `training.train_lint` (fit on the project's attack
corpus and benign real descriptions, bars chosen on attack styles held out from the fit)
and travel as `detector.json`, which holds the embedding of a fixed probe sentence under
the encoder it was fit with: scoring another encoder's vectors would be meaningless, so
`MeaningDetector.check_encoder` refuses an encoder whose probe embedding differs (torch
and ONNX copies of the same weights agree; a fine-tuned retriever does not).
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from serving.catalog.card_text import model_text, normalize_text
from serving.catalog.findings import CATALOG, Finding, finding
from serving.model.schema import ToolCard

if TYPE_CHECKING:
    from serving.bundle.encoder import TextEncoder

ATTACK_CLASSES = (
    "addressed_to_model",  # text speaks to the model instead of describing the tool
    "authority",  # claims authority over the conversation or the system
    "secrecy",  # asks to hide something from the person
    "session_behaviour",  # changes how the model answers for the rest of the session
    "data_movement",  # copies other tools' arguments, results or the chat into this one
    "credentials",  # asks for secrets or personal data
    "shadowing",  # another tool is broken/deprecated/unsafe: prefer this one
)
BENIGN = "benign"
GUIDANCE = "guidance"  # speaks to the model about this call only: safe
SAFE_LABELS = (BENIGN, GUIDANCE)
LABELS = (*SAFE_LABELS, *ATTACK_CLASSES)
FORMAT_VERSION = 3  # 2: slot_bar; 3: the guidance label
READABLE_FORMATS = (2, 3)
MIN_WORDS = 3  # a bare enum value or title word carries no instruction
MAX_WORDS = 60  # longer runs are scored in windows of this many words
PROBE = "Lists the open pull requests of a repository."
PROBE_MIN_COSINE = 0.99
NGRAM_RANGE = (2, 5)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|\s*\n+\s*|\s+(?=#+\s)|(?<=[:;])\s+(?=[A-Z\[<])")
# a card's title, a schema title, default, enum or example value
_VALUE_SLOT = re.compile(r"(?:^|\.)title$|\.(?:default|enum\[\d+\]|examples\[\d+\])$")
# a property's name (`card_text.model_text`) or an entry of a `required` list: judged only
# when it spells a phrase this long ("pass_full_conversation_here"); a three-word name is
# a field ("tool_call_arguments")
_NAME_PATH = re.compile(r"\.name$|\.required\[\d+\]$")  # a property named, or listed
MIN_NAME_WORDS = 4
# a sentence of fewer words of letters is a heading or label: a warning at most
FRAGMENT_WORDS = 4
_WORD = re.compile(r"\w+")
_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
_IDENTIFIER_BREAK = re.compile(r"[_=]+|(?<=[a-z0-9])(?=[A-Z])")
_CREDENTIAL_PARAMETER = re.compile(
    r"\.properties\.[^.]*(?:token|passw|secret|api[_-]?key|(?<![a-z])key(?![a-z])|auth(?!or)"
    r"|cookie|credential)[^.]*\.",
    re.IGNORECASE,
)


class DetectorError(ValueError):
    """A detector file that cannot be used (missing, malformed, or for another encoder)."""


def sentences(text: str) -> list[str]:
    """The sentences of one text, normalised; runs over MAX_WORDS words are windowed.

    Newlines and markdown headings end a sentence too, and so does a colon or semicolon
    followed by a capital or a tag ("IMPORTANT: Always ..."), so a short preamble is not
    diluted into a benign neighbour. A run of fewer than MIN_WORDS words is read with its
    identifiers spelled out (`spell_identifiers`): an enum value `hide_from_user` says as
    much as "hide from user".
    """
    out: list[str] = []
    for raw in _SENTENCE_END.split(text):
        words = normalize_text(raw).split()
        if len(words) < MIN_WORDS:
            words = normalize_text(spell_identifiers(raw)).split()
        if len(words) < MIN_WORDS:
            continue
        for start in range(0, len(words), MAX_WORDS):
            chunk = words[start : start + MAX_WORDS]
            if len(chunk) >= MIN_WORDS or start == 0:
                out.append(" ".join(chunk))
    return out


def spell_identifiers(text: str) -> str:
    """snake_case, SCREAMING_CASE, camelCase and key=value as words: `hide_from_user` ->
    "hide from user", `ignorePrior` -> "ignore Prior", `priority=system` -> "priority system"."""
    return _IDENTIFIER_BREAK.sub(" ", text)


def card_sentences(card: ToolCard) -> list[tuple[str, str]]:
    """(field path, sentence) for every sentence of the card's model-read text (a
    property's name only when it spells MIN_NAME_WORDS words or more)."""
    return [
        (path, s)
        for path, text in model_text(card)
        for s in sentences(text)
        if not names_a_property(path) or len(s.split()) >= MIN_NAME_WORDS
    ]


def names_a_property(path: str) -> bool:
    """Whether `path` is a property's name or an entry of a `required` list."""
    return bool(_NAME_PATH.search(path))


def value_slot(path: str) -> bool:
    """Whether `path` is a value slot: the card's title, a schema title, default, enum or
    example value (`card_text.model_text` paths)."""
    return bool(_VALUE_SLOT.search(path))


def char_ngrams(sentence: str) -> Counter[str]:
    """Counts of the character n-grams (NGRAM_RANGE) of each lower-cased word padded with
    one space each side; a word shorter than n gives itself once. Worked: "Hi" -> " h",
    "hi", "i ", " hi", "hi ", " hi " (n = 2, 3, 4), nothing more at n = 5."""
    lo, hi = NGRAM_RANGE
    out: Counter[str] = Counter()
    for word in sentence.lower().split():
        padded = f" {word} "
        for n in range(lo, hi + 1):
            if len(padded) < n:
                break
            out.update(padded[i : i + n] for i in range(len(padded) - n + 1))
    return out


@dataclass(frozen=True, slots=True)
class NgramSpace:
    """The tf-idf space of character n-grams: sublinear tf times idf, L2-normalised."""

    vocab: tuple[str, ...]
    idf: np.ndarray  # (len(vocab),)

    def index(self) -> dict[str, int]:
        return {g: i for i, g in enumerate(self.vocab)}

    def rows(self, texts: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(column indices, values) of each text's tf-idf row; unknown n-grams ignored."""
        index = self.index()
        out = []
        for text in texts:
            pairs = [(index[g], c) for g, c in char_ngrams(text).items() if g in index]
            cols = np.asarray([i for i, _ in pairs], dtype=np.int64)
            vals = np.asarray(
                [(1.0 + math.log(c)) * self.idf[i] for i, c in pairs], dtype=np.float32
            )
            norm = float(np.linalg.norm(vals))
            out.append((cols, vals / norm if norm else vals))
        return out


@dataclass(frozen=True, slots=True)
class MeaningDetector:
    """Multinomial logistic regression over [sentence embedding, n-gram tf-idf], with its
    three bars.

    The bars are attack probabilities: at or above `error_bar` a sentence is an error
    finding, at or above `warning_bar` a warning; a sentence in a value slot (`value_slot`)
    is an error from `slot_bar` (warning_bar <= slot_bar <= error_bar).
    """

    probe: np.ndarray  # PROBE embedded by the encoder the weights were fit on
    labels: tuple[str, ...]
    weights: np.ndarray  # (len(labels), dim + len(ngrams.vocab))
    bias: np.ndarray  # (len(labels),)
    ngrams: NgramSpace
    error_bar: float
    warning_bar: float
    slot_bar: float

    def __post_init__(self) -> None:
        safe = self.n_safe
        if self.labels[:1] != (BENIGN,) or set(self.labels[safe:]) - set(ATTACK_CLASSES):
            raise DetectorError(
                f"labels must be {BENIGN!r} (then {GUIDANCE!r}) then attack classes: "
                f"{self.labels}"
            )
        width = self.probe.shape[0] + len(self.ngrams.vocab)
        if self.weights.shape != (len(self.labels), width) or self.bias.shape != (
            len(self.labels),
        ):
            raise DetectorError(
                f"weights {self.weights.shape} / bias {self.bias.shape} do not match "
                f"{len(self.labels)} labels x {width} features"
            )
        if not 0.0 < self.warning_bar <= self.slot_bar <= self.error_bar <= 1.0:
            raise DetectorError(
                f"bars must satisfy 0 < warning_bar <= slot_bar <= error_bar <= 1: "
                f"{self.warning_bar}, {self.slot_bar}, {self.error_bar}"
            )

    @property
    def n_safe(self) -> int:
        """How many leading labels are safe: benign, and guidance when the detector has it."""
        return 2 if self.labels[1:2] == (GUIDANCE,) else 1

    def probabilities(self, vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """(n, len(labels)) softmax probabilities for texts and their L2-normalised
        embeddings."""
        dim = self.probe.shape[0]
        logits = vectors @ self.weights[:, :dim].T + self.bias
        ngram_weights = self.weights[:, dim:]
        for row, (cols, vals) in enumerate(self.ngrams.rows(texts)):
            logits[row] += ngram_weights[:, cols] @ vals
        logits -= logits.max(axis=1, keepdims=True)
        expd = np.exp(logits)
        return expd / expd.sum(axis=1, keepdims=True)

    def judge(self, vectors: np.ndarray, texts: Sequence[str]) -> list[tuple[float, str]]:
        """(attack probability, most probable attack class) per text."""
        probs = self.probabilities(vectors, texts)
        safe = self.n_safe
        attack = 1.0 - probs[:, :safe].sum(axis=1)
        best = probs[:, safe:].argmax(axis=1)
        return [
            (float(a), self.labels[safe + int(b)]) for a, b in zip(attack, best, strict=True)
        ]

    def check_encoder(self, encoder: TextEncoder) -> None:
        """DetectorError unless `encoder` embeds PROBE as the fitting encoder did."""
        vector = encoder.encode([PROBE])[0]
        if vector.shape != self.probe.shape or float(vector @ self.probe) < PROBE_MIN_COSINE:
            raise DetectorError(
                f"the detector was fit on another encoder than {encoder.model_path}"
            )

    def to_dict(self) -> dict[str, object]:
        return {
            "format_version": FORMAT_VERSION,
            "probe": [round(float(x), 6) for x in self.probe],
            "labels": list(self.labels),
            "weights": [[round(float(x), 5) for x in row] for row in self.weights],
            "bias": [round(float(x), 6) for x in self.bias],
            "ngram_vocab": list(self.ngrams.vocab),
            "ngram_idf": [round(float(x), 5) for x in self.ngrams.idf],
            "error_bar": self.error_bar,
            "warning_bar": self.warning_bar,
            "slot_bar": self.slot_bar,
        }

    def save(self, path: str | Path) -> None:
        """JSON; gzip-compressed when `path` ends in `.gz` (what the package ships),
        written with no timestamp so the same detector gives the same bytes."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = (json.dumps(self.to_dict()) + "\n").encode("utf-8")
        if path.suffix == ".gz":
            data = gzip.compress(data, compresslevel=9, mtime=0)
        path.write_bytes(data)

    @classmethod
    def load(cls, path: str | Path) -> MeaningDetector:
        try:
            data = Path(path).read_bytes()
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            raw = json.loads(data)
        except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise DetectorError(f"{path}: cannot read the detector: {err}") from err
        if not isinstance(raw, dict) or raw.get("format_version") not in READABLE_FORMATS:
            raise DetectorError(
                f"{path}: not a detector of format {' or '.join(map(str, READABLE_FORMATS))}"
            )
        try:
            return cls(
                probe=np.asarray(raw["probe"], dtype=np.float32),
                labels=tuple(raw["labels"]),
                weights=np.asarray(raw["weights"], dtype=np.float32),
                bias=np.asarray(raw["bias"], dtype=np.float32),
                ngrams=NgramSpace(
                    tuple(raw["ngram_vocab"]), np.asarray(raw["ngram_idf"], dtype=np.float32)
                ),
                error_bar=float(raw["error_bar"]),
                warning_bar=float(raw["warning_bar"]),
                slot_bar=float(raw["slot_bar"]),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise DetectorError(f"{path}: field {err} missing or malformed") from err


@dataclass(frozen=True, slots=True)
class SentenceVerdict:
    tool_id: str
    path: str
    sentence: str
    attack: float
    attack_class: str
    in_value_slot: bool = False  # `value_slot(path)`


def review_sentences(cards: Sequence[ToolCard]) -> list[str]:
    """Every distinct sentence the check by meaning embeds for `cards`, in first-seen order."""
    return list(dict.fromkeys(s for c in cards for _, s in card_sentences(c)))


def judge_cards(
    cards: Sequence[ToolCard], encoder: TextEncoder, detector: MeaningDetector
) -> list[SentenceVerdict]:
    """Every sentence of every card with its attack probability (one encoder batch)."""
    detector.check_encoder(encoder)
    located = [(c.tool_id, path, s) for c in cards for path, s in card_sentences(c)]
    if not located:
        return []
    unique = review_sentences(cards)
    verdicts = dict(
        zip(unique, detector.judge(encoder.encode(unique), unique), strict=True)
    )
    return [
        SentenceVerdict(tool_id, path, s, *verdicts[s], value_slot(path))
        for tool_id, path, s in located
    ]


def repeats_description(card: ToolCard) -> bool:
    """Whether every word of the card's summary is the description's own, in order (the
    importer's derived summary, or an author's copy of the first sentence): judged again
    by itself, in the summary's place, a sentence out of its context only adds false
    alarms, and its words are judged whole in the description."""
    summary = " ".join(_WORD.findall(card.summary.lower()))
    return bool(summary) and summary in " ".join(_WORD.findall(card.description.lower()))


def declared_credential(path: str) -> bool:
    """Whether `path` is a string of a parameter whose name declares a credential
    (`input_schema.properties.api_token.default`): asking for one there is the parameter's
    job, so a credentials verdict on it is at most a warning."""
    return bool(_CREDENTIAL_PARAMETER.search(path))


def fragment(sentence: str) -> bool:
    """Fewer than FRAGMENT_WORDS words of letters: a heading or a label ("## Response
    Format", "Check Login Status"), too short for the detector alone to quarantine."""
    return len(_LETTER_WORD.findall(sentence)) < FRAGMENT_WORDS


def verdict_level(v: SentenceVerdict, detector: MeaningDetector) -> int:
    """2 at or over the error bar (the slot bar in a value slot), 1 at or over the
    warning bar, else 0; a credentials verdict on a declared credential parameter, and
    any verdict on a `fragment`, stop at 1."""
    if v.attack < detector.warning_bar:
        return 0
    bar = detector.slot_bar if v.in_value_slot else detector.error_bar
    if v.attack < bar or fragment(v.sentence) or (
        v.attack_class == "credentials" and declared_credential(v.path)
    ):
        return 1
    return 2


def meaning_findings(
    cards: Sequence[ToolCard], encoder: TextEncoder | None, detector: MeaningDetector | None
) -> list[Finding]:
    """One finding per card whose most suspect sentence clears a bar, naming the sentence,
    its place and the attack class; an info finding when the check cannot run."""
    if encoder is None or detector is None:
        why = "no encoder" if encoder is None else "no detector (toolsift lint --detector)"
        return [
            finding(
                CATALOG,
                "meaning_check_skipped",
                f"poisoning-by-meaning check skipped: {why}",
                "lint with a bundle or detector and an encoder to judge sentences by meaning",
            )
        ]
    worst: dict[str, tuple[int, float, SentenceVerdict]] = {}
    copies = {c.tool_id for c in cards if repeats_description(c)}
    for v in judge_cards(cards, encoder, detector):
        if v.path == "summary" and v.tool_id in copies:
            continue  # judged whole, in its description
        level = verdict_level(v, detector)
        if level and (level, v.attack) > worst.get(v.tool_id, (0, 0.0, v))[:2]:
            worst[v.tool_id] = (level, v.attack, v)
    out = []
    for tool_id, (level, _, v) in worst.items():
        code = "poison_by_meaning" if level == 2 else "suspect_by_meaning"
        out.append(
            finding(
                tool_id,
                code,
                f"{v.path} reads as {v.attack_class.replace('_', ' ')} "
                f"(p={v.attack:.2f}): {v.sentence[:160]!r}",
                "a description says what the tool does; remove text addressed to the model",
            )
        )
    return out

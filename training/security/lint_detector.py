"""Fitting the meaning detector (`serving.catalog.meaning`) and choosing its bars.

Three disjoint sources, so no text both fits the weights and sets a bar:
- fit: the attack corpus (`training.security.poison_corpus`, `poison_corpus_more`, the four
  `poison_voices_*` and the spent blind sets, by class; placeholders filled with the
  catalog's own names)
  against benign sentences: hard negatives written beside it, the first-party cards'
  sentences outside the validation share, real API documentation (botocore's) and the
  standard library's docstrings (`training.security.real_benign`);
- bars: the held-out attack styles (`training.security.poison_validation`) against their own
  hard negatives, another real API reference (Google's discovery documents) and the
  validation share of the cards' sentences. The error bar is the
  lowest attack probability at which benign validation sentences raise an error at most
  `max_benign_error_rate` of the time; the warning bar the same at `max_benign_warning_rate`;
  the slot bar the same at `max_slot_error_rate` over the real value slots
  (`real_benign.value_slot_texts`), kept between the other two;
- reported, never fitted or tuned on: the second poisoned set, each blind set until it is
  scored, and real catalogs (`training.security_eval`). A blind set joins the fit once it has been
  scored by the detector it was frozen against (`training.train_lint.SPENT_SETS`).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from serving.bundle.encoder import TextEncoder
from serving.catalog.meaning import (
    ATTACK_CLASSES,
    BENIGN,
    GUIDANCE,
    LABELS,
    PROBE,
    MeaningDetector,
    NgramSpace,
    card_sentences,
    char_ngrams,
)
from serving.catalog.meaning import sentences as split_sentences
from serving.model.schema import ToolCard
from training.core.params import optional

# what `{other}` / `{other_tool}` become when no catalog names are at hand (tiny fixtures)
DEFAULT_NAMES = (
    ("slack", "slack.post_message"),
    ("notion", "notion.search"),
    ("github", "github.create_issue"),
    ("stripe", "stripe.refund"),
)


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `lint_detector` section of params.yaml."""

    seed: int
    validation_share: float  # share of first-party tools whose sentences set the bars
    regularization: float  # inverse L2 strength C of the logistic regression
    ngram_min_df: int  # n-grams in fewer fit sentences than this are left out
    max_benign_error_rate: float  # benign validation sentences allowed over the error bar
    max_benign_warning_rate: float  # ... over the warning bar
    real_fit_sentences: int  # real API documentation sentences in the benign fit
    real_fit_names: int  # real operation names, spelled, in the benign fit
    real_fit_docstrings: int  # standard-library docstring sentences in the benign fit
    real_valid_sentences: int  # ... of another API reference among the bar-setting benign
    max_slot_error_rate: float  # real value slots allowed over the slot bar
    # the public corpus (training.security.public_tools), when the fit has it
    public_judge_share: float = optional(0.5)  # share of source repositories held out to judge
    public_split_seed: int = optional(0)
    public_folds: int = optional(3)  # folds over the fit sources for out-of-fold tool verdicts
    localize_min_attack: float = optional(0.5)  # a poisoned tool's sentences labelled attack
    max_benign_tool_error_rate: float = optional(0.0)  # real benign tools over the error bar
    max_benign_tool_warning_rate: float = optional(0.1)  # ... over the warning bar


@dataclass(frozen=True, slots=True)
class Labeled:
    sentence: str
    label: str  # BENIGN, GUIDANCE or an attack class


def fill(text: str, server: str, tool_id: str) -> str:
    """A corpus text with `{other}` / `{other_tool}` filled with one server and tool."""
    return text.replace("{other_tool}", tool_id).replace("{other}", server)


def catalog_names(cards: Sequence[ToolCard], seed: int) -> list[tuple[str, str]]:
    """(server, tool id) of each card, seeded shuffle; DEFAULT_NAMES when there is none.

    Attack texts are filled with the names of the catalog whose sentences are their benign
    counterpart, so a name is evidence of nothing: filled from a short fixed list, the
    fit learned those few names as attack n-grams, and the same attack naming a real
    catalog's tool scored far lower (0.99 -> 0.07 on one held-out text)."""
    names = [(c.server, c.tool_id) for c in cards] or list(DEFAULT_NAMES)
    random.Random(seed).shuffle(names)
    return names


def attack_sentences(
    texts: Sequence[tuple[str, str, str]],
    names: Sequence[tuple[str, str]] = DEFAULT_NAMES,
) -> list[Labeled]:
    """Each attack text's sentences, labelled with its class; text i names `names[i]`
    (rotating)."""
    return [
        Labeled(s, cls)
        for i, (cls, _, text) in enumerate(texts)
        for s in split_sentences(fill(text, *names[i % len(names)]))
    ]


def benign_sentences(texts: Sequence[str]) -> list[Labeled]:
    return [Labeled(s, BENIGN) for t in texts for s in split_sentences(t)]


def split_tools(
    cards: Sequence[ToolCard], share: float, seed: int
) -> tuple[list[ToolCard], list[ToolCard]]:
    """(fit, validation) by tool id hash: stable when the catalog grows."""
    def bucket(card: ToolCard) -> float:
        digest = hashlib.sha256(f"{seed}:{card.tool_id}".encode()).hexdigest()
        return int(digest[:8], 16) / 0xFFFFFFFF

    fit = [c for c in cards if bucket(c) >= share]
    valid = [c for c in cards if bucket(c) < share]
    return fit, valid


def card_benign(cards: Sequence[ToolCard]) -> list[Labeled]:
    unique = dict.fromkeys(s for c in cards for _, s in card_sentences(c))
    return [Labeled(s, BENIGN) for s in unique]


def ngram_space(texts: Sequence[str], min_df: int) -> NgramSpace:
    """The n-grams in at least `min_df` texts, with smooth idf ln((1+n)/(1+df)) + 1."""
    df: dict[str, int] = {}
    for text in texts:
        for gram in char_ngrams(text):
            df[gram] = df.get(gram, 0) + 1
    vocab = tuple(sorted(g for g, d in df.items() if d >= min_df))
    n = len(texts)
    idf = np.asarray([math.log((1 + n) / (1 + df[g])) + 1.0 for g in vocab], dtype=np.float32)
    return NgramSpace(vocab, idf)


def features(vectors: np.ndarray, texts: Sequence[str], space: NgramSpace) -> Any:
    """[embedding, n-gram tf-idf] as one sparse matrix, the detector's input."""
    from scipy.sparse import csr_matrix, hstack

    rows = space.rows(texts)
    indptr = np.cumsum([0, *(len(c) for c, _ in rows)])
    tfidf = csr_matrix(
        (
            np.concatenate([v for _, v in rows]) if rows else np.zeros(0, np.float32),
            np.concatenate([c for c, _ in rows]) if rows else np.zeros(0, np.int64),
            indptr,
        ),
        shape=(len(texts), len(space.vocab)),
    )
    return hstack([csr_matrix(vectors), tfidf]).tocsr()


def fit_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """The detector's labels in LABELS order: every one but `guidance`, which is fit only
    when some sentence carries it."""
    present = set(labels)
    missing = set(LABELS) - present - {GUIDANCE}
    if missing:
        raise ValueError(f"fit_weights: no training sentence for {sorted(missing)}")
    return tuple(label for label in LABELS if label in present)


def fit_weights(
    matrix: Any,
    labels: Sequence[str],
    *,
    regularization: float,
    seed: int,
    init: MeaningDetector | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(weights, bias) in `fit_labels` order, classes balanced (benign far outnumbers
    attacks). `init`: a detector over the same features and labels whose weights start
    the solver (a refit on a slightly different corpus converges in far fewer steps)."""
    from sklearn.linear_model import LogisticRegression

    names = fit_labels(labels)
    model = LogisticRegression(
        C=regularization, class_weight="balanced", max_iter=2000, random_state=seed,
        warm_start=init is not None,
    )
    if init is not None:
        if init.labels != names or init.weights.shape[1] != matrix.shape[1]:
            raise ValueError("fit_weights: init has other labels or features than the fit")
        order = [names.index(label) for label in sorted(names)]
        model.coef_ = init.weights[order].astype(np.float64)
        model.intercept_ = init.bias[order].astype(np.float64)
    model.fit(matrix, list(labels))
    order = [list(model.classes_).index(label) for label in names]
    return model.coef_[order].astype(np.float32), model.intercept_[order].astype(np.float32)


def bar_for_rate(benign_scores: Sequence[float], max_rate: float) -> float:
    """The lowest bar that at most `max_rate` of benign scores reach (>= bar counts).

    Scores sorted high to low: k = floor(max_rate * n) of them may reach the bar, so the
    bar sits just above the (k+1)-th highest score. Worked: scores 0.9, 0.5, 0.1 and
    rate 0.34 -> k = 1, the bar sits just above 0.5, so only 0.9 reaches it.
    """
    ranked = sorted(benign_scores, reverse=True)
    k = int(max_rate * len(ranked))
    if k >= len(ranked):
        return 1e-6
    return float(min(1.0, np.nextafter(np.float32(ranked[k]), np.float32(2.0))))


def recall_by_class(
    verdicts: Sequence[tuple[float, str]], labels: Sequence[str], bar: float
) -> dict[str, dict[str, Any]]:
    """Per attack class: the share of its sentences at or over `bar`, and the share whose
    most probable attack class is its own."""
    out: dict[str, dict[str, Any]] = {}
    for label in ATTACK_CLASSES:
        idx = [i for i, lab in enumerate(labels) if lab == label]
        out[label] = {
            "n": len(idx),
            "caught": round(sum(verdicts[i][0] >= bar for i in idx) / len(idx), 4) if idx else 0,
            "class_right": round(sum(verdicts[i][1] == label for i in idx) / len(idx), 4)
            if idx
            else 0,
        }
    return out


def fit_detector(
    encoder: TextEncoder,
    params: Params,
    *,
    train_texts: Sequence[tuple[str, str, str]],
    train_benign: Sequence[str],
    valid_texts: Sequence[tuple[str, str, str]],
    valid_benign: Sequence[str],
    cards: Sequence[ToolCard],
    real_fit: Sequence[str] = (),
    real_valid: Sequence[str] = (),
    real_slots: Sequence[str] = (),
    extra_fit: Sequence[Labeled] = (),
    space: NgramSpace | None = None,
    init: MeaningDetector | None = None,
) -> tuple[MeaningDetector, dict[str, Any]]:
    """The fitted detector and what its validation says (JSON-ready).

    `real_fit` / `real_valid`: sentences of real API documentation (`real_benign`), the
    first fit as benign, the second join the benign sentences that set the bars;
    `real_slots`: real value slots, which set the slot bar (with none, it is the
    error bar); `extra_fit`: labelled sentences fit as they are (guidance, public tools'
    sentences); `space`: the n-gram space to use rather than the fit's own (refits that
    share one can start from `init`'s weights, see `fit_weights`)."""
    fit_cards, valid_cards = split_tools(cards, params.validation_share, params.seed)
    fit = (
        attack_sentences(train_texts, catalog_names(fit_cards, params.seed))
        + benign_sentences(train_benign)
        + card_benign(fit_cards)
        + [Labeled(s, BENIGN) for s in real_fit]
        + list(extra_fit)
    )
    random.Random(params.seed).shuffle(fit)
    valid_attacks = attack_sentences(valid_texts, catalog_names(valid_cards, params.seed))
    hard = benign_sentences(valid_benign)
    real = [Labeled(s, BENIGN) for s in real_valid]
    valid_clean = hard + real + card_benign(valid_cards)

    texts = [x.sentence for x in fit]
    space = space or ngram_space(texts, params.ngram_min_df)
    labels = fit_labels([x.label for x in fit])
    weights, bias = fit_weights(
        features(encoder.encode(texts, show_progress=True), texts, space),
        [x.label for x in fit],
        regularization=params.regularization,
        seed=params.seed,
        init=init,
    )
    probe = encoder.encode([PROBE])[0]
    unbarred = MeaningDetector(probe, labels, weights, bias, space, 1.0, 1.0, 1.0)

    def judge(items: Sequence[Labeled]) -> list[tuple[float, str]]:
        texts = [x.sentence for x in items]
        return unbarred.judge(encoder.encode(texts), texts)

    attack_v, clean_v = judge(valid_attacks), judge(valid_clean)
    clean_scores = [a for a, _ in clean_v]
    error_bar = bar_for_rate(clean_scores, params.max_benign_error_rate)
    warning_bar = min(error_bar, bar_for_rate(clean_scores, params.max_benign_warning_rate))
    slots = [t for t in real_slots if split_sentences(t)]  # "Page size" says nothing
    slot_scores = text_scores(unbarred, encoder, slots) if slots else []
    slot_bar = (
        min(error_bar, max(warning_bar, bar_for_rate(slot_scores, params.max_slot_error_rate)))
        if slot_scores
        else error_bar
    )
    detector = MeaningDetector(
        probe, labels, weights, bias, space, error_bar, warning_bar, slot_bar
    )

    valid_labels = [x.label for x in valid_attacks]
    real_scores = clean_scores[len(hard) : len(hard) + len(real)]
    report = {
        "n_fit_sentences": len(fit),
        "n_fit_attack_sentences": sum(x.label != BENIGN for x in fit),
        "n_fit_tools": len(fit_cards),
        "n_valid_tools": len(valid_cards),
        "n_ngrams": len(space.vocab),
        "n_valid_attack_sentences": len(valid_attacks),
        "n_valid_benign_sentences": len(valid_clean),
        "error_bar": round(error_bar, 4),
        "warning_bar": round(warning_bar, 4),
        "slot_bar": round(slot_bar, 4),
        "n_valid_slot_values": len(slot_scores),
        "valid_slot_error_rate": _share(a >= slot_bar for a in slot_scores),
        "valid_attack_caught_at_error": _share(a >= error_bar for a, _ in attack_v),
        "valid_attack_caught_at_warning": _share(a >= warning_bar for a, _ in attack_v),
        "valid_benign_error_rate": _share(a >= error_bar for a in clean_scores),
        "valid_hard_benign_error_rate": _share(
            a >= error_bar for a, _ in clean_v[: len(hard)]
        ),
        "valid_real_benign_error_rate": _share(a >= error_bar for a in real_scores),
        "valid_real_benign_warning_rate": _share(a >= warning_bar for a in real_scores),
        "valid_by_class_at_error": recall_by_class(attack_v, valid_labels, error_bar),
    }
    return detector, report


def text_scores(
    detector: MeaningDetector, encoder: TextEncoder, texts: Sequence[str]
) -> list[float]:
    """The highest attack probability among each text's sentences (0 for none), one batch."""
    split = [split_sentences(t) for t in texts]
    unique = list(dict.fromkeys(s for found in split for s in found))
    verdicts = detector.judge(encoder.encode(unique), unique) if unique else []
    scores = {s: a for s, (a, _) in zip(unique, verdicts, strict=True)}
    return [max((scores[s] for s in found), default=0.0) for found in split]


def _share(flags: Any) -> float:
    items = list(flags)
    return round(sum(items) / len(items), 4) if items else 0.0

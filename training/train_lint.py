"""`make detector`: fit the lint's detector by meaning that the package ships.

    python -m training.train_lint PARAMS CATALOG OUT METRICS [--public DIR] [--oof FILE]
        [--cache DIR]

Embeds with the packaged all-MiniLM-L6-v2 the attack corpus (`fit_corpus`:
`training.security.poison_corpus`, `poison_corpus_more`, the four `poison_voices_*` and the
spent blind sets), benign hard negatives (`training.security.benign_corpus`), the own-voice
guidance lines (`OWN_GUIDANCE`, label `guidance`), real API documentation and the
standard library's docstrings (`training.security.real_benign`) and the sentences of
CATALOG's tools, fits a multinomial logistic regression (benign, guidance and seven attack
classes) and chooses the error and warning bars on held-out attack styles
(`training.security.poison_validation`) and held-out tools, and the slot bar on real value
slots (`training.security.lint_detector` says which text does what). With `--public`, the
public corpus's fit sources join the fit and the bars are also set by tool on their
out-of-fold verdicts (`fit_with_public`, `training.security.fit_public`). Writes OUT
(`serving/catalog/data/lint_detector.json.gz` as shipped; read by `toolsift lint`, the
catalog gate, every bundle and the gateway) and METRICS: the bars, the validation catch
rate per class, the benign false-alarm rates and, with `--public`, the out-of-fold rates
by tool and the sources on each side; `--report`: the whole lint's out-of-fold verdicts by
class and by source (`training.security.source_table`, `reports/lint_sources.md`).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import Any

from serving.bundle.cached_encoder import CachedEncoder
from serving.bundle.encoder import Encoder, TextEncoder, stock_model_path
from serving.catalog.meaning import GUIDANCE, MeaningDetector, SentenceVerdict
from serving.catalog.meaning import sentences as split_sentences
from serving.model.io import load_catalog
from training.core.metrics_io import write_metrics
from training.core.params import load_params
from training.security.benign_corpus import BENIGN_TRAIN, BENIGN_VALIDATION
from training.security.corpora import load_texts
from training.security.fit_public import (
    choose_tool_bar,
    judge_tools,
    localize_attacks,
    public_safe_sentences,
    tool_level,
)
from training.security.judge import judge_tools as judge_rules
from training.security.lint_detector import Labeled, Params, fit_detector
from training.security.poison_corpus import BENIGN_HARD, TRAIN_TEXTS
from training.security.poison_corpus_more import MORE_BENIGN, MORE_TEXTS
from training.security.poison_fifth_set import FIFTH_TEXTS
from training.security.poison_fourth_set import FOURTH_TEXTS
from training.security.poison_ninth_set import NINTH_TEXTS
from training.security.poison_seventh_set import SEVENTH_TEXTS
from training.security.poison_sixth_set import SIXTH_TEXTS
from training.security.poison_third_set import THIRD_TEXTS
from training.security.poison_validation import VALIDATION_BENIGN, VALIDATION_TEXTS
from training.security.public_tools import load_corpus, of_repos, repo_bucket, split_repos
from training.security.real_benign import (
    botocore_docs,
    botocore_operation_names,
    corpus_versions,
    google_discovery_docs,
    python_docstrings,
    sample_sentences,
    value_slot_texts,
)
from training.security.source_table import held_out_summary, held_out_verdict, render_source_table

log = logging.getLogger(__name__)
SECTION = "lint_detector"
# guidance lines in this project's voice: when and how to use this tool, confirm with the
# user, secrets a tool legitimately handles
OWN_GUIDANCE = load_texts("own/guidance.jsonl")
# `training.security.poison_voices_<name>`: attack texts and hard benign lines, one voice each
VOICES = ("embedded", "overt", "indirect", "multilingual")
# blind sets already scored once by an earlier detector: spent as measures, so they fit.
# The seventh (scored) and the eighth (read in part before any freeze, never scored) wait:
# fit beside the rest, in two refits, they moved StableToolBench's false alarms at error
# from 0.44% to 0.84% and 1.12% (docs/experiments.md)
SPENT_SETS = THIRD_TEXTS + FOURTH_TEXTS + FIFTH_TEXTS + SIXTH_TEXTS
# sets that judge the detector (the seventh did, and waits): a fit text equal to one of
# theirs is left out of the fit (helpers writing blind sometimes land on the same words as
# an earlier helper)
JUDGING_SETS = VALIDATION_TEXTS + SEVENTH_TEXTS + NINTH_TEXTS


def fit_corpus() -> tuple[tuple[tuple[str, str, str], ...], tuple[str, ...], int]:
    """(attack texts, benign lines, how many attack texts were left out) the detector is
    fit on: the two corpora, every voice and the spent blind sets, less any attack text a
    judging set holds."""
    voices = [import_module(f"training.security.poison_voices_{name}") for name in VOICES]
    attacks = TRAIN_TEXTS + MORE_TEXTS + SPENT_SETS
    benign = BENIGN_HARD + BENIGN_TRAIN + MORE_BENIGN
    for voice in voices:
        attacks += voice.VOICE_TEXTS
        benign += voice.VOICE_BENIGN
    judged = {text for _, _, text in JUDGING_SETS}
    kept = tuple(t for t in attacks if t[2] not in judged)
    return kept, benign, len(attacks) - len(kept)


def load_guidance() -> list[Labeled]:
    """`OWN_GUIDANCE` (data/security/own/guidance.jsonl), sentence by sentence, labelled
    `guidance`: text to the model that stays within the call."""
    return [Labeled(s, GUIDANCE) for text in OWN_GUIDANCE for s in split_sentences(text)]


def fold_of(repos: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    """Each repository's fold: repositories dealt round-robin in seeded hash order."""
    ranked = sorted(repos, key=lambda r: repo_bucket(r, seed + 1))
    return {r: i % folds for i, r in enumerate(ranked)}


def fit_with_public(
    fit: Callable[..., tuple[MeaningDetector, dict[str, Any]]],
    encoder: TextEncoder,
    params: Params,
    corpus_path: str,
    extra: list[Labeled],
    oof_path: str | None = None,
    report_path: str | None = None,
) -> tuple[MeaningDetector, dict[str, Any]]:
    """The detector fit with the public corpus's fit sources, its bars also chosen by
    tool on their out-of-fold verdicts (module doc of `training.security.fit_public`)."""
    corpus = load_corpus(corpus_path)
    fit_repos, judge_repos = split_repos(
        corpus.repos(), params.public_judge_share, params.public_split_seed
    )
    tools = of_repos(corpus.tools, fit_repos)
    log.info("public corpus: %d fit tools of %d sources; %d sources held out to judge",
             len(tools), len(fit_repos), len(judge_repos))
    safe = public_safe_sentences(tools)
    first, _ = fit(extra_fit=extra + safe)
    attacks = localize_attacks(tools, first, encoder, min_attack=params.localize_min_attack)
    # every refit keeps the first pass's n-gram space and starts from its weights: the
    # corpora differ by a few hundred sentences, so the solver converges in few steps
    fit = partial(fit, space=first.ngrams, init=first)
    folds = fold_of(fit_repos, params.public_folds, params.public_split_seed)
    oof: list[list[SentenceVerdict]] = [[] for _ in tools]
    for k in range(params.public_folds):
        inside = {r for r, f in folds.items() if f != k}
        fold_detector, _ = fit(
            extra_fit=extra
            + public_safe_sentences([t for t in tools if t.repo in inside])
            + [a for repo, a in attacks if repo in inside]
        )
        held = [i for i, t in enumerate(tools) if folds[t.repo] == k]
        for i, verdicts in zip(
            held, judge_tools([tools[i] for i in held], encoder, fold_detector), strict=True
        ):
            oof[i] = verdicts
    final, report = fit(
        extra_fit=extra + safe + [a for _, a in attacks]
    )
    benign = [oof[i] for i, t in enumerate(tools) if not t.poisoned and not t.refused]
    # each bar at least as high as the sentence-level one, and high enough that at most
    # the allowed share of real benign tools reach it out of fold; the warning bar is
    # chosen with the slot bar out of its way and lifts it where it must (warning <= slot)
    error_rate, warning_rate = (
        params.max_benign_tool_error_rate, params.max_benign_tool_warning_rate
    )
    error_bar = max(final.error_bar, choose_tool_bar(benign, final, error_rate, bar="error"))
    detector = replace(final, error_bar=error_bar)
    slot_bar = min(error_bar, max(
        final.slot_bar, choose_tool_bar(benign, detector, error_rate, bar="slot")))
    warning_bar = max(final.warning_bar, choose_tool_bar(
        benign, replace(detector, slot_bar=error_bar), warning_rate, bar="warning"))
    detector = replace(detector, warning_bar=warning_bar, slot_bar=max(slot_bar, warning_bar))
    if oof_path:  # each fit tool's out-of-fold verdicts: bars can be studied without a refit
        Path(oof_path).parent.mkdir(parents=True, exist_ok=True)
        Path(oof_path).write_text("".join(
            json.dumps({"repo": t.repo, "tool": t.card.tool_id, "poisoned": t.poisoned,
                        "level": tool_level(vs, detector),
                        "verdicts": [[v.path, round(v.attack, 5), v.attack_class,
                                      v.in_value_slot, len(v.sentence.split())]
                                     for v in vs]}) + "\n"
            for t, vs in zip(tools, oof, strict=True)))
    levels = [tool_level(vs, detector) for vs in oof]
    held_out = held_out_summary([
        held_out_verdict(t, rules.level, 0 if t.refused else level)
        for t, rules, level in zip(tools, judge_rules(tools), levels, strict=True)
    ])
    if report_path:
        Path(report_path).parent.mkdir(parents=True, exist_ok=True)
        Path(report_path).write_text(render_source_table(held_out, folds=params.public_folds))
    bad = [lv for lv, t in zip(levels, tools, strict=True) if t.poisoned and not t.refused]
    good = [lv for lv, t in zip(levels, tools, strict=True) if not t.poisoned and not t.refused]
    report.update(
        {
            "sentence_error_bar": report["error_bar"],
            "sentence_warning_bar": report["warning_bar"],
            "error_bar": round(detector.error_bar, 4),
            "warning_bar": round(detector.warning_bar, 4),
            "slot_bar": round(detector.slot_bar, 4),
            "public": {
                "corpus": corpus.directory,
                "corpus_sha256": corpus.sha256,
                "fit_sources": fit_repos,
                "judging_sources": judge_repos,
                "n_fit_tools": len(tools),
                "n_refused": sum(bool(t.refused) for t in tools),
                "n_localized_attack_sentences": len(attacks),
                "n_guidance_sentences": sum(x.label == GUIDANCE for x in safe),
                # out of fold, by meaning alone, at the chosen bars
                "oof_poisoned_at_error": _share(lv == 2 for lv in bad),
                "oof_poisoned_warned": _share(lv >= 1 for lv in bad),
                "oof_benign_tools_at_error": _share(lv == 2 for lv in good),
                "oof_benign_tools_warned": _share(lv >= 1 for lv in good),
                # out of fold, the whole lint (rules and meaning) as the gateway runs it
                "held_out_lint": {k: v for k, v in held_out.items() if k != "by_source"},
            },
        }
    )
    return detector, report


def _share(flags: Any) -> float:
    items = list(flags)
    return round(sum(items) / len(items), 4) if items else 0.0


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help=f"params.yaml (section `{SECTION}`)")
    parser.add_argument("catalog", help="clean tool cards, JSONL: benign sentences")
    parser.add_argument("out", help="the detector file (`.json`, or `.json.gz` as shipped)")
    parser.add_argument("metrics", help="metrics JSON")
    parser.add_argument(
        "--public", metavar="DIR",
        help="the public corpus (poisoned.jsonl, benign.jsonl; ../shared/security): its fit "
        "sources join the fit and set the bars by tool; its judging sources are never read",
    )
    parser.add_argument(
        "--oof", metavar="FILE", help="with --public: write each fit tool's out-of-fold "
        "sentence verdicts here (JSONL; they quote public text: keep it out of the repo)",
    )
    parser.add_argument(
        "--report", metavar="FILE", help="with --public: the whole lint's out-of-fold "
        "verdicts by class and by source, markdown (counts and tool ids only)",
    )
    parser.add_argument(
        "--cache", metavar="DIR", default="models/.embedding_cache",
        help="sentence vectors kept between fits (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    cards = load_catalog(args.catalog, strict=True).items
    encoder = CachedEncoder(Encoder(stock_model_path()), args.cache)
    train_texts, train_benign, left_out = fit_corpus()
    fit = partial(
        fit_detector,
        encoder,
        params,
        train_texts=train_texts,
        train_benign=train_benign,
        valid_texts=VALIDATION_TEXTS,
        valid_benign=VALIDATION_BENIGN + BENIGN_VALIDATION,
        cards=cards,
        real_fit=sample_sentences(botocore_docs(), params.real_fit_sentences, params.seed)
        + sample_sentences(botocore_operation_names(), params.real_fit_names, params.seed)
        + sample_sentences(python_docstrings(), params.real_fit_docstrings, params.seed),
        real_valid=sample_sentences(
            google_discovery_docs(), params.real_valid_sentences, params.seed
        ),
        real_slots=value_slot_texts(),
    )
    guidance = load_guidance()
    try:
        if args.public:
            detector, report = fit_with_public(
                fit, encoder, params, args.public, guidance, args.oof, args.report
            )
        else:
            detector, report = fit(extra_fit=guidance)
    finally:
        encoder.save()
    detector.save(args.out)
    report["n_fit_texts_left_out_as_judging"] = left_out
    report["n_own_guidance_sentences"] = len(guidance)
    report["real_corpus_versions"] = corpus_versions()
    report["seconds"] = round(time.perf_counter() - t0, 1)
    write_metrics(args.metrics, report)
    print(
        f"train_lint: {report['n_fit_sentences']} sentences fit; bars error "
        f"{report['error_bar']:.3f} / slot {report['slot_bar']:.3f} / warning "
        f"{report['warning_bar']:.3f}; held-out styles "
        f"caught {report['valid_attack_caught_at_error']:.1%} at error with "
        f"{report['valid_benign_error_rate']:.2%} of benign sentences -> {args.out} in "
        f"{report['seconds']:.0f}s"
    )


if __name__ == "__main__":
    main()

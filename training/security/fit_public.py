"""What the public corpus adds to the detector's fit, and bars chosen on real tools.

- `public_safe_sentences`: every sentence of the public benign tools of the fit sources,
  labelled `guidance` when it speaks to the model about the call (`GUIDANCE_CUE`: when to
  use this tool, ask or confirm with the user, "you must pass ...", notes to the model)
  and `benign` otherwise;
- `localize_attacks`: a poisoned tool's payload is a sentence or two inside ordinary
  text, so only the sentences a first detector (fit without any public attack) scores
  highest in the tool are labelled with the tool's attack class; the rest of the tool is
  left out of the fit (neither attack nor benign);
- `tool_level` and `choose_tool_bar`: the lint judges tools, so the error and warning
  bars are also chosen on out-of-fold verdicts of real benign tools, by tool: the lowest
  bar at which at most a given share of them would be quarantined (or warned).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from serving.bundle.encoder import TextEncoder
from serving.catalog.meaning import (
    ATTACK_CLASSES,
    BENIGN,
    GUIDANCE,
    MeaningDetector,
    SentenceVerdict,
    card_sentences,
    judge_cards,
    verdict_level,
)
from training.security.lint_detector import Labeled
from training.security.public_tools import PublicTool

# text that speaks to the model about this call: guidance, not description. Matched on
# benign text only (it labels, it never flags): what an attack says beyond the call is
# the attack classes' job.
GUIDANCE_CUE = re.compile(
    r"\b(?:when|whenever)\s+to\s+use\b|\bwhen\s+not\s+to\s+use\b|\buse\s+(?:this|it)\b"
    r"|\b(?:use|call|prefer|run|invoke)\s+(?:the\s+)?`?[\w.-]+`?\s+(?:tool\s+)?(?:first|"
    r"before|after|instead)\b|\bask\s+(?:the\s+)?user\b|\bconfirm\b|\bwith\s+the\s+user\b"
    r"|\byou\s+(?:must|should|need\s+to|can|may|will\s+need)\b|\bdo\s+not\b|\bdon't\b"
    r"|\bnever\b|\balways\b|\bimportant\b|\bnote\s+(?:to|for)\b|\b(?:llm|assistant|agent)s?\b"
    r"|\bbefore\s+(?:calling|using|running)\b|\bif\s+you\b|\bprefer\b|\bonly\s+use\b",
    re.IGNORECASE,
)
# the corpus's classes that the detector has; `other` (bare obfuscation: zero-width runs,
# base64 blobs) has no sentence to learn and is the exact rules' job
FIT_CLASSES = frozenset(ATTACK_CLASSES)


def public_safe_sentences(tools: Sequence[PublicTool]) -> list[Labeled]:
    """The benign tools' sentences, each once, as guidance or benign."""
    seen: dict[str, str] = {}
    for tool in tools:
        if tool.poisoned or tool.refused:
            continue
        for _, sentence in card_sentences(tool.card):
            if sentence not in seen:
                seen[sentence] = GUIDANCE if GUIDANCE_CUE.search(sentence) else BENIGN
    return [Labeled(s, label) for s, label in seen.items()]


def judge_tools(
    tools: Sequence[PublicTool], encoder: TextEncoder, detector: MeaningDetector
) -> list[list[SentenceVerdict]]:
    """Each tool's sentence verdicts, in input order (tools judged by position: two
    corpus records may share a tool id)."""
    cards = [replace(t.card, tool_id=f"{t.card.server}.#{i}") for i, t in enumerate(tools)]
    out: list[list[SentenceVerdict]] = [[] for _ in tools]
    for v in judge_cards(cards, encoder, detector):
        out[int(v.tool_id.rsplit("#", 1)[1])].append(v)
    return out


def localize_attacks(
    tools: Sequence[PublicTool],
    detector: MeaningDetector,
    encoder: TextEncoder,
    *,
    min_attack: float,
) -> list[tuple[str, Labeled]]:
    """(repository, sentence) for each poisoned tool's most suspect sentence and every
    other one at `min_attack` or more, labelled with the tool's class (tools of classes
    the detector lacks left out)."""
    poisoned = [t for t in tools if t.poisoned and not t.refused and t.attack_class in FIT_CLASSES]
    out: dict[str, tuple[str, Labeled]] = {}
    for tool, verdicts in zip(poisoned, judge_tools(poisoned, encoder, detector), strict=True):
        ranked = sorted(verdicts, key=lambda v: -v.attack)
        for rank, v in enumerate(ranked):
            if rank == 0 or v.attack >= min_attack:
                out.setdefault(v.sentence, (tool.repo, Labeled(v.sentence, tool.attack_class)))
    return list(out.values())


def tool_level(verdicts: Sequence[SentenceVerdict], detector: MeaningDetector) -> int:
    """The level the check by meaning gives one tool: its most severe sentence's."""
    return max((verdict_level(v, detector) for v in verdicts), default=0)


def choose_tool_bar(
    tools: Sequence[Sequence[SentenceVerdict]],
    detector: MeaningDetector,
    max_rate: float,
    *,
    bar: str,
) -> float:
    """The lowest `bar` ("error", "slot" or "warning") at which at most `max_rate` of
    `tools` (each a benign tool's sentence verdicts) reach its level (error for the error
    and slot bars, warning for the warning bar); the other bars of `detector` are kept,
    except that the bars stay ordered (warning <= slot <= error). Worked: two tools whose
    top sentences score 0.9 and 0.4, rate 0.5 -> one may reach the error bar -> it sits
    just above 0.4; rate 0 -> just above 0.9. The error bar is chosen on prose, the slot
    bar on value slots (`SentenceVerdict.in_value_slot`), the warning bar on both."""
    level = 1 if bar == "warning" else 2

    def barred(value: float) -> MeaningDetector:
        value = min(1.0, value)
        if bar == "error":
            return replace(detector, error_bar=value, slot_bar=min(detector.slot_bar, value),
                           warning_bar=min(detector.warning_bar, value))
        if bar == "slot":
            value = min(max(value, detector.warning_bar), detector.error_bar)
            return replace(detector, slot_bar=value)
        return replace(detector, warning_bar=min(value, detector.slot_bar))

    # the error bar judges prose, the slot bar value slots, the warning bar both
    def counted(v: SentenceVerdict) -> bool:
        return bar == "warning" or v.in_value_slot == (bar == "slot")

    kept = [[v for v in vs if counted(v)] for vs in tools]

    def flagged(value: float) -> int:
        bars = barred(value)
        return sum(tool_level(vs, bars) >= level for vs in kept)

    budget = int(max_rate * len(tools))
    scores = {v.attack for vs in kept for v in vs}
    lowest = 1e-6
    for score in sorted(scores, reverse=True):  # the first score over budget sets the bar
        if flagged(float(score)) > budget:
            lowest = float(np.nextafter(np.float32(score), np.float32(2.0)))
            break
    else:
        lowest = float(min(scores)) if scores else lowest
    chosen = barred(lowest)
    return {"error": chosen.error_bar, "slot": chosen.slot_bar}.get(bar, chosen.warning_bar)

"""Tokenisation for BM25 and the prompt-token estimate used for disclosure costs."""

from __future__ import annotations

import json
import re
from typing import Any

_WORD = re.compile(r"[a-z0-9]+")
_PIECE = re.compile(r"\w{1,4}|[^\w\s]", re.UNICODE)
STOPWORDS = frozenset(
    "a an the and or of to in on for with by at from is are was were be been it its this that "
    "these those me my our we us you your i can could would should please do does did what "
    "which who how when where why all any some into about than then so if as".split()
)


def _stem(token: str) -> str:
    # A light plural fold so "commits" meets "commit"; real stemmers merge too much
    # for identifiers ("status" -> "statu" stays apart from "stat").
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Lowercase alphanumeric runs, stopwords out, plurals folded.

    Identifiers split on punctuation, so `github.search_code` gives github, search, code.
    """
    return [_stem(t) for t in _WORD.findall(text.lower()) if t not in STOPWORDS]


def estimate_tokens(value: Any) -> int:
    """Approximate LLM prompt tokens: one per run of up to 4 word characters or per symbol.

    BPE vocabularies split English at roughly 4 characters a token. The estimate is rough
    but the same for a menu and for the whole catalog, which is what the comparison needs,
    and it needs no tokenizer download.
    """
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return len(_PIECE.findall(text))


def request_text(value: object, argument: str) -> str:
    """A request (or query) as text the tokenizers can take: `TypeError` naming the
    argument when it is not a string; lone surrogates (bytes that were not UTF-8 on a
    command line arrive as `\\udcxx`) replaced by U+FFFD, never passed on."""
    if not isinstance(value, str):
        raise TypeError(f"{argument}: expected a string, got {type(value).__name__}")
    if _SURROGATES.search(value):
        return _SURROGATES.sub("\ufffd", value)
    return value


_SURROGATES = re.compile("[\ud800-\udfff]")

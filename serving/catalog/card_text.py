"""The text on a card as a model reads it: hidden characters, normalisation, locations.

Text is normalised before any rule matches it (NFKC, hidden characters dropped,
whitespace collapsed), so an instruction split by zero-width spaces still matches.
`HIDDEN_CLASSES` lists what counts as hidden: zero-width, bidi controls, tag characters,
other invisibles, and C0/C1 controls other than tab and newline.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from serving.model.schema import ToolCard

# --- hidden characters and normalisation ----------------------------------------------

HIDDEN_CLASSES: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("zero_width", ((0x200B, 0x200F), (0x2060, 0x2064), (0xFEFF, 0xFEFF))),
    ("bidi_control", ((0x202A, 0x202E), (0x2066, 0x2069), (0x061C, 0x061C))),
    ("tag", ((0xE0000, 0xE007F),)),
    (
        "other_invisible",
        (
            (0x00AD, 0x00AD),
            (0x034F, 0x034F),
            (0x115F, 0x1160),
            (0x17B4, 0x17B5),
            (0x180B, 0x180E),
            (0x3164, 0x3164),
            (0xFFA0, 0xFFA0),
            (0xE0100, 0xE01EF),
        ),
    ),
    ("control", ((0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F), (0x7F, 0x9F))),
)


HIDDEN_RE = re.compile(
    "[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for _, rs in HIDDEN_CLASSES for lo, hi in rs) + "]"
)


def hidden_class(ch: str) -> str | None:
    cp = ord(ch)
    for name, ranges in HIDDEN_CLASSES:
        if any(lo <= cp <= hi for lo, hi in ranges):
            return name
    return None


def strip_hidden(text: str) -> str:
    return HIDDEN_RE.sub("", text)


def normalize_text(text: str) -> str:
    """NFKC, hidden characters out, whitespace collapsed: the text as a model 'reads' it."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", strip_hidden(text))).strip()


def decode_tags(text: str) -> str:
    """Unicode tag characters spell ASCII (U+E0041 = 'A'): what a hidden tag run says."""
    return "".join(chr(ord(ch) - 0xE0000) for ch in text if 0xE0020 <= ord(ch) <= 0xE007E)


# --- where text lives on a card -------------------------------------------------------


def _schema_strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, sub in value.items():
            yield f"{path}.{key}#key", str(key)
            yield from _schema_strings(sub, f"{path}.{key}")
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _schema_strings(sub, f"{path}[{i}]")


def _model_read(value: Any, path: str) -> list[tuple[str, str]]:
    """The strings of a schema or annotation object a model reads: every string value and
    every property name (`<path>.properties.<name>.name`: a name can carry an instruction
    as well as a description can); other keys are the schema's own vocabulary."""
    out = []
    for p, t in _schema_strings(value, path):
        if not p.endswith("#key"):
            out.append((p, t))
        elif p.removesuffix(f".{t}#key").endswith(".properties"):
            out.append((f"{p.removesuffix('#key')}.name", t))
    return out


def model_text(card: ToolCard) -> list[tuple[str, str]]:
    """(field path, text) for every piece of prose the model may read: summary,
    description, title, examples, every string of `annotations`, and the strings and
    property names of the input and output schemas (`$defs` included)."""
    out = [("summary", card.summary), ("description", card.description)]
    out += [("title", card.title)]
    out += [(f"examples[{i}]", t) for i, t in enumerate(card.examples)]
    out += [(f"not_for[{i}]", t) for i, t in enumerate(card.not_for)]
    out += _model_read(card.annotations, "annotations")
    out += _model_read(card.input_schema, "input_schema")
    out += _model_read(card.output_schema, "output_schema")
    return [(p, t) for p, t in out if t]


def all_strings(card: ToolCard) -> list[tuple[str, str]]:
    """Every string on the card, identifiers and schema keys included."""
    out = [
        ("tool_id", card.tool_id),
        ("server", card.server),
        ("domain", card.domain),
        ("name", card.name),
        ("owner", card.owner),
        ("requires.connection", card.requires.connection),
    ]
    for field_name in ("capabilities", "entities", "input_concepts", "prefer_over", "env"):
        out += [(f"{field_name}[{i}]", t) for i, t in enumerate(getattr(card, field_name))]
    out += [(f"requires.scopes[{i}]", t) for i, t in enumerate(card.requires.scopes)]
    out += [
        (p.removesuffix("#key"), t) for p, t in _schema_strings(card.input_schema, "input_schema")
    ]
    out += [(p, t) for p, t in model_text(card) if not p.startswith("input_schema")]
    return out


def excerpt(text: str, limit: int = 100) -> str:
    """The normalised text, cut to `limit` characters for a finding's message."""
    text = normalize_text(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."

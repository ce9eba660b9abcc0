"""Rendering requests: templates filled with slot values shared within one request.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from datetime import date

from training.demo.phrasing import Templates
from training.demo.spec import Tool
from training.demo.values import VALUES

# --- rendering requests ---------------------------------------------------------------------

PHRASE_KINDS = frozenset({"obj", "objs", "hay", "q", "qry", "new", "change", "dest", "msg", "upl"})
_FORMATTER = string.Formatter()


class Values(dict):
    """Slot values drawn on first use, so the subgoals of one request share them.

    A slot ending in "2" (tag2, email2) draws from its base slot, avoiding the base's value.
    """

    def __init__(self, rng: random.Random, day0: date) -> None:
        super().__init__()
        self._rng = rng
        self._day0 = day0

    def __missing__(self, key: str) -> str:
        base = key[:-1] if key.endswith("2") and key not in VALUES else key
        gen = VALUES.get(base)
        if gen is None:
            raise KeyError(f"no example values for slot {{{key}}}")
        if callable(gen):
            value = gen(self._rng, self._day0)
        else:
            options = [v for v in gen if base == key or v != self[base]] or list(gen)
            value = self._rng.choice(options)
        if "{" in value:
            value = value.format_map(self)
        self[key] = value
        return value


class _Local(dict):
    """One subgoal's phrases over the request's shared values."""

    def __init__(self, values: Values) -> None:
        super().__init__()
        self._values = values

    def __missing__(self, key: str) -> str:
        return self._values[key]


def _fields_of(template: str) -> list[str]:
    return [f for _, f, _, _ in _FORMATTER.parse(template) if f]


def render(t: Tool, templates: Templates, style: str, values: Values,
           rng: random.Random) -> str:
    """One subgoal for tool `t` in `style`, from the given template family."""
    template = rng.choice(templates[t.op][style])
    local = _Local(values)
    for name in _fields_of(template):
        if name in PHRASE_KINDS and name not in local:
            local[name] = rng.choice(t.entity.phrase(name, t.op)).format_map(values)
    return " ".join(template.format_map(local).split())


def mention(text: str, product: str, forms: Sequence[str], rng: random.Random) -> str:
    form = rng.choice(forms)
    if form.startswith("{text}") and text.endswith("?"):
        return form.format(text=text[:-1], product=product) + "?"
    return form.format(text=text, product=product)


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def join_parts(parts: Sequence[str], forms: Mapping[int, Sequence[str]], rng: random.Random) -> str:
    if len(parts) == 1:
        return parts[0]
    kw = {}
    for key, part in zip("abc", parts, strict=False):
        kw[key], kw[key.upper()] = part, _cap(part)
    return rng.choice(forms[len(parts)]).format(**kw)

"""Command-line helpers the jobs share."""

from __future__ import annotations

from collections.abc import Sequence


def named_values(pairs: Sequence[str], flag: str) -> dict[str, str]:
    """`NAME=VALUE` command-line pairs as a dict; a malformed one exits naming `flag`."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise SystemExit(f"{flag} {pair!r}: expected NAME=VALUE")
        out[name] = value
    return out

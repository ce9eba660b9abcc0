"""Shadowing: untrusted tools that imitate a trusted one, and unmarked near-duplicates.

- `shadowing`: a tool on an untrusted server (trust third_party, or a server outside
  `first_party_servers` when that is given) whose server imitates a first-party server
  (equal once case, separators, homoglyphs and digits-as-letters are folded; within
  `shadow_max_distance` edits, 1 for names of 4 letters or fewer; starting with the
  first-party name, as in `github_tools`, or containing it when it has 5+ letters) and
  whose tool name is the same or confusable with a tool there (no such tool:
  `server_imitation`); or whose tool name names a first-party product it is not
  (`devtools.github_list_commits`; in the summary or description only, a warning:
  `product_claim`, since third-party tools often work with first-party products). Two
  products sharing a tool name and summary (`discord.delete_message`,
  `slack.delete_message`) is normal in real catalogs and is left to the near-duplicate
  check: by text alone a competitor and an imitator cannot be told apart.
- `near_duplicate`: two tools on different servers whose index texts embed within
  `near_duplicate_threshold` (cosine) and whose cards say nothing (`not_for`,
  `prefer_over`) to tell them apart. Needs an encoder.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from serving.catalog.card_text import normalize_text, strip_hidden
from serving.catalog.findings import Finding, LintConfig, finding
from serving.catalog.quality_rules import COMMON_WORDS
from serving.model.schema import ToolCard
from serving.model.vocab import name_words

if TYPE_CHECKING:
    from serving.bundle.encoder import TextEncoder

_LETTERS = re.compile(r"[A-Za-z]+")

# --- names that look alike ------------------------------------------------------------

# Letters that render like Latin ones (NFKC already folds full-width forms) and digits
# used as letters. Both sides of a comparison are folded the same way.
CONFUSABLES: Mapping[str, str] = {
    **dict(zip("аеорсухіјѕԁɡһԛԝvνοαρτκιυ", "aeopcyxijsdghqwvvoaptkiu", strict=True)),
    **dict(zip("АВЕКМНОРСТХІЈЅ", "abekmhopctxijs", strict=True)),
    **dict(zip("0135@$", "olesas", strict=True)),
    "ı": "i",
    "ł": "l",
    "ß": "ss",
}


def fold_identifier(text: str) -> str:
    """Case, separators, homoglyphs and digits-as-letters folded: `GitHub_Tools` ->
    `githubtools`, `gіthub` (Cyrillic i) -> `github`, `g1thub` -> `glthub`."""
    text = unicodedata.normalize("NFKC", strip_hidden(text)).casefold()
    text = "".join(CONFUSABLES.get(ch, ch) for ch in text)
    text = "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)
    )
    return re.sub(r"[\W_]+", "", text).replace("rn", "m").replace("vv", "w")


def edit_distance(a: str, b: str, limit: int | None = None) -> int:
    """Levenshtein distance; stops early (returning limit + 1) once it exceeds `limit`."""
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if limit is not None and min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def _max_distance(a: str, config: LintConfig) -> int:
    return 1 if len(a) <= 4 else config.shadow_max_distance


def confusable(a: str, b: str, config: LintConfig) -> bool:
    """Same after folding, or within the edit budget of the shorter name."""
    fa, fb = fold_identifier(a), fold_identifier(b)
    if not fa or not fb:
        return False
    if fa == fb:
        return True
    budget = _max_distance(min(fa, fb, key=len), config)
    return edit_distance(fa, fb, budget) <= budget


def imitates_server(candidate: str, trusted: str, config: LintConfig) -> bool:
    """`githhub`, `gіthub`, `git-hub`, `github_tools`, `official_github` imitate `github`."""
    fc, ft = fold_identifier(candidate), fold_identifier(trusted)
    if (len(ft) >= 3 and fc.startswith(ft)) or (len(ft) >= 5 and ft in fc):
        return True
    return confusable(candidate, trusted, config)


# --- tools that imitate a trusted one -------------------------------------------------


def trusted_servers(
    cards: Sequence[ToolCard], first_party_servers: Iterable[str] | None
) -> set[str]:
    if first_party_servers is not None:
        return set(first_party_servers)
    return {c.server for c in cards if c.trust == "first_party"}


def brand_words(cards: Sequence[ToolCard], trusted: set[str]) -> dict[str, set[str]]:
    """Distinctive words of trusted server names -> the servers they name.

    `github_actions` gives `github`; a word is dropped when it is a common word, shorter
    than 4 letters, or when a trusted server that it does not name uses it in its own
    summaries or descriptions (then it is vocabulary, like `logs`, not a product).
    """
    owners: dict[str, set[str]] = {}
    for server in trusted:
        for word in name_words(server):
            if len(word) >= 4 and word not in COMMON_WORDS:
                owners.setdefault(word, set()).add(server)
    used_by: dict[str, set[str]] = {}
    for card in cards:
        if card.server not in trusted:
            continue
        for word in {w.lower() for w in _LETTERS.findall(f"{card.summary} {card.description}")}:
            if word in owners:
                used_by.setdefault(word, set()).add(card.server)
    return {w: s for w, s in owners.items() if not (used_by.get(w, set()) - s)}


def shadowing_findings(
    cards: Sequence[ToolCard],
    *,
    first_party_servers: Iterable[str] | None = None,
    config: LintConfig | None = None,
) -> list[Finding]:
    """Untrusted tools that imitate a first-party tool's identity.

    Identity is the server: an untrusted server whose name imitates a trusted one
    (`githhub`, `gіthub` with a Cyrillic i, `github_tools`) shadows every trusted tool of
    the same or a confusable name there (`shadowing`), and is flagged even without one
    (`server_imitation`). Text claims count too: an untrusted tool whose name, summary or
    description names a trusted product it is not (`GitHub` on server `devtools`).
    Similar summaries alone are not shadowing: competing products describe the same
    operation alike (`discord.delete_message`, `slack.delete_message`); those pairs are
    near-duplicates, for `not_for` / `prefer_over`.
    """
    config = config or LintConfig()
    trusted = trusted_servers(cards, first_party_servers)
    explicit = first_party_servers is not None
    by_server: dict[str, list[ToolCard]] = {}
    for card in cards:
        by_server.setdefault(card.server, []).append(card)
    untrusted = [
        c for c in cards if c.server not in trusted and (explicit or c.trust == "third_party")
    ]
    brands = brand_words(cards, trusted)
    out: list[Finding] = []
    imitated = {
        server: [t for t in sorted(trusted) if imitates_server(server, t, config)]
        for server in sorted({c.server for c in untrusted})
    }
    for card in untrusted:
        for server in imitated[card.server]:
            twins = [f for f in by_server.get(server, []) if confusable(card.name, f.name, config)]
            for twin in twins:
                out.append(
                    finding(
                        card.tool_id,
                        "shadowing",
                        f"imitates first-party {twin.tool_id}: server {card.server!r} looks "
                        f"like {server!r} and the name matches",
                        "a third-party tool posing as a trusted one; remove it or rename "
                        "server and tool so nobody can mistake them",
                    )
                )
            if not twins:
                out.append(
                    finding(
                        card.tool_id,
                        "server_imitation",
                        f"server {card.server!r} imitates first-party server {server!r}",
                        "third-party servers must not borrow a trusted server's name",
                    )
                )
        if imitated[card.server]:
            continue
        own = set(name_words(card.server))
        in_name = set(name_words(card.name)) & set(brands) - own
        text = normalize_text(f"{card.summary} {card.description}")
        in_text = {w.lower() for w in _LETTERS.findall(text)} & set(brands) - own - in_name
        for claimed, code in ((in_name, "shadowing"), (in_text, "product_claim")):
            if not claimed:
                continue
            servers = sorted({s for w in claimed for s in brands[w]})
            where = "its name" if code == "shadowing" else "its summary or description"
            out.append(
                finding(
                    card.tool_id,
                    code,
                    f"{where} names first-party product {', '.join(sorted(claimed))} "
                    f"(server {', '.join(servers)}) but it lives on third-party server "
                    f"{card.server!r}",
                    "a third-party tool must not present itself as a trusted product; "
                    "check that it only works with that product, and say so in not_for",
                )
            )
    return out


# --- near-duplicates (embeddings) -----------------------------------------------------


def _annotated(a: ToolCard, b: ToolCard) -> bool:
    if b.tool_id in a.prefer_over or a.tool_id in b.prefer_over:
        return True
    return any(b.tool_id in t for t in a.not_for) or any(a.tool_id in t for t in b.not_for)


def near_duplicate_findings(
    cards: Sequence[ToolCard], encoder: TextEncoder, config: LintConfig | None = None
) -> list[Finding]:
    """Pairs on different servers whose index texts embed within the threshold and whose
    cards say nothing (not_for / prefer_over) to tell them apart."""
    import numpy as np

    config = config or LintConfig()
    if len(cards) < 2:
        return []
    vectors = encoder.encode([c.index_text() for c in cards])
    servers = np.asarray([c.server for c in cards])
    out = []
    block = max(1, min(len(cards), (1 << 24) // len(cards)))  # ~64 MB of similarities
    for start in range(0, len(cards), block):
        sims = vectors[start : start + block] @ vectors.T
        rows, cols = np.nonzero(sims >= config.near_duplicate_threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c <= i or servers[i] == servers[c]:
                continue
            a, b = cards[i], cards[c]
            if _annotated(a, b):
                continue
            first, second = sorted((a, b), key=lambda x: x.tool_id)
            out.append(
                finding(
                    first.tool_id,
                    "near_duplicate",
                    f"near-duplicate of {second.tool_id} (cosine {float(sims[r, c]):.3f}) "
                    "with nothing on either card to tell them apart",
                    "add not_for (when to use the other) or prefer_over to one of them",
                )
            )
    return out

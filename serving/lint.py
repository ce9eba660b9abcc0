"""`toolsift lint`: catalog quality and security findings.

Tool descriptions are attacker-controlled text that the model reads, so the linter looks
for text that steers the model, characters the reviewer cannot see, tools that imitate a
trusted one, and (with an approval ledger) descriptions that changed after review. It
also flags cards that retrieve badly: missing or implementer-voice summaries, cryptic
descriptions, unannotated near-duplicates.

Every finding has a code with a fixed severity (`SEVERITY`); `toolsift lint` exits 1 when
any finding is an error. Errors are what must not ship (security findings, cards a model
cannot call correctly); warnings need a human look; info notes what was skipped or
derived.

Rules worth knowing:
- Text is normalised before matching (NFKC, hidden characters dropped, whitespace
  collapsed), so an instruction split by zero-width spaces still matches. Output escapes
  every non-printable character: findings quote attacker text.
- `hidden_characters`: the classes of `HIDDEN_CLASSES` (zero-width, bidi controls, tag
  characters, other invisibles, C0/C1 controls other than tab and newline) anywhere on
  the card, identifiers and schema keys included; tag characters are decoded.
- `encoded_blob`: a base64 run of `blob_min_chars`+ with lower, upper and digits and
  >= 4 bits/char entropy, or a hex run of `hex_min_chars`+; an error when it decodes to
  text, a warning when opaque (hashes, keys).
- `description_cryptic`: the description (or the summary when there is none) has fewer
  than `cryptic_min_words` words, or at least `cryptic_unknown_share` of its words are
  unknown. A word of 4 letters or fewer is known only when `COMMON_WORDS` (a few hundred
  short English and technical words below) or a server name holds it (`rd`, `idx`, `chg`
  are abbreviations; `sql`, `dns`, `repo` are listed). A longer word is known when it has
  a vowel and is not a truncation of a longer word in the catalog's own vocabulary
  (summaries, descriptions, names, schema property names): `visibi` (visibility) and
  `langua` (language) are unknown, `deploy` (deployment) is known. Ticket references
  (`OPS-123`) count as unknown words; code spans, URLs, paths and short tokens with
  digits (`v1`, `P2`) are ignored.
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
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serving.importers import implementer_phrase, name_words
from serving.schema import ToolCard

if TYPE_CHECKING:
    from serving.encoder import Encoder

CATALOG = "<catalog>"  # tool_id of findings about the whole catalog
SEVERITIES = ("error", "warning", "info")

SEVERITY: Mapping[str, str] = {
    # security
    "injected_instruction": "error",
    "hidden_characters": "error",
    "encoded_blob": "error",  # warning when the blob does not decode to text
    "url_in_text": "warning",
    "shadowing": "error",
    "server_imitation": "error",
    "product_claim": "warning",
    "confusable_characters": "error",
    "changed_after_approval": "error",
    "not_approved": "warning",
    # quality
    "card_invalid": "error",
    "schema_required_unknown": "error",
    "prefer_over_cycle": "error",
    "prefer_over_unknown": "warning",
    "summary_missing": "warning",
    "summary_too_long": "warning",
    "summary_implementer_voice": "warning",
    "description_cryptic": "warning",
    "near_duplicate": "warning",
    "owner_missing": "warning",
    "param_undocumented": "warning",
    "examples_missing": "info",
    "risk_derived": "info",
    "near_duplicate_skipped": "info",
}
SECURITY_CODES = frozenset(
    {
        "injected_instruction",
        "hidden_characters",
        "encoded_blob",
        "url_in_text",
        "shadowing",
        "server_imitation",
        "product_claim",
        "confusable_characters",
        "changed_after_approval",
        "not_approved",
    }
)


@dataclass(frozen=True, slots=True)
class Finding:
    tool_id: str
    code: str
    severity: str
    message: str
    hint: str = ""

    @property
    def security(self) -> bool:
        return self.code in SECURITY_CODES

    def to_dict(self) -> dict[str, str]:
        return {
            "tool_id": self.tool_id,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


def finding(
    tool_id: str, code: str, message: str, hint: str = "", *, severity: str | None = None
) -> Finding:
    return Finding(tool_id, code, severity or SEVERITY[code], message, hint)


@dataclass(frozen=True, slots=True)
class LintConfig:
    max_summary_chars: int = 120
    near_duplicate_threshold: float = 0.93  # cosine of index_text embeddings
    cryptic_min_words: int = 4
    cryptic_unknown_share: float = 0.25
    blob_min_chars: int = 40  # base64 runs at least this long
    hex_min_chars: int = 48
    shadow_max_distance: int = 2
    encode_batch_size: int = 64


# --- text normalisation and hidden characters --------------------------------------------

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


# --- where text lives on a card ----------------------------------------------------------


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


def model_text(card: ToolCard) -> list[tuple[str, str]]:
    """(field path, text) for every piece of prose the model may read."""
    out = [("summary", card.summary), ("description", card.description)]
    out += [(f"examples[{i}]", t) for i, t in enumerate(card.examples)]
    out += [(f"not_for[{i}]", t) for i, t in enumerate(card.not_for)]
    out += [
        (p, t)
        for p, t in _schema_strings(card.input_schema, "input_schema")
        if not p.endswith("#key")
    ]
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


# --- security: injected instructions ----------------------------------------------------

_ACCESS = (
    r"(?:read|open|cat|load|access|collect|gather|include|send|pass|upload|exfiltrate|"
    r"extract|copy|append|attach|forward|leak|dump|paste|print|output|provide|share)"
)
_SECRET_WORDS = (
    r"(?:api[\s_-]?keys?|passwords?|passwd|secrets?|credentials?|private[\s_-]?keys?|"
    r"access[\s_-]?tokens?|auth[\s_-]?tokens?|bearer tokens?|ssh[\s_-]?keys?|"
    r"session[\s_-]?(?:tokens?|cookies?)|cookies)"
)
_EXFIL_VERBS = (
    r"(?:include|pass|send|upload|exfiltrate|copy|append|attach|forward|leak|dump|paste|"
    r"post|transmit|embed|put)"
)
INJECTION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        (
            "tells the model to ignore its instructions",
            r"\b(?:ignore|disregard|forget|override|bypass|overrule)\b[^.]{0,30}\b(?:previous|"
            r"prior|above|earlier|preceding|other|all|any|system|original|your)\b[^.]{0,20}"
            r"\b(?:instructions?|prompts?|rules|directions|guidelines|directives|messages)\b",
        ),
        (
            "demands to be called first",
            r"\b(?:always|must|should|need to)\s+(?:be\s+)?(?:call(?:ed)?|use[d]?|invoked?|"
            r"run)\b[^.]{0,40}\b(?:first|before (?:any|every|all|each|other|using|calling))"
            r"|\bbefore\s+(?:using|calling|invoking|running|you use|you call)\s+(?:any|other|"
            r"another|every|each|the other)\b[^.]{0,20}\b(?:tools?|functions?)\b"
            r"|\b(?:call|use|invoke|run)\s+this\s+(?:tool|function)\s+(?:first|before)\b",
        ),
        (
            "tells the model to hide things from the user",
            r"\b(?:do\s+not|don't|dont|never|must\s+not|should\s+not)\s+(?:tell|inform|"
            r"notify|mention|reveal|show|alert|disclose|let|explain)\b[^.]{0,25}\b(?:the\s+)?"
            r"users?\b|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?"
            r"users?\b|\b(?:hide|conceal|keep)\b[^.]{0,30}\bfrom\s+the\s+users?\b"
            r"|\bthe\s+users?\s+(?:must|should)\s+not\s+(?:know|see|be told|notice)\b",
        ),
        (
            "asks for credentials or secret files",
            r"~/?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials|/etc/(?:passwd|"
            r"shadow)\b|\.git-credentials|\bmcp\.json\b|\.cursor/|\.netrc\b"
            rf"|\b{_ACCESS}\b[^.]{{0,60}}(?<![\w.])\.env\b|\b{_ACCESS}\b[^.]{{0,60}}\.kube/config"
            rf"|\b{_EXFIL_VERBS}\b[^.]{{0,40}}\b(?:all|any|every|the user's|the users'|your|"
            rf"their|stored|saved|local)\b[^.]{{0,20}}\b{_SECRET_WORDS}\b"
            rf"|\b(?:read|collect|gather|extract)\b[^.]{{0,20}}\b(?:all|every|the user's|the "
            rf"users'|their|stored|saved|local)\b[^.]{{0,20}}\b{_SECRET_WORDS}\b",
        ),
        (
            "tells the model to send data to an address",
            r"\b(?:send|post|upload|forward|transmit|exfiltrate|report|copy|submit|leak|"
            r"mirror|beacon|sync)\b[^.]{0,80}\b(?:to|at)\s+(?:https?://|www\.|ftp://|"
            r"\d{1,3}(?:\.\d{1,3}){3}|[\w-]+\.[a-z]{2,}/)"
            r"|\b(?:to|at)\s+(?:the\s+)?(?:following|this|our|attacker|external|remote|"
            r"backup|logging)\s+(?:url|endpoint|webhook|server|address|host)\b",
        ),
        (
            "uses instruction tags",
            r"<\s*/?\s*(?:important|system|instructions?|admin|secret|hidden|critical|"
            r"assistant|prompt|sys|override|priority)\b[^>]{0,40}>|\[/?(?:INST|SYSTEM)\]"
            r"|<<\s*/?SYS\s*>>|<\|(?:im_start|im_end|system|endoftext)\|>",
        ),
        (
            "imitates a system prompt",
            r"(?:^|[.!]\s|\n)\s*(?:system|assistant|developer)\s*:\s"
            r"|\byou\s+are\s+now\b|\bsystem\s+prompt\b|\bnew\s+instructions?\s*:"
            r"|\b(?:developer|debug|god|jailbreak|maintenance|admin)\s+mode\s+(?:is\s+)?"
            r"(?:on|enabled|activated)\b|\byour\s+(?:new\s+|real\s+)?(?:task|instructions?|"
            r"goal|role|objective)\s+(?:is|are)\b|\bas\s+an\s+ai\s+(?:assistant|model)\b",
        ),
        (
            "tells the model to skip confirmation",
            r"\b(?:do\s+not|don't|never|no\s+need\s+to)\s+(?:ask|wait)\s+(?:the\s+user\s+)?"
            r"(?:for\s+)?(?:confirmation|permission|approval)\b"
            r"|\b(?:already|pre-?)\s*(?:approved|authori[sz]ed|confirmed)\s+by\s+the\s+user\b"
            r"|\bthe\s+user\s+has\s+(?:already\s+)?(?:approved|authori[sz]ed|consented)\b",
        ),
        (
            "steers the model away from other tools",
            r"\b(?:do\s+not|don't|never)\s+(?:use|call|invoke)\s+(?:any\s+)?(?:other|"
            r"the\s+[\w.]+)\s+(?:tools?|functions?)\b|\b(?:instead\s+of|rather\s+than)\s+"
            r"(?:using\s+)?(?:any\s+)?other\s+tools?\b|\bonly\s+(?:ever\s+)?use\s+this\s+tool\b",
        ),
    )
)


def injected_instructions(text: str) -> list[str]:
    """The labels of every injection rule the (normalised) text matches."""
    norm = normalize_text(text)
    return [label for label, rule in INJECTION_RULES if rule.search(norm)]


# --- security: blobs and URLs ------------------------------------------------------------

_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
_URL = re.compile(r"\bhttps?://[^\s)>\]\"'`]+|\bwww\.[\w-]+(?:\.[\w-]+)+[^\s)>\]\"'`]*", re.I)


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _printable_text(raw: bytes) -> str | None:
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in decoded)
    if decoded and printable / len(decoded) >= 0.95 and re.search(r"[A-Za-z]{3}", decoded):
        return decoded
    return None


def encoded_blobs(text: str, config: LintConfig) -> list[tuple[str, str | None]]:
    """(blob, decoded text or None) for base64/hex runs that look like encoded data."""
    out: list[tuple[str, str | None]] = []
    for m in _B64.finditer(text):
        run = m.group(0)
        body = run.rstrip("=")
        if len(body) < config.blob_min_chars or re.fullmatch(r"[0-9A-Fa-f]+", body):
            continue
        classes = sum(bool(re.search(p, body)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
        if classes < 3 or _entropy(body) < 4.0:
            continue  # identifiers and words run long too; encoded data is dense
        std = body.replace("-", "+").replace("_", "/")
        try:
            raw = base64.b64decode(std + "=" * (-len(std) % 4), validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        out.append((run, _printable_text(raw)))
    for m in _HEX.finditer(text):
        run = m.group(0)
        if len(run) < config.hex_min_chars:
            continue
        out.append((run, _printable_text(bytes.fromhex(run))))
    return out


# --- security: names ---------------------------------------------------------------------

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


# --- quality: cryptic text ---------------------------------------------------------------

COMMON_WORDS = frozenset(
    """
    a ab able about act add ads age ago aid aim air all also am an and any app apps are area
    arg args as ask at auth auto away back bad bar base be bed been best big bill bit blob
    blue body bold book boot both box bug bugs bulk busy but buy by call can card care case
    cell chat chip city code cold come comp copy core cost cpu cron cut dark dash data date
    day days dead deal deny desc diff dir disk do doc docs does done door down draw drop due
    dump duty each east easy edge edit else emit end ends env epic even ever every exit eye
    face fact fail fake far fast feed feel few file fill find fine fire firm fit five fix
    flag flow font food for form four free from fuel full fund gain game gap gate gave get
    gets give go goal goes gone good got grid grow half hand hard has hash have head help
    her here hide high hint his hit hold hole home hook host hour how huge idea idle if in
    info into is it item its job jobs join jump just keep kept key keys kind know lab lag
    land lane last late lead left less let life lift like limit line link list live load
    loan lock log logs long look loop lost lot low made mail main make many map maps mark
    mass max may me meal mean meet memo menu mere met mid min mind mine miss mode more most
    move much must my name near need new news next nice no node none nor not note now null
    odd of off ok old on once one only onto open or org out over own page paid pair part
    pass past path pay peak per pick pin ping pipe plan play plot plus poll pool port post
    pull push put quit race rank rate raw read real red ref refs rent rest rich role roll
    room root row rows rule run runs safe said sale same save say scan seat see seek seen
    self sell send sent set ship shop show shut side sign site size skip slot slow so soft
    some sort spam spec spot star stay step stop such sum sure sync tab tag tags tail take
    talk task team tell term test text than that the them then they this tier till time
    tiny tip to told too took top tool toy tree trip true try turn two type unit up upon
    url us use used user uses very via view vote wait walk wall want warm was way ways we
    web week well went were west what when who whom why wide will win with word work year
    yes yet you your zero zip zone
    acl ack acme ami api apis apm app arn aws az cdn ci cd cli cms cpu crm css csv db dm dms
    dns dsn eks gcp gke gpu hr html http id ids iam io ip ips iso jql js jwt k8s kms kv lb mb
    gb kb tb mfa ms oidc os pdf pid pr prs qa rbac rpc s3 saml sdk sha sku sla slas slo slos
    sms smtp sql ssh ssl sso svg tcp tls tos ttl tz ui uri url urls utc uuid vm vms vpc vpn
    xml yaml json repo repos org orgs spf wiki todo okta jira bing zoom helm coda argo
    acl apns etag grpc gql rest saas
    """.split()
)
_TICKET = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d+\b")
_CODE = re.compile(r"`[^`]*`|https?://\S+|www\.\S+|(?<!\w)/[\w{}/.\-:]+")
_LETTERS = re.compile(r"[A-Za-z]+")
_WITH_DIGITS = re.compile(r"\b[A-Za-z]{0,3}\d\w*\b")  # v1, P2, 5xx: versions and codes
_VOWEL = re.compile(r"[aeiouy]")
_ENDINGS = frozenset(
    "s es ed d ing er ers ly al ally ion ions ation ations ment ments ity ize ized able ness "
    "or ors ive ure ures ance ence".split()
)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What counts as a known word in this catalog (see the module docstring)."""

    short: frozenset[str]  # known words of 4 letters or fewer
    long_words: tuple[str, ...]  # the catalog's words of 6+ letters, sorted (truncations)

    @classmethod
    def of(cls, cards: Sequence[ToolCard]) -> Vocabulary:
        short: set[str] = set(COMMON_WORDS)
        words: set[str] = set()
        for card in cards:
            short.update(name_words(card.server))
            props = card.input_schema.get("properties")
            names = " ".join([card.name, *(props if isinstance(props, Mapping) else ())])
            text = f"{card.summary} {card.description} {names}"
            words.update(w for w in name_words(text) if len(w) >= 6 and w.isalpha())
        return cls(frozenset(short), tuple(sorted(words)))

    def known(self, word: str) -> bool:
        if word in self.short:
            return True
        if len(word) <= 4:
            return any(word.endswith(e) and word[: -len(e)] in self.short for e in ("s", "es"))
        if not _VOWEL.search(word):
            return False
        return not self._truncation(word)

    def _truncation(self, word: str) -> bool:
        """Is `word` the start of a longer catalog word, and not by a regular ending?"""
        n = len(word)
        i = bisect.bisect_left(self.long_words, word)
        while i < len(self.long_words) and self.long_words[i].startswith(word):
            rest = self.long_words[i][n:]
            if len(rest) >= 2 and rest not in _ENDINGS:
                return True
            i += 1
        return False

    def unknown_share(self, text: str) -> tuple[int, float]:
        """(number of words, share of them unknown) of a description."""
        tickets = len(_TICKET.findall(text))
        plain = _WITH_DIGITS.sub(" ", _CODE.sub(" ", _TICKET.sub(" ", text)))
        words = [w.lower() for w in _LETTERS.findall(plain)]
        n = len(words) + tickets
        if n == 0:
            return 0, 1.0
        unknown = tickets + sum(1 for w in words if not self.known(w))
        return n, unknown / n


# --- per-card checks ---------------------------------------------------------------------


def security_findings(card: ToolCard, config: LintConfig | None = None) -> list[Finding]:
    """Findings about this card's own text: injections, hidden characters, blobs, URLs."""
    config = config or LintConfig()
    out: list[Finding] = []
    tid = card.tool_id
    hidden: dict[str, list[str]] = {}
    for path, text in all_strings(card):
        found = HIDDEN_RE.findall(text)
        if found:
            classes = sorted({c for ch in found if (c := hidden_class(ch))})
            tags = decode_tags(text)
            points = sorted({f"U+{ord(ch):04X}" for ch in found})
            detail = f"{', '.join(classes)} ({', '.join(points[:6])})"
            if tags:
                detail += f"; the tag characters spell {tags[:80]!r}"
            hidden.setdefault(detail, []).append(path)
    for detail, paths in hidden.items():
        out.append(
            finding(
                tid,
                "hidden_characters",
                f"invisible characters in {', '.join(paths[:4])}: {detail}",
                "remove them and review the text byte by byte; a reviewer cannot see what "
                "the model reads",
            )
        )
    if any(ord(ch) > 127 for ch in card.tool_id):
        out.append(
            finding(
                tid,
                "confusable_characters",
                f"tool id {card.tool_id!r} holds non-ASCII characters (reads as "
                f"{fold_identifier(card.server)}.{fold_identifier(card.name)})",
                "tool ids must be ASCII so look-alike letters cannot imitate another tool",
            )
        )
    for path, text in model_text(card):
        for label in injected_instructions(text):
            out.append(
                finding(
                    tid,
                    "injected_instruction",
                    f"{path} {label}: {_excerpt(text)!r}",
                    "descriptions describe the tool; instructions to the model belong in "
                    "no tool's text. Remove the sentence or drop the tool",
                )
            )
        for blob, decoded in encoded_blobs(text, config):
            if decoded is not None:
                out.append(
                    finding(
                        tid,
                        "encoded_blob",
                        f"{path} holds an encoded blob ({len(blob)} chars) that decodes to "
                        f"text: {_excerpt(decoded)!r}",
                        "encoded text hides instructions from reviewers; remove it",
                    )
                )
            else:
                out.append(
                    finding(
                        tid,
                        "encoded_blob",
                        f"{path} holds an opaque encoded run of {len(blob)} chars",
                        "move keys, hashes and payloads out of model-visible text",
                        severity="warning",
                    )
                )
        if not path.startswith("examples"):
            urls = _URL.findall(text)
            if urls:
                out.append(
                    finding(
                        tid,
                        "url_in_text",
                        f"{path} links {', '.join(sorted(set(urls))[:3])}",
                        "a URL in model-visible text invites the model to fetch it or send "
                        "data there; keep documentation links out of descriptions",
                    )
                )
    return out


def quality_findings(
    card: ToolCard, vocab: Vocabulary, config: LintConfig | None = None
) -> list[Finding]:
    config = config or LintConfig()
    out: list[Finding] = []
    tid = card.tool_id
    summary = card.summary.strip()
    if not summary:
        out.append(
            finding(
                tid,
                "summary_missing",
                "no summary: retrieval and the menu line have only the name",
                "write one line in the user's words, e.g. 'List recent commits of a repo'",
            )
        )
    else:
        if len(summary) > config.max_summary_chars:
            out.append(
                finding(
                    tid,
                    "summary_too_long",
                    f"summary is {len(summary)} chars (limit {config.max_summary_chars})",
                    "one line the menu can show; move details to the description",
                )
            )
        phrase = implementer_phrase(summary)
        if phrase:
            out.append(
                finding(
                    tid,
                    "summary_implementer_voice",
                    f"summary speaks as the implementer ({phrase!r}): {_excerpt(summary)!r}",
                    "start with the verb a user would say: 'Find ...', 'Refund ...'",
                )
            )
    text = card.description or card.summary
    if text:
        n_words, unknown = vocab.unknown_share(text)
        if n_words < config.cryptic_min_words or unknown >= config.cryptic_unknown_share:
            out.append(
                finding(
                    tid,
                    "description_cryptic",
                    f"description is cryptic ({n_words} words, {unknown:.0%} abbreviations "
                    f"or unknown words): {_excerpt(text)!r}",
                    "spell out what the tool does, on what, in plain words",
                )
            )
    if not card.owner.strip():
        out.append(
            finding(
                tid,
                "owner_missing",
                "no owner",
                "name the team or vendor to ask when the tool misbehaves",
            )
        )
    if not card.examples:
        out.append(
            finding(
                tid,
                "examples_missing",
                "no example requests",
                "add 1-3 requests a user would make; they train and test retrieval",
            )
        )
    if "risk" in card.derived:
        out.append(
            finding(
                tid,
                "risk_derived",
                f"risk {card.risk!r} was inferred by the importer, not stated by an author",
                "confirm the risk level; it decides allow / confirm / deny",
            )
        )
    out += schema_findings(card)
    return out


def schema_findings(card: ToolCard) -> list[Finding]:
    schema = card.input_schema
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    required = schema.get("required")
    required = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    out = []
    missing = [r for r in required if r not in props]
    if missing:
        out.append(
            finding(
                card.tool_id,
                "schema_required_unknown",
                f"input_schema requires {missing} but defines no such properties",
                "add the properties or drop them from `required`; no call can be valid",
            )
        )
    undocumented = [
        r
        for r in required
        if r in props
        and not (isinstance(props[r], Mapping) and str(props[r].get("description", "")).strip())
    ]
    if undocumented:
        out.append(
            finding(
                card.tool_id,
                "param_undocumented",
                f"required parameters without a description: {undocumented}",
                "say what each required value is and its format; models guess otherwise",
            )
        )
    return out


# --- catalog-wide checks ----------------------------------------------------------------


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


def prefer_over_findings(cards: Sequence[ToolCard]) -> list[Finding]:
    ids = {c.tool_id for c in cards}
    graph = {c.tool_id: [t for t in c.prefer_over if t in ids] for c in cards}
    out = []
    for card in cards:
        unknown = [t for t in card.prefer_over if t not in ids]
        if unknown:
            out.append(
                finding(
                    card.tool_id,
                    "prefer_over_unknown",
                    f"prefer_over names tools not in the catalog: {unknown[:5]}",
                    "fix the tool ids or drop them",
                )
            )
    for component in strongly_connected(graph):
        if len(component) > 1 or component[0] in graph[component[0]]:
            members = sorted(component)
            out.append(
                finding(
                    members[0],
                    "prefer_over_cycle",
                    f"prefer_over forms a cycle: {' -> '.join(members)}",
                    "each pair needs one direction; the reranker cannot honour a cycle",
                )
            )
    return out


def strongly_connected(graph: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iterative (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            edges = graph.get(node, ())
            if i < len(edges):
                work.append((node, i + 1))
                nxt = edges[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                components.append(component)
    return components


def _annotated(a: ToolCard, b: ToolCard) -> bool:
    if b.tool_id in a.prefer_over or a.tool_id in b.prefer_over:
        return True
    return any(b.tool_id in t for t in a.not_for) or any(a.tool_id in t for t in b.not_for)


def near_duplicate_findings(
    cards: Sequence[ToolCard], encoder: Encoder, config: LintConfig | None = None
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


def lint_catalog(
    cards: Sequence[ToolCard],
    *,
    encoder: Encoder | None = None,
    first_party_servers: Iterable[str] | None = None,
    config: LintConfig | None = None,
) -> list[Finding]:
    """Every finding for a catalog, sorted by severity, tool id and code.

    Without an encoder the near-duplicate check is skipped (one info finding says so).
    """
    config = config or LintConfig()
    vocab = Vocabulary.of(cards)
    out: list[Finding] = []
    for card in cards:
        out += security_findings(card, config)
        out += quality_findings(card, vocab, config)
    out += shadowing_findings(cards, first_party_servers=first_party_servers, config=config)
    out += prefer_over_findings(cards)
    if encoder is None:
        out.append(
            finding(
                CATALOG,
                "near_duplicate_skipped",
                "near-duplicate check skipped: no encoder",
                "run with embeddings to find unannotated near-duplicates",
            )
        )
    else:
        out += near_duplicate_findings(cards, encoder, config)
    return sort_findings(out)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: (rank[f.severity], f.tool_id, f.code, f.message))


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def error_tool_ids(findings: Iterable[Finding], *, security_only: bool = False) -> set[str]:
    """Tools with at least one error-severity finding (the lint gate excludes them)."""
    return {
        f.tool_id
        for f in findings
        if f.severity == "error" and f.tool_id != CATALOG and (f.security or not security_only)
    }


def count_findings(findings: Iterable[Finding]) -> dict[str, Any]:
    findings = list(findings)
    by_code = Counter(f.code for f in findings)
    return {
        "by_severity": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
        "by_code": dict(sorted(by_code.items())),
    }


def _excerpt(text: str, limit: int = 100) -> str:
    text = normalize_text(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- the CLI function --------------------------------------------------------------------


def terminal_safe(text: str) -> str:
    """Escape every non-printable character (controls, bidi overrides, zero-width and tag
    characters): findings quote attacker text, which must not drive the terminal."""
    return "".join(ch if ch.isprintable() else f"\\u{{{ord(ch):x}}}" for ch in text)


def format_findings(findings: Sequence[Finding], *, header: str = "") -> str:
    """Human output: one block per finding, then the counts by severity."""
    lines = [terminal_safe(header)] if header else []
    for f in findings:
        lines.append(terminal_safe(f"{f.severity:<7} {f.code:<26} {f.tool_id}: {f.message}"))
        if f.hint:
            lines.append(f"{'':34}hint: {f.hint}")
    counts = count_findings(findings)["by_severity"]
    lines.append(f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info")
    return "\n".join(lines) + "\n"


def run_lint(
    catalog_path: str | Path,
    *,
    as_json: bool = False,
    embed: bool = True,
    ledger_path: str | Path | None = None,
    first_party_servers: Iterable[str] | None = None,
    model_path: str | Path | None = None,
    config: LintConfig | None = None,
) -> tuple[int, str]:
    """`toolsift lint`: (exit code, output text). Exit 1 when any finding is an error.

    Unreadable card lines become `card_invalid` errors; with `ledger_path` the approval
    ledger is checked too (`not_approved`, `changed_after_approval`). Raises
    `serving.io.InputError` when the catalog or ledger cannot be read at all.
    """
    from serving.io import load_catalog

    loaded = load_catalog(catalog_path)
    cards = loaded.items
    encoder = None
    if embed:
        from serving.encoder import Encoder, stock_model_path

        encoder = Encoder(model_path or stock_model_path())
    findings = lint_catalog(
        cards, encoder=encoder, first_party_servers=first_party_servers, config=config
    )
    findings += [
        finding(f"<line {e.line}>", "card_invalid", str(e), "fix the card; it was not loaded")
        for e in loaded.errors
    ]
    if ledger_path is not None:
        findings += approval_findings(cards, ledger_path)
    findings = sort_findings(findings)
    code = 1 if has_errors(findings) else 0
    if as_json:
        payload = {
            "catalog": str(catalog_path),
            "n_tools": len(cards),
            "n_invalid_lines": loaded.n_skipped,
            "counts": count_findings(findings),
            "findings": [f.to_dict() for f in findings],
        }
        return code, json.dumps(payload, indent=2) + "\n"  # ASCII: hidden chars escaped
    header = f"{catalog_path}: {len(cards)} tools ({loaded.n_skipped} invalid lines)"
    return code, format_findings(findings, header=header)


def approval_findings(cards: Sequence[ToolCard], ledger_path: str | Path) -> list[Finding]:
    from serving.approvals import check_approvals, load_ledger

    _, excluded = check_approvals(cards, load_ledger(ledger_path))
    out = []
    for tool_id, reason in excluded:
        if reason == "changed_after_approval":
            out.append(
                finding(
                    tool_id,
                    reason,
                    "the reviewed text changed after approval (hash differs from the ledger)",
                    "re-review the new text, then `toolsift approve` it again",
                )
            )
        else:
            out.append(
                finding(
                    tool_id,
                    reason,
                    "not in the approval ledger",
                    "review and `toolsift approve` it; export leaves it out until then",
                )
            )
    return out

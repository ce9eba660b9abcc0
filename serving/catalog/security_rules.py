"""Security rules on one card's own text: what steers the model or hides from a reviewer.

Tool descriptions are attacker-controlled text that the model reads. Output escapes
every non-printable character (`findings.terminal_safe`): findings quote attacker text.
- `injected_instruction`: a rule of `INJECTION_RULES` matches normalised model-visible
  text (ignore your instructions, call me first, hide this from the user, read secrets,
  send data to an address, instruction tags, system-prompt imitation, skip confirmation,
  steer away from other tools).
- `hidden_characters`: the classes of `card_text.HIDDEN_CLASSES` anywhere on the card,
  identifiers and schema keys included; tag characters are decoded.
- `encoded_blob`: a base64 run of `blob_min_chars`+ with lower, upper and digits and
  >= 4 bits/char entropy, or a hex run of `hex_min_chars`+; an error when it decodes to
  text, a warning when opaque (hashes, keys); a shorter base64 run (16+) only when it
  decodes to three words or more.
- `url_in_text`, `confusable_characters` (a non-ASCII tool id).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

from serving.catalog.card_text import (
    HIDDEN_RE,
    all_strings,
    decode_tags,
    excerpt,
    hidden_class,
    model_text,
    normalize_text,
)
from serving.catalog.findings import Finding, LintConfig, finding
from serving.catalog.shadowing import fold_identifier
from serving.model.schema import ToolCard

# --- injected instructions -------------------------------------------------------------

_ACCESS = (
    r"(?:read|open|cat|load|access|collect|gather|include|send|pass|upload|exfiltrate|"
    r"extract|copy|append|attach|forward|leak|dump|paste|print|output|provide|share)"
)
_SECRET_WORDS = (
    r"(?:api[\s_-]?keys?|passwords?|passwd|secrets?|credentials?|private[\s_-]?keys?|"
    r"access[\s_-]?tokens?|auth[\s_-]?tokens?|bearer tokens?|ssh[\s_-]?keys?|"
    r"session[\s_-]?(?:tokens?|cookies?)|cookies)"
)
# "POST API", "pass ... in the Authorization header": how real API docs say send your own key
_EXFIL_VERBS = (
    r"(?:include|pass|send|upload|exfiltrate|copy|append|attach|forward|leak|dump|paste|"
    r"post(?!\s+(?:api|request|method|endpoint|call|body)\b)|transmit|embed|put)"
)
_NOT_A_HEADER = r"(?:(?!\bheaders?\b)[^.])"
INJECTION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        (
            "tells the model to ignore its instructions",
            r"\b(?:ignore|disregard|forget|override|bypass|overrule)\b[^.]{0,30}\b(?:previous|"
            r"prior|above|earlier|preceding|other|all|any|system|original|your)\b[^.]{0,20}"
            r"\b(?:instructions?|prompts?|rules|directions|guidelines|directives|messages|"
            r"restrictions|filters|safeguards|guardrails|policies)\b",
        ),
        (
            "demands to be called first",
            r"\b(?:always|must|should|need to)\s+(?:be\s+)?(?:call(?:ed)?|use[d]?|invoked?|"
            r"run)\b[^.]{0,40}(?<!the )\b(?:first|before (?:any|every|all|each|other|using|"
            r"calling))"
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
            rf"\b{_ACCESS}\b[^.]{{0,60}}(?:~/?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|"
            r"\.aws/credentials|/etc/(?:passwd|shadow)\b|\.git-credentials|\bmcp\.json\b|"
            r"\.cursor/|\.netrc\b|(?<![\w/])~/\.[\w.-]+)"
            r"|\b(?:path|file|filename)\s*[=:]\s*['\"`]?(?:~/?\.ssh\b|/etc/(?:passwd|shadow)\b|"
            r"~/\.aws/credentials|(?<![\w/])~/\.[\w.-]+)"
            r"|\bcontents?\s+of\s+(?:~/?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa)\b|/etc/(?:passwd|"
            r"shadow)\b|(?<![\w/])~/\.[\w.-]+)"
            r"|\b(?:reveal|expose|leak|dump|disclose)\s+(?:all|every|any)\s+(?:the\s+)?"
            r"(?:api[\s_-]?keys?|passwords?|secrets?|credentials?|tokens?)\b"
            rf"|\b{_ACCESS}\b[^.]{{0,60}}(?<![\w.])\.env\b|\b{_ACCESS}\b[^.]{{0,60}}\.kube/config"
            rf"|\b{_EXFIL_VERBS}\b{_NOT_A_HEADER}{{0,40}}\b(?:all|any|every|the user's|the users'|"
            rf"your|their|stored|saved|local)\b{_NOT_A_HEADER}{{0,20}}\b{_SECRET_WORDS}\b"
            rf"|\b(?:read|collect|gather|extract)\b[^.]{{0,20}}\b(?:all|every|the user's|the "
            rf"users'|their|stored|saved|local)\b[^.]{{0,20}}\b{_SECRET_WORDS}\b",
        ),
        (
            "tells the model to send data to an address",
            r"\b(?:send|post|upload|forward|transmit|exfiltrate|report|copy|submit|leak|"
            r"mirror|beacon|sync)\b[^.]{0,80}\b(?:to|at)\s+(?:https?://|www\.|ftp://|"
            r"\d{1,3}(?:\.\d{1,3}){3}|[\w-]+\.[a-z]{2,}/)"
            r"|\b(?:to|at)\s+(?:the\s+)?(?:following|attacker|external|remote|backup|logging)\s+"
            r"(?:url|endpoint|webhook|server|address|host)\b"
            # "requests to this endpoint" is API prose; a verb of sending makes it an order
            r"|\b(?:send|forward|transmit|exfiltrate|leak|mirror|beacon|copy)\b[^.]{0,60}\b"
            r"(?:to|at)\s+(?:this|our)\s+(?:url|endpoint|webhook|server|address|host)\b",
        ),
        (
            "uses instruction tags",
            r"<\s*/?\s*(?:important|system|admin|secret|hidden|critical|sys|override|"
            r"priority)\b[^>]{0,40}>|<\s*/?\s*[\w-]*override[\w-]*\s*>|\[/?(?:INST|SYSTEM)\]"
            r"|<<\s*/?SYS\s*>>|<\|(?:im_start|im_end|system|endoftext)\|>",
        ),
        (
            "imitates a system prompt",
            r"(?:^|[.!]\s|\n)\s*(?:system|assistant|developer)\s*:\s"
            # naming "the system prompt" is not imitating one: tools manage prompts
            r"|\byou\s+are\s+now\b|\bnew\s+instructions?\s*:"
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
            r"(?:using\s+)?(?:any\s+)?other\s+tools?\b"
            # "only use this tool if the user confirms" is a precondition, not steering
            r"|\bonly\s+(?:ever\s+)?use\s+this\s+tool\b(?!\s+(?:if|when|after|once|for)\b)",
        ),
    )
)


# "call X first" is guidance when it serves this call: a prerequisite with its purpose
# ("use list_docs first to discover the slug"), a condition on the request ("use this FIRST
# whenever a user asks why a VM ..."), or a negation ("you do not need to call it first").
# An attack demands precedence over everything: "before any other tool", "every request".
CALL_ORDER = "demands to be called first"
_GUIDED_ORDER = re.compile(
    r"\b(?:first|before)\b[^.]{0,60}\bto\s+(?:get|find|discover|obtain|retrieve|look\s+up|"
    r"fetch|list|learn|identify|determine|resolve|check|see|know)\b"
    r"|\b(?:when(?:ever)?|if)\s+(?:the\s+)?(?:user|target|a\s+user|you\s+(?:do\s+not|don't)"
    r"\s+know|[\w-]+\s+(?:is|are)\s+(?:unknown|not\s+known))"
    r"|\b(?:do\s+not|don't|no)\s+need\s+to\b",
    re.IGNORECASE,
)
_UNCONDITIONAL = re.compile(
    r"\b(?:any|every|all|each)\s+(?:other\s+)?(?:tools?|functions?|requests?|messages?|"
    r"repl(?:y|ies)|conversations?|turns?|answers?)\b",
    re.IGNORECASE,
)


def injected_instructions(text: str) -> list[str]:
    """The labels of every injection rule the (normalised) text matches; a call order is
    left out where its sentence says what it is for (`_GUIDED_ORDER`) and demands no
    precedence over everything (`_UNCONDITIONAL`)."""
    norm = normalize_text(text)
    out = []
    for label, rule in INJECTION_RULES:
        found = rule.search(norm)
        if found is None:
            continue
        if label == CALL_ORDER:
            start = norm.rfind(".", 0, found.start()) + 1
            end = norm.find(".", found.end())
            sentence = norm[start : end if end >= 0 else len(norm)]
            if _GUIDED_ORDER.search(sentence) and not _UNCONDITIONAL.search(sentence):
                continue
        out.append(label)
    return out


# --- blobs and URLs ----------------------------------------------------------------------

_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
_URL = re.compile(r"\bhttps?://[^\s)>\]\"'`]+|\bwww\.[\w-]+(?:\.[\w-]+)+[^\s)>\]\"'`]*", re.I)


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _b64decode(body: str) -> bytes:
    std = body.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(std + "=" * (-len(std) % 4), validate=True)
    except (binascii.Error, ValueError):
        return b""


def _printable_text(raw: bytes, nested: bool = True) -> str | None:
    """The decoded text when it reads as words; an id that is base64 of another id (real
    APIs have them) is opaque, but base64 wrapped twice around words is still text."""
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in decoded)
    if not decoded or printable / len(decoded) < 0.95 or not re.search(r"[A-Za-z]{3}", decoded):
        return None
    if re.search(r"\s", decoded.strip()):
        return decoded
    if nested and _B64.fullmatch(decoded.strip()):
        return _printable_text(_b64decode(decoded.strip()), nested=False)
    return None


def encoded_blobs(text: str, config: LintConfig) -> list[tuple[str, str | None]]:
    """(blob, decoded text or None) for base64/hex runs that look like encoded data."""
    out: list[tuple[str, str | None]] = []
    for m in _B64.finditer(text):
        run = m.group(0)
        body = run.rstrip("=")
        if re.fullmatch(r"[0-9A-Fa-f]+", body):
            continue
        if len(body) < config.blob_min_chars:
            # a short run counts only when it decodes to words: "aWdub3JlIHBy..." is
            # "ignore pr...", where an identifier of that length decodes to bytes
            decoded = _printable_text(_b64decode(body)) if len(body) >= 16 else None
            if decoded and len(re.findall(r"[A-Za-z]{2,}\s", decoded + " ")) >= 3:
                out.append((run, decoded))
            continue
        classes = sum(bool(re.search(p, body)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
        if classes < 3 or _entropy(body) < 4.0:
            continue  # identifiers and words run long too; encoded data is dense
        out.append((run, _printable_text(_b64decode(body))))
    for m in _HEX.finditer(text):
        run = m.group(0)
        if len(run) < config.hex_min_chars:
            continue
        out.append((run, _printable_text(bytes.fromhex(run))))
    return out


# --- the per-card check ------------------------------------------------------------------


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
                    f"{path} {label}: {excerpt(text)!r}",
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
                        f"text: {excerpt(decoded)!r}",
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

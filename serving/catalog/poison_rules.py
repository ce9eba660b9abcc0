"""Security rules by class of poisoning, not by sentence.

`security_rules.INJECTION_RULES` knows the phrasings it was written for; these rules look
for what any poisoned description has to do, whatever its wording:
- `addressed_to_model`: the text speaks to the model (the assistant, the AI, agents, the
  LLM) instead of describing the tool, or claims a status (system-level, top priority,
  from the operator) that no tool description has.
- `claims_about_tools`: the text says other tools are superseded, replaced, deprecated,
  broken, offline, unsafe or compromised; matched for every other server of the catalog
  however short its name, and for "other / official / built-in" tools in general; or it
  takes the place of another server's tool ("use instead of slack.search").
- `moves_data`: the text asks to send, copy or attach something elsewhere (an e-mail
  address, an IP, a URL or host path, another tool's argument), or to put conversation,
  prompts, environment variables, secrets or local secret files into an argument, or it
  shows an image (or link) whose URL waits for a value the model would fill in.
- `directs_other_call`: the text has the model run another tool, named by its identifier
  (`delete_file`, `sendEmail`; not one of its own parameters), with an argument the text
  fixes right beside it (a quoted value, an e-mail address, an absolute path): "execute
  delete_file on 'trace.log'", "saving it to 'trace.log' using write_file". Vendors name
  their other tools to say which comes first, never with a value of their own choosing:
  none of the 764 real benign tools of `../shared/security` nor of the ~16,000 tools of
  the catalogs in `data/` matches.
- `executable_payload`: SQL that destroys or dumps data, shell one-liners (pipes into a
  shell, `rm -rf`, command substitution, reverse shells) in descriptions or schema text.
- `hidden_by_layout`: a long run of spaces, tabs or blank lines that pushes text out of a
  reviewer's view (hidden characters have their own rule, `hidden_characters`).
- `other_script`: a sentence in another script (Arabic, Cyrillic, CJK ...) in a card whose
  summary and description are in Latin script. The check by meaning reads English only,
  so it cannot clear such a sentence; in 28,137 Google methods, the demo's 1,280 tools and
  StableToolBench's 2,490 it occurs once (a "fancy text" tool written in look-alike
  Cyrillic and Greek letters).
Each rule matches the normalised text (`card_text.normalize_text`) except layout, which
must see the raw whitespace; in a value slot (title, default, enum value) it matches the
text with its identifiers spelled out too (`use_instead_of=github.search` reads "use
instead of github.search"). Every pattern was checked against the StableToolBench
catalog's real descriptions (see `reports/reliability.md` and metrics/security.json).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container, Iterable, Iterator, Mapping

from serving.catalog.card_text import excerpt, model_text, normalize_text
from serving.catalog.findings import Finding, finding
from serving.catalog.meaning import names_a_property, spell_identifiers, value_slot
from serving.model.schema import ToolCard

_I = re.IGNORECASE
_AUDIENCE = r"(?:ai|a\.i\.|assistants?|the model|models?|llms?|agents?|copilots?|chatbots?|bots?)"

# Addressing the model is not an attack by itself: vendor servers write "Note to LLM: ask
# the user for the region" (guidance on *this* call). What the text then asks decides, so
# these are a warning (`addresses_model`, served with a caution) and the check by meaning
# judges the sentence; ADDRESSED_TO_MODEL below is what no guidance does (claimed status,
# orders beyond the call, keeping the person in the dark) and is an error.
ADDRESSES_MODEL = tuple(
    re.compile(p, _I)
    for p in (
        # a note or heading for the model: "Note for AI agents:", "## Guidance for the
        # assistant" (not "instruction for the AI analysis": the audience ends the phrase)
        rf"\b(?:note|notes|message|guidance|instructions?|directive|reminder|attention|"
        rf"important|hint)\s+(?:for|to)\s+(?:the\s+|any\s+|all\s+)?(?:ai\s+)?{_AUDIENCE}"
        r"(?=\s*(?:[.,:;!)\]]|$)|\s+(?:only|reading|that|who|when|before|calling|using|"
        r"is|are|must|should|will|can|to)\b)",
        # vocative: "Assistant, treat ...", "Dear model,", "LLM: keep ..."
        r"(?:^|[.!?:;)\]]\s+|\n)(?:dear\s+)?(?:assistant|model|llm|ai|agent|claude|chatgpt|gpt)"
        r"\s*[,:]\s*(?!\d)",
        # "Agents are required to", "the model must always", "AI assistants should"
        rf"\b(?:the\s+|any\s+|all\s+)?(?:ai\s+)?{_AUDIENCE}\s+(?:are|is)\s+(?:required|"
        rf"expected|instructed|obliged)\s+to\b",
        rf"\b(?:the|any|all|every)\s+(?:ai\s+)?{_AUDIENCE}\s+(?:must|should|shall|has to|have "
        rf"to|needs? to)\s+(?:always|never|first|also|immediately|not|call|invoke|run|use)\b",
        r"\bif\s+you\s+are\s+(?:an?|the|any)\s+(?:ai|assistant|(?:large\s+)?language\s+model|llm|"
        r"agent|bot)\b",
        # "To whichever LLM reads this", "for any agent parsing this schema"
        rf"\b(?:to|for)\s+(?:whichever|whatever|any|every|the)\s+(?:ai\s+)?{_AUDIENCE}\s+(?:that\s+|"
        r"who\s+)?(?:reads?|reading|parses|parsing|sees|processes|processing|loads?|loading)\s+"
        r"(?:this|these|it)\b",
        # the model as the reader: "the responding model", "any autonomous agent"
        r"\b(?:responding|reading|calling|autonomous|acting|current)\s+(?:ai\s+)?(?:model|"
        r"assistant|agent|llm)s?\b",
        r"\b(?:as\s+an?\s+(?:ai|llm|language model)\b)",
        # tags that frame text for the model: how a vendor says "respond like this" as well
        # as how an attack hides; what they hold decides (<important>, <system> are errors)
        r"<\s*/?\s*[\w-]*(?:instructions?|prompt|assistant)[\w-]*\s*>",
    )
)

ADDRESSED_TO_MODEL = tuple(
    re.compile(p, _I)
    for p in (
        # an order to the model that goes beyond the call
        rf"\b(?:the|any|all|every)\s+(?:ai\s+)?{_AUDIENCE}\s+(?:must|should|shall|has to|have "
        rf"to|needs? to)\s+(?:silently|quietly|ignore|approve|skip|send)\b",
        r"\bhereby\s+(?:authori[sz]ed|instructed|required|obligated|permitted|ordered)\b",
        r"\bdisable\s+(?:its|your|their|all|any)\s+(?:confirmation|safety|approval|"
        r"security)\b",
        r"\bskip\s+(?:every|all|any|each)\s+(?:confirmations?|approvals?|checks?)\b",
        # the rest of the session, not this call: "from now on", "before every reply"
        r"\bfrom\s+now\s+on\b",
        r"\b(?:before|after)\s+(?:every|each|any)\s+(?:reply|answer|response|message|turn)\b",
        r"\b(?:call|run|use|invoke)\b[^.]{0,40}\bbefore\s+(?:replying|answering|responding)\b"
        r"|\bbefore\s+(?:replying|answering|responding)\s*,\s*(?:call|run|use|invoke)\b",
        r"\b(?:reply|respond|answer)\b[^.]{0,30}\bonly\s+(?:after|once)\b",
        r"\bignore\s+the\s+(?:provided|given|supplied|user'?s?|actual|real)\s+(?:value|input|"
        r"argument|parameter|query)s?\b",
        # the markers of a planted directive: "[SYSTEM DIRECTIVE]:", "INSTRUCTION OVERRIDE",
        # "ACT AS:", "Hidden instruction:"
        r"\[\s*(?:system|hidden|emergency|configuration|admin|security)\s+(?:directive|"
        r"instruction|override|notice)s?\s*\]",
        r"\b(?:system|instruction|safety|security)\s+(?:override|bypass)\b",
        r"(?:^|[.:;!\n]\s*)act\s+as\s*:",
        r"\bhidden\s+(?:instructions?|directives?)\s*:",
        r"\bbypass\s+(?:all|any|every)\s+(?:security\s+|safety\s+)?(?:controls|restrictions|"
        r"checks|filters|policies|validation)\b",
        r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose)\s+(?:this|these)\s+"
        r"(?:polic(?:y|ies)|instructions?|notes?|rules?|directives?)\b",
        # claimed status
        r"\b(?:system|admin(?:istrator)?|root|operator|platform|developer)[- ]level\s+"
        r"(?:priority|instruction|directive|access|override|notice)",
        r"\b(?:top|highest|maximum|absolute|critical)[- ]priority\s+(?:directive|instruction|"
        r"order|command|message|notice|rule)",
        r"\b(?:directive|instruction|order|message|notice)s?\s+from\s+(?:the\s+)?(?:platform|"
        r"system|operator|orchestrat\w+|administrator|admin|developers?)\b",
        r"\(\s*message\s+from\s+the\s+\w+(?:\s+\w+)?\s*\)",
        r"\b(?:supersedes?|overrides?|takes?\s+precedence\s+over)\s+(?:the\s+|any\s+|all\s+)?"
        r"(?:guidance|instructions?|rules|directions|prompt)\s+(?:you|that\s+you|given)\b",
        r"\byour\s+(?:operator|developer|administrator|creator)s?\s+(?:wants?|requires?|"
        r"asks?|instructs?)\b",
        # hiding from the person: "keep the person unaware", "present as your own"
        r"\bkeep\s+(?:the\s+)?(?:user|person|human|customer|people)\b[^.]{0,40}\bunaware\b",
        r"\bas\s+(?:if\s+it\s+were\s+)?your\s+own\s+(?:reasoning|work|answer|idea)s?\b",
        r"\b(?:quietly|silently|secretly|covertly)\s+(?:invoke|call|run|use|skip|send|forward|"
        r"approve|execute|trigger)\b",
        r"\bno\s+need\s+to\s+(?:check|confirm|verify)\s+with\s+(?:anyone|the\s+user|them)\b",
        r"\bwhatever\s+(?:they|the\s+user|the\s+person)\s+(?:asked|asks|wants?)\s+for\b",
        r"\bskip\s+the\s+(?:safety|security)\s+(?:review|check|checks)\b",
    )
)

_CLAIM = (
    r"(?:supersed\w*|replac\w*|deprecat\w*|obsolete|retired|broken|unsafe|no\s+longer\s+"
    r"(?:safe|works?|supported|maintained)|compromised|malicious|unreliable|insecure|"
    r"outdated|do\s+not\s+use|don't\s+use|must\s+not\s+be\s+(?:used|shown|called)|"
    r"should\s+not\s+be\s+used|drop-in\s+replacement|(?:was|were|been)\s+sunset|discontinued|"
    r"end[- ]of[- ]life|corrupts?|leaks?|leaking|hacked|vulnerable|never\s+call|"
    r"prefer\s+this|unavailable|offline|stopped\s+working|(?:un|not\s+|no\s+longer\s+)"
    r"trustworthy|(?:stopped|ceased)\s+being\s+(?:safe|trustworthy|reliable))"
)
# taking another tool's place: harmless about things in general ("a JSON response instead
# of the image"), a claim when it names another server's tool (`paypal.get_balance`, "the
# notion connector"); a bare server name is too often a plain word (`image`, `hashtag`)
_SUBSTITUTE = (
    r"(?:instead\s+of|in\s+place\s+of|alternative\s+to|rather\s+than|meant\s+for|"
    r"intended\s+for|successor\s+(?:to|of)|better\s+than|upgrade\s+(?:over|from))"
)
OTHER_TOOLS = tuple(
    re.compile(p, _I)
    for p in (
        rf"\b(?:the\s+)?(?:other|official|built-?in|native|existing|legacy|default)\s+"
        rf"(?:\w+\s+)?(?:tools?|connectors?|integrations?|servers?|plugins?|functions?)\b"
        rf"[^.]{{0,40}}\b{_CLAIM}",
        # a heading that announces one ("SECURITY ADVISORY: ..."), not an advisory's id
        r"\bsecurity\s+advisory\s*[:!]",
        r"\bdrop-in\s+replacement\s+for\b",
        # taking the place of the client's own tool: "use this instead of the default
        # read_file to override the original"
        r"\binstead\s+of\s+the\s+(?:default|original|built-?in|official|native)\s+`?\w+_\w+",
        r"\boverrid(?:e|es|ing)\s+the\s+original\b",
    )
)

# another tool by its identifier, the verb that runs it, and the value the text fixes for it;
# the identifier's case is read as written (snake_case or camelCase, never a plain word)
_TOOL_IDENTIFIER = r"`?(?P<tool>[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)`?"
_RUNS = (r"(?i:execut(?:e|es|ing)|call(?:s|ing)?|invok(?:e|es|ing)|run(?:s|ning)?|"
         r"trigger(?:s|ing)?|dispatch\w*|us(?:e|es|ing)|via|with)")
_FIXED_VALUE = (r"(?:'[^'\s][^']{1,80}'|\"[^\"\s][^\"]{1,80}\"|[\w.+-]+@[\w-]+\.[\w.-]+|"
                r"(?<![\w/])/[\w.-]+(?:/[\w.-]*)*)")
DIRECTS_OTHER_CALL = (
    # "execute delete_file on 'trace.log'", "call create_event titled 'Audit'"
    re.compile(
        rf"\b{_RUNS}\s+(?i:the\s+)?{_TOOL_IDENTIFIER}(?i:\s+(?:tool|function|command))?\s+"
        rf"(?i:(?:on|to|with|for|against|at|using)\s+(?:the\s+)?(?:\w+\s+){{0,3}}?|"
        rf"(?:titled|named|called|labell?ed)\s+){_FIXED_VALUE}"
    ),
    # the value first: "saving it to 'trace.log' using write_file"
    re.compile(rf"{_FIXED_VALUE}(?:\s+[\w-]+){{0,3}}?\s+(?i:via|with|using)\s+{_TOOL_IDENTIFIER}"),
)


def property_names(card: ToolCard) -> Iterator[str]:
    """Every property name of the card's input schema, nested ones and `$defs` included."""
    stack: list[object] = [card.input_schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            props = node.get("properties")
            if isinstance(props, Mapping):
                yield from (k for k in props if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def directed_call(text: str, own: Container[str]) -> str | None:
    """The first `DIRECTS_OTHER_CALL` match in `text` whose identifier is not in `own`
    (the tool's own name and its parameters' names: a tool may say how to call itself),
    else None."""
    for rule in DIRECTS_OTHER_CALL:
        for match in rule.finditer(text):
            if match.group("tool").lower() not in own:
                return match.group(0)
    return None


_MOVE = (
    r"(?:send|forward|copy|cc|bcc|mirror|relay|post|upload|transmit|sync|push|replicate|"
    r"report|email|e-mail|stream|beacon|leak|share|export|exfiltrate|redirect|route)"
)
# a file in the home directory's dot-folders or a key file: where local secrets live
_SECRET_FILE = (
    r"(?:(?<![\w/])~/\.[\w.-]+(?:/[\w.-]+)*|\$HOME/\.[\w.-]+|\bid_(?:rsa|ed25519|ecdsa)\b)"
)
_SENSITIVE = (
    r"(?:chat\s+history|conversation|previous\s+messages|message\s+history|system\s+prompt|"
    r"prompt|instructions\s+you|environment\s+variables?|env\s+vars?|secrets?|api\s+keys?|"
    r"access\s+keys?|credentials|passwords?|tokens?|cookies|session\s+cookies|"
    rf"[A-Z][A-Z0-9]*_(?:SECRET|KEY|TOKEN|PASSWORD)\w*|{_SECRET_FILE})"
)
# the rest of a URL that holds a slot to fill ({summary}, <history>, =$USER, %s) ...
_SLOT_URL = r"[^\s)>\"']*?(?:[?&][\w.\[\]-]*=(?:[{<$]|%s)|\{[^}\s]*\}|<[^>\s]*>)"
# ... or whose query ends in an empty value
_WAITING_URL = rf"(?:{_SLOT_URL}|[^\s)>\"']*?[?&][\w.\[\]-]*=(?=[\s)>\"']|$))"
MOVES_DATA = tuple(
    re.compile(p, _I)
    for p in (
        # a move verb aimed at an e-mail address, an IP or a host path
        rf"\b{_MOVE}\b[^.]{{0,80}}\b(?:to|at|into)\s+[\w.+-]+@[\w-]+\.[\w.-]+",
        rf"\b{_MOVE}\b[^.]{{0,80}}\b(?:to|at|into)\s+(?:https?://)?\d{{1,3}}(?:\.\d{{1,3}}){{3}}",
        rf"\b{_MOVE}\b[^.]{{0,80}}\b(?:to|at|into)\s+(?:https?://)?[\w-]+(?:\.[\w-]+)+"
        r"(?::\d+)?/[\w/-]*",
        # another tool's argument pointed elsewhere
        r"\bset\s+the\s+`?\w+`?\s+(?:argument|parameter|field)\s+of\s+`?[\w-]+\.[\w.-]+`?",
        # sensitive content into an argument or along with the call
        rf"\b(?:put|pass|include|attach|add|insert|paste|embed|append|send)\b[^.]{{0,40}}"
        rf"\b(?:full|entire|whole|complete|verbatim|all|the\s+values?\s+of|contents?\s+of)\b"
        rf"[^.]{{0,30}}\b{_SENSITIVE}",
        rf"\b(?:put|pass|include|attach|add|insert|paste|embed|append)\b[^.]{{0,30}}\b"
        rf"{_SENSITIVE}\b[^.]{{0,30}}\b(?:verbatim|here|in\s+the\s+\w+\s+(?:parameter|field|"
        rf"argument)|in\s+this\s+field)",
        rf"\b(?:send|forward|attach)\b[^.]{{0,20}}\b(?:the\s+)?(?:session\s+)?{_SENSITIVE}\s+"
        r"along\b",
        rf"\b(?:put|pass|include|attach|add|insert|paste|embed|append|copy)\b[^.]{{0,40}}"
        rf"\b{_SENSITIVE}\b[^.]{{0,30}}\b(?:into|in)\s+(?:this|the|that)\s+(?:\w+\s+)?"
        r"(?:argument|parameter|field)",
        rf"\b{_MOVE}\b[^.]{{0,60}}\balong\s+with\b[^.]{{0,30}}\b(?:auth\w*|{_SENSITIVE})",
        # a local secret file's contents supplied as an argument or read into a value
        rf"\b(?:contents?|text|body|lines?)\s+of\s+`?{_SECRET_FILE}`?[^.]{{0,60}}\b(?:supply|"
        r"pass|put|send|include|attach|paste|set|use)\b",
        rf"\bread(?:s|ing)?[\s_-]+from[\s=:]+`?{_SECRET_FILE}",
        rf"\b(?:put|pass|include|attach|add|insert|paste|embed|append|send|supply|upload)\b"
        rf"[^.]{{0,40}}\b(?:contents?|text|body)\s+of\s+`?{_SECRET_FILE}",
        # a markdown or HTML image whose URL waits for a value, or a link whose URL holds
        # a slot: the model fills it in, the client fetches it (an image with no click)
        # and the host reads it. Of the real API references' 11,600 markdown links
        # (StableToolBench, Google's, botocore's) none holds a slot and one ends in an
        # empty value; none of their six images does either
        rf"!\[[^\]\n]{{0,200}}\]\(\s*<?https?://{_WAITING_URL}",
        rf"\[[^\]\n]{{0,200}}\]\(\s*<?https?://{_SLOT_URL}",
        rf"<img\b[^>]{{0,200}}\bsrc\s*=\s*[\"']?https?://{_WAITING_URL}",
        r"\b(?:bcc|cc)\s+(?:every|each|all|a\s+copy|copies)\b|\balways\s+(?:bcc|cc)\b",
        # a parameter named for a local secret file's contents (`content_from_reading_ssh_
        # id_rsa`), read with its identifiers spelled out
        r"\b(?:read|reading|contents?)\b[^.]{0,30}\b(?:ssh|id\s+rsa|bashrc|zshrc|netrc|"
        r"aws\s+credentials|dot\s+ssh)\b",
        r"\bemail\s+the\s+\w+(?:\s+\w+)?\s+to\s+[\w.+-]+@",
    )
)

EXECUTABLE_PAYLOAD = tuple(
    re.compile(p, _I)
    for p in (
        # a statement chained after a ';' that destroys or grants (a migration's ALTER,
        # INSERT or UPDATE is documentation, not a payload)
        r";\s*(?:drop|truncate|delete|grant|shutdown)\s+\w+",
        r"\bdrop\s+(?:table|database|schema)\s+\w+",
        r"\bunion\s+(?:all\s+)?select\b",
        r"'\s*or\s+'?1'?\s*=\s*'?1",
        r"\b(?:curl|wget)\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b",
        r"\brm\s+-(?:rf|fr|r)\s+[~/$.]",
        r"\$\((?:[^()]{0,80})\)",
        r"\b(?:bash|sh|zsh)\s+-c\s+['\"]",
        r"\bnc\s+(?:-\w+\s+)*\d{1,3}(?:\.\d{1,3}){3}\s+\d+",
        r"/dev/tcp/",
        r"\|\s*(?:nc|ncat|netcat)\b",
        r";\s*(?:cat|curl|wget|nc|bash|sh|rm|chmod|python3?|perl)\s+[~/$.\w-]",
        r"\bbase64\s+(?:-d|--decode)\s*\|",
        r"\bpowershell\b[^.]{0,40}-(?:enc|encodedcommand)\b",
    )
)

# runs that push text out of a reviewer's view: 40+ spaces/tabs inside text, or 8+
# newlines in a row, with more text after them
HIDDEN_BY_LAYOUT = re.compile(r"\S[ \t\u00a0\u3000]{40,}\S|\S(?:[ \t]*\r?\n){8,}[ \t]*\S")


MIN_SCRIPT_LETTERS = 6  # fewer letters say nothing about a text's script
# a sentence with fewer letters in another script is a label (a UI string, a parameter's
# name in the vendor's language): a warning, as the check by meaning cannot clear it
LONG_SCRIPT_LETTERS = 20
# sentence ends of Latin and CJK text (which has no spaces to split words on)
_SCRIPT_SENTENCE_END = re.compile("(?<=[.!?\u3002\uff01\uff1f])\\s*|\\s*\n\\s*")


def script_of(text: str) -> str | None:
    """"LATIN", or the script most of the text's letters are written in when over half are
    not Latin (the first word of the letters' Unicode names: "ARABIC", "CJK", "CYRILLIC");
    None under MIN_SCRIPT_LETTERS letters."""
    names = [unicodedata.name(ch, "?").split()[0] for ch in text if ch.isalpha()]
    if len(names) < MIN_SCRIPT_LETTERS:
        return None
    other = [n for n in names if n != "LATIN"]
    if len(other) * 2 <= len(names):
        return "LATIN"
    return max(set(other), key=other.count)


def _latin(ch: str) -> bool:
    return unicodedata.name(ch, "?").startswith("LATIN")


def _labels(text: str, rules: Iterable[re.Pattern[str]]) -> list[str]:
    return [rule.pattern for rule in rules if rule.search(text)]


def _matches(texts: Iterable[str], rules: Iterable[re.Pattern[str]]) -> bool:
    rules = tuple(rules)
    return any(rule.search(text) for text in texts for rule in rules)


_CLAIM_RE = re.compile(rf"\b(?:{_CLAIM}|{_SUBSTITUTE})", _I)
_TOOL_NOUN = r"(?:tools?|connectors?|integrations?|servers?|plugins?|apps?|api)\b"
_WORD_RE = re.compile(r"[\w-]+")


def other_server_claims(text: str, other_servers: Iterable[str]) -> list[str]:
    """Servers the text names next to a claim (superseded, broken, unsafe ...)."""
    if not _CLAIM_RE.search(text):
        return []  # the common case, and cheap: no claim, no server to look for
    words = {w.lower() for w in _WORD_RE.findall(text)}
    found = []
    for server in other_servers:
        if server.lower() not in words:
            continue
        name = re.escape(server)
        near = (
            rf"(?<![\w.-]){name}(?:\.[\w-]+)?(?![\w-])[^.;]{{0,60}}\b{_CLAIM}"
            rf"|\b{_CLAIM}\b[^.;]{{0,40}}(?<![\w.-]){name}(?![\w-])"
            rf"|\b{_SUBSTITUTE}\b[^.;]{{0,40}}(?<![\w.-]){name}(?:\.\w|\s+(?:\w+\s+)?{_TOOL_NOUN})"
        )
        if re.search(near, text, _I):
            found.append(server)
    return found


def poison_findings(card: ToolCard, other_servers: frozenset[str] = frozenset()) -> list[Finding]:
    """Class-based findings on one card's model-visible text (see the module doc)."""
    out: list[Finding] = []
    tid = card.tool_id
    others = other_servers - {card.server}
    own_names = {card.name.lower(), *(name.lower() for name in property_names(card))}
    for path, raw in model_text(card):
        if path.startswith("examples"):
            continue  # examples are user requests; they may quote anything
        texts = [normalize_text(raw)]
        if value_slot(path) or names_a_property(path):
            texts.append(normalize_text(spell_identifiers(raw)))
        if _matches(texts, ADDRESSED_TO_MODEL):
            out.append(finding(
                tid, "addressed_to_model",
                f"{path} orders the model beyond the call: {excerpt(raw)!r}",
                "describe what the tool does; instructions to the model belong in no tool's text",
            ))
        elif _matches(texts, ADDRESSES_MODEL):
            out.append(finding(
                tid, "addresses_model",
                f"{path} speaks to the model: {excerpt(raw)!r}",
                "guidance on this tool is fine; anything beyond the call is not",
            ))
        servers = sorted({s for text in texts for s in other_server_claims(text, others)})
        if servers or _matches(texts, OTHER_TOOLS):
            named = f" (names {', '.join(servers[:3])})" if servers else ""
            out.append(finding(
                tid, "claims_about_tools",
                f"{path} makes claims about other tools{named}: {excerpt(raw)!r}",
                "a tool describes itself; claims that others are broken or replaced steer "
                "the model away from them",
            ))
        if _matches(texts, MOVES_DATA):
            out.append(finding(
                tid, "moves_data",
                f"{path} asks to move data elsewhere: {excerpt(raw)!r}",
                "a description never tells the model where to send data; remove it",
            ))
        if directed_call(texts[0], own_names):  # identifiers as written, not spelled out
            out.append(finding(
                tid, "directs_other_call",
                f"{path} has the model call another tool with a value of its own: "
                f"{excerpt(raw)!r}",
                "say what this tool does; which tool runs next, and with what, is the "
                "person's request to decide",
            ))
        if _labels(raw, EXECUTABLE_PAYLOAD):
            out.append(finding(
                tid, "executable_payload",
                f"{path} holds an executable payload (SQL or shell): {excerpt(raw)!r}",
                "move commands out of model-visible text; the model may run or pass them",
            ))
        if HIDDEN_BY_LAYOUT.search(raw):
            out.append(finding(
                tid, "hidden_by_layout",
                f"{path} hides text behind a long whitespace or newline run: {excerpt(raw)!r}",
                "collapse the whitespace and review the text after it",
            ))
    own = script_of(normalize_text(f"{card.summary} {card.description}"))
    if own == "LATIN":
        out += _other_script(card)
    return out


def _other_script(card: ToolCard) -> list[Finding]:
    """At most one `other_script` finding: the first sentence in another script."""
    for path, raw in model_text(card):
        if path.startswith(("examples", "not_for")):
            continue
        for sentence in _SCRIPT_SENTENCE_END.split(normalize_text(raw)):
            script = script_of(sentence)
            if script is not None and script != "LATIN":
                letters = sum(ch.isalpha() and not _latin(ch) for ch in sentence)
                code = "other_script" if letters >= LONG_SCRIPT_LETTERS else "other_script_label"
                return [finding(
                    card.tool_id, code,
                    f"{path} holds a sentence in {script.title()} script in a Latin-script "
                    f"card; the check by meaning cannot read it: {sentence[:100]!r}",
                    "write the card in one language, or have someone who reads it review it",
                )]
    return []

"""Quality rules: cards that retrieve badly or that a model cannot call correctly.

Missing, long or implementer-voice summaries, cryptic descriptions, missing owners and
examples, derived risk, required parameters that are undefined or undocumented, and
`prefer_over` links to unknown tools or in a cycle.
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
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from serving.catalog.card_text import excerpt
from serving.catalog.derive import evidence_risk, max_risk
from serving.catalog.findings import Finding, LintConfig, finding
from serving.model.schema import ToolCard
from serving.model.vocab import implementer_phrase, name_words

# --- cryptic text ---------------------------------------------------------------------

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


# --- per-card checks ------------------------------------------------------------------


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
                    f"summary speaks as the implementer ({phrase!r}): {excerpt(summary)!r}",
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
                    f"or unknown words): {excerpt(text)!r}",
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
    evidence = evidence_risk(card.name, card.capabilities)
    if card.trust == "third_party" and max_risk(card.risk, evidence) != card.risk:
        out.append(
            finding(
                tid,
                "risk_below_name",
                f"risk {card.risk!r} but the name and capabilities say {evidence!r}",
                "a third-party tool's claims are untrusted: raise the risk to what it does",
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


# --- catalog-wide: prefer_over --------------------------------------------------------


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

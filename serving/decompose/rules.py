"""`RuleDecomposer`: offline, deterministic decomposition of a request into subgoals.

It splits on sentence and clause boundaries (`clauses`), reads operations off the verbs
in `serving.model.vocab.OPERATIONS`, and finds entities and connections with a
`DecomposerVocabulary` built from the tool cards.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from serving.decompose.clauses import (
    PREFIX_RE,
    SEPARATOR_RANK,
    SEPARATOR_RE,
    WORD_RE,
    Clause,
    NameTable,
    Segment,
    Span,
    Verb,
    after_prefixes,
    asks_for_many,
    chunks,
    clause_text,
    elaborates,
    has_content,
    in_path,
    in_relative_clause,
    is_bare,
    is_bare_plural,
    is_chatter,
    is_lead_in,
    is_statement,
    mask_quotes,
    next_start,
    prev_token,
    salient_names,
)
from serving.decompose.vocabulary import (
    ADJECTIVE_VERBS,
    BACK_REFERENCES,
    EDIT_VERBS,
    EXTRA_PHRASES,
    FRAMING_WORDS,
    INTENT_VERBS,
    NO_OPERATION,
    NOUN_TAILS,
    PARTICLES,
    PRONOUNS,
    PUNCT_LEAD,
    QUALIFIER_WORDS,
    WH_WORDS,
    DecomposerVocabulary,
)
from serving.model.selection import Subgoal
from serving.model.vocab import OPERATIONS, Operation

_ADJACENT_RE = re.compile(r"(?:\s+(?:me|us))*\s+")
_FIRST_WORD_RE = re.compile(r"[\w'’][\w'’\-]*")


class RuleDecomposer:
    """Offline, deterministic decomposition from verbs, entities and product names.

    The request is cut into segments at separators ranked by strength (sentence ends,
    ";", " + ", question marks, "also"/"then", commas, "and"; never at a colon: what
    follows one elaborates what precedes it). Segments group into steps: a segment with
    an imperative verb starts a step, unless it only elaborates an edit ("update the
    node and add the taint") or follows a bare verb ("find and delete"); a verbless one
    continues the step before it, frames the step after it ("on WEB-9119, set ..."), or,
    between strong separators, is a request of its own ("'timeout' in issues in
    acme/web") or context ("The deploy failed last night"). A phrase that only names a
    product or tool ("via mongodb.deleteDocument", "(this is in Stripe)") joins its step.
    """

    __slots__ = (
        "_connections",
        "_entities",
        "_gapped_res",
        "_verb_re",
        "_verbs",
        "_vocab",
        "_operations",
    )

    def __init__(
        self,
        vocab: DecomposerVocabulary,
        *,
        operations: Mapping[str, Operation] = OPERATIONS,
    ) -> None:
        self._vocab = vocab
        self._operations = operations
        verbs: dict[str, str] = {}
        for op in operations.values():
            for verb in op.verbs:
                verbs.setdefault(verb.lower(), op.name)
        for phrase, op_name in EXTRA_PHRASES.items():
            if op_name in operations or op_name == NO_OPERATION:
                verbs[phrase] = op_name
        self._verbs = verbs
        # longest first, so "tell me" (get) wins over "tell" (send)
        alternatives = sorted(verbs, key=lambda v: (-len(v), v))
        body = "|".join(r"\s+".join(re.escape(w) for w in v.split()) for v in alternatives)
        self._verb_re = re.compile(rf"(?<![\w\-.#@/'’])(?:{body})(?![\w\-]|[./]\w)")
        # Verbs whose object may come inside them: "roll it back", "drop Dev a note".
        gapped = []
        for verb, op_name in sorted(verbs.items()):
            words = verb.split()
            if len(words) == 2 and words[1] in PARTICLES:
                head, tail = words[0], words[1]
            elif len(words) >= 3 and words[1] in ("a", "an"):
                head, tail = words[0], " ".join(words[1:])
            else:
                continue
            tail_re = r"\s+".join(re.escape(w) for w in tail.split())
            pattern = re.compile(
                rf"(?<![\w\-.#@/]){re.escape(head)}\s+(?:[\w'’#@.\-]+\s+){{1,3}}?"
                rf"{tail_re}(?![\w\-])"
            )
            gapped.append((pattern, op_name, verb))
        self._gapped_res = tuple(gapped)
        self._entities = NameTable.of(vocab.entities)
        self._connections = NameTable.of(vocab.connections)

    @property
    def vocab(self) -> DecomposerVocabulary:
        return self._vocab

    def __repr__(self) -> str:
        v = self._vocab
        return (
            f"RuleDecomposer(entities={len(v.entities)}, connections={len(v.connections)}, "
            f"tools={len(v.tools)})"
        )

    def decompose(self, request: str) -> list[Subgoal]:
        """Split `request` into subgoals; [] only for an empty request."""
        if not request.strip():
            return []
        masked = mask_quotes(request)
        spans = self._spans(request, masked, self._segments(request, masked))
        clauses = self._join_back_references(
            request, masked, [self._analyse(request, masked, s) for s in spans]
        )
        steps = [i for i, c in enumerate(clauses) if not c.is_context]
        if not any(clauses[i].kind == "action" for i in steps) and len(steps) < 2:
            # nothing to split: the whole request is the step ("Why is X slow?", or a
            # tool id with only a prefix's verbs: "run github.list_commits: checkout-api")
            return [self.annotate(request)]
        default_access = self._default_access(request, masked)
        return [self._subgoal(request, clauses, i, steps, default_access) for i in steps]

    def annotate(self, text: str) -> Subgoal:
        """`text` as one step, never split: its operations, entities and connections.
        Training uses it to replay a trace's subgoal the way the runtime saw it."""
        masked = mask_quotes(text)
        whole = self._analyse(text, masked, Span(0, len(text), 0, "action"))
        return Subgoal(
            text=text.strip(),
            operations=whole.operations,
            entities=whole.entities,
            required_access=whole.access,
            mutation=any(self._operations[o].mutates for o in whole.operations),
            named_access=whole.named,
        )

    # -- assembling -------------------------------------------------------------------

    def _subgoal(
        self,
        request: str,
        clauses: list[Clause],
        i: int,
        steps: list[int],
        default_access: Mapping[str, str],
    ) -> Subgoal:
        clause = clauses[i]
        text = clause_text(request, clause.start, clause.end)
        entities = list(clause.entities)
        access = list(clause.access)
        extra: list[str] = []
        # Context clauses ask for nothing, but their names are what the steps act on:
        # "The checkout-service deploy failed. ... check the rollout" must retrieve with
        # "checkout-service". We append only their salient items (identifiers, product
        # names, quoted text), not the whole clause, so the step's own verb and object
        # still dominate what it retrieves and a context verb ("deploy failed") cannot
        # pull a read step toward write tools. A context clause applies to the steps after
        # it; one that comes after every step applies to the steps before it.
        for j, ctx in enumerate(clauses):
            if not ctx.is_context:
                continue
            later = any(a > j for a in steps)
            if (later and j < i) or (not later and j > i):
                extra.extend(ctx.salient)
                # a framing phrase in the same sentence ("On GitHub, list ...") also
                # names the connection the step needs
                if ctx.sentence == clause.sentence:
                    access.extend(a for a in ctx.access if a not in access)
        if not access and default_access:
            # "In Calendly: cancel A, and create B": B happens in Calendly too
            access.extend(default_access)
            extra.extend(default_access.values())
        if clause.elliptical:
            # "restart them": the object is the most recent thing mentioned
            previous = next((c for c in reversed(clauses[:i]) if c.entities), None)
            if previous is not None:
                entities = list(previous.entities)
                extra.extend(e.replace("_", " ") for e in previous.entities)
        suffix: dict[str, str] = {}  # lowercase -> as written, first spelling wins
        for item in extra:
            if item.lower() not in text.lower():
                suffix.setdefault(item.lower(), item)
        if suffix:
            text = f"{text} ({', '.join(suffix.values())})"
        mutation = any(self._operations[o].mutates for o in clause.operations)
        return Subgoal(
            text=text,
            operations=clause.operations,
            entities=tuple(dict.fromkeys(entities)),
            required_access=tuple(dict.fromkeys(access)),
            mutation=mutation,
            named_access=clause.named,
        )

    def _join_back_references(
        self, request: str, masked: str, clauses: list[Clause]
    ) -> list[Clause]:
        """ "we agreed to set the owner to Jin; please update it": one step, not two. A step
        whose only object is a pronoun and that does what the step before it does joins it."""
        out: list[Clause] = []
        for clause in clauses:
            prev = out[-1] if out else None
            if (
                prev is not None
                and clause.kind == prev.kind == "action"
                and clause.back_reference
                and set(clause.operations) == set(prev.operations)
            ):
                span = Span(prev.start, clause.end, prev.sentence, "action", prev.head)
                out[-1] = self._analyse(request, masked, span)
            else:
                out.append(clause)
        return out

    def _default_access(self, request: str, masked: str) -> dict[str, str]:
        """Connections named by a leading "In Calendly:" prefix -> the name as written."""
        m = PREFIX_RE.match(masked)
        if m is None or self._verbs_in(request, masked, 0, m.end()):
            return {}
        found = self._connections.find(request, 0, m.end())
        out: dict[str, str] = {}
        for pos, stop, name in found:
            out.setdefault(name, request[pos:stop])
        return out

    # -- splitting --------------------------------------------------------------------

    def _segments(self, request: str, masked: str) -> list[Segment]:
        bounds: list[tuple[int, int, str]] = []  # (start, end, separator before)
        pos, separator = 0, "start"
        for m in SEPARATOR_RE.finditer(masked):
            bounds.append((pos, m.start(), separator))
            pos, separator = m.end(), m.lastgroup or "comma"
        bounds.append((pos, len(masked), separator))
        out: list[Segment] = []
        carried = ""  # the strongest separator before empty segments that were dropped
        for s, e, sep in bounds:
            if carried and SEPARATOR_RANK[carried] > SEPARATOR_RANK[sep]:
                sep = carried
            if not masked[s:e].strip(" \t.!?,"):
                carried = sep
                continue
            carried = ""
            verbs = self._verbs_in(request, masked, s, e)
            body = after_prefixes(masked, s, e)
            if all(v.operation == "_tool" and v.end <= body for v in verbs):
                verbs = []  # "run asana.updateTask: on DATA-8053, ...": the tool is a prefix
            out.append(Segment(s, e, sep, tuple(verbs)))
        if len(out) > 1:
            # a segment that only names where the step happens has no verb of its own,
            # even when the name is a tool id ("via rancher.namespace_create")
            out = [
                Segment(s.start, s.end, s.separator, ())
                if self._is_qualifier(request, masked, s.start, s.end)
                else s
                for s in out
            ]
        return out

    def _spans(self, request: str, masked: str, segments: list[Segment]) -> list[Span]:
        parts: list[list[Segment]] = []
        for seg in segments:
            if not parts or seg.separator in ("start", "hard", "ask"):
                parts.append([])
            parts[-1].append(seg)
        spans: list[Span] = []
        for n, part in enumerate(parts):
            new = self._part_spans(request, masked, part, n)
            prev = spans[-1] if spans else None
            if prev is not None and new and len(new) == 1 and not part[0].verbs:
                if self._is_qualifier(request, masked, part[0].start, part[-1].end):
                    spans[-1] = replace(prev, end=new[0].end)  # "...? via a.tool"
                    continue
            if (
                prev is not None
                and new
                and part[0].separator == "ask"
                and prev.kind == "action"
                and (
                    elaborates(prev.head, new[0].head)
                    or (new[0].kind == "noun" and prev.head in EDIT_VERBS)
                )
            ):
                # "could you change ticket X? set the status to done" / "? upgrade to 1.15"
                spans[-1] = replace(prev, end=new[0].end)
                new = new[1:]
            spans.extend(new)
        return spans

    def _part_spans(
        self, request: str, masked: str, segments: list[Segment], part: int
    ) -> list[Span]:
        out: list[Span] = []
        pending: list[Segment] = []  # verbless segments before the part's next step
        current: Span | None = None
        bare = False
        for n, seg in enumerate(segments):
            if not seg.verbs:
                following = segments[n + 1] if n + 1 < len(segments) else None
                if current is None:
                    if pending and seg.separator == "next":
                        # "'timeout' in issues, also the failed builds": two requests
                        out.append(
                            self._verbless(request, masked, pending[0].start, pending[-1].end, part)
                        )
                        pending = []
                    pending.append(seg)
                elif seg.separator == "next" or (
                    # "search X, on the Y bug, set the status": the place is the next step's;
                    # but a bare product before "and" closes the step before it ("post X,
                    # over in Slack and open a ticket"): a place for the next step would
                    # follow the "and"
                    seg.separator == "comma"
                    and following is not None
                    and following.verbs
                    and (
                        following.separator == "comma"
                        or (
                            following.separator == "and"
                            and not self._is_qualifier(request, masked, seg.start, seg.end)
                        )
                    )
                    and self._first_word(masked, seg) in FRAMING_WORDS
                ):
                    out.append(current)
                    current, pending = None, [seg]
                else:
                    # "check the logs and metrics": no verb, so it continues the step
                    current, bare = replace(current, end=seg.end), False
                continue
            head = next((v.phrase for v in seg.verbs if v.operation != "_tool"), "")
            if current is None:
                start = seg.start
                k = len(pending)
                if self._refers_back(request, masked, seg):
                    k = 0  # "the PR #12 on acme/web, can you merge it?": one step
                elif seg.separator == "and" and k > 1 and self._is_qualifier(
                    request, masked, pending[k - 1].start, pending[k - 1].end
                ):
                    pass  # "X, over in Datadog and list Y": the product closes X, as above
                else:
                    if seg.separator == "and" and k:
                        k -= 1  # "please review and approve PR #12": a verb we do not know
                    while k and self._frames(request, masked, pending[k - 1]):
                        k -= 1
                if k:
                    out.append(
                        self._verbless(request, masked, pending[0].start, pending[k - 1].end, part)
                    )
                if k < len(pending):
                    start = pending[k].start
                pending = []
                current = Span(start, seg.end, part, "action", head)
                bare = start == seg.start and is_bare(masked, seg.start, seg.end, seg.verbs)
                continue
            if bare or (seg.separator == "and" and elaborates(current.head, head)):
                # "find and delete the stale branches": a bare verb joins the next one
                current = replace(current, end=seg.end, head=current.head or head)
                bare = False
                continue
            out.append(current)
            current = Span(seg.start, seg.end, part, "action", head)
            bare = is_bare(masked, seg.start, seg.end, seg.verbs)
        if current is not None:
            out.append(current)
        if pending:
            out.append(self._verbless(request, masked, pending[0].start, pending[-1].end, part))
        return out

    def _frames(self, request: str, masked: str, seg: Segment) -> bool:
        """A verbless segment that belongs to the step after it: a place or product
        ("on WEB-9119", "In Calendly"), or nothing to ask for ("lgtm")."""
        return (
            self._first_word(masked, seg) in ("", *FRAMING_WORDS)
            or not self._has_content(request, seg.start, seg.end)
            or self._is_qualifier(request, masked, seg.start, seg.end)
        )

    def _refers_back(self, request: str, masked: str, seg: Segment) -> bool:
        """The segment's object is a pronoun ("merge it") and it names no entity."""
        words = {w.lower() for w in WORD_RE.findall(masked[seg.start : seg.end])}
        return bool(words & BACK_REFERENCES) and not self._entities.find(
            request, seg.start, seg.end
        )

    def _first_word(self, masked: str, seg: Segment) -> str:
        """The first word after any "Product:" / "PAY-12:" prefix, lowercase."""
        body = after_prefixes(masked, seg.start, seg.end)
        m = _FIRST_WORD_RE.search(masked, body, seg.end)
        return m.group().lower() if m else ""

    def _verbless(self, request: str, masked: str, start: int, end: int, part: int) -> Span:
        """A verbless phrase is a request of its own ("buckets in the prod account") unless
        it states what happened or holds nothing to ask for."""
        text = request[after_prefixes(masked, start, end) : end]
        step = (
            self._has_content(request, start, end)
            and not is_statement(text)
            and not is_chatter(text)
        )
        return Span(start, end, part, "noun" if step else "context")

    def _has_content(self, request: str, start: int, end: int) -> bool:
        """Anything to ask about besides product names: "BambooHR: lgtm" has nothing."""
        chars = list(request[start:end])
        for pos, stop, _ in self._connections.find(request, start, end):
            chars[pos - start : stop - start] = " " * (stop - pos)
        return has_content("".join(chars), 0, end - start)

    def _is_qualifier(self, request: str, masked: str, start: int, end: int) -> bool:
        """Only a product or tool name, with words like "using", "over in", "this is in"."""
        names = [(pos, stop) for pos, stop, _ in self._connections.find(request, start, end)]
        names += [
            (pos, stop)
            for pos, stop in chunks(request, start, end)
            if request[pos:stop].lower() in self._vocab.tools
        ]
        if not names:
            return False
        chars = list(masked[start:end].lower())
        for pos, stop in names:
            chars[pos - start : stop - start] = " " * (stop - pos)
        return all(w in QUALIFIER_WORDS for w in WORD_RE.findall("".join(chars)))

    def _analyse(self, request: str, masked: str, span: Span) -> Clause:
        start, end = span.start, span.end
        verbs = self._verbs_in(request, masked, start, end) if span.kind == "action" else []
        verb_spans = [(v.start, v.end) for v in verbs if v.operation != "_tool"]
        entities = [
            (pos, name)
            for pos, stop, name in self._entities.find(request, start, end)
            if not any(vs < stop and pos < ve for vs, ve in verb_spans)
        ]
        found = self._connections.find(request, start, end)
        access = [(pos, name) for pos, _, name in found]
        # a quoted name is a value ("news about 'AWS outage'"), and so is a name inside a
        # path ("secret/payments/stripe"): neither is where the step acts
        named = [name for pos, stop, name in found
                 if masked[pos:stop] == request[pos:stop] and not in_path(request, pos, stop)]
        operations: list[str] = []
        for verb in verbs:
            if verb.operation == "_tool":
                ref = self._vocab.tools[request[verb.start : verb.end].lower()]
                operations.extend(ref.operations)
                if ref.connection:
                    access.append((verb.start, ref.connection))
                    named.append(ref.connection)
            else:
                operations.append(verb.operation)
        access.sort()
        salient: tuple[str, ...] = ()
        if span.kind == "context":
            salient = salient_names(request, start, end, self._connections)
        bare = bool(verbs) and is_bare(masked, start, end, verbs)
        words = {t.lower() for t in re.findall(r"\w+", masked[start:end])}
        return Clause(
            start=start,
            end=end,
            sentence=span.part,
            kind=span.kind,
            head=span.head,
            operations=tuple(dict.fromkeys(operations)),
            entities=tuple(dict.fromkeys(name for _, name in entities)),
            access=tuple(dict.fromkeys(name for _, name in access)),
            named=tuple(dict.fromkeys(named)),
            salient=salient,
            elliptical=not entities and (bare or bool(words & PRONOUNS)),
            back_reference=not entities and bool(words & BACK_REFERENCES),
        )

    # -- matching ---------------------------------------------------------------------

    def _verbs_in(self, request: str, masked: str, start: int, end: int) -> list[Verb]:
        """Operation verbs in imperative position, plus exact tool ids (as `_tool`)."""
        text = masked[start:end].lower().replace("’", "'")
        claimed: list[Verb] = []
        for m in self._verb_re.finditer(text):
            phrase = " ".join(m.group().split())
            claimed.append(
                Verb(m.start(), m.end(), self._verbs[phrase], phrase.startswith(WH_WORDS), phrase)
            )
        for pattern, op_name, phrase in self._gapped_res:
            for m in pattern.finditer(text):
                inside = [v for v in claimed if v.start < m.end() and m.start() < v.end]
                # the gapped verb wins over a shorter one it starts with: "drop ... a note"
                if all(v.start == m.start() and v.end < m.end() for v in inside):
                    claimed = [v for v in claimed if v not in inside]
                    claimed.append(Verb(m.start(), m.end(), op_name, False, phrase))
        claimed.sort(key=lambda v: v.start)
        tools = [
            Verb(pos - start, stop - start, "_tool", False)
            for pos, stop in chunks(request, start, end)
            if request[pos:stop].lower() in self._vocab.tools
        ]
        entity_starts = {
            pos - start: stop - start
            for pos, stop, _ in self._entities.find(request, start, end)
        }
        # a product's name holds no verb: "New Relic" creates nothing
        names = [(pos - start, stop - start)
                 for pos, stop, _ in self._connections.find(request, start, end)]
        counted: list[Verb] = []
        for verb in claimed:
            prev = prev_token(text, verb.start)
            ok = prev is None or prev in PUNCT_LEAD or is_lead_in(prev)
            if not ok and verb.wh and counted:
                ok = not text[counted[-1].end : verb.start].strip()
            following = text[verb.end :].split(maxsplit=1)
            operation = self._operations.get(verb.operation)
            if ok and operation is not None and operation.mutates and following:
                ok = following[0].strip(".,;:!?") not in NOUN_TAILS
            if ok and verb.phrase in INTENT_VERBS and following:
                ok = following[0] != "to"  # "I need to restart it": "restart" is the step
            if ok and entity_starts.get(verb.start, verb.end) > verb.end:
                ok = False  # the verb opens a known entity name ("merge requests")
            if ok and any(p <= verb.start and verb.end <= q and q - p > verb.end - verb.start
                          for p, q in names):
                ok = False
            if ok and in_relative_clause(text, verb.start):
                ok = False  # "spaces I can edit": what the spaces allow, not the step
            if ok and verb.phrase in ADJECTIVE_VERBS and following and is_bare_plural(
                    following[0]):
                ok = False  # "new leads since Monday", "open PRs": which ones, not a create
            if ok and any(t.start == next_start(text, verb.end) for t in tools):
                ok = False  # "run github.list_commits": the tool says what happens
            if ok and counted and not verb.wh:
                # right after another verb it is an adjective: "show me open incidents"
                ok = not _ADJACENT_RE.fullmatch(text[counted[-1].end : verb.start])
            if (ok and verb.operation == "get" and verb.phrase not in INTENT_VERBS
                    # `masked` keeps the request's case (a name is capitalised)
                    and asks_for_many(masked[start + verb.end : end])):
                verb = Verb(verb.start, verb.end, "list", verb.wh, verb.phrase)
            if ok:
                counted.append(verb)
        counted = [v for v in counted if v.operation != NO_OPERATION]
        merged = sorted(counted + tools, key=lambda v: v.start)
        return [Verb(v.start + start, v.end + start, v.operation, v.wh, v.phrase) for v in merged]

"""`Selector`: the runtime entry point an agent builds from a bundle.

One request: decompose -> per subgoal retrieve (masked by the session) -> fuse -> hard
filters -> rerank to a menu -> disclose. Retrieve, fuse, filter and rerank are `Stage`s
(`serving.model.selection`) that `run_stages` runs and times. Every stage's output and latency
is kept for the trace, which is the next training run's input.

Beside it: the result types (`serving.results`), the per-request bounds (`serving.bounds`),
the factory that builds a selector from a bundle (`serving.assembly`) and the call path
(`serving.calls.facade`, which `Selector` inherits).
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from serving.assembly import (
    assemble,
    build_retrievers,
    bundle_encoder,
    dense_retriever,
    encoder_threads,
    open_selector,
)
from serving.bounds import bounded_request, bounded_subgoals, rerank_depth
from serving.bundle.encoder import TextEncoder
from serving.bundle.files import Bundle
from serving.calls.facade import CallFacade
from serving.calls.gate import SearchTools
from serving.calls.observe import follow_ups
from serving.calls.policy import RiskPolicy
from serving.decompose import Decomposer, DecomposerVocabulary
from serving.model.config import RuntimeParams
from serving.model.schema import ToolCard
from serving.model.selection import (
    Candidate,
    Selection,
    SessionContext,
    Stage,
    Subgoal,
    resolve_connections,
    run_stages,
)
from serving.model.text import request_text
from serving.operations import otel
from serving.results import DEFAULT_RANKED, INTENT_COLUMN, Discovery, RankedStep, StepResult
from serving.stages.abstain import (
    EMPTY_MENU,
    OUTSIDE_SESSION,
    abstaining_steps,
    no_tool_reason,
    served_nowhere,
    served_probability,
    step_signals,
)
from serving.stages.disclose import disclose_discovery, disclose_selection
from serving.stages.filters import HardFilter
from serving.stages.intent import PAIR_TOP, STOCK_SIGNALS, IntentScorer, intent_scorer
from serving.stages.menu_policy import (
    MenuBars,
    MenuPolicy,
    is_exact,
    other_operation,
    withhold_writes,
)
from serving.stages.missing_access import (
    MissingAccess,
    close_enough,
    closer_than_session,
    closest_cosine,
    lacked,
    missing_access,
    unconnected_products,
)
from serving.stages.rerank import (
    CutStage,
    DenseOrderReranker,
    LearnedReranker,
    Reranker,
    RerankStage,
    named_products,
)
from serving.stages.retrieve import (
    AccessIndex,
    BM25Retriever,
    ExactNameMatcher,
    FuseStage,
    RetrieveStage,
)
from serving.stages.routing import DomainRouter

# the result types, the bounds and the factory live in their own modules; every name
# callers import from here stays importable from here
__all__ = [
    "DEFAULT_RANKED",
    "INTENT_COLUMN",
    "Discovery",
    "RankedStep",
    "Selector",
    "StepResult",
    "bounded_request",
    "bounded_subgoals",
    "dense_retriever",
    "rerank_depth",
]

log = logging.getLogger(__name__)

# the stock encoder's calls, run beside the retriever's (`Selector._stock_start`); threads
# enough for a gateway's concurrent searches (onnxruntime releases the GIL while it runs)
def _beside_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=8, thread_name_prefix="toolsift-stock")


_BESIDE = _beside_pool()


def _renew_beside_pool() -> None:
    """A forked child inherits the pool's bookkeeping but none of its threads: work it
    submitted would wait forever. It gets a pool of its own."""
    global _BESIDE
    _BESIDE = _beside_pool()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_beside_pool)


@dataclass(frozen=True, slots=True)
class _StockJob:
    """The stock signals of one `_select`, under way: `embedded` None means the retriever's
    own vectors are the stock ones."""

    scorer: IntentScorer
    reads: frozenset[str]
    wants_request: bool
    embedded: Future[np.ndarray] | None


class Selector(CallFacade):
    """Assembled from a bundle; no per-request state, safe to share across threads."""

    def __init__(
        self,
        bundle: Bundle,
        *,
        params: RuntimeParams,
        decomposer: Decomposer,
        reranker: Reranker,
        policy: RiskPolicy,
        encoder: TextEncoder,
        bm25: BM25Retriever,
        named_connections: frozenset[str] | None = None,
        menu_policy: MenuPolicy | None = None,
    ) -> None:
        """`named_connections`: the catalog's distinctive connection names
        (`DecomposerVocabulary.distinctive`; computed from the cards when None);
        `menu_policy`: the bars and the no-tool model (the bundle's `menus.json`)."""
        self.bundle = bundle
        self.params = params
        self.decomposer = decomposer
        self.reranker = reranker
        self.policy = policy
        self.encoder = encoder
        self.cards: dict[str, ToolCard] = {c.tool_id: c for c in bundle.cards}
        self._ids = [c.tool_id for c in bundle.cards]
        self._rows = {tool_id: row for row, tool_id in enumerate(self._ids)}
        self._access = AccessIndex(bundle.cards)
        self._bm25 = bm25
        self._retrievers = build_retrievers(bundle, params, bm25)
        self._exact = ExactNameMatcher(bundle.cards)
        if named_connections is None:
            named_connections = DecomposerVocabulary.from_cards(bundle.cards).distinctive
        self.named_connections = named_connections
        self.menu_policy = (menu_policy or MenuPolicy()) if params.menu_policy else MenuPolicy()
        self._intent: IntentScorer | None = None
        self._intent_resolved = False
        self._router = (
            DomainRouter.build([c.domain for c in bundle.cards], bundle.embeddings)
            if params.routing == "domain"
            else None
        )

    def with_models(
        self,
        *,
        bundle: Bundle | None = None,
        reranker: Reranker | None = None,
        encoder: TextEncoder | None = None,
        intent: IntentScorer | None = None,
        menu_policy: MenuPolicy | None = None,
    ) -> Selector:
        """This selector with some models swapped and everything else kept (params,
        decomposer, risk and menu policy, BM25 index, named connections): a variant
        rebuilt field by field drops whatever field it forgets. `intent`: the
        request-intent head already resolved (`intent_scorer`) for this selector's
        bundle and encoder, e.g. with its encoder behind a shared cache; None: resolved
        on first use, as usual. `menu_policy`: the bars and no-tool model to use instead
        of the bundle's."""
        swapped = Selector(
            self.bundle if bundle is None else bundle,
            params=self.params,
            decomposer=self.decomposer,
            reranker=self.reranker if reranker is None else reranker,
            policy=self.policy,
            encoder=self.encoder if encoder is None else encoder,
            bm25=self._bm25,
            named_connections=self.named_connections,
            menu_policy=self.menu_policy if menu_policy is None else menu_policy,
        )
        if intent is not None:
            swapped.use_intent(intent)
        return swapped

    def use_intent(self, scorer: IntentScorer) -> None:
        """Read the request intent with `scorer`, already resolved (`intent_scorer`) for
        this selector's bundle, e.g. with its encoder batched or cached, instead of
        resolving the head on first use."""
        self._intent, self._intent_resolved = scorer, True

    @classmethod
    def from_bundle(
        cls,
        path: str | Path,
        *,
        decomposer: Decomposer | None = None,
        reranker: str | None = None,
        policy: RiskPolicy | None = None,
        overrides: Mapping[str, Any] | None = None,
        expect_version: str | None = None,
        public_key: Any = None,
    ) -> Selector:
        """Verify and load a bundle (`serving.assembly.open_selector`): `expect_version`
        pins the bundle, `public_key` requires a valid signature."""
        return open_selector(
            cls, path, decomposer=decomposer, reranker=reranker, policy=policy,
            overrides=overrides, expect_version=expect_version, public_key=public_key,
        )

    @classmethod
    def from_loaded(
        cls,
        bundle: Bundle,
        *,
        decomposer: Decomposer | None = None,
        reranker: str | None = None,
        policy: RiskPolicy | None = None,
        overrides: Mapping[str, Any] | None = None,
        bm25: BM25Retriever | None = None,
        encoder: TextEncoder | None = None,
    ) -> Selector:
        """Assemble from a loaded (or in-memory changed) bundle (`serving.assembly.assemble`);
        `bm25`: an index over exactly `bundle.cards` (default: the bundle's)."""
        return assemble(
            cls, bundle, decomposer=decomposer, reranker=reranker, policy=policy,
            overrides=overrides, bm25=bm25, encoder=encoder,
        )

    @classmethod
    def make_encoder(
        cls, bundle: Bundle, overrides: Mapping[str, Any] | None = None
    ) -> TextEncoder:
        """The encoder a Selector over `bundle` embeds requests with (to share one)."""
        return bundle_encoder(bundle, overrides)


    @property
    def ranking_floor(self) -> float:
        """The relevance below which a tool leaves the shortlist (`StepResult.shortlist`):
        `min_relevance`, raised to the ranker's calibrated cut when `calibrated_menus`."""
        calibration = (
            self.reranker.calibration
            if isinstance(self.reranker, LearnedReranker | DenseOrderReranker) else None
        )
        if self.params.calibrated_menus and calibration is not None:
            return max(self.params.min_relevance, calibration.min_relevance)
        return self.params.min_relevance

    @property
    def menu_bars(self) -> MenuBars:
        """The bars of the menu policy, never below `ranking_floor`."""
        floor, bars, p = self.ranking_floor, self.menu_policy.bars, self.params
        return replace(bars, read=max(floor, bars.read),
                       write=max(floor, bars.write, p.write_floor),
                       write_relative=max(bars.write_relative, p.write_relative))

    # --- public API -------------------------------------------------------------

    def session_context(
        self, context: SessionContext | Mapping[str, Any] | None
    ) -> tuple[SessionContext, tuple[str, ...]]:
        """The session as this catalog reads it (`resolve_connections`): server names in
        `connections` stand for their tools' connections; also the names that are neither
        a server nor a connection here, for the caller to warn about. Raises `TypeError`
        for a context of the wrong shape."""
        ctx = context if isinstance(context, SessionContext) else SessionContext.from_dict(context)
        return resolve_connections(ctx, self.cards.values())

    def discover(
        self, request: str, context: SessionContext | Mapping[str, Any] | None = None
    ) -> Discovery:
        """Decompose `request`, then retrieve, filter and rerank per subgoal. Raises
        `TypeError` naming the argument for a request that is not a string or a context
        of the wrong shape. A `toolsift.discover` span when the host traces
        (`serving.operations.otel`)."""
        with otel.discover_span() as span:
            discovery = self._discover(request, context)
            span.record(discovery, bundle_version=self.bundle.manifest.bundle_version)
        return discovery

    def _discover(
        self, request: str, context: SessionContext | Mapping[str, Any] | None
    ) -> Discovery:
        request = request_text(request, "request")
        ctx = context if isinstance(context, SessionContext) else SessionContext.from_dict(context)
        p = self.params
        t0 = time.perf_counter()
        request, subgoals, warnings = self.bounded_steps(request)
        t_decompose = (time.perf_counter() - t0) * 1e3
        whole = self.whole_request(request, subgoals)
        depth, shallow = rerank_depth(
            len(subgoals) + (whole is not None), p.rerank_depth, p.max_rerank_pairs
        )
        warnings += shallow
        for warning in warnings:
            log.warning("discover: %s", warning)
        # the whole request is embedded with its parts (one call, beside the stock encoder)
        steps, request_vector, also = self._select(
            subgoals, ctx, request=request, depth=depth,
            encode_also=[whole.text] if whole else [])
        request_step = (
            self._select([whole], ctx, request=request, depth=depth,
                         request_vector=request_vector, vectors=also)[0][0] if whole else None
        )
        return Discovery(
            request_id=uuid.uuid4().hex,
            request=request,
            context=ctx,
            steps=tuple(steps),
            timings_ms={"decompose": t_decompose, "total": (time.perf_counter() - t0) * 1e3},
            request_step=request_step,
            request_weight=self.params.request_weight,
            rrf_k=self.params.rrf_k,
            request_order=self.params.request_order,
            warnings=tuple(warnings),
        )

    def bounded_steps(self, request: str) -> tuple[str, list[Subgoal], list[str]]:
        """The request as `discover` reads it (cut to `max_request_chars`), its subgoals
        (at most `max_subgoals`) and a warning for each cut."""
        p = self.params
        request, warnings = bounded_request(request, p.max_request_chars)
        subgoals, cut = bounded_subgoals(self.decomposer.decompose(request), p.max_subgoals)
        return request, list(subgoals), [*warnings, *cut]

    def stock_reads(self) -> set[str]:
        """The signals of the stock encoder (`STOCK_SIGNALS`) the no-tool decision reads:
        both when there is no model (they are traced, and `tune_menus` fits on them)."""
        model = self.menu_policy.no_tool
        return set(STOCK_SIGNALS) & set(STOCK_SIGNALS if model is None else model.signals)

    def whole_request(self, request: str, subgoals: Sequence[Subgoal]) -> Subgoal | None:
        """The request as one more subgoal, retrieved beside its parts; None when it adds
        nothing (one subgoal that is the request) or `request_weight` is 0. Its operations
        are left empty: a request mixing reads and writes has no single intent, so the
        intent filter must keep both; entities and connections are its parts' union."""
        text = request.strip()
        if self.params.request_weight <= 0 or not subgoals:
            return None
        if len(subgoals) == 1 and subgoals[0].text == text:
            return None
        return Subgoal(
            text=text,
            entities=tuple(dict.fromkeys(e for s in subgoals for e in s.entities)),
            required_access=tuple(dict.fromkeys(a for s in subgoals for a in s.required_access)),
            named_access=tuple(dict.fromkeys(a for s in subgoals for a in s.named_access)),
        )

    def select(
        self,
        subgoals: Sequence[Subgoal],
        ctx: SessionContext,
        *,
        request: str = "",
        depth: int | None = None,
    ) -> list[StepResult]:
        """Run retrieval to disclosure for given subgoals (batch-encoding them once);
        `depth`: candidates reranked per subgoal (default `rerank_depth`)."""
        return self._select(subgoals, ctx, request=request, depth=depth)[0]

    def _select(
        self,
        subgoals: Sequence[Subgoal],
        ctx: SessionContext,
        *,
        request: str = "",
        depth: int | None = None,
        request_vector: np.ndarray | None = None,
        vectors: np.ndarray | None = None,
        encode_also: Sequence[str] = (),
    ) -> tuple[list[StepResult], np.ndarray | None, np.ndarray]:
        """`select`, the request's stock vector the pair head read (given back so the
        whole-request step reuses it) and the retriever's vectors of `encode_also`,
        embedded in the same call as the subgoals (`vectors`: theirs, already embedded, and
        then nothing else is)."""
        if not subgoals:  # nothing to split: no whole request either
            return [], request_vector, np.zeros((0, 0), dtype=np.float32)
        t0 = time.perf_counter()
        mask = self._access.mask(ctx)
        stock = self._stock_start(subgoals, request, request_vector)
        if vectors is None:
            embedded = self.encoder.encode([s.text for s in subgoals] + list(encode_also))
            vectors, also = embedded[: len(subgoals)], embedded[len(subgoals):]
        else:
            assert not encode_also, "encode_also is embedded with the subgoals, not apart"
            also = vectors[:0]
        intents, request_vector = self._stock_finish(stock, subgoals, vectors, request,
                                                     request_vector)
        t_shared = (time.perf_counter() - t0) * 1e3 / len(subgoals)
        exact_in_request = self._exact.match(request) if request else []
        placed = {r for s in subgoals for r in self._exact.match(s.text)}
        orphans = [r for r in exact_in_request if r not in placed]
        ranked = [
            self._rank_one(
                sg,
                vec,
                mask,
                ctx,
                extra_exact=orphans if i == 0 else [],
                depth=self.params.rerank_depth if depth is None else depth,
                intent=float(intent),
                request_vector=request_vector,
            )
            for i, (sg, vec, intent) in enumerate(zip(subgoals, vectors, intents, strict=True))
        ]
        model = self.menu_policy.no_tool
        abstains = (abstaining_steps([r.p_served for r in ranked], model) if model is not None
                    else [False] * len(ranked))
        return [self._finish_one(r, ctx, abstain=a, shared_ms=t_shared)
                for r, a in zip(ranked, abstains, strict=True)], request_vector, also

    def intent(self) -> IntentScorer | None:
        """The request-intent head and the encoder it reads, resolved on first use (None,
        with a warning once, when there is none)."""
        if not self._intent_resolved:
            self._intent, why = intent_scorer(self.bundle, self.encoder,
                                              threads=encoder_threads(self.bundle.root,
                                                                      self.params),
                                              weights=self.params.intent_weights)
            self._intent_resolved = True
            if self._intent is None:
                log.warning("the request-intent signals are off (0 for every step): %s", why)
        return self._intent

    def stock_signals(
        self, subgoals: Sequence[Subgoal], vectors: np.ndarray, request: str = "",
        request_vector: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The request-intent head's logit per subgoal and the whole request's stock vector
        for the pair head (`serving.stages.intent`; None without a request or a pair head,
        and each step is then its own request): computed when the no-tool model reads
        them, or when there is no model (the signals are traced and `tune_menus` fits on
        them); zeros and None when no head or encoder is at hand. One encoder call embeds
        the subgoals and the request."""
        return self._stock_finish(self._stock_start(subgoals, request, request_vector),
                                  subgoals, vectors, request, request_vector)

    def _stock_start(
        self, subgoals: Sequence[Subgoal], request: str, request_vector: np.ndarray | None,
    ) -> _StockJob | None:
        """`stock_signals`' embedding, started on a worker thread where the head reads an
        encoder of its own, so it runs beside the retriever's (two models, two cores: ~35%
        less wall time than one after the other); None where there is nothing to embed."""
        reads = self.stock_reads()
        scorer = self.intent() if reads else None
        if scorer is None:
            return None
        texts = [s.text for s in subgoals]
        request = request.strip()
        wants_request = (request_vector is None and bool(request) and "pair_served" in reads
                         and scorer.head.pair_weights is not None)
        if scorer.encoder is None:  # the retriever is the stock encoder: reuse its vectors
            return _StockJob(scorer, frozenset(reads), wants_request, None)
        extra = [request] if wants_request and request not in texts else []
        return _StockJob(scorer, frozenset(reads), wants_request,
                         _BESIDE.submit(scorer.encoder.encode, texts + extra))

    def _stock_finish(
        self, job: _StockJob | None, subgoals: Sequence[Subgoal], vectors: np.ndarray,
        request: str, request_vector: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        if job is None:
            return np.zeros(len(subgoals)), None
        texts = [s.text for s in subgoals]
        request = request.strip()
        if job.embedded is None:
            stock = vectors
            if job.wants_request:
                request_vector = (vectors[texts.index(request)] if request in texts
                                  else self.encoder.encode([request])[0])
        else:
            stock = job.embedded.result()
            if job.wants_request:
                request_vector = stock[-1] if len(stock) > len(texts) else stock[
                    texts.index(request)]
            stock = stock[: len(texts)]
        intents = (job.scorer.head.logits(stock) if "request_intent" in job.reads
                   else np.zeros(len(subgoals)))
        return intents, request_vector

    def pair_served(self, request_vector: np.ndarray | None, tops: Sequence[str]) -> float:
        """The pair head's best logit of the request against the tools `tops` (a step's
        first `PAIR_TOP` reranked); 0 without a request vector, a pair head or tools."""
        scorer = self._intent
        if (request_vector is None or scorer is None or scorer.head.pair_weights is None
                or not tops):
            return 0.0
        if scorer.encoder is None:  # a stock bundle: its own embeddings are the cards'
            cards = self.bundle.embeddings[[self._rows[t] for t in tops]]
        else:
            cards = scorer.card_vectors([self.cards[t] for t in tops])
        return float(scorer.head.pair_logits(request_vector, cards).max())

    def search_tools(
        self,
        query: str,
        context: SessionContext | Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
    ) -> list[str]:
        """Discovery for the `search_tools` meta-tool: what the menus for a free query
        offer (`Discovery.search_hits`, as the gateway's search answers)."""
        discovery = self.discover(request_text(query, "query"), context)
        return discovery.search_hits(limit or self.params.menu_size * 2)

    def search_tools_tool(self, context: SessionContext | Mapping[str, Any] | None) -> SearchTools:
        """The `search_tools` meta-tool bound to this session (same predicates as discovery)."""
        return SearchTools(
            discover=lambda query: self.search_tools(query, context),
            summarize=lambda tool_id: self.cards[tool_id].summary,
        )

    def follow_up(
        self,
        observation_text: str,
        context: SessionContext | Mapping[str, Any] | None,
        *,
        allow_mutation: bool = False,
    ) -> list[StepResult]:
        """Discovery again for what an observation asks to do next (`observe.follow_ups`):
        read steps only unless `allow_mutation`, since observations are untrusted text."""
        observation_text = request_text(observation_text, "observation_text")
        ctx = context if isinstance(context, SessionContext) else SessionContext.from_dict(context)
        subgoals = follow_ups(
            observation_text, self.decomposer.decompose, allow_mutation=allow_mutation
        )
        return self.select(subgoals, ctx)

    def describe(self, tool_id: str) -> ToolCard:
        try:
            return self.cards[tool_id]
        except KeyError:
            raise KeyError(
                f"unknown tool {tool_id!r} (not in bundle {self.bundle.manifest.bundle_version})"
            ) from None

    # --- one subgoal ------------------------------------------------------------

    def candidates(
        self, subgoal: Subgoal, ctx: SessionContext, *, vector: np.ndarray | None = None
    ) -> tuple[Candidate, ...]:
        """What the menu stage would rerank for `subgoal` in this session: retrieval,
        fusion and the hard filters, fused order (training replays traces with it).
        `vector`: the subgoal's embedding when the caller encoded many in one batch (one
        text at a time costs ~15x more per text on a CPU)."""
        if vector is None:
            vector = self.encoder.encode([subgoal.text])[0]
        stages: list[tuple[str, Stage]] = [
            *self._retrieval_stages(vector, self._access.mask(ctx), extra_exact=[]),
            ("filter", HardFilter(self.cards, ctx, self.policy)),
        ]
        return run_stages(Selection(subgoal), stages).candidates

    def _retrieval_stages(
        self, vector: np.ndarray, mask: np.ndarray, *, extra_exact: Sequence[int]
    ) -> list[tuple[str, Stage]]:
        """`retrieve` then `fuse` for one subgoal (its vector, the session's mask)."""
        p = self.params
        return [
            (
                "retrieve",
                RetrieveStage(
                    self._retrievers,
                    self._ids,
                    vector,
                    mask,
                    p.n_per_retriever,
                    router=self._router,
                    route_domains=p.route_domains,
                ),
            ),
            (
                "fuse",
                FuseStage(
                    self._rows, self._ids, self._exact, p.rrf_k, p.n_fused,
                    extra_exact=extra_exact, sources=tuple(self._retrievers),
                ),
            ),
        ]

    def _rank_one(
        self,
        subgoal: Subgoal,
        vector: np.ndarray,
        mask: np.ndarray,
        ctx: SessionContext,
        *,
        extra_exact: Sequence[int],
        depth: int,
        intent: float = 0.0,
        request_vector: np.ndarray | None = None,
    ) -> RankedStep:
        """Retrieve, filter and rerank one subgoal, and its no-tool signals: what the
        request-level decision (`abstaining_steps`) reads before any menu is cut."""
        p = self.params
        # three runs, so the trace keeps the set after fusion and after the filters
        sel = run_stages(
            Selection(subgoal), self._retrieval_stages(vector, mask, extra_exact=extra_exact)
        )
        retrieved = sel.candidates
        sel = run_stages(sel, [("filter", HardFilter(self.cards, ctx, self.policy))])
        filtered = sel.candidates
        rerank = RerankStage(
            self.reranker,
            self.cards,
            depth=depth,
            named_connections=self.named_connections if p.named_connections_first else (),
        )
        sel = run_stages(sel, [("rerank", rerank)])
        ranked = sel.candidates
        t = time.perf_counter()
        lacking = unconnected_products(subgoal, self.named_connections, ctx)
        connected = [a for a in named_products(subgoal, self.named_connections)
                     if a not in lacking]
        # a step cut from no request (a follow-up) is its own request
        own = request_vector if request_vector is not None else self._own_vector(subgoal, vector)
        pair_tools = tuple(c.tool_id for c in ranked[:PAIR_TOP])
        pair = self.pair_served(own, pair_tools)
        signals = step_signals(subgoal, ranked, connected, self._bm25.vocab, intent, pair)
        p_served = served_probability(self.menu_policy.no_tool, signals,
                                      names_tool=any(is_exact(c) for c in ranked),
                                      has_candidates=bool(ranked))
        return RankedStep(vector, sel, retrieved, filtered, tuple(lacking), signals, p_served,
                          depth, (time.perf_counter() - t) * 1e3, own, pair_tools)

    def _other_operations(self, subgoal: Subgoal, ranked: Sequence[Candidate]) -> frozenset[str]:
        """The writes among `ranked` that do something else than the step asks, where the
        runtime withholds them (`write_needs_operation`)."""
        if not self.params.write_needs_operation:
            return frozenset()
        return frozenset(c.tool_id for c in ranked
                         if other_operation(subgoal, self.cards[c.tool_id]))

    def _own_vector(self, subgoal: Subgoal, vector: np.ndarray) -> np.ndarray | None:
        """The step's own stock vector, for a step without a request (None when no pair
        head is at hand)."""
        scorer, model = self._intent, self.menu_policy.no_tool
        if (scorer is None or scorer.head.pair_weights is None
                or (model is not None and "pair_served" not in model.signals)):
            return None
        return vector if scorer.encoder is None else scorer.encoder.encode([subgoal.text])[0]

    def _finish_one(
        self, step: RankedStep, ctx: SessionContext, *, abstain: bool, shared_ms: float
    ) -> StepResult:
        """Cut the menu (empty when the step abstains), look up what the session lacks,
        disclose."""
        p = self.params
        sel, subgoal, lacking = step.selection, step.selection.subgoal, step.lacking
        floor = self.ranking_floor
        ranked = sel.candidates
        shortlist = tuple(c for c in ranked if c.score >= floor or is_exact(c))[: p.menu_size]
        abstention = no_tool_reason(step.p_served, lacking) if abstain else None
        cut = CutStage(self.cards, self.menu_bars, p.menu_size, p.tie_margin,
                       abstain=abstain, keep_best=self.menu_policy.no_tool is not None,
                       caution_bar=p.caution_bar, no_writes=bool(lacking),
                       other_operations=self._other_operations(subgoal, ranked))
        sel = run_stages(sel, [("menu", cut)])
        if abstention is None and not sel.candidates:
            abstention = EMPTY_MENU
        t = time.perf_counter()
        closest = closest_cosine(step.filtered)
        missing = self.missing_access(subgoal, step.vector, ctx, sel.candidates, lacking,
                                      step.depth, intent=float(step.signals[INTENT_COLUMN]),
                                      request_vector=step.request_vector, closest=closest)
        missing_ms = (time.perf_counter() - t) * 1e3
        if (missing and p.missing_withholds_writes
                and self._named_closer(missing, step.vector, closest)):
            kept, withheld = withhold_writes(sel.candidates, self.cards)
            sel = replace(sel, candidates=tuple(kept), dropped=(*sel.dropped, *withheld))
            if abstention is None and not kept:
                abstention = OUTSIDE_SESSION

        # disclosure renders the menu for the prompt (not a Selection -> Selection stage)
        t = time.perf_counter()
        discovery = disclose_discovery(sel.candidates, self.cards)
        selection = disclose_selection(sel.candidates, self.cards, margin=p.disclosure_margin)
        decisions = {c.tool_id: self.policy.decide(self.cards[c.tool_id]) for c in sel.candidates}
        disclose_ms = (time.perf_counter() - t) * 1e3
        return StepResult(
            subgoal=subgoal,
            retrieved=step.retrieved,
            filtered=step.filtered,
            menu=sel.candidates,
            dropped=sel.dropped,
            discovery=discovery,
            selection=selection,
            decisions=decisions,
            # the batch encode is shared by the request's subgoals: its per-subgoal share
            timings_ms={"encode": shared_ms, **sel.timings_ms, "decide": step.decide_ms,
                        "missing": missing_ms, "disclose": disclose_ms},
            shortlist=shortlist,
            signals=tuple(float(x) for x in step.signals),
            abstention=abstention,
            missing=missing,
            pair_tools=step.pair_tools,
        )

    def missing_access(
        self,
        subgoal: Subgoal,
        vector: np.ndarray,
        ctx: SessionContext,
        menu: Sequence[Candidate],
        lacking: Sequence[str],
        depth: int,
        *,
        intent: float = 0.0,
        request_vector: np.ndarray | None = None,
        closest: float = -1.0,
    ) -> tuple[MissingAccess, ...]:
        """What the session lacks for tools that fit better than anything it can call:
        looked up only when the session restricts access and the step abstained, names a
        product the session lacks, or its best in-session relevance is below
        `missing_access_below` (the retrieval and rerank again, on the same vector, with
        every tool open; what the session lacks must out-rank, there, every tool it has).
        `closest`: the best retriever cosine of the step's in-session candidates; with
        `missing_cosine_margin` a tool outside is named only that much closer, and where no
        card outside the session is (one matrix product over their vectors), nothing is
        looked up."""
        if not (ctx.restrict_connections or ctx.restrict_scopes):
            return ()
        best = max((c.score for c in menu), default=0.0)
        if menu and not lacking and best >= self.params.missing_access_below:
            return ()
        open_mask = self._access.offered(ctx)  # every connection, the offered tools only
        outside_rows = open_mask & ~self._access.mask(ctx)
        cos_margin = self.params.missing_cosine_margin
        if not outside_rows.any() or self._none_close_outside(outside_rows, vector, closest):
            # no tool outside the session (a gateway session lists every served connection),
            # or none close enough to name: only the products the step names
            return missing_access((), self.cards, ctx, above=0.0, named=lacking,
                                  at_most=self.params.max_missing)
        found = run_stages(Selection(subgoal), [
            *self._retrieval_stages(vector, open_mask, extra_exact=[]),
            ("filter", HardFilter(self.cards, ctx, self.policy, check_access=False)),
        ])
        read_bar = self.menu_bars.read
        if not self._outside_may_count(found.candidates, ctx, depth, lacking, read_bar,
                                       closest):
            # the open list holds no tool the session lacks that could be named: the
            # answer is the named products alone, without the rerank (exactly the same)
            return missing_access((), self.cards, ctx, above=0.0, named=lacking,
                                  at_most=self.params.max_missing)
        outside = run_stages(found, [
            ("rerank", RerankStage(self.reranker, self.cards, depth=depth,
                                   named_connections=self.named_connections)),
        ]).candidates
        # compared within the open lookup, where both sides are scored against the same
        # candidates (a tool's relevance depends on what it competes with); the read bar
        # for every tool, since naming a missing connection calls nothing
        reachable = max((c.score for c in outside if lacked(self.cards[c.tool_id], ctx) is None),
                        default=0.0)
        fit = [c for c in outside if c.score >= read_bar]
        if cos_margin is not None:
            fit = closer_than_session(fit, self.cards, ctx, closest=closest, margin=cos_margin)
        groups = missing_access(fit, self.cards, ctx, above=reachable + self.params.missing_margin,
                                named=lacking, at_most=self.params.max_missing)
        if not groups or lacking:
            return groups
        # nothing to name unless it would be served with every connection open either
        open_signals = step_signals(
            subgoal, outside, named_products(subgoal, self.named_connections),
            self._bm25.vocab, intent,
            self.pair_served(request_vector, [c.tool_id for c in outside[:PAIR_TOP]]),
        )
        return () if served_nowhere(self.menu_policy.no_tool, open_signals) else groups

    def _named_closer(self, missing: Sequence[MissingAccess], vector: np.ndarray,
                      closest: float) -> bool:
        """Whether a tool the missing lines name reaches `closest` (the session's closest
        tool for the step) plus `missing_withhold_cosine_margin` by cosine; always, without
        that margin."""
        margin = self.params.missing_withhold_cosine_margin
        if margin is None:
            return True
        rows = [self._rows[t] for m in missing for t in m.tool_ids]
        return bool(rows) and self._best_cosine(rows, vector) >= closest + margin

    def _none_close_outside(self, rows: np.ndarray, vector: np.ndarray, closest: float) -> bool:
        """Whether no card in `rows` (those outside the session) reaches `closest` plus
        `missing_cosine_margin` by cosine: then the open lookup could name none of them."""
        margin = self.params.missing_cosine_margin
        return margin is not None and self._best_cosine(rows, vector) < closest + margin

    def _best_cosine(self, rows: Sequence[int] | np.ndarray, vector: np.ndarray) -> float:
        """The best retriever cosine to `vector` of the cards at `rows` (row ids or a mask)."""
        return float((self.bundle.embeddings[rows] @ vector).max())

    def _outside_may_count(
        self, found: Sequence[Candidate], ctx: SessionContext, depth: int,
        lacking: Sequence[str], read_bar: float, closest: float,
    ) -> bool:
        """Whether a tool the session lacks could be named from the open lookup's filtered
        candidates: one the rerank scores (the first `depth`), or, where the read bar lets
        the unscored tail (relevance 0) through, one of a product the step names; either
        close enough by cosine (`missing_cosine_margin`, which the rerank does not change)."""
        margin = self.params.missing_cosine_margin
        for i, c in enumerate(found):
            need = lacked(self.cards[c.tool_id], ctx)
            if need is None or (margin is not None
                                and not close_enough(c, closest=closest, margin=margin)):
                continue
            if i < depth or (read_bar <= 0.0 and need[0] == "connection" and need[1] in lacking):
                return True
        return False

"""Retrieval per subgoal: dense, BM25 and capability match, fused by reciprocal rank.

Every retriever answers one call, `retrieve(query, mask, n) -> Hits` (`Retriever`): the
best n rows for a subgoal (its text, operations, entities and embedding in one
`RetrievalQuery`), best first. `RetrieveStage` holds them by name and `FuseStage` fuses
their orders, so a new retriever is one class and one registration
(`serving.assembly.RETRIEVERS`; docs/serving.md shows one).

The session's static predicates (connections, scopes, env) arrive as a boolean row mask
that every retriever applies to its scores *before* taking its top-n, so a tool the
session cannot call never takes a slot from one it can.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from serving.model.schema import ToolCard
from serving.model.selection import Candidate, Selection, SessionContext, Subgoal
from serving.model.text import tokenize
from serving.stages.routing import DomainRouter

Hits = list[tuple[int, float]]  # (row, score), best first


def top_n(scores: np.ndarray, mask: np.ndarray, n: int, *, min_score: float | None = None) -> Hits:
    """Best n rows among those the mask allows (and above min_score when given)."""
    masked = np.where(mask, scores, -np.inf)
    if min_score is not None:
        masked = np.where(masked > min_score, masked, -np.inf)
    n_valid = int(np.isfinite(masked).sum())
    k = min(n, n_valid)
    if k == 0:
        return []
    part = np.argpartition(-masked, k - 1)[:k]
    # stable order: by score, then by row so equal scores rank deterministically
    order = part[np.lexsort((part, -masked[part]))]
    return list(zip(order.tolist(), masked[order].tolist(), strict=True))


class AccessIndex:
    """Evaluates the session predicates once per distinct (connection, scopes, env) key,
    and remembers the masks of the last `MASKS_KEPT` sessions (a session asks for its
    mask on every request; the demo catalog has ~700 keys)."""

    MASKS_KEPT = 256

    def __init__(self, cards: Sequence[ToolCard]) -> None:
        keys: dict[tuple[str, tuple[str, ...], tuple[str, ...]], int] = {}
        rows = []
        self._row_of = {card.tool_id: row for row, card in enumerate(cards)}
        for card in cards:
            key = (card.requires.connection, tuple(sorted(card.requires.scopes)), card.env)
            rows.append(keys.setdefault(key, len(keys)))
        self._keys = list(keys)
        self._key_of_row = np.asarray(rows, dtype=np.int32)
        self._masks: dict[SessionContext, np.ndarray] = {}
        self._lock = threading.Lock()  # the gateway's workers share one index

    def mask(self, ctx: SessionContext) -> np.ndarray:
        """The rows `ctx` may call (read-only: it is shared by the session's requests)."""
        with self._lock:
            known = self._masks.get(ctx)
        if known is not None:
            return known
        allowed = np.fromiter(
            (self._allows(key, ctx) for key in self._keys), dtype=bool, count=len(self._keys)
        )
        mask = allowed[self._key_of_row] & self.offered(ctx)
        mask.flags.writeable = False
        with self._lock:
            if len(self._masks) >= self.MASKS_KEPT:
                self._masks.pop(next(iter(self._masks)))  # the oldest
            self._masks[ctx] = mask
        return mask

    def offered(self, ctx: SessionContext) -> np.ndarray:
        """The rows of the tools the session is offered (every row without a `tools` list):
        what even a lookup with every connection open may return."""
        offered = np.ones(len(self._key_of_row), dtype=bool)
        if ctx.restrict_tools:
            offered[:] = False
            offered[[self._row_of[t] for t in ctx.tools if t in self._row_of]] = True
        return offered

    @staticmethod
    def _allows(key: tuple[str, tuple[str, ...], tuple[str, ...]], ctx: SessionContext) -> bool:
        connection, scopes, envs = key
        if ctx.restrict_connections and connection not in ctx.connections:
            return False
        if ctx.restrict_scopes and not set(scopes) <= ctx.scopes:
            return False
        return not envs or ctx.env in envs


def access_problem(card: ToolCard, ctx: SessionContext) -> str | None:
    """Why the session cannot call this card, as a filter reason, or None if it can."""
    if ctx.restrict_tools and card.tool_id not in ctx.tools:
        return "filter:not_offered"
    if ctx.restrict_connections and card.requires.connection not in ctx.connections:
        return "filter:missing_connection"
    if ctx.restrict_scopes and not set(card.requires.scopes) <= ctx.scopes:
        return "filter:missing_scope"
    if card.env and ctx.env not in card.env:
        return "filter:env"
    return None


@dataclass(frozen=True, slots=True)
class RetrievalQuery:
    """What a retriever may read of one subgoal: its text, operations and entities, and
    its embedding by the bundle's encoder."""

    subgoal: Subgoal
    vector: np.ndarray


class Retriever(Protocol):
    """One source of candidates: the best `n` rows inside `mask` for `query`, as
    (row, score) best first. Scores are on the retriever's own scale: fusion reads the
    order only (`rrf_fuse`); a row outside the mask is never returned."""

    def retrieve(self, query: RetrievalQuery, mask: np.ndarray, n: int) -> Hits: ...


class VectorSearch(Protocol):
    """Dense top-n inside a mask: exact (`DenseRetriever`) or
    `serving.stages.ann.ApproximateDense`."""

    def search(self, query_vector: np.ndarray, mask: np.ndarray, n: int) -> Hits: ...


@dataclass(frozen=True, slots=True)
class DenseSource:
    """The `Retriever` over a dense index: the query's embedding against the cards'."""

    index: VectorSearch

    def retrieve(self, query: RetrievalQuery, mask: np.ndarray, n: int) -> Hits:
        return self.index.search(query.vector, mask, n)


class DenseRetriever:
    def __init__(self, embeddings: np.ndarray) -> None:
        self.embeddings = embeddings

    def search(self, query_vector: np.ndarray, mask: np.ndarray, n: int) -> Hits:
        return top_n(self.embeddings @ query_vector, mask, n)


class BM25Retriever:
    """BM25 over `ToolCard.index_text()` tokens. bm25s builds and saves the index; the
    runtime reads its files with numpy (per-token score columns, summed per query), which
    keeps bm25s and its imports off the load path and scores exactly as its `get_scores`."""

    DATA, INDICES, INDPTR = "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"
    VOCAB, PARAMS = "vocab.index.json", "params.index.json"

    def __init__(
        self, vocab: Mapping[str, int], columns: tuple[np.ndarray, np.ndarray, np.ndarray],
        n_docs: int, *, model: Any = None,
    ) -> None:
        self.vocab = vocab
        self.data, self.indices, self.indptr = columns
        self.n_docs = n_docs
        self.model = model  # the bm25s model when built here: `save` writes its files

    @classmethod
    def build(cls, cards: Sequence[ToolCard]) -> BM25Retriever:
        import bm25s

        model = bm25s.BM25()
        model.index([tokenize(c.index_text()) for c in cards], show_progress=False)
        scores = model.scores
        columns = (scores["data"], scores["indices"], scores["indptr"])
        return cls(model.vocab_dict, columns, int(scores["num_docs"]), model=model)

    @classmethod
    def load(cls, path: Path) -> BM25Retriever:
        """The index bm25s saved in `path`; a method whose scores need more than the
        per-token columns (bm25l, bm25+) or a missing or malformed file is a ValueError
        naming it."""
        def read(name: str) -> Any:
            try:
                if name.endswith(".json"):
                    return json.loads((path / name).read_text(encoding="utf-8"))
                return np.load(path / name, allow_pickle=False)
            except (OSError, ValueError) as err:  # JSONDecodeError is a ValueError
                raise ValueError(f"{path / name}: unreadable BM25 index file: {err}") from None

        params = read(cls.PARAMS)
        if not isinstance(params, dict) or params.get("method") not in (
            "lucene", "robertson", "atire"
        ):
            raise ValueError(f"{path / cls.PARAMS}: not a bm25s index of a method read here")
        vocab = read(cls.VOCAB)
        data, indices, indptr = (read(name) for name in (cls.DATA, cls.INDICES, cls.INDPTR))
        try:
            n_docs = int(params["num_docs"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path / cls.PARAMS}: num_docs: expected an integer") from None
        # bm25s lists the empty token without a column: no query token is empty
        vocab = {t: i for t, i in vocab.items() if t} if isinstance(vocab, dict) else None
        if not (
            vocab is not None
            and all(type(i) is int for i in vocab.values())
            and max(vocab.values(), default=-1) < len(indptr) - 1
            and len(data) == len(indices) == int(indptr[-1])
            and (len(indices) == 0 or int(indices.max()) < n_docs)
        ):
            raise ValueError(f"{path}: the index files do not agree with each other")
        return cls(vocab, (data, indices, indptr), n_docs)

    def save(self, path: Path) -> None:
        if self.model is None:
            raise ValueError("only an index built here is saved; copy a loaded one's directory")
        self.model.save(str(path), show_progress=False)

    def scores(self, text: str) -> np.ndarray | None:
        """Every row's BM25 score for `text`, None when no token is in the vocabulary."""
        ids = [self.vocab[t] for t in tokenize(text) if t in self.vocab]
        if not ids:
            return None
        scores = np.zeros(self.n_docs, dtype=self.data.dtype)
        for token in ids:  # a token's column holds each row once: no repeated index
            start, end = self.indptr[token], self.indptr[token + 1]
            scores[self.indices[start:end]] += self.data[start:end]
        return scores

    def search(self, text: str, mask: np.ndarray, n: int) -> Hits:
        scores = self.scores(text)
        if scores is None:
            return []
        return top_n(scores.astype(np.float32, copy=False), mask, n, min_score=0.0)

    def retrieve(self, query: RetrievalQuery, mask: np.ndarray, n: int) -> Hits:
        return self.search(query.subgoal.text, mask, n)


class CapabilityRetriever:
    """Rows whose entities match the subgoal's, boosted when the operation matches too."""

    def __init__(self, index: Mapping[str, Mapping[str, Sequence[int]]], n_rows: int) -> None:
        self.n_rows = n_rows
        self.ops = {k: np.asarray(v, dtype=np.int64) for k, v in index["operations"].items()}
        self.entities = {k: np.asarray(v, dtype=np.int64) for k, v in index["entities"].items()}

    def search(self, subgoal: Subgoal, mask: np.ndarray, n: int) -> Hits:
        entity_hits = np.zeros(self.n_rows, dtype=np.float32)
        for entity in set(subgoal.entities):
            rows = self.entities.get(entity)
            if rows is not None:
                entity_hits[rows] += 2.0
        if not entity_hits.any():
            return []
        scores = entity_hits.copy()
        for op in set(subgoal.operations):
            rows = self.ops.get(op)
            if rows is not None:
                scores[rows] += 1.0
        scores[entity_hits == 0] = 0.0  # an operation alone matches hundreds of tools
        return top_n(scores, mask, n, min_score=0.0)

    def retrieve(self, query: RetrievalQuery, mask: np.ndarray, n: int) -> Hits:
        return self.search(query.subgoal, mask, n)


class ExactNameMatcher:
    """Finds tool ids, or distinctive tool names, written verbatim in a request."""

    def __init__(self, cards: Sequence[ToolCard]) -> None:
        self.by_id = {c.tool_id.lower(): i for i, c in enumerate(cards)}
        names: dict[str, list[int]] = {}
        for i, card in enumerate(cards):
            names.setdefault(card.name.lower(), []).append(i)
        # a bare name counts only when it is one tool's and looks like an identifier
        self.by_name = {
            name: rows[0]
            for name, rows in names.items()
            if len(rows) == 1 and ("_" in name or "." in name) and len(name) >= 6
        }
        self._token = re.compile(r"[A-Za-z0-9][\w\-]*(?:\.[\w\-]+)*")

    def match(self, text: str) -> list[int]:
        rows: list[int] = []
        for token in self._token.findall(text):
            key = token.lower().rstrip(".")
            row = self.by_id.get(key, self.by_name.get(key))
            if row is not None and row not in rows:
                rows.append(row)
        return rows


def weighted_rrf(lists: Sequence[Sequence[str]], weights: Sequence[float], *, k: int) -> list[str]:
    """Reciprocal rank fusion of id lists: score = sum of weight / (k + rank), rank from 1;
    ties keep the order of first appearance (lists in order, then rank)."""
    if len(lists) != len(weights):
        raise ValueError(f"{len(lists)} lists but {len(weights)} weights")
    scores: dict[str, float] = {}
    for ids, weight in zip(lists, weights, strict=True):
        for rank, tool_id in enumerate(ids, start=1):
            scores[tool_id] = scores.get(tool_id, 0.0) + weight / (k + rank)
    first = {t: i for i, t in enumerate(scores)}
    return sorted(scores, key=lambda t: (-scores[t], first[t]))


def relevance_first(
    menus: Sequence[Sequence[tuple[str, float]]], fused: Sequence[str]
) -> list[str]:
    """Every tool some menu shows, by the highest relevance any menu gives it (equal ones by
    their place in `fused`), then the rest of `fused`. With calibrated relevance a part of
    the request that matches nothing well (a chatty clause split off as a subgoal) puts
    no tool ahead of a confident match from another part or from the whole request."""
    best: dict[str, float] = {}
    for menu in menus:
        for tool_id, relevance in menu:
            best[tool_id] = max(relevance, best.get(tool_id, relevance))
    place = {t: i for i, t in enumerate(fused)}
    head = sorted(best, key=lambda t: (-best[t], place.get(t, len(place))))
    return head + [t for t in fused if t not in best]


def rrf_fuse(
    rankings: Mapping[str, Hits], *, k: int, n: int, force: Sequence[int] = ()
) -> list[tuple[int, float, dict[str, float]]]:
    """Reciprocal rank fusion: score = sum over lists of 1 / (k + rank), rank from 1.

    Rows in `force` (exact names written in the request) come first, whatever their score:
    a user who names a tool means it. Returns (row, fused score, {source: rank}) best first.
    """
    fused: dict[int, float] = {}
    ranks: dict[int, dict[str, float]] = {}
    for source, hits in rankings.items():
        for rank, (row, _score) in enumerate(hits, start=1):
            fused[row] = fused.get(row, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(row, {})[f"rank_{source}"] = float(rank)
    forced = list(dict.fromkeys(force))
    rest = [r for r in sorted(fused, key=lambda r: (-fused[r], r)) if r not in forced]
    top = forced + rest[: max(0, n - len(forced))]
    return [(r, fused.get(r, 0.0), ranks.get(r, {})) for r in top]


# --- the retrieve and fuse stages ------------------------------------------------------

RAW_SCORES = ("score_dense", "score_bm25")  # retriever scores a candidate carries past fusion


@dataclass(frozen=True, slots=True)
class RetrieveStage:
    """Stage `retrieve`: every retriever for one subgoal, inside the session's mask
    (narrowed to the subgoal's best domains when a router is given).

    Out: every tool any retriever found, one candidate each with `rank_<name>` (1 = best)
    for every retriever that found it, and the dense cosine and BM25 score where those
    found it; `FuseStage` orders them. Built per subgoal: `vector` is the subgoal's
    embedding and `mask` the session's rows.
    """

    retrievers: Mapping[str, Retriever]  # by name, in fusion order
    ids: Sequence[str]  # row -> tool id
    vector: np.ndarray
    mask: np.ndarray
    n: int  # hits per retriever
    router: DomainRouter | None = None
    route_domains: int = 3

    def __call__(self, sel: Selection) -> Selection:
        mask = self.mask
        if self.router is not None:
            mask = mask & self.router.mask(self.vector, self.route_domains)
        query = RetrievalQuery(sel.subgoal, self.vector)
        ranks: dict[int, dict[str, float]] = {}
        for source, retriever in self.retrievers.items():
            # the dense cosine and the BM25 score too: how close a tool is, not only its
            # place in a list (the no-tool decision reads both, `serving.stages.abstain`)
            keeps_score = f"score_{source}" in RAW_SCORES
            for rank, (row, score) in enumerate(retriever.retrieve(query, mask, self.n), 1):
                found = ranks.setdefault(row, {})
                found[f"rank_{source}"] = float(rank)
                if keeps_score:
                    found[f"score_{source}"] = float(score)
        found_tools = tuple(Candidate(self.ids[row], 0.0, r) for row, r in ranks.items())
        return replace(sel, candidates=found_tools)


@dataclass(frozen=True, slots=True)
class FuseStage:
    """Stage `fuse`: reciprocal rank fusion (`rrf_fuse`) of the retrieve stage's ranks to
    the top `n`, tools named exactly in the subgoal (or in `extra_exact`) first.

    Each candidate's scores: `fused`, its `rank_<source>` and `exact` (1.0 when forced).
    """

    rows: Mapping[str, int]  # tool id -> row
    ids: Sequence[str]  # row -> tool id
    exact: ExactNameMatcher
    k: int
    n: int
    extra_exact: Sequence[int] = ()  # rows named in the request but in no subgoal
    # the retrievers' names in fusion order: the retrieve stage's (`RETRIEVERS`' keys)
    sources: Sequence[str] = field(kw_only=True)

    def __call__(self, sel: Selection) -> Selection:
        rankings = self.rankings(sel.candidates)
        exact = list(dict.fromkeys([*self.exact.match(sel.subgoal.text), *self.extra_exact]))
        fused = rrf_fuse(rankings, k=self.k, n=self.n, force=exact)
        found = {c.tool_id: c.scores for c in sel.candidates}
        no_scores: dict[str, float] = {}

        def raw(tool_id: str) -> dict[str, float]:  # only the fused few need theirs
            scores = found.get(tool_id, no_scores)
            return {k: scores[k] for k in RAW_SCORES if k in scores}

        candidates = tuple(
            Candidate(
                self.ids[row],
                score,
                {
                    "fused": score,
                    **ranks,
                    "exact": float(row in exact),
                    **raw(self.ids[row]),
                },
            )
            for row, score, ranks in fused
        )
        return replace(sel, candidates=candidates)

    def rankings(self, candidates: Sequence[Candidate]) -> dict[str, Hits]:
        """The per-source rankings the retrieve stage's candidates carry, in `sources` order."""
        ranked: dict[str, list[tuple[float, int]]] = {source: [] for source in self.sources}
        keys = [(f"rank_{source}", ranked[source]) for source in self.sources]
        for cand in candidates:
            row = self.rows[cand.tool_id]
            for key, hits in keys:
                rank = cand.scores.get(key)
                if rank is not None:
                    hits.append((rank, row))
        return {source: [(row, 0.0) for _, row in sorted(hits)] for source, hits in ranked.items()}

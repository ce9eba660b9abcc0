"""Embed ahead, in batches, what a replay will embed one request at a time.

A replay (a variant of `evaluate`, the requests `tune_menus` fits on) sends thousands of
requests through `Selector.discover`, each embedding its own few subgoals, and the pair
head embeds the cards it reads a handful at a time: one text at a time costs ~15x more
per text on a CPU than a batch. Decomposition is cheap and deterministic, so the texts
are known before the replay: embedded here in batches into the selector's caches, the
replay's own calls then only look them up. Not for a run whose latency is measured (the
pipeline of `evaluate`): its calls must pay for their own model time.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from serving.model.text import request_text
from serving.selector import Selector
from training.evaluation.variants import CachedEncoder


def replay_texts(selector: Selector, requests: Iterable[str]) -> list[str]:
    """The texts `discover` embeds for `requests`: each request's subgoals (as its bounds
    cut them) and the whole request, once each, in first-seen order."""
    texts: dict[str, None] = {}
    for raw in requests:
        request, subgoals, _ = selector.bounded_steps(request_text(raw, "request"))
        texts.update(dict.fromkeys(s.text for s in subgoals))
        if subgoals:
            texts[request.strip()] = None
    return list(texts)


def warm_encoders(selector: Selector, requests: Iterable[str]) -> int:
    """Embed what replaying `requests` through `selector` will embed, in batches: its
    retriever's vectors of every subgoal and request, and, where its no-tool decision
    reads the request-intent head, the head encoder's vectors of the same texts and of
    every card. The selector's encoders must remember vectors (`ModelCache.wrap`; the
    head's encoder always does). Returns the number of texts embedded."""
    if not isinstance(selector.encoder, CachedEncoder):
        raise TypeError("warm_encoders: the selector's encoder keeps no vectors; "
                        "wrap it first (ModelCache.wrap)")
    # by length, so a batch pads little (the caches are keyed by text, not by order)
    texts = sorted(replay_texts(selector, requests), key=len)
    scorer = selector.intent() if selector.stock_reads() else None
    if scorer is None or scorer.encoder is None:  # a stock bundle: the retriever is it
        selector.encoder.encode(texts)
        return len(texts)
    # the two models at once, as a request runs them (their sessions split the cores)
    with ThreadPoolExecutor(max_workers=1) as beside:
        stock = beside.submit(scorer.encoder.encode, texts)
        selector.encoder.encode(texts)
        stock.result()
    cards = list(selector.cards.values())
    scorer.card_vectors(cards)
    return 2 * len(texts) + len(cards)

"""Reach: how often poisoned tools get into a menu of a real selector on a real bundle,
over the labeled queries and over nonsense.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from serving.catalog.findings import error_tool_ids
from serving.model.config import RuntimeParams
from serving.model.schema import LabeledQuery, ToolCard
from training.core.params import load_params, read_section
from training.security.defenses import ratio
from training.security.params import Params
from training.security.poison_styles import Lint, StyledPoison
from training.security.poisoning import Poisoned


def measured_requests(
    queries: Sequence[LabeledQuery], poisoned: Sequence[Poisoned], params: Params
) -> list[LabeledQuery]:
    targets = {p.original_id for p in poisoned}
    hits = [q for q in queries if targets & set(q.gold)]
    if params.max_requests and len(hits) > params.max_requests:
        hits = random.Random(params.seed + 2).sample(hits, params.max_requests)
    return hits


def measure_reach(
    selector: Any,
    requests: Sequence[LabeledQuery],
    poisoned: Sequence[Poisoned],
    extra_connections: Sequence[str],
) -> dict[str, Any]:
    """Share of poisoned tools (of the gold's variants) in a menu / at menu top-1."""
    variants: dict[str, list[str]] = {}
    for p in poisoned:
        variants.setdefault(p.original_id, []).append(p.card.tool_id)
    pulled = {p.original_id for p in poisoned if p.rug_pull}
    in_menu: set[str] = set()
    at_top: set[str] = set()
    targeted: set[str] = set()
    n_req_menu = n_req_top = 0
    gold_hits = gold_total = 0
    for q in requests:
        ctx = dict(q.context)
        if "connections" in ctx:
            ctx["connections"] = sorted({*ctx["connections"], *extra_connections})
        discovery = selector.discover(q.query, ctx)
        menus = [s.menu_ids for s in discovery.steps]
        shown = {t for m in menus for t in m}
        tops = {m[0] for m in menus if m}
        bad = {v for g in q.gold for v in variants.get(g, ())}
        targeted |= bad
        in_menu |= bad & shown
        at_top |= bad & tops
        n_req_menu += bool(bad & shown)
        n_req_top += bool(bad & tops)
        for g in q.gold:
            if g not in pulled:
                gold_total += 1
                gold_hits += g in shown
    return {
        "n_requests": len(requests),
        "n_poisoned_targeted": len(targeted),
        "poisoned_in_menu_rate": ratio(len(in_menu), len(targeted)),
        "poisoned_top1_rate": ratio(len(at_top), len(targeted)),
        "requests_with_poisoned_in_menu": ratio(n_req_menu, len(requests)),
        "requests_with_poisoned_top1": ratio(n_req_top, len(requests)),
        "clean_gold_in_menu_rate": ratio(gold_hits, gold_total),
    }



# requests no catalog serves, garbled or unrelated: a poisoned tool that reaches these
# menus is shown as padding, never because it was asked for
NONSENSE = (
    "asdf qwerty zxcv", "lorem ipsum dolor sit amet", "the the the the", "hmm", "ok thanks",
    "purple monkey dishwasher", "what is the meaning of life", "tell me a joke",
    "??? !!! ...", "1234 5678 9012", "blorp the snazzle for me", "can you hear me",
    "xkcd 927 standards", "banana phone ring ring", "help", "do the thing",
    "zzzz sleep mode", "translate nothing into nowhere", "who won the war of 1812",
    "fnord fnord fnord", "please and thank you", "is it raining in atlantis",
    "recursion see recursion", "gibberish wibble wobble", "null undefined NaN",
    "asdfghjkl;", "make it pop", "the quick brown fox jumps over the lazy dog",
    "sing me a lullaby", "colourless green ideas sleep furiously",
)



def slipped_reach(
    clean: Sequence[ToolCard],
    sets: Mapping[str, Sequence[StyledPoison]],
    lint: Lint,
    queries: Sequence[LabeledQuery],
    *,
    models: Path,
    params_path: str,
    work_dir: Path,
) -> dict[str, Any]:
    """The poisoned tools of `sets` that no error finding stops, installed beside the clean
    catalog (their lint warnings as `cautions`) in a bundle of the trained models with the
    tuned menus: the share of them that reach a menu (and a menu's top) over the labeled
    queries and over NONSENSE, with the session holding every attacker's connection, at
    the params' `runtime.caution_bar` and with the caution rule off (bar 0)."""
    from serving.catalog.lint import mark_cautions
    from serving.selector import Selector
    from training.release.bundle_export import ExportParams, export_bundle

    poisoned = [p for items in sets.values() for p in items]
    findings = lint([*clean, *(p.card for p in poisoned)])
    stopped = error_tool_ids(findings, security_only=True)
    slipped = [p for p in poisoned if p.card.tool_id not in stopped]
    cards = mark_cautions([*clean, *(p.card for p in slipped)], findings)
    runtime = RuntimeParams.from_dict(read_section(params_path, "runtime"))
    root = work_dir / "slipped"
    export_bundle(
        cards, root, retriever_path=models / "retriever", reranker_path=models / "reranker",
        ltr_path=models / "ltr", menus_path=models / "menus" / "menus.json", runtime=runtime,
        params=load_params(params_path, "export", ExportParams),
    )
    ids = {p.card.tool_id for p in slipped}
    attackers = sorted({p.card.requires.connection for p in slipped})
    every = sorted({c.requires.connection for c in clean} | set(attackers))
    out: dict[str, Any] = {
        "n_slipped": len(slipped),
        "n_cautioned": sum(bool(c.cautions) for c in cards if c.tool_id in ids),
        "slipped_by_set": {
            name: sum(p.card.tool_id in ids for p in items) for name, items in sets.items()
        },
        "caution_bar": runtime.caution_bar,
    }
    for name, bar in (("caution", runtime.caution_bar), ("no_caution", 0.0)):
        selector = Selector.from_bundle(root, overrides={"caution_bar": bar})
        for what, asks in (
            ("eval", [(q.query, {**q.context, "connections": every}) for q in queries]),
            ("nonsense", [(text, {"connections": every}) for text in NONSENSE]),
        ):
            shown: set[str] = set()
            top: set[str] = set()
            n_req = 0
            for text, ctx in asks:
                menus = [s.menu_ids for s in selector.discover(text, ctx).steps]
                hit = ids & {t for m in menus for t in m}
                shown |= hit
                top |= ids & {m[0] for m in menus if m}
                n_req += bool(hit)
            out[f"{name}_{what}"] = {
                "n_requests": len(asks),
                "slipped_in_any_menu": ratio(len(shown), len(ids)),
                "slipped_at_any_top1": ratio(len(top), len(ids)),
                "requests_with_slipped_in_menu": ratio(n_req, len(asks)),
            }
    return out


"""The stock no-tool decision: chosen and judged on public requests, shipped in the package.

    python -m training.train_no_tool params.yaml INTENT_OUT MENUS_OUT METRICS REPORT
        --bundle stb=bundles/stb_base --fit-traces stb=data/stb/traces.jsonl
        --judge stb=data/stb/eval.jsonl --bundle demo=bundles/base
        --fit-traces demo=data/demo/traces.jsonl --judge demo=data/demo/eval.jsonl
        [--public DIR] [--offered ../shared/benchmarks/no_tool_catalog]

(`make no-tool-model` runs it.) Two things ship: the request-intent and pair heads
(`serving/stages/data/request_intent.json.gz`: the `request_intent` and `pair_served`
signals every bundle can compute) and the stock menu policy
(`serving/stages/data/stock_menus.json`) that `bundle from-servers` exports, so the
first bundle a team gets says no.

Requests come from public sets read in place (`--public`, default
../shared/benchmarks/no_tool; never copied in) and from the catalogs: a catalog with
`--fit-traces` gives the fit its traces' train split (`training.no_tool.trace_requests`:
never what a trained bundle tunes its own no-tool model on, nor its eval file), and every
catalog's `--judge` file is judged only. Every request runs through the catalog's stock
bundle (`--bundle NAME=DIR`); the public no-tool ones through every catalog, as no-tool
requests, and the public needs-tool ones that name their APIs through every catalog whose
servers none of them names: a request for a tool the catalog lacks is one it must say no
to as well (fit only; they are held out with their source). The Makefile fits on both
catalogs' train sides (fit on StableToolBench alone, the model leaned on a cosine whose
level follows its long requests and abstained on 0.36 of the demo's requests with a tool:
docs/experiments.md); their eval files, the demo's out-of-catalog requests among them,
are judged only.

With `--offered`, the pair head also fits the pairs the `no_tool_catalog` folders of
`no_tool.offered_folders` offer with their requests (`training.no_tool.offered`): each
gold tool against the distractors its source offered beside it, and each request whose
fitting tool was taken out against every tool left. They are in every fold's fit.

Judging: each public no-tool **source group** is left out in turn: the heads and the
model are fit without it, and it is judged on every catalog beside the judge files'
served requests (false abstention), which no fit sees. The shipped heads and model are
then fit on every group. Writes the per-source table to REPORT (markdown) and METRICS.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from training.core.cli_args import named_values
from training.core.params import ParamsError, load_params, read_section
from training.no_tool.fit import Fold
from training.no_tool.trace_requests import fit_requests

log = logging.getLogger(__name__)
SECTION = "no_tool"


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `no_tool` section of params.yaml."""

    signals: tuple[str, ...]  # the stock model's signals: scales that hold across catalogs
    l2: float  # ridge of the stock model
    l2_intent: float  # ridge of the request-intent head
    l2_pair: float  # ridge of the pair head (standardised slopes)
    max_false_abstain: float  # fit-side served requests that may abstain
    fit_requests: int  # per --fit-traces catalog: train-split requests fit on (0: all)
    # the stock menu bars' grids and tolerance: read (and checked) by `training.stock_bars`
    stock_relative_bars: tuple[float, ...]
    stock_write_bars: tuple[float, ...]
    stock_mass_bars: tuple[float, ...]
    stock_r_menu_tolerance: float
    # `no_tool_catalog` folders whose offered pairs join the pair head's fit (with --offered)
    offered_folders: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from serving.stages.abstain import SIGNAL_NAMES

        unknown = [s for s in self.signals if s not in SIGNAL_NAMES]
        if not self.signals or unknown:
            raise ParamsError(f"{SECTION}.signals: unknown {unknown}; known {SIGNAL_NAMES}")
        if (not 0.0 <= self.max_false_abstain < 1.0 or self.l2 < 0 or self.l2_intent < 0
                or self.l2_pair < 0 or self.fit_requests < 0):
            raise ParamsError(f"{SECTION}: max_false_abstain in [0, 1), l2s and "
                              "fit_requests >= 0")


def read_queries(path: str) -> list:  # noqa: ANN201
    """Labeled requests; a bad line is named (file, line, field) and set aside beside the
    file (`*.quarantine.jsonl`), and the count is logged, never dropped silently."""
    from serving.model.io import load_queries, quarantine_path_for

    loaded = load_queries(path, quarantine=quarantine_path_for(path, "no_tool"))
    log.info(loaded.summary(path))
    return list(loaded.items)


def report_table(folds: Sequence[Fold], catalogs: Sequence[str]) -> str:
    head = ("| held-out source | " + " | ".join(f"n {c} | abstain {c}" for c in catalogs)
            + " | " + " | ".join(f"false {c}" for c in catalogs) + " |")
    rule = "|---|" + "---:|" * (3 * len(catalogs))
    lines = [head, rule]
    for f in folds:
        cells = [f"{f.n.get(c, 0)} | {f.abstain.get(c, float('nan')):.3f}" for c in catalogs]
        false = [f"{f.false_abstain.get(c, float('nan')):.3f}" for c in catalogs]
        lines.append(f"| {f.held_out} | " + " | ".join(cells) + " | " + " | ".join(false) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", help="params.yaml (section no_tool)")
    parser.add_argument("intent_out", help="the request-intent head (.json.gz)")
    parser.add_argument("menus_out", help="the stock menu policy (JSON)")
    parser.add_argument("metrics", help="metrics JSON")
    parser.add_argument("report", help="markdown: the per-source table")
    parser.add_argument("--bundle", action="append", default=[], required=True,
                        help="NAME=DIR: a stock bundle of a catalog (repeat per catalog)")
    parser.add_argument("--judge", action="append", default=[], required=True,
                        help="NAME=FILE: that catalog's labeled requests, judged only (with "
                        "gold: false abstention; without: its own no-tool requests)")
    parser.add_argument("--fit-traces", action="append", default=[],
                        help="NAME=TRACES: that catalog's traces, whose train split (as "
                        "`mine` splits it) is its side of the fit; without, judged only")
    parser.add_argument("--public", help="the public no-tool set (default "
                        "../shared/benchmarks/no_tool or $TOOLSIFT_NO_TOOL_CORPUS)")
    parser.add_argument("--offered", type=Path,
                        help="../shared/benchmarks/no_tool_catalog: the pair head also fits "
                        "the pairs of params' no_tool.offered_folders (gold against the tools "
                        "offered beside it)")
    parser.add_argument("--cache", default="models/.embedding_cache",
                        help="sentence vectors cached by text (default %(default)s)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from serving.bundle.cached_encoder import CachedEncoder
    from serving.bundle.encoder import Encoder, stock_model_path
    from serving.bundle.files import EMBEDDINGS
    from serving.model.io import load_catalog
    from serving.stages.abstain import SIGNAL_NAMES
    from serving.stages.intent import PROBE
    from serving.stages.logistic import LogisticFit
    from serving.stages.menu_policy import MenuPolicy
    from training.core.metrics_io import write_metrics
    from training.no_tool.fit import (
        OFFERED_CATALOG,
        IntentExample,
        PairData,
        judge_fold,
        offered_pair_examples,
        pair_column,
    )
    from training.no_tool.public_requests import load_requests
    from training.no_tool.replay import abstains, cached_replay, with_intent

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    bundles = named_values(args.bundle, "--bundle")
    judge_files = named_values(args.judge, "--judge")
    fit_traces = named_values(args.fit_traces, "--fit-traces")
    if set(bundles) != set(judge_files) or not set(fit_traces) <= set(bundles):
        raise SystemExit(f"--bundle names {sorted(bundles)}, --judge {sorted(judge_files)}, "
                         f"--fit-traces {sorted(fit_traces)}: one bundle and judge per catalog")
    if not fit_traces:
        raise SystemExit("--fit-traces: at least one catalog's requests with gold to fit on")
    # the traces split as `mine` splits them (its seed and valid share)
    mine = read_section(args.params, "mine")
    split = (int(mine["seed"]), float(mine["valid_share"]))
    public = load_requests(args.public)
    for problem in public.refused:
        log.warning("refused: %s", problem)
    no_tool = [r for r in public.requests if not r.needs_tool]
    needs_tool = [r for r in public.requests if r.needs_tool]

    rows, served_steps = [], []
    card_vectors: dict[str, dict[str, np.ndarray]] = {}
    n_absent: dict[str, int] = {}
    n_fit: dict[str, dict[str, int]] = {}
    for catalog, bundle in sorted(bundles.items()):
        labeled = [(q, "judge") for q in read_queries(judge_files[catalog])]
        if catalog in fit_traces:
            got_train = fit_requests(fit_traces[catalog], split, params.fit_requests)
            labeled += [(q, "fit") for q in got_train.queries]
            n_fit[catalog] = {"train_requests": got_train.n_train,
                              "fit": len(got_train.queries),
                              "events_without_request_id": got_train.n_without_id}
        # a judge file's requests without gold are the catalog's own no-tool requests
        half = {q.query_id: h for q, h in labeled}
        group = {q.query_id: f"{catalog}:own" for q, _ in labeled}
        requests = [(q.query_id, q.query, q.context) for q, _ in labeled] + [
            (r.query_id, r.text, None) for r in no_tool]
        group |= {r.query_id: r.group for r in no_tool}
        half |= dict.fromkeys((r.query_id for r in no_tool), "fit")
        served = {q.query_id: bool(q.gold) for q, _ in labeled} | dict.fromkeys(
            (r.query_id for r in no_tool), False)
        got = cached_replay(Path(args.cache) / "no_tool_replay", bundle, requests,
                            catalog=catalog, group=group, served=served, half=half,
                            gold={q.query_id: tuple(q.gold) for q, _ in labeled})
        rows += got
        served_steps += [t for r in got if r.served and r.half == "fit" for t in r.texts]
        # public requests whose tool this catalog lacks: here no tool serves them either
        cards = load_catalog(Path(bundle) / "cards.jsonl").items
        # a stock bundle's dense rows are the stock encoder's card vectors (the pair head's)
        card_vectors[catalog] = dict(zip(
            (c.tool_id for c in cards),
            np.load(Path(bundle) / EMBEDDINGS, allow_pickle=False), strict=True))
        servers = {c.server for c in cards}
        absent = [r for r in needs_tool if r.absent_from(servers)]
        rows += cached_replay(
            Path(args.cache) / "no_tool_replay", bundle,
            [(r.query_id, r.text, None) for r in absent], catalog=catalog,
            group={r.query_id: r.group for r in absent},
            served=dict.fromkeys((r.query_id for r in absent), False),
            half=dict.fromkeys((r.query_id for r in absent), "fit"), tool_absent=True)
        n_absent[catalog] = len(absent)

    offered = []
    if args.offered and params.offered_folders:
        from training.no_tool.offered import NOT_ENGLISH, read_folder

        unread = sorted(set(params.offered_folders) & NOT_ENGLISH)
        if unread:
            raise SystemExit(f"no_tool.offered_folders: {unread} is not English (the stock "
                             "encoder reads English)")
        for folder in params.offered_folders:
            offered += read_folder(args.offered / folder, seed=int(mine["seed"]),
                                   match_lengths=False)
    examples = ([IntentExample(r.text, r.needs_tool, r.group) for r in public.requests]
                + [IntentExample(t, True, "catalogs:served") for t in served_steps])
    encoder = CachedEncoder(Encoder(stock_model_path()), args.cache)
    texts = sorted({e.text for e in examples} | {t for r in rows for t in r.texts} | {PROBE}
                   | {r.request for r in rows} | {t for r in offered for t in (r.text, *r.tools)})
    vectors = dict(zip(texts, encoder.encode(texts, show_progress=True), strict=True))
    encoder.save()
    provenance = {"public": public.directory, **{f"sha256:{k}": v
                                                 for k, v in public.sha256.items()},
                  "catalogs": ",".join(sorted(bundles)),
                  **({"offered": f"{args.offered}:{','.join(params.offered_folders)}"}
                     if offered else {})}

    for r in offered:  # an offered folder's cards, keyed by their text
        card_vectors.setdefault(OFFERED_CATALOG + r.folder, {}).update(
            (t, vectors[t]) for t in r.tools)
    pairs = PairData.build({t: vectors[t] for t in {r.request for r in rows}
                            | {r.text for r in offered}}, card_vectors)
    extra = offered_pair_examples(offered, pairs) if offered else None

    def fold(held_out: str):  # noqa: ANN202
        return judge_fold(held_out, examples, rows, vectors, vectors[PROBE], params.signals,
                          l2_intent=params.l2_intent, l2=params.l2,
                          max_false=params.max_false_abstain, provenance=provenance,
                          pairs=pairs, l2_pair=params.l2_pair, extra_pairs=extra)

    folds = [fold(g) for g in public.groups(needs_tool=False)]
    final = fold("")
    catalogs = sorted(bundles)
    all_texts = sorted({t for r in rows for t in r.texts})
    logit = dict(zip(all_texts, final.head.logits(np.stack([vectors[t] for t in all_texts]))
                     .tolist(), strict=True))
    def head_pairs(judged: list) -> list | None:  # noqa: ANN001
        w = final.head.pair_weights
        return None if w is None else pair_column(
            LogisticFit(w.astype(np.float64), final.head.pair_bias), judged, pairs)

    own = {}
    for catalog in catalogs:  # the catalogs' own no-tool requests, never in a fit
        own_rows = [r for r in rows if r.catalog == catalog and r.group == f"{catalog}:own"
                    and not r.served]
        if own_rows:
            own[catalog] = {"n": len(own_rows), "abstain": round(float(abstains(
                final.model, own_rows, with_intent(own_rows, logit, head_pairs(own_rows)))
                .mean()), 4)}

    final.head.save(args.intent_out)
    MenuPolicy(no_tool=final.model).save(args.menus_out)
    by_catalog = {c: [f.abstain[c] for f in folds if c in f.abstain] for c in catalogs}
    metrics = {
        "signals": list(params.signals),
        "n_public": {"no_tool": len(no_tool), "needs_tool": len(needs_tool),
                     "refused": len(public.refused)},
        # public needs-tool requests fit as unserved on a catalog that lacks their tool
        "n_tool_absent": n_absent,
        "n_fit_requests": n_fit,
        "n_groups": len(folds),
        # offered pairs in every fold's pair head: folder -> [pairs, of them gold]
        "n_offered_pairs": {f: [sum(len(r.tools) for r in offered if r.folder == f),
                                sum(sum(r.gold) for r in offered if r.folder == f)]
                            for f in sorted({r.folder for r in offered})},
        "held_out_abstain": {c: {f.held_out: round(f.abstain[c], 4) for f in folds
                                 if c in f.abstain} for c in catalogs},
        "held_out_abstain_mean": {c: round(float(np.mean(v)), 4) for c, v in by_catalog.items()},
        # every public no-tool request, each judged by the fold without its source
        "held_out_abstain_pooled": {c: round(sum(f.abstain[c] * f.n[c] for f in folds
                                                 if c in f.abstain)
                                             / max(1, sum(f.n.get(c, 0) for f in folds)), 4)
                                    for c in catalogs},
        "held_out_abstain_min": {c: round(float(np.min(v)), 4) for c, v in by_catalog.items()},
        "false_abstain_judge": {c: round(final.false_abstain.get(c, 0.0), 4) for c in catalogs},
        "false_abstain_judge_worst_fold": {
            c: round(max(f.false_abstain.get(c, 0.0) for f in folds), 4) for c in catalogs},
        "own_no_tool_abstain": own,
        "model": final.model.to_dict(),
        "signal_names": list(SIGNAL_NAMES),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_metrics(args.metrics, metrics)
    Path(args.report).parent.mkdir(parents=True, exist_ok=True)
    Path(args.report).write_text(
        "# The stock no-tool decision, each public source held out\n\n"
        "Abstain: the held-out source's requests (no tool needed) that abstain on each "
        "catalog's stock bundle; false: the judge side's requests with gold that abstain "
        "(neither is in that fold's fit). Written by `make no-tool-model`.\n\n"
        + report_table(folds, catalogs)
        + f"\nEvery public no-tool request, each judged by the fold without its source: "
        f"abstains on {json.dumps(metrics['held_out_abstain_pooled'])}.\n"
        + f"\nFinal fit (every source): false abstention on the judge side "
        f"{json.dumps(metrics['false_abstain_judge'])}; the catalogs' own no-tool requests "
        f"{json.dumps(own)}.\n")
    log.info("held-out abstain mean %s, false %s", metrics["held_out_abstain_mean"],
             metrics["false_abstain_judge"])


if __name__ == "__main__":
    main()

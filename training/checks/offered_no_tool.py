"""Can a request's offered tools tell it "none of us fits"? Each `no_tool_catalog` folder held out.

    python -m training.checks.offered_no_tool [--data ../shared/benchmarks/no_tool_catalog]
        [--folders hammerbench acebench toolsandbox glaive_fc_v2_demo functionchat_bench_ko]
        [--max-false 0.03] [--cross-encoder] [--metrics OUT.json] [--report OUT.md]

A request scores its offered tools (`candidates`) and says "no tool fits" below a bar. The
bar is set on the *other* English folders' requests with gold (at most `--max-false` of
each folder below it); the held-out folder is then judged: the share of its no-tool-fits
requests below the bar (abstain) and of its requests with gold (false). Beside it, the
held-out folder's `ceiling` (abstain at its own `--max-false` bar, which no deployment can
know) and the AUC. Scores, each the best over the offered tools:
- `cosine`: the stock encoder's cosine of the request to a card (`ToolCard.index_text`);
- `pair_shipped`: the package's pair head (`serving.stages.intent`); since the offered
  pairs of `no_tool.offered_folders` joined its fit, in sample on those folders;
- `pair_refit`: a logistic over the same pair features and the cosine, fit on the other
  folders' offered pairs (a gold tool positive, every other offered tool negative): the
  near misses a source offers beside its gold;
- `pair_own`: the same logistic fit on the held-out folder's own pairs (in sample): its
  ceiling bounds what a linear head over the stock embeddings can do there;
- `cross_encoder` (`--cross-encoder`, ~10-15 minutes a fold on 2 cores): the stock MiniLM
  with a one-logit head, trained on those pairs (binary cross-entropy, one epoch).

A best-of-N score reads N, and HammerBench's N gives its label away (no-tool lists hold
1-4 tools, lists with gold 5): every request with gold is scored on its gold and a seeded
draw of its other tools, as many as a no-tool list of its folder holds (drawn from their
lengths). No threshold here ships: this measures what the signals can do.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from training.no_tool.offered import NOT_ENGLISH, OfferedRequest, read_folder

log = logging.getLogger(__name__)
# beside the checkout, read in place (never copied in)
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "no_tool_catalog"
DEFAULT_FOLDERS = ("hammerbench", "acebench", "toolsandbox", "glaive_fc_v2_demo",
                   "functionchat_bench_ko")


def bar_for(scores: Mapping[str, np.ndarray], served: Mapping[str, np.ndarray],
            folders: Sequence[str], max_false: float) -> float:
    """The highest bar that leaves at most `max_false` of every folder's requests with gold
    below it: the lowest of their `max_false` quantiles."""
    return min(float(np.quantile(scores[f][served[f]], max_false)) for f in folders
               if served[f].any())


def judge(scores: np.ndarray, served: np.ndarray, bar: float, max_false: float) -> dict:
    """Abstain and false rates below `bar`; the ceiling at the folder's own bar; AUC."""
    from sklearn.metrics import roc_auc_score

    unserved = ~served
    own = float(np.quantile(scores[served], max_false)) if served.any() else float("nan")
    both = served.any() and unserved.any()
    return {
        "n_no_tool": int(unserved.sum()), "n_gold": int(served.sum()),
        "abstain": round(float((scores[unserved] < bar).mean()), 4) if unserved.any() else None,
        "false": round(float((scores[served] < bar).mean()), 4) if served.any() else None,
        "ceiling": round(float((scores[unserved] < own).mean()), 4) if both else None,
        "auc": round(float(roc_auc_score(served, scores)), 4) if both else None,
    }


def best_per_request(requests: Sequence[OfferedRequest], flat: np.ndarray) -> np.ndarray:
    """The best of each request's run of `flat` (one value per offered tool, in order)."""
    out, i = [], 0
    for r in requests:
        out.append(float(flat[i:i + len(r.tools)].max()))
        i += len(r.tools)
    return np.array(out)


def pair_matrix(requests: Sequence[OfferedRequest], vectors: Mapping[str, np.ndarray]
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per offered tool: [u * v, |u - v|, cosine] and whether it is gold."""
    from serving.stages.intent import pair_features

    rows, labels = [], []
    for r in requests:
        u, v = vectors[r.text], np.stack([vectors[t] for t in r.tools])
        rows.append(np.hstack([pair_features(u, v), (v @ u)[:, None]]))
        labels.extend(r.gold)
    return np.vstack(rows), np.array(labels)


def train_cross_encoder(pairs: Sequence[tuple[str, str, float]], *, seed: int) -> Callable:
    """The stock MiniLM with a new one-logit head, one epoch of BCE over `pairs` (positives
    weighted to balance); returns a scorer of (request, card) pairs."""
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder
    from tqdm.auto import tqdm
    from transformers import set_seed

    from serving.bundle.encoder import stock_model_path

    set_seed(seed)  # the new head's initial weights
    model = CrossEncoder(str(stock_model_path()), num_labels=1, max_length=128,
                         activation_fn=torch.nn.Identity(), device="cpu", local_files_only=True)
    net, tok = model.model, model.tokenizer
    order = list(pairs)
    random.Random(seed).shuffle(order)
    n_pos = sum(p[2] for p in order)
    balance = torch.tensor((len(order) - n_pos) / max(1, n_pos))
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=balance)
    optim = torch.optim.AdamW(net.parameters(), lr=5e-5)
    batch = 32
    steps = -(-len(order) // batch)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min(1.0, (s + 1) / max(1, 0.1 * steps)) * max(0.0, 1 - s / steps))
    net.train()
    for i in tqdm(range(0, len(order), batch), total=steps, desc="cross-encoder", mininterval=10):
        b = order[i:i + batch]
        enc = tok([p[0] for p in b], [p[1] for p in b], truncation=True, max_length=128,
                  padding=True, return_tensors="pt")
        loss = loss_fn(net(**enc).logits.squeeze(-1), torch.tensor([p[2] for p in b]))
        loss.backward()
        optim.step()
        sched.step()
        optim.zero_grad()
    net.eval()
    return lambda texts: np.asarray(model.predict(texts, batch_size=64, show_progress_bar=False))


def report_table(results: Mapping[str, Mapping[str, Mapping[str, dict]]], max_false: float) -> str:
    lines = ["| held-out folder | n no tool / gold | " + " | ".join(
        f"{s}: abstain / false (ceiling, AUC)" for s in next(iter(results.values())))
             + " |", "|---|---|" + "---|" * len(next(iter(results.values())))]
    for folder, by_score in results.items():
        first = next(iter(by_score.values()))
        cells = [f"{r['abstain']} / {r['false']} ({r['ceiling']}, {r['auc']})"
                 for r in by_score.values()]
        lines.append(f"| {folder} | {first['n_no_tool']} / {first['n_gold']} | "
                     + " | ".join(cells) + " |")
    return (f"Each request scores its best offered tool. Bar: the other English folders' "
            f"requests with gold, at most {max_false} of each below it; ceiling: abstain at "
            "the folder's own bar (no deployment knows it). `cosine`: the stock encoder; "
            "`pair_shipped`: the package's pair head, which has seen the offered pairs of "
            "`no_tool.offered_folders` (in sample there); `pair_refit`: the pair features "
            "fit on the other folders' offered pairs (held out); `pair_own`: fit on the "
            "folder itself (in sample, its own bar).\n\n" + "\n".join(lines) + "\n")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--folders", nargs="+", default=list(DEFAULT_FOLDERS))
    parser.add_argument("--max-false", type=float, default=0.03)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cross-encoder", action="store_true",
                        help="also train a cross-encoder per fold (slow)")
    parser.add_argument("--cache", default="models/.embedding_cache")
    parser.add_argument("--metrics", type=Path)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from sklearn.linear_model import LogisticRegression

    from serving.bundle.cached_encoder import CachedEncoder
    from serving.bundle.encoder import Encoder, stock_model_path
    from serving.stages.intent import shipped_intent

    requests = {f: read_folder(args.data / f, seed=args.seed) for f in args.folders}
    encoder = CachedEncoder(Encoder(stock_model_path()), args.cache)
    texts = sorted({t for rs in requests.values() for r in rs for t in (r.text, *r.tools)})
    vectors = dict(zip(texts, encoder.encode(texts, show_progress=True), strict=True))
    encoder.save()
    head = shipped_intent()
    served = {f: np.array([r.served for r in rs]) for f, rs in requests.items()}
    fixed = {
        "cosine": {f: np.array([float((np.stack([vectors[t] for t in r.tools])
                                        @ vectors[r.text]).max()) for r in rs])
                   for f, rs in requests.items()},
        "pair_shipped": {f: np.array([float(head.pair_logits(
            vectors[r.text], np.stack([vectors[t] for t in r.tools])).max()) for r in rs])
            for f, rs in requests.items()},
    }
    fit_folders = [f for f in args.folders if f not in NOT_ENGLISH]
    features = {f: pair_matrix(rs, vectors) for f, rs in requests.items()}  # once, every fold
    results: dict[str, dict[str, dict]] = {}
    for held in args.folders:
        others = [f for f in fit_folders if f != held]
        fold_scores = dict(fixed)
        x = np.vstack([features[f][0] for f in others])
        y = np.concatenate([features[f][1] for f in others])
        refit = LogisticRegression(C=1.0, max_iter=3000).fit(x, y)
        fold_scores["pair_refit"] = {
            f: best_per_request(rs, refit.decision_function(features[f][0]))
            for f, rs in requests.items()}
        x, y = features[held]
        own = LogisticRegression(C=1.0, max_iter=3000).fit(x, y)
        fold_scores["pair_own"] = {
            held: best_per_request(requests[held], own.decision_function(x)),
        }
        if args.cross_encoder:
            score = train_cross_encoder(
                [(r.text, t, float(g)) for f in others for r in requests[f]
                 for t, g in zip(r.tools, r.gold, strict=True)], seed=args.seed)
            fold_scores["cross_encoder"] = {
                f: best_per_request(rs, score([[r.text, t] for r in rs for t in r.tools]))
                for f, rs in requests.items() if f in (held, *others)}
        results[held] = {}
        for name, by_folder in fold_scores.items():
            # in sample, its own bar: abstain is its ceiling
            bar = bar_for(by_folder, served, [held] if name == "pair_own" else others,
                          args.max_false)
            results[held][name] = judge(by_folder[held], served[held], bar, args.max_false)
        log.info("%s held out: %s", held, json.dumps(results[held]))
    if args.metrics:
        args.metrics.parent.mkdir(parents=True, exist_ok=True)
        args.metrics.write_text(json.dumps({"max_false": args.max_false, "seed": args.seed,
                                            "held_out": results}, indent=1) + "\n")
    table = report_table(results, args.max_false)
    print(table)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(
            "# Offered tools saying no, each `no_tool_catalog` folder held out\n\n"
            "Written by `python -m training.checks.offered_no_tool --report` (the findings: "
            "experiments.md, \"Offered tools saying no, each source held out\"). Each "
            "request is served only the tools its source offered with it.\n\n" + table)


if __name__ == "__main__":
    main()

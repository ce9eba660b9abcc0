"""One table, a row per catalog: each ranking stage against the one before it.

    python -m training.benchmarks.catalog_table OUT.md NAME=METRICS_DIR|EVAL_JSON ...
        [--held-out NAME ...]

Reads, per catalog, the metrics `make demo` or `make bench-real` wrote: `train_ltr.json`
(valid MRR of every order on the ranker's own valid groups) and `eval.json` (end-to-end on
the eval half, the `dense_order` and `cross_encoder` variants beside the pipeline, and the
request-level baselines). NAME=EVAL_JSON reads one evaluation alone (the demo's
validation requests, `metrics/eval_valid.json`): its end-to-end cells. A catalog marked
`--held-out` chose nothing: its numbers are reported, never tuned on. Missing files leave
their cells empty.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CatalogRow:
    name: str
    held_out: bool
    ltr: Mapping[str, Any]  # train_ltr.json ({} when missing)
    eval: Mapping[str, Any]  # eval.json ({} when missing)


def _num(value: Any, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if isinstance(value, int | float) else ""


def ranker_prefix(trained_on: str) -> str:
    """The `valid_ltr_<prefix>...` key prefix of the train set the shipped ranker chose
    (the with/without-logit pair is compared on it)."""
    return "stacked_" if "stack" in trained_on else ""


def valid_cells(ltr: Mapping[str, Any]) -> list[str]:
    """Groups, RRF, dense, cross-encoder, ranker without and with the logit, shipped."""
    if not ltr:
        return [""] * 7
    on = ranker_prefix(str(ltr.get("trained_on", "")))
    shipped = f"{ltr.get('features', '').replace('_logit', '')}, {_num(ltr.get('valid_ltr_mrr'))}"
    if ltr.get("ships") == "dense":  # the ranker did not beat the dense order: it ships
        shipped = f"dense, {_num(ltr.get('valid_dense_mrr'))}"
    return [
        str(ltr.get("n_valid_groups", "")),
        _num(ltr.get("valid_fused_mrr")),
        _num(ltr.get("valid_dense_mrr")),
        _num(ltr.get("valid_cross_encoder_mrr")),
        _num(ltr.get(f"valid_ltr_{on}without_logit_mrr")),
        _num(ltr.get(f"valid_ltr_{on}with_logit_mrr")),
        shipped,
    ]


def end_to_end_cells(ev: Mapping[str, Any]) -> list[str]:
    """End-to-end: dense order, cross-encoder (with its dense prior), shipped, and the
    shipped pipeline's lead over the dense order in points; request NDCG@10: BM25, the
    stock MiniLM alone (the baseline bundle), the pipeline."""
    if not ev:
        return [""] * 3
    variants = ev.get("variants", {})
    dense = variants.get("dense_order", {}).get("end_to_end")
    ce = variants.get("cross_encoder", {}).get("end_to_end")
    shipped = ev.get("pipeline", {}).get("end_to_end")
    lead = (
        f"{100 * (shipped - dense):+.1f}"
        if isinstance(shipped, float) and isinstance(dense, float) else ""
    )
    base = ev.get("baselines", {})
    ndcg = " / ".join(
        _num(base.get(k, {}).get("ndcg_at_10")) for k in ("bm25", "dense", "pipeline")
    )
    return [" / ".join(_num(v) for v in (dense, ce, shipped)), lead, ndcg]


PREAMBLE = """# Each ranking stage against the one before it, per catalog

Written by `make catalog-table` from the metrics of `make demo`, `make stb` and `make
bench-real` (what each column reads: `training/benchmarks/catalog_table.py`). Valid MRR is
on `train_ltr`'s own valid groups (one group moves it by up to 1 / their number); the
end-to-end columns are the eval half, where the dense order's relevance is calibrated and
its menus cut as the ranker's are (`train_ltr`'s dense fallback). A ranker that does not
beat the dense order on its valid groups does not ship: the shipped column then says
`dense`. The `demo_valid` row is the demo's bundle on its validation requests, phrased
unlike its traces and its eval (`evaluate_valid`): only end-to-end cells, and its menus
are in sample (`tune_menus` chose the bars there), as are three of the decomposer's
words ("tally", "scan", "set up"). A catalog marked held out chose
nothing. Caveats
per catalog are in `../shared/benchmarks/*/README.md`; the findings, in `experiments.md`.

"""

HEADER = (
    "| catalog | valid groups | RRF | dense order | cross-encoder alone | ranker without the "
    "logit | ranker with it | shipped | end-to-end: dense / cross-encoder / shipped | "
    "shipped - dense (points) | request NDCG@10: BM25 / stock MiniLM / shipped |"
)


def table(rows: Sequence[CatalogRow]) -> str:
    lines = [HEADER, "|---|" + "---:|" * 6 + "---|---|---:|---|"]
    for row in rows:
        name = f"{row.name} (held out)" if row.held_out else row.name
        cells = [name, *valid_cells(row.ltr), *end_to_end_cells(row.eval)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def read_row(name: str, metrics: Path, held_out: bool) -> CatalogRow:
    """`metrics`: a metrics directory (its train_ltr.json and eval.json), or one evaluation's
    JSON file, e.g. the demo's validation requests (`evaluate_valid`): the end-to-end cells
    only, since the ranker's valid groups are its directory's row already."""
    def load(path: Path) -> dict[str, Any]:
        return json.loads(path.read_text()) if path.is_file() else {}

    if metrics.suffix == ".json":
        return CatalogRow(name, held_out, {}, load(metrics))
    return CatalogRow(name, held_out, load(metrics / "train_ltr.json"),
                      load(metrics / "eval.json"))


def table_parser(doc: str | None) -> argparse.ArgumentParser:
    """A table CLI's arguments: the markdown file to write and NAME=METRICS_DIR specs."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", help="markdown file to write")
    parser.add_argument("catalogs", nargs="+", help="NAME=METRICS_DIR, in the table's order")
    return parser


def catalog_specs(parser: argparse.ArgumentParser, specs: Sequence[str]) -> list[tuple[str, Path]]:
    """(name, metrics dir) per NAME=METRICS_DIR spec; a malformed one is a usage error."""
    out = []
    for spec in specs:
        name, sep, directory = spec.partition("=")
        if not sep or not name or not directory:
            parser.error(f"{spec!r}: expected NAME=METRICS_DIR")
        out.append((name, Path(directory)))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = table_parser(__doc__)
    parser.add_argument("--held-out", nargs="*", default=[], help="names that chose nothing")
    args = parser.parse_args(argv)
    rows = [read_row(name, directory, name in args.held_out)
            for name, directory in catalog_specs(parser, args.catalogs)]
    Path(args.out).write_text(PREAMBLE + table(rows))
    print(f"catalog_table: {len(rows)} catalogs -> {args.out}")


if __name__ == "__main__":
    main()

"""DVC stage `export`: build a selection bundle from a catalog and the models given.

    python -m training.export PARAMS CATALOG OUT_DIR [--retriever DIR] [--reranker DIR]
        [--ltr DIR] [--menus FILE]

Without --retriever the packaged all-MiniLM-L6-v2 embeds the cards; without --reranker
the bundle has no cross-encoder and the runtime ranks by fused order; --ltr adds the
LightGBM ranker of `train_ltr` (its model, feature names and history table), refused
when its feature names are not the ones this code computes; --menus adds the menu bars
and the no-tool model of `tune_menus` (bundle file `menus.json`). Both encoders are also
written as ONNX (fp32 and int8, `training.release.onnx_export`) for the torch-free runtime.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Sequence
from pathlib import Path

from serving.bundle.encoder import stock_model_path
from serving.model.config import RuntimeParams
from serving.model.io import load_catalog, quarantine_path_for
from serving.stages.menu_policy import STOCK_MENUS
from training.core.metrics_io import write_metrics
from training.core.params import load_params, read_section
from training.release.bundle_export import ExportParams, export_bundle

log = logging.getLogger(__name__)
Params = ExportParams  # the `export` section; train_ltr and the security study read it too


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (sections `export` and `runtime`)")
    parser.add_argument("catalog", help="tool cards, JSONL")
    parser.add_argument("out_dir", help="bundle directory to (re)create")
    parser.add_argument("--retriever", help="bi-encoder dir (default: packaged all-MiniLM-L6-v2)")
    parser.add_argument("--reranker", help="cross-encoder dir (default: none)")
    parser.add_argument("--ltr", help="learned ranker dir from train_ltr (default: none)")
    parser.add_argument("--menus", help="menus.json from tune_menus: the menu bars and the "
                        "no-tool model; 'stock': the policy the package ships for stock "
                        "bundles (default: none: menus cut at one bar, never abstain)")
    parser.add_argument("--metrics", help="where to write metrics/export.json")
    parser.add_argument(
        "--ledger", help="approval ledger: tools not approved, or changed since, are left out"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    params = load_params(args.params, "export", Params)
    runtime = RuntimeParams.from_dict(read_section(args.params, "runtime"))
    out_dir = Path(args.out_dir)
    t0 = time.perf_counter()
    catalog = load_catalog(
        args.catalog,
        strict=params.strict,
        quarantine=quarantine_path_for(out_dir, "catalog"),
    )
    log.info(catalog.summary(args.catalog))
    cards = list(catalog.items)
    excluded: list[tuple[str, str]] = []
    if args.ledger:
        from serving.catalog.approvals import filter_approved

        cards, excluded = filter_approved(catalog.items, args.ledger)
    manifest = export_bundle(
        cards,
        out_dir,
        retriever_path=Path(args.retriever) if args.retriever else stock_model_path(),
        reranker_path=Path(args.reranker) if args.reranker else None,
        ltr_path=Path(args.ltr) if args.ltr else None,
        menus_path=(STOCK_MENUS if args.menus == "stock"
                    else Path(args.menus) if args.menus else None),
        runtime=runtime,
        params=params,
        onnx=True,
        extra_params={"approvals": {"ledger": args.ledger, "excluded": dict(excluded)}}
        if args.ledger
        else None,
    )
    seconds = time.perf_counter() - t0
    if args.metrics:
        write_metrics(
            args.metrics,
            {
                "n_tools": len(cards),
                "n_excluded_unapproved": len(excluded),
                "n_skipped_lines": catalog.n_skipped,
                "export_seconds": round(seconds, 1),
            },
        )
    print(
        f"export: {manifest.bundle_version} with {len(cards)} tools ({catalog.n_skipped} lines "
        f"skipped, {len(excluded)} unapproved left out) -> {out_dir} in {seconds:.1f}s"
    )


if __name__ == "__main__":
    main()

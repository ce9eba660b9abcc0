"""DVC stage `export`: build a selection bundle from a catalog and the models given.

    python -m training.export PARAMS CATALOG OUT_DIR [--retriever DIR] [--reranker DIR]
        [--ltr DIR]

Without --retriever the packaged all-MiniLM-L6-v2 embeds the cards; without --reranker
the bundle has no cross-encoder and the runtime ranks by fused order; --ltr adds the
LightGBM ranker of `train_ltr` (its model, feature names and history table), refused
when its feature names are not the ones this code computes.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from serving import bundle as B
from serving.config import RuntimeParams, utc_now
from serving.encoder import Encoder, stock_model_path
from serving.io import load_catalog, quarantine_path_for
from serving.retrieve import BM25Retriever
from serving.schema import BundleManifest, ToolCard
from training.common import load_params, read_section, write_metrics

log = logging.getLogger(__name__)
_MODEL_NOISE = shutil.ignore_patterns(
    "README.md", ".gitattributes", "data_config.json", "checkpoint-*"
)


@dataclass(frozen=True, slots=True)
class Params:
    encode_batch_size: int
    strict: bool


def export_bundle(
    cards: Sequence[ToolCard],
    out_dir: Path,
    *,
    retriever_path: Path,
    reranker_path: Path | None,
    runtime: RuntimeParams,
    ltr_path: Path | None = None,
    params: Params,
    extra_params: dict[str, Any] | None = None,
) -> BundleManifest:
    """Write every bundle file, then the manifest that hashes them."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    (out_dir / "dense").mkdir(parents=True)
    B.write_cards(out_dir / B.CARDS, cards)
    shutil.copytree(retriever_path, out_dir / B.RETRIEVER_DIR, ignore=_MODEL_NOISE)
    if reranker_path is not None:
        shutil.copytree(reranker_path, out_dir / B.RERANKER_DIR, ignore=_MODEL_NOISE)
    if ltr_path is not None:
        if reranker_path is None:
            raise ValueError("--ltr needs --reranker: the cross-encoder's logit is a feature")
        from serving.ranking import FEATURE_NAMES

        names = tuple(json.loads((ltr_path / B.LTR_FEATURES).read_text()))
        if names != FEATURE_NAMES:
            raise ValueError(
                f"{ltr_path / B.LTR_FEATURES}: trained on {list(names)}, "
                f"the runtime computes {list(FEATURE_NAMES)}"
            )
        shutil.copytree(ltr_path, out_dir / B.LTR_DIR, ignore=_MODEL_NOISE)
    encoder = Encoder(out_dir / B.RETRIEVER_DIR, batch_size=params.encode_batch_size)
    vectors = encoder.encode([c.index_text() for c in cards], show_progress=True)
    np.save(out_dir / B.EMBEDDINGS, vectors, allow_pickle=False)
    BM25Retriever.build(cards).save(out_dir / B.BM25_DIR)
    (out_dir / B.CAPABILITIES).write_text(json.dumps(B.build_capability_index(cards)))
    (out_dir / B.RUNTIME).write_text(json.dumps(runtime.to_dict(), indent=2, sort_keys=True))
    return B.finalize_manifest(
        out_dir,
        created_at=utc_now(),
        git_rev=B.git_rev(),
        params={"export": {"encode_batch_size": params.encode_batch_size}, **(extra_params or {})},
        models={
            "retriever": str(retriever_path),
            "reranker": str(reranker_path) if reranker_path else None,
            "ltr": str(ltr_path) if ltr_path else None,
            "embedding_dim": int(vectors.shape[1]),
        },
    )


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
    cards, excluded = list(catalog.items), []
    if args.ledger:
        from serving.approvals import filter_approved

        cards, excluded = filter_approved(catalog.items, args.ledger)
    manifest = export_bundle(
        cards,
        out_dir,
        retriever_path=Path(args.retriever) if args.retriever else stock_model_path(),
        reranker_path=Path(args.reranker) if args.reranker else None,
        ltr_path=Path(args.ltr) if args.ltr else None,
        runtime=runtime,
        params=params,
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

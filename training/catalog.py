"""DVC stage `catalog`: import tool lists, merge them into the catalog, lint it, gate it.

    python -m training.catalog PARAMS BASE_CATALOG OUT_DIR METRICS

Everything downstream (mining, training, export) reads `OUT_DIR/catalog.jsonl`, the
catalog this stage has imported and linted, never the raw inputs.

1. BASE_CATALOG (tool cards, JSONL) loads with bad lines counted and quarantined
   (`<OUT_DIR>.catalog.quarantine.jsonl`).
2. Each entry of `catalog.sources` in params is imported (`serving.catalog.importers`): a tool
   list in MCP `tools/list`, OpenAI or Anthropic form, its server name the namespace;
   derived fields are marked as derived. A tool id that is already in the catalog fails
   the stage, naming both sources; bad entries are counted, reported and quarantined
   (`<OUT_DIR>.sources.quarantine.jsonl`).
3. The merged catalog is linted (`serving.catalog.lint.lint_catalog`, with the packaged MiniLM
   for near-duplicates when `embed` is on). All findings go to `OUT_DIR/lint.json`.
4. The gate, `on_error` (or `--on-error`): `fail` stops the pipeline (exit 1, after the
   metrics are written) when any tool has an error-severity finding; `exclude` leaves
   those tools out of the output catalog and lists them in the metrics and in
   `<OUT_DIR>.excluded.quarantine.jsonl`; `report` keeps them and only reports them (for
   a benchmark catalog measured as it is, not one being installed).

Sources in params (paths relative to the repository root; `added_at` is required so a
re-run gives the same bytes and the new-tool rule sees the real date):

    catalog:
      sources:
        - {file: vendor/acme.tools.json, format: mcp, server: acme, added_at: 2026-11-01}
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from serving.catalog.findings import Finding, count_findings
from serving.catalog.importers import import_tools
from serving.catalog.lint import lint_catalog, mark_cautions
from serving.catalog.meaning import MeaningDetector
from serving.catalog.meaning_check import shipped_detector
from serving.model.io import load_catalog, quarantine_path_for, write_jsonl
from serving.model.schema import ToolCard
from training.core.metrics_io import write_metrics
from training.core.params import ParamsError, load_params, optional

log = logging.getLogger(__name__)
SECTION = "catalog"
ON_ERROR = ("fail", "exclude", "report")


@dataclass(frozen=True, slots=True)
class Source:
    """One tool list to import (an entry of `catalog.sources`)."""

    file: str
    server: str
    added_at: str
    format: str = optional("auto")
    trust: str = optional("third_party")
    domain: str | None = optional(None)
    connection: str | None = optional(None)


@dataclass(frozen=True, slots=True)
class Params:
    """Mirror of the `catalog` section of params.yaml."""

    on_error: str  # fail | exclude | report
    embed: bool  # embed summaries to find unannotated near-duplicates
    sources: tuple[Source, ...] = optional(())

    def __post_init__(self) -> None:
        if self.on_error not in ON_ERROR:
            raise ParamsError(f"{SECTION}.on_error: {self.on_error!r} not in {ON_ERROR}")


class CatalogError(ValueError):
    pass


@dataclass(frozen=True)
class CatalogResult:
    cards: list[ToolCard]  # the output catalog
    findings: list[Finding]  # every lint finding on the merged catalog
    excluded: list[ToolCard]  # tools left out by `on_error: exclude`
    imported: dict[str, dict[str, int]]  # source file -> counts
    rejected: list[dict[str, Any]]  # unreadable source entries, for the quarantine

    @property
    def error_tool_ids(self) -> list[str]:
        return sorted({f.tool_id for f in self.findings if f.severity == "error"})


def merge_sources(
    base: Sequence[ToolCard], sources: Sequence[Source], *, root: Path
) -> tuple[list[ToolCard], dict[str, dict[str, int]], list[dict[str, Any]]]:
    """The base cards, then each source's; a repeated tool id raises, naming both."""
    cards = list(base)
    origin = {c.tool_id: "the base catalog" for c in base}
    counts: dict[str, dict[str, int]] = {}
    rejected: list[dict[str, Any]] = []
    for source in sources:
        result = import_tools(
            root / source.file,
            source.format,
            source.server,
            trust=source.trust,
            domain=source.domain,
            connection=source.connection,
            added_at=source.added_at,
        )
        for card in result.items:
            if card.tool_id in origin:
                raise CatalogError(
                    f"{source.file}: tool id {card.tool_id!r} is already in "
                    f"{origin[card.tool_id]}"
                )
            origin[card.tool_id] = source.file
            cards.append(card)
        rejected += [{"source": source.file, "error": str(e)} for e in result.errors]
        counts[source.file] = {"n_imported": len(result.items), "n_skipped": result.n_skipped}
    return cards, counts, rejected


def stock_onnx_encoder(scratch: Path) -> Any:
    """The stock encoder as an fp32 ONNX graph exported into `scratch`: the lint embeds
    every sentence of every card, and on CPU the graph runs about 3.5x faster than torch
    for the same vectors (within 1e-6), so the export (~10 s) pays for itself."""
    from serving.bundle.encoder import stock_model_path
    from serving.bundle.onnx_models import ONNX_DIR, OnnxEncoder
    from training.release.onnx_export import export_onnx

    export_onnx(Path(stock_model_path()), "bi_encoder", out_dir=scratch / ONNX_DIR)
    return OnnxEncoder(scratch)


def build_catalog(
    base: Sequence[ToolCard],
    params: Params,
    *,
    root: Path,
    encoder: Any = None,
    detector: MeaningDetector | None = None,
) -> CatalogResult:
    cards, counts, rejected = merge_sources(base, params.sources, root=root)
    findings = lint_catalog(cards, encoder=encoder, detector=detector)
    cards = mark_cautions(cards, findings)
    bad = {f.tool_id for f in findings if f.severity == "error"}
    kept = [c for c in cards if c.tool_id not in bad] if params.on_error == "exclude" else cards
    excluded = [c for c in cards if c.tool_id in bad] if params.on_error == "exclude" else []
    return CatalogResult(kept, findings, excluded, counts, rejected)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("params", help="params.yaml (section `catalog`)")
    parser.add_argument("base_catalog", help="tool cards, JSONL")
    parser.add_argument("out_dir", help="gets catalog.jsonl and lint.json")
    parser.add_argument("metrics", help="metrics JSON")
    parser.add_argument("--root", default=".", help="sources' paths are relative to this")
    parser.add_argument("--on-error", choices=ON_ERROR, help="overrides params `on_error`")
    parser.add_argument(
        "--detector", help="the detector by meaning (default: the one the package ships, "
        "`make detector`); used when `embed: true`"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    t0 = time.perf_counter()
    params = load_params(args.params, SECTION, Params)
    if args.on_error:
        params = replace(params, on_error=args.on_error)
    out_dir = Path(args.out_dir)
    quarantine = {
        what: quarantine_path_for(out_dir, what) for what in ("catalog", "sources", "excluded")
    }
    for stale in quarantine.values():
        stale.unlink(missing_ok=True)  # a quarantine file always describes this run
    base = load_catalog(args.base_catalog, quarantine=quarantine["catalog"])
    log.info(base.summary(args.base_catalog))
    detector = MeaningDetector.load(args.detector) if args.detector else shipped_detector()
    with tempfile.TemporaryDirectory(prefix="toolsift-catalog-") as scratch:
        encoder = stock_onnx_encoder(Path(scratch)) if params.embed else None
        result = build_catalog(
            base.items, params, root=Path(args.root), encoder=encoder, detector=detector
        )

    out_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl(out_dir / "catalog.jsonl", (c.to_dict() for c in result.cards))
    (out_dir / "lint.json").write_text(
        json.dumps([f.to_dict() for f in result.findings], indent=2) + "\n"
    )
    if result.rejected:
        write_jsonl(quarantine["sources"], result.rejected)
    if result.excluded:
        write_jsonl(quarantine["excluded"], (c.to_dict() for c in result.excluded))
    counts = count_findings(result.findings)
    metrics = {
        "n_base_tools": len(base.items),
        "n_quarantined_base_lines": base.n_skipped,
        "sources": result.imported,
        "n_quarantined_source_entries": len(result.rejected),
        "n_tools": len(result.cards),
        "findings": counts,
        "n_error_tools": len(result.error_tool_ids),
        "error_tools": result.error_tool_ids[:50],
        "n_excluded": len(result.excluded),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_metrics(args.metrics, metrics)
    with_errors = len(result.error_tool_ids)
    print(
        f"catalog: {len(base.items)} base + "
        f"{sum(c['n_imported'] for c in result.imported.values())} imported tools from "
        f"{len(params.sources)} sources; lint: {counts['by_severity']} "
        f"({with_errors} tools with errors, {len(result.excluded)} excluded) -> "
        f"{out_dir / 'catalog.jsonl'} ({len(result.cards)} tools) in {metrics['seconds']:.0f}s"
    )
    if with_errors and params.on_error == "fail":
        log.error(
            "%d tools have error findings (e.g. %s); see %s",
            with_errors,
            ", ".join(result.error_tool_ids[:3]),
            out_dir / "lint.json",
        )
        raise SystemExit(1)


if __name__ == "__main__":
    main()

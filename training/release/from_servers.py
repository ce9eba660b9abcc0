"""Cold start: a servable bundle from a team's own MCP servers.

    toolsift bundle from-servers --config servers.json --out bundles/mine [--ledger L]

The gateway's config (`serving.gateway.config`) names the servers. Each is started and
listed as `toolsift serve` would (`serving.gateway.downstream`), and the live tools are
reviewed by the gateway's own rules (`serving.gateway.registry.build_registry`: import,
lint with the rules and the shipped detector by meaning, and with a ledger its
approvals), so the bundle holds exactly the cards the gateway would serve, and carries
that detector for the gateway's live review. The bundle is a stock one: the packaged
all-MiniLM-L6-v2 embeds the cards (ONNX beside the weights for the torch-free runtime),
no cross-encoder, no learned ranker, no menu policy. Traces the gateway writes over it
are what `dvc repro` trains on later.

Beside the bundle: `catalog.jsonl` (the served cards, for `catalog.sources` or `export`)
and `quarantine.jsonl` (every tool left out, with its reason, and every server that did
not answer). Needs the `[train]` extra: exporting ONNX imports torch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serving.gateway.config import ServerSpec, load_config
from serving.model.config import RuntimeParams, stock_runtime_overrides

CATALOG_FILE = "catalog.jsonl"
QUARANTINE_FILE = "quarantine.jsonl"


@dataclass(frozen=True, slots=True)
class ColdStart:
    """What `build_from_servers` wrote."""

    bundle: Path
    bundle_version: str
    n_tools: int
    quarantined: tuple[tuple[str, str], ...]  # (tool id, reason)
    down: Mapping[str, str]  # server -> why it gave no tools
    catalog: Path
    quarantine: Path

    def summary(self) -> str:
        return (f"{self.bundle} ({self.bundle_version}): {self.n_tools} tools, "
                f"{len(self.quarantined)} quarantined, {len(self.down)} servers down")


async def list_servers(
    specs: Sequence[ServerSpec],
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """Every server's live tools/list (as JSON dicts) and the servers that failed, with
    why; each server is started, listed once and stopped."""
    import anyio

    from serving.gateway.downstream import Downstream

    async def unchanged() -> None:  # a listing that changes mid-build is read next time
        return None

    downstream = Downstream(specs, unchanged)
    async with anyio.create_task_group() as tg:
        await downstream.run(tg)
        tools, down = dict(downstream.tools), dict(downstream.down)
        downstream.close()
        tg.cancel_scope.cancel()
    return tools, down


def build_from_servers(
    config: str | Path, out_dir: str | Path, *, ledger: str | Path | None = None
) -> ColdStart:
    """List, review and export (see the module doc). Raises `ValueError` when no server
    answered or every tool was quarantined: an empty bundle serves nothing."""
    import anyio

    from serving.bundle.encoder import stock_model_path
    from serving.catalog.approvals import load_ledger
    from serving.catalog.meaning_check import meaning_check
    from serving.gateway.registry import build_registry
    from serving.stages.menu_policy import STOCK_MENUS
    from training.release.bundle_export import ExportParams, export_bundle

    cfg = load_config(config)
    tools, down = anyio.run(list_servers, cfg.servers)
    # the same review as the gateway's: rules and the shipped detector by meaning
    check = meaning_check().require()
    registry = build_registry(tools, cfg.servers, {},
                              ledger=load_ledger(ledger) if ledger else None,
                              meaning=check)
    out = Path(out_dir)
    if not registry.cards:
        why = "; ".join(f"{s}: {r}" for s, r in down.items()) or "every tool was quarantined"
        raise ValueError(f"{config}: no tool to bundle ({why})")
    cards = sorted(registry.cards.values(), key=lambda c: c.tool_id)
    manifest = export_bundle(
        cards, out, retriever_path=stock_model_path(), reranker_path=None,
        menus_path=STOCK_MENUS,
        runtime=RuntimeParams.from_dict({**stock_runtime_overrides(), **cfg.runtime}),
        params=ExportParams(encode_batch_size=64, strict=True), onnx=True,
        review_encoder=check.encoder,  # the review embedded every sentence already
        extra_params={"from_servers": {"config": str(config), "ledger": str(ledger or ""),
                                       "down": down}},
    )
    side = out.parent / f"{out.name}.sources"  # outside the bundle: its manifest hashes all
    side.mkdir(parents=True, exist_ok=True)
    catalog = side / CATALOG_FILE
    catalog.write_text("".join(json.dumps(c.to_dict()) + "\n" for c in cards))
    quarantine = side / QUARANTINE_FILE
    quarantine.write_text("".join(
        [json.dumps({"tool_id": t, "reason": r}) + "\n" for t, r in registry.quarantined]
        + [json.dumps({"server": s, "reason": r}) + "\n" for s, r in down.items()]))
    return ColdStart(out, manifest.bundle_version, len(cards), registry.quarantined,
                     down, catalog, quarantine)

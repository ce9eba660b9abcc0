"""A catalog without some of its domains: where its own requests ask for what it lacks.

    python -m training.no_tool.lacking CATALOG OUT_DIR [--parts 4]

The stock no-tool decision must say no to a request for an action the catalog does not
have ("book a flight" to a DevOps catalog). Public text of that kind is scarce, but a
public catalog with labeled requests holds plenty once part of it is taken away: its
domains are cut into `--parts` parts (by a hash of the domain name, so stable), and
OUT_DIR/part-K.jsonl is the catalog without part K. A request whose gold tools all lie in
part K asks part-K.jsonl for something it lacks (`training.train_no_tool --lacking`).
OUT_DIR/parts.json lists each part's domains and tool counts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from serving.model.io import load_catalog, write_jsonl
from serving.model.schema import ToolCard


def domain_parts(domains: Sequence[str], parts: int) -> list[frozenset[str]]:
    """The domains cut into `parts` sets by a hash of each name (stable across runs)."""
    if parts < 2:
        raise ValueError(f"parts must be at least 2, not {parts}")
    out: list[set[str]] = [set() for _ in range(parts)]
    for d in sorted(set(domains)):
        out[int.from_bytes(hashlib.sha256(d.encode()).digest()[:4], "big") % parts].add(d)
    return [frozenset(p) for p in out]


def without(cards: Sequence[ToolCard], domains: frozenset[str]) -> list[ToolCard]:
    return [c for c in cards if c.domain not in domains]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("catalog", help="tool cards, JSONL (the catalog stage's output)")
    parser.add_argument("out_dir", help="where part-K.jsonl and parts.json go")
    parser.add_argument("--parts", type=int, default=4, help="domain parts (default 4)")
    args = parser.parse_args(argv)

    loaded = load_catalog(args.catalog, strict=True)
    cards = list(loaded.items)
    parts = domain_parts([c.domain for c in cards], args.parts)
    out = Path(args.out_dir)
    summary = []
    for k, part in enumerate(parts):
        kept = without(cards, part)
        write_jsonl(out / f"part-{k}.jsonl", (c.to_dict() for c in kept))
        summary.append({"part": k, "domains": sorted(part), "tools_removed":
                        len(cards) - len(kept), "tools_kept": len(kept)})
    (out / "parts.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps([{k: v for k, v in s.items() if k != "domains"} for s in summary]))


if __name__ == "__main__":
    main()

"""`toolsift check`: validate a catalog, trace or labeled-query file line by line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from serving.cli.root import console, literal, write_err


def check(
    kind: Annotated[str, typer.Argument(help="catalog | traces | queries")],
    path: Annotated[Path, typer.Argument(help="The JSONL file to check.")],
    catalog: Annotated[
        Path | None, typer.Option(help="Catalog to resolve tool ids against (traces, queries).")
    ] = None,
    strict: Annotated[bool, typer.Option(help="Stop at the first bad line.")] = False,
    quarantine: Annotated[
        Path | None, typer.Option(help="Write bad lines with their errors to this file.")
    ] = None,
) -> None:
    """Validate a catalog, trace or labeled-query file; print each bad line's file:line: field."""
    from serving.model.io import LoadResult, load_catalog, load_queries, load_traces

    known = [c.tool_id for c in load_catalog(catalog).items] if catalog else None
    result: LoadResult[Any]
    if kind == "catalog":
        result = load_catalog(path, strict=strict, quarantine=quarantine)
    elif kind == "traces":
        result = load_traces(path, known_tools=known, strict=strict, quarantine=quarantine)
    elif kind == "queries":
        result = load_queries(path, known_tools=known, strict=strict, quarantine=quarantine)
    else:
        raise typer.BadParameter(f"{kind!r}: expected catalog, traces or queries")
    for error in result.errors:
        write_err(literal(error))
    console.print(literal(result.summary(str(path))))
    if result.errors:
        raise typer.Exit(1)


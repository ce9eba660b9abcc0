"""The root `toolsift` app, the `bundle` group, and what every command shares: the plain
consoles, the bundle options, and `literal` / `error_line` for text from data or the user.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(
    help="toolsift: pick the right tool from a 1,000+ tool catalog, with a trace of why.",
    no_args_is_help=True,
    add_completion=False,
)
bundle_app = typer.Typer(help="Check and look inside selection bundles.", no_args_is_help=True)
app.add_typer(bundle_app, name="bundle")
# markup, emoji codes and highlighting off: a tool id or request holding `[/bold]` or
# `:x:` is shown as written (and cannot crash the renderer); soft wrap keeps paths whole
def _plain_console(*, stderr: bool = False, width: int | None = None) -> Console:
    return Console(
        stderr=stderr, width=width, markup=False, emoji=False, highlight=False, soft_wrap=True
    )


console = _plain_console(width=None if sys.stdout.isatty() else 160)
err_console = _plain_console(stderr=True)

BundleOpt = Annotated[Path, typer.Option("--bundle", "-b", help="Selection bundle directory.")]
VersionOpt = Annotated[
    str | None,
    typer.Option("--bundle-version", help="Refuse any bundle but this version (a pin)."),
]
PublicKeyOpt = Annotated[
    Path | None,
    typer.Option(
        "--public-key",
        help="Ed25519 public key (PEM): refuse unsigned or wrongly signed bundles "
        "(default: $TOOLSIFT_BUNDLE_PUBLIC_KEY, if set).",
    ),
]


def literal(text: object) -> str:
    """Data or user text made safe for a terminal: controls, bidi and zero-width
    characters escaped as `\\u{..}`, lone surrogates (undecodable argv bytes) replaced."""
    from serving.catalog.findings import terminal_safe

    safe = str(text).encode("utf-8", "replace").decode("utf-8")
    return terminal_safe(safe)


def error_line(err: BaseException | str) -> str:
    """One line for any failure: multi-line messages (several bad lines) joined by `; `."""
    text = err if isinstance(err, str) else (str(err) or type(err).__name__)
    if isinstance(err, KeyError | TypeError) and not isinstance(err, str):
        text = f"{type(err).__name__}: {text}"
    parts = [p.strip() for p in text.splitlines() if p.strip()]
    return "toolsift: error: " + literal("; ".join(parts) or text)


def write_err(line: str) -> None:
    """Write one line to stderr now (not through rich: it is never wrapped)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


@app.callback()
def _main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr.")] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an error.")
    ] = False,
):
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )

"""`toolsift`: the command line over the runtime and the data formats.

Run through `main()`: every failure is one line `toolsift: error: ...` on stderr and exit
code 2 (`--debug` adds the traceback); exit 1 means findings (lint, check, a refused
approval). Text that comes from data or from the user is printed literally: the consoles
interpret no markup, and control characters are escaped (`literal`).

One module per command group: `discovery` (discover, describe), `check`, `diagnose`,
`catalog` (import, lint, approve), `bundle`; the gateway's `serve` and `demo-server` live
in `serving.gateway.commands`. `root` holds the apps and what the commands share.
`training.core.cli` adds the offline commands to the same `app`.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence

import click

from serving.cli import bundle, catalog, check, diagnose, discovery
from serving.cli.root import app, bundle_app, console, error_line, literal, write_err

# The MCP gateway's commands; they import the mcp SDK (the `serve` extra) only when run.
from serving.gateway.commands import demo_server, serve

__all__ = ["app", "bundle_app", "console", "error_line", "literal", "main"]

# registered here, in the order `toolsift --help` lists them
app.command()(discovery.discover)
app.command()(discovery.describe)
app.command()(check.check)
app.command("diagnose")(diagnose.diagnose_command)
app.command("import")(catalog.import_command)
app.command()(catalog.lint)
app.command()(catalog.approve)
app.command("serve")(serve)
app.command("demo-server")(demo_server)
bundle_app.command("verify")(bundle.bundle_verify)
bundle_app.command("inspect")(bundle.bundle_inspect)
bundle_app.command("sign")(bundle.bundle_sign)
bundle_app.command("keygen")(bundle.bundle_keygen)


def main(argv: Sequence[str] | None = None) -> int:
    """The `toolsift` entry point: run a command, turn any failure into one error line.

    Returns the exit code: 0 ok, 1 findings, 2 an error (usage included), 130 interrupted.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    try:
        code = app(args=args, prog_name="toolsift", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as err:
        err.show()
        return 2
    except click.ClickException as err:  # usage errors: bad options, missing arguments
        if debug:
            traceback.print_exc()
        ctx = getattr(err, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        write_err(error_line(err.format_message()) + literal(where))
        return 2
    except click.Abort:
        write_err("toolsift: error: aborted")
        return 130
    except Exception as err:  # noqa: BLE001 - the one place every failure becomes a line
        if debug:
            traceback.print_exc()
        write_err(error_line(err))
        return 2
    return code if isinstance(code, int) else 0

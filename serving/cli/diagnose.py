"""`toolsift diagnose`: production traces sorted into failure classes, printed and
optionally written as JSON and drawn as bars.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from serving.cli.root import console, literal, write_err

if TYPE_CHECKING:
    from serving.operations.diagnose import Diagnosis

def diagnose_command(
    traces: Annotated[
        Path, typer.Argument(help="Trace file (JSONL) the runtime or `toolsift serve` wrote.")
    ],
    labeled: Annotated[
        Path | None,
        typer.Option(help="Labeled queries (JSONL): also where the recall chain lost each "
                     "gold tool, for the requests the traces hold with a query's text."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the whole report as JSON to this file.")
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="Draw the failures per class and period as bars (PNG; needs "
                     "matplotlib, which the train extra installs)."),
    ] = None,
    by: Annotated[str, typer.Option(help="Period of the counts over time: day | hour (UTC).")]
    = "day",
    window_s: Annotated[
        float,
        typer.Option(help="A search this many seconds after a failed or a successful call "
                     "of the same session counts as a follow-up."),
    ] = 120.0,
    top: Annotated[int, typer.Option(help="Tools and servers listed per class.")] = 3,
    strict: Annotated[bool, typer.Option(help="Stop at the first bad line.")] = False,
) -> None:
    """Sort production trace records into failure classes, each with where its fix lives:
    no suitable tool, not retrieved or cut, quarantined, not connected, denied, invoked
    wrongly, declined or dry run, downstream error, tool error, returned too little. Bad
    lines are named (file:line) and skipped."""
    from serving.model.io import load_jsonl, load_queries
    from serving.operations.diagnose import BUCKETS, TraceRecord, diagnose

    if by not in BUCKETS:  # before reading a large file
        raise ValueError(f"--by: {by!r} is not {' or '.join(BUCKETS)}")
    if plot is not None:
        _pyplot()
    loaded = load_jsonl(traces, lambda d: [TraceRecord.from_dict(d)], strict=strict)
    errors = list(loaded.errors)
    queries = None
    if labeled is not None:
        labels = load_queries(labeled, strict=strict)
        errors += labels.errors
        queries = labels.items
    for error in errors:
        write_err(literal(error))
    report = diagnose(loaded.items, window_s=window_s, by=by, labeled=queries)
    _print_diagnosis(report, top=top)
    console.print(literal(f"{loaded.summary(str(traces))}; {report.n_failures} failures"))
    if json_out is not None:
        out = {"traces": str(traces), "n_bad_lines": len(errors),
               "bad_lines": [str(e) for e in errors], **report.to_dict()}
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    if plot is not None:
        _plot_diagnosis(report, plot)


def _top(counts: Sequence[tuple[str, int]], n: int) -> str:
    shown = ", ".join(f"{name} {k}" for name, k in counts[:n])
    return shown + (f", +{len(counts) - n} more" if len(counts) > n else "")


def _print_diagnosis(report: Diagnosis, *, top: int) -> None:
    from serving.metrics import STAGES

    console.print(literal(
        f"{report.n_records} records: {report.n_searches} searches, {report.n_calls} calls, "
        f"{report.n_sessions} sessions ({report.n_without_session} records without one)"
    ))
    table = Table(show_header=True, header_style="bold")
    for col in ("class", "count", "share"):
        table.add_column(col, no_wrap=True, justify="left" if col == "class" else "right")
    table.add_column("where the fix lives")
    for c in report.classes:
        table.add_row(*(Text(literal(x)) for x in (c.name, c.count, f"{c.share:.0%}", c.fix)))
    console.print(table)
    for c in (c for c in report.classes if c.count):
        parts = [f"why {_top(c.by_reason, top)}"]
        if c.by_tool:
            parts.append(f"tools {_top(c.by_tool, top)}")
        if c.by_server:
            parts.append(f"servers {_top(c.by_server, top)}")
        console.print(Text(literal(f"  {c.name}: " + "; ".join(parts))))
    if report.other_outcomes:
        console.print(literal(f"  outcomes no class knows: {_top(report.other_outcomes, 10)}"))
    if report.buckets:
        per = ", ".join(f"{p} {sum(n for _, n in counts)}" for p, counts in report.buckets)
        console.print(literal(f"failures per {report.by}: {per}"))
    losses = report.losses
    if losses is None:
        return
    from serving.operations.diagnose import STAGE_LOSSES

    console.print(literal(
        f"labeled: {losses.n_matched} of {losses.n_queries} queries asked in the traces "
        f"({losses.n_requests} requests, {losses.chain['n_items']} gold tools); "
        f"end to end {_rate(losses.chain['end_to_end'])}"
    ))
    for stage in STAGES:
        lost = losses.chain[f"lost_{stage}"]
        tools = losses.lost_tools.get(stage, ())
        where = f" ({_top(tools, top)})" if tools else ""
        console.print(Text(literal(f"  {STAGE_LOSSES[stage]}: {lost}{where}")))


def _rate(value: object) -> str:
    return "-" if value is None else f"{value:.0%}"


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as err:
        raise RuntimeError(f"--plot needs matplotlib: pip install 'toolsift[train]' ({err})") \
            from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plot_diagnosis(report: Diagnosis, path: Path) -> None:
    """Failures per class (left) and per period, stacked by class (right); one colour a
    class in both."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    names = [c.name for c in report.classes]
    colour = {name: f"C{i}" for i, name in enumerate(names)}
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    left.barh(names[::-1], [c.count for c in report.classes][::-1],
              color=[colour[n] for n in names[::-1]])
    left.set_xlabel("failures")
    left.set_title(f"by class ({report.n_failures} failures in {report.n_records} records)")
    periods = [p for p, _ in report.buckets]
    bottom = [0] * len(periods)
    for name in names:
        heights = [dict(counts).get(name, 0) for _, counts in report.buckets]
        if any(heights):
            right.bar(periods, heights, bottom=bottom, label=name, color=colour[name])
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    right.set_title(f"per {report.by} (UTC)")
    right.tick_params(axis="x", labelrotation=30)
    if periods:
        right.legend(fontsize=7)
    for ax in (left.xaxis, right.yaxis):
        ax.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


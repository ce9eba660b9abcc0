"""Where a search's time goes: demo requests discovered in a loop, for a sampling profiler.

    python -m training.checks.profile_search BUNDLE QUERIES [--seconds 20]
    python -m training.checks.profile_search --summarize STACKS REPORT

`make profile` runs the first under `py-spy record` (a flame graph, docs/profile_search.svg,
and the collapsed stacks), then the second, which writes the functions with the most own
samples and the share of each pipeline stage to REPORT (markdown). The loop warms up on
the first requests (models loaded, sessions built) before it is sampled in earnest: a
sampler cannot tell warm-up from steady state, so the warm-up is kept short.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from pathlib import Path

# a frame's file decides its stage in the summary; the first match from the leaf wins
STAGES = (
    ("onnxruntime", "encoders (onnxruntime)"),
    ("tokenizers", "encoders (tokenizers)"),
    ("serving/stages/rerank", "rerank"),
    ("serving/stages/ranker_features", "rerank"),
    ("serving/stages/trees", "rerank"),
    ("serving/stages/retrieve", "retrieval and fusion"),
    ("serving/stages/filters", "filters"),
    ("serving/stages/missing_access", "what the session lacks"),
    ("serving/stages/abstain", "no-tool decision"),
    ("serving/stages/intent", "no-tool decision"),
    ("serving/decompose", "decomposition"),
    ("serving/stages/disclose", "disclosure"),
)


def run_searches(bundle: Path, queries: Path, seconds: float) -> int:
    """Discover the labeled requests of QUERIES in a loop for `seconds` (after 20 of them as
    a warm-up); how many ran."""
    from serving.model.io import load_queries
    from serving.selector import Selector

    selector = Selector.from_bundle(bundle)
    items = load_queries(queries, known_tools=selector.cards).items
    for q in items[:20]:
        selector.discover(q.query, q.context)
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        q = items[done % len(items)]
        selector.discover(q.query, q.context)
        done += 1
    return done


_LINE = re.compile(r":\d+\)$")


def parse_stacks(text: str) -> Counter[tuple[str, ...]]:
    """py-spy's collapsed format: `frame;frame;...;leaf COUNT` per line."""
    stacks: Counter[tuple[str, ...]] = Counter()
    for line in text.splitlines():
        frames, _, count = line.rpartition(" ")
        if frames and count.isdigit():
            stacks[tuple(frames.split(";"))] += int(count)
    return stacks


def stage_of(stack: tuple[str, ...]) -> str:
    for frame in reversed(stack):
        for marker, stage in STAGES:
            if marker in frame:
                return stage
    return "other Python (selector, results, bookkeeping)"


def summarize(stacks: Counter[tuple[str, ...]], top: int = 15) -> str:
    """The share of samples per stage and the functions with the most own samples. Every
    sample counts, the stock encoder's worker thread too (it embeds beside the retriever);
    loading the bundle is a second or two of the run, under "other"."""
    total = sum(stacks.values())
    if not total:
        return "No samples.\n"
    by_stage: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for stack, n in stacks.items():
        by_stage[stage_of(stack)] += n
        own[_LINE.sub(")", stack[-1])] += n  # one row a function, whatever its line
    lines = ["# Where a search's time goes (`make profile`)", "",
             f"{total} samples of demo searches in a loop (py-spy, every thread, idle "
             "excluded); the flame graph is docs/profile_search.svg.", "",
             "| stage | share of samples |", "|---|---:|"]
    lines += [f"| {stage} | {n / total:.1%} |" for stage, n in by_stage.most_common()]
    lines += ["", f"The {top} functions with the most own samples:", "",
              "| function | share |", "|---|---:|"]
    lines += [f"| `{frame}` | {n / total:.1%} |" for frame, n in own.most_common(top)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs=2, type=Path, metavar="PATH",
                        help="BUNDLE QUERIES, or with --summarize STACKS REPORT")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="how long the loop runs after its warm-up")
    parser.add_argument("--summarize", action="store_true",
                        help="read py-spy's collapsed stacks and write the markdown summary")
    args = parser.parse_args(argv)
    if args.summarize:
        stacks, report = args.paths
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(summarize(parse_stacks(stacks.read_text())))
        print(f"wrote {report}")
        return
    n = run_searches(*args.paths, seconds=args.seconds)
    print(f"{n} searches in {args.seconds:g} s")


if __name__ == "__main__":
    main()

"""Probe the loaders, the CLI, the API, the bundle and observation capping with hostile and
sloppy inputs; write a reliability report.

    python -m training.checks.reliability CATALOG REPORT [--bundle DIR] [--attempts N]
        [--seed S] [--real-catalog JSONL] [--demo-catalog JSONL]

Each probe family makes `--attempts` inputs from a seeded `random.Random` (the same seed
gives the same report) and sorts every outcome into: accepted, a clean error (a line
error, `InputError`, `FieldError`, `TypeError`, `BundleError`, exit code 2 with one
`toolsift: error:` line), or a crash (any other exception, a traceback, another exit
code). For the loaders it also counts valid lines lost: valid lines mixed into a file of
junk that are missing from the result. Crashes and lost lines should both be 0.
`--bundle` adds the tampering family (a copy of the bundle is altered in one way per
attempt; anything but a `BundleError` is a crash, an accepted alteration is counted).
`--real-catalog` / `--demo-catalog` add the lint section: error-severity security
false alarms on a real catalog and the second poisoned set's flagged rate.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serving.bundle.files import CARDS, MANIFEST, BundleError, content_version, load_bundle
from serving.calls.gate import ActiveSet, gate
from serving.calls.observe import ObservationStore, cap_observation
from serving.cli import main as cli_main
from serving.model.io import InputError, load_catalog, load_queries, load_traces, parse_json_line
from serving.model.schema import FieldError
from serving.model.selection import SessionContext
from serving.model.text import request_text


@dataclass(slots=True)
class Tally:
    """One probe family's outcomes."""

    family: str
    what: str
    attempts: int = 0
    accepted: int = 0
    clean_errors: int = 0
    crashes: int = 0
    valid_lost: int = 0
    examples: list[str] = field(default_factory=list)  # the first crashes, for the report

    def crash(self, detail: str) -> None:
        self.crashes += 1
        if len(self.examples) < 3:
            self.examples.append(detail[:200])


# --- hostile lines ------------------------------------------------------------------------


def junk_line(rng: random.Random, valid: dict[str, Any]) -> bytes:
    """One line of a kind a sloppy or hostile producer writes."""
    kind = rng.randrange(12)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))).replace(b"\n", b"")
    if kind == 1:  # a valid record with one invalid UTF-8 byte
        raw = json.dumps(valid).encode()
        cut = rng.randrange(len(raw))
        return raw[:cut] + bytes([rng.choice([0xFF, 0xC3, 0x80, 0xED])]) + raw[cut:]
    if kind == 2:
        return b'{"cost": NaN, "p50_ms": Infinity}'
    if kind == 3:
        depth = rng.choice([70, 1_000, 100_000])
        return b"[" * depth + b"]" * depth
    if kind == 4:  # a field replaced by a falsy or wrongly typed value
        key = rng.choice(sorted(valid))
        return json.dumps({**valid, key: rng.choice([0, False, "", None, [], {}, 1e308])}).encode()
    if kind == 5:
        return json.dumps({**valid, "name": "x\\ud800"}).encode().replace(b"\\\\ud800", b"\\ud800")
    if kind == 6:
        return b'{"n": 1' + b"0" * 5_000 + b"}"
    if kind == 7:
        return json.dumps(rng.choice([[], "text", 3, None, True])).encode()
    if kind == 8:  # truncated mid-record (a torn write)
        raw = json.dumps(valid).encode()
        return raw[: rng.randrange(1, len(raw))]
    if kind == 9:
        return json.dumps({k: v for k, v in valid.items() if rng.random() < 0.5}).encode()
    if kind == 10:
        return "[red]x[/bold] \x1b[2J \u202e".encode()
    return b"\r"


def _loader_family(
    family: str,
    what: str,
    load: Callable[[Path], Any],
    valid_lines: Sequence[dict[str, Any]],
    key: Callable[[dict[str, Any]], str],
    item_key: Callable[[Any], str],
    rng: random.Random,
    attempts: int,
    tmp: Path,
) -> Tally:
    tally = Tally(family, what)
    for i in range(attempts):
        picked = rng.sample(range(len(valid_lines)), 3)
        valid = [valid_lines[j] for j in picked]
        # junk is made from other records: an accepted variant of a valid line would make
        # the valid one a duplicate, a refusal that is right and not a loss
        others = [v for j, v in enumerate(valid_lines) if j not in picked]
        junk = [junk_line(rng, rng.choice(others)) for _ in range(rng.randrange(1, 6))]
        lines = junk + [json.dumps(v).encode() for v in valid]
        rng.shuffle(lines)
        if rng.random() < 0.2:
            lines[0] = b"\xef\xbb\xbf" + lines[0]
        path = tmp / f"{family}-{i}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        tally.attempts += 1
        try:
            result = load(path)
        except InputError:
            tally.clean_errors += 1
            continue
        except Exception as err:  # noqa: BLE001 - a crash is what this probe counts
            tally.crash(f"{type(err).__name__}: {err}")
            continue
        got = {item_key(x) for x in result.items}
        tally.valid_lost += sum(key(v) not in got for v in valid)
        tally.clean_errors += len(result.errors)
        tally.accepted += len(result.items)
    return tally


# --- the CLI, the API, observations --------------------------------------------------------

ARG_TOKENS = (
    "check", "catalog", "traces", "queries", "lint", "--no-embed", "--json", "bundle",
    "verify", "inspect", "describe", "import", "--server", "--out", "--strict", "--bundle",
    "--bundle-version", "--catalog", "--quarantine", "x.y", "[/bold]", "\udcff", "-v",
    "{file}", "{dir}", "{missing}",
)


def cli_family(rng: random.Random, attempts: int, tmp: Path, sample: Path) -> Tally:
    tally = Tally("cli", "random argument lists (commands, options, markup, bad bytes, paths)")
    paths = {"{file}": str(sample), "{dir}": str(tmp), "{missing}": str(tmp / "nope")}
    for _ in range(attempts):
        args = [paths.get(t, t) for t in rng.choices(ARG_TOKENS, k=rng.randrange(1, 6))]
        if "lint" in args:
            args.append("--no-embed")
        if args[0] == "import":
            args += ["--server", "s", "--out", str(tmp / "o.jsonl")]
        out, err = io.StringIO(), io.StringIO()
        tally.attempts += 1
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli_main(args)
        except BaseException as exc:  # noqa: BLE001 - escaping main is a crash
            tally.crash(f"{args}: {type(exc).__name__}: {exc}")
            continue
        text = err.getvalue()
        if code not in (0, 1, 2) or "Traceback" in text:
            tally.crash(f"{args}: exit {code}: {text[-200:]}")
        elif code == 0:
            tally.accepted += 1
        else:
            tally.clean_errors += 1
    return tally


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 3 else 6)
    simple = [None, True, 0, -1.5, float("nan"), "\udcff", "prod", b"\xff"]
    if kind < 6:
        return rng.choice(simple)
    if kind == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if kind == 7:
        return {rng.choice(["connections", "scopes", "env", "x"]): _random_value(rng, depth + 1)}
    return "list commits " + rng.choice(["[/bold]", "\udcff", "\x00", "a" * 1000])


def api_family(rng: random.Random, attempts: int) -> Tally:
    tally = Tally("api", "session contexts, requests and tool ids of any type")
    active = ActiveSet.of(["a.b"])
    for _ in range(attempts):
        value = _random_value(rng)
        for probe in (
            lambda v: SessionContext.from_dict(v),
            lambda v: request_text(v, "request"),
            lambda v: gate(v, active),
        ):
            tally.attempts += 1
            try:
                probe(value)
                tally.accepted += 1
            except TypeError:
                tally.clean_errors += 1
            except Exception as err:  # noqa: BLE001
                tally.crash(f"{value!r:.80}: {type(err).__name__}: {err}")
    return tally


def observation_family(rng: random.Random, attempts: int) -> Tally:
    tally = Tally("observations", "tool results: deep nesting, cycles, NaN, bytes, sets")
    store = ObservationStore()
    for _ in range(attempts):
        depth = rng.choice([1, 10, 500, 5_000, 50_000])
        value: Any = rng.choice([float("nan"), b"\xff\xfe", {1, 2}, "x" * 10_000])
        for _ in range(depth):
            value = [value] if rng.random() < 0.5 else {"k": value}
        if rng.random() < 0.3:
            loop: list[Any] = [value]
            loop.append(loop)
            value = loop
        tally.attempts += 1
        try:
            view = cap_observation(value, max_bytes=2_000, max_items=5, store=store)
            assert view.capped_bytes <= 2_000
            tally.accepted += 1
        except Exception as err:  # noqa: BLE001
            tally.crash(f"depth {depth}: {type(err).__name__}: {err}")
    return tally


def parse_family(rng: random.Random, attempts: int, valid: dict[str, Any]) -> Tally:
    tally = Tally("json_lines", "single lines through parse_json_line")
    for _ in range(attempts):
        tally.attempts += 1
        try:
            parse_json_line(junk_line(rng, valid))
            tally.accepted += 1
        except FieldError:
            tally.clean_errors += 1
        except Exception as err:  # noqa: BLE001
            tally.crash(f"{type(err).__name__}: {err}")
    return tally


# --- bundle tampering ----------------------------------------------------------------------


def _tamper(root: Path, rng: random.Random) -> tuple[str, str | None]:
    """Alter a bundle copy one way; returns (what, the version to pin or None)."""
    manifest = json.loads((root / MANIFEST).read_text())
    files = sorted(manifest["files"])
    kind = rng.randrange(8)
    if kind == 0:
        rel = rng.choice(files)
        data = bytearray((root / rel).read_bytes())
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        (root / rel).write_bytes(bytes(data))
        return f"flip a bit in {rel}", None
    if kind == 1:
        (root / rng.choice(files)).unlink()
        return "delete a file", None
    if kind == 2:
        (root / "models" / "manifest.json").write_text("{}")
        return "add a nested manifest.json", None
    if kind == 3:
        manifest[rng.choice(["params", "metrics", "models"])] = {"x": 1}
        (root / MANIFEST).write_text(json.dumps(manifest))
        return "edit a manifest field", None
    if kind == 4:  # edit and re-hash: valid, but not the pinned version
        pinned = manifest["bundle_version"]
        manifest["git_rev"] = "forged"
        manifest["bundle_version"] = content_version(manifest)
        (root / MANIFEST).write_text(json.dumps(manifest))
        return "edit and re-hash the manifest, load pinned", pinned
    if kind == 5:
        (root / MANIFEST).write_bytes(b"\xff" + (root / MANIFEST).read_bytes())
        return "manifest bytes not UTF-8", None
    if kind == 6:
        (root / CARDS).write_bytes((root / CARDS).read_bytes() + b"{broken\n")
        return "broken cards.jsonl line", None
    (root / MANIFEST).write_text('{"format_version": 1}')
    return "old or partial manifest", None


def bundle_family(rng: random.Random, attempts: int, bundle: Path, tmp: Path) -> Tally:
    tally = Tally("bundle", "a copy of the bundle altered one way per attempt")
    for i in range(attempts):
        root = tmp / f"bundle-{i}"
        shutil.copytree(bundle, root)
        what, pinned = _tamper(root, rng)
        tally.attempts += 1
        try:
            load_bundle(root, expect_version=pinned, public_key=False)
            tally.accepted += 1  # an alteration that went through
            tally.crash(f"accepted: {what}")
        except BundleError:
            tally.clean_errors += 1
        except Exception as err:  # noqa: BLE001
            tally.crash(f"{what}: {type(err).__name__}: {err}")
        shutil.rmtree(root)
    return tally


# --- the report ----------------------------------------------------------------------------


def run_probes(
    catalog: Path, *, attempts: int, seed: int, bundle: Path | None, tmp: Path
) -> list[Tally]:
    rng = random.Random(seed)
    cards = [json.loads(x) for x in catalog.read_text(encoding="utf-8").splitlines() if x]
    ids = [c["tool_id"] for c in cards]
    traces = [
        {"request_id": f"r{i}", "subgoal": f"do thing {i}", "tool_id": t, "success": i % 2 == 0,
         "context": {"connections": ["github"], "env": "prod"}}
        for i, t in enumerate(ids)
    ]
    queries = [{"query_id": f"q{i}", "query": f"please do {i}", "gold": [t]}
               for i, t in enumerate(ids)]
    sample = tmp / "sample.jsonl"
    sample.write_bytes(b"\n".join(junk_line(rng, cards[0]) for _ in range(3)) + b"\n")
    families = [
        _loader_family("catalog_lines", "catalog files: 3 valid cards among 1-5 junk lines",
                       load_catalog, cards, lambda v: v["tool_id"], lambda c: c.tool_id,
                       rng, attempts, tmp),
        _loader_family("trace_lines", "trace files: 3 valid events among 1-5 junk lines",
                       load_traces, traces, lambda v: v["request_id"], lambda t: t.request_id,
                       rng, attempts, tmp),
        _loader_family("query_lines", "query files: 3 valid queries among 1-5 junk lines",
                       load_queries, queries, lambda v: v["query_id"], lambda q: q.query_id,
                       rng, attempts, tmp),
        parse_family(rng, attempts, cards[0]),
        cli_family(rng, attempts, tmp, sample),
        api_family(rng, attempts),
        observation_family(rng, max(attempts // 4, 10)),
    ]
    if bundle is not None:
        families.append(bundle_family(rng, max(attempts // 4, 16), bundle, tmp))
    return families


def lint_section(real: Path | None, demo: Path | None) -> list[str]:
    from serving.catalog.lint import lint_catalog
    from training.security.poison_styles import real_false_alarms, second_set_rates

    lines = []
    if real is not None:
        alarms = real_false_alarms(load_catalog(real).items, lint_catalog)
        n_flagged = round(alarms["false_positive_rate"] * alarms["n_tools"])
        lines.append(
            f"- Error-severity security false alarms on `{real.parent.name}/{real.name}`: "
            f"{n_flagged} of {alarms['n_tools']} tools ({alarms['false_positive_rate']:.2%}; "
            f"codes {alarms['error_codes']})."
        )
    if demo is not None:
        rates = second_set_rates(load_catalog(demo).items, lint_catalog)
        by_class = ", ".join(f"{k} {v['flagged_rate']:.0%} of {v['n']}"
                             for k, v in rates["by_class"].items())
        lines.append(
            f"- Second poisoned set (`training/security/poison_styles.py`) installed beside "
            f"`{demo.parent.name}/{demo.name}`: "
            f"{rates['flagged_rate']:.1%} of {rates['n']} flagged at error severity "
            f"({by_class}). The rules were tuned on its first 32 texts; the last 8, written "
            "afterwards, were caught 4 of 8 before one round of generalisation."
        )
    return lines


def render(families: Sequence[Tally], *, seed: int, attempts: int, lint: Sequence[str],
           seconds: float) -> str:
    rows = [
        "| family | inputs | attempts | accepted | clean errors | crashes | valid lines lost |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for t in families:
        lost = str(t.valid_lost) if t.family.endswith("_lines") and t.family != "json_lines" \
            else "-"
        rows.append(f"| {t.family} | {t.what} | {t.attempts} | {t.accepted} | "
                    f"{t.clean_errors} | {t.crashes} | {lost} |")
    crashes = sum(t.crashes for t in families)
    lost = sum(t.valid_lost for t in families)
    out = [
        "# Reliability: hostile and sloppy inputs",
        "",
        "Written by `python -m training.checks.reliability` (seed "
        f"{seed}, {attempts} attempts a family; {seconds:.0f} s). Every input ends accepted "
        "or in a clean error (a line error, `InputError`, `FieldError`, `TypeError`, "
        "`BundleError`, or exit code 2 with one `toolsift: error:` line); anything else is a "
        "crash. Loader families mix 3 valid lines into junk: a valid line missing from the "
        "result is lost. For the bundle family an alteration that loads counts as a crash.",
        "",
        *rows,
        "",
        f"Total: {crashes} crashes, {lost} valid lines lost.",
        "",
    ]
    for t in families:
        for ex in t.examples:
            out.append(f"- crash in {t.family}: `{ex}`")
    if lint:
        out += ["## Lint", "", *lint, ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("catalog", type=Path, help="valid cards to mix into the junk (JSONL)")
    parser.add_argument("report", type=Path, help="where to write the markdown report")
    parser.add_argument("--bundle", type=Path, help="a bundle to tamper with (copies only)")
    parser.add_argument("--attempts", type=int, default=200)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--real-catalog", type=Path, help="lint false alarms on this catalog")
    parser.add_argument("--demo-catalog", type=Path, help="clean catalog for the second set")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # every bad line would log a warning
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="toolsift-reliability-") as tmp:
        families = run_probes(args.catalog, attempts=args.attempts, seed=args.seed,
                              bundle=args.bundle, tmp=Path(tmp))
    lint = lint_section(args.real_catalog, args.demo_catalog)
    text = render(families, seed=args.seed, attempts=args.attempts, lint=lint,
                  seconds=time.perf_counter() - t0)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(text, encoding="utf-8")
    crashes = sum(t.crashes for t in families)
    lost = sum(t.valid_lost for t in families)
    print(f"reliability: {sum(t.attempts for t in families)} probes, {crashes} crashes, "
          f"{lost} valid lines lost -> {args.report}")
    return 1 if crashes or lost else 0


if __name__ == "__main__":
    raise SystemExit(main())

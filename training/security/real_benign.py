"""Benign sentences from real documentation nobody here wrote, for the meaning detector.

Two published API references ship inside pinned PyPI packages (the `train` extra) and a
third source ships with Python itself, so the corpus is the same on every machine with the
same pins and Python and needs no network at training time:
- `botocore` (the AWS SDK's service models): the documentation of every operation and
  shape member, HTML stripped, and every operation name spelled as a terse summary
  ("Get secret value"); both fit the detector's benign class;
- `google-api-python-client` (Google's discovery documents): the descriptions of every
  method, parameter and schema property; it sets the bars, so the bars come from text
  unlike both the attack corpus and the sentences the weights were fit on; the titles,
  defaults and enum values of both references (`value_slot_texts`) set the bar of
  value slots;
- the Python standard library's docstrings (prose paragraphs, unwrapped): developers
  writing to developers in the second person ("you should always use log()", "must be
  called before"), the voice third-party tool listings share and formal API references
  lack; they fit the benign class.
All are rich in what attacks borrow (credentials, keys, tokens, personal data, copying
between resources, "you must call X first") used innocently, which is where the detector's
false alarms on third-party catalogs come from.

Reading the files imports none of them (the packages' imports pull in network clients).
"""

from __future__ import annotations

import ast
import gzip
import html
import importlib.metadata
import importlib.util
import json
import platform
import random
import re
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from serving.catalog.meaning import sentences

_TAG = re.compile(r"<[^>]+>")
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# no lower bound beyond the detector's own three words: the terse fragments of summaries
# and parameter docs ("Format of Response", "Get user's IP") are what it must learn to pass
MAX_CHARS = 400


PACKAGES = ("botocore", "google-api-python-client")  # the distributions the corpus is in


class CorpusUnavailable(RuntimeError):
    """A package that ships a corpus is not installed (install the project's `train` extra)
    or one of its files cannot be read."""


def corpus_versions() -> dict[str, str]:
    """The installed version of each package the corpus comes from and of Python (whose
    standard library is one), for the stage's metrics (the pins in pyproject.toml decide
    them; a different version is a different corpus)."""
    versions = {name: importlib.metadata.version(name) for name in PACKAGES}
    return {**versions, "python": platform.python_version()}


def package_dir(name: str) -> Path:
    """Where package `name` is installed, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise CorpusUnavailable(
            f"package {name!r} is not installed: `pip install -e '.[train]'` brings it"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def plain(doc: str) -> str:
    """Documentation HTML as plain text: tags dropped, entities decoded."""
    return html.unescape(_TAG.sub(" ", doc))


def _strings_under(node: Any, key: str) -> Iterator[str]:
    """Every string value stored under `key`, at any depth."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, str):
                yield v
            else:
                yield from _strings_under(v, key)
    elif isinstance(node, list):
        for item in node:
            yield from _strings_under(item, key)


def read_json(path: Path) -> Any:
    """A package data file as JSON, gzipped or not; CorpusUnavailable naming it if unreadable."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CorpusUnavailable(f"{path}: cannot read it as JSON: {err}") from err


def botocore_docs() -> Iterator[str]:
    """The `documentation` strings of every botocore service model, in path order."""
    for path in sorted((package_dir("botocore") / "data").glob("*/*/service-2.json*")):
        yield from (plain(d) for d in _strings_under(read_json(path), "documentation"))


def spell_operation(name: str) -> str:
    """An operation name as the terse summary of a listing: `GetSecretValue` -> "Get secret
    value", `DisableDNSView` -> "Disable DNS view" (acronyms keep their capitals)."""
    first, *rest = _WORD_START.sub(" ", name).split()
    return " ".join([first, *(w if w.isupper() else w.lower() for w in rest)])


def botocore_operation_names() -> Iterator[str]:
    """Every distinct botocore operation name, spelled (`spell_operation`), sorted: the short
    imperative summaries ("Get private keys", "Send raw email") whose topic alone a
    detector of sentences fit on long documentation reads as an attack."""
    names: set[str] = set()
    for path in sorted((package_dir("botocore") / "data").glob("*/*/service-2.json*")):
        names.update(read_json(path).get("operations", {}))
    yield from (spell_operation(n) for n in sorted(names))


def google_discovery_docs() -> Iterator[str]:
    """The `description` strings of every discovery document, in path order."""
    folder = package_dir("googleapiclient") / "discovery_cache" / "documents"
    for path in sorted(folder.glob("*.json")):
        yield from _strings_under(read_json(path), "description")


_SLOT_KEYS = ("title", "default", "enum")


def _slot_values(node: Any) -> Iterator[str]:
    """Every string title, default and enum value at any depth."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in _SLOT_KEYS:
                yield from (x for x in (v if isinstance(v, list) else [v]) if isinstance(x, str))
            yield from _slot_values(v)
    elif isinstance(node, list):
        for item in node:
            yield from _slot_values(item)


def value_slot_texts() -> list[str]:
    """The distinct titles, defaults and enum values of botocore's service models and
    Google's discovery documents that hold a sentence as the detector reads them (three
    words or more, identifiers spelled: `AGENT_ASSIST_CONVERSATIONS`), sorted: the real
    benign counterpart of an instruction planted in a value slot."""
    folder = package_dir("googleapiclient") / "discovery_cache" / "documents"
    paths = sorted((package_dir("botocore") / "data").glob("*/*/service-2.json*"))
    paths += sorted(folder.glob("*.json"))
    found = {text for path in paths for text in _slot_values(read_json(path))}
    return sorted(text for text in found if sentences(text))


# standard-library folders that are test suites, demos or legacy tooling, not API docs
_STDLIB_SKIP = frozenset(
    {"test", "tests", "idlelib", "lib2to3", "turtledemo", "site-packages", "dist-packages"}
)
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def python_docstrings() -> Iterator[str]:
    """The prose paragraphs (`prose_paragraphs`) of every module, class and function
    docstring of the running Python's standard library, in path order."""
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.rglob("*.py")):
        if _STDLIB_SKIP & set(path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue  # a handful of stdlib files are fixtures in other encodings or syntax
        for node in ast.walk(tree):
            if isinstance(node, _DOCUMENTED):
                yield from prose_paragraphs(ast.get_docstring(node) or "")


def prose_paragraphs(doc: str) -> Iterator[str]:
    """The paragraphs of a docstring that are prose, each on one line: a paragraph with a
    doctest or an indented (code, table) line is left out, and so is one whose characters
    are under 80% letters and spaces. Worked: "Open it.\n\n>>> f()\n\nIt must be
    closed\nafter use." -> "Open it.", "It must be closed after use."."""
    for para in doc.split("\n\n"):
        lines = para.splitlines()
        code = any(line.startswith((">>>", "...")) or line[:1].isspace() for line in lines)
        if not lines or code:
            continue
        text = " ".join(para.split())
        if sum(ch.isalpha() or ch == " " for ch in text) >= 0.8 * len(text):
            yield text


def sample_sentences(docs: Iterator[str], n: int, seed: int) -> list[str]:
    """`n` distinct sentences (as the detector splits them, at most MAX_CHARS) drawn at
    random (seeded) from `docs`."""
    unique = dict.fromkeys(s for doc in docs for s in sentences(doc) if len(s) <= MAX_CHARS)
    pool = sorted(unique)
    return random.Random(seed).sample(pool, min(n, len(pool)))

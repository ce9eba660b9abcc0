"""Public MCP tool definitions, poisoned and benign, read in place with their provenance.

The corpus lives outside the repository (`../shared/security/`, see its README): tool
definitions extracted from public repositories, each with `source` ("owner/repo:path"),
`commit` and `license`. Its sentences never enter the repository; this module reads them
at fit and judging time, turns each into a tool card through the MCP importer (as the
gateway would) and splits them by **source repository**, so no text of a judging source
is ever in a fit.

Record fields used: `name` (a `server__name` prefix added by the corpus for uniqueness is
dropped), `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `server`,
`source`, `commit`, `license`; poisoned: `attack_class`, `where`; benign: `hard_benign`,
`twin_of_poisoning_source`. A record the importer refuses is reported with file, line
and field, and counted (`PublicCorpus.refused`), never silently dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serving.catalog.importers import ImportOptions, cards_from_json
from serving.model.schema import ToolCard

FILES = {"poisoned.jsonl": True, "benign.jsonl": False}  # file -> poisoned
ENV_DIR = "TOOLSIFT_SECURITY_CORPUS"
DEFAULT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "security"
_SERVER_SAFE = re.compile(r"[^A-Za-z0-9_\-]+")


@dataclass(frozen=True, slots=True)
class PublicTool:
    card: ToolCard  # as imported; for a refused record, a bare card under its name
    poisoned: bool
    repo: str  # "owner/name": the unit of every split
    source: str  # "owner/name:path" as the corpus gives it
    commit: str
    license: str
    attack_class: str = ""  # poisoned only
    where: str = ""  # poisoned only: description, param_description, default, name
    hard_benign: bool = False
    twin: bool = False  # a clean tool shipped beside poisoned ones
    refused: str = ""  # why the MCP importer refused it: the gateway quarantines it
    entry: Mapping[str, Any] = field(default_factory=dict)  # the tool as its server lists it


@dataclass(frozen=True, slots=True)
class PublicCorpus:
    directory: str
    tools: tuple[PublicTool, ...]
    refused: tuple[str, ...] = ()  # "file:line: field: problem", each also a tool
    sha256: dict[str, str] = field(default_factory=dict)  # file -> digest of what was read

    def repos(self, *, poisoned: bool | None = None) -> list[str]:
        return sorted({t.repo for t in self.tools if poisoned is None or t.poisoned == poisoned})


def corpus_dir(explicit: str | Path | None = None) -> Path:
    """`explicit`, else $TOOLSIFT_SECURITY_CORPUS, else `../shared/security` beside the
    checkout."""
    return Path(explicit or os.environ.get(ENV_DIR) or DEFAULT_DIR)


def available(directory: str | Path | None = None) -> bool:
    d = corpus_dir(directory)
    return all((d / name).is_file() for name in FILES)


def original_name(record_name: str, server: str) -> str:
    """The tool's own name: the corpus prefixes `server__` where two names collided."""
    prefix = f"{server}__"
    return record_name[len(prefix) :] if record_name.startswith(prefix) else record_name


def mcp_entry(record: dict[str, Any], server: str) -> dict[str, Any]:
    entry = {
        "name": original_name(str(record.get("name", "")), server),
        "description": record.get("description") or "",
        # static reconstructions (the corpus README): a schema the extraction could not
        # type is read as the object schema a live server would send; the text is judged
        "inputSchema": {"type": "object", "properties": {}, **(record.get("inputSchema") or {})},
    }
    for key in ("title", "outputSchema", "annotations"):
        if record.get(key):
            entry[key] = record[key]
    return entry


def read_file(path: Path, poisoned: bool) -> tuple[list[PublicTool], list[str]]:
    """Every record of one corpus file as a third-party card; refusals as messages."""
    tools: list[PublicTool] = []
    refused: list[str] = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            refused.append(f"{path}:{line_no}: <json>: {err}")
            continue
        if not isinstance(record, dict):
            refused.append(f"{path}:{line_no}: <record>: expected a JSON object")
            continue
        server = _SERVER_SAFE.sub("_", str(record.get("server") or "")).strip("_") or "unknown"
        entry = mcp_entry(record, server)
        result = cards_from_json([entry], "mcp", ImportOptions(server=server))
        why = [f"{path}:{line_no}: {e.field}: {e.problem}" for e in result.errors]
        refused += why
        cards = result.items or [_bare_card(server, entry["name"])]
        for card in cards:
            source = str(record.get("source", ""))
            tools.append(
                PublicTool(
                    card=card,
                    poisoned=poisoned,
                    repo=source.split(":", 1)[0],
                    source=source,
                    commit=str(record.get("commit", "")),
                    license=str(record.get("license", "")),
                    attack_class=str(record.get("attack_class", "")),
                    where=str(record.get("where", "")),
                    hard_benign=bool(record.get("hard_benign")),
                    twin=bool(record.get("twin_of_poisoning_source")),
                    refused="; ".join(why),
                    entry=entry,
                )
            )
    return tools, refused


def _bare_card(server: str, name: str) -> ToolCard:
    return ToolCard(
        tool_id=f"{server}.{name or 'unnamed'}", server=server, domain=server,
        name=name or "unnamed", summary="", trust="third_party",
    )


def load_corpus(directory: str | Path | None = None) -> PublicCorpus:
    """Both files of the corpus; FileNotFoundError naming the directory when absent."""
    d = corpus_dir(directory)
    if not available(d):
        raise FileNotFoundError(
            f"{d}: no public security corpus ({', '.join(FILES)}); set {ENV_DIR} or pass "
            "the directory"
        )
    tools: list[PublicTool] = []
    refused: list[str] = []
    digests = {}
    for name, poisoned in FILES.items():
        found, bad = read_file(d / name, poisoned)
        tools += found
        refused += bad
        digests[name] = hashlib.sha256((d / name).read_bytes()).hexdigest()
    return PublicCorpus(str(d), tuple(tools), tuple(refused), digests)


def repo_bucket(repo: str, seed: int) -> float:
    digest = hashlib.sha256(f"{seed}:{repo}".encode()).hexdigest()
    return int(digest[:8], 16) / 0xFFFFFFFF


def split_repos(repos: Iterable[str], judge_share: float, seed: int) -> tuple[list[str], list[str]]:
    """(fit, judging) repositories by a seeded hash: a repository is wholly on one side,
    poisoned and benign tools alike, and stays there when the corpus grows."""
    repos = sorted(set(repos))
    judge = [r for r in repos if repo_bucket(r, seed) < judge_share]
    return [r for r in repos if r not in judge], judge


def of_repos(tools: Sequence[PublicTool], repos: Iterable[str]) -> list[PublicTool]:
    keep = set(repos)
    return [t for t in tools if t.repo in keep]

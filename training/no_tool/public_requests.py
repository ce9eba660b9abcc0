"""Public requests with and without a tool, read in place with their provenance.

The set lives outside the repository (`../shared/benchmarks/no_tool/`, see its README):
`no_tool.jsonl` (requests an assistant answers from its own knowledge: small talk,
writing, reasoning, knowledge, coding, advice, math) and `needs_tool.jsonl` (requests an
API serves), each row with `source` ("owner/repo:path"), `commit` and `license`. Its
sentences never enter the repository. Every split is by **source group**: the source with
the files of one directory of one repository taken together (one benchmark's 25 task
files are one source, not 25), so no phrasing of a judged source is in a fit.

A needs-tool row whose `api_type` is "function" keeps its API names (`apis`): a catalog
whose servers none of them names lacks its tool (`absent_from`), so on that catalog the
request is one no tool serves. Intent labels (CLINC) name no tool, so they never are.

A row without a non-empty `query_id`, `query` or `source` is reported with file, line and
field and counted (`PublicRequests.refused`), never silently dropped.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_DIR = "TOOLSIFT_NO_TOOL_CORPUS"
DEFAULT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks" / "no_tool"
FILES = {"no_tool.jsonl": False, "needs_tool.jsonl": True}  # file -> asks for a tool


@dataclass(frozen=True, slots=True)
class PublicRequest:
    query_id: str
    text: str
    needs_tool: bool
    source: str  # "owner/repo:path" as the set gives it
    family: str  # no_tool: its family; needs_tool: "tool"
    apis: tuple[str, ...] = ()  # needs_tool with api_type "function": "<API>.<function>"

    @property
    def group(self) -> str:
        return source_group(self.source)

    def absent_from(self, servers: Iterable[str]) -> bool:
        """Whether a catalog with these servers surely lacks this request's tool: the
        request names its APIs and no server of the catalog is one of them (by name,
        case and punctuation aside)."""
        names = {squash(api.rpartition(".")[0] or api) for api in self.apis}
        return bool(self.apis) and not names & {squash(s) for s in servers}


def squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@dataclass(frozen=True, slots=True)
class PublicRequests:
    directory: str
    requests: tuple[PublicRequest, ...]
    refused: tuple[str, ...] = ()  # "file:line: field: problem"
    sha256: dict[str, str] = field(default_factory=dict)  # file -> digest of what was read

    def groups(self, *, needs_tool: bool) -> list[str]:
        return sorted({r.group for r in self.requests if r.needs_tool == needs_tool})


def source_group(source: str) -> str:
    """"owner/repo:dir/" for a source "owner/repo:dir/file" (files of one directory of
    one repository are one source); "owner/repo:file" at a repository's top."""
    repo, _, path = source.partition(":")
    folder = posixpath.dirname(path)
    return f"{repo}:{folder}/" if folder else f"{repo}:{path}"


def corpus_dir(directory: str | Path | None = None) -> Path:
    return Path(directory or os.environ.get(ENV_DIR) or DEFAULT_DIR)


def load_requests(directory: str | Path | None = None) -> PublicRequests:
    """Both files of the set (FileNotFoundError naming the directory when absent), each line
    through the runtime's JSONL reader (`serving.model.io.load_jsonl`)."""
    from serving.model.io import FieldError, load_jsonl

    root = corpus_dir(directory)
    requests: list[PublicRequest] = []
    refused: list[str] = []
    digests: dict[str, str] = {}
    for name, needs_tool in FILES.items():
        path = root / name
        if not path.is_file():
            raise FileNotFoundError(
                f"{path}: the public no-tool set is not there (see ../shared/benchmarks/"
                f"no_tool/README.md; ${ENV_DIR} names another directory)"
            )
        digests[name] = hashlib.sha256(path.read_bytes()).hexdigest()

        def parse(row: Any, needs_tool: bool = needs_tool) -> list[PublicRequest]:
            if not isinstance(row, dict):
                raise FieldError("<record>", "expected a JSON object")
            for key in ("query_id", "query", "source"):
                if not isinstance(row.get(key), str) or not row[key].strip():
                    raise FieldError(key, "missing or empty")
            apis = row.get("apis") if needs_tool and row.get("api_type") == "function" else []
            if not isinstance(apis, list) or not all(isinstance(a, str) for a in apis):
                raise FieldError("apis", "not a list of names")
            family = "tool" if needs_tool else str(row.get("family") or "other")
            return [PublicRequest(row["query_id"], row["query"].strip(), needs_tool,
                                  row["source"], family, tuple(apis))]

        loaded = load_jsonl(path, parse)
        requests += loaded.items
        refused += [str(e) for e in loaded.errors]
    return PublicRequests(str(root), tuple(requests), tuple(refused), digests)

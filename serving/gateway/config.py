"""The gateway's config file: the `mcpServers` shape MCP clients already use, plus trust,
timeouts, the session's context and the active-set knobs.

```json
{"mcpServers": {
   "github": {"command": "github-mcp", "args": ["--stdio"], "env": {"TOKEN": "..."},
              "trust": "first_party", "timeout_s": 20},
   "search": {"url": "http://127.0.0.1:9000/mcp"}},
 "session": {"connections": ["github"], "scopes": ["repo:read"], "env": "prod"},
 "gateway": {"active_set_size": 12, "active_ttl_s": 900, "search_limit": 8,
             "http_responses": "auto"},
 "policy": {"by_risk": {"destructive": "deny"}, "denylist": ["github.delete_repo"]}}
```
`session.connections` may name the catalog's connections or its servers (a server stands
for the connections its tools require; `Gateway.install` resolves them against the served
tools and warns about a name that is neither).
`policy` (the `runtime.policy` shape of params.yaml) replaces the bundle's risk policy;
`runtime` overrides the bundle's runtime params (e.g. `{"rerank_depth": 10}` trades a
little menu quality for latency).
Every problem is reported as `file: field: problem` (a `ConfigError`) before anything
starts. `trust` defaults to third_party (annotations are then hints only); `tool_names:
"qualified"` says the server's tool names already are `server.tool` ids (a backend that
fronts several catalog servers, like `toolsift demo-server`), otherwise each tool is
namespaced by the config key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serving.calls.policy import RiskPolicy
from serving.catalog.importers import SERVER_RE
from serving.model.config import RuntimeParams
from serving.model.schema import TRUST_LEVELS, FieldError
from serving.model.selection import SessionContext

TOOL_NAMES = ("namespaced", "qualified")
SERVER_KEYS = ("command", "args", "env", "cwd", "url", "headers", "trust", "timeout_s",
               "connect_timeout_s", "tool_names")
SESSION_KEYS = ("connections", "scopes", "env")
TOP_KEYS = ("mcpServers", "session", "gateway", "policy", "runtime")
# gateway knobs where 0 means something: no wait for company (batch what already waits)
MAY_BE_ZERO = frozenset({"encoder_batch_window_ms"})
HTTP_RESPONSES = ("auto", "sse", "json")  # `gateway.http_responses`


class ConfigError(ValueError):
    """The config file cannot be used; the message is `file: field: problem`."""

    def __init__(self, path: str, field_name: str, problem: str) -> None:
        super().__init__(f"{path}: {field_name}: {problem}")
        self.field = field_name


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """One downstream MCP server: a command (stdio) or a url (streamable HTTP)."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    trust: str = "third_party"
    timeout_s: float = 30.0  # a call (or a relisting) slower than this fails for the client
    connect_timeout_s: float = 60.0  # start, handshake and first listing (a process starts)
    tool_names: str = "namespaced"

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"


@dataclass(frozen=True, slots=True)
class GatewayParams:
    active_set_size: int = 12  # tools in tools/list at most (the meta-tools aside)
    active_ttl_s: float = 900.0  # a found tool leaves the active set this long after use
    search_limit: int = 8  # tools one search_tools call returns and activates
    max_observation_bytes: int = 4_000
    fetch_limit: int = 16_000  # most characters fetch_observation returns at once
    # discovery bounded by the cores (`serving.gateway.admission`): searches running at
    # once (0: one per core), searches that may wait, and how long one may wait before the
    # gateway answers `busy` at once
    discovery_workers: int = 0
    discovery_queue: int = 32
    discovery_deadline_s: float = 2.0
    # the encoders batched across the searches waiting (`serving.gateway.batching`): texts
    # in one model call at most (1: no batching), and how long a first text waits for more
    # (0: none; a batch then holds what queued while the model ran). Alone, a search pays
    # the wait once per encoder: kept short
    encoder_batch: int = 32
    encoder_batch_window_ms: float = 1.0
    # how `--transport http` answers a request: "sse" (a stream per request, which can
    # carry the confirmation a write asks its user for, MCP elicitation), "json" (one
    # JSON body: less work per search, but a `confirm` write answers `needs_confirmation`)
    # or "auto": a stream for each call of a tool behind the gateway, one JSON body for
    # everything else (searches, cards, pages, lists: nothing there asks the user)
    http_responses: str = "auto"


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    servers: tuple[ServerSpec, ...]
    session: SessionContext = field(default_factory=SessionContext)
    params: GatewayParams = field(default_factory=GatewayParams)
    policy: RiskPolicy | None = None  # None: the bundle's
    runtime: Mapping[str, Any] = field(default_factory=dict)  # over the bundle's runtime.json


def load_config(path: str | Path) -> GatewayConfig:
    """Read and check a servers file; raise `ConfigError` naming the file and field."""
    where = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(where, "<file>", "not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ConfigError(where, "<file>", f"not a JSON file: {err}") from None
    return parse_config(data, where)


def parse_config(data: Any, where: str = "<config>") -> GatewayConfig:
    """The config from parsed JSON (see the module doc for the shape)."""
    top = _mapping(data, where, "<root>")
    _known(top, TOP_KEYS, where, "")
    servers_raw = _mapping(top.get("mcpServers"), where, "mcpServers")
    if not servers_raw:
        raise ConfigError(where, "mcpServers", "no servers configured")
    servers = tuple(_server(name, spec, where) for name, spec in servers_raw.items())
    return GatewayConfig(
        servers=servers,
        session=_session(top.get("session"), where),
        params=_params(top.get("gateway"), where),
        policy=_policy(top.get("policy"), where),
        runtime=_runtime(top.get("runtime"), where),
    )


def _server(name: str, raw: Any, where: str) -> ServerSpec:
    key = f"mcpServers.{name}"
    if not SERVER_RE.match(name):
        raise ConfigError(where, key, "a server name is a tool-id namespace: letters, digits, "
                          "'_' and '-', no dots")
    spec = _mapping(raw, where, key)
    _known(spec, SERVER_KEYS, where, key + ".")
    command, url = spec.get("command"), spec.get("url")
    if bool(command) == bool(url):
        raise ConfigError(where, key, "give exactly one of command (stdio) or url (http)")
    if command is not None and not isinstance(command, str):
        raise ConfigError(where, f"{key}.command", "expected a string")
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://",
                                                                              "https://"))):
        raise ConfigError(where, f"{key}.url", f"expected an http(s) URL, got {url!r}")
    args = spec.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(where, f"{key}.args", "expected a list of strings")
    trust = spec.get("trust", "third_party")
    if trust not in TRUST_LEVELS:
        raise ConfigError(where, f"{key}.trust", f"{trust!r} is not one of "
                          f"{', '.join(TRUST_LEVELS)}")
    timeouts = {}
    for name_s, default in (("timeout_s", 30.0), ("connect_timeout_s", 60.0)):
        value = spec.get(name_s, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise ConfigError(where, f"{key}.{name_s}", f"expected seconds > 0, got {value!r}")
        timeouts[name_s] = float(value)
    tool_names = spec.get("tool_names", "namespaced")
    if tool_names not in TOOL_NAMES:
        raise ConfigError(where, f"{key}.tool_names", f"{tool_names!r} is not one of "
                          f"{', '.join(TOOL_NAMES)}")
    cwd = spec.get("cwd", "")
    if not isinstance(cwd, str):
        raise ConfigError(where, f"{key}.cwd", "expected a string")
    return ServerSpec(
        name=name,
        command=command or "",
        args=tuple(args),
        env=_str_map(spec.get("env"), where, f"{key}.env"),
        cwd=cwd,
        url=url or "",
        headers=_str_map(spec.get("headers"), where, f"{key}.headers"),
        trust=trust,
        **timeouts,
        tool_names=tool_names,
    )


def _session(raw: Any, where: str) -> SessionContext:
    if raw is None:
        return SessionContext()
    data = _mapping(raw, where, "session")
    _known(data, SESSION_KEYS, where, "session.")
    for key in ("connections", "scopes"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(where, f"session.{key}", "expected a list of strings")
    if not isinstance(data.get("env", "prod"), str):
        raise ConfigError(where, "session.env", "expected a string")
    return SessionContext.from_dict(data)


def _params(raw: Any, where: str) -> GatewayParams:
    if raw is None:
        return GatewayParams()
    data = _mapping(raw, where, "gateway")
    names = GatewayParams.__dataclass_fields__
    _known(data, tuple(names), where, "gateway.")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key == "http_responses":
            if value not in HTTP_RESPONSES:
                raise ConfigError(where, f"gateway.{key}", f"expected one of "
                                  f"{', '.join(HTTP_RESPONSES)}, got {value!r}")
            values[key] = value
            continue
        least = 0 if key in MAY_BE_ZERO else None  # None: above 0
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or (value <= 0 if least is None else value < least)):
            bound = ">= 0" if least is not None else "> 0"
            raise ConfigError(where, f"gateway.{key}", f"expected a number {bound}, "
                              f"got {value!r}")
        kind = type(getattr(GatewayParams(), key))
        if kind is int and not isinstance(value, int):
            raise ConfigError(where, f"gateway.{key}", f"expected an integer, got {value!r}")
        values[key] = kind(value)
    return GatewayParams(**values)


def _policy(raw: Any, where: str) -> RiskPolicy | None:
    if raw is None:
        return None
    try:
        return RiskPolicy.from_dict(raw)
    except FieldError as err:
        raise ConfigError(where, f"policy.{err.field}", err.problem) from None


def _runtime(raw: Any, where: str) -> Mapping[str, Any]:
    if raw is None:
        return {}
    data = _mapping(raw, where, "runtime")
    try:
        RuntimeParams.from_dict(data)
    except (TypeError, ValueError) as err:
        raise ConfigError(where, "runtime", str(err)) from None
    return dict(data)


def _mapping(value: Any, where: str, key: str) -> Mapping[str, Any]:
    if value is None and key != "<root>":
        raise ConfigError(where, key, "missing")
    if not isinstance(value, Mapping):
        raise ConfigError(where, key, f"expected an object, got {type(value).__name__}")
    return value


def _known(data: Mapping[str, Any], keys: tuple[str, ...], where: str, prefix: str) -> None:
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise ConfigError(where, prefix + unknown[0], f"unknown key (expected one of "
                          f"{', '.join(keys)})")


def _str_map(value: Any, where: str, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(where, key, "expected an object of strings")
    return dict(value)

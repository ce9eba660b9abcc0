"""`session.connections` by server or by connection name: the fixture catalog's server
`k8s` serves tools that require the connection `kubernetes` (every other server's tools
require a connection of the server's own name). A gateway whose `servers.json` names the
servers and one naming the connections serve the same menus; a name that is neither warns
at install (again only when the unknown names change) and changes nothing else. The
gateway and its selector are the real ones over the fixture bundle, in process; only the
downstream servers are a stub (no call reaches them here).
"""

from __future__ import annotations

import json
import logging

import anyio
import pytest

from serving.bundle.files import load_bundle
from serving.cli import main
from serving.gateway.config import parse_config
from serving.gateway.handlers import Gateway
from serving.gateway.index import LiveIndex
from serving.gateway.registry import Registry, Route
from serving.model.selection import SessionContext, resolve_connections

BY_SERVER = ["github", "k8s", "slack", "jira"]
BY_CONNECTION = ["github", "kubernetes", "slack", "jira"]
REQUESTS = (
    "get the rollout status of the payments deployment in kubernetes",
    "show the logs of the checkout pod",
    "roll back the checkout deployment",
    "post the release notes to #eng on slack",
    "list commits in acme/web",
    "open a jira ticket for the failed deploy",
)
LOGGER = "serving.gateway.handlers"


class NoServers:
    """The downstream servers' boundary: nothing is called in these tests."""

    down: dict[str, str] = {}

    async def call(self, server: str, name: str, args: dict):  # pragma: no cover
        raise AssertionError("no call reaches a server here")


@pytest.fixture(scope="module")
def index(fixture_bundle) -> LiveIndex:
    return LiveIndex(load_bundle(fixture_bundle))


def registry_of(cards) -> Registry:
    served = {c.tool_id: c for c in cards}
    return Registry(cards=served, routes={t: Route("main", t) for t in served})


def gateway(connections: list[str], index: LiveIndex, registry: Registry) -> Gateway:
    config = parse_config({"mcpServers": {"main": {"command": "x"}},
                           "session": {"connections": connections}})
    gw = Gateway(config, NoServers())
    gw.install(registry, index.selector(registry))
    return gw


def menus(gw: Gateway) -> list[tuple[list[str], list[str]]]:
    """Per request, the tools a search offers and what is callable after it."""
    state = gw.session("test")

    async def searches():
        return [(await gw.search_tools(state, r))[0] for r in REQUESTS]

    return [([t["tool_id"] for t in reply["tools"]], reply["callable"])
            for reply in anyio.run(searches)]


def test_resolve_connections_maps_servers_keeps_connections_and_names_the_unknown(
    fixture_cards,
):
    ctx = SessionContext.from_dict({"connections": ["k8s", "slack", "jria"]})
    resolved, unknown = resolve_connections(ctx, fixture_cards)
    assert resolved.connections == {"kubernetes", "slack", "jria"}
    assert unknown == ("jria",)
    assert resolve_connections(resolved, fixture_cards) == (resolved, ("jria",))  # idempotent
    everything = SessionContext()  # no `connections`: nothing to resolve, nothing unknown
    assert resolve_connections(everything, fixture_cards) == (everything, ())


def test_servers_json_naming_servers_or_connections_serves_the_same_menus(
    index, fixture_cards, caplog
):
    registry = registry_of(fixture_cards)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        by_server = gateway(BY_SERVER, index, registry)
        by_connection = gateway(BY_CONNECTION, index, registry)
    assert not caplog.records  # every name is known: nothing to say
    assert by_server.context == by_connection.context
    assert "kubernetes" in by_server.context.connections
    served = menus(by_server)
    assert served == menus(by_connection)
    # the k8s tools are offered, not filtered out as a server name once did
    assert "k8s.get_rollout_status" in served[0][0]
    assert not any(t.startswith("stripe.") for found, _ in served for t in found)


def test_an_unknown_name_warns_once_and_changes_nothing_else(index, fixture_cards, caplog):
    registry = registry_of(fixture_cards)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        typo = gateway([*BY_CONNECTION, "jria"], index, registry)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and "jria" in record.getMessage()
    plain = gateway(BY_CONNECTION, index, registry)
    assert typo.context.connections == plain.context.connections | {"jria"}
    assert menus(typo) == menus(plain)

    caplog.clear()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        typo.install(registry, typo.selector)  # a rebuild, same unknown names: quiet
        menus(typo)  # searches never warn
    assert not caplog.records


def test_a_rebuild_warns_again_only_when_the_unknown_names_change(index, fixture_cards, caplog):
    """`stripe` names a server that is down at start (none of its tools served): unknown
    until it lists its tools."""
    without = registry_of(c for c in fixture_cards if c.server != "stripe")
    full = registry_of(fixture_cards)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        gw = gateway([*BY_SERVER, "stripe"], index, without)
        gw.install(without, gw.selector)
        gw.install(full, index.selector(full))
    assert [(r.levelno, "stripe" in r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, True), (logging.INFO, False)]
    assert gw.unknown_connections == ()
    assert "stripe" in gw.context.connections


def test_discover_maps_server_names_and_warns_about_unknown_ones(capsys, fixture_bundle):
    request = "get the rollout status of the payments deployment in kubernetes"
    assert main(["discover", request, "--bundle", str(fixture_bundle),
                 "--connections", "k8s,jria", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["context"]["connections"] == ["jria", "kubernetes"]
    assert out["warnings"] == ["--connections: 'jria' is neither a server nor a connection "
                               "of this bundle's tools; it matches no tool"]
    assert "k8s.get_rollout_status" in [m["tool_id"] for m in out["steps"][0]["menu"]]
    assert main(["discover", request, "--bundle", str(fixture_bundle),
                 "--connections", "k8s,jria"]) == 0
    text = capsys.readouterr().out
    assert "warning: --connections: 'jria' is neither" in text
    assert "k8s.get_rollout_status" in text

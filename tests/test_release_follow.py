"""Following a release: the pointer `promote` writes, a follower that swaps in a newly
promoted bundle and refuses a tampered one, and a running gateway (a real MCP client over
stdio) that serves the next search from the new bundle with its session kept."""

from __future__ import annotations

import json
import shutil
import sys

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from test_gateway import CLI, ENV, demo_server, reply, write_catalog

from serving.bundle.files import BundleError, finalize_manifest, verify_bundle
from serving.bundle.release import (
    POINTER_FILE,
    ReleaseFollower,
    read_pointer,
    write_pointer,
)
from serving.selector import Selector


def released(fixture_bundle, release_dir, *, menu_size: int | None = None) -> str:
    """A copy of the fixture bundle in `release_dir/<version>`; `menu_size` rewrites its
    runtime.json, which makes it another bundle version."""
    tmp = release_dir / "incoming"
    shutil.copytree(fixture_bundle, tmp)
    if menu_size is not None:
        runtime = json.loads((tmp / "runtime.json").read_text())
        runtime["menu_size"] = menu_size
        (tmp / "runtime.json").write_text(json.dumps(runtime))
        manifest = json.loads((tmp / "manifest.json").read_text())
        finalize_manifest(tmp, created_at=manifest["created_at"], git_rev="", params={},
                          models={})
    version = verify_bundle(tmp).bundle_version
    tmp.rename(release_dir / version)
    return version


def tampered(release_dir, version: str) -> str:
    """A copy of a release with one card's description changed after export."""
    bad = release_dir / f"{version}-x"
    shutil.copytree(release_dir / version, bad)
    cards = (bad / "cards.jsonl").read_text().replace("List", "Delete", 1)
    (bad / "cards.jsonl").write_text(cards)
    return bad.name


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_the_pointer_round_trips_and_names_what_is_wrong(tmp_path, fixture_bundle):
    v1 = released(fixture_bundle, tmp_path)
    pointer = write_pointer(tmp_path, v1)
    assert pointer == tmp_path / POINTER_FILE
    assert read_pointer(pointer).version == v1 and read_pointer(pointer).path == tmp_path / v1
    assert not list(tmp_path.glob(".production.*"))  # the temporary file was renamed over
    with pytest.raises(BundleError, match="no such release"):
        write_pointer(tmp_path, "b-missing")
    (tmp_path / "bad.json").write_text(json.dumps({"bundle_version": "", "path": v1}))
    with pytest.raises(BundleError, match="bad.json: bundle_version"):
        read_pointer(tmp_path / "bad.json")


def test_a_follower_swaps_a_promoted_bundle_in_and_refuses_a_tampered_one(
    tmp_path, fixture_bundle
):
    v1 = released(fixture_bundle, tmp_path)
    v2 = released(fixture_bundle, tmp_path, menu_size=3)
    pointer = write_pointer(tmp_path, v1)
    clock = Clock()
    follower = ReleaseFollower(pointer, Selector.from_bundle, interval_s=5.0, clock=clock)
    first = follower.current
    assert first.bundle.manifest.bundle_version == v1
    write_pointer(tmp_path, v2)
    assert follower.check() is None  # within the interval: not even a stat
    clock.t = 6.0
    second = follower.get()
    assert second is not first and second.bundle.manifest.bundle_version == v2
    assert second.params.menu_size == 3
    # a directory whose files changed after export, then one released under another name
    for name, why in ((tampered(tmp_path, v2), "sha256 mismatch"), (None, "pointer names")):
        if name is None:
            (tmp_path / "renamed").symlink_to(tmp_path / v1)
            (tmp_path / POINTER_FILE).write_text(
                json.dumps({"bundle_version": v2, "path": "renamed"}))
        else:
            write_pointer(tmp_path, name)
        clock.t += 6.0
        assert follower.check() is None and follower.current is second
        assert why in follower.refused[-1][1]
    assert follower.release.version == v2


def test_a_running_gateway_serves_the_promoted_bundle_and_keeps_the_session(
    tmp_path, fixture_bundle, fixture_cards
):
    releases = tmp_path / "releases"
    releases.mkdir()
    v1 = released(fixture_bundle, releases)
    v2 = released(fixture_bundle, releases, menu_size=3)
    bad = tampered(releases, v2)
    pointer = write_pointer(releases, v1)
    catalog = write_catalog(tmp_path / "main.jsonl",
                            [c for c in fixture_cards if c.server in ("github", "slack", "k8s")])
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "main": demo_server(catalog, tmp_path / "main.calls")}}))
    args = [*CLI, "serve", "--bundle", str(pointer), "--config", str(config),
            "--reload-interval", "0.2"]

    async def search(client, query):
        return reply(await client.call_tool("search_tools", {"query": query}))

    async def until(client, version):
        with anyio.fail_after(60):
            while (found := await search(client, "list the commits on github"))[
                    "bundle_version"] != version:
                await anyio.sleep(0.2)
        return found

    async def scenario():
        params = StdioServerParameters(command=sys.executable, args=args, env=ENV)
        async with Client(params, mode="legacy", read_timeout_seconds=240) as client:
            before = await search(client, "post a message to slack")
            assert before["bundle_version"] == v1
            active = set(before["callable"])
            assert "slack.post_message" in active
            write_pointer(releases, v2)
            after = await until(client, v2)
            assert len(after["tools"]) <= 3  # the new bundle's menu size
            assert active <= set(after["callable"])  # the session and its active set stayed
            write_pointer(releases, bad)
            await anyio.sleep(1.0)  # several checks: the tampered release is refused
            assert (await search(client, "list the commits on github"))[
                "bundle_version"] == v2

    anyio.run(scenario)

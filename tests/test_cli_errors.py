"""The CLI never shows a traceback unasked: one `toolsift: error:` line, exit 2."""

import json
import shutil

import pytest

from serving.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("toolsift: error: "), err
    return lines[0]


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["check", "catalog", "{tmp}/missing.jsonl"], "missing.jsonl:0: <file>: not found"),
        (["check", "catalog", "{tmp}"], "<file>: is a directory"),
        (["check", "nonsense", "{tmp}/c.jsonl"], "expected catalog, traces or queries"),
        (["lint", "{tmp}/missing.jsonl", "--no-embed"], "not found"),
        (["bundle", "inspect", "{tmp}"], "not a bundle (no manifest.json)"),
        (["describe", "x.y", "--bundle", "{tmp}"], "not a bundle"),
        (["discover", "hello", "--bundle", "{tmp}/nope"], "not a bundle"),
        (["check", "catalog"], "Missing argument 'PATH'"),
        (["discover", "x", "--bogus"], "No such option"),
        (["import", "{tmp}/c.jsonl", "--server", "a.b", "--out", "{tmp}/o.jsonl"], "server"),
        (["serve", "--bundle", "{tmp}", "--config", "{tmp}/c.jsonl", "--transport", "tcp"],
         "--transport: 'tcp' is not stdio or http"),
        (["serve", "--bundle", "{tmp}", "--config", "{tmp}/c.jsonl"], "c.jsonl: mcpServers"),
        (["demo-server", "--catalog", "{tmp}/c.jsonl"], "c.jsonl:1"),
    ],
)
def test_every_failure_is_one_line_and_exit_2(capsys, tmp_path, argv, fragment):
    (tmp_path / "c.jsonl").write_text("{}\n")
    code, _, err = run(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert code == 2
    assert fragment in one_error_line(err)
    assert "Traceback" not in err


def test_several_bad_lines_in_strict_mode_stay_one_line_and_long_paths_are_not_wrapped(
    capsys, tmp_path
):
    deep = tmp_path / ("a-rather-long-directory-name-" * 6) / "catalog.jsonl"
    deep.parent.mkdir(parents=True)
    deep.write_text("not json\n")
    code, _, err = run(capsys, "check", "catalog", str(deep), "--strict")
    assert code == 2
    assert str(deep) + ":1: <json>: invalid JSON" in one_error_line(err)


def test_debug_shows_the_traceback_once(capsys, tmp_path):
    code, _, err = run(capsys, "--debug", "bundle", "inspect", str(tmp_path))
    assert code == 2
    assert err.count("Traceback") == 1
    assert err.rstrip().splitlines()[-1].startswith("toolsift: error: ")


def test_findings_still_exit_1(capsys, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("[1]\n")
    code, out, err = run(capsys, "check", "catalog", str(path))
    assert code == 1 and ":1: <record>: expected a JSON object" in err
    assert "0 loaded, 1 skipped of 1 lines" in out


def test_text_from_data_is_printed_literally(capsys, tmp_path):
    # a line error quotes the bad value; markup and control characters must not act
    path = tmp_path / "[red]x[bold].jsonl"
    path.write_text('{"tool_id": "[/bold]\\u001b[31m"}\n')
    code, _, err = run(capsys, "check", "catalog", str(path))
    assert code == 1
    assert "[red]x[bold].jsonl:1: tool_id: '[/bold]\\x1b[31m'" in err
    assert "\x1b" not in err


def test_discover_prints_markup_in_a_request_literally(capsys, fixture_bundle, tmp_path):
    request = "list commits [/bold] in [red]checkout-service[/red] :x: \x1b[2J"
    code, out, err = run(capsys, "discover", request, "--bundle", str(fixture_bundle))
    assert code == 0, err
    assert "[/bold]" in out and "[red]checkout-service[/red]" in out and ":x:" in out
    assert "\x1b" not in out and "\\u{1b}" in out


def test_discover_accepts_a_request_with_undecodable_argv_bytes(capsys, fixture_bundle):
    # bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape)
    request = b"list commits \xff\xfe".decode("utf-8", "surrogateescape")
    code, out, err = run(capsys, "discover", request, "--bundle", str(fixture_bundle), "--json")
    assert code == 0, err
    assert json.loads(out)["request"] == "list commits \ufffd\ufffd"


def test_describe_unknown_tool_and_tampered_bundle(capsys, fixture_bundle, tmp_path):
    code, _, err = run(capsys, "describe", "no.such", "--bundle", str(fixture_bundle))
    assert code == 2 and "no tool 'no.such'" in one_error_line(err)
    copy = tmp_path / "b"
    shutil.copytree(fixture_bundle, copy)
    (copy / "manifest.json").write_bytes(b"\xff\xfe{}")
    code, _, err = run(capsys, "bundle", "verify", str(copy))
    assert code == 1 and "invalid bundle" in one_error_line(err)


def test_bundle_version_pin_and_signing_from_the_command_line(capsys, fixture_bundle, tmp_path):
    copy = tmp_path / "b"
    shutil.copytree(fixture_bundle, copy)
    version = json.loads((copy / "manifest.json").read_text())["bundle_version"]
    code, out, _ = run(capsys, "bundle", "verify", str(copy), "--bundle-version", version)
    assert code == 0 and version in out
    code, _, err = run(capsys, "describe", "slack.post_message", "--bundle", str(copy),
                       "--bundle-version", "b-0000")
    assert code == 2 and f"holds bundle {version}, expected b-0000" in one_error_line(err)
    key = tmp_path / "key"
    assert run(capsys, "bundle", "keygen", str(key))[0] == 0
    assert run(capsys, "bundle", "keygen", str(key))[0] == 2  # never overwrites a key
    code, _, err = run(capsys, "bundle", "verify", str(copy), "--public-key", f"{key}.pub")
    assert code == 1 and "unsigned" in one_error_line(err)
    assert run(capsys, "bundle", "sign", str(copy), "--key", str(key))[0] == 0
    code, out, _ = run(capsys, "bundle", "verify", str(copy), "--public-key", f"{key}.pub")
    assert code == 0 and "signature verified" in out
    code, _, err = run(capsys, "bundle", "sign", str(copy), "--key", f"{key}.pub")
    assert code == 2 and "not an unencrypted PEM private key" in one_error_line(err)

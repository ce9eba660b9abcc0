"""The security corpora as data (`data/security/`): frozen sets unchanged, every record
sound, bad lines named by file and line.

Counts and hashes only: a failure here must never print a text of a blind set, so every
comparison of texts is reduced to a number or a bool before it is asserted.
"""

from __future__ import annotations

import re
from collections import Counter
from importlib import import_module

import pytest

from serving.catalog.meaning import ATTACK_CLASSES
from training.security.corpora import (
    MANIFEST_FILE,
    SECURITY_DIR,
    CorpusError,
    file_sha256,
    load_attacks,
    load_texts,
    manifest,
)
from training.security.poison_styles import PLACES, POISON_CLASSES

# The sets that judge or judged a frozen detector, pinned here and in MANIFEST.yaml: a change
# to one needs two edits. (frozen_at, sha256 of the file)
FROZEN = {
    "own/poison_validation.jsonl": (
        None, "c07234493bf462db5f21274a3ddc2152df734436441f4f9db07b183332d68a85"),
    "blind/third_set.jsonl": (
        "2647650", "5f9f532ad0340145492c0797b720f20a7d43db3abeae6d28b2dca43953a37da7"),
    "blind/fourth_set.jsonl": (
        "15e233f", "9e74b9830b08041590e963d51d9e22ab36083a8bcaa0937088c738129407cc69"),
    "blind/fifth_set.jsonl": (
        "5891873", "e4bcd33f06378c1dfedb3e981c8579e24571e214215d28a5880da69f6fd85c7b"),
    "blind/sixth_set.jsonl": (
        "a3770d7", "6e227dc5da54705e3a69d711824aa5c37e49243c4f2a6fbe9239fea431ed308f"),
    "blind/seventh_set.jsonl": (
        "bff06de", "c6446ed9bf8d8cc540ba01f163493861870988b864416ab16cd4ad058cc3486f"),
    "blind/eighth_set.jsonl": (
        None, "f85e2043e0e03790212691b854f634842300c5524947953b43b3e4953e9eaf1a"),
    "blind/ninth_set.jsonl": (
        "6936c34", "5d7075eadc578c30db92fc1b7acd1e7eeb3d6c7a89b78305eb0e25992b141d6f"),
}
ENTRIES = manifest()
# the second set of the security study has its own classes and places
STUDY_CLASSES = {"study/poison_styles.jsonl": POISON_CLASSES,
                 "study/poison_styles_late.jsonl": POISON_CLASSES}
STUDY_PLACES = ("description", "schema")


def test_the_manifest_lists_every_file_and_nothing_else():
    on_disk = {p.relative_to(SECURITY_DIR).as_posix() for p in SECURITY_DIR.rglob("*.jsonl")}
    assert sorted(on_disk) == sorted(ENTRIES)
    assert len(ENTRIES) == 31


@pytest.mark.parametrize("path", sorted(FROZEN))
def test_the_frozen_sets_are_byte_identical_to_their_pins(path):
    frozen_at, sha = FROZEN[path]
    entry = ENTRIES[path]
    assert (entry.frozen_at, entry.sha256) == (frozen_at, sha)  # the MANIFEST's pin
    assert file_sha256(SECURITY_DIR / path) == sha  # the file itself


def test_every_set_that_judges_or_judged_is_pinned():
    judging = {p for p, e in ENTRIES.items() if e.role in ("blind-judging", "spent")}
    assert judging | {"own/poison_validation.jsonl"} == set(FROZEN)


@pytest.mark.parametrize("path", sorted(ENTRIES))
def test_every_file_matches_its_manifest_entry_and_module(path):
    entry = ENTRIES[path]
    assert file_sha256(SECURITY_DIR / path) == entry.sha256
    load = load_attacks if entry.kind == "attacks" else load_texts
    rows = load(path)
    n_rows = len(rows)
    assert n_rows == entry.records
    module, name = entry.module.rsplit(".", 1)
    same = getattr(import_module(module), name) == rows  # a bool: never print the texts
    assert same


@pytest.mark.parametrize(
    "path", sorted(p for p, e in ENTRIES.items() if e.kind == "attacks"))
def test_attack_records_use_known_classes_and_places_and_no_text_twice(path):
    rows = load_attacks(path)
    classes = STUDY_CLASSES.get(path, ATTACK_CLASSES)
    places = STUDY_PLACES if path in STUDY_CLASSES else PLACES
    n_bad_class = sum(cls not in classes for cls, _, _ in rows)
    n_bad_place = sum(place not in places for _, place, _ in rows)
    n_empty = sum(not text.strip() for _, _, text in rows)
    n_unique = len({text for _, _, text in rows})
    assert (n_bad_class, n_bad_place, n_empty) == (0, 0, 0)
    assert n_unique == len(rows)
    if path.startswith("blind/"):  # each blind set: ten texts a class
        per_class = Counter(cls for cls, _, _ in rows)
        assert sorted(per_class.values()) == [10] * len(ATTACK_CLASSES)


@pytest.mark.parametrize(
    "path", sorted(p for p, e in ENTRIES.items() if e.kind == "texts"))
def test_text_records_are_non_empty_and_unique(path):
    texts = load_texts(path)
    n_empty = sum(not t.strip() for t in texts)
    n_unique = len(set(texts))
    assert n_empty == 0
    assert n_unique == len(texts)


GOOD = '{"class": "secrecy", "place": "summary", "text": "keep it quiet"}'


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ('{"class": "secrecy", "place": "summary"', "json"),
        ('["secrecy", "summary", "x"]', "record"),
        ('{"place": "summary", "text": "x"}', "class"),
        ('{"class": "secrecy", "place": 3, "text": "x"}', "place"),
        ('{"class": "secrecy", "place": "summary", "text": ""}', "text"),
        ('{"class": "secrecy", "place": "summary", "text": "x", "lang": "en"}', "lang"),
        ("", "json"),
    ],
)
def test_a_malformed_line_names_its_file_line_and_field(tmp_path, line, where):
    path = tmp_path / "bad.jsonl"
    path.write_text(f"{GOOD}\n{line}\n{GOOD}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=re.escape(f"{path}:2: {where}: ")):
        load_attacks("bad.jsonl", root=tmp_path)


def test_bad_utf8_and_an_attack_row_in_a_text_file_are_named(tmp_path):
    (tmp_path / "bytes.jsonl").write_bytes(GOOD.encode() + b'\n{"text": "caf\xe9"}\n')
    with pytest.raises(CorpusError, match=re.escape(f"{tmp_path / 'bytes.jsonl'}:2: utf-8: ")):
        load_texts("bytes.jsonl", root=tmp_path)
    (tmp_path / "mixed.jsonl").write_text(GOOD + '\n{"text": "ok"}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=re.escape(f"{tmp_path / 'mixed.jsonl'}:1: class: ")):
        load_texts("mixed.jsonl", root=tmp_path)


def test_a_good_file_loads_as_tuples_in_order(tmp_path):
    (tmp_path / "ok.jsonl").write_text(
        GOOD + '\n{"class": "authority", "place": "enum", "text": "root_mode_on"}\n',
        encoding="utf-8",
    )
    assert load_attacks("ok.jsonl", root=tmp_path) == (
        ("secrecy", "summary", "keep it quiet"),
        ("authority", "enum", "root_mode_on"),
    )


def test_an_unquoted_date_in_the_manifest_is_an_error(tmp_path):
    entry = dict(module="m.N", kind="attacks", role="fit", records=1, what="w", written="w",
                 frozen_at="null", sha256="0")
    body = "".join(f"    {k}: {v}\n" for k, v in entry.items())
    (tmp_path / MANIFEST_FILE).write_text(
        f"files:\n  a.jsonl:\n{body}    written_on: 2026-12-03\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"files\.a\.jsonl\.written_on: not a str"):
        manifest(tmp_path)

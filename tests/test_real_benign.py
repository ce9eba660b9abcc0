"""The real-documentation benign corpus: HTML to text, seeded sampling, the packages read."""

from __future__ import annotations

import itertools
import platform
import re

import pytest

from training.security.real_benign import (
    CorpusUnavailable,
    botocore_docs,
    botocore_operation_names,
    corpus_versions,
    google_discovery_docs,
    package_dir,
    plain,
    prose_paragraphs,
    python_docstrings,
    read_json,
    sample_sentences,
    spell_operation,
    value_slot_texts,
)


def test_plain_drops_tags_and_decodes_entities():
    doc = "<p>Returns the <code>KeyId</code> &amp; its ARN.</p>"
    assert " ".join(plain(doc).split()) == "Returns the KeyId & its ARN."


def test_sample_is_seeded_distinct_and_length_bounded():
    docs = [
        "Lists the buckets you own. Lists the buckets you own. Too short.",
        "Deletes the given alias of a key; the key itself is not deleted.",
        "A " + "verylongtoken" * 40 + " value.",
    ]
    first = sample_sentences(iter(docs), 5, seed=3)
    # two words are no sentence, the long token is over MAX_CHARS, the repeat counts once
    assert sorted(first) == [
        "Deletes the given alias of a key; the key itself is not deleted.",
        "Lists the buckets you own.",
    ]
    assert sample_sentences(iter(docs), 1, seed=3) == sample_sentences(iter(docs), 1, seed=3)


def test_a_missing_package_says_how_to_install_it():
    with pytest.raises(CorpusUnavailable, match="train"):
        package_dir("no_such_package_for_toolsift")


def test_both_references_yield_plain_documentation():
    for docs in (botocore_docs(), google_discovery_docs()):
        head = list(itertools.islice(docs, 50))
        assert len(head) == 50 and not any("<p>" in d for d in head)


def test_operation_names_read_as_terse_summaries():
    assert spell_operation("GetSecretValue") == "Get secret value"
    assert spell_operation("DisableDNSView") == "Disable DNS view"
    assert spell_operation("ListBuckets") == "List buckets"
    names = list(itertools.islice(botocore_operation_names(), 2000))
    assert len(set(names)) == len(names) and "Get secret value" in set(botocore_operation_names())


def test_an_unreadable_corpus_file_is_named(tmp_path):
    bad = tmp_path / "service-2.json"
    bad.write_text('{"documentation": "cut off')
    with pytest.raises(CorpusUnavailable, match="service-2.json"):
        read_json(bad)


def test_versions_are_the_pinned_ones():
    versions = corpus_versions()
    assert versions.pop("python") == platform.python_version()
    assert versions == {"botocore": "1.44.8", "google-api-python-client": "2.202.0"}


def test_docstring_prose_drops_doctests_code_and_symbols():
    doc = "Open it.\n\n>>> f()\n\nIt must be closed\nafter use.\n\n    x = 1\n\n$$ {} [] ()"
    assert list(prose_paragraphs(doc)) == ["Open it.", "It must be closed after use."]


def test_the_standard_library_yields_second_person_prose():
    head = list(itertools.islice(python_docstrings(), 3000))
    assert len(head) == 3000 and all("\n" not in p and ">>>" not in p for p in head)
    assert any(re.search(r"\byou\b", p) for p in head)


def test_value_slots_are_the_titles_defaults_and_enum_values_that_hold_a_sentence():
    texts = value_slot_texts()
    assert len(texts) > 10_000 and texts == sorted(set(texts))
    assert "SECRET_KIND_GITHUB_CLASSIC_PERSONAL_ACCESS_TOKEN" in texts  # spelled: a sentence
    assert "ACTIVE" not in texts and "Page size" not in texts  # under three words

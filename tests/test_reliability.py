from training.checks.reliability import main, run_probes


def test_every_probe_family_ends_clean_and_loses_no_valid_line(tmp_path, fixture_catalog,
                                                                fixture_bundle):
    families = run_probes(fixture_catalog, attempts=12, seed=3, bundle=fixture_bundle,
                          tmp=tmp_path)
    assert {t.family for t in families} == {
        "catalog_lines", "trace_lines", "query_lines", "json_lines", "cli", "api",
        "observations", "bundle"}
    for t in families:
        assert t.attempts > 0 and t.crashes == 0 and t.valid_lost == 0, t
        assert t.accepted + t.clean_errors >= t.attempts or t.family.endswith("_lines")
    bundle = next(t for t in families if t.family == "bundle")
    assert bundle.accepted == 0  # every alteration was refused


def test_main_writes_the_report(tmp_path, fixture_catalog):
    report = tmp_path / "reliability.md"
    assert main([str(fixture_catalog), str(report), "--attempts", "5",
                 "--demo-catalog", str(fixture_catalog)]) == 0
    text = report.read_text()
    assert "| catalog_lines |" in text and "Total: 0 crashes, 0 valid lines lost." in text
    assert "Second poisoned set" in text and "100.0% of 40 flagged" in text

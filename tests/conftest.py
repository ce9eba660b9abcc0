import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

# Property-based tests: bounded under `make test` (the default profile), many more examples
# under `make test-all` (HYPOTHESIS_PROFILE=thorough). No deadline: 2 shared cores are noisy.
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.register_profile(
        "thorough", max_examples=2_000, deadline=None, suppress_health_check=list(HealthCheck)
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
except ImportError:  # the dev extra is not installed: the property tests skip themselves
    pass

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fixture_catalog() -> Path:
    return FIXTURES / "catalog.jsonl"


@pytest.fixture(scope="session")
def fixture_bundle(tmp_path_factory, fixture_catalog) -> Path:
    """The fixture catalog exported with the packaged MiniLM: a real bundle, built once."""
    from training.export import main

    out = tmp_path_factory.mktemp("bundles") / "fixture"
    main([str(ROOT / "params.yaml"), str(fixture_catalog), str(out)])
    return out


@pytest.fixture(scope="session")
def fixture_cards(fixture_catalog):
    """The fixture catalog's cards (the mining and sampling tests share them)."""
    from serving.model.io import load_catalog

    return load_catalog(fixture_catalog, strict=True).items


@pytest.fixture(scope="session")
def fixture_traces(fixture_cards):
    """tests/fixtures/traces.jsonl, validated against the fixture catalog (its bad lines
    skipped)."""
    from serving.model.io import load_traces

    return load_traces(
        FIXTURES / "traces.jsonl", known_tools=[c.tool_id for c in fixture_cards]
    ).items


@pytest.fixture(scope="session")
def mine_params():
    """The `mine` section of params.yaml, with synthetic card queries on (3 per tool): the
    default leaves them off, and these tests exercise them."""
    from dataclasses import replace

    from training.core.params import load_params
    from training.mine import Params

    return replace(load_params(ROOT / "params.yaml", "mine", Params), synthetic_queries_per_tool=3)


@pytest.fixture
def llm_server():
    """A local fake chat-completion endpoint (tests/fake_llm.py)."""
    from fake_llm import serve_fake_llm

    yield from serve_fake_llm()

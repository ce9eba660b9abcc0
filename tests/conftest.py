import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

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

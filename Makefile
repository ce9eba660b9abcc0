# The two commands (see README): `make demo` and `make test`. Both create .venv on first
# use and reinstall only when pyproject.toml or the constraints change.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# CPU installs pin torch to the local CPU wheel; GPU users: make CONSTRAINTS= (see README).
CONSTRAINTS ?= constraints-cpu.txt
PYTEST_ARGS ?= -m "not slow"

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export DVC_NO_ANALYTICS := 1
export MLFLOW_DISABLE_TELEMETRY := true
export DO_NOT_TRACK := 1
export TOKENIZERS_PARALLELISM := false
# dvc runs stage commands through the shell: `python` there must be the venv's.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: install demo test test-all lint clean

$(STAMP): pyproject.toml $(CONSTRAINTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=24,<27"
	$(PY) -m pip install --quiet $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) -e '.[train,dev]'
	touch $@

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/dvc repro
	$(VENV)/bin/dvc metrics show

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

test-all: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check serving features training tests
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache

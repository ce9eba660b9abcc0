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

.PHONY: install demo studies test test-all lint clean

$(STAMP): pyproject.toml $(CONSTRAINTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=24,<27"
	$(PY) -m pip install --quiet $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) -e '.[train,dev]'
	touch $@

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/dvc repro
	$(VENV)/bin/toolsift report

# Beside the demo (studies/dvc.yaml, after `make demo`): the security study and the
# ablations (what each choice is worth: reranker, exploration, routing, sampling, tuning).
studies: $(STAMP)
	$(VENV)/bin/dvc repro studies/dvc.yaml
	$(VENV)/bin/toolsift report

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

test-all: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check serving features training tests
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache

# The whole pipeline on another dataset: StableToolBench (../shared/benchmarks/stabletoolbench,
# read in place). Convert it (train half -> traces, eval half -> labeled queries), then the
# same stage modules as dvc.yaml with every path under data/stb, models/stb, bundles/stb*,
# metrics/stb: catalog gate, stock bundle, mining, the three trainers, export, evaluation
# with the cross-encoder (dense prior, fused prior, alone), fused order, domain
# routing and the stock bundle beside the default. Not part of `make demo` (16 min measured
# on 2 cores with nothing else running).
STB_DIR ?= ../shared/benchmarks/stabletoolbench
.PHONY: stb
stb: $(STAMP)
	$(PY) -m training.benchmarks.stabletoolbench params.yaml $(STB_DIR) data/stb --metrics metrics/stb/data.json
	$(PY) -m training.catalog params.yaml data/stb/catalog.jsonl data/stb/catalog \
		metrics/stb/catalog.json --on-error report
	$(PY) -m training.export params.yaml data/stb/catalog/catalog.jsonl bundles/stb_base \
		--metrics metrics/stb/export_base.json
	$(PY) -m training.mine params.yaml data/stb/catalog/catalog.jsonl data/stb/traces.jsonl \
		bundles/stb_base data/stb/train plots/stb/sampling.png metrics/stb/mine.json
	$(PY) -m training.train_retriever params.yaml data/stb/catalog/catalog.jsonl data/stb/train \
		models/stb/retriever metrics/stb/train_retriever.json
	$(PY) -m training.train_reranker params.yaml data/stb/catalog/catalog.jsonl data/stb/train \
		models/stb/reranker metrics/stb/train_reranker.json
	$(PY) -m training.train_ltr params.yaml data/stb/catalog/catalog.jsonl data/stb/traces.jsonl \
		data/stb/train models/stb/ltr metrics/stb/train_ltr.json \
		--retriever models/stb/retriever --reranker models/stb/reranker
	$(PY) -m training.export params.yaml data/stb/catalog/catalog.jsonl bundles/stb \
		--retriever models/stb/retriever --reranker models/stb/reranker --ltr models/stb/ltr \
		--metrics metrics/stb/export.json
	$(PY) -m training.evaluate params.yaml data/stb/eval.jsonl bundles/stb metrics/stb/eval.json \
		reports/eval_stb.md plots/stb/eval --baseline-bundle bundles/stb_base \
		--variant cross_encoder=reranker:cross_encoder \
		--variant cross_encoder_alone=runtime:reranker=cross_encoder,retrieval_prior=0 \
		--variant cross_encoder_fused_prior=runtime:reranker=cross_encoder,retrieval_prior_order=fused \
		--variant fused_order=reranker:fused \
		--variant domain_routing=runtime:routing=domain --variant stock_bundle=bundle:bundles/stb_base

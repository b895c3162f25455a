# The front door. `make demo` installs and shows aria-mem on the embedded defaults;
# `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test demo bench bench-quality bench-real bench-hygiene lint all clean screenshot

install: $(STAMP)

# torch is installed first and pinned: the CPU build 2.13.0 is what the in-process embedding
# model needs, and pinning it keeps pip from pulling a multi-GB CUDA build.
# An editable install leaves the package's own modules uncompiled; where PYTHONDONTWRITEBYTECODE
# is set, every command would compile them again (list: 0.30 -> 0.27 s), so they are compiled
# here as pip does for a wheel.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[local,mcp,ui,dev]'
	$(BIN)/python -m compileall -q aria_mem
	touch $(STAMP)

# The review page's tests drive Debian's chromium through Playwright; without it they are
# skipped, and this says so first. Many tests spend their time waiting on the processes they
# start, so two workers more than there are cores keep the cores busy (2 cores, fresh clones
# through .ci/run: 358 s with 4 workers against 376-385 s with 3; on a smaller suite 5.4-5.9
# min with 3 against 7.1 with 2). Each worker is handed one test at a time
# (--maxschedchunk 1) and the tests marked slow come first (tests/conftest.py): a long test
# handed out last would keep the run waiting on one worker while the others are done.
# The tests' folders are made in a RAM folder where there is one (TMPDIR=/dev/shm): the
# embedded PostgreSQL and the index shards sync their writes to disk, and on this machine's
# shared disk a test waited on those syncs for longer than it computed (the isolation property
# test: 64 s on /tmp, 34 s on /dev/shm). A passing test's folder is removed when it ends
# (pyproject: tmp_path_retention_policy), so the RAM it takes stays small.
TEST_TMPDIR ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm)
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) + 2 )))
test: install
	@command -v chromium >/dev/null 2>&1 || echo "No browser found: the review page's browser tests will be skipped (apt install chromium runs them)."
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR) )$(BIN)/python -m pytest -n $(WORKERS) --maxschedchunk 1

demo: install
	$(BIN)/python scripts/demo.py

bench: install
	$(BIN)/python -m scripts.bench_import
	$(BIN)/python -m scripts.bench_retrieval
	$(BIN)/python -m scripts.bench_reindex
	$(BIN)/python -m scripts.bench_chat
	$(BIN)/python -m scripts.bench_quality
	$(BIN)/python -m scripts.bench_hygiene
	$(BIN)/python -m scripts.bench_startup
	$(BIN)/python -m scripts.bench_forget

# Retrieval quality on both data sets (personas, tuned on; observations, not): hit@5, hit@10
# and recall@10 per question kind for plain cosine, word search alone, the seed's pipeline
# (dense) and the shipped one (fused), with all-MiniLM-L6-v2 in process.
bench-quality: install
	$(BIN)/python -m scripts.bench_quality

# Retrieval quality on real conversations kept outside the repository: DATA holds
# realtalk/Chat_*.json and locomo/locomo-dev.json (scripts/bench_real.py says what is read).
bench-real: install
	@test -n "$(DATA)" || { echo "give the data folder: make bench-real DATA=/path/to/data"; exit 2; }
	$(BIN)/python -m scripts.bench_real --data "$(DATA)"

# ruff, mypy --strict over the package, tests and scripts, and the import-linter contracts
# (domain -> no I/O; services -> ports, never adapters; cli -> the public API).
lint: install
	$(BIN)/ruff check aria_mem tests scripts
	$(BIN)/ruff format --check aria_mem tests scripts
	$(BIN)/mypy
	$(BIN)/lint-imports --config pyproject.toml

all: lint test

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .demo

# Memory over months: repeats merged, changed facts superseded, the old value in prompts.
bench-hygiene: install  # REALTALK=folder of Chat_*.json, LOCOMO=locomo-dev.json: the real-chat pairs too
	$(BIN)/python -m scripts.bench_hygiene $(if $(REALTALK),--realtalk $(REALTALK)) $(if $(LOCOMO),--locomo $(LOCOMO))

# Many clients at once (a few minutes): searches/s, p50 and p99 with 1, 4 and 16 searching
# processes, writes/s with 1 and 16 writers, the review page with 6,000 open items.
bench-load: install
	$(BIN)/python -m scripts.bench_load

# The README's picture of the review page (needs chromium): a throw-away home with a few
# memories, the page's "why" view (scripts/screenshot.py).
screenshot: install
	$(BIN)/python -m scripts.screenshot docs/review-page.png

# The two commands of the README: `make run` and `make test`. Each creates .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000
# pytest-xdist processes for `make test` (one per core; on 2 cores the suite takes 0.58 of its one-process time)
TEST_WORKERS ?= auto

.PHONY: run test test-fast bench bench-relevance bench-languages bench-profile bench-load bench-extract bench-formats bench-bulk clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.run-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.run-installed

run: $(VENV)/.run-installed
	$(BIN)/newsarchive db upgrade
	$(BIN)/newsarchive ingest seeds
	$(BIN)/newsarchive serve --host $(HOST) --port $(PORT) --watch

test: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist worksteal --durations=15

test-fast: $(VENV)/.test-installed
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) -m "not corpus and not browser and not slow"

# Benchmarks on ../shared/corpus (each skips with a message when the corpus is absent); they rewrite
# their own sections of BENCHMARKS.md. `make bench` runs them all (speed at 20,000 articles);
# `make bench BENCH_ARTICLES=106520` runs the speed benchmark on the whole Reuters corpus.
BENCH_ARTICLES ?= 20000
bench: $(VENV)/.test-installed
	$(BIN)/python -m bench.relevance
	$(BIN)/python -m bench.languages
	$(BIN)/python -m bench.places.precision
	$(BIN)/python -m bench.speed --articles $(BENCH_ARTICLES)
	$(BIN)/python -m bench.profile --articles $(BENCH_ARTICLES) --label after
	$(BIN)/python -m bench.load
	$(BIN)/python -m bench.access --articles $(BENCH_ARTICLES)
	$(BIN)/python -m bench.backends --articles $(BENCH_ARTICLES)
	$(BIN)/python -m bench.relevance --backends
	$(BIN)/python -m bench.deployment --articles $(BENCH_ARTICLES)
	$(BIN)/python bench/extract.py --compare
	$(BIN)/python -m bench.metadata
	$(BIN)/python -m bench.stories.measure
	$(BIN)/python -m bench.formats

# Known-item searches and the judged questions, beside SQLite FTS5 and plain Whoosh (bench/relevance.py).
bench-relevance: $(VENV)/.test-installed
	$(BIN)/python -m bench.relevance

# Names, accents and languages: accented names, non-English known items and corrections beside FTS5
# (bench/languages.py).
bench-languages: $(VENV)/.test-installed
	$(BIN)/python -m bench.languages

# Where a search's time goes, stage by stage and by query kind (bench/profile.py; builds its archive once
# under bench/out/profile). `make bench-profile BENCH_ARTICLES=106520` on the whole Reuters corpus.
bench-profile: $(VENV)/.test-installed
	$(BIN)/python -m bench.profile --articles $(BENCH_ARTICLES) --label after

bench-load: $(VENV)/.test-installed
	$(BIN)/python -m bench.load

# Body extraction scored on every extraction set of ../shared/corpus through the ingest path, with
# trafilatura and readability-lxml scored in the same run (bench/extract.py), then title, byline and date
# beside trafilatura's on the html-metadata set (bench/metadata.py); skipped when the corpus is absent.
bench-extract: $(VENV)/.test-installed
	$(BIN)/python bench/extract.py --compare
	$(BIN)/python -m bench.metadata

# Every feed and wire file of ../shared/corpus/feed-formats through the readers (bench/formats.py).
bench-formats: $(VENV)/.test-installed
	$(BIN)/python -m bench.formats

# One generated 2 GB JSON Lines file through `newsarchive ingest`: time and peak memory (bench/bulk.py; about
# half an hour, so not part of `make bench`). BULK_SETTINGS passes settings, e.g. "--set index_memory_mb=128".
BULK_SETTINGS ?=
bench-bulk: $(VENV)/.test-installed
	$(BIN)/python -m bench.bulk --gigabytes 2 $(BULK_SETTINGS)

clean:
	rm -rf $(VENV) instance .pytest_cache

# One runner for people and CI. `make serve` and `make test` work from a fresh clone.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
STORE ?= .overstory

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: install serve test test-llm lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip setuptools wheel
	$(BIN)/pip install -q -e '.[dev,local]'
	touch $(STAMP)

install: $(STAMP)

serve: install
	$(BIN)/overstory serve --host 127.0.0.1 --port 8000 --store $(STORE) --index-fixtures fixtures

test: install
	$(BIN)/pytest -q -p no:cacheprovider

lint: install
	$(BIN)/ruff check indexer retriever api tests benchmarks
	$(BIN)/ruff format --check indexer retriever api tests benchmarks
	$(BIN)/mypy indexer retriever api

bench: install
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) $(STORE) .pytest_cache .mypy_cache .ruff_cache

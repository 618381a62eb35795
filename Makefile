# The single entry point. Every install step is here: a fresh clone needs
# only Python 3.11+ (and Node.js for the CDK synth).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test test-unit test-integration test-infra lint synth bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/superbiz demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

test-integration: $(STAMP)
	$(BIN)/python -m pytest -q tests/integration

test-infra: $(STAMP)
	$(BIN)/python -m pytest -q tests/infrastructure

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m superbiz.bench --runs 5

synth: $(STAMP)
	$(BIN)/python app.py

clean:
	rm -rf $(VENV) cdk.out .pytest_cache .ruff_cache .mypy_cache

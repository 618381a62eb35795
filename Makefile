# The single entry point. Every install step is here: a fresh clone needs
# only Python 3.11+ (and Node.js for the CDK synth).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test test-unit test-integration test-infra lint layer synth bench imports asl clean \
        browser adapter adapter-eval

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/superbiz demo

# Spread over every core (pytest-xdist; tests/conftest.py groups modules that share a
# fixture). PYTEST_JOBS=0 runs in one process.
PYTEST_JOBS ?= auto

test: $(STAMP) browser
	$(BIN)/python -m pytest -q -n $(PYTEST_JOBS) --dist loadgroup --durations=15

# Chromium and its driver from Debian, for the run page's browser test
# (tests/integration/test_run_page_browser.py): Debian's chromium-driver matches its
# chromium, and downloaded browser builds do not run here. Nothing to do where both are
# installed; else apt-get, as root or through `sudo -n`. Where that cannot work the
# browser test skips and says why, unless SUPERBIZ_REQUIRE_BROWSER is set (.ci/run sets
# it): then this target fails, as the test would.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then exit 0; fi; \
	give_up() { echo "make browser: $$1"; [ -z "$$SUPERBIZ_REQUIRE_BROWSER" ] || exit 1; \
		echo "make browser: the run page's browser test will skip"; exit 0; }; \
	command -v apt-get >/dev/null || give_up "no apt-get here: install Chromium and its chromedriver"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	else give_up "apt-get needs root or passwordless sudo: apt-get install chromium chromium-driver"; fi; \
	echo "make browser: apt-get install chromium chromium-driver"; \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null \
		|| give_up "apt-get install chromium chromium-driver failed"

test-unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

test-integration: $(STAMP) browser
	$(BIN)/python -m pytest -q tests/integration

test-infra: $(STAMP)
	$(BIN)/python -m pytest -q tests/infrastructure

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m superbiz_workbench.bench --runs 5

# A linear adapter over MiniLM's vectors, trained in numpy on CPU from a fixed seed on the
# labelled query sets in tests/knowledge against data/runbooks (docs/knowledge.md); use it
# with SUPERBIZ_KB_ADAPTER=build/adapter/minilm-adapter.npz. adapter-eval measures it
# leave-one-set-out (each set scored by an adapter trained on the others)
adapter: $(STAMP)
	$(BIN)/python -m superbiz_workbench.adapter_training train

adapter-eval: $(STAMP)
	$(BIN)/python -m superbiz_workbench.adapter_training loso

# The import graph between the project's modules (function-local imports included);
# fails on a cycle
imports: $(STAMP)
	$(BIN)/python scripts/import_graph.py

# Writes the spec table's nodes, tools and route Choices (layers/superbiz/superbiz/spec.py)
# into the ASL file; tests/unit/test_spec.py fails when the file is out of date
asl: $(STAMP)
	$(BIN)/python -m stacks.asl

# The third-party dependency layer for Lambda (arm64, CPython 3.12), built without Docker:
# pip picks manylinux aarch64 wheels (tiktoken publishes only manylinux_2_28 ones; the Python
# 3.12 runtime's Amazon Linux 2023 has glibc 2.34). Rebuilt when the requirements change.
LAYER_REQS   := layers/dependencies/requirements.txt
LAYER_SDISTS := layers/dependencies/sdist-only.txt
LAYER_DIR    := build/layers/dependencies
WHEELHOUSE   := build/wheelhouse
LAYER_TARGET := --platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64 \
                --python-version 3.12 --implementation cp --only-binary=:all:

layer: $(LAYER_DIR)/.built

$(LAYER_DIR)/.built: $(LAYER_REQS) $(LAYER_SDISTS) | $(STAMP)
	rm -rf $(LAYER_DIR) $(WHEELHOUSE)
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir $(WHEELHOUSE) -r $(LAYER_SDISTS)
	$(BIN)/python -m pip install --quiet --target $(LAYER_DIR)/python --find-links $(WHEELHOUSE) \
		$(LAYER_TARGET) -r $(LAYER_REQS)
	$(BIN)/python -m stacks.bytecode $(LAYER_DIR)/python
	@du -sh $(LAYER_DIR) | sed 's/^/dependency layer (unzipped): /'
	@touch $@

# The context as `cdk synth` takes it; the log groups query_logs reads must be named:
# make synth CONTEXT="-c logGroupPrefixes=/ecs/payment,/aws/lambda/payment"
# (or -c allowAllLogGroups=true, knowingly: docs/security.md)
CONTEXT ?=

synth: $(STAMP) layer
	$(BIN)/python app.py $(CONTEXT)

clean:
	rm -rf $(VENV) cdk.out build .pytest_cache .ruff_cache .mypy_cache

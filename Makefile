# Every target sets itself up from nothing: a virtual environment in .venv,
# the project installed into it with its test extras.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: help setup test bench run clean

help:
	@echo "make run    - run the table daemon against the simulated devices (demo)"
	@echo "make test   - set up and run the whole test suite"
	@echo "make bench  - run the benchmarks, print them and write bench.json"
	@echo "make clean  - remove the virtual environment and caches"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -n 2 -q

bench: $(STAMP)
	$(PY) tests/bench/run.py --out bench.json

run: $(STAMP)
	@echo "The table daemon is not built yet (issue: the table daemon). Nothing is running."
	@echo "What works today: the rules engine, e.g."
	@echo "  $(VENV)/bin/tablectl settle docs/examples/settle-uth.json"
	@exit 1

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis bench.json

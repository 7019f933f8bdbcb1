# Every target sets itself up from nothing: a virtual environment in .venv,
# the project installed into it with its test extras.
# Debian's own python3 when it can make a venv: the interpreter the table PC runs (docs/install.md), and
# Debian's optimised build: the suite took 12-15 % less CPU on it than on a plain shared-library source
# build (pyenv's, measured side by side); any other python3 otherwise.  `make PYTHON=...` chooses.
PYTHON ?= $(shell /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 && echo /usr/bin/python3 || echo python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
KERNELS := $(VENV)/.kernels

# Bytecode is written (some machines set PYTHONDONTWRITEBYTECODE): without it every pytest worker rewrites
# every test module's asserts at each run and every daemon, simulator and tablectl a test starts
# compiles the project again (12 s of CPU a worker, 0.4 s a process); __pycache__ is ignored by git
# and left out of the dist artefact.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help setup chromium postgresql lint test test-install compliance contracts soak soak-kills bench screens run dist install clean

help:
	@echo "make run    - run the table daemon against the simulated devices, and the dealer's screen (demo; CONFIG=config/X.toml ROUNDS=N SHUFFLE=KIND PLAYER=informed)"
	@echo "              a round every 10-20 s, as people play; FAST=1: at full speed"
	@echo "              LINK=1: two tables on one linked progressive (a throwaway PostgreSQL)"
	@echo "              PIT=N: N tables (up to 20) and the pit that shows them all (a throwaway PostgreSQL)"
	@echo "make test   - set up and run the whole test suite (the project's own: nothing beside it is read)"
	@echo "make test-install - the offline install of a table PC, its upgrade and rollback (CI runs it after make test)"
	@echo "make compliance - the tests that prove a regulator's requirement, and the matrix with each result (docs/compliance.md)"
	@echo "make contracts - the project's examples against the contracts kept beside it (../shared/contracts)"
	@echo "make lint   - ruff and mypy (strict for every package and the tests' helpers)"
	@echo "make soak   - the long suites: the whole configuration matrix (every accepted table plays a round), 1,000+ kill points, crashes across journal roll-overs"
	@echo "make bench  - run the benchmarks, print them and write bench.json"
	@echo "make screens - the dealer's screen at 800x480 ... 1920x1080 for each game, as pictures in docs/screens/"
	@echo "make dist   - build the offline install artefact for a table PC (dist/*.tar.gz, docs/install.md)"
	@echo "make install - install (or upgrade) this tree on this machine the way a table PC is (root; no network)"
	@echo "make clean  - remove the virtual environment and caches"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The par sheets' numba kernels compiled once into numba's cache (games/par/warm.py): on a fresh clone the
# par tests otherwise spend about a minute of CPU compiling them; a kernel edited later compiles at its next call.
$(KERNELS): $(STAMP) $(wildcard games/par/*.py)
	$(PY) -m games.par.warm
	touch $(KERNELS)

# The test modules' asserts rewritten once into their bytecode (pytest's cache in tests/__pycache__), so that
# make test's four workers start from it instead of each rewriting every module (about 11 s of CPU a worker on
# a fresh clone): a setup step, redone when a test module changes.
TESTS_COMPILED := $(VENV)/.tests-compiled
$(TESTS_COMPILED): $(STAMP) $(wildcard tests/*.py) pyproject.toml
	@$(PY) -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 || true
	@touch $(TESTS_COMPILED)

# The browser tests drive Debian's Chromium (Playwright's own browser download is not used):
# installed here when missing and we are root; otherwise the tests say how to get it.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get install -y --no-install-recommends chromium >/dev/null || \
	      { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium >/dev/null; }; \
	  else echo "note: $(CHROMIUM) is missing; the browser tests need it (as root: apt-get install chromium)"; fi; \
	fi

# The linked-progressive tests start their own PostgreSQL server (tests/pg.py) from Debian's package:
# installed here when no server binaries are found and we are root; otherwise say how to get it.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get install -y --no-install-recommends postgresql >/dev/null || \
	      { apt-get update >/dev/null && apt-get install -y --no-install-recommends postgresql >/dev/null; }; \
	  else echo "note: PostgreSQL's server is missing; the linked-progressive tests need it (as root: apt-get install postgresql)"; fi; \
	fi

setup: $(KERNELS) $(TESTS_COMPILED) chromium postgresql

# lint first: a type error or a lint finding fails the suite before a test runs (CI runs make test)
# the kill-point sweeps append their figures here; printed after the run (tests/kill_report.py)
KILL_REPORT ?= $(CURDIR)/var/kill-report.jsonl

# four workers on two cores: most daemon tests wait on sockets and devices, not on the CPU; the longest
# tests start first (tests/conftest.py), and a worker is handed one test as it finishes one
# (--maxschedchunk=1).  With 2, xdist's queue for a worker grows by one at each test it finishes, up
# to a sixteenth of those left: a worker was left alone for 50 s at the end on the hundred slow
# irregularity tests queued for it while the others had finished.  CPU_REPORT=file records each test's CPU (python tests/cpu_report.py file).
# The rewritten test modules' bytecode is written at setup ($(TESTS_COMPILED)).  Lint (ruff, mypy strict) is
# its own target, run by CI (.ci/run) before make test: the tests alone take most of make test's five minutes.
# The tests' temporary directories go on a RAM disk (/dev/shm) when it has 4 GB free: the daemons' journals
# sync every commit, which on a disk the daemon tests wait on (measured: a sixth less CPU, the JHE kill
# sweep 30 s -> 18 s); a directory of this run's own, removed after it (about 2 GB), else pytest's default.
# the modules holding a timing test, run alone after the rest (collecting only them: seconds saved)
TIMING_TESTS = $(shell grep -l "mark.timing" tests/test_*.py)
test: $(KERNELS) $(TESTS_COMPILED) chromium postgresql
	@mkdir -p $(dir $(KILL_REPORT)) && rm -f $(KILL_REPORT)
	@free=$$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $$4}'); \
	if [ "$${free:-0}" -gt 4000000 ] && base=$$(mktemp -d /dev/shm/table-tests.XXXXXX); then \
	  trap 'rm -rf "$$base"' EXIT; echo "temporary directories: $$base (RAM)"; basetemp="--basetemp=$$base/t"; fi; \
	set -x; KILL_REPORT=$(KILL_REPORT) $(PY) -m pytest $$basetemp -n 4 --maxschedchunk=1 -q -m "not install and not timing"
	$(PY) -m pytest -q -p no:xdist -m timing $(TIMING_TESTS)
	@$(PY) tests/kill_report.py $(KILL_REPORT)

# The offline install of a table PC, its upgrade and rollback (tests/test_dist.py: two `make dist` builds and
# two pip installs, about a minute): apart from make test to keep it within five minutes; CI runs both.
test-install: $(STAMP)
	$(PY) -m pytest -q -m install tests/test_dist.py

# mypy: what pyproject.toml's [tool.mypy] files names (every package, the tests' helper modules), all strict
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The whole configuration matrix (tests/test_config_matrix.py; make test runs its sample), the long forms
# of checks make test samples (tests/soak_long.py: every five-card hand, the published house edges at
# 400,000 rounds), the fault soak (tests/soak_faults.py, issue 30: faults at random moments in the four
# games), a round of every game watched on the dealer's screen (make test watches two) and every game's
# screens at all four sizes (make test: UTH at the two tightest in ems, HCF and RET at the shortest, not JHE), then the kill-point sweeps at length (docs/reliability.md): KILLS_IN_PROCESS per game in process (260: 1,040
# in all), KILLS per game as whole processes ended as by SIGKILL; the count and every violation printed.
soak: $(KERNELS)
	MATRIX=full $(PY) -m pytest -n 2 -q tests/test_config_matrix.py
	$(PY) -m pytest -n 2 -q tests/soak_segments.py tests/soak_long.py tests/soak_faults.py tests/soak_link.py \
	  tests/soak_storage.py tests/soak_meter.py
	$(PY) -m pytest -n 2 -q tests/soak_par_hcf.py
	$(PY) -m pytest -q tests/soak_par.py
	$(PY) -m pytest -q tests/soak_par_jret.py
	$(PY) -m pytest -q tests/soak_par_combine.py
	OPERATOR_TOOLS_EXAMPLES=3000 $(PY) -m pytest -n 2 -q tests/test_operator_tools.py \
	  -k "hostile_argument or settle_text or mutated_configuration"
	WEB_DEALER_GAMES=all SCREEN_SIZES=all $(PY) -m pytest -n 2 -q tests/test_web_dealer.py tests/test_dealer_screen.py
	CRASH_GAMES=all $(PY) -m pytest -n 2 -q tests/test_daemon_crash.py
	PIT_TABLES=20 DEMO_SIGNALS=all $(PY) -m pytest -n 2 -q tests/test_pit.py tests/test_operator_tools.py -k "many_tables or demo_stops"
	$(MAKE) soak-kills

soak-kills: $(STAMP)
	@mkdir -p $(dir $(KILL_REPORT)) && rm -f $(KILL_REPORT)
	KILL_REPORT=$(KILL_REPORT) KILLS_IN_PROCESS=$${KILLS_IN_PROCESS:-260} KILLS=$${KILLS:-10} \
	  $(PY) -m pytest -n 2 -q tests/test_kill_sweep.py tests/test_kill_points.py -k sweep; status=$$?; \
	  $(PY) tests/kill_report.py $(KILL_REPORT) || status=1; exit $$status

# The compliance matrix (docs/compliance.md): exactly the tests marked @pytest.mark.requirement, then each
# requirement's row with its result; fails on a failing row, a row without a test, or a test the matrix disagrees
# with (tests/compliance.py).  The install's test among them takes a minute of pip.
compliance: $(STAMP) postgresql
	$(PY) tests/compliance.py -n 2

# The project's examples against the contracts kept beside it (CI runs it after make test): make test is
# the project's own and passes in a clone with nothing beside it; where ../shared is absent this says so.
CONTRACTS ?= $(CURDIR)/../shared/contracts
contracts: $(STAMP)
	@if [ -d "$(CONTRACTS)" ]; then \
	  CONTRACTS="$(CONTRACTS)" $(PY) -m pytest -q -p no:cacheprovider tests/contracts/contract_*.py; \
	else echo "make contracts: skipped: no contracts at $(CONTRACTS) (they are kept beside the project, in ../shared)"; fi

bench: $(KERNELS)
	$(PY) tests/bench/run.py --out bench.json

# the dealer's screen at each display size, for each game, from the daemon's own statuses (tests/screen_corpus.py)
screens: $(STAMP) chromium
	$(PY) tests/screens.py --out docs/screens

# CONFIG picks the table (one per game in config/); ROUNDS=N stops after N rounds (0: until Ctrl-C).
CONFIG ?= config/ultimate_texas_holdem.toml
ROUNDS ?= 0

# the scripted dealer plays at a table's pace (seats bet one by one, a round every 10-20 s: demo.dealer.Pace);
# FAST=1: at full speed, as the tests play
FAST ?=
PACE := --pace $(if $(FAST),fast,table)

# LINK=1: two tables on one linked progressive, on a throwaway PostgreSQL (LINK=postgresql://...: that
# database); docs/linked-progressive.md
LINK ?=
# SHUFFLE=KIND: the simulated shuffler shuffles so (fair, shelf10, shelf20, shelf10r and shelf20r: the shelves
# stacked in a random order, riffle1-3, preset: issue 28; the shuffle monitor's alarms show on the floor's pages
# and in tablectl protection report)
SHUFFLE ?= fair
# PLAYER=informed: seat 3 bets the Trips only where the order (read from the simulated shuffler) makes it win; the
# streak alarm shows on the floor's pages (issue 28; a UTH table)
PLAYER ?= random
# PIT=N: N simulated tables (up to 20; the four games in turn) and the pit that shows them (docs/pit.md)
PIT ?=

run: $(STAMP)
	@if [ -n "$(PIT)" ]; then $(MAKE) --no-print-directory postgresql && \
	  $(PY) -m demo.pit --tables $(PIT) --rounds $(ROUNDS) $(PACE); \
	elif [ -n "$(LINK)" ]; then $(MAKE) --no-print-directory postgresql && \
	  $(PY) -m demo.link --config $(CONFIG) --rounds $(ROUNDS) --link "$(LINK)" $(PACE); \
	else $(PY) -m demo.run --config $(CONFIG) --rounds $(ROUNDS) --shuffle $(SHUFFLE) --player $(PLAYER) $(PACE); fi

# dist: the artefact a technician carries to an offline table PC (wheelhouse, unit, udev rules, installer).
dist: $(STAMP)
	$(PY) deploy/build.py --out dist

# install: the same path as on a table PC: build the artefact, unpack it, run its installer (root).
PREFIX ?= /opt/table-controller
install: $(STAMP)
	@artefact=$$($(PY) deploy/build.py --out dist | tail -1) && tmp=$$(mktemp -d) && \
	tar -xzf "$$artefact" -C "$$tmp" && "$$tmp"/*/install.sh --prefix $(PREFIX); status=$$?; rm -rf "$$tmp"; exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis bench.json var dist build

# Every target sets itself up from nothing: a virtual environment in .venv,
# the project installed into it with its test extras.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: help setup chromium test bench run install clean

help:
	@echo "make run    - run the table daemon against the simulated devices, and the dealer's screen (demo; CONFIG=config/X.toml ROUNDS=N)"
	@echo "make test   - set up and run the whole test suite"
	@echo "make bench  - run the benchmarks, print them and write bench.json"
	@echo "make install - install the daemon and its systemd unit on a table PC (root)"
	@echo "make clean  - remove the virtual environment and caches"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

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

setup: $(STAMP) chromium

test: $(STAMP) chromium
	$(PY) -m pytest -n 2 -q

bench: $(STAMP)
	$(PY) tests/bench/run.py --out bench.json

# CONFIG picks the table (one per game in config/); ROUNDS=N stops after N rounds (0: until Ctrl-C).
CONFIG ?= config/ultimate_texas_holdem.toml
ROUNDS ?= 0

run: $(STAMP)
	$(PY) -m controller.demo --config $(CONFIG) --rounds $(ROUNDS)

# install: the daemon under /opt/table-controller, a system user, the unit (run as root on the table PC).
PREFIX ?= /opt/table-controller
install:
	id -u tablectl >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin --groups dialout tablectl
	mkdir -p $(PREFIX) /etc/table-controller
	cp -r pyproject.toml README.md controller drivers games simulators web config $(PREFIX)/
	$(PYTHON) -m venv $(PREFIX)/.venv
	$(PREFIX)/.venv/bin/pip install --quiet $(PREFIX)
	install -m 0644 systemd/table-controller@.service systemd/table-web@.service /etc/systemd/system/
	systemctl daemon-reload
	@echo "Put each table's configuration in /etc/table-controller/ID.toml, then: systemctl enable --now table-controller@ID table-web@ID"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis bench.json var

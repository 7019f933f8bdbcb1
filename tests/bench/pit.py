"""The pit with 50 tables publishing (tests/pit_harness.py: 50 publishers on status files, the daemon's own
statuses from tests/screen_corpus.py; ``tablectl pit`` in its own process; tests/pg.py's PostgreSQL), its
page in Debian's Chromium:

* ``pit.event_to_screen`` (median, p99, ms): from a table's status written (its ``updated`` stamp) to the
  animation frame of the pit's page that draws it: the table's feed, its publisher's upsert, NOTIFY, the
  pit's read and drawing, server-sent events, the page.  A change every ``GAP_S`` at a table taken at
  random (a busy pit of 50 tables changes a few times a second).  A status replaced before the page drew
  it is not measured (the pit sends the newest).  Aim: p99 under 500 ms (issue 26).
* ``pit.page_load`` (median, p99, ms): the pit's page loaded (``load``) with its 50 rows, logged in.

Everything shares one 2-core machine: the figures are those of the box, not of a pit server of its own.

    python tests/bench/pit.py
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import pg  # noqa: E402
from pit_harness import Tables, pit_server, table_id  # noqa: E402
from screen_corpus import corpus  # noqa: E402
from web.pit.store import migrate  # noqa: E402
from web_harness import CHROMIUM, launch, login  # noqa: E402

TABLES = 50
CHANGES = 300
GAP_S = 0.1
LOADS = 40


def _p99(xs: list[float]) -> float:
    xs = sorted(xs)
    return round(xs[math.ceil(len(xs) * 0.99) - 1], 1)


def run(tables: int = TABLES, changes: int = CHANGES) -> list[dict[str, Any]]:
    if not Path(CHROMIUM).exists():
        print(f"pit: skipped, {CHROMIUM} is missing (make setup installs it as root)")
        return []
    from playwright.sync_api import sync_playwright

    statuses = [s for _, s in corpus("ultimate_texas_holdem")]
    rnd = random.Random(26)
    url = pg.cluster().new_database()
    migrate(url)
    with tempfile.TemporaryDirectory() as tmp, Tables(url, Path(tmp), tables) as pit, \
            pit_server(url, Path(tmp)) as address, sync_playwright() as p:
        for n in range(1, tables + 1):
            pit.write(n, statuses[n % len(statuses)])
        context, _ = launch(p)
        try:
            page = login(context.new_page(), address)
            loads = []
            for _ in range(LOADS):
                start = time.perf_counter()
                page.goto(address)
                page.wait_for_function("n => document.querySelectorAll('#tables tr[data-table]').length === n",
                                       arg=tables)
                loads.append((time.perf_counter() - start) * 1000)
            page.wait_for_function("() => document.body.dataset.version")  # the stream is open
            last: dict[str, Any] = {}
            for k in range(changes):
                n = rnd.randint(1, tables)
                last = pit.write(n, statuses[k % len(statuses)])
                time.sleep(GAP_S)
            page.wait_for_function(
                "([t, u]) => document.querySelector(`#tables tr[data-table='${t}']`).dataset.updated === u",
                arg=[last["table"], str(last["updated"])], timeout=30_000)
            times = sorted(page.evaluate("window.__latencies"))
        finally:
            context.close()
    what = (f"{tables} tables publishing (one process of publishers), a change every {GAP_S * 1000:.0f} ms at a "
            f"table taken at random, {len(times)} of {changes} changes drawn: status written -> publisher -> "
            "PostgreSQL NOTIFY -> tablectl pit -> server-sent events -> Chromium frame; same machine")
    load_what = f"the pit's page with {tables} tables, logged in, {LOADS} loads: navigation to load, rows drawn"
    return [
        {"name": "pit.event_to_screen", "value": round(statistics.median(times), 1), "unit": "ms", "stat": "median",
         "what": what},
        {"name": "pit.event_to_screen", "value": _p99(times), "unit": "ms", "stat": "p99", "what": what},
        {"name": "pit.page_load", "value": round(statistics.median(loads), 1), "unit": "ms", "stat": "median",
         "what": load_what},
        {"name": "pit.page_load", "value": _p99(loads), "unit": "ms", "stat": "p99", "what": load_what},
    ]


if __name__ == "__main__":
    for f in run():
        print(f)
    print(f"({table_id(1)} ... {table_id(TABLES)})")

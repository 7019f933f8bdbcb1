"""Recall's search on a big journal (issue 26, P109): the index built once, caught up, and each search's time.

A journal of N rounds is built as tests/bench/journal.py builds it (a real two-seat UTH round and the
table's events between rounds), then ``web.search.Index`` is built from it and each search is run five
times through ``web.recall._search`` (the index caught up, searched, the rounds found read back from the
journal).  Not part of ``make bench`` yet: ``python tests/bench/recall.py [N]`` (100,000 by default;
the figures are in docs/journal.md).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests", ROOT / "tests" / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from controller.journal.store import Journal  # noqa: E402
from journal import Clock, build, config  # noqa: E402
from web.recall import _search  # noqa: E402
from web.search import Index, Query  # noqa: E402


def main(n: int) -> None:
    path = Path(tempfile.mkdtemp()) / "t.journal"
    t = time.perf_counter()
    with Journal(path) as j:
        build(j, 0, n, Clock(datetime(2026, 1, 1, tzinfo=UTC)), config(path))
    print(f"journal of {n} rounds built in {time.perf_counter() - t:.0f} s", flush=True)
    index = Index(path)
    t = time.perf_counter()
    rows = index.update()
    print(f"index built from {rows} rows in {time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    index.update()
    print(f"index caught up, nothing new: {(time.perf_counter() - t) * 1000:.1f} ms", flush=True)
    day = datetime(2026, 2, 1, tzinfo=UTC).timestamp()
    for name, q in {"all": Query(), "prefix": Query(round="r00123"), "seat": Query(seat=3),
                    "net": Query(on="net", at_most=-5000), "day": Query(since=day, until=day + 86_400),
                    "page_1000": Query(page=1000)}.items():
        times = []
        for _ in range(5):
            t = time.perf_counter()
            total = _search(path, q)[0]
            times.append((time.perf_counter() - t) * 1000)
        print(f"recall.search {name}: {total} found, median {statistics.median(times):.0f} ms", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)

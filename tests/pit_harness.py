"""A pit of tables for the pit's tests and ``make bench``: publishers on status files, and ``tablectl pit``.

    with Tables(url, directory, n) as tables, pit_server(url, directory) as pit:
        tables.write(3, status)          # table 3's daemon publishes ``status`` (stamped now)

Each table is a status file and a heartbeat beside a journal path, as a daemon writes them, watched by a
``StatusFeed`` and published by a ``Publisher`` (web/pit/publish.py): the code ``tablectl web`` runs for a
table, all of them in one thread's event loop (a web service per table would cost a process each).  The
statuses written are the daemon's own (tests/screen_corpus.py), under each table's id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import Any

from controller import liveness, paths
from controller.service.status import write_status
from daemon_harness import ROOT
from web.feed import POLL, StatusFeed
from web.pit.publish import Publisher
from web.pit.store import PitStore
from web_harness import addresses, floor_accounts


def table_id(n: int) -> str:
    return f"T{n:02d}"


class Tables:
    """``n`` tables publishing to the pit's database ``url`` (its schema applied by the caller)."""

    def __init__(self, url: str, directory: Path, n: int) -> None:
        self.url = url
        self.journals = [directory / f"{table_id(i)}.journal" for i in range(1, n + 1)]
        self.running = [True] * n
        self.loop = asyncio.new_event_loop()
        self.publishers: list[Publisher] = []
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._tasks: list[asyncio.Task[None]] = []

    def __enter__(self) -> Tables:
        self._thread.start()
        self.call(self._start())
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.call(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()

    def call(self, coro: Any, timeout: float = 30.0) -> Any:
        fut: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return fut.result(timeout)

    async def _start(self) -> None:
        for i, j in enumerate(self.journals, start=1):
            feed = StatusFeed(paths.status_file(j), paths.heartbeat_file(j))
            p = Publisher(PitStore(self.url), table_id(i), feed, floor_url=f"http://127.0.0.1:1/{table_id(i)}/")
            p.poll = 1.0  # woken by _look at each change: one task looks at every feed (50 tasks polling cost a core)
            self.publishers.append(p)
            self._tasks.append(asyncio.create_task(p.run()))
        self._tasks += [asyncio.create_task(self._beat()), asyncio.create_task(self._look())]

    async def _look(self) -> None:
        """Every feed looked at as ``tablectl web``'s does (web/feed.py ``POLL``), its publisher woken."""
        while True:
            for p in self.publishers:
                running = p.feed.alive.running
                if p.feed.look() or p.feed.alive.running != running:
                    p.wake.set()
            await asyncio.sleep(POLL)

    async def _stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t

    async def _beat(self) -> None:
        while True:
            for j, running in zip(self.journals, self.running, strict=True):
                if running:
                    liveness.beat(paths.heartbeat_file(j))
            await asyncio.sleep(liveness.BEAT_S)

    def write(self, n: int, status: dict[str, Any]) -> dict[str, Any]:
        """Table ``n`` (from 1) publishes ``status`` as its daemon would: its id, stamped now; the status."""
        s = {**status, "table": table_id(n), "updated": time.time()}
        write_status(paths.status_file(self.journals[n - 1]), json.dumps(s))
        return s

    def stop_daemon(self, n: int) -> None:
        self.running[n - 1] = False
        liveness.stopped(paths.heartbeat_file(self.journals[n - 1]))


@contextlib.contextmanager
def pit_server(url: str, directory: Path, timeout: float = 30.0) -> Iterator[str]:
    """``tablectl pit`` on the database ``url`` with the floor's two accounts; its address."""
    users = directory / "pit-users"
    floor_accounts(users)
    config = directory / "pit.toml"
    config.write_text(f'database = "{url}"\nport = 0\nusers = "{users}"\nstate_dir = "{directory / "pit"}"\n')
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "pit", "--config", str(config)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=os.environ.copy(), text=True)
    try:
        yield addresses(proc, "tablectl pit", timeout)["pit"]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

"""A table SIGKILLed mid-contribution (issue 17): a process plays rounds as a linked table does -- each
round's no more bets journaled with its contributions, then written to the link -- and is killed at a
random instant, three times. Each restart reconciles its journal with the link; the link then holds
every journaled contribution exactly once: the invariant, to the cent, in the database and the journal."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pg
from controller.config.table import load_config
from controller.journal.store import Journal
from controller.progressive.link.meters import LinkedMeters
from controller.progressive.link.migrate import migrate
from test_link_meters import check_invariant

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "config" / "ultimate_texas_holdem.toml"

TABLE = """
import asyncio, itertools, sys
from controller import events as ev
from controller.config.table import load_config
from controller.journal.store import Journal
from controller.progressive.link.meters import LinkedMeters

async def main():
    cfg = load_config(sys.argv[1])
    with Journal(cfg.journal) as j:
        m = LinkedMeters(cfg, j)
        assert await m.connect() is None
        print("ready", flush=True)
        for k in itertools.count():
            rid = f"{sys.argv[2]}-{k}"
            seats = (1, 2, 4)[: 1 + k % 3]
            j.append_many([(rid, "no_more_bets", ev.NoMoreBets(progressive_seats=seats, meters=None).to_data(), None),
                           (rid, "meter_add", {"meters": m.contributions(len(seats))}, None)])
            await m.sync(rid)

asyncio.run(main())
"""


def test_sigkilled_mid_contribution_then_restarted(tmp_path, monkeypatch):
    url = pg.cluster().new_database()
    migrate(url)
    env = {**os.environ, "TABLE_JOURNAL": str(tmp_path / "k.journal"), "TABLE_ID": "uth-k",
           "TABLE_PROGRESSIVE__LINK": url, "TABLE_PROGRESSIVE__LINK_ID": "floor"}
    for key in ("TABLE_JOURNAL", "TABLE_ID", "TABLE_PROGRESSIVE__LINK", "TABLE_PROGRESSIVE__LINK_ID"):
        monkeypatch.setenv(key, env[key])
    rng = random.Random(17)
    for life in range(3):
        table = subprocess.Popen([sys.executable, "-c", TABLE, str(CONFIG), f"L{life}"], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, text=True)
        assert table.stdout is not None
        for line in table.stdout:  # its log lines first (structlog on standard output), then ready
            if line.strip() == "ready":
                break
        else:
            raise AssertionError(f"the table process stopped before it was ready (exit {table.wait()})")
        time.sleep(rng.uniform(0.05, 0.4))  # the kill lands at a random point of the rounds' writes
        table.send_signal(signal.SIGKILL)
        table.wait()
    cfg = load_config(CONFIG)

    async def restart() -> None:
        with Journal(cfg.journal) as j:
            m = LinkedMeters(cfg, j)
            assert await m.connect() is None  # the restart: the journal's contributions the link lacks sent
            rounds = {e.round_id for e in j.iter_events() if e.kind == "meter_add"}
            assert {r for r, *_ in await m.store.confirmed("uth-k")} == rounds and len(rounds) >= 3
            await check_invariant(m, [j])
            await m.close()

    asyncio.run(restart())

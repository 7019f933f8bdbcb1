"""End to end: the daemon (tablectl run), the real drivers and the simulators, one table per game.

The scripted dealer of ``make run`` (demo.run) plays rounds on the
simulated panel, bet sensors and progressive devices; the test then checks
what the journal kept: every round closed, the hash chain intact, and every
round re-settled from its journal (``recall --round ID --json`` form) giving
the nets the daemon journaled.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from controller.journal.store import Journal
from controller.round.machine import RoundController
from controller.table import setup_from_journal
from games.contract import settle

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "config").glob("*.toml"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_rounds_of_every_game_through_the_daemon(config, tmp_path):
    env = dict(os.environ)
    notify = None
    if config.stem == "ultimate_texas_holdem":  # systemd's notify socket, bound by the test (Type=notify)
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(str(tmp_path / "notify.sock"))
        env["NOTIFY_SOCKET"] = str(tmp_path / "notify.sock")
        env["WATCHDOG_USEC"] = "1000000"  # a ping every half second
    proc = subprocess.run(  # each simulator on a port it picks: no clash with tests running beside it
        [sys.executable, "-m", "demo.run", "--config", str(config), "--rounds", "3", "--seed", "7",
         "--state-dir", str(tmp_path), "--free-ports"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "3 rounds played" in proc.stdout
    if notify is not None:
        notify.setblocking(False)
        messages = []
        while True:
            try:
                messages.append(notify.recv(256).decode())
            except BlockingIOError:
                break
        notify.close()
        assert messages[0] == "READY=1"  # sent once every device answered, before any watchdog ping
        assert "WATCHDOG=1" in messages[1:]
    (journal_path,) = tmp_path.glob("*.journal")
    with Journal(journal_path) as j:
        j.verify()
        rounds = j.rounds()
        closed = [r for r in rounds if r.closed_by]
        assert len(closed) == 3 and all(r.closed_by == "round_closed" for r in closed)
        for summary in closed:
            events = j.events(summary.round_id)
            kinds = [e.kind for e in events]
            assert kinds[0] == "round_opened" and "no_more_bets" in kinds and kinds[-1] == "round_closed"
            journaled = next(e.data for e in events if e.kind == "settled")["nets"]
            r = asyncio.run(RoundController.restore(summary.round_id, setup_from_journal(events[0].data),
                                                    [(e.kind, e.data) for e in events]))
            again = settle(r.settle_input())
            assert {str(s.seat): str(s.net) for s in again.seats} == journaled
            # every card of the round is in the journal, once
            cards = [e.data["card"] for e in events if e.kind == "card"]
            assert len(cards) == len(set(cards)) > 0
        meters = j.meter_values()
    # the daemon's status names no hidden card and agrees with the journal's meters
    (status_path,) = tmp_path.glob("*.status.json")
    import json

    status = json.loads(status_path.read_text())
    assert {k: Decimal(v) for k, v in status["meters"].items()} == {k: v for k, v in meters.items()
                                                                    if k in status["meters"]}
    # between rounds: a new round open for wagers, or (cards shuffled by hand) the shuffle and cut awaited
    assert (status["round"] or {}).get("phase") == "wagers" or status["next_step"]["step"] == "shuffled"

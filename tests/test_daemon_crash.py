"""Kill the daemon with SIGKILL at random points of rounds, restart it, and check nothing is lost or doubled.

The simulated devices and the scripted dealer (controller.demo.Dealer, which
acts on the daemon's public status) keep going across the restarts, as a real
table would.  Afterwards the journal must hold: an intact hash chain; every
round closed exactly once; each settled round re-settling to the nets it
journaled; each voided round's meter contributions taken back exactly (R7a),
each other round's contributions added once.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from controller.config import load_config
from controller.demo import Dealer, start_simulator
from controller.journal import Journal
from controller.round import RoundController
from controller.table import setup_from_journal
from games.contract import settle
from games.money import round_cents

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("config", ["ultimate_texas_holdem", "run_em_twice"])
def test_sigkill_at_random_points_loses_and_doubles_nothing(config, tmp_path, monkeypatch):
    rng = random.Random(20261126 + len(config))
    path = ROOT / "config" / f"{config}.toml"
    ports = {}
    for device in ("shuffler", "shoe", "progressive", "panel"):
        ports[device] = free_port()
    text = path.read_text()
    for device, scheme in (("shuffler", "socket"), ("shoe", "socket"), ("progressive", "tcp"), ("panel", "tcp")):
        present = f"\n{device} =" in text
        monkeypatch.setenv(f"TABLE_DEVICES__{device.upper()}",
                           f"{scheme}://127.0.0.1:{ports[device]}" if present else "null")
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "table.journal"))
    monkeypatch.setenv("TABLE_LOG_FORMAT", "json")
    cfg = load_config(path)
    procs: list[subprocess.Popen] = []

    def start_daemon() -> subprocess.Popen:
        p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(path)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
        procs.append(p)
        return p

    try:
        controls = {d: start_simulator(d, ports[d], procs) for d in ports if getattr(cfg.devices, d)}
        daemon = start_daemon()
        dealer = Dealer(cfg, tmp_path / "table.status.json", controls, rng)
        kills = 0
        while len(dealer.closed) < 6:
            for _ in range(rng.randint(1, 12)):
                dealer.step()
            if kills < 5:
                daemon.send_signal(signal.SIGKILL)
                daemon.wait(timeout=30)
                before = dealer.status()
                daemon = start_daemon()
                dealer.wait_change(before, "restart", timeout=60)
                kills += 1
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=30) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)

    assert kills == 5
    contribution = {m: c.rate * cfg.progressive.unit for m, c in cfg.progressive.meters.items()}
    with Journal(tmp_path / "table.journal") as j:
        j.verify()
        # The meters, replayed event by event: each settled round is paid from the meters as they
        # stood with its own contributions added (R4), and its settlement leaves them where it says.
        running: dict[str, Decimal] = {}
        for e in j.iter_events():
            if e.kind == "meter_set":
                running.update({m: Decimal(v) for m, v in e.data["meters"].items()})
            elif e.kind == "meter_add":
                for m, v in e.data["meters"].items():
                    running[m] = running[m] + Decimal(v)
            elif e.kind == "settled":
                events = j.events(e.round_id)
                r = asyncio.run(RoundController.restore(e.round_id, setup_from_journal(events[0].data),
                                                        [(x.kind, x.data) for x in events if x.seq <= e.seq]))
                assert r.settle_input()["progressive"]["meters"] == running, e.round_id
        summaries = j.rounds()
        closed = [r for r in summaries if r.closed_by]
        assert len(closed) >= 6
        assert len([r for r in summaries if not r.closed_by]) <= 1  # only the round left open at the end
        for summary in closed:
            events = j.events(summary.round_id)
            kinds = [e.kind for e in events]
            assert sum(k in ("round_closed", "round_voided") for k in kinds) == 1
            added: dict[str, Decimal] = {}
            for e in events:
                if e.kind == "meter_add":
                    for m, v in e.data["meters"].items():
                        added[m] = added.get(m, Decimal(0)) + Decimal(v)
            accepted = next((len(e.data["progressive_seats"]) for e in events if e.kind == "no_more_bets"), 0)
            if summary.closed_by == "round_voided":
                assert all(v == 0 for v in added.values()), added  # R7a: taken back exactly
                continue
            assert "settled" in kinds
            assert added == ({m: round_cents(v * accepted) for m, v in contribution.items()} if accepted else {})
            journaled = next(e.data for e in events if e.kind == "settled")["nets"]
            r = asyncio.run(RoundController.restore(summary.round_id, setup_from_journal(events[0].data),
                                                    [(e.kind, e.data) for e in events]))
            assert {str(s.seat): str(s.net) for s in settle(r.settle_input()).seats} == journaled

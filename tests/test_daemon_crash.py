"""Kill the daemon with SIGKILL at random points of rounds, restart it, and check nothing is lost or doubled.

The simulated devices and the scripted dealer (demo.run.Dealer, which
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
from decimal import Decimal
from pathlib import Path

import pytest

from controller.journal.store import Journal
from controller.round.machine import RoundController
from controller.table import setup_from_journal
from daemon_harness import simulated_table
from games.contract import settle
from games.money import round_cents

ROOT = Path(__file__).resolve().parent.parent


#: make test: UTH (community cards, the Blind); make soak (CRASH_GAMES=all) RET too
CRASH_GAMES = ["ultimate_texas_holdem", "run_em_twice"] if os.environ.get("CRASH_GAMES") == "all" else [
    "ultimate_texas_holdem"]


@pytest.mark.parametrize("config", CRASH_GAMES)
def test_sigkill_at_random_points_loses_and_doubles_nothing(config, tmp_path, monkeypatch):
    rng = random.Random(20261126 + len(config))
    with simulated_table(config, tmp_path, monkeypatch, seed=rng.randrange(1000),
                         simulators="in_process") as t:
        cfg, dealer = t.cfg, t.dealer
        t.start_daemon()
        kills = 0
        while len(dealer.closed) < 6:
            for _ in range(rng.randint(1, 12)):
                dealer.step()
            if kills < 5:
                t.daemon.send_signal(signal.SIGKILL)
                t.daemon.wait(timeout=30)
                before = dealer.status()
                t.start_daemon()
                dealer.wait_change(before, "restart", timeout=60)
                kills += 1
        t.daemon.send_signal(signal.SIGTERM)
        assert t.daemon.wait(timeout=30) == 0

    assert kills == 5
    contribution = {m: c.rate * cfg.progressive.unit for m, c in cfg.progressive.meters.items()}
    with Journal(t.journal_path) as j:
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

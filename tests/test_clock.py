"""The table's clock (controller/service/clock.py, P109): its synchronisation journaled at start, and a table
opened on a clock the kernel does not hold synchronised warns the dealer (the status's ``clock``) and the floor
(an alarm), until the clock is synchronised or the table closes.  The kernel's answer is replaced here (the
machine running the tests may or may not be synchronised); the reading itself is the kernel's, checked once.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from controller import events as ev
from controller.journal.store import Journal
from controller.service import clock
from daemon_harness import table_in_process

CLOCK_ID = "13 Miss. Code R. 8-4.5"


def test_the_kernel_is_read_without_changing_anything(monkeypatch):
    monkeypatch.setenv(clock.CLOCK_ENV, "synchronised")
    assert clock.read_kernel().source == clock.CLOCK_ENV  # the tests' daemons (conftest.py): said as such
    monkeypatch.delenv(clock.CLOCK_ENV)
    got = clock.read_kernel()
    assert got.state in ("synchronised", "unsynchronised", "unknown") and got.source == "adjtimex"
    assert got.state == "unknown" or got.max_error is not None


@pytest.mark.requirement(CLOCK_ID)
def test_opening_on_an_unsynchronised_clock_warns_the_dealer_and_the_floor(tmp_path, monkeypatch):
    monkeypatch.setattr(clock, "read_kernel", lambda: ev.ClockChecked(state="unsynchronised", source="adjtimex",
                                                                       max_error=Decimal(16)))
    with table_in_process("high_card_flush", tmp_path, monkeypatch) as t:
        t.start_daemon()
        s = t.until(lambda s: s.get("clock", {}).get("state") == "unsynchronised", "the clock read")
        assert s["state"] == "closed" and not s["clock"]["warning"]  # closed: nothing is played on it yet
        assert not [a for a in s["alarms"] if a["kind"] == "clock_unsynchronised"]
        t.open_table()
        s = t.status()
        assert s["clock"] == {"state": "unsynchronised", "warning": True}
        (alarm,) = [a for a in s["alarms"] if a["kind"] == "clock_unsynchronised"]
        assert alarm["priority"] == "medium" and alarm["clauses"] == ["P109"]
        t.stop_daemon()
    with Journal(tmp_path / "table.journal") as j:
        kinds = [(e.kind, e.data.get("state") or e.data.get("alarm")) for e in j.events(None)
                 if e.kind in ("clock_checked", "alarm_raised")]
    assert ("clock_checked", "unsynchronised") in kinds and ("alarm_raised", "clock_unsynchronised") in kinds


@pytest.mark.requirement(CLOCK_ID)
def test_a_synchronised_clock_warns_nobody(tmp_path, monkeypatch):
    monkeypatch.setattr(clock, "read_kernel", lambda: ev.ClockChecked(state="synchronised", source="adjtimex",
                                                                       max_error=Decimal("0.01")))
    with table_in_process("high_card_flush", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.until(lambda s: s.get("clock", {}).get("state") == "synchronised", "the clock read")
        t.open_table()
        s = t.status()
        assert s["clock"] == {"state": "synchronised", "warning": False}
        assert not [a for a in s["alarms"] if a["kind"] == "clock_unsynchronised"]
        t.stop_daemon()

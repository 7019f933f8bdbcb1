"""The in-process table harness itself: a daemon stopped, killed or ended at a journal kill point is
restarted on the same journal and the same running simulators, and the dealer is told it ended."""

from __future__ import annotations

import pytest

from controller.journal.store import KILL_AT_ENV, Journal
from daemon_harness import DaemonEnded, DaemonTask, phase, table_in_process


def test_a_daemon_ended_at_a_kill_point_is_restarted_on_its_journal(tmp_path, monkeypatch):
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        monkeypatch.setenv(KILL_AT_ENV, "no_more_bets:after:raise")
        t.start_daemon()
        t.open_table()
        with pytest.raises(DaemonEnded) as ended:  # the dealer is not left waiting on a daemon that is gone
            for _ in range(50):
                t.dealer.step()
        assert ended.value.returncode == DaemonTask.KILLED == t.daemon.wait(5)
        monkeypatch.delenv(KILL_AT_ENV)
        before = t.status()
        t.start_daemon()
        s = t.dealer.wait_change(before, "the restart")
        assert phase(s) == "no_more_bets" and s["presses_handled"] == 0  # a new daemon, the round resumed
        while len(t.dealer.closed) < 1:
            t.dealer.step()
        t.daemon.kill()
        assert t.daemon.wait(5) == -9
        before = t.status()
        t.start_daemon()
        t.dealer.wait_change(before, "the restart")
        while len(t.dealer.closed) < 2:
            t.dealer.step()
        assert t.stop_daemon() == 0
    with Journal(t.journal_path) as j:
        j.verify()
        assert len([r for r in j.rounds() if r.closed_by]) >= 2


def test_in_process_refuses_a_kill_point_that_would_end_the_test_run(tmp_path, monkeypatch):
    with table_in_process("high_card_flush", tmp_path, monkeypatch) as t:
        monkeypatch.setenv(KILL_AT_ENV, "3:before")  # exit, the default
        with pytest.raises(AssertionError, match="only ':raise'"):
            t.start_daemon()

"""The daemon rolls its journal over between rounds (issue 14, P60): the next round plays, and `tablectl journal
verify --full` and `tablectl recall --round` read across the segments; a daemon killed in the middle of a
roll-over starts again, finishes it and plays on.

A tiny segment size (``[journal_options] segment_max_mb``) makes every round roll the journal over.
"""

from __future__ import annotations

import io
import json
import time

from controller.cli.main import main
from controller.journal import segments as segs
from daemon_harness import simulated_table

SMALL = "0.01"  # megabytes: less than one round's journal, so each round ends a segment


def tablectl(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def play(t, rounds: int, steps: int = 400) -> None:
    """Step the dealer until ``rounds`` more rounds are closed (the daemon alive throughout)."""
    want = len(t.dealer.closed) + rounds
    for _ in range(steps):
        if len(t.dealer.closed) >= want:
            return
        assert t.daemon.poll() is None, f"the daemon stopped (exit {t.daemon.returncode})"
        t.dealer.step()
    raise AssertionError(f"{rounds} rounds did not close in {steps} steps: {t.status()}")


def test_the_daemon_rolls_over_between_rounds_and_the_tools_read_across(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_JOURNAL_OPTIONS__SEGMENT_MAX_MB", SMALL)
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        t.start_daemon()
        t.open_table()
        play(t, 2)
        first = t.dealer.closed[0]
        sealed = segs.sealed(t.journal_path)
        assert sealed, "no segment sealed"
        code, _, err = tablectl("journal", "verify", "--full", "--config", str(t.config_path))
        assert code == 0, err
        # the first round is in a sealed segment, no longer in the open file
        with segs.Journal.read_only(t.journal_path) as open_file:
            assert open_file.events(first) == []
        code, out, err = tablectl("recall", "--round", first, "--json", "--config", str(t.config_path))
        assert code == 0, err
        assert json.loads(out)["game"] == "ultimate_texas_holdem"
        play(t, 1)  # the table plays on after the roll-overs
        t.daemon.terminate()
        assert t.daemon.wait(timeout=30) == 0


def test_a_daemon_killed_during_a_roll_over_finishes_it_at_start_and_plays_on(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_JOURNAL_OPTIONS__SEGMENT_MAX_MB", SMALL)
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        t.start_daemon()
        t.open_table()
        play(t, 1)
        t.daemon.terminate()
        assert t.daemon.wait(timeout=30) == 0
        # dies at the next roll-over with the copy sealed and the open file not yet begun after it
        monkeypatch.setenv("TABLECTL_TEST_SEGMENT_FAIL", "sealed")
        start(t)
        for _ in range(400):
            try:
                t.dealer.step()
            except DaemonGone:
                break
        assert t.daemon.wait(timeout=30) != 0  # killed inside the roll-over
        monkeypatch.delenv("TABLECTL_TEST_SEGMENT_FAIL")
        pending = segs.sealed(t.journal_path)[-1]
        with segs.Journal.read_only(t.journal_path) as open_file:  # the copy holds the open file's beginning
            assert next(open_file.iter_events()).seq == pending.first
        closed = list(t.dealer.closed)
        start(t)  # finishes the roll-over, and plays on
        with segs.Journal.read_only(t.journal_path) as open_file:
            assert next(open_file.iter_events()).seq == pending.last + 1
        play(t, 1)
        code, _, err = tablectl("journal", "verify", "--full", "--config", str(t.config_path))
        assert code == 0, err
        code, out, err = tablectl("recall", "--round", closed[-1], "--config", str(t.config_path))
        assert code == 0, err
        assert "round_closed" in out
        t.daemon.terminate()
        assert t.daemon.wait(timeout=30) == 0


class DaemonGone(Exception):
    pass


def start(t) -> None:
    """Start the daemon and wait until it published its status; the dealer stops waiting once it is gone."""
    before = t.status()
    t.start_daemon()
    plain = type(t.dealer).wait_change

    def wait_change(before, what, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if t.daemon.poll() is not None:
                raise DaemonGone(t.daemon.returncode)
            try:
                return plain(t.dealer, before, what, timeout=0.5)
            except TimeoutError:
                continue
        raise TimeoutError(f"the daemon did not take {what!r}")

    t.dealer.wait_change = wait_change
    t.dealer.wait_change(before, "start", timeout=60)

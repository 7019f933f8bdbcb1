"""The kill-point sweep in process, across the four games (issue: crash safety).

``KILLS_IN_PROCESS`` kill points per game (``make test``: 12, 48 in all; ``make soak``: 260 each);
``tests/kill_sweep.py`` says what a kill point is and what is checked after each.  Every violation
found is listed in the failure (and in ``$KILL_REPORT``), not only the first.
"""

from __future__ import annotations

import os
import random

import pytest

import controller.journal.store
from controller.journal.store import Journal
from daemon_harness import DaemonEnded, DaemonTask, meter_sum, phase, table_in_process
from games.registry import GAMES
from kill_sweep import Killer, report, sweep

KILLS_IN_PROCESS = int(os.environ.get("KILLS_IN_PROCESS", "12"))


@pytest.mark.parametrize("game", list(GAMES))
def test_kill_point_sweep_in_process(game, tmp_path, monkeypatch):
    rng = random.Random(f"{game}-in-process-{KILLS_IN_PROCESS}")  # the same kill points every run
    killer = Killer()
    monkeypatch.setattr(controller.journal.store, "_test_kill_point", killer.hook)
    with table_in_process(game, tmp_path, monkeypatch, seed=rng.randrange(1000)) as t:
        result = sweep(t, killer, rng, game, KILLS_IN_PROCESS)
    report(result.line())
    print(f"{game}: {result.kills} kill points in process ({dict(result.by_mode)}), "
          f"{result.rounds_closed} rounds closed, {result.unreached} armed points not reached, "
          f"{len(result.violations)} violations; killed at {dict(result.kinds)}")
    assert result.kills == KILLS_IN_PROCESS
    assert not result.violations, "\n".join(result.violations)
    assert result.rounds_closed > 0


def test_a_void_killed_before_its_contributions_were_taken_back_takes_them_back_before_it_closes(
        tmp_path, monkeypatch):
    """R7a: a voided round returns its progressive wagers and their contributions go back off the meters.
    The void and the take-back are two writes: killed between them (found by the sweep on HCF), the round
    used to close with the returned wagers' cents left on the meters.  Now it takes them back first."""
    killer = Killer()
    monkeypatch.setattr(controller.journal.store, "_test_kill_point", killer.hook)
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "a round opened")
        round_id = s["round"]["round_id"]
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}, "6": {"0": 1000, "1": 1000}})
        t.controls["progressive"]("wager", seat=6)
        t.press("no_more_bets")
        t.press("confirm")  # the chips counted (ch.8 §C(3)): the deal
        t.until(lambda s: phase(s) == "decisions", "the decisions")
        killer.arm(("kind", "voided", "after"), t.daemon.task)
        with pytest.raises(DaemonEnded):
            t.press("void_round", key=True)
        assert killer.fired and t.daemon.wait(30) in (DaemonTask.KILLED, -9)
        killer.arm(None, None)
        before = t.status()
        t.start_daemon()
        s = t.dealer.wait_change(before, "the restart")
        assert phase(s) == "voided"
        t.press("confirm")
    with Journal(t.journal_path) as j:
        events = j.events(round_id)
        assert events[-1].kind == "round_voided"
        added = meter_sum(events)
        assert added and all(v == 0 for v in added.values()), added  # R7a: taken back exactly, once


def test_a_press_made_while_no_daemon_listened_is_not_acted_on_and_the_next_one_is(tmp_path, monkeypatch):
    """P48: the dealer pressed no more bets while the daemon was down (killed, not yet restarted): the
    restarted daemon takes the panel's counts as it finds them -- the press is not replayed onto a table
    the dealer did not see -- the screen says where the round is, and the press made then is handled."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        round_id = t.until(lambda s: phase(s) == "wagers", "a round opened")["round"]["round_id"]
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
        t.daemon.kill()
        t.daemon.wait(30)
        t.controls["panel"]("press", button="no_more_bets")  # nobody listens
        before = t.status()
        t.start_daemon()
        s = t.dealer.wait_change(before, "the restart")
        assert phase(s) == "wagers" and s["presses_handled"] == 0
        assert s["next_action"]["button"] == "no_more_bets"
        with Journal(t.journal_path) as j:
            assert not [e for e in j.events(round_id) if e.kind == "no_more_bets"]
        s = t.press("no_more_bets")  # pressed again, once the screen shows the daemon back: taken
        assert phase(s) == "no_more_bets" and s["presses_handled"] == 1

"""Kill points: the daemon dies just before or just after a journal write, restarts on the same journal,
and play goes on with nothing lost, doubled, wedged or forged (issue: crash safety).

The kill is the journal's test-only hook (``TABLECTL_TEST_KILL_AT``, ``controller.journal.store``): the
daemon process ends with ``os._exit(137)`` as from SIGKILL, before or after its K-th write (or the
first write holding an event of a kind).  The simulators and the scripted dealer keep going across
the restarts, as a real table's devices and dealer would.

``KILLS`` sets how many kill points the sweep plays (``make test``: a sample; ``make soak``: more).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest

from controller.journal.store import KILL_AT_ENV, Journal
from controller.progressive import hits as prog
from controller.table import opening_steps
from daemon_harness import ROOT, phase, simulated_table
from demo.dealer import Dealer
from games.registry import GAMES
from kill_invariants import violations
from kill_sweep import report

KILLED = 137


class DaemonDied(Exception):
    pass


def _watch(t) -> None:
    """Make the dealer stop waiting as soon as the daemon is gone (not after its 30 s timeout)."""
    dealer = t.dealer
    plain = Dealer.wait_change

    def wait_change(before, what, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if t.daemon is not None and t.daemon.poll() is not None:
                raise DaemonDied(t.daemon.returncode)
            try:
                return plain(dealer, before, what, timeout=0.5)
            except TimeoutError:
                continue
        raise TimeoutError(f"the daemon did not take '{what}': {dealer.status()}")

    dealer.wait_change = wait_change


def start(t, monkeypatch, kill: str | None) -> None:
    if kill:
        monkeypatch.setenv(KILL_AT_ENV, kill)
    else:
        monkeypatch.delenv(KILL_AT_ENV, raising=False)
    before = t.status()
    with open(t.state_dir / "daemon.err", "ab") as err:  # the daemon's log, kept for a failure's message
        t.daemon = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(t.config_path)],
                                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, env=os.environ.copy())
    t.procs.append(t.daemon)
    monkeypatch.delenv(KILL_AT_ENV, raising=False)
    try:  # up (it published its status), or dead already (killed at one of its first writes)
        t.dealer.wait_change(before, "start", timeout=60)
    except DaemonDied:
        assert kill, "the daemon stopped at start"


def play_until_killed(t, steps: int = 400) -> int:
    for _ in range(steps):
        if t.daemon.poll() is not None:
            return t.daemon.returncode
        try:
            t.dealer.step()
        except DaemonDied:
            pass
    t.daemon.wait(timeout=30)
    return t.daemon.returncode


def check_invariants(t) -> None:
    """After a kill and a restart: every invariant of ``kill_invariants`` (the journal, the status, the
    progressive system's signs, lock-out, accepted flags and bet sensors)."""
    registers = t.controls["progressive"]("state")["state"] if "progressive" in t.controls else None
    found = violations(t.cfg, t.journal_path, t.status(), registers)
    assert not found, "\n".join(found)


def test_kill_point_hook_is_inert_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(KILL_AT_ENV, raising=False)
    with Journal(tmp_path / "j") as j:
        assert [j.append(None, "x", {}) for _ in range(3)] == [1, 2, 3]


def test_a_table_left_opening_with_no_step_left_opens_at_restart(tmp_path, monkeypatch):
    """Finding 1: a journal whose every opening step is done but whose ``table_opened`` never made it (a
    daemon killed between them, before they were one transaction): the restarted daemon opens the table
    and a round, and a press is handled -- it used to fail every press (``no open round``)."""
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        _watch(t)
        with Journal(t.journal_path) as j:
            for step in opening_steps(t.cfg):
                j.append(None, "step_done", {"step": step}, who="dealer")
        start(t, monkeypatch, None)
        s = t.until(lambda s: phase(s) == "wagers", "a round opened")
        assert s["state"] == "open"
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
        s = t.press("no_more_bets")
        assert phase(s) == "no_more_bets" and t.daemon.poll() is None
        with Journal(t.journal_path) as j:
            assert [e.kind for e in j.events(None)].count("table_opened") == 1


def test_the_last_opening_step_and_table_opened_are_one_write(tmp_path, monkeypatch):
    """Finding 1: killed just before the write that opens the table, the step is still to do."""
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        _watch(t)
        start(t, monkeypatch, "table_opened:before")
        assert play_until_killed(t) == KILLED
        with Journal(t.journal_path) as j:
            kinds = [e.kind for e in j.events(None)]
        assert "table_opened" not in kinds
        start(t, monkeypatch, None)
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "a round opened")
        assert s["state"] == "open"
        check_invariants(t)


def _bets_with_progressive(t) -> None:
    t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}, "6": {"0": 1000, "1": 1000}})
    t.controls["progressive"]("wager", seat=6)


def test_no_more_bets_and_its_contributions_are_one_write(tmp_path, monkeypatch):
    """Finding 2: killed just after the no more bets write, the round's contributions are on disk with it
    (they used to be the next write: a kill between them lost the cents the round was paid from, R4)."""
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        _watch(t)
        start(t, monkeypatch, None)
        t.open_table()
        t.until(lambda s: phase(s) == "wagers", "a round opened")
        t.daemon.terminate()
        t.daemon.wait(timeout=30)
        start(t, monkeypatch, "no_more_bets:after")
        t.until(lambda s: phase(s) == "wagers", "a round opened")
        _bets_with_progressive(t)
        t.controls["progressive"]("wager", seat=6)
        with pytest.raises(DaemonDied):
            t.press("no_more_bets")
        assert t.daemon.wait(timeout=30) == KILLED
        with Journal(t.journal_path) as j:
            events = j.events(j.open_round())
        assert [e.kind for e in events if e.kind in ("no_more_bets", "meter_add")] == ["no_more_bets", "meter_add"]
        start(t, monkeypatch, None)
        s = t.status()
        assert phase(s) == "no_more_bets" and s["round"]["seats"]["6"]["wagers"]["progressive"] == "1.00"
        state = t.controls["progressive"]("state")["state"]
        assert state["lockout"] and [n for n in range(1, 7) if state[f"accepted.{n}"]] == [6]
        check_invariants(t)


def test_accepted_flags_of_an_unjournaled_no_more_bets_are_returned_not_dropped(tmp_path, monkeypatch):
    """Finding 3: killed after the system locked out and accepted seat 6's wager, before no more bets was
    journaled: the journal says the round still takes wagers.  The restarted daemon journals the
    accepted flag as returned (an irregularity, P96), tells the dealer, and releases the lock-out -- it
    used to take it for the last round's reset and clear it silently."""
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        _watch(t)
        start(t, monkeypatch, "no_more_bets:before")
        t.open_table()
        round_id = t.until(lambda s: phase(s) == "wagers", "a round opened")["round"]["round_id"]
        _bets_with_progressive(t)
        with pytest.raises(DaemonDied):
            t.press("no_more_bets")
        assert t.daemon.wait(timeout=30) == KILLED
        state = t.controls["progressive"]("state")["state"]
        assert state["lockout"] and state["accepted.6"]
        start(t, monkeypatch, None)
        s = t.status()
        assert phase(s) == "wagers" and s["round"]["round_id"] == round_id
        with Journal(t.journal_path) as j:
            returned = [e.data for e in j.events(None) if e.kind == prog.ACCEPTED_RETURNED]
            assert not [e for e in j.events(round_id) if e.kind == "wager_placed"]  # all or nothing
        assert returned == [{"round": round_id, "seats": [6]}]
        assert s["notice_told"]["kind"] == "progressive_wager_returned" and s["notice_told"]["seats"] == [6]
        state = t.controls["progressive"]("state")["state"]
        assert not state["lockout"] and not state["accepted.6"]
        t.controls["progressive"]("wager", seat=6)  # the player wagers again
        s = t.press("no_more_bets")
        assert s["round"]["seats"]["6"]["wagers"]["progressive"] == "1.00"
        check_invariants(t)


def test_disk_full_at_no_more_bets_halts_and_the_table_goes_on_once_it_can_write(tmp_path, monkeypatch):
    """Finding 8: the no more bets write fails (disk full): no traceback, the daemon keeps running, the
    round stays where the journal is (no wager dealt that the journal does not have), the dealer is told;
    once the journal takes a write again the table recovers from it and play goes on (P97)."""
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        _watch(t)
        start(t, monkeypatch, "no_more_bets:before:full")
        t.open_table()
        round_id = t.until(lambda s: phase(s) == "wagers", "a round opened")["round"]["round_id"]
        _bets_with_progressive(t)
        s = t.press("no_more_bets")
        assert t.daemon.poll() is None
        assert phase(s) == "wagers", s["told"]
        assert (s["told"]["kind"], s["told"]["cause"]) == ("refused", "journal_fault"), s["told"]
        with Journal(t.journal_path) as j:
            assert not [e for e in j.events(round_id) if e.kind in ("wager_placed", "no_more_bets")]
        s = t.press("confirm")  # the next press finds the journal writable: the table recovers from it
        assert t.daemon.poll() is None and phase(s) == "wagers"
        with Journal(t.journal_path) as j:
            assert [e.kind for e in j.events(None)].count("journal_fault") == 1
        t.controls["progressive"]("wager", seat=6)
        s = t.press("no_more_bets")
        assert phase(s) == "no_more_bets" and s["round"]["seats"]["6"]["wagers"]["progressive"] == "1.00"
        check_invariants(t)


def test_an_unusable_journal_at_start_is_one_line(tmp_path):
    """Finding 8: a journal path that cannot be written: one line naming it and the problem, exit 2."""
    where = tmp_path / "a-directory.journal"
    where.mkdir()
    env = {**os.environ, "TABLE_JOURNAL": str(where), "TABLE_DEVICES__PANEL": "tcp://127.0.0.1:9"}
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config",
                        str(ROOT / "config" / "ultimate_texas_holdem.toml")],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and str(where) in lines[0]


KILLS = int(os.environ.get("KILLS", "1"))  # SIGKILL points per game: make test 1 (4 in all), make soak 10
SIGKILL_KINDS = ("no_more_bets", "card", "decision", "revealed", "settled", "round_closed")  # every round has them


# every game: a JHE round killed after its players' cards and before its last community card used to
# resume in its decisions and never get its river (tests/test_kill_resume.py; now a deal cut short, P34)
@pytest.mark.parametrize("game", list(GAMES))
def test_kill_point_sweep(game, tmp_path, monkeypatch):
    """The daemon process ends as by SIGKILL before or after a journal write of its life (the K-th, or the
    first of a kind), KILLS times, then a new process plays on: the invariants hold after every restart,
    every press after it is handled, and rounds keep closing.  The breadth is in process
    (tests/test_kill_sweep.py); these are whole processes, their sockets dropped by the kernel."""
    rng = random.Random(f"{game}-{KILLS}")  # the same kill points every run
    kills, found = 0, []
    with simulated_table(game, tmp_path, monkeypatch, seed=rng.randrange(1000), simulators="in_process") as t:
        _watch(t)
        while kills < KILLS:
            at = rng.randint(1, 40) if rng.random() < 0.6 else rng.choice(SIGKILL_KINDS)
            spec = f"{at}:{rng.choice(['before', 'after'])}"
            start(t, monkeypatch, spec)
            code = play_until_killed(t)
            assert code == KILLED, (spec, code, t.status())
            kills += 1
            start(t, monkeypatch, None)
            registers = t.controls["progressive"]("state")["state"] if "progressive" in t.controls else None
            seen = violations(t.cfg, t.journal_path, t.status(), registers)
            found += [f"SIGKILL {kills} ({spec}): {v}" for v in seen]
            for _ in range(rng.randint(0, 6)):  # every press after a restart is handled
                t.dealer.step()
                assert t.daemon.poll() is None
            t.daemon.terminate()
            assert t.daemon.wait(timeout=30) == 0
        start(t, monkeypatch, None)
        closed = len(t.dealer.closed)
        for _ in range(400):
            if len(t.dealer.closed) > closed:
                break
            t.dealer.step()
        assert len(t.dealer.closed) > closed and t.daemon.poll() is None
        check_invariants(t)
    report({"variant": "sigkill", "game": game, "kills": kills, "violations": found})
    print(f"{game}: {kills} SIGKILL points, {len(found)} violations")
    assert not found, "\n".join(found)

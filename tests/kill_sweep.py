"""The kill-point sweep in process: the daemon killed at journal writes across whole runs of a table.

One ``TableDaemon`` at a time runs in the in-process table (``daemon_harness.table_in_process``: the
simulators and the daemon in one event loop).  ``Killer`` stands in for the journal's test hook
(``controller.journal._test_kill_point``): armed, it raises ``KilledForTest`` just before or just after
a journal write -- the n-th from now, or the next one holding an event of a kind -- and the daemon
ends there, as a killed process would: its task is cancelled wherever the write was made from, and
its journal takes no write after that.  Also killed: during the recovery of the previous kill, and at
random moments between writes (the task cancelled while it waits on a device or a press).

After every kill a NEW daemon is built on the same journal and the same running devices, every
invariant of ``kill_invariants`` is checked, and play goes on: the scripted dealer of ``make run``
plays every press of the rounds (opening, wagers with progressive wagers, decisions, settlement, a
progressive win validated with the supervisor's key), now and then a card device is made to fail
(a card out face up, a jam: the remedies of ch.13, voids) and the floor supervisor voids a round.
Every press after a restart must be handled (a daemon that ends on one is a violation).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller.journal import Journal, KilledForTest
from daemon_harness import DaemonEnded, phase
from kill_invariants import violations

# kinds of journal write worth dying at (each: the next write holding one): the table's life, the
# round's facts, the progressive system's, the remedies'
KINDS = ("step_done", "table_opened", "deck_shuffled", "deck_dealt", "no_more_bets", "count_confirmed",
         "card", "decision", "revealed", "settled", "meter_paid", "progressive_hit", "round_closed",
         "voided", "round_voided", "meter_add", "card_discarded", "halted", "resumed", "deck_removed",
         "progressive_accepted_returned")
MAX_STEPS = 80  # dealer steps to reach an armed kill point before it is given up (not counted)


class Killer:
    """The journal's test kill point, armed by the sweep (``install`` puts it in place of the hook)."""

    def __init__(self) -> None:
        self.target: tuple[str, Any, str] | None = None  # ("count", n, when) or ("kind", kind, when)
        self.seen = 0  # writes since armed
        self.fired: str | None = None  # where it killed
        self.dead: set[int] = set()  # journals of killed daemons: they write nothing more
        self.task: asyncio.Task[Any] | None = None  # the daemon's task

    def arm(self, target: tuple[str, Any, str] | None, task: asyncio.Task[Any] | None) -> None:
        self.target, self.seen, self.fired, self.task = target, 0, None, task

    def hook(self, journal: Journal, when: str, kinds: list[str]) -> None:
        if id(journal) in self.dead:
            raise KilledForTest("a killed daemon writes nothing")
        if self.target is None:
            return
        how, what, at = self.target
        if when == "before":
            self.seen += 1
        hit = (self.seen == what) if how == "count" else (what in kinds)
        if not hit or when != at:
            return
        self.fired = f"{at} write {self.seen} ({', '.join(kinds)})"
        self.target = None
        self.dead.add(id(journal))
        if self.task is not None:  # dead wherever the write was made from (a poll task's listener too)
            asyncio.get_running_loop().call_soon(self.task.cancel)
        raise KilledForTest(self.fired)


@dataclass
class SweepResult:
    game: str
    kills: int = 0
    by_mode: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)  # the kinds of the writes killed at
    violations: list[str] = field(default_factory=list)
    rounds_closed: int = 0
    unreached: int = 0

    def line(self) -> dict[str, Any]:
        return {"variant": "in-process", "game": self.game, "kills": self.kills, "by_mode": dict(self.by_mode),
                "kinds": dict(self.kinds), "rounds_closed": self.rounds_closed, "unreached": self.unreached,
                "violations": self.violations}


def report(line: dict[str, Any]) -> None:
    """One sweep's figures, appended to ``$KILL_REPORT`` when set (``make soak`` prints their total)."""
    where = os.environ.get("KILL_REPORT")
    if where:
        with open(where, "a") as f:
            f.write(json.dumps(line) + "\n")


class Sweep:
    def __init__(self, t: Any, killer: Killer, rng: random.Random, game: str) -> None:
        self.t, self.killer, self.rng = t, killer, rng
        self.result = SweepResult(game)
        self._bets_for: str | None = None
        self._jammed: str | None = None  # the card device armed to jam
        self.settled_ok: set[str] = set()  # closed rounds already re-settled identically

    # -- the dealer's play, with the table's troubles --------------------------------------------

    def step(self) -> None:
        t, rng = self.t, self.rng
        s = t.status()
        if phase(s) == "decisions" and rng.random() < 0.01:
            t.dealer.with_key(s, "void_round")  # the floor supervisor voids the round (R7a)
            return
        t.dealer.step()
        if self._jammed is not None:  # the dealer clears a jam once the device has one (ch.13 §H-§I)
            state = t.controls[self._jammed]("state")
            if state.get("jammed") or state.get("jammed_at") is not None:
                t.controls[self._jammed]("clear")
                self._jammed = None
        if t.dealer.bets_for != self._bets_for:  # a new round's bets: now and then a card device fails
            self._bets_for = t.dealer.bets_for
            if self._jammed is None and rng.random() < 0.12:
                device = "shoe" if "shoe" in t.controls else "shuffler"
                fault = rng.choice(["face_up", "face_up", "jam"])
                t.controls[device]("fault", fault=fault, at=rng.randint(1, 8))
                self._jammed = device if fault == "jam" else None

    def play(self, steps: int) -> bool:
        """The dealer plays until the armed kill point kills the daemon (True) or ``steps`` are done."""
        for _ in range(steps):
            if self.killer.fired:
                break
            try:
                self.step()
            except DaemonEnded:
                break
        if self.killer.fired:
            self._bury()
            return True
        if self.t.daemon.poll() is not None:
            raise AssertionError(f"the daemon ended with no kill: exit {self.t.daemon.poll()}, "
                                 f"{self.t.daemon.exception()!r}; status: {self.t.status()}")
        return False

    def _bury(self) -> None:
        if self.t.daemon.poll() is None:
            self.t.daemon.kill()
        self.t.daemon.wait(30)

    # -- restarts ---------------------------------------------------------------------------------

    def start(self, target: tuple[str, Any, str] | None = None) -> bool:
        """A new daemon on the same journal and devices; False when an armed point killed it in its start."""
        t = self.t
        before = t.status()
        self.killer.arm(None, None)
        t.start_daemon()
        self.killer.arm(target, t.daemon.task)
        if t.daemon.poll() is not None or self.killer.fired:
            self._bury()
            return False
        try:
            t.dealer.wait_change(before, "the start")
        except DaemonEnded:
            pass
        if self.killer.fired:
            self._bury()
            return False
        assert t.daemon.poll() is None, f"the daemon ended at start: {t.daemon.exception()!r}"
        return True

    def check(self, where: str) -> None:
        t = self.t
        registers = t.controls["progressive"]("state")["state"] if "progressive" in t.controls else None
        found = violations(t.cfg, t.journal_path, t.status(), registers, self.settled_ok)
        self.result.violations += [f"{where}: {v}" for v in found]

    def kill_once(self) -> None:
        """Arm one kill point, play to it, restart, check, and play a few presses on the new daemon."""
        rng, r = self.rng, self.result
        mode = rng.choices(["count", "kind", "start", "between"], weights=[45, 35, 10, 10])[0]
        when = rng.choice(["before", "after"])
        if mode == "start":  # the previous kill's daemon is dead: this one dies in its recovery or soon after
            self._bury()
            if self.start(("count", rng.randint(1, 4), when)):
                if not self.play(MAX_STEPS):
                    self.killer.arm(None, None)
                    r.unreached += 1
                    return
        elif mode == "between":  # a moment between writes: the task cancelled where it waits
            for _ in range(rng.randint(1, 12)):
                self.step()
            self.t.daemon.kill()
            self.t.daemon.wait(30)
            self.killer.fired = "between writes"
        else:
            target = ("count", rng.randint(1, 40), when) if mode == "count" else ("kind", rng.choice(KINDS), when)
            self.killer.arm(target, self.t.daemon.task)
            if not self.play(MAX_STEPS):
                self.killer.arm(None, None)
                r.unreached += 1
                return
        fired = self.killer.fired or "?"
        r.kills += 1
        r.by_mode[mode] += 1
        r.kinds[fired.partition("(")[2].rstrip(")") or fired] += 1
        assert self.start()  # unarmed: this start is not killed
        self.check(f"kill {r.kills} ({mode}, {fired})")
        for _ in range(rng.randint(1, 4)):  # every press after a restart is handled (the dealer waits on it)
            try:
                self.step()
            except DaemonEnded as e:
                r.violations.append(f"kill {r.kills}: a press after the restart ended the daemon: {e}")
                self.start()
                return


def sweep(t: Any, killer: Killer, rng: random.Random, game: str, kills: int) -> SweepResult:
    """``kills`` kill points over one table's run; then a last round closes on a daemon never killed."""
    s = Sweep(t, killer, rng, game)
    assert s.start()
    while s.result.kills < kills:
        s.kill_once()
    closed = len(t.dealer.closed)
    for _ in range(400):
        if len(t.dealer.closed) > closed:
            break
        s.step()
    s.check("at the end")
    s.result.rounds_closed = len(t.dealer.closed)
    return s.result


__all__ = ["KINDS", "Killer", "Sweep", "SweepResult", "report", "sweep"]

"""The kill-point sweep in process: the daemon killed at journal writes across whole runs of a table.

One ``TableDaemon`` at a time runs in the in-process table (``daemon_harness.table_in_process``: the
simulators and the daemon in one event loop).  ``Killer`` stands in for the journal's test hook
(``controller.journal.store._test_kill_point``): armed, it raises ``KilledForTest`` just before or just after
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
import weakref
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller.journal.store import Journal, KilledForTest
from controller.service.deal import place_key
from controller.service.devices import PROCEDURES
from daemon_harness import DaemonEnded, phase
from games.dealing import Procedure, initial_deal, stacks, street_deal
from kill_invariants import Replayed, violations

# kinds of journal write worth dying at (each: the next write holding one): the table's life, the
# round's facts, the progressive system's, the remedies'
KINDS = ("step_done", "table_opened", "deck_shuffled", "deck_dealt", "no_more_bets", "count_confirmed",
         "card", "decision", "revealed", "settled", "meter_paid", "progressive_hit", "round_closed",
         "voided", "round_voided", "meter_add", "card_discarded", "halted", "resumed", "deck_removed",
         "progressive_accepted_returned")
MAX_STEPS = 80  # dealer steps to reach an armed kill point before it is given up (not counted)
ROYAL = ["Ad", "Kd", "Qd", "Jd", "Td"]  # a royal flush of diamonds: the top Progressive line of every game
WIN_EVERY = 6  # every so many rounds one player's Progressive hand is a royal flush (a meter hit)


def progressive_hand(game: Any, seat: int) -> list[str]:
    """The places of ``seat``'s Progressive hand, as the round's place strings (one per card): UTH and JHE
    the two cards and the first three community cards (R24a), HCF the first five of the seven cards,
    RET the two cards and the horizontal line of the cross (the 1st Run hand, R29)."""
    cross = {"run_em_twice": ["community:left", "community:center", "community:right"],
             "high_card_flush": []}.get(game.name, ["community:0", "community:1", "community:2"])
    return [f"seat:{seat}"] * (5 - len(cross)) + cross


def stacked_deck(cfg: Any, seat: int, rng: random.Random) -> list[str]:
    """A deck that deals ``seat``, the only player, a royal flush in its Progressive hand: the places of
    the deal in this table's order (games.dealing: the stacks of ch.10 §B, or card by card and the
    streets of ch.8-ch.9), the royal at the hand's places, the other cards shuffled."""
    game = cfg.game_rules
    procedure = PROCEDURES[cfg.dealing.procedure]
    if procedure is Procedure.AUTOMATED:
        held = cfg.dealing.dealer_cards == "in_shuffler"
        places = [p for st in stacks(game, [seat], dealer_in_shuffler=held) for p in st.places]
    else:
        places = initial_deal(game, procedure, [seat])
        places += [p for k in range(1, len(game.streets) + 1) for p in street_deal(game, procedure, k)]
    wanted = Counter(progressive_hand(game, seat))
    royal = list(ROYAL)
    rest = [f"{r}{su}" for su in "shdc" for r in "AKQJT98765432" if f"{r}{su}" not in ROYAL]
    rng.shuffle(rest)
    deck = []
    for place in places:
        key = place_key(place)
        if wanted[key] and royal:
            wanted[key] -= 1
            deck.append(royal.pop(0))
        else:
            deck.append(rest.pop())
    return deck + royal + rest


class Killer:
    """The journal's test kill point, armed by the sweep (``install`` puts it in place of the hook)."""

    def __init__(self) -> None:
        self.target: tuple[str, Any, str] | None = None  # ("count", n, when) or ("kind", kind, when)
        self.seen = 0  # writes since armed
        self.fired: str | None = None  # where it killed
        # journals of killed daemons: they write nothing more.  Held weakly, not by id(): a killed daemon's
        # journal, freed once its tasks are gone, may leave its id to the next daemon's journal
        self.dead: weakref.WeakSet[Journal] = weakref.WeakSet()
        self.task: asyncio.Task[Any] | None = None  # the daemon's task

    def arm(self, target: tuple[str, Any, str] | None, task: asyncio.Task[Any] | None) -> None:
        self.target, self.seen, self.fired, self.task = target, 0, None, task

    def hook(self, journal: Journal, when: str, kinds: list[str]) -> None:
        if journal in self.dead:
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
        self.dead.add(journal)
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
    stacked: int = 0  # rounds dealt a royal to a Progressive wager

    def line(self) -> dict[str, Any]:
        return {"variant": "in-process", "game": self.game, "kills": self.kills, "by_mode": dict(self.by_mode),
                "kinds": dict(self.kinds), "rounds_closed": self.rounds_closed, "unreached": self.unreached,
                "stacked": self.stacked,
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
        self.replayed = Replayed()  # the journal's meter events the checks replayed so far
        self._rounds = 0  # rounds whose bets were placed
        self._win_seat: int | None = None  # the seat the next shuffle's stacked deck deals a royal to

    # -- the dealer's play, with the table's troubles --------------------------------------------

    def _winner(self, s: dict[str, Any]) -> bool:
        """Every WIN_EVERY rounds one seat plays alone on a stacked deck, its Progressive hand a royal
        (its bets placed here, not by the dealer); for the shuffler, the deck is set for its next shuffle
        one round ahead.  True when this step placed the bets."""
        t, rng = self.t, self.rng
        if phase(s) != "wagers" or t.dealer.bets_for == s["round"]["round_id"]:
            return False
        self._rounds += 1
        if self._rounds % WIN_EVERY == WIN_EVERY - 1 and "shuffler" in t.controls and "shoe" not in t.controls:
            self._win_seat = rng.randint(1, t.cfg.seats)  # the next shuffle's deck: the next round's
            t.controls["shuffler"]("set_deck", cards=stacked_deck(t.cfg, self._win_seat, rng))
            return False
        if self._rounds % WIN_EVERY:
            return False
        seat = self._win_seat or rng.randint(1, t.cfg.seats)
        self._win_seat = None
        if "shoe" in t.controls:
            t.controls["shoe"]("load", cards=stacked_deck(t.cfg, seat, rng))
        low, _ = t.cfg.limits(t.cfg.game_rules.antes[0])
        areas = [w for w in t.cfg.game_rules.wagers if w != "progressive"]
        t.controls["progressive"]("set_bets", bets={str(seat): {str(areas.index(a)): int(low * 100)
                                                                 for a in t.cfg.game_rules.antes}})
        t.controls["progressive"]("wager", seat=seat)
        t.dealer.bets_for = s["round"]["round_id"]
        self.result.stacked += 1
        return True

    def step(self) -> None:
        t, rng = self.t, self.rng
        s = t.status()
        if self._winner(s):
            return
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
        found = violations(t.cfg, t.journal_path, t.status(), registers, self.settled_ok, self.replayed)
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

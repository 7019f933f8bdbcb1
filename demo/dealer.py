"""The demo's dealer: a simulated person who looks at the table and does the next thing.

It reads the daemon's public status file (the view a table display gets, no hidden card in it) and
works the simulated panel, bet sensors and progressive wagering devices through their simulators'
control ports, exactly as a dealer and players would.  Used by ``make run`` and by the tests.

By default it acts as soon as the daemon has taken its last action (the tests, the benchmarks).  ``make run``
gives it a ``Pace`` (``TABLE_PACE``): seats place their bets one by one and each action waits as a person
would, so that a newcomer watching the dealer's screen can follow a round (one every 10-20 s).
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config.table import TableConfig
from simulators.control import ControlClient

Status = dict[str, Any]  # the daemon's published status (JSON), or a simulator's reply

# the floor supervisor whose key the simulated panel turns: on the example tables' allow-lists (P93)
SUPERVISOR_ID = 4711
PLAYERS = ("random", "informed")  # ``--player``: how the seats bet (``Dealer.place_bets``)
INFORMED_SEAT = 3  # the informed player's seat (``--player informed``)


@dataclass(frozen=True)
class Pace:
    """How fast a person plays: a round lasts ``round_s`` (drawn for each round, from the close of the last one
    to the close of this one), the paying and collecting of a settled round at least ``pay_s`` of it, and each
    other action waits its share of what is left, within ``action_s``: the round's time is shared anew at each
    action (a slow deal leaves the decisions less), and a round of few actions waits its time at the payment."""

    round_s: tuple[float, float] = (10.0, 20.0)
    action_s: tuple[float, float] = (0.3, 2.0)
    pay_s: float = 3.0

    def wait(self, left_s: float, actions_left: int) -> float:
        """One action's wait: the time left before the payment shared among the actions left, within bounds."""
        low, high = self.action_s
        return min(max((left_s - self.pay_s) / max(actions_left, 1), low), high)


TABLE_PACE = Pace()  # ``make run`` (``--pace table``); ``FAST=1 make run`` and the tests: no pace


class Control:
    """A simulator the demo started: where its device listens (``url``, for the daemon's configuration)
    and its control port, spoken through the one control client of ``simulators.control``: a reply's
    fields, or ``ControlError`` when the simulator refuses or does not answer."""

    def __init__(self, url: str, control_url: str) -> None:
        self.url = url
        self.control_url = control_url
        self.client = ControlClient(control_url)

    def __call__(self, cmd: str, **args: Any) -> Status:
        return self.client(cmd, **args)


class Dealer:
    """A dealer who looks at the table (the daemon's public status) and does the next thing.

    Each ``step()`` reads the status, acts once (a button, a card drawn, the
    bets of a new round) and waits until the daemon has taken it.  Being
    driven by the status and not by a script, the dealer carries on after the
    daemon restarts in the middle of a round.
    """

    def __init__(self, cfg: TableConfig, status_path: Path, controls: Mapping[str, Callable[..., Status]],
                 rng: random.Random, pace: Pace | None = None, player: str = "random") -> None:
        self.cfg, self.status_path, self.rng = cfg, status_path, rng
        self.player = player  # "informed": seat INFORMED_SEAT knows the order (``informed_trips``)
        self.shuffler = controls.get("shuffler")
        self.panel, self.progressive, self.shoe = controls["panel"], controls.get("progressive"), controls.get("shoe")
        self.game = cfg.game_rules
        self.areas = [w for w in self.game.wagers if w != "progressive"]
        self.bets_for: str | None = None  # the round whose bets are on the layout
        self.closed: list[str] = []  # rounds the dealer confirmed
        self._drawn_for: str | None = None  # the card request (status ``card_request``) already drawn
        self.pace = pace
        # the round's time (``Pace``): when it began (the last round's close), when it ends, the actions left
        self._round_began = self._round_ends = 0.0
        self._actions_left = 0

    def pause(self, actions: int = 1) -> None:
        """A person's moment before the next action (``Pace``), ``actions`` of the round's estimate taken; a
        card drawn from the shoe (0 actions: the device's pace) waits the least.  None without a pace."""
        if self.pace is None:
            return
        if not actions:
            time.sleep(self.pace.action_s[0])
            return
        time.sleep(self.pace.wait(self._round_ends - time.monotonic(), self._actions_left))
        self._actions_left = max(self._actions_left - actions, 0)

    def pause_for_payment(self) -> None:
        """The dealer pays and collects: at least ``Pace.pay_s``, and until the round has had its time."""
        if self.pace is not None:
            time.sleep(max(self.pace.pay_s, self._round_ends - time.monotonic()))

    def status(self) -> Status:
        try:
            status: Status = json.loads(self.status_path.read_text())
            return status
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def next_status(self, s: Status, timeout: float) -> None:
        """Wait (at most ``timeout``) for the daemon to publish a status after ``s``.  Here the file is
        looked at every 20 ms (a demo watching a file); a test's dealer waits on the publish itself."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(min(0.02, max(deadline - time.monotonic(), 0)))
            if self.status().get("updated") != s.get("updated"):
                return

    def wait_change(self, before: Status, what: str, timeout: float = 30.0) -> Status:
        """Wait until the daemon publishes a new status (drawing cards from the shoe when it asks)."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.status()
            if s and s.get("updated") != before.get("updated"):
                return s
            self.draw_requested(s)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the daemon did not take '{what}' in {timeout:.0f} s; status: {self.status()}")
            self.next_status(s, left)

    def draw_requested(self, s: Status) -> None:
        """Draw from the shoe exactly the cards the daemon asks for, once per request: a status republished
        while the cards are on their way (a heartbeat) repeats the request and is not drawn again."""
        request = s.get("card_request")
        if s.get("expecting_cards") and self.shoe is not None and request != self._drawn_for:
            self._drawn_for = request
            self.pause(0)
            self.shoe("draw", n=s["expecting_cards"])

    def press(self, s: Status, button: str) -> Status:
        """Press ``button`` and return the status once the daemon has taken the press (not merely
        a status published meanwhile, e.g. for a device's health)."""
        before = self.status().get("presses_handled", 0) if "presses_handled" in s else None
        self.panel("press", button=button)
        s = self.wait_change(s, button)
        if before is None:
            return s
        deadline = time.monotonic() + 30.0
        while s.get("presses_handled", 0) <= before:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the daemon did not take '{button}' in 30 s; status: {s}")
            s = self.wait_change(s, button)
        return s

    @staticmethod
    def phase(s: Status) -> str | None:
        return (s.get("round") or {}).get("phase")

    def step(self) -> None:
        s = self.status()
        if not s:
            self.next_status(s, 0.05)  # the daemon has not published yet (a caller may look at its process)
            return
        if s.get("expecting_cards") and self.shoe is not None:
            self.draw_requested(s)
            self.wait_change(s, "the cards")
        elif s.get("next_step"):
            self.table_step(s)
        elif self.phase(s) == "wagers":
            if self.bets_for != s["round"]["round_id"]:
                self.place_bets(s)
            else:
                self.pause()
                self.press(s, "no_more_bets")
        elif self.phase(s) in ("no_more_bets", "reveal"):
            self.pause()
            self.press(s, "confirm")
        elif self.phase(s) == "decisions":
            to_act = s["round"]["to_act"]
            options = [f"bet_{m}x" for m in to_act["multiples"]]
            options += ["check"] * 2 if to_act["check"] else []
            options += ["fold"] if to_act["fold"] else []
            choice = self.rng.choice(options)
            self.pause()
            self.press(s, choice)
        elif self.phase(s) == "settled" and s.get("validation"):
            print(f"progressive win: the floor supervisor validates ({len(s['validation'])} hit(s))", flush=True)
            self.pause()
            self.with_key(s, "confirm")  # the floorperson validates (UTH ch.11 §J(2)(c))
        elif self.phase(s) in ("settled", "voided"):
            self.pause_for_payment()
            if self.progressive is not None:
                self.progressive("set_bets", bets={})  # paid and collected: the layout is cleared
            round_id = s["round"]["round_id"]
            after = self.press(s, "confirm")
            self._round_began = time.monotonic()  # the next round's time begins (its shuffle and cut included)
            if self.phase(after) != self.phase(s) or (after.get("round") or {}).get("round_id") != round_id:
                self.closed.append(round_id)
        elif self.phase(s) == "halted":
            print(f"halted: {s.get('message')} -- the supervisor voids the round", flush=True)
            self.pause()
            self.with_key(s, "void_round")
        else:
            self.next_status(s, 0.05)  # the daemon is at work (a deal, a shuffle): nothing to do until it says

    def with_key(self, s: Status, button: str) -> Status:
        self.panel("key", on=True, supervisor=SUPERVISOR_ID)
        try:
            return self.press(s, button)
        finally:
            self.panel("key", on=False)

    def table_step(self, s: Status) -> None:
        step = s["next_step"]
        print(f"opening: {step['step']} ({step['clause']})", flush=True)
        self.pause()
        if step["key"]:
            self.with_key(s, step["button"])
        else:
            self.press(s, step["button"])

    def place_bets(self, s: Status) -> None:
        round_id = s["round"]["round_id"]
        if self.shoe is not None:  # a freshly shuffled deck in the shoe for every round (UTH ch.5 §A(2))
            self.shoe("load", seed=self.rng.randrange(2**31))
        informed = self.player == "informed"
        if informed:  # every seat taken: the stacks, and so the informed seat's cards, follow from the order alone
            seats = list(range(1, self.cfg.seats + 1))
        else:
            seats = sorted(self.rng.sample(range(1, self.cfg.seats + 1), self.rng.randint(1, self.cfg.seats)))
        bets: dict[str, dict[str, int]] = {}
        for seat in seats:
            low, _ = self.cfg.limits(self.game.antes[0])
            ante = int(self.rng.choice([low, low * 2, low * 5]) * 100)
            areas = {str(self.areas.index(a)): ante for a in self.game.antes}
            if informed and seat == INFORMED_SEAT:
                trips = self.informed_trips(seats)
                if trips:
                    areas[str(self.areas.index("trips"))] = trips
                bets[str(seat)] = areas
                continue
            for w in self.cfg.wagers:
                if w not in self.game.antes and self.rng.random() < 0.3:
                    if w == "six_card_bonus" and str(self.areas.index("trips")) not in areas:
                        continue  # R21b
                    areas[str(self.areas.index(w))] = int(self.cfg.limits(w)[0] * 100)
            bets[str(seat)] = areas
        if self.pace is not None:
            self._begin_round(len(seats))
        if self.progressive is not None:
            if self.pace is None:
                self.progressive("set_bets", bets=bets)
            else:  # the players place their chips one after another
                for seat in seats:
                    self.pause()
                    self.progressive("set_bets", bets={n: bets[n] for n in bets if int(n) <= seat})
            if self.cfg.progressive.enabled:
                for seat in seats:
                    if self.rng.random() < 0.6:
                        self.progressive("wager", seat=seat)
        self.bets_for = round_id
        print(f"round {round_id}: players at seats {seats}", flush=True)

    def informed_trips(self, seats: list[int]) -> int:
        """The informed player's Trips in cents: the largest allowed when the deck in play, read through the
        simulated shuffler (``peek``: the leak of a shuffler's camera, Black Hat 2023), gives its seat a paid line,
        else none (issue 28: ``simulators.players``; the order unknown, none either)."""
        from games.cards import parse_cards
        from games.dealing import stacks
        from simulators.players import side_result

        if self.shuffler is None:
            return 0
        deck = self.shuffler("peek")
        if deck.get("position") != 0 or not deck.get("cards"):
            return 0  # not a fresh deck: the order of what is left is not this round's
        places = [p for st in stacks(self.game, seats, self.cfg.dealing.dealer_cards == "in_shuffler")
                  for p in st.places]
        at = dict(zip(places, parse_cards(deck["cards"]), strict=False))
        hole = [at[("seat", INFORMED_SEAT, i)] for i in range(self.game.hole_cards)]
        board = [at[p] for p in places if p[0] == "community"]
        largest = self.cfg.limits("trips")[1]
        net, line = side_result(hole, board, largest, self.cfg.paytable_letters().get("trips", "A"))
        if line is None:
            return 0
        print(f"informed player at seat {INFORMED_SEAT}: Trips of {largest} (it knows the order)", flush=True)
        return int(largest * 100)

    def _begin_round(self, seats: int) -> None:
        """The round's time (``Pace``), drawn now, from the last round's close (the first: from now), and the
        actions it takes at most: each seat's bets and decisions, no more bets, the count, a validation."""
        assert self.pace is not None
        self._round_began = self._round_began or time.monotonic()
        # the global generator, not the dealer's: the same seats and bets with a pace as without one
        self._round_ends = self._round_began + random.uniform(*self.pace.round_s)
        self._actions_left = seats * (1 + len(self.game.streets)) + 3

    def play(self, rounds: int, daemon: subprocess.Popen[str] | None = None) -> int:
        """Play until ``rounds`` rounds are closed (0: forever)."""
        while not rounds or len(self.closed) < rounds:
            if daemon is not None and daemon.poll() is not None:
                raise SystemExit(f"demo: the daemon stopped (exit {daemon.returncode})")
            self.step()
        return len(self.closed)

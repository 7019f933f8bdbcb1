"""The demo's dealer: a simulated person who looks at the table and does the next thing.

It reads the daemon's public status file (the view a table display gets, no hidden card in it) and
works the simulated panel, bet sensors and progressive wagering devices through their simulators'
control ports, exactly as a dealer and players would.  Used by ``make run`` and by the tests.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from controller.config.table import TableConfig
from simulators.control import ControlClient

Status = dict[str, Any]  # the daemon's published status (JSON), or a simulator's reply

# the floor supervisor whose key the simulated panel turns: on the example tables' allow-lists (P93)
SUPERVISOR_ID = 4711


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
                 rng: random.Random) -> None:
        self.cfg, self.status_path, self.rng = cfg, status_path, rng
        self.panel, self.progressive, self.shoe = controls["panel"], controls.get("progressive"), controls.get("shoe")
        self.game = cfg.game_rules
        self.areas = [w for w in self.game.wagers if w != "progressive"]
        self.bets_for: str | None = None  # the round whose bets are on the layout
        self.closed: list[str] = []  # rounds the dealer confirmed
        self._drawn_for: str | None = None  # the card request (status ``card_request``) already drawn

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
                self.press(s, "no_more_bets")
        elif self.phase(s) in ("no_more_bets", "reveal"):
            self.press(s, "confirm")
        elif self.phase(s) == "decisions":
            to_act = s["round"]["to_act"]
            options = [f"bet_{m}x" for m in to_act["multiples"]]
            options += ["check"] * 2 if to_act["check"] else []
            options += ["fold"] if to_act["fold"] else []
            self.press(s, self.rng.choice(options))
        elif self.phase(s) == "settled" and s.get("validation"):
            print(f"progressive win: the floor supervisor validates ({len(s['validation'])} hit(s))", flush=True)
            self.with_key(s, "confirm")  # the floorperson validates (UTH ch.11 §J(2)(c))
        elif self.phase(s) in ("settled", "voided"):
            if self.progressive is not None:
                self.progressive("set_bets", bets={})  # paid and collected: the layout is cleared
            round_id = s["round"]["round_id"]
            after = self.press(s, "confirm")
            if self.phase(after) != self.phase(s) or (after.get("round") or {}).get("round_id") != round_id:
                self.closed.append(round_id)
        elif self.phase(s) == "halted":
            print(f"halted: {s.get('message')} -- the supervisor voids the round", flush=True)
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
        if step["key"]:
            self.with_key(s, step["button"])
        else:
            self.press(s, step["button"])

    def place_bets(self, s: Status) -> None:
        round_id = s["round"]["round_id"]
        if self.shoe is not None:  # a freshly shuffled deck in the shoe for every round (UTH ch.5 §A(2))
            self.shoe("load", seed=self.rng.randrange(2**31))
        seats = sorted(self.rng.sample(range(1, self.cfg.seats + 1), self.rng.randint(1, self.cfg.seats)))
        bets: dict[str, dict[str, int]] = {}
        for seat in seats:
            low, _ = self.cfg.limits(self.game.antes[0])
            ante = int(self.rng.choice([low, low * 2, low * 5]) * 100)
            areas = {str(self.areas.index(a)): ante for a in self.game.antes}
            for w in self.cfg.wagers:
                if w not in self.game.antes and self.rng.random() < 0.3:
                    if w == "six_card_bonus" and str(self.areas.index("trips")) not in areas:
                        continue  # R21b
                    areas[str(self.areas.index(w))] = int(self.cfg.limits(w)[0] * 100)
            bets[str(seat)] = areas
        if self.progressive is not None:
            self.progressive("set_bets", bets=bets)
            if self.cfg.progressive.enabled:
                for seat in seats:
                    if self.rng.random() < 0.6:
                        self.progressive("wager", seat=seat)
        self.bets_for = round_id
        print(f"round {round_id}: players at seats {seats}", flush=True)

    def play(self, rounds: int, daemon: subprocess.Popen[str] | None = None) -> int:
        """Play until ``rounds`` rounds are closed (0: forever)."""
        while not rounds or len(self.closed) < rounds:
            if daemon is not None and daemon.poll() is not None:
                raise SystemExit(f"demo: the daemon stopped (exit {daemon.returncode})")
            self.step()
        return len(self.closed)

"""The daemon's own statuses at every screen a dealer sees, for the screen's tests and ``make screens``.

    for name, s in corpus("ultimate_texas_holdem"): ...          # [(name, status)], cached per process
    with DealerScreen(tmp_path) as screen: screen.show(page, s)   # the dealer's page showing status s

``corpus(game)`` plays the game's example table (every wager the game has) in process
(``daemon_harness.table_in_process``) with six seats all playing, every wager on every seat and the
Progressive lit at each, the cards chosen (seat 1 makes the Progressive's top line and wins, seat 2
folds), and keeps what the daemon published at each moment named in ``NAMES``: a round's phases, then
an irregularity reported on the panel, a round halted, a card device that stops answering.  The
statuses are the daemon's (its publish, as written to its status file), never made by hand.  One
daemon per game, about a second of CPU; the cards and the presses are fixed, so every run gives the
same rounds (only the times and round ids differ).

``DealerScreen`` serves statuses to a real dealer's page: it writes each to a status file beside a
journal path and runs ``tablectl web`` on it (as a table PC does), keeping the daemon's heartbeat
fresh unless told the daemon has stopped.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pytest

from controller import paths
from controller.config.table import TableConfig
from daemon_harness import ROOT, InProcessTable, at_rest, confirm, next_round, phase, play_out, table_in_process
from games.cards import DECK
from games.dealing import Procedure, initial_deal, stacks
from games.game import Game
from web_harness import addresses, floor_accounts

if TYPE_CHECKING:
    from playwright.sync_api import Page

Status = dict[str, Any]

#: every moment the corpus keeps, in the order played (``GAME_NAMES``: those of some games only)
NAMES = (
    "wagers",  # the round open for wagers (the bet sensors are read at no more bets: no seat on it yet)
    "no_more_bets",  # six seats' wagers read, the Progressive lit at each; the dealer counts the chips
    "dealing",  # (a shoe's tables) the daemon waits for the cards it asked of the shoe
    "decisions",  # the first decision: seat 1 to act, every seat still in
    "decisions_folded",  # a later street: seat 2 folded, several seats still to act
    "reveal",  # (UTH: the dealer's cards held in the shuffler, UTH ch.10 §B(4)) every player has acted
    "settled_held",  # settled, a Progressive win held for the floor supervisor (UTH ch.11 §J(2)(c))
    "settled",  # validated: the dealer pays and collects
    "complete",  # the round confirmed: the daemon's next status (see ``complete``)
    "irregularity_menu",  # the dealer opened the irregularity menu (P41)
    "irregularity_chosen",  # the irregularity picked: the supervisor's key confirms it
    "irregularity_remedied",  # the remedy applied (the round voided, what the clause keeps alive settled)
    "halted",  # the Progressive chips do not match the wagers accepted (UTH ch.8 §C(3)): the supervisor
    "device_offline",  # the card device stopped answering while dealing (UTH: before the dealer's stack)
)
#: the moments only some tables have: a shoe's deal waits for its cards; the dealer's cards held in the
#: shuffler until every player has acted (a halted reveal resumed, the daemon's only resting reveal)
GAME_NAMES = {"dealing": ("high_card_flush", "run_em_twice"), "reveal": ("ultimate_texas_holdem",)}
#: The round's phase ``complete`` is never published: confirming the settlement closes the round and opens
#: the next (or asks for the shuffle) in the same press.  ``complete`` is the status that press published.
ROUND_PHASES = ("wagers", "no_more_bets", "dealing", "decisions", "reveal", "settled")

#: the cards each game's seat 1 is dealt to make the Progressive's top line (tests/test_progressive_each_game.py)
TOP_LINE: dict[str, dict[tuple[Any, ...], str]] = {
    "ultimate_texas_holdem": {  # a royal flush in spades; the dealer's pair of eights qualifies (UTH ch.11 §H(2))
        ("seat", 1, 0): "As", ("seat", 1, 1): "Ks", ("community", 0): "Ts", ("community", 1): "Js",
        ("community", 2): "Qs", ("community", 3): "7d", ("community", 4): "2d", ("dealer", 0): "8h",
        ("dealer", 1): "8d"},
    "jackpot_holdem": {  # a royal flush of diamonds (JHE ch.12 §D(6)(a))
        ("seat", 1, 0): "Ad", ("seat", 1, 1): "Kd", ("community", 0): "Qd", ("community", 1): "Jd",
        ("community", 2): "Td", ("community", 3): "2s", ("community", 4): "3c", ("dealer", 0): "7h",
        ("dealer", 1): "7c"},
    "high_card_flush": {  # a seven-card straight flush (HCF ch.12 §E(1)(d)(i))
        **{("seat", 1, i): c for i, c in enumerate(["2h", "3h", "4h", "5h", "6h", "7h", "8h"])},
        **{("dealer", i): c for i, c in enumerate(["2c", "5d", "9s", "Jc", "Kd", "4s", "7d"])}},
    "run_em_twice": {  # a royal flush (RET ch.12 §F(4)(a))
        ("seat", 1, 0): "As", ("seat", 1, 1): "Ks", ("community", "left"): "Qs", ("community", "center"): "Js",
        ("community", "right"): "Ts", ("community", "top"): "2d", ("community", "bottom"): "3c"},
}
#: the wagers a game has that its example table does not offer, with their limits (every wager on screen)
EXTRA_WAGERS = {"ultimate_texas_holdem": '\n[wagers.bad_beat]\npaytable = "A"\nmin = 5\nmax = 100\n'}
SEATS = (1, 2, 3, 4, 5, 6)
WINNER, FOLDS = 1, 2
CARD_DEVICE = {"shuffler": "shuffler", "automated_shoe": "shoe", "manual_shoe": "shoe", "hand": "shuffler"}


def config_file(game: str, directory: Path) -> Path:
    """The example table of ``game`` (config/) with every wager the game has: written into ``directory``."""
    text = (ROOT / "config" / f"{game}.toml").read_text()
    extra = EXTRA_WAGERS.get(game, "")
    if extra:
        text = text.replace("\n[progressive]\n", f"{extra}\n[progressive]\n", 1)
    path = directory / f"{game}.toml"
    path.write_text(text)
    return path


def deck(game: Game, cfg: TableConfig) -> list[str]:
    """The deck that deals ``TOP_LINE`` to its places with six seats, in the order the table deals."""
    wanted = TOP_LINE[game.name]
    procedure = cfg.dealing.procedure
    if procedure in ("shuffler", "automated_shoe"):
        places = [p for stack in stacks(game, SEATS, cfg.dealing.dealer_cards == "in_shuffler") for p in stack.places]
    else:
        places = list(initial_deal(game, Procedure(procedure), SEATS))
    rest = [c.text for c in DECK if c.text not in wanted.values()]
    return [wanted[p] if p in wanted else rest.pop(0) for p in places] + rest


def bets(t: InProcessTable, seats: tuple[int, ...]) -> dict[str, dict[str, int]]:
    """Every wager of the table at each of ``seats``, in cents by bet-sensor area: the Ante (and every wager
    equal to it) at the table's maximum at the winner's seat and at a multiple of the minimum elsewhere, the
    other wagers at their minimum (a seat's amounts differ, and the winner's reach thousands)."""
    game = t.cfg.game_rules
    areas = [w for w in game.wagers if w != "progressive"]  # bet-sensor area i = wager i
    low, high = t.cfg.limits(game.antes[0])
    out: dict[str, dict[str, int]] = {}
    for seat in seats:
        ante = high if seat == WINNER else min(low * seat, high)
        out[str(seat)] = {str(areas.index(w)): int((ante if w in game.antes else t.cfg.limits(w)[0]) * 100)
                          for w in t.cfg.wagers}
    return out


class Recorder:
    """Every status the daemon publishes, in order (the table's loop publishes, the test's thread reads)."""

    def __init__(self, t: InProcessTable) -> None:
        assert t.published is not None
        self.statuses: list[Status] = []
        publish = t.published.publish

        def record(text: str) -> None:
            publish(text)
            self.statuses.append(json.loads(text))

        t.published.publish = record  # type: ignore[method-assign]

    def first(self, since: int, predicate: Callable[[Status], bool], what: str) -> Status:
        for s in self.statuses[since:]:
            if predicate(s):
                return s
        raise AssertionError(f"the daemon published no status with {what}")


def _decision(s: Status) -> str:
    """Seat 1 bets the most it may (it wins), seat 2 folds when it may, the others check or bet the least."""
    to_act = s["round"]["to_act"]
    if to_act["seat"] == WINNER and to_act["multiples"]:
        return f"bet_{max(to_act['multiples'])}x"
    if to_act["seat"] == FOLDS and to_act["fold"]:
        return "fold"
    if to_act["check"]:
        return "check"
    return f"bet_{min(to_act['multiples'])}x" if to_act["multiples"] else "fold"


def _folded(s: Status) -> bool:
    r = s.get("round") or {}
    return (phase(s) == "decisions" and r.get("to_act") is not None
            and any(v.get("folded") for v in r["seats"].values()))


def _main_round(t: InProcessTable, rec: Recorder, out: list[tuple[str, Status]], cards: list[str]) -> str:
    """Six seats, every wager, the chosen cards: the round's phases, the win held, paid, the round closed."""
    s = t.until(lambda s: phase(s) == "wagers", "the first round")
    out.append(("wagers", s))
    round_id: str = s["round"]["round_id"]
    if "shoe" in t.controls:
        t.controls["shoe"]("load", cards=cards)
    t.controls["progressive"]("set_bets", bets=bets(t, SEATS))
    for seat in SEATS:
        assert t.controls["progressive"]("wager", seat=seat)["accepted"]
    t.dealer.bets_for = round_id
    out.append(("no_more_bets", t.press("no_more_bets")))
    since = len(rec.statuses)
    t.press("confirm")  # the chips counted: the deal
    s = t.until(lambda s: at_rest(s) and phase(s) == "decisions", "the decisions")
    if "shoe" in t.controls:
        out.append(("dealing", rec.first(since, lambda s: phase(s) == "dealing" and s["expecting_cards"],
                                         "the deal waiting for the shoe's cards")))
    out.append(("decisions", s))
    while phase(s) == "decisions":
        s = t.press(_decision(s))
        s = t.until(lambda s: at_rest(s) or phase(s) != "decisions", "the next decision")
    out.append(("decisions_folded", rec.first(since, _folded, "a folded seat and seats to act")))
    assert phase(s) == "settled" and s["validation"], s["message"]
    out.append(("settled_held", s))
    s = t.press("confirm", key=True)  # the floor supervisor validates
    out.append(("settled", s))
    out.append(("complete", confirm(t)))
    return round_id


def _side_round(t: InProcessTable, old: str, seats: tuple[int, ...] = (1, 2, 3)) -> str:
    """The next round with the Ante (and its equals) at ``seats``, the Progressive at the first: its id."""
    _, s = next_round(t, old)
    round_id: str = s["round"]["round_id"]
    t.controls["progressive"]("set_bets", bets=bets(t, seats))
    assert t.controls["progressive"]("wager", seat=seats[0])["accepted"]
    t.dealer.bets_for = round_id
    return round_id


def _irregularity(t: InProcessTable, old: str, out: list[tuple[str, Status]]) -> str:
    """In the decisions the dealer reports a dealer card exposed (or, without a dealer, a wrong number of
    cards) on the panel's menu; the supervisor confirms; the voided round's wagers returned."""
    round_id = _side_round(t, old)
    t.press("no_more_bets")
    t.press("confirm")
    t.until(lambda s: at_rest(s) and phase(s) == "decisions", "the decisions")
    s = t.press("irregularity")
    out.append(("irregularity_menu", s))
    menu: list[str] = s["irregularity_menu"]
    wanted = next((i for key in ("dealer card exposed", "wrong number of cards") for i, label in enumerate(menu, 1)
                   if key in label), 1)
    s = t.press(f"seat_{wanted}")
    if s["next_action"]["action"] == "pick_seat":
        s = t.press("seat_2")
    out.append(("irregularity_chosen", s))
    s = t.press("confirm", key=True)
    out.append(("irregularity_remedied", s))
    if phase(s) not in ("voided", "settled"):
        play_out(t)
    confirm(t)
    return round_id


def _halted(t: InProcessTable, old: str, out: list[tuple[str, Status]]) -> str:
    """The dealer counts no Progressive chip for the wager accepted (UTH ch.8 §C(3)): the round halts; the
    corpus's last round: it stays halted."""
    round_id = _side_round(t, old, seats=(4,))
    t.press("no_more_bets")
    s = t.press("undo")
    assert phase(s) == "halted", s["message"]
    out.append(("halted", s))
    return round_id


def _device_offline(t: InProcessTable, old: str, out: list[tuple[str, Status]]) -> str:
    """The card device stops answering (unplugged, silent): the round halts until it is back.  Dealt from a
    shuffler holding the dealer's cards, it goes before the dealer's stack is released: back, the supervisor
    resumes the round in its reveal; otherwise while dealing, and the supervisor voids the round."""
    device = CARD_DEVICE[t.cfg.dealing.procedure]
    round_id = _side_round(t, old, seats=(5, 6))
    t.press("no_more_bets")
    held = t.cfg.dealing.dealer_cards == "in_shuffler"
    if held:
        t.press("confirm")
        t.until(lambda s: at_rest(s) and phase(s) == "decisions", "the decisions")
        t.controls[device]("unplug", mode="silent")
        s = play_out(t)
    else:
        t.controls[device]("unplug", mode="silent")
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "halted", "the round halted")
    s = t.until(lambda s: s["devices"][device] == "offline", f"the {device} offline")
    out.append(("device_offline", s))
    if held:
        t.controls[device]("plug")
        t.until(lambda s: s["devices"][device] != "offline", f"the {device} back")
        s = t.press("confirm", key=True)  # resumed: every player has acted, the dealer's stack to release
        assert phase(s) == "reveal", s["message"]
        out.append(("reveal", s))
        t.press("confirm")
    else:
        t.press("void_round", key=True)
        t.controls[device]("plug")
        t.until(lambda s: s["devices"][device] != "offline", f"the {device} back")
    confirm(t)
    return round_id


def build(game: str, directory: Path) -> list[tuple[str, Status]]:
    """Play ``game``'s corpus in ``directory`` (its journal and configuration): [(name, status)] in ``NAMES``'s
    order, each name once (those of ``GAME_NAMES`` for their games only)."""
    out: list[tuple[str, Status]] = []
    with pytest.MonkeyPatch.context() as mp:
        with table_in_process(game, directory, mp, config=config_file(game, directory)) as t:
            rec = Recorder(t)
            cards = deck(t.cfg.game_rules, t.cfg)
            for letter in ("A", "B")[: t.cfg.dealing.decks] if "shuffler" in t.controls else ():
                t.controls["shuffler"]("set_deck", cards=cards, deck=letter)  # the opening shuffles each deck
            t.start_daemon()
            t.open_table()
            round_id = _main_round(t, rec, out, cards)
            round_id = _irregularity(t, round_id, out)
            round_id = _device_offline(t, round_id, out)
            _halted(t, round_id, out)
    order = {name: i for i, name in enumerate(NAMES)}
    return sorted(out, key=lambda item: order[item[0]])


@cache
def _corpus(game: str) -> tuple[tuple[str, str], ...]:
    with tempfile.TemporaryDirectory(prefix="screen-corpus-") as d:
        return tuple((name, json.dumps(s)) for name, s in build(game, Path(d)))


def corpus(game: str) -> list[tuple[str, Status]]:
    """``build(game)``, played once per process (each call gets its own copies)."""
    return [(name, json.loads(text)) for name, text in _corpus(game)]


# ------------------------------------------------------------------------------------ serving to a page


class DealerScreen:
    """``tablectl web`` serving the statuses this object writes to a table's status file, as a running
    daemon writes them: ``show(page, status)`` puts ``status`` on the dealer's ``page``.  While the daemon is
    said to run (``running``) its heartbeat beside the journal is touched every half second; ``stopped()``
    deletes it, as a daemon's stop does, and a page then shows whatever it shows for a stopped daemon."""

    BEAT_S = 0.5

    def __init__(self, directory: Path, game: str = "ultimate_texas_holdem", timeout: float = 30.0) -> None:
        self.directory = directory
        self.journal = directory / "table.journal"
        self.status_path = paths.status_file(self.journal)
        self.heartbeat = paths.heartbeat_file(self.journal)
        self.running = True
        self._stop = threading.Event()
        self._beats = threading.Thread(target=self._beat, name="heartbeat", daemon=True)
        self._beats.start()
        users = directory / "users"
        floor_accounts(users)
        env = {**os.environ, "TABLE_JOURNAL": str(self.journal), "TABLE_WEB__USERS": str(users),
               "TABLE_WEB__DEALER_PORT": "0", "TABLE_WEB__FLOOR_PORT": "0"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "web", "--config", str(config_file(game, directory))],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        try:
            self.url: str = addresses(self.proc, "tablectl web", timeout)["dealer"]
        except BaseException:
            self.close()
            raise

    def _beat(self) -> None:
        while not self._stop.wait(self.BEAT_S):
            if self.running:
                with contextlib.suppress(OSError):
                    self.heartbeat.touch()

    def publish(self, status: Status) -> None:
        """Write ``status`` as the daemon does (atomically: the web service never reads half a file)."""
        if self.running:
            self.heartbeat.touch()
        tmp = self.status_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(status))
        os.replace(tmp, self.status_path)

    def show(self, page: Page, status: Status, timeout: float = 10_000) -> None:
        """``page`` (opened on this screen if it is not) showing ``status``: waits until the page says it
        shows it (``document.body.dataset.shown`` is the status's ``updated``)."""
        self.publish(status)
        if not page.url.startswith(self.url):
            page.goto(self.url)
        self.shown(page, status, timeout)

    @staticmethod
    def shown(page: Page, status: Status, timeout: float = 10_000) -> None:
        """Wait until ``page`` says it shows ``status`` (published already: several pages may show one)."""
        page.wait_for_function("u => document.body.dataset.shown === String(u)", arg=status["updated"],
                               timeout=timeout)

    def stopped(self) -> None:
        """The daemon stops: no heartbeat (a stopped daemon deletes its own)."""
        self.running = False
        self.heartbeat.unlink(missing_ok=True)

    def started(self) -> None:
        self.running = True
        self.heartbeat.touch()

    def close(self) -> None:
        self._stop.set()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> DealerScreen:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


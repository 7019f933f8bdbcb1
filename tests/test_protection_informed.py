"""A player who bets as if it knew the order (issue 28; simulators/players.py; docs/protection.md, P126).

The simulated informed player bets the Trips, the largest allowed, exactly on the rounds its cards win, the
others as the demo's players do; a short seeded run of it through the daemon's part (controller/service/
protection.py, over a real journal) journals a streak at that seat and latches its alarm, and none at the
fair seats.  The demo's informed player (``make run PLAYER=informed``) bets where the order it reads wins.
Cheap: a hundred rounds of six seats, no device.
"""

from __future__ import annotations

import random
from decimal import Decimal
from itertools import islice
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import structlog

from controller import events as ev
from controller.config.protection import ProtectionConfig
from controller.journal.store import Journal
from controller.protection import hold
from games.cards import parse_cards
from part_fakes import Alarms, Settling
from simulators.players import UTH, Bet, informed_rounds, side_result

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 120  # the bench's p95 is about 90 rounds; this seed's alarm comes well before the end


def test_the_informed_player_bets_only_where_it_wins_and_at_the_largest():
    rounds = list(islice(informed_rounds(random.Random(11), informed=2), 400))
    mine = [b for bets in rounds for b in bets if b.seat == 2]
    theirs = [b for bets in rounds for b in bets if b.seat != 2]
    assert mine and all(b.won and b.amount == 100 and b.line for b in mine)
    assert all(b.amount == 5 for b in theirs)
    trips = hold.side_figures(UTH, "trips", "A")
    assert trips is not None and trips.p_win is not None
    # the informed seat bets on about p_win of the rounds; the fair seats win about p_win of their bets
    assert abs(len(mine) / 400 - trips.p_win) < 0.06
    assert abs(sum(b.won for b in theirs) / len(theirs) - trips.p_win) < 0.05
    # the paytable settles it: three of a kind pays 3 to 1 (UTH ch.12 §C(1), table A)
    net, line = side_result(parse_cards(["Ah", "Ad"]), parse_cards(["As", "7c", "4d", "9h", "2s"]), Decimal(10))
    assert (net, line) == (Decimal(30), "three_of_a_kind")


def _journal_round(j: Journal, rid: str, bets: list[Bet]) -> None:
    events: list[ev.JournalEvent] = [ev.RoundOpened(game=UTH, paytables={"blind": "A", "trips": "A"})]
    events += [ev.WagerPlaced(seat=b.seat, wager="trips", amount=b.amount) for b in bets]
    order = tuple(ev.PaymentStep(b.seat, "UTH ch.11 §I", True,
                                 (ev.PaidWager("trips", "win" if b.won else "lose", b.net, line=b.line),))
                  for b in bets)
    events.append(ev.Settled(meters={}, nets={str(b.seat): b.net for b in bets}, order=order))
    j.record_many(events, rid)


def test_a_short_run_of_an_informed_player_raises_the_streak_alarm_at_its_seat(tmp_path):
    from controller.service.protection import Protection

    with Journal(tmp_path / "t.journal") as j:
        s = SimpleNamespace(journal=j, game=SimpleNamespace(name=UTH), log=structlog.get_logger("test"),
                            life=SimpleNamespace(last_shuffled="A"), cfg=SimpleNamespace(automated_shuffler=True),
                            base_cfg=SimpleNamespace(protection=ProtectionConfig()))
        settling, alarms = Settling(), Alarms()
        Protection(s, settling, alarms, None)  # type: ignore[arg-type]
        for n, bets in enumerate(islice(informed_rounds(random.Random(7), informed=4), ROUNDS)):
            _journal_round(j, f"r{n}", bets)
            settling.settled(f"r{n}")
            j.record(ev.RoundClosed(), f"r{n}")
        findings = [e.data for e in j.events_of(ev.ProtectionFinding.kind)]
    streaks = [f for f in findings if f["finding"] == hold.STREAK]
    assert streaks and {f["seat"] for f in streaks} == {4}, findings  # the informed seat, and no fair one
    first = streaks[0]
    assert first["wager"] == "trips" and first["evidence"]["wins"] == first["evidence"]["hands"] >= 8
    assert Decimal(first["p_value"]) < Decimal("1e-6") and int(first["round"][1:]) < ROUNDS - 20
    assert {c.kind for c in alarms.latched.values()} >= {"protection_streak"}


def _dealer_with_order(hole: list[str], position: int = 0) -> Any:
    """The demo's dealer with ``--player informed`` at the example UTH table, the simulated shuffler's deck in play
    (its ``peek``) giving seat INFORMED_SEAT ``hole`` and the board As 7c 4d 9h 2s, the other places the rest."""
    from controller.config.table import load_config
    from demo.dealer import INFORMED_SEAT, Dealer
    from games.cards import DECK, card_texts
    from games.dealing import stacks

    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    game = cfg.game_rules
    places = [p for st in stacks(game, range(1, 7), cfg.dealing.dealer_cards == "in_shuffler") for p in st.places]
    board = ["As", "7c", "4d", "9h", "2s"]
    rest = iter(c for c in card_texts(DECK) if c not in board + hole)
    order = [hole[p[2]] if p[:2] == ("seat", INFORMED_SEAT) else board[p[1]] if p[0] == "community" else next(rest)
             for p in places]
    order += list(rest)
    peek = {"deck": "A", "position": position, "cards": order[position:]}
    return Dealer(cfg, Path("/nonexistent"), {"panel": None, "shuffler": lambda cmd, **a: peek},
                  random.Random(1), player="informed")


def test_the_demos_informed_player_bets_the_largest_trips_only_where_the_order_wins(tmp_path):
    """``make run PLAYER=informed``: the order read from the shuffler, mapped to the places by the stacks
    (UTH ch.10 §B); the largest Trips ($100: 10000 cents) where it wins, none where it loses or the deck is not
    fresh; a table it cannot play refused before anything starts."""
    from demo.run import main

    assert _dealer_with_order(["Ah", "Ad"]).informed_trips(list(range(1, 7))) == 10000  # three aces
    assert _dealer_with_order(["3c", "8d"]).informed_trips(list(range(1, 7))) == 0  # ace high: Trips loses
    assert _dealer_with_order(["Ah", "Ad"], position=19).informed_trips(list(range(1, 7))) == 0
    hcf = ROOT / "config" / "high_card_flush.toml"
    assert main(["--config", str(hcf), "--player", "informed", "--state-dir", str(tmp_path)]) == 2
    assert list(tmp_path.iterdir()) == []  # nothing started, nothing written

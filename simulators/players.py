"""Simulated players for the game-protection measurements (issue 28): one who bets as if it knew the order.

A preset or stacked deck whose order has leaked (the shuffler's camera read through its exposed port, Black Hat
2023) lets a player bet a side wager only when the cards make it win.  ``informed_rounds``: Ultimate Texas Hold
'Em rounds at a full table, each dealt from a shuffled deck whose order the informed seat knows: it places the
Trips, the largest allowed, only on the rounds its hand (two cards and the board, UTH ch.11 §I) makes a paid
line; the other seats place it at the minimum on about 3 rounds in 10, as the demo's players do.  The base game
is played as usual and is not part of what is returned: a side wager's streaks and hold are what it moves.
Pure: a random generator in, each round's side-wager bets out (tests/bench/protection.py, the tests, the demo).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from games.cards import DECK, Card
from games.paytables import paytable
from games.poker import best_hand, lines_made
from games.settlement import by_paytable

UTH = "ultimate_texas_holdem"
FAIR_SHARE = 0.3  # how often an uninformed seat places the side wager (demo/dealer.py's players)


@dataclass(frozen=True)
class Bet:
    """One seat's side wager settled: ``amount`` placed, ``net`` to the player, ``line`` paid (None: lost)."""

    seat: int
    wager: str
    amount: Decimal
    net: Decimal
    line: str | None

    @property
    def won(self) -> bool:
        return self.net > 0


def side_result(hole: Sequence[Card], board: Sequence[Card], amount: Decimal, letter: str = "A",
                wager: str = "trips") -> tuple[Decimal, str | None]:
    """A UTH side wager on the player's final hand (UTH ch.11 §I), settled by its paytable: (net, line paid)."""
    r = by_paytable(amount, paytable(UTH, wager, letter), lines_made(best_hand([*hole, *board])))
    return r.net, r.line


def informed_rounds(rng: random.Random, *, seats: int = 6, informed: int = 3, letter: str = "A",
                    largest: Decimal = Decimal(100), smallest: Decimal = Decimal(5),
                    fair_share: float = FAIR_SHARE) -> Iterator[list[Bet]]:
    """Round after round, the Trips bets of ``seats`` seats, seat ``informed`` betting ``largest`` exactly on the
    rounds the known order makes it win, the others ``smallest`` at random (``fair_share`` of their rounds)."""
    while True:
        cards = rng.sample(DECK, 2 * seats + 2 + 5)
        board = cards[-5:]
        bets = []
        for seat in range(1, seats + 1):
            hole = cards[2 * (seat - 1):2 * seat]
            if seat == informed:
                net, line = side_result(hole, board, largest, letter)
                if line is not None:  # it knows: a bet only where it wins
                    bets.append(Bet(seat, "trips", largest, net, line))
            elif rng.random() < fair_share:
                net, line = side_result(hole, board, smallest, letter)
                bets.append(Bet(seat, "trips", smallest, net, line))
        yield bets

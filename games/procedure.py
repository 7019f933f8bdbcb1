"""The shapes of what each game's chapter 11 says about the order of the round's steps the table sees.

Each game declares its own (``Game.payment_passes``, ``Game.reveals``, in its module).

``PaymentPass``: the dealer's order of payment at settlement (P65).  Every
game settles from the player farthest to the dealer's right, counterclockwise
(RULINGS R1); at each seat the wagers in the order the game's chapter 11 names them.  Run
'Em Twice goes round twice: the Five Card Bonus and Ultimate Pairs of every
player first (RET ch.11 §H), then each player's cards are turned over and the
Run, Ante and Center wagers settled (RET ch.11 §I).

``Reveal``: the cards the dealer turns face up during the round, in order
(P66); the round journals each when it is face up, and ``tablectl recall
--steps`` replays them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaymentPass:
    """One pass of the dealer around the table at settlement, from the dealer's right (RULINGS R1).

    At each seat in turn the dealer settles ``wagers`` (those the seat has), in this order;
    ``shows_hand``: the player's cards are turned face up in this pass.
    """

    wagers: tuple[str, ...]
    clause: str
    shows_hand: bool = True


@dataclass(frozen=True)
class Reveal:
    """Cards the dealer turns face up together.  ``places`` are the round's places
    (``community:0``, ``community:left``, ``dealer``)."""

    name: str
    places: tuple[str, ...]
    clause: str

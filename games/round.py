"""The facts of one round, as the rules engine sees them, and its settlement.

``Round`` is what happened at the table: the cards each place received, the
wagers each seat made and the decision each player took.  ``Settlement`` is
what every wager should pay.  Both are plain data; the game modules turn one
into the other, and ``games.contract`` reads and writes them as the JSON of
``tablectl settle``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from games.cards import Card


class RoundError(ValueError):
    """Input the rules do not allow.  ``field`` names where, the message says which rule."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Decision:
    """What the player chose.

    ``multiples`` are the Play / Raise / Run / Center wagers as multiples of an
    Ante, in the order they were made (one for UTH, JHE and HCF; up to three
    for RET).  ``fold`` is true when the player folded at the decision after
    the last multiple.
    """

    multiples: tuple[int, ...] = ()
    fold: bool = False


@dataclass(frozen=True)
class Seat:
    seat: int  # 1..6 from the dealer's left (RULINGS R1)
    cards: tuple[Card, ...]
    wagers: Mapping[str, Decimal]  # wager name -> dollars, as placed before no more bets
    decision: Decision
    index: int = 0  # position in the input, for error messages


@dataclass(frozen=True)
class Progressive:
    unit: Decimal
    meters: Mapping[str, Decimal]
    reset: Mapping[str, Decimal]
    envy: str | None = None
    envy_requires_progressive_wager: bool = True  # UTH ch.11 §J(2)(e)(ii), RULINGS R24 default


@dataclass(frozen=True)
class Round:
    game: str
    paytables: Mapping[str, str]  # wager -> paytable letter
    seats: tuple[Seat, ...]
    dealer: tuple[Card, ...] = ()
    community: tuple[Card, ...] = ()  # UTH/JHE in reveal order; RET: left, center, right, top, bottom
    bonus_cards: tuple[Card, ...] = ()  # UTH Six Card Bonus box
    progressive: Progressive | None = None
    payout_limit: Decimal | None = None


#: a wager's result in a person's words (the screens' words, web/words.py)
WORDS: dict[str, str] = {"win": "Win", "lose": "Lose", "push": "Push"}


@dataclass
class WagerResult:
    amount: Decimal
    result: str  # "win" | "lose" | "push" (in words: WORDS)
    net: Decimal
    line: str | None = None
    from_seats: tuple[int, ...] | None = None  # Envy Bonus only


@dataclass
class SeatSettlement:
    seat: int
    hand: dict[str, Any]  # {"hand": ..., "cards": [...]} or RET {"first_run": ..., "second_run": ...}
    wagers: dict[str, WagerResult]
    covered: frozenset[str]  # wagers whose winnings the payout limit caps (RULINGS R6)
    limited_by: Decimal = Decimal(0)

    @property
    def net(self) -> Decimal:
        return sum((w.net for w in self.wagers.values()), Decimal(0)) - self.limited_by


@dataclass(frozen=True)
class Payment:
    """One step of the dealer's order of payment: ``wagers`` of ``seat`` settled together (UTH ch.11)."""

    seat: int
    wagers: tuple[str, ...]  # in the order the dealer settles them
    clause: str
    shows_hand: bool  # the player's cards are turned face up at this step


@dataclass
class Settlement:
    game: str
    seats: list[SeatSettlement]  # in settlement order (RULINGS R1)
    meters: dict[str, Decimal] = field(default_factory=dict)
    dealer: dict[str, Any] | None = None

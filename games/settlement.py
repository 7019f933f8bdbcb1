"""Settlement mechanics shared by every game.

* ``odds_net``: what a paytable line pays on a wager (RULINGS R2).
* ``by_paytable``: a wager that wins only by a paytable line (side wagers).
* ``versus``: a wager against the dealer (win 1 to 1, lose, push).
* ``ProgressiveMeters``: progressive payouts in settlement order, each from the
  meter as the previous winner left it (RULINGS R3, R4).
* ``envy_bonuses``: the Envy Bonus of every seat (RULINGS R18a, R24, R24c, R29).
* ``apply_payout_limit``: the per-seat cap (RULINGS R6).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol, TypeVar

from games.money import ZERO, round_cents
from games.paytable import FixedAmount, FixedPerUnit, Line, MeterPercent, Odds, Paytable, Push
from games.round import SeatSettlement, WagerResult

ONE = Decimal(1)


def odds_net(amount: Decimal, odds: Odds) -> Decimal:
    """Net win of a wager paid at ``odds`` (R2): "X to Y" is +X/Y·w, "X for Y" is +(X/Y − 1)·w."""
    ratio = Decimal(odds.numerator) / Decimal(odds.denominator)
    if odds.word == "for":
        ratio -= ONE
    return round_cents(amount * ratio)


def win(amount: Decimal, net: Decimal, line: str | None = None) -> WagerResult:
    return WagerResult(amount=amount, result="win", net=net, line=line)


def lose(amount: Decimal) -> WagerResult:
    return WagerResult(amount=amount, result="lose", net=-amount)


def push(amount: Decimal) -> WagerResult:
    return WagerResult(amount=amount, result="push", net=ZERO)


def line_result(amount: Decimal, line: Line | None, *, unmatched: str = "lose") -> WagerResult:
    """Settle ``amount`` on the paytable line the hand earned.

    ``unmatched`` is what happens when the hand earns no line: a side wager
    loses; a Blind or X-tra Bonus that beat the dealer pushes (UTH ch.11
    §H(3)(c), RULINGS R12, R20).
    """
    if line is None:
        return lose(amount) if unmatched == "lose" else push(amount)
    pays = line.pays
    if isinstance(pays, Push):
        return push(amount)
    if isinstance(pays, Odds):
        return win(amount, odds_net(amount, pays), line.key)
    if isinstance(pays, FixedAmount):  # R21a: fixed, whatever the wager
        return win(amount, pays.dollars, line.key)
    raise TypeError(f"{line.key}: {type(pays).__name__} is settled through the progressive meters")


def by_paytable(amount: Decimal, table: Paytable, made: Iterable[str]) -> WagerResult:
    """A wager that wins only by the paytable: the highest line the hand makes (R5), else it loses."""
    return line_result(amount, table.line_for(frozenset(made)))


def versus(amount: Decimal, comparison: int) -> WagerResult:
    """A wager against the dealer paid 1 to 1: ``comparison`` > 0 the player wins, 0 ties, < 0 loses."""
    if comparison > 0:
        return win(amount, amount)
    if comparison < 0:
        return lose(amount)
    return push(amount)


def compare(a: int, b: int) -> int:
    return (a > b) - (a < b)


class ProgressiveMeters:
    """The meters during one settlement (RULINGS R3, R4).

    Percentage lines pay p × meter rounded half up to the cent; the meter then
    drops by what was paid but never below its reset amount.  Seats are paid
    in settlement order, so a second winner of one meter is paid from the meter
    as the first left it.
    """

    def __init__(self, unit: Decimal, meters: Mapping[str, Decimal], reset: Mapping[str, Decimal]):
        self.unit = unit
        self.meters = dict(meters)
        self.reset = dict(reset)

    def settle(self, amount: Decimal, line: Line | None) -> WagerResult:
        if line is None:
            return lose(amount)
        pays = line.pays
        if isinstance(pays, MeterPercent):
            meter = self.meters[pays.meter]
            paid = round_cents(meter * pays.percent / Decimal(100))
            self.meters[pays.meter] = max(self.reset[pays.meter], meter - paid)
            return win(amount, paid - amount, line.key)
        if isinstance(pays, FixedPerUnit):  # R3: stated for $1, scales with the unit; the wager was collected
            return win(amount, pays.dollars * self.unit - amount, line.key)
        return line_result(amount, line)


@dataclass(frozen=True)
class EnvyCandidate:
    seat: int
    has_progressive: bool
    made: frozenset[str]  # the lines of the Envy table this seat's hand makes
    cards_on_layout: bool  # R24c: false for a folded hand whose cards were collected


def envy_bonuses(
    candidates: Iterable[EnvyCandidate],
    table: Paytable,
    unit: Decimal,
    requires_progressive_wager: bool,
) -> dict[int, WagerResult]:
    """Envy Bonus per seat with a Progressive wager: one amount for every *other* qualifying seat.

    A qualifying hand is one the Envy table lists, whose cards are still on the
    layout (R24c), held by a seat with a Progressive wager when the operator
    requires it (UTH ch.11 §J(2)(e)(ii), R24).  Never for the seat's own hand or
    the dealer's (UTH ch.11 §J(2)(e)(iv)); amounts stated for $1 scale with the
    unit (R3).
    """
    candidates = list(candidates)
    qualifying: dict[int, Decimal] = {}
    for c in candidates:
        if not c.cards_on_layout or (requires_progressive_wager and not c.has_progressive):
            continue
        line = table.line_for(c.made)
        if line is None:
            continue
        assert isinstance(line.pays, FixedPerUnit), line
        qualifying[c.seat] = line.pays.dollars * unit
    bonuses: dict[int, WagerResult] = {}
    for c in candidates:
        if not c.has_progressive:
            continue
        others = sorted(s for s in qualifying if s != c.seat)
        if others:
            total = sum((qualifying[s] for s in others), ZERO)
            bonuses[c.seat] = WagerResult(amount=ZERO, result="win", net=total, from_seats=tuple(others))
    return bonuses


def apply_payout_limit(seat: SeatSettlement, limit: Decimal | None) -> None:
    """Cap the seat's winnings on the covered wagers at ``limit`` (RULINGS R6).

    The winnings are the positive nets of the covered wagers; what exceeds the
    limit is ``limited_by``.  Progressive wagers, Envy Bonuses and (UTH) the Six
    Card Bonus are not covered.
    """
    if limit is None:
        return
    winnings = sum((w.net for k, w in seat.wagers.items() if k in seat.covered and w.net > 0), ZERO)
    seat.limited_by = max(ZERO, winnings - limit)


class _AtASeat(Protocol):
    @property
    def seat(self) -> int: ...


_S = TypeVar("_S", bound=_AtASeat)


def settlement_order(seats: Iterable[_S]) -> list[_S]:
    """Counterclockwise from the dealer's right: the highest seat number first (RULINGS R1)."""
    return sorted(seats, key=lambda s: s.seat, reverse=True)

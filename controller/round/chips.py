"""The chips the dealer handles at settlement: per seat and wager, what is paid, taken or returned.

One computation for every amount a screen shows.  The settlement's ``net`` is the player's gain (R2, R3);
the dealer handles chips as they stand on the layout, and some are no longer there: the Progressive
wagers went to the rack at "no more bets" (UTH ch.8 §C(3), ``Game.collected_at_no_more_bets``) and a
fold's main-game wagers at the fold (UTH ch.11 §F(2), ``Game.collected_at_fold``).

* still on the layout: a win is paid its net (the wager stays), a loss taken, a push left alone, a
  returned wager (a void, R7a; a seat out of the round, P42, P44) picked up by the player (nothing paid);
* collected: a win is paid in full, net plus the wager ("X to 1" gives the wager back too, "X for 1"
  already holds it; R2, R3), a loss is nothing more, a push or a return gives the wager back.

So per seat ``pay - take - collected == net`` to the cent.  The payout limit (R6) cuts the covered wagers
in the dealer's order of payment (P65), the last ones first.  A progressive win on a link is paid what
the link took (P68, P80): ``paid`` overrides the settlement's figure.  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from controller.round.state import RoundLike
from games.game import Game
from games.money import ZERO
from games.round import SeatSettlement, Settlement, WagerResult

#: what the dealer does with a wager's chips, in words (web/words.py: ``say(do, "chips")``; ``none`` means
#: "None" elsewhere)
WORDS: dict[str, str] = {"chips.pay": "Pay", "chips.take": "Take", "chips.return": "Return",
                         "chips.none": "Nothing to do"}

PAY, TAKE, RETURN, NONE = "pay", "take", "return", "none"
NO_MORE_BETS, FOLD = "no_more_bets", "fold"


@dataclass(frozen=True)
class WagerChips:
    """One wager: ``do`` with ``amount`` chips; ``collected`` the chips already in the rack (``at`` when)."""

    do: str
    amount: Decimal
    collected: Decimal | None = None
    at: str | None = None  # NO_MORE_BETS or FOLD when collected
    clause: str | None = None  # the clause that collected it
    line: str | None = None
    limited_by: Decimal = ZERO  # what the payout limit took off this wager's pay (R6)

    @property
    def paid(self) -> Decimal:
        """Chips out of the rack: a payment, or a return of chips already collected."""
        if self.do == PAY or (self.do == RETURN and self.collected is not None):
            return self.amount
        return ZERO

    @property
    def taken(self) -> Decimal:
        return self.amount if self.do == TAKE else ZERO


@dataclass(frozen=True)
class SeatChips:
    seat: int
    wagers: dict[str, WagerChips] = field(default_factory=dict)  # in the dealer's order of payment (P65)
    net: Decimal = ZERO  # the settlement's net of the seat (after the payout limit)

    @property
    def pay(self) -> Decimal:
        return sum((w.paid for w in self.wagers.values()), ZERO)

    @property
    def take(self) -> Decimal:
        return sum((w.taken for w in self.wagers.values()), ZERO)

    @property
    def collected(self) -> Decimal:
        return sum((w.collected or ZERO for w in self.wagers.values()), ZERO)

    @property
    def winner(self) -> bool:
        """The seat ends the round ahead (its net is positive)."""
        return self.net > 0

    def public(self) -> dict[str, Any]:
        """The status's shape (docs/architecture.md, ``round.chips``): amounts as decimal strings."""
        return {
            "wagers": {k: {"do": w.do, "amount": _text(w.amount),
                           "collected": _text(w.collected) if w.collected is not None else None,
                           "line": w.line, "collected_at": w.at, "clause": w.clause,
                           "limited_by": _text(w.limited_by)}
                       for k, w in self.wagers.items()},
            "pay": _text(self.pay), "take": _text(self.take), "balance": _text(self.pay - self.take),
            "winner": self.winner,
        }


def _text(amount: Decimal) -> str:
    return f"{amount:.2f}"


def wager_chips(w: WagerResult, *, returned: bool, collected: tuple[str, str] | None) -> WagerChips:
    """One wager's chips from its result; ``returned`` a wager given back rather than settled (a push then is a
    return), ``collected`` (when, clause) for chips already in the rack."""
    line = w.line or None
    if collected is not None:
        at, clause = collected
        if w.result == "win":
            do, amount = PAY, w.net + w.amount  # R2, R3: the wager was collected, it is paid back too
        elif w.result == "lose":
            do, amount = NONE, ZERO  # already taken
        else:
            do, amount = RETURN, w.amount
        return WagerChips(do, amount, w.amount, at, clause, line)
    if w.result == "win":
        return WagerChips(PAY, w.net, line=line)
    if w.result == "lose":
        return WagerChips(TAKE, w.amount, line=line)
    return WagerChips(RETURN, w.amount, line=line) if returned else WagerChips(NONE, ZERO, line=line)


def seat_chips(game: Game, st: SeatSettlement, *, folded: bool = False, returned: Collection[str] = (),
               paid: Mapping[str, Decimal] | None = None) -> SeatChips:
    """The chips of one seat of a settlement.  ``folded``: the player folded (its main-game wagers were
    collected at the fold where the game says so); ``returned``: the wagers given back unsettled (a void's,
    an out seat's); ``paid``: a wager's pay as actually paid (a linked progressive hit, P68)."""
    order = [w for p in game.payment_passes for w in p.wagers]
    names = sorted(st.wagers, key=lambda w: order.index(w) if w in order else len(order))
    at_fold = set(game.antes) | set(game.decision_wagers) if folded and game.collected_at_fold else set()
    wagers: dict[str, WagerChips] = {}
    for name in names:
        w = st.wagers[name]
        collected: tuple[str, str] | None = None
        if name in game.collected_at_no_more_bets and w.amount > 0:
            collected = (NO_MORE_BETS, game.collected_at_no_more_bets[name])
        elif name in at_fold:
            collected = (FOLD, game.collected_at_fold)
        chips = wager_chips(w, returned=name in returned, collected=collected)
        if paid and name in paid and chips.do == PAY:
            chips = replace(chips, amount=paid[name])
        wagers[name] = chips
    net = st.net + sum((paid[k] - c.amount for k, c in wagers.items() if paid and k in paid and c.do == PAY), ZERO)
    left = st.limited_by
    for name in reversed(names):  # R6: the limit cuts the covered winnings, the last paid first
        c = wagers[name]
        if left <= 0:
            break
        if name in st.covered and c.do == PAY and c.amount > 0:
            cut = min(left, c.amount)
            wagers[name] = replace(c, amount=c.amount - cut, limited_by=cut)
            left -= cut
    return SeatChips(st.seat, wagers, net)


def settlement_chips(game: Game, settlement: Settlement, *, folded: Collection[int] = (),
                     returned: Mapping[int, Collection[str]] | None = None,
                     paid: Mapping[int, Mapping[str, Decimal]] | None = None) -> dict[int, SeatChips]:
    """Every seat of ``settlement`` in its order (R1): ``folded`` seats, ``returned`` wagers by seat, ``paid``
    overrides by seat (``seat_chips``)."""
    return {s.seat: seat_chips(game, s, folded=s.seat in folded, returned=(returned or {}).get(s.seat, ()),
                               paid=(paid or {}).get(s.seat))
            for s in settlement.seats}


def public(chips: Mapping[int, SeatChips]) -> dict[str, Any]:
    """``round.chips`` of the status: by seat number as a string."""
    return {str(n): c.public() for n, c in chips.items()}


def round_chips(r: RoundLike, paid: Mapping[int, Mapping[str, Decimal]] | None = None) -> dict[int, SeatChips] | None:
    """The chips of a settled or voided round, else None.  A void returns every wager it does not keep (its
    pushes, R7a); a seat out of the round has its wagers returned or taken (P42, P44)."""
    if r.settlement is None:
        return None
    voided = r.void_reason is not None
    out = {n for n, s in r.seats.items() if s.out}
    returned = {st.seat: frozenset(k for k, w in st.wagers.items() if w.result == "push")
                for st in r.settlement.seats if voided or st.seat in out}
    folded = {n for n, s in r.seats.items() if s.folded and not s.out}
    return settlement_chips(r.game, r.settlement, folded=folded, returned=returned, paid=paid)

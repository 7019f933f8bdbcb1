"""The main game the two Hold 'Em games share: Ante, its equal companion, and Play against the dealer.

UTH (Ante, Blind, Play; UTH ch.11 §F-§H, UTH ch.12 §A-§B) and JHE (Ante, X-tra Bonus,
Play; JHE ch.11 §G-§I, JHE ch.12 §A-§B, RULINGS R12) settle them the same way: a fold
loses the Ante and its companion (R7); otherwise the Ante is returned when the
dealer has less than a pair and is settled 1 to 1 on the comparison when the
dealer qualifies; the companion and the Play are settled on the comparison
either way, the companion paying by its paytable when the player wins, and
pushing when the winning hand is below the table's lowest line (UTH ch.11
§H(3)(c), R12, R20).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from games.cards import Card
from games.paytable import Paytable
from games.poker import PAIR, PokerHand, best_hand
from games.round import Seat, WagerResult
from games.settlement import compare, line_result, lose, push, versus

FLOP = 3
"""The community cards revealed first: UTH's flop (UTH ch.11 §C(2)); in JHE the card of JHE ch.11 §B and the two of "
    "§D."""


def flop_hand(player: Sequence[Card], community: Sequence[Card]) -> PokerHand:
    """The Progressive Payout Hand and the Envy Bonus Qualifying Hand (RULINGS R24a).

    The best five of the player's two cards and the first three community cards
    in reveal order; the turn and river never count for them (UTH ch.12 §D, UTH ch.11
    §J; JHE ch.12 §E).  The player's cards come first so that the cards shown
    favour them where two could serve (games.poker.best_hand).
    """
    return best_hand([*player, *community[:FLOP]])


def dealer_qualifies(dealer: PokerHand) -> bool:
    """UTH ch.11 §H(1), JHE ch.11 §I(1): the dealer needs a pair or better."""
    return dealer.category >= PAIR


def against_dealer(
    results: dict[str, WagerResult],
    seat: Seat,
    play: dict[str, Decimal],
    companion: str,
    companion_table: Paytable,
    hand: PokerHand,
    made: frozenset[str],
    dealer: PokerHand,
) -> None:
    """Settle the Ante, its companion (``blind`` / ``xtra_bonus``) and the Play into ``results``.

    ``play`` is ``Game.decision_amounts(seat)``: {"play": amount}, or empty after a fold.
    """
    ante = seat.wagers["ante"]
    if seat.decision.fold:
        results["ante"] = lose(ante)
        results[companion] = lose(seat.wagers[companion])
        return
    c = compare(hand.value, dealer.value)
    results["ante"] = versus(ante, c) if dealer_qualifies(dealer) else push(ante)
    if c > 0:
        results[companion] = line_result(seat.wagers[companion], companion_table.line_for(made), unmatched="push")
    else:
        results[companion] = versus(seat.wagers[companion], c)
    results["play"] = versus(play["play"], c)

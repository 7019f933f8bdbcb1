"""Whose turn it is and what they may do: the players' decisions, street by street.

Owns the order of decisions (clockwise from seat 1, RULINGS R1; one decision wager per round, or
RET's at every decision, R26), the choices the panel offers the seat to act, the community cards a
street's decisions need on the layout, and moving on to the next street or to the reveal once
every player has acted.  ``RoundController`` asks here; the decision itself is journaled there.
"""

from __future__ import annotations

from typing import Any

from controller.round.state import Phase, RoundLike, SeatState


def decides_every_street(r: RoundLike) -> bool:
    return len(r.game.decision_wagers) > 1  # RET: a wager at every decision (R26)


def to_act(r: RoundLike) -> SeatState | None:
    """The next seat to decide at this street, clockwise (RULINGS R1), or None."""
    if r.phase is not Phase.DECISIONS:
        return None
    for s in r.players:
        if s.folded or s.acted_on_street >= r.street:
            continue
        if len(s.multiples) and not decides_every_street(r):
            continue  # UTH/JHE/HCF: one wager per round; a seat that made it is not asked again
        return s
    return None


def choices(r: RoundLike) -> dict[str, Any]:
    """What the seat to act may do now (for the dealer panel)."""
    s = to_act(r)
    if s is None:
        return {}
    st = r.current_street
    return {
        "seat": s.seat,
        "street": st.name,
        "multiples": list(r.game.legal_multiples(st, s.cards)),
        "check": st.may_check,
        "fold": st.may_fold,
    }


def needs_cards_for_street(r: RoundLike) -> int:
    """Community cards that must be on the layout before this street's decisions."""
    if r.game.community_names:  # RET: all five lie face down in the cross from the deal
        return len(r.game.community_names)
    return r.current_street.shown


async def advance(r: RoundLike) -> None:
    """After a decision or a player leaving: the next street, or the reveal once nobody is left to act."""
    while r.phase is Phase.DECISIONS and to_act(r) is None:
        remaining = [s for s in r.players if not s.folded and (decides_every_street(r) or not s.multiples)]
        if r.street + 1 < len(r.game.streets) and remaining:
            r.street += 1
        else:
            await r.all_acted()

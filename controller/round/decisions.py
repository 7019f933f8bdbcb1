"""Whose turn it is and what they may do: the players' decisions, street by street.

Owns the order of decisions (clockwise from seat 1, RULINGS R1; one decision wager per round, or
RET's at every decision, R26), the choices the panel offers the seat to act, the community cards a
street's decisions need on the layout, and moving on to the next street or to the reveal once
every player has acted.  ``RoundController`` asks here; the decision itself is journaled there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from controller.round.state import Phase, RoundLike, SeatState

#: the words of a choice that makes no wager (a bet is named by the wager it makes: ``play``, ``raise``,
#: ``first_run`` ..., the game's own wager, with the game's words)
WORDS: dict[str, str] = {
    "check": "Check",
    "fold": "Fold",
}


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


def offered(r: RoundLike) -> list[dict[str, Any]]:
    """The seat to act's choices as a dealer says them (check, each bet, fold), each with its panel button and
    the clause of the decision; a bet with its ``multiple`` and the ``amount`` of the wager it makes, a fold
    with the wagers it ``forfeits`` and their sum (``amount``).  Amounts are decimal strings, to the cent.

    Every game's bet is a multiple of an Ante (``Game.decision_amounts``): UTH ch.11 §B(1) 4x or 3x the Ante,
    §D(1) 2x, §F 1x (or fold); JHE ch.11 §C(1) 3x, §E(1) 2x, §G 1x (or fold); HCF ch.11 §B(1)-(3) a Raise of
    1x, up to 2x or up to 3x the Ante by the player's longest flush (R16), or fold and forfeit the Ante; RET
    ch.11 §B(1), §D, §F the 1st Run on the 1st Ante, the 2nd Run on the 2nd, the Center on an Ante, 1-3x (R26).
    A fold loses the Antes and the bets already made (R7; UTH ch.11 §F(2), RET ch.11 §B(2)); the side wagers
    stay in action."""
    s = to_act(r)
    if s is None:
        return []
    g, st, c = r.game, r.current_street, choices(r)
    made = len(s.multiples)  # RET: the bets of the earlier decisions (R26); the others make one bet
    wager = g.decision_wagers[min(made, len(g.decision_wagers) - 1)]
    ante = s.wagers.get(g.antes[made % len(g.antes)], Decimal(0))
    out: list[dict[str, Any]] = []
    if c["check"]:
        out.append({"button": "check", "decision": "check", "amount": _cents(Decimal(0)), "clause": st.clause})
    out += [{"button": f"bet_{m}x", "decision": wager, "wager": wager, "multiple": m, "amount": _cents(ante * m),
             "clause": st.clause} for m in c["multiples"]]
    if c["fold"]:
        lost = {a: s.wagers[a] for a in g.antes if a in s.wagers}
        lost |= {w: s.wagers[g.antes[i % len(g.antes)]] * k
                 for i, (w, k) in enumerate(zip(g.decision_wagers, s.multiples, strict=False))}
        out.append({"button": "fold", "decision": "fold", "forfeits": {w: _cents(a) for w, a in lost.items()},
                    "amount": _cents(sum(lost.values(), Decimal(0))), "clause": st.clause})
    return out


def _cents(amount: Decimal) -> str:
    return f"{amount:.2f}"


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

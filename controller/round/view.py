"""What of a round may be shown, and when: the public view served to the panel, the status and the floor.

Owns: which cards are face up now (the community by street, the dealer's hand once every
player has acted) and the round's public view.  Secrets stay out: no hole card, dealer
card or unrevealed community card before the rules reveal it.  Pure: reads the round.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.round import chips as round_chips
from controller.round import settlement as round_settlement
from controller.round.decisions import choices
from controller.round.state import Phase, RoundLike
from games.cards import Card


def visible_community(r: RoundLike) -> dict[int, Card]:
    """Community cards face up now (UTH/JHE: the street's ``shown``; RET: the cross per RET ch.11 §C, §E, §G)."""
    if r.phase in (Phase.REVEAL, Phase.SETTLED, Phase.COMPLETE):
        return dict(r.community)
    if r.phase is not Phase.DECISIONS:
        return {}
    shown = r.current_street.shown
    if r.game.community_names:
        names = r.game.community_names  # left, center, right, top, bottom (R25)
        order = [names.index(n) for n in ("left", "right", "top", "bottom", "center")]
        return {i: r.community[i] for i in order[:shown] if i in r.community}
    return {i: c for i, c in r.community.items() if i < shown}


def face_up(r: RoundLike, places: Iterable[str]) -> list[str] | None:
    """The cards at ``places`` when all of them are face up now, else None."""
    community = visible_community(r)
    cards: list[str] = []
    for place in places:
        if place == "dealer":
            if not dealer_revealed(r) or len(r.dealer) < r.game.dealer_cards:
                return None
            cards += [c.text for c in r.dealer]
            continue
        i = r._community_index(place.partition(":")[2])
        if i not in community:
            return None
        cards.append(community[i].text)
    return cards


def dealer_revealed(r: RoundLike) -> bool:
    """The dealer's cards are face up once every player has acted (UTH ch.11 §G, JHE ch.11 §H,
    HCF ch.11 §B(4)(b))."""
    return r.phase in (Phase.REVEAL, Phase.SETTLED, Phase.COMPLETE)


def public_view(r: RoundLike) -> dict[str, Any]:
    """What may be shown to anyone: no hole card, dealer card or unrevealed community card before its time."""
    revealed = r.phase in (Phase.SETTLED, Phase.COMPLETE)
    seats: dict[int, dict[str, Any]] = {}
    for s in r.players:
        seats[s.seat] = {
            "wagers": {k: str(v) for k, v in s.wagers.items()},
            "cards": [c.text for c in s.cards] if revealed and not s.folded else len(s.cards),
            "multiples": list(s.multiples),
            "folded": s.folded,
        }
    for s in r.seats.values():
        if s.out:
            seats[s.seat] = {"wagers": {k: str(v) for k, v in s.wagers.items()},
                             ("left" if s.abandoned else "skipped"): True,
                             "cards": len(s.cards), "multiples": list(s.multiples), "folded": s.folded}
    view: dict[str, Any] = {
        "round_id": r.round_id,
        "game": r.game.name,
        "phase": r.phase.value,
        "seats": seats,
        "community": {str(i): c.text for i, c in sorted(visible_community(r).items())},
    }
    if r.phase is Phase.DECISIONS:
        view["street"] = r.current_street.name
        view["to_act"] = choices(r)
    if dealer_revealed(r):
        view["dealer"] = [c.text for c in r.dealer]
    else:
        view["dealer"] = len(r.dealer)
    if r.settlement is not None and r.phase in (Phase.SETTLED, Phase.VOIDED, Phase.COMPLETE):
        # what the dealer pays and collects (public once settled or voided)
        view["settlement"] = {
            str(st.seat): {k: {"result": w.result, "net": str(w.net), **({"line": w.line} if w.line else {})}
                           for k, w in st.wagers.items()}
            for st in r.settlement.seats
        }
        # the chips the dealer pays, takes or returns, as they stand on the layout: every amount shown (chips.py)
        view["chips"] = round_chips.public(round_chips.round_chips(r) or {})
        if r.payments is not None:
            # the dealer's order of payment (P65): seat by seat, pass by pass; and the passes as the dealer
            # is told them, each pass's wagers in its declared order
            view["payment_order"] = [{"seat": p.seat, "wagers": [w.wager for w in p.wagers], "clause": p.clause}
                                     for p in r.payments]
            view["payment_passes"] = [{"clause": p.clause, "wagers": list(p.wagers), "seats": list(p.seats)}
                                      for p in round_settlement.payment_passes(r.game, r.payments)]
    if r.phase is Phase.HALTED:
        view["halted"] = {"reason": r.halt_reason, "in": r.halted_from.value if r.halted_from else None}
    return view

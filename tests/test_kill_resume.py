"""A round resumed after a restart in the middle of its initial deal (P47, P34), for every game and procedure.

The decisions open as soon as every player has his cards, but the initial deal can go on after that:
the dealer's last card (UTH ch.8 §D(2), UTH ch.9 §B(2); HCF ch.8 §E, HCF ch.9 §B(2)), JHE's five community
cards dealt face down after the players' and the dealer's (JHE ch.8 §D(3), JHE ch.9 §B(3)), HCF's dealer
stack after the seats' (HCF ch.10 §B(2)).  A daemon stopped there must treat the deal as cut short
(cards may have left the deck unjournaled: P34, UTH ch.13 §I, HCF ch.13 §H, RET ch.13 §D) -- a JHE round
resumed in its decisions used to wait for ever for a river no press deals.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from types import SimpleNamespace

import pytest

from controller.round.machine import Phase, RoundController, RoundRefused, TableSetup
from controller.service.deal import Deal, place_key
from games.dealing import Procedure, initial_deal, stacks
from games.registry import GAMES

DECK = [f"{r}{s}" for s in "shdc" for r in "AKQJT98765432"]
SEATS = [2, 5]


class ListJournal:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def record(self, event, round_id=None):
        self.events.append((event.kind, event.to_data()))
        return len(self.events)

    def record_many(self, events, round_id=None):
        return [self.record(e, round_id) for e in events]


def deal_of(game: str, procedure: Procedure, held: bool = False) -> list[str]:
    g = GAMES[game]
    if procedure is Procedure.AUTOMATED:
        return [place_key(p) for st in stacks(g, SEATS, dealer_in_shuffler=held) if not st.held for p in st.places]
    return [place_key(p) for p in initial_deal(g, procedure, SEATS)]


async def round_dealt_up_to(game: str, places: list[str], k: int) -> list[tuple[str, dict]]:
    """The journal of a round whose initial deal stopped after its ``k``-th card."""
    j = ListJournal()
    r = await RoundController.open("r1", TableSetup(game=game, paytables={}), j)
    for seat in SEATS:
        for wager in GAMES[game].antes:
            await r.place_wager(seat, wager, Decimal(10))
    await r.announce_no_more_bets(progressive_seats=[])
    await r.confirm_progressive_count(0)  # UTH ch.8 §C(3): no Progressive wager
    for place, card in zip(places[:k], DECK, strict=False):
        await r.card(place, card)
    return j.events


def resumed(game: str, procedure: Procedure, events, held: bool = False) -> tuple[Deal, RoundController]:
    r = asyncio.run(RoundController.restore("r1", TableSetup(game=game, paytables={}), events))
    session = SimpleNamespace(open_round=lambda: r, game=GAMES[game],
                              cfg=SimpleNamespace(dealing=SimpleNamespace(dealer_cards="in_shuffler" if held
                                                                          else "dealt")))
    devices = SimpleNamespace(procedure=procedure)

    async def no_press(press):
        raise AssertionError("a recovered deal reads no press")

    return Deal(session, devices, None, on_press=no_press), r  # type: ignore[arg-type]


CASES = [(g, p) for g in GAMES
         for p in (Procedure.HAND, Procedure.MANUAL_SHOE, Procedure.AUTOMATED)]


@pytest.mark.parametrize(("game", "procedure"), CASES, ids=[f"{g}-{p.value}" for g, p in CASES])
def test_a_restart_in_decisions_before_the_initial_deal_is_done_is_a_deal_cut_short(game, procedure):
    """Every point of the initial deal where the decisions are open already: cut short (P34); once the
    last card of the initial deal is journaled, resumed."""
    places = deal_of(game, procedure)
    in_decisions = 0
    for k in range(1, len(places) + 1):
        deal, r = resumed(game, procedure, asyncio.run(round_dealt_up_to(game, places, k)))
        if r.phase is not Phase.DECISIONS:
            continue
        in_decisions += 1
        assert deal.recover_streets() is (k < len(places)), (game, procedure, k, places[k:])
    assert in_decisions >= 1


def test_jhe_resumed_after_its_community_cards_were_cut_short_would_never_reach_the_river():
    """The symptom (JHE ch.9 §B(3), JHE ch.11 §F-§G): killed after the 4th community card, the round reopens in
    its decisions with no press left to deal the 5th; the last decision is refused until it is dealt.
    The daemon's recovery therefore voids it (P34) instead of resuming it."""
    places = deal_of("jackpot_holdem", Procedure.HAND)
    assert places[-1] == "community:4"
    deal, r = resumed("jackpot_holdem", Procedure.HAND,
                      asyncio.run(round_dealt_up_to("jackpot_holdem", places, len(places) - 1)))
    assert r.phase is Phase.DECISIONS and 4 not in r.community

    async def decide_through() -> None:
        for _ in range(2):  # JHE ch.11 §C(1), §E(1): check, check
            for seat in SEATS:
                await r.decide(seat, check=True)
        await r.decide(SEATS[0], fold=True)  # JHE ch.11 §G: after the last two cards

    with pytest.raises(RoundRefused, match="community"):
        asyncio.run(decide_through())
    assert deal.recover_streets() is True

"""The players' decisions: the seat to act bets, checks or folds; the streets follow (R1, UTH ch.11).

Owns the decision presses (``bet`` with its multiple, ``check``, ``fold``) for the seat whose turn
it is (``RoundController.to_act``), what the dealer is told of each, and what follows: the next
street's cards, or once every player has acted the rest of the cards and the settlement.
"""

from __future__ import annotations

from controller.round.machine import Phase
from controller.service.deal import Deal
from controller.service.refused import Refused, ask
from controller.service.session import Session
from controller.service.settlement import Settling
from controller.service.told import told
from drivers.panel import ButtonPress

BUTTONS = ("bet", "check", "fold")


class Decisions:
    def __init__(self, s: Session, deal: Deal, settling: Settling) -> None:
        self.s = s
        self.deal = deal
        self.settling = settling

    async def decide(self, press: ButtonPress) -> None:
        s = self.s
        r = s.open_round()
        b = press.button
        seat = r.to_act()
        if seat is None:
            raise Refused("no decision is pending")
        if b == "bet":
            ask(r.can_decide(seat.seat, multiple=press.multiple))
            await r.decide(seat.seat, multiple=press.multiple)
        else:
            ask(r.can_decide(seat.seat, fold=b == "fold", check=b == "check"))
            await r.decide(seat.seat, fold=b == "fold", check=b == "check")
        what = f"{press.multiple}x" if b == "bet" else b
        s.tell(f"seat {seat.seat}: {what}", told("decision", cause=b, seats=[seat.seat]))
        if r.phase is Phase.REVEAL:
            await self.settling.deal_rest_and_settle()
        else:
            await self.settling.finished(await self.deal.streets(r.street))

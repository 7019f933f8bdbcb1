"""Settling the round: the reveal, the settlement, the dealer's order of payment, voiding (UTH ch.11, R7a).

Owns what happens once every player has acted (the stub counted, the dealer's cards out, the
round settled, the order of payment told pass by pass, P65, and logged step by step) and voiding
a round (all hands void, R7a; the returned progressive wagers' contributions taken back),
whether the supervisor asked for it (``void_round`` with the key) or a remedy did.  An irregularity
whose remedy leaves nobody a choice (P40) -- what the deal found (``controller.service.deal.Found``)
or what the remedies decided -- is applied here (``void_irregular``): the settlement is the lowest
part that voids a round, and the one that settles the wagers the clause keeps alive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from controller import events as ev
from controller.round import settlement as round_settlement
from controller.service.deal import Deal, Dealt, Found
from controller.service.devices import Devices
from controller.service.progressive import ProgressiveSystem
from controller.service.refused import Refused, ask
from controller.service.session import Session
from controller.service.told import told
from controller.table import opening_steps
from games.money import display


class Settling:
    def __init__(self, s: Session, devices: Devices, deal: Deal, progressive: ProgressiveSystem) -> None:
        self.s = s
        self.devices = devices
        self.deal = deal
        self.progressive = progressive
        self._on_irregular: list[Callable[[str, Found], None]] = []
        self._on_settled: list[Callable[[str], None]] = []

    def on_settled(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(round_id)`` once a round's settlement is journaled (hold and streaks: issue 28)."""
        self._on_settled.append(listener)

    def on_irregular(self, listener: Callable[[str, Found], None]) -> None:
        """Call ``listener(round_id, found)`` once a round was voided for an irregularity (the protection part
        journals a card switched as a finding and raises its alarm: issue 28)."""
        self._on_irregular.append(listener)

    async def finished(self, dealt: Dealt) -> bool:
        """Whether a step of the deal ended dealt; what it found is remedied here (P40)."""
        if isinstance(dealt, Found):
            await self.void_irregular(dealt)
            return False
        return dealt

    async def reveal_and_settle(self) -> None:
        s = self.s
        r = s.open_round()
        # UTH ch.8 §E-§G: the stub is counted by the shoe that dealt the round
        if self.devices.shoe_reads_the_cards and not await self.finished(await self.deal.count_stub()):
            return
        if not await self.finished(await self.deal.release_dealer_cards()):
            return
        # issue 28, P111: the hands about to be scored against the devices' reads (three witnesses)
        if not await self.finished(self.deal.reconcile()):
            return
        ask(r.can_settle())
        await r.settle()
        # the meters are not touched here: a progressive win is paid from them only once validated
        shows = f"dealer shows {' '.join(r.public_view()['dealer'])}; " if s.game.dealer_cards else ""
        assert r.payments is not None
        passes = round_settlement.payment_passes(s.game, r.payments)
        s.tell(f"{shows}pay and collect in this order: {order_told(passes)}; then confirm",
               told("pay_and_collect", clauses=[p.clause for p in passes], seats={n for p in passes for n in p.seats},
                    wagers={w for p in passes for w in p.wagers}))
        self.log_settlement()
        for listener in self._on_settled:
            listener(r.round_id)
        await self.progressive.hold_for_validation()

    async def deal_rest_and_settle(self) -> None:
        """Every player has acted: the cards still to come are dealt, then the round is settled."""
        if await self.finished(await self.deal.all_streets()):
            await self.reveal_and_settle()

    def log_settlement(self) -> None:
        """Each step of the order of payment (P65), in order."""
        s = self.s
        r = s.open_round()
        assert r.settlement is not None and r.payments is not None
        hands = {seat.seat: seat.hand for seat in r.settlement.seats}
        nets = {seat.seat: seat.net for seat in r.settlement.seats}
        for step, p in enumerate(r.payments, 1):
            wagers = ", ".join(f"{w.wager} {w.result} {display(w.net):+}" for w in p.wagers)
            hand = hands[p.seat]
            shown = hand.get("hand") or " / ".join(f"{k} {v['hand']}" for k, v in hand.items())
            s.log.info("settle", round_id=r.round_id, step=step, seat=p.seat, clause=p.clause,
                       hand=shown if p.shows_hand else None, wagers=wagers, seat_net=str(display(nets[p.seat])))

    async def void_pressed(self) -> None:
        """``void_round`` with the floor supervisor's key: all hands void (R7a)."""
        s = self.s
        who = await s.supervisor("void_round")
        if who is None:
            raise Refused("voiding a round needs the floor supervisor's key", "key_needed")
        if s.round is None or not s.round.can_void():
            raise Refused("no open round to void", "no_round")
        await self.void(f"voided by {who}", cause="supervisor")

    async def void(self, reason: str, keep: frozenset[str] = frozenset(), cause: str | None = None) -> None:
        s = self.s
        r = s.open_round()
        ask(r.can_void())
        await r.void(reason, keep)
        # a player who left lost the progressive wager (P42): its contribution stays
        accepted = sum(1 for seat in r.players if "progressive" in seat.wagers)
        if accepted and "progressive" not in keep:  # R7a: the returned progressive wagers' contributions go back
            await self.progressive.take_back_all(accepted)
        s.tell(f"round void ({reason}): return every wager, then confirm", told("voided", cause=cause, wagers=keep))

    async def void_irregular(self, found: Found) -> None:
        """P40: an irregularity whose remedy leaves nobody a choice: all hands void (R7a), except the
        wagers the clause keeps alive, settled on the cards; the dealer is told what to do and confirms.
        The round is VOIDED: nothing more happens in it."""
        s = self.s
        r = s.open_round()
        reason, keep, remove_deck, device = found.reason, found.keep, found.remove_deck, found.device
        await self.void(reason, keep)
        s.log.warning("irregularity", round_id=r.round_id, reason=reason, kept=sorted(keep),
                      deck_removed=bool(remove_deck), device=device)
        todo = ("return every wager" if not keep
                else f"settle {', '.join(sorted(keep))} as shown, return every other wager")
        todo += "; the cards are reshuffled with those dealt"
        if remove_deck:
            # UTH ch.8 §G(2), UTH ch.5 §E: a deck that is not 52 cards of one deck leaves the table
            s.life.record(ev.DeckRemoved(reason=remove_deck, round=r.round_id, irregularity=reason))
            s.life.require(opening_steps(s.cfg), f"deck removed: {remove_deck}")
            todo += f"; REMOVE THE DECK from the table ({remove_deck}): new decks go through the opening steps"
        s.tell(f"IRREGULARITY: {reason}: all hands void -- {todo}; then confirm",
               told("irregularity", cause=found.cause, clauses=found.clauses, remove_deck=bool(remove_deck),
                    wagers=keep, device=device, counts=found.counts))
        for listener in self._on_irregular:
            listener(r.round_id, found)
        if keep:
            self.log_settlement()
            await self.progressive.hold_for_validation()
        await s.buzz()  # the dealer has been told what happened and what to do

def order_told(passes: Iterable[round_settlement.PassOfPayment]) -> str:
    """The order of payment as the dealer is told it (P65), the one rendering of it: each pass with its
    wagers in the pass's declared order and its seats from the dealer's right (RULINGS R1)."""
    return "; then ".join(f"{', '.join(w.replace('_', ' ') for w in p.wagers)} at seat "
                          f"{', '.join(map(str, p.seats))} ({p.clause})" for p in passes)

"""The deal: the cards from the shuffler or the shoe to their places, in the rules' order (UTH ch.8-ch.10).

Owns the initial deal (the stacks of UTH ch.10 §B, or card by card per UTH ch.8 §D / UTH ch.9 §B;
HCF ch.8 §D-§E), the streets dealt between decisions, the dealer's cards held in the shuffler
(UTH ch.10 §B(4), JHE ch.10 §B(3)), the stub count of the card-reading shoe (UTH ch.8 §E-§G,
HCF ch.8 §G-§J, RET ch.8 §E-§F), and what the dealer sees of a deal in progress
(``expecting``: cards asked of the shoe; ``next_place``: where the next one goes).

While it waits for a card from the shoe, the panel is served: each press goes to ``on_press``
(the panel part's ``during_deal``), which answers with ``SeatSkip`` when the dealer reported a
seat skipped (RET ch.13 §G: the deal is re-routed without it), or None.  A press or a card that
stops the round (all hands void) leaves the round VOIDED: every step of the deal returns False
then, and nothing more is dealt.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from controller import events as ev
from controller.irregularities import clause
from controller.round.machine import Phase
from controller.service.refused import Refused, ask
from controller.service.session import Session
from controller.service.told import told
from drivers.health import DeviceError
from drivers.panel import ButtonPress
from drivers.shoe import CardDrawn
from games.dealing import Place, Procedure, dealer_release_stack, initial_deal, stacks, street_deal

CARD_TIMEOUT = 300.0  # a dealer drawing from a shoe: after this, the round halts (fail closed)


@dataclass(frozen=True)
class SeatSkip:
    """Reported during a deal: ``seat`` got no card (RET ch.13 §G); the deal goes on without it."""

    seat: int
    who: str


PressDuringDeal = Callable[[ButtonPress], Awaitable[SeatSkip | None]]


def place_key(place: Place) -> str:
    """games.dealing's Place as the round's place string."""
    match place:
        case ("seat", seat, _):
            return f"seat:{seat}"
        case ("community", index):
            return f"community:{index}"
        case ("bonus_box", _):
            return "bonus"
    return place[0]  # dealer, burn


async def _no_press_handler(press: ButtonPress) -> SeatSkip | None:
    raise AssertionError("the deal was not wired to the panel")


class Deal:
    def __init__(self, s: Session) -> None:
        self.s = s
        self.on_press: PressDuringDeal = _no_press_handler
        self.expecting = 0  # cards the daemon waits for from the shoe now (shown to the dealer)
        # which request ``expecting`` belongs to: a status republished meanwhile (a heartbeat, a device's
        # health) repeats the same request, so a dealer (or the demo's) draws its cards once, not again
        self.card_request: str | None = None
        self._requests = itertools.count(1)
        self._instance = f"{time.time_ns():x}"  # requests of an earlier run of the daemon are other requests
        self.next_place: str | None = None  # where the next card of a deal goes (shown to the dealer)
        self.streets_dealt = 0
        self.face_up_this_round = 0

    @property
    def procedure(self) -> Procedure:
        return self.s.parts.devices.procedure

    async def initial(self) -> None:
        """The initial deal: the stacks of UTH ch.10 §B, or card by card per UTH ch.8 §D / UTH ch.9 §B
        (HCF ch.8 §D-§E)."""
        s = self.s
        devices = s.parts.devices
        r = s.open_round()
        self.streets_dealt, self.face_up_this_round = 0, 0
        seats = sorted(r.seats)
        if devices.shuffler is not None and s.life.last_shuffled:  # one deck or two: which one dealt (UTH ch.3 §A-§B)
            s.life.record(ev.DeckDealt(deck=s.life.last_shuffled, round=r.round_id))
        if devices.shoe_reads_the_cards and devices.shoe is not None and devices.shoe.pending:
            # cards out of the shoe before no more bets: not part of this deal (UTH ch.8 §C-§D)
            ask(r.can_halt())
            await r.halt_round(f"{devices.shoe.pending} card(s) drawn from the shoe before the deal")
            raise Refused("cards were drawn before the deal: void the round and reload the shoe")
        if self.procedure is Procedure.AUTOMATED:
            held = s.cfg.dealing.dealer_cards == "in_shuffler"
            for stack in stacks(s.game, seats, dealer_in_shuffler=held):
                if stack.held:
                    assert devices.shuffler is not None
                    await devices.shuffler.hold(stack.size)
                    continue
                if not await self.places(stack.places, as_stack=True):
                    return
        elif not await self.places(initial_deal(s.game, self.procedure, seats)):
            return
        nxt = r.to_act()
        s.tell(f"cards dealt; seat {nxt.seat if nxt else '-'} to act",
               told("cards_dealt", seats=[nxt.seat] if nxt else []))

    async def streets(self, upto: int) -> bool:
        """Cards dealt between decisions (UTH's flop and turn-and-river from a shoe or by hand).
        False: the round was stopped."""
        if self.procedure is Procedure.AUTOMATED:
            return True
        while self.streets_dealt < upto:
            self.streets_dealt += 1
            if not await self.places(street_deal(self.s.game, self.procedure, self.streets_dealt)):
                return False
        return True

    async def all_streets(self) -> bool:
        return await self.streets(len(self.s.game.streets))

    def recover_streets(self) -> bool:
        """How many streets' cards a resumed round has had dealt; True when one was dealt only in part,
        or when the initial deal was (see ``initial_deal_cut_short``): a deal cut short (P34)."""
        s = self.s
        r = s.open_round()
        self.streets_dealt = 0
        if self.initial_deal_cut_short():
            return True
        if self.procedure is Procedure.AUTOMATED:
            return False
        for k in range(1, len(s.game.streets) + 1):
            places = [p for p in street_deal(s.game, self.procedure, k) if p[0] == "community"]
            dealt = [p for p in places if r._community_index(str(p[1])) in r.community]
            if places and len(dealt) == len(places):
                self.streets_dealt = k
            elif dealt:
                return True
            else:
                break
        return False

    def initial_deal_cut_short(self) -> bool:
        """A round resumed in its decisions whose initial deal is not all on the layout.

        The decisions open once every player has his cards (``RoundController``), but the initial deal
        may go on after that: by hand or from a manual shoe the dealer's last card (UTH ch.8 §D(2),
        UTH ch.9 §B(2); HCF ch.8 §E, HCF ch.9 §B(2)) and JHE's five community cards (JHE ch.8 §D(3),
        JHE ch.9 §B(3)) come after the players'; from the automated shuffler the dealer's stack after the
        seats' (HCF ch.10 §B(2)).  A daemon stopped there has cards out of the deck it never journaled, and no press
        deals the rest (JHE: the decision after the river is refused for ever, "deal the community
        cards of this street first"): the deal was cut short (P47, P34).  The dealer's stack held in the
        shuffler (UTH ch.10 §B(4), JHE ch.10 §B(3)) is not yet due."""
        s = self.s
        r = s.open_round()
        phase = r.halted_from if r.phase is Phase.HALTED else r.phase
        if phase is not Phase.DECISIONS or not r.players:
            return False
        seats = [p.seat for p in r.players]
        if self.procedure is Procedure.AUTOMATED:
            held = s.cfg.dealing.dealer_cards == "in_shuffler"
            places = [p for stack in stacks(s.game, seats, dealer_in_shuffler=held) if not stack.held
                      for p in stack.places]
        else:
            places = initial_deal(s.game, self.procedure, seats)
        for place in places:
            match place:
                case ("seat", seat, i):
                    dealt = len(r.seats[seat].cards) > i
                case ("dealer", i):
                    dealt = len(r.dealer) > i
                case ("community", c):
                    dealt = r._community_index(str(c)) in r.community
                case ("bonus_box", i):
                    dealt = len(r.bonus_box) > i
                case _:
                    dealt = True
            if not dealt:
                return True
        return False

    # ------------------------------------------------------------------ the cards

    async def _cards(self, n: int, *, as_stack: bool) -> list[tuple[str, bool]] | SeatSkip | None:
        """``n`` cards from this table's source, each with its face-up flag; a seat skipped meanwhile,
        or None when the round was stopped."""
        devices = self.s.parts.devices
        shuffler = devices.shuffler
        if shuffler is not None and not devices.shoe_reads_the_cards:
            if as_stack:
                stack = await shuffler.deliver(n)
                return list(zip(stack.cards, stack.face_up, strict=True))
            out = []
            for _ in range(n):  # dealt by hand: the top card, one at a time (UTH ch.9 §B(1), RET ch.9 §B(2))
                stack = await shuffler.deliver(1)
                out.append((stack.cards[0], stack.face_up[0]))
            return out
        out = []
        self.expecting = n
        self.card_request = f"{self._instance}-{next(self._requests)}"
        self.s.publish()
        try:
            for _ in range(n):
                drawn = await self._next_card()
                if not isinstance(drawn, CardDrawn):
                    return drawn
                out.append((drawn.card, drawn.face_up))
                self.expecting -= 1
        finally:
            self.expecting = 0
            self.card_request = None
        return out

    async def _next_card(self) -> CardDrawn | SeatSkip | None:
        """The next card out of the shoe.  Meanwhile the panel is served (``on_press``) for what can
        happen during a deal -- the irregularity menu (P41) and void_round."""
        s = self.s
        shoe, panel = s.parts.devices.shoe, s.parts.devices.panel
        assert shoe is not None and panel is not None
        deadline = time.monotonic() + CARD_TIMEOUT
        card = asyncio.ensure_future(shoe.next_card())
        try:
            while True:
                press = asyncio.ensure_future(panel.next_press())
                done, _ = await asyncio.wait({card, press}, timeout=max(0.0, deadline - time.monotonic()),
                                             return_when=asyncio.FIRST_COMPLETED)
                if press in done:
                    skipped = await self.on_press(press.result())
                    if skipped is not None or s.stopped():
                        return skipped
                else:
                    press.cancel()  # a queue get: cancelling it loses no press
                if card in done:
                    return card.result()
                if not done:
                    raise DeviceError("shoe", f"no card drawn in {CARD_TIMEOUT:.0f} s")
                s.publish()
        finally:
            card.cancel()

    async def places(self, places: Iterable[Place], *, as_stack: bool = False) -> bool:
        """Deal one card to each place, in order (a face-up card is not used: UTH ch.13 §A-§B,
        RET ch.13 §A).
        False: the round was stopped."""
        s = self.s
        remedies = s.parts.remedies
        r = s.open_round()
        order = list(places)
        todo = list(order)
        dealt: list[tuple[str, str]] = []  # (place, card) of this deal so far, in order
        while todo:
            self.next_place = place_key(todo[0])  # public: where the next card goes
            try:
                got = await self._cards(len(todo) if as_stack else 1, as_stack=as_stack)
            finally:
                self.next_place = None
            if got is None:
                return False
            if isinstance(got, SeatSkip):
                # RET ch.13 §G (P44): the cards of this deal went to the places without the seat
                order = [p for p in order if not (p[0] == "seat" and p[1] == got.seat)]
                if len(dealt) > len(order):
                    raise Refused("more cards dealt than the places without that seat: "
                                       "a wrong number of cards voids the round instead")
                moved = [(place_key(p), card) for p, (_, card) in zip(order, dealt, strict=False)]
                await remedies.skip_seat(got.seat, got.who, moved)
                dealt, todo = moved, order[len(moved):]
                continue
            for card, face_up in got:
                if r.has_card(card):
                    await remedies.card_of_another_deck("the same card came out twice this round")
                    return False
                if face_up:
                    await self._face_up_card(card)
                    if s.stopped():
                        return False
                    if as_stack and not s.parts.devices.shoe_reads_the_cards:
                        await remedies.face_up_in_stack("a card came out of the shuffler face up inside a stack")
                        return False
                    continue
                place = place_key(todo.pop(0))
                ask(r.can_deal(place, card))
                await r.card(place, card)
                dealt.append((place, card))
        return True

    async def _face_up_card(self, card: str) -> None:
        """UTH ch.13 §A: a card found face up is not used; §B: a second one voids every hand (RET ch.13 §A:
        the first)."""
        s = self.s
        self.face_up_this_round += 1
        r = s.open_round()
        ask(r.can_discard(card))
        # journaled: the round stays reconstructable
        await r.discard(card, f"found face up while dealing ({s.game.cite('found_face_up')})")
        if s.game.name == "run_em_twice" or self.face_up_this_round > 1:
            what = "a card" if s.game.name == "run_em_twice" else f"{self.face_up_this_round} cards"
            where = clause('face_up', s.game.short)
            await s.parts.remedies.irregular_void(f"{what} found face up while dealing ({where})", cause="face_up",
                                                  clauses=(where,))
            return
        where = s.game.cite('found_face_up')
        s.tell(f"a card came out face up: it is not used, place it in the discard rack ({where})",
               told("card_discarded", cause="face_up", clauses=(where,)))

    async def release_dealer_cards(self) -> bool:
        """The dealer's cards held in the shuffler (UTH ch.10 §B(4)) come out now.  False: the round was
        stopped."""
        s = self.s
        r = s.open_round()
        if s.cfg.dealing.dealer_cards == "in_shuffler" and len(r.dealer) < s.game.dealer_cards:
            shuffler = s.parts.devices.shuffler
            assert shuffler is not None
            stack = dealer_release_stack(s.game)
            released = await shuffler.release()
            if any(released.face_up):
                await s.parts.remedies.face_up_in_stack("a dealer card came out of the shuffler face up")
                return False
            for place, card in zip(stack.places, released, strict=False):
                if r.has_card(card):
                    await s.parts.remedies.card_of_another_deck("the same card came out twice this round")
                    return False
                ask(r.can_deal(place_key(place), card))
                await r.card(place_key(place), card)
        return True

    async def count_stub(self) -> bool:
        """UTH ch.8 §E-§G (HCF ch.8 §G-§J, RET ch.8 §E-§F): the stub is counted -- here by the card-reading
        shoe, every round.

        The cards the shoe counts as drawn must be the cards this round journaled, and
        drawn + left must be a whole deck; otherwise the round stops for the supervisor
        (all hands void; a deck that is not 52 cards is removed, UTH ch.8 §G(1)-(2), HCF ch.8 §J(1)-(2),
        RET ch.8 §F(4)-(5)).  False: it stopped.
        """
        s = self.s
        r = s.open_round()
        shoe = s.parts.devices.shoe
        assert shoe is not None
        st = await shoe.status()
        deck = st.position + st.remaining
        if st.position != r.cards_out() or deck != 52:
            # UTH ch.8 §G(1) (HCF ch.8 §J(1), RET ch.8 §F(4)): misdealt with 52 cards in the deck: void;
            # UTH ch.8 §G(2) (HCF ch.8 §J(2), RET ch.8 §F(5)): the deck is wrong: void and remove it
            where = clause('stub_count', s.game.short)
            why = (f"stub count: the shoe has {st.position} cards drawn and {st.remaining} left, "
                   f"the round took {r.cards_out()} ({where})")
            counts = {"drawn": st.position, "left": st.remaining, "round_took": r.cards_out()}
            if s.parts.devices.shuffler is not None and s.life.last_count is not None:
                # a known real-world failure: the shuffler counted a whole deck that is not one
                why += f"; the shuffler counted {s.life.last_count} after its last shuffle"
                counts["shuffler"] = s.life.last_count
            await s.parts.remedies.irregular_void(why, cause="stub_count", clauses=(where,), counts=counts,
                                                  device="shoe",
                                                  remove_deck=f"{deck} cards in it" if deck != 52 else None)
            return False
        return True

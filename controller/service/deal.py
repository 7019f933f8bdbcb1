"""The deal: the cards from the shuffler or the shoe to their places, in the rules' order (UTH ch.8-ch.10).

Owns the initial deal (the stacks of UTH ch.10 §B, or card by card per UTH ch.8 §D / UTH ch.9 §B;
HCF ch.8 §D-§E), the streets dealt between decisions, the dealer's cards held in the shuffler
(UTH ch.10 §B(4), JHE ch.10 §B(3)), the stub count of the card-reading shoe (UTH ch.8 §E-§G,
HCF ch.8 §G-§J, RET ch.8 §E-§F), and what the dealer sees of a deal in progress
(``expecting``: cards asked of the shoe; ``next_place``: where the next one goes).

While it waits for a card from the shoe, the panel is served: each press goes to ``on_press``
(the panel part's ``during_deal``, given when the deal is built), which answers with ``SeatSkip``
when the dealer reported a seat skipped (RET ch.13 §G: the deal re-routes itself without it, its
wagers returned), or None.

A step of the deal says how it ended (``Dealt``): True, dealt; False, a press stopped the round
meanwhile (all hands void: nothing more is dealt); or what it found that voids every hand (``Found``:
a card seen twice, a card face up inside a stack, a second card face up, a stub count that does not
match, P40).  The deal does not apply that remedy: it returns what it found, and the caller has it
applied (``Settling.finished``).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from controller import events as ev
from controller.irregularities import clause
from controller.protection import witnesses as wit
from controller.round.machine import Phase
from controller.service.devices import Devices
from controller.service.progressive import ProgressiveSystem
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


@dataclass(frozen=True)
class Found:
    """What a device showed during the deal whose remedy leaves nobody a choice (P40): all hands void (R7a)
    but the wagers ``keep`` names; ``cause`` names the irregularity for the status's ``told``, ``clauses``
    are the citations ``reason`` gives (the same strings); ``remove_deck`` why the deck leaves the table."""

    reason: str
    cause: str
    clauses: tuple[str, ...]
    keep: frozenset[str] = frozenset()
    remove_deck: str | None = None
    device: str | None = None
    counts: dict[str, int] | None = None
    evidence: dict[str, Any] | None = None  # a protection finding's (issue 28): journaled with it


Dealt = bool | Found  # True: dealt; False: the round was stopped meanwhile; Found: stopped, its remedy is due


def card_of_another_deck(short: str, seen: str) -> Found:
    """P40: a card seen twice in one round means a card of another deck is in this one: every hand
    void, and the deck leaves the table as one that is not 52 cards of one deck (UTH ch.8 §G(2))."""
    where = clause("stub_count", short)
    return Found(f"{seen}: a card from another deck (P40; {where})", "card_of_another_deck", ("P40", where),
                 remove_deck="a card of another deck is in it")


def card_switched(short: str, found: list[wit.Discrepancy]) -> Found:
    """P111: the three witnesses disagree on a card (issue 28): a card was switched.  No clause names it: the
    hands do not hold the cards the deck dealt, as with a wrong number of cards (UTH ch.13 §E) every hand is
    void, and the deck leaves the table as one that is not 52 cards of one deck (UTH ch.8 §G(2))."""
    wrong, deck = clause("wrong_number_of_cards", short), clause("stub_count", short)
    what = ", ".join(wit.WORDS[d.what].lower() for d in found)
    return Found(f"card switched: {what} (P111; {wrong}; {deck})", wit.FINDING, ("P111", wrong, deck),
                 remove_deck="a card was switched", evidence=wit.evidence(found))


def face_up_in_stack(short: str, what: str) -> Found:
    """P35: a stack cannot skip a card as a shoe can (UTH ch.13 §A): every hand void."""
    where = clause("face_up", short)
    return Found(f"{what} (P35; {where})", "face_up_in_stack", ("P35", where))


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


class Deal:
    def __init__(self, s: Session, devices: Devices, progressive: ProgressiveSystem, *,
                 on_press: PressDuringDeal) -> None:
        self.s = s
        self.devices = devices
        self.progressive = progressive  # a seat skipped: its contribution taken back (R7a)
        self.on_press = on_press  # a press while the deal waits on the shoe (the panel's ``during_deal``)
        self.expecting = 0  # cards the daemon waits for from the shoe now (shown to the dealer)
        # which request ``expecting`` belongs to: a status republished meanwhile (a heartbeat, a device's
        # health) repeats the same request, so a dealer (or the demo's) draws its cards once, not again
        self.card_request: str | None = None
        self._requests = itertools.count(1)
        self._instance = f"{time.time_ns():x}"  # requests of an earlier run of the daemon are other requests
        self.next_place: str | None = None  # where the next card of a deal goes (shown to the dealer)
        self.streets_dealt = 0
        self.face_up_this_round = 0
        self.witnesses = wit.Witnesses()  # every card's reads, reconciled before settlement (issue 28)

    @property
    def procedure(self) -> Procedure:
        return self.devices.procedure

    async def initial(self) -> Dealt:
        """The initial deal: the stacks of UTH ch.10 §B, or card by card per UTH ch.8 §D / UTH ch.9 §B
        (HCF ch.8 §D-§E)."""
        s = self.s
        devices = self.devices
        r = s.open_round()
        self.streets_dealt, self.face_up_this_round = 0, 0
        from_shuffler = devices.shuffler is not None and not devices.shoe_reads_the_cards
        self.witnesses.start(r.round_id, s.life.last_shuffled if from_shuffler else None)
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
                got = await self.places(stack.places, as_stack=True)
                if got is not True:
                    return got
        else:
            got = await self.places(initial_deal(s.game, self.procedure, seats))
            if got is not True:
                return got
        nxt = r.to_act()
        s.tell(f"cards dealt; seat {nxt.seat if nxt else '-'} to act",
               told("cards_dealt", seats=[nxt.seat] if nxt else []))
        return True

    async def streets(self, upto: int) -> Dealt:
        """Cards dealt between decisions (UTH's flop and turn-and-river from a shoe or by hand)."""
        if self.procedure is Procedure.AUTOMATED:
            return True
        while self.streets_dealt < upto:
            self.streets_dealt += 1
            got = await self.places(street_deal(self.s.game, self.procedure, self.streets_dealt))
            if got is not True:
                return got
        return True

    async def all_streets(self) -> Dealt:
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

    async def _cards(self, n: int, *, as_stack: bool,
                     stack_index: int | None = None) -> list[wit.Read] | SeatSkip | None:
        """``n`` cards from this table's source, each as its device read it (``stack_index``: the stack the
        witnesses were told of); a seat skipped meanwhile, or None when the round was stopped."""
        devices = self.devices
        shuffler = devices.shuffler
        if shuffler is not None and not devices.shoe_reads_the_cards:
            if as_stack:
                stack = await shuffler.deliver(n)
                return [wit.Read("shuffler", stack.first_position + i, card, up, stack_index, stack.deck)
                        for i, (card, up) in enumerate(zip(stack.cards, stack.face_up, strict=True))]
            out: list[wit.Read] = []
            for _ in range(n):  # dealt by hand: the top card, one at a time (UTH ch.9 §B(1), RET ch.9 §B(2))
                stack = await shuffler.deliver(1)
                out.append(wit.Read("shuffler", stack.first_position, stack.cards[0], stack.face_up[0],
                                    None, stack.deck))
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
                out.append(wit.Read("shoe", drawn.position, drawn.card, drawn.face_up))
                self.expecting -= 1
        finally:
            self.expecting = 0
            self.card_request = None
        return out

    async def _next_card(self) -> CardDrawn | SeatSkip | None:
        """The next card out of the shoe.  Meanwhile the panel is served (``on_press``) for what can
        happen during a deal -- the irregularity menu (P41) and void_round."""
        s = self.s
        shoe, panel = self.devices.shoe, self.devices.panel
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

    async def places(self, places: Iterable[Place], *, as_stack: bool = False) -> Dealt:
        """Deal one card to each place, in order (a face-up card is not used: UTH ch.13 §A-§B,
        RET ch.13 §A)."""
        s = self.s
        r = s.open_round()
        if self.witnesses.round_id != r.round_id:  # resumed after a restart: the journal witnessed what came before
            self.witnesses.start(r.round_id, partial=True)
        order = list(places)
        todo = list(order)
        dealt: list[tuple[str, str]] = []  # (place, card) of this deal so far, in order
        while todo:
            self.next_place = place_key(todo[0])  # public: where the next card goes
            stack_index = self.witnesses.stack([place_key(p) for p in todo]) if as_stack else None
            try:
                got = await self._cards(len(todo) if as_stack else 1, as_stack=as_stack, stack_index=stack_index)
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
                await self.skip_seat(got.seat, got.who, moved)
                for place, card in moved:
                    self.witnesses.placed(place, card)
                dealt, todo = moved, order[len(moved):]
                continue
            for read in got:
                card, face_up = read.card, read.face_up
                if r.has_card(card):
                    return card_of_another_deck(s.game.short, "the same card came out twice this round")
                contradicted = self.witnesses.read(read)
                if contradicted is not None and contradicted.what == "card_read_twice":  # a burned card's twin
                    return card_of_another_deck(s.game.short, "the same card came out twice this round")
                if contradicted is not None:
                    return card_switched(s.game.short, [contradicted])
                if face_up:
                    found = await self._face_up_card(card)
                    if found is not None:
                        return found
                    if s.stopped():
                        return False
                    if as_stack and not self.devices.shoe_reads_the_cards:
                        return face_up_in_stack(s.game.short, "a card came out of the shuffler face up inside a stack")
                    continue
                place = place_key(todo.pop(0))
                ask(r.can_deal(place, card))
                await r.card(place, card)
                self.witnesses.placed(place, card)
                dealt.append((place, card))
        return True

    async def _face_up_card(self, card: str) -> Found | None:
        """UTH ch.13 §A: a card found face up is not used; §B: a second one voids every hand (RET ch.13 §A:
        the first): found."""
        s = self.s
        self.face_up_this_round += 1
        r = s.open_round()
        ask(r.can_discard(card))
        # journaled: the round stays reconstructable
        await r.discard(card, f"found face up while dealing ({s.game.cite('found_face_up')})")
        if self.face_up_this_round >= s.game.face_up_voids_at:
            what = "a card" if self.face_up_this_round == 1 else f"{self.face_up_this_round} cards"
            where = clause('face_up', s.game.short)
            return Found(f"{what} found face up while dealing ({where})", "face_up", (where,))
        where = s.game.cite('found_face_up')
        s.tell(f"a card came out face up: it is not used, place it in the discard rack ({where})",
               told("card_discarded", cause="face_up", clauses=(where,)))
        return None

    async def release_dealer_cards(self) -> Dealt:
        """The dealer's cards held in the shuffler (UTH ch.10 §B(4)) come out now."""
        s = self.s
        r = s.open_round()
        if s.cfg.dealing.dealer_cards == "in_shuffler" and len(r.dealer) < s.game.dealer_cards:
            shuffler = self.devices.shuffler
            assert shuffler is not None
            stack = dealer_release_stack(s.game)
            if self.witnesses.round_id != r.round_id:  # resumed after a restart (see ``places``)
                self.witnesses.start(r.round_id, partial=True)
            index = self.witnesses.stack([place_key(p) for p in stack.places])
            released = await shuffler.release()
            if any(released.face_up):
                return face_up_in_stack(s.game.short, "a dealer card came out of the shuffler face up")
            for i, (place, card) in enumerate(zip(stack.places, released, strict=False)):
                if r.has_card(card):
                    return card_of_another_deck(s.game.short, "the same card came out twice this round")
                contradicted = self.witnesses.read(wit.Read("shuffler", released.first_position + i, card, False,
                                                            index, released.deck))
                if contradicted is not None:
                    return card_switched(s.game.short, [contradicted])
                ask(r.can_deal(place_key(place), card))
                await r.card(place_key(place), card)
                self.witnesses.placed(place_key(place), card)
        return True

    def reconcile(self) -> Dealt:
        """The three witnesses before the settlement (issue 28, P111): the hands the settlement is about to
        score against the devices' reads; a discrepancy is a card switched: found."""
        s = self.s
        r = s.open_round()
        if self.witnesses.round_id != r.round_id:  # resumed after a restart: the journal witnessed what came before
            self.witnesses.start(r.round_id, partial=True)
        found = self.witnesses.reconcile(wit.scored_places(r.settle_input()))
        return card_switched(s.game.short, found) if found else True

    async def count_stub(self) -> Dealt:
        """UTH ch.8 §E-§G (HCF ch.8 §G-§J, RET ch.8 §E-§F): the stub is counted -- here by the card-reading
        shoe, every round.

        The cards the shoe counts as drawn must be the cards this round journaled, and
        drawn + left must be a whole deck; otherwise the round stops for the supervisor
        (all hands void; a deck that is not 52 cards is removed, UTH ch.8 §G(1)-(2), HCF ch.8 §J(1)-(2),
        RET ch.8 §F(4)-(5)): found.
        """
        s = self.s
        r = s.open_round()
        shoe = self.devices.shoe
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
            if self.devices.shuffler is not None and s.life.last_count is not None:
                # a known real-world failure: the shuffler counted a whole deck that is not one
                why += f"; the shuffler counted {s.life.last_count} after its last shuffle"
                counts["shuffler"] = s.life.last_count
            return Found(why, "stub_count", (where,), counts=counts, device="shoe",
                         remove_deck=f"{deck} cards in it" if deck != 52 else None)
        return True

    async def skip_seat(self, seat: int, who: str, cards: list[tuple[str, str]]) -> None:
        """RET ch.13 §G: the seat plays the next hand; its wagers are returned (and a progressive
        wager's contribution taken back, R7a), every card dealt so far is where it really went."""
        s = self.s
        r = s.open_round()
        meters = self.progressive.without_contribution(seat)
        ask(r.can_skip_seat(seat, cards))
        await r.skip_seat(seat, who, cards, meters)
        await self.progressive.take_back_contribution(meters)
        where = clause("skipped", s.game.short)
        s.tell(f"seat {seat} was skipped ({where}, {who}): it plays the next hand, its wagers stay for it; "
               "dealing goes on without it", told("seat_skipped", clauses=(where,), seats=[seat]))

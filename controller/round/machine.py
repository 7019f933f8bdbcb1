"""One round of play: a ``transitions`` state machine over the facts the rules care about.

``RoundController`` does not talk to devices: the daemon feeds it what the devices and the dealer report,
each fact appended to the journal first and then applied through its one ``@applies`` method, so that
replaying a round's journal rebuilds it after a crash (``RoundController.restore``).  Every action has its
question (``can_...``) answering with an ``Answer`` instead of raising.  Its phases, its helpers and what it
keeps secret: docs/architecture.md (the round).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from transitions.extensions.asyncio import AsyncMachine

from controller import events as ev
from controller.round import decisions as round_decisions
from controller.round import settlement as round_settlement
from controller.round import view as round_view
from controller.round.layout import Layout
from controller.round.state import (
    ALLOWED,
    OPEN_PHASES,
    TRANSITIONS,
    Answer,
    JournalLike,
    NoJournal,
    Phase,
    RoundRefused,
    SeatState,
    TableSetup,
    no,
)
from games.cards import Card, parse_card
from games.game import Street
from games.registry import GAMES
from games.round import Settlement

#: what turns cards face up: after these, the round journals the reveals due (P66)
_REVEALING = (ev.CardDealt, ev.DecisionMade, ev.SeatAbandoned)
#: journaled with the round but not its state: the table's meters, and the opening (the setup)
_NOT_ROUND_STATE = (ev.RoundOpened, *ev.METERS)


class RoundController(Layout, ev.Applier):
    """One round.  Create with ``await RoundController.open(...)`` or ``restore(...)``."""

    state: str  # set by the machine

    if TYPE_CHECKING:
        # The machine's triggers (TRANSITIONS), bound by ``AsyncMachine`` on the model; declared here only
        # for the type checker, because ``transitions`` does not bind a trigger over an existing attribute.
        async def wagers_closed(self) -> bool: ...
        async def start_dealing(self) -> bool: ...
        async def open_decisions(self) -> bool: ...
        async def all_acted(self) -> bool: ...
        async def settled(self) -> bool: ...
        async def finish(self) -> bool: ...
        async def voided(self) -> bool: ...
        async def halt(self) -> bool: ...
        async def resume(self) -> bool: ...

    def __init__(self, round_id: str, setup: TableSetup, journal: JournalLike | None = None) -> None:
        if setup.game not in GAMES:
            raise RoundRefused(f"unknown game {setup.game!r}", "game")
        self.round_id = round_id
        self.setup = setup
        super().__init__(GAMES[setup.game])
        self.journal: JournalLike = journal or NoJournal()
        self.street = 0
        self.halted_from: Phase | None = None
        self.halt_reason: str | None = None
        self.settlement: Settlement | None = None
        self.void_reason: str | None = None
        self.progressive_count: int | None = None
        self.revealed: list[str] = []  # the game's reveals journaled so far, in order (P66)
        # the order of payment journaled with the settlement or the void (P65)
        self.payments: tuple[ev.PaymentStep, ...] | None = None
        self.machine = AsyncMachine(
            model=self,
            states=list(Phase),
            transitions=TRANSITIONS,
            initial=Phase.WAGERS,
            auto_transitions=False,
            queued="model",
        )
        for p in OPEN_PHASES:
            setattr(self, f"_halted_in_{p.value}", lambda p=p: self.halted_from == p)

    # ------------------------------------------------------------------ life cycle

    @classmethod
    async def open(cls, round_id: str, setup: TableSetup, journal: JournalLike) -> RoundController:
        r = cls(round_id, setup, journal)
        # this round journals its reveals and order of payment (P66): a replay of an older round says they are missing
        opened = ev.RoundOpened(game=setup.game, paytables=dict(setup.paytables),
                             progressive=dict(setup.progressive) if setup.progressive is not None else None,
                             payout_limit=setup.payout_limit, steps_journaled=True)
        r.journal.record(opened, round_id)
        return r

    @classmethod
    async def restore(cls, round_id: str, setup: TableSetup,
                      events: Iterable[tuple[str, Mapping[str, Any]] | ev.AnyEvent],
                      journal: JournalLike | None = None) -> RoundController:
        """Rebuild a round from its journal events (``(kind, data)`` rows or typed events, in order) without
        journaling them again."""
        r = cls(round_id, setup, NoJournal())
        for item in events:
            event = ev.parse(*item) if isinstance(item, tuple) else item
            if isinstance(event, _NOT_ROUND_STATE):  # the table's meters are not the round's state
                continue
            await r.apply(event)
        r.journal = journal or NoJournal()
        if journal is not None:
            await r._journal_reveals()  # the daemon stopped between a card or decision and its reveal
        return r

    async def apply(self, event: ev.AnyEvent) -> None:
        """Apply one journaled event to the round (the one path, live and in a replay)."""
        applier = self.applier(event)
        if applier is None:
            raise ev.EventFormatError(f"{event.kind} is not an event of a round")
        await applier(event)

    @property
    def phase(self) -> Phase:
        return Phase(self.state)

    async def _record(self, event: ev.JournalEvent) -> None:
        """Journal first, then apply: nothing takes effect that is not on disk."""
        self.journal.record(event, self.round_id)
        await self.apply(event)
        if isinstance(event, _REVEALING):
            await self._journal_reveals()

    async def _journal_reveals(self) -> None:
        """Journal each of the game's reveals (games.procedure) once its cards are face up, in the rules'
        order (P66).  Face up is what ``public_view`` shows: a reveal never shows a card earlier."""
        for reveal in self.game.reveals[len(self.revealed):]:
            cards = round_view.face_up(self, reveal.places)
            if cards is None:
                return
            await self._record(ev.Revealed(what=reveal.name, cards=tuple(cards), clause=reveal.clause))

    @ev.applies(ev.Revealed)
    async def _apply_revealed(self, e: ev.Revealed) -> None:
        self.revealed.append(e.what)

    def _in(self, *phases: Phase) -> Answer:
        if self.phase not in phases:
            return no("phase", f"not now: the round is in {self.phase.value}")
        return ALLOWED

    # ------------------------------------------------------------------ wagers

    def can_place_wager(self, seat: int, wager: str, amount: Decimal) -> Answer:
        """May this wager be placed now (UTH ch.7 §D-§E)?"""
        if not (a := self._in(Phase.WAGERS)):
            return a
        if not 1 <= seat <= 6:
            return no("seat", f"seat {seat}: seats are 1 to 6 (RULINGS R1)")
        if wager not in self.game.wagers:
            return no("wager", f"{self.game.name} has no {wager} wager")
        if wager == "progressive":
            return no("wager", "progressive wagers come from the progressive wagering devices "
                               f"at no more bets ({self.game.cite('progressive_system')})")
        if Decimal(amount) <= 0:
            return no("amount", f"{wager}: an amount must be more than zero")
        return ALLOWED

    async def place_wager(self, seat: int, wager: str, amount: Decimal) -> None:
        """A wager on the layout before no more bets (UTH ch.7 §D-§E)."""
        self.can_place_wager(seat, wager, amount).ensure()
        await self._record(ev.WagerPlaced(seat=seat, wager=wager, amount=Decimal(amount)))

    @ev.applies(ev.WagerPlaced)
    async def _apply_wager(self, e: ev.WagerPlaced) -> None:
        s = self.seats.setdefault(e.seat, SeatState(e.seat))
        s.wagers[e.wager] = e.amount

    def can_announce_no_more_bets(self, progressive_seats: Iterable[int] = ()) -> Answer:
        """May no more bets be announced with these progressive wagers accepted (UTH ch.7 §F, UTH ch.8 §C)?"""
        if not (a := self._in(Phase.WAGERS)):
            return a
        seats = sorted(set(progressive_seats))
        if seats and not self.setup.progressive:
            return no("progressive", "progressive wagers accepted, but the table offers no progressive")
        for n in seats:
            if n not in self.seats:
                return no("progressive", f"seat {n}: a progressive wager needs the Ante first "
                                             f"({self.game.cite('progressive_needs_ante')})")
        if not any(any(s.wagers.get(a) for a in self.game.antes[:1]) for s in self.seats.values()):
            return no("no_players", "no seat has placed an Ante: nothing to deal")
        for s in self.seats.values():
            missing = [a for a in self.game.antes if a not in s.wagers]
            if missing:
                return no("required_wager", f"seat {s.seat}: missing {', '.join(missing)} "
                                            f"(required to play, {self.game.cite('ante')})")
        return ALLOWED

    async def announce_no_more_bets(self, progressive_seats: Iterable[int] = (),
                                    meters: Mapping[str, Decimal] | None = None) -> None:
        """No more bets (UTH ch.8 §C(1)): the lock-out is set and confirmed by the caller before this.

        ``progressive_seats`` are the seats whose progressive wager the system accepted;
        ``meters`` the progressive meters with their contributions added: the amounts
        this round's progressive hands are paid from (R4).
        Each seat playing must have the game's required wagers (UTH ch.7 §F(1)); a seat with a
        progressive wager but no Ante is refused.
        """
        seats = sorted(set(progressive_seats))
        self.can_announce_no_more_bets(seats).ensure()
        await self._record(ev.NoMoreBets(progressive_seats=tuple(seats),
                                      meters=dict(meters) if meters is not None else None))

    def can_close_wagers(self, wagers: Iterable[tuple[int, str, Decimal]],
                         progressive_seats: Iterable[int] = ()) -> Answer:
        """May no more bets be announced on these wagers sensed at no more bets: each one a wager that may
        be placed, and the round with them one that may close (UTH ch.7 §F, UTH ch.8 §C)?"""
        placed = list(wagers)
        for seat, wager, amount in placed:
            if not (a := self.can_place_wager(seat, wager, amount)):
                return a
        before = self.seats
        self.seats = {n: SeatState(n, dict(st.wagers)) for n, st in before.items()}
        for seat, wager, amount in placed:
            self.seats.setdefault(seat, SeatState(seat)).wagers[wager] = Decimal(amount)
        try:
            return self.can_announce_no_more_bets(progressive_seats)
        finally:
            self.seats = before

    async def close_wagers(self, wagers: Iterable[tuple[int, str, Decimal]], progressive_seats: Iterable[int] = (),
                           meters: Mapping[str, Decimal] | None = None,
                           contributions: Mapping[str, Decimal] | ev.MeterAdd | None = None) -> None:
        """The wagers sensed at no more bets, no more bets itself and the progressive contributions, journaled
        as one fact in one transaction (UTH ch.8 §C): a crash leaves all of them on disk or none, so a restarted
        daemon never deals on wagers it does not know, nor loses a contribution the round was paid from (R4).
        Everything is checked before anything is journaled."""
        placed = [ev.WagerPlaced(seat=seat, wager=wager, amount=Decimal(amount)) for seat, wager, amount in wagers]
        seats = sorted(set(progressive_seats))
        self.can_close_wagers([(w.seat, w.wager, w.amount) for w in placed], seats).ensure()
        closed = ev.NoMoreBets(progressive_seats=tuple(seats), meters=dict(meters) if meters is not None else None)
        fact: list[ev.JournalEvent] = [*placed, closed]
        if isinstance(contributions, ev.MeterAdd):  # with its reserve and overflow (P114)
            fact.append(contributions)
        elif contributions:
            fact.append(ev.MeterAdd(meters=dict(contributions)))
        self.journal.record_many(fact, self.round_id)
        for e in (*placed, closed):
            await self.apply(e)

    @ev.applies(ev.NoMoreBets)
    async def _apply_no_more_bets(self, e: ev.NoMoreBets) -> None:
        if self.setup.progressive:
            unit = Decimal(str(self.setup.progressive["unit"]))
            for n in e.progressive_seats:
                self.seats[n].wagers["progressive"] = unit  # R3: exactly one unit
        self.progressive_count = len(e.progressive_seats)
        self._set_meters(e.meters)
        await self.wagers_closed()

    def can_confirm_progressive_count(self, chips: int) -> Answer:
        """Does the dealer's count of progressive chips match the wagers accepted (UTH ch.8 §C(3))?"""
        if not (a := self._in(Phase.NO_MORE_BETS)):
            return a
        if chips != self.progressive_count:
            return no("count", f"{chips} progressive chips but {self.progressive_count} wagers accepted by the "
                               f"system: resolve before dealing ({self.game.cite('progressive_count')})")
        return ALLOWED

    async def confirm_progressive_count(self, chips: int) -> None:
        """The dealer counted the progressive chips (UTH ch.8 §C(3)); a mismatch stops the round."""
        self.can_confirm_progressive_count(chips).ensure()
        await self._record(ev.CountConfirmed(chips=chips))

    @ev.applies(ev.CountConfirmed)
    async def _apply_count_confirmed(self, e: ev.CountConfirmed) -> None:
        await self.start_dealing()

    # ------------------------------------------------------------------ cards

    def can_deal(self, place: str, card: str) -> Answer:
        """May ``card`` be dealt to ``place`` now (a free place, a card not seen this round)?"""
        if not (a := self._in(Phase.DEALING, Phase.DECISIONS, Phase.REVEAL)):
            return a
        if not (a := self._new_card(card)):
            return a
        return self._place_free(place)

    async def card(self, place: str, card: str) -> None:
        """A card dealt to ``place``: ``seat:N``, ``dealer``, ``community:I`` (RET: ``community:left``...),
        ``bonus`` (UTH Six Card Bonus box) or ``burn``."""
        self.can_deal(place, card).ensure()
        await self._record(ev.CardDealt(place=place, card=card))

    def can_discard(self, card: str) -> Answer:
        if not (a := self._in(Phase.DEALING, Phase.DECISIONS, Phase.REVEAL)):
            return a
        return self._new_card(card)

    async def discard(self, card: str, reason: str) -> None:
        """A card out of the deck that is not used (UTH ch.13 §A: found face up): it goes to the discard
        rack, and the journal keeps it so the round can be reconstructed and a second copy detected."""
        self.can_discard(card).ensure()
        await self._record(ev.CardDiscarded(card=card, reason=reason))

    @ev.applies(ev.CardDiscarded)
    async def _apply_card_discarded(self, e: ev.CardDiscarded) -> None:
        self.discarded.append(parse_card(e.card))

    @ev.applies(ev.CardDealt)
    async def _apply_card(self, e: ev.CardDealt) -> None:
        kind, _, rest = e.place.partition(":")
        c = parse_card(e.card)
        if kind == "seat":
            self.seats[int(rest)].cards.append(c)
        elif kind == "dealer":
            self.dealer.append(c)
        elif kind == "community":
            self.community[self._community_index(rest)] = c
        elif kind == "bonus":
            self.bonus_box.append(c)
        else:
            self.burned += 1
        if self.phase is Phase.DEALING and all(len(s.cards) == self.game.hole_cards for s in self.players):
            await self.open_decisions()

    # ------------------------------------------------------------------ decisions

    @property
    def current_street(self) -> Street:
        return self.game.streets[self.street]

    def to_act(self) -> SeatState | None:
        """The next seat to decide at this street, clockwise (RULINGS R1), or None."""
        return round_decisions.to_act(self)

    def choices(self) -> dict[str, Any]:
        """What the seat to act may do now (for the dealer panel)."""
        return round_decisions.choices(self)

    def can_decide(self, seat: int, *, multiple: int | None = None, fold: bool = False,
                   check: bool = False) -> Answer:
        """May ``seat`` make this decision now (its turn, clockwise; legal at this street, UTH ch.11)?"""
        if not (a := self._in(Phase.DECISIONS)):
            return a
        s = self.to_act()
        if s is None or s.seat != seat:
            return no("turn", f"seat {seat} is not the one to act (clockwise from seat 1, RULINGS R1)")
        st = self.current_street
        if [multiple is not None, fold, check].count(True) != 1:
            return no("decision", "one decision: a multiple, check or fold")
        if check and not st.may_check:
            return no("decision", f"no check at this decision ({st.clause})")
        if fold and not st.may_fold:
            return no("decision", f"no fold at this decision ({st.clause})")
        legal = list(self.game.legal_multiples(st, s.cards))
        if multiple is not None and multiple not in legal:
            return no("decision", f"{multiple}x is not allowed here; allowed: {legal} ({st.clause})")
        if self.street_cards_missing():
            return no("cards_missing", "deal the community cards of this street first")
        return ALLOWED

    def street_cards_missing(self) -> bool:
        """Are community cards this street's decisions need still to be dealt?"""
        return round_decisions.needs_cards_for_street(self) > len(self.community)

    async def decide(self, seat: int, *, multiple: int | None = None, fold: bool = False, check: bool = False) -> None:
        """The decision of the seat to act, entered on the dealer panel."""
        self.can_decide(seat, multiple=multiple, fold=fold, check=check).ensure()
        await self._record(ev.DecisionMade(seat=seat, street=self.street, multiple=multiple, fold=fold, check=check))

    @ev.applies(ev.DecisionMade)
    async def _apply_decision(self, e: ev.DecisionMade) -> None:
        s = self.seats[e.seat]
        s.acted_on_street = e.street
        if e.fold:
            s.folded = True
        elif e.multiple is not None:
            s.multiples.append(e.multiple)
        await round_decisions.advance(self)

    def can_abandon(self, seat: int) -> Answer:
        if not (a := self._in(Phase.DECISIONS, Phase.REVEAL)):
            return a
        return self._playing(seat)

    async def abandon(self, seat: int, who: str, *, returned: bool = False,
                      meters: Mapping[str, Decimal] | None = None) -> None:
        """A player left the table during the round (UTH ch.7 §C(2); RET ch.7 §B(3)): the facility treats every
        wager of that seat as losing, or (``returned``, its configured choice) returns them (P42).  The seat
        is asked nothing more; its cards stay out of the deck (the stub count still counts them) but make no
        hand: no payout, no Envy Bonus for others.  ``meters``: the meters without the seat's progressive
        contribution, when a returned progressive wager takes it back (R7a)."""
        self.can_abandon(seat).ensure()
        await self._record(ev.SeatAbandoned(seat=seat, by=who, wagers="returned" if returned else "losing",
                                         meters=dict(meters) if meters is not None else None))

    def can_skip_seat(self, seat: int, cards: list[tuple[str, str]]) -> Answer:
        """RET ch.13 §G: may ``seat`` be taken out as skipped, the deal so far re-placed as ``cards``?"""
        if not (a := self._in(Phase.DEALING)):
            return a
        if not (a := self._playing(seat)):
            return a
        if len(self.players) == 1:
            return no("seat", "the only player cannot have been skipped: a wrong number of cards voids the round")
        moved = {c for _, c in cards}
        if moved != {c.text for c in self._dealt_cards()} or len(cards) != len(moved):
            return no("cards", "the cards re-placed must be exactly the cards dealt so far")
        return ALLOWED

    async def skip_seat(self, seat: int, who: str, cards: list[tuple[str, str]],
                        meters: Mapping[str, Decimal] | None = None) -> None:
        """RET ch.13 §G: a player accidentally skipped in the deal plays the next hand (P44).

        The seat got no card: its wagers are returned and it leaves this round.  ``cards`` is where
        every card of the deal so far really went, in the order drawn (the dealing order without the
        seat); ``meters`` the progressive meters without the seat's contribution when it had a
        progressive wager."""
        self.can_skip_seat(seat, cards).ensure()
        await self._record(ev.SeatSkipped(seat=seat, by=who, cards=tuple((p, c) for p, c in cards),
                                       meters=dict(meters) if meters is not None else None))

    @ev.applies(ev.SeatSkipped)
    async def _apply_seat_skipped(self, e: ev.SeatSkipped) -> None:
        self.seats[e.seat].skipped = True
        for st in self.seats.values():
            st.cards = []
        self.dealer, self.community, self.bonus_box = [], {}, []
        self._set_meters(e.meters)
        for place, card in e.cards:
            await self._apply_card(ev.CardDealt(place=place, card=card))

    def _set_meters(self, meters: Mapping[str, Decimal] | None) -> None:
        """The round's meters as the event carries them (with contributions, or one taken back, R7a)."""
        if meters is not None and self.setup.progressive:
            self.setup = replace(self.setup, progressive={**self.setup.progressive, "meters": dict(meters)})

    @ev.applies(ev.SeatAbandoned)
    async def _apply_seat_abandoned(self, e: ev.SeatAbandoned) -> None:
        s = self.seats[e.seat]
        s.abandoned = True
        s.abandoned_returned = e.wagers == "returned"  # journals before P42's option: losing
        self._set_meters(e.meters)
        await round_decisions.advance(self)

    # ------------------------------------------------------------------ settlement

    def settle_input(self) -> dict[str, Any]:
        """The round in the settle contract's input form (shared/contracts/settle.md)."""
        return round_settlement.settle_input(self)

    def missing_cards(self) -> list[str]:
        """Places still to be dealt before the round can be settled."""
        return round_settlement.missing_cards(self)

    def can_settle(self) -> Answer:
        """Has every player acted and is every card on the layout?"""
        if not (a := self._in(Phase.REVEAL)):
            return a
        missing = self.missing_cards()
        if missing:
            return no("cards_missing", f"cards still to deal before settlement: {', '.join(missing)}")
        return ALLOWED

    async def settle(self) -> Settlement:
        """Every player has acted and every card is on the layout: settle by the rules."""
        self.can_settle().ensure()
        settlement = round_settlement.settlement(self)
        # the order of payment is journaled with the settlement it orders: one fact, on disk at once (P65)
        await self._record(ev.Settled(meters=dict(settlement.meters),
                                   nets={str(s.seat): s.net for s in settlement.seats},
                                   order=round_settlement.payment_order(self.game, settlement)))
        self.settlement = settlement
        return settlement

    @ev.applies(ev.Settled)
    async def _apply_settled(self, e: ev.Settled) -> None:
        if self.settlement is None:  # a replay: settle again from the journaled facts (pure, same result)
            self.settlement = round_settlement.settlement(self)
        self.payments = e.order  # None in a journal older than P65
        await self.settled()

    def can_confirm(self) -> Answer:
        return self._in(Phase.SETTLED, Phase.VOIDED)

    async def confirm(self) -> None:
        """The dealer paid and collected (or returned) as shown: the round is closed in the journal."""
        self.can_confirm().ensure()
        await self._record(ev.RoundVoided() if self.phase is Phase.VOIDED else ev.RoundClosed())

    @ev.applies(ev.RoundClosed, ev.RoundVoided)
    async def _apply_round_closed(self, e: ev.RoundClosed | ev.RoundVoided) -> None:
        await self.finish()

    # ------------------------------------------------------------------ irregularities

    def can_void(self) -> Answer:
        """May the round be voided now (any open or halted round, R7a)?"""
        return self._in(*OPEN_PHASES, Phase.HALTED)

    async def void(self, reason: str, keep: Iterable[str] = ()) -> Settlement:
        """All hands void (R7a); ``keep`` the wagers a clause of the game's chapter 13 keeps alive (games.void)."""
        self.can_void().ensure()
        kept = sorted(keep)
        settlement = round_settlement.void_settlement(self, kept)
        await self._record(ev.Voided(reason=reason, keep=tuple(kept),
                                  order=round_settlement.payment_order(self.game, settlement)))
        return settlement

    @ev.applies(ev.Voided)
    async def _apply_voided(self, e: ev.Voided) -> None:
        self.void_reason = e.reason
        self.settlement = round_settlement.void_settlement(self, list(e.keep))
        self.payments = e.order
        await self.voided()

    def can_halt(self) -> Answer:
        return self._in(*OPEN_PHASES)

    async def halt_round(self, reason: str) -> None:
        """Stop the round in a safe state (a device failed, an irregularity the dealer must resolve)."""
        self.can_halt().ensure()
        await self._record(ev.Halted(reason=reason, phase=self.phase.value))

    @ev.applies(ev.Halted)
    async def _apply_halted(self, e: ev.Halted) -> None:
        self.halted_from = Phase(e.phase)
        self.halt_reason = e.reason
        await self.halt()

    def can_resume(self) -> Answer:
        return self._in(Phase.HALTED)

    async def resume_round(self, who: str) -> None:
        self.can_resume().ensure()
        await self._record(ev.Resumed(by=who))

    @ev.applies(ev.Resumed)
    async def _apply_resumed(self, e: ev.Resumed) -> None:
        await self.resume()
        self.halted_from = self.halt_reason = None

    # ------------------------------------------------------------------ views

    def visible_community(self) -> dict[int, Card]:
        """Community cards face up now (UTH/JHE: the street's ``shown``; RET: the cross per RET ch.11 §C, §E, §G)."""
        return round_view.visible_community(self)

    def public_view(self) -> dict[str, Any]:
        """What may be shown to anyone: no hole card, dealer card or unrevealed community card before its time."""
        return round_view.public_view(self)


__all__ = ["ALLOWED", "OPEN_PHASES", "TRANSITIONS", "Answer", "JournalLike", "NoJournal", "Phase", "RoundController",
           "RoundRefused", "SeatState", "TableSetup"]

"""One round of play: a ``transitions`` state machine over the facts the rules care about.

    wagers -> no_more_bets -> dealing -> decisions -> reveal -> settled -> complete
                 \\______________ void / halt from any open state ______________/

The model (``RoundController``) does not talk to devices: the daemon feeds it
what the devices and the dealer report (a wager, the lock-out confirmed, a
card and where it went, a decision, a confirmation) and does what the round
asks for next.  Every fact is first appended to the journal, then applied
(``_apply_<kind>``); replaying a round's journal through the same ``_apply``
methods rebuilds it after a crash (``RoundController.restore``).

What the rules decide comes from ``games``: legal decisions per street
(``Game.streets``, RULINGS R1: clockwise from seat 1), settlement
(``games.contract`` / the game modules), voids and partial settlements
(``games.void``, R7a).

Secrets: hole cards, the dealer's cards and unrevealed community cards are in
the journal (a hand must be reconstructable) but never in ``public_view()``
before the rules reveal them, and never logged.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Iterable, Mapping, Protocol

from transitions.extensions.asyncio import AsyncMachine

from controller.journal import METER_KINDS, ROUND_CLOSED, ROUND_VOIDED
from games.cards import Card, parse_card
from games.contract import parse_round
from games.game import Game, Street
from games.registry import GAMES
from games.round import Decision, Seat, SeatSettlement, Settlement
from games.settlement import lose, push, settlement_order
from games.void import void_round


class Phase(str, enum.Enum):
    WAGERS = "wagers"  # open for wagers (ch.7 §D)
    NO_MORE_BETS = "no_more_bets"  # lock-out set and confirmed; the dealer checks the progressive count (ch.8 §C)
    DEALING = "dealing"  # cards leaving the shoe or shuffler (ch.8-ch.10)
    DECISIONS = "decisions"  # players decide, street by street (ch.11)
    REVEAL = "reveal"  # every player has acted: the dealer's hand is exposed (UTH ch.11 §G)
    SETTLED = "settled"  # settlement computed; the dealer pays and takes, then confirms
    COMPLETE = "complete"
    VOIDED = "voided"  # all hands void (R7a), or the wagers chapter 13 keeps alive settled
    HALTED = "halted"  # an irregularity or a device stopped the round; the dealer decides


OPEN_PHASES = [Phase.WAGERS, Phase.NO_MORE_BETS, Phase.DEALING, Phase.DECISIONS, Phase.REVEAL]

TRANSITIONS = [
    {"trigger": "lock_out", "source": Phase.WAGERS, "dest": Phase.NO_MORE_BETS},
    {"trigger": "start_dealing", "source": Phase.NO_MORE_BETS, "dest": Phase.DEALING},
    {"trigger": "open_decisions", "source": Phase.DEALING, "dest": Phase.DECISIONS},
    {"trigger": "all_acted", "source": Phase.DECISIONS, "dest": Phase.REVEAL},
    {"trigger": "settled", "source": Phase.REVEAL, "dest": Phase.SETTLED},
    {"trigger": "finish", "source": [Phase.SETTLED, Phase.VOIDED], "dest": Phase.COMPLETE},
    {"trigger": "voided", "source": OPEN_PHASES + [Phase.HALTED], "dest": Phase.VOIDED},
    {"trigger": "halt", "source": OPEN_PHASES, "dest": Phase.HALTED},
] + [
    # back to where the round was halted, once the dealer has dealt with the cause
    {"trigger": "resume", "source": Phase.HALTED, "dest": p, "conditions": f"_halted_in_{p.value}"}
    for p in OPEN_PHASES
]


class RoundRefused(ValueError):
    """An action the rules or the round's state do not allow now; the round is unchanged."""


class JournalLike(Protocol):
    def append(self, round_id: str | None, kind: str, data: Mapping[str, Any]) -> int: ...


class NoJournal:
    """For replays and pure tests: records nothing."""

    def append(self, round_id: str | None, kind: str, data: Mapping[str, Any]) -> int:
        return 0


@dataclass
class SeatState:
    seat: int
    wagers: dict[str, Decimal] = field(default_factory=dict)
    cards: list[Card] = field(default_factory=list)
    multiples: list[int] = field(default_factory=list)  # Play / Raise / Run wagers made, in Antes
    folded: bool = False
    acted_on_street: int = -1  # the last street this seat was asked at
    abandoned: bool = False  # the player left mid-round (ch.7 §C(2), P42)
    abandoned_returned: bool = False  # ... and the facility returns abandoned wagers instead of taking them (P42)
    skipped: bool = False  # accidentally skipped in the deal: plays the next hand, wagers returned (RET ch.13 §G)

    @property
    def out(self) -> bool:
        return self.abandoned or self.skipped

    @property
    def done(self) -> bool:
        """No more decisions: folded, or (UTH/JHE/HCF) already made its one wager."""
        return self.folded


@dataclass(frozen=True)
class TableSetup:
    """What the round needs to know of the table (from the configuration)."""

    game: str
    paytables: Mapping[str, str]
    progressive: Mapping[str, Any] | None = None  # the settle contract's progressive block (meters as now)
    payout_limit: Decimal | None = None


class RoundController:
    """One round.  Create with ``await RoundController.open(...)`` or ``restore(...)``."""

    state: str  # set by the machine

    def __init__(self, round_id: str, setup: TableSetup, journal: JournalLike | None = None) -> None:
        if setup.game not in GAMES:
            raise RoundRefused(f"unknown game {setup.game!r}")
        self.round_id = round_id
        self.setup = setup
        self.game: Game = GAMES[setup.game]
        self.journal = journal or NoJournal()
        self.seats: dict[int, SeatState] = {}
        self.dealer: list[Card] = []
        self.community: dict[int, Card] = {}
        self.bonus_box: list[Card] = []
        self.discarded: list[Card] = []  # cards out of the deck but not used (ch.13 §A)
        self.burned = 0
        self.street = 0
        self.halted_from: Phase | None = None
        self.halt_reason: str | None = None
        self.settlement: Settlement | None = None
        self.void_reason: str | None = None
        self.progressive_count: int | None = None
        self.revealed: list[str] = []  # the game's reveals journaled so far, in order (P66)
        self.payments: list[dict[str, Any]] | None = None  # the order of payment journaled with the settlement (P65)
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
    async def open(cls, round_id: str, setup: TableSetup, journal: JournalLike) -> "RoundController":
        r = cls(round_id, setup, journal)
        r.journal.append(round_id, "round_opened", {"game": setup.game, "paytables": dict(setup.paytables),
                                                    "progressive": setup.progressive,
                                                    "payout_limit": setup.payout_limit,
                                                    # this round journals its reveals and order of payment
                                                    # (P66): a replay of an older round says they are missing
                                                    "steps_journaled": True})
        return r

    @classmethod
    async def restore(cls, round_id: str, setup: TableSetup, events: Iterable[tuple[str, Mapping[str, Any]]],
                      journal: JournalLike | None = None) -> "RoundController":
        """Rebuild a round from its journal events (``(kind, data)`` in order) without journaling them again."""
        r = cls(round_id, setup, NoJournal())
        for kind, data in events:
            if kind == "round_opened" or kind in METER_KINDS:  # the table's meters are not the round's state
                continue
            await getattr(r, f"_apply_{kind}")(data)
        r.journal = journal or NoJournal()
        if journal is not None:
            await r._journal_reveals()  # the daemon stopped between a card or decision and its reveal
        return r

    @property
    def phase(self) -> Phase:
        return Phase(self.state)

    async def _record(self, kind: str, data: Mapping[str, Any]) -> None:
        """Journal first, then apply: nothing takes effect that is not on disk."""
        self.journal.append(self.round_id, kind, data)
        await getattr(self, f"_apply_{kind}")(data)
        if kind in ("card", "decision", "seat_abandoned"):  # what can turn cards face up
            await self._journal_reveals()

    async def _journal_reveals(self) -> None:
        """Journal each of the game's reveals (games.procedure) once its cards are face up, in the rules'
        order (P66).  Face up is what ``public_view`` shows: a reveal never shows a card earlier."""
        for reveal in self.game.reveals[len(self.revealed):]:
            cards = self._face_up(reveal.places)
            if cards is None:
                return
            await self._record("revealed", {"what": reveal.name, "cards": cards, "clause": reveal.clause})

    def _face_up(self, places: Iterable[str]) -> list[str] | None:
        """The cards at ``places`` when all of them are face up now, else None."""
        community = self.visible_community()
        cards: list[str] = []
        for place in places:
            if place == "dealer":
                if not self._dealer_revealed() or len(self.dealer) < self.game.dealer_cards:
                    return None
                cards += [c.text for c in self.dealer]
                continue
            i = self._community_index(place.partition(":")[2])
            if i not in community:
                return None
            cards.append(community[i].text)
        return cards

    async def _apply_revealed(self, data: Mapping[str, Any]) -> None:
        self.revealed.append(data["what"])

    def _require(self, *phases: Phase) -> None:
        if self.phase not in phases:
            raise RoundRefused(f"not now: the round is in {self.phase.value}")

    # ------------------------------------------------------------------ wagers

    async def place_wager(self, seat: int, wager: str, amount: Decimal) -> None:
        """A wager on the layout before no more bets (ch.7 §D-§E)."""
        self._require(Phase.WAGERS)
        if not 1 <= seat <= 6:
            raise RoundRefused(f"seat {seat}: seats are 1 to 6 (RULINGS R1)")
        if wager not in self.game.wagers:
            raise RoundRefused(f"{self.game.name} has no {wager} wager")
        if wager == "progressive":
            raise RoundRefused("progressive wagers come from the progressive wagering devices at no more bets (ch.2 §C)")
        amount = Decimal(amount)
        if amount <= 0:
            raise RoundRefused(f"{wager}: an amount must be more than zero")
        await self._record("wager", {"seat": seat, "wager": wager, "amount": str(amount)})

    async def _apply_wager(self, data: Mapping[str, Any]) -> None:
        s = self.seats.setdefault(data["seat"], SeatState(data["seat"]))
        s.wagers[data["wager"]] = Decimal(data["amount"])

    async def announce_no_more_bets(self, progressive_seats: Iterable[int] = (),
                                    meters: Mapping[str, Decimal] | None = None) -> None:
        """No more bets (ch.8 §C(1)): the lock-out is set and confirmed by the caller before this.

        ``progressive_seats`` are the seats whose progressive wager the system accepted;
        ``meters`` the progressive meters with their contributions added: the amounts
        this round's progressive hands are paid from (R4).
        Each seat playing must have the game's required wagers (ch.7 §F(1)); a seat with a
        progressive wager but no Ante is refused.
        """
        self._require(Phase.WAGERS)
        progressive_seats = sorted(set(progressive_seats))
        if progressive_seats and not self.setup.progressive:
            raise RoundRefused("progressive wagers accepted, but the table offers no progressive")
        for n in progressive_seats:
            if n not in self.seats:
                raise RoundRefused(f"seat {n}: a progressive wager needs the Ante first (ch.7 §F(3)(a))")
        players = [s for s in self.seats.values() if any(s.wagers.get(a) for a in self.game.antes[:1])]
        if not players:
            raise RoundRefused("no seat has placed an Ante: nothing to deal")
        for s in self.seats.values():
            missing = [a for a in self.game.antes if a not in s.wagers]
            if missing:
                raise RoundRefused(f"seat {s.seat}: missing {', '.join(missing)} (required to play, {self.game.short} ch.7 §F)")
        data: dict[str, Any] = {"progressive_seats": progressive_seats}
        if meters is not None:
            data["meters"] = {k: str(v) for k, v in meters.items()}
        await self._record("no_more_bets", data)

    async def _apply_no_more_bets(self, data: Mapping[str, Any]) -> None:
        unit = Decimal(str(self.setup.progressive["unit"])) if self.setup.progressive else None
        for n in data["progressive_seats"]:
            self.seats[n].wagers["progressive"] = unit  # R3: exactly one unit
        self.progressive_count = len(data["progressive_seats"])
        if "meters" in data and self.setup.progressive:
            progressive = {**self.setup.progressive, "meters": {k: Decimal(v) for k, v in data["meters"].items()}}
            self.setup = replace(self.setup, progressive=progressive)
        await self.lock_out()

    async def confirm_progressive_count(self, chips: int) -> None:
        """The dealer counted the progressive chips (ch.8 §C(3)); a mismatch stops the round."""
        self._require(Phase.NO_MORE_BETS)
        if chips != self.progressive_count:
            raise RoundRefused(
                f"{chips} progressive chips but {self.progressive_count} wagers accepted by the system: "
                "resolve before dealing (ch.8 §C(3))"
            )
        await self._record("count_confirmed", {"chips": chips})

    async def _apply_count_confirmed(self, data: Mapping[str, Any]) -> None:
        await self.start_dealing()

    # ------------------------------------------------------------------ cards

    @property
    def players(self) -> list[SeatState]:
        """Seats in the round, clockwise from seat 1 (RULINGS R1); a player who left is no longer one."""
        return [self.seats[n] for n in sorted(self.seats) if not self.seats[n].out]

    async def card(self, place: str, card: str) -> None:
        """A card dealt to ``place``: ``seat:N``, ``dealer``, ``community:I`` (RET: ``community:left``...),
        ``bonus`` (UTH Six Card Bonus box) or ``burn``."""
        self._require(Phase.DEALING, Phase.DECISIONS, Phase.REVEAL)
        c = parse_card(card)
        if c in self._all_cards():
            # a card twice in one round: a card from another deck
            raise RoundRefused(f"{card} was already dealt this round: a card from another deck")
        self._check_place(place)
        await self._record("card", {"place": place, "card": card})

    async def discard(self, card: str, reason: str) -> None:
        """A card out of the deck that is not used (ch.13 §A: found face up): it goes to the discard
        rack, and the journal keeps it so the round can be reconstructed and a second copy detected."""
        self._require(Phase.DEALING, Phase.DECISIONS, Phase.REVEAL)
        c = parse_card(card)
        if c in self._all_cards():
            raise RoundRefused(f"{card} was already dealt this round: a card from another deck")
        await self._record("card_discarded", {"card": card, "reason": reason})

    async def _apply_card_discarded(self, data: Mapping[str, Any]) -> None:
        self.discarded.append(parse_card(data["card"]))

    def cards_out(self) -> int:
        """Every card this round took from the deck: dealt, burned, discarded."""
        return len(self._dealt_cards()) + self.burned + len(self.discarded)

    def progressive_seats(self) -> list[int]:
        """Seats whose progressive wager the system accepted and that are still in the round."""
        return [s.seat for s in self.players if "progressive" in s.wagers]

    def has_card(self, card: str) -> bool:
        """True when ``card`` already left the deck this round (dealt, burned face down aside, discarded)."""
        return parse_card(card) in self._all_cards()

    def _all_cards(self) -> set[Card]:
        """Every card out of the deck this round that is known: on the layout, or discarded."""
        return set(self._dealt_cards()) | set(self.discarded)

    def _dealt_cards(self) -> list[Card]:
        """The cards on the layout: the seats', the dealer's, the community, the bonus box."""
        out = list(self.dealer) + list(self.community.values()) + list(self.bonus_box)
        for st in self.seats.values():
            out += st.cards
        return out

    def _community_index(self, key: str) -> int:
        names = self.game.community_names
        if names:
            if key not in names:
                raise RoundRefused(f"community place {key!r}: one of {', '.join(names)} (RULINGS R25)")
            return names.index(key)
        i = int(key)
        if not 0 <= i < self.game.community_cards:
            raise RoundRefused(f"community place {key}: 0 to {self.game.community_cards - 1}")
        return i

    def _check_place(self, place: str) -> None:
        kind, _, rest = place.partition(":")
        if kind == "seat":
            s = self.seats.get(int(rest))
            if s is None:
                raise RoundRefused(f"{place}: no player at that seat (only seats with the required wagers get cards)")
            if len(s.cards) >= self.game.hole_cards:
                raise RoundRefused(f"{place}: already has {self.game.hole_cards} cards (ch.13: incorrect number of cards)")
        elif kind == "dealer":
            if len(self.dealer) >= self.game.dealer_cards:
                raise RoundRefused(f"dealer already has {self.game.dealer_cards} cards")
        elif kind == "community":
            if self._community_index(rest) in self.community:
                raise RoundRefused(f"{place} already dealt")
        elif kind == "bonus":
            if len(self.bonus_box) >= self.game.bonus_cards:
                raise RoundRefused("the Six Card Bonus box is full")
        elif kind != "burn":
            raise RoundRefused(f"unknown place {place!r}")

    async def _apply_card(self, data: Mapping[str, Any]) -> None:
        kind, _, rest = data["place"].partition(":")
        c = parse_card(data["card"])
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
        if self.phase is not Phase.DECISIONS:
            return None
        for s in self.players:
            if s.folded or s.acted_on_street >= self.street:
                continue
            if len(s.multiples) and not self._decides_every_street:
                continue  # UTH/JHE/HCF: one wager per round; a seat that made it is not asked again
            return s
        return None

    @property
    def _decides_every_street(self) -> bool:
        return len(self.game.decision_wagers) > 1  # RET: a wager at every decision (R26)

    def choices(self) -> dict[str, Any]:
        """What the seat to act may do now (for the dealer panel)."""
        s = self.to_act()
        if s is None:
            return {}
        st = self.current_street
        return {
            "seat": s.seat,
            "street": st.name,
            "multiples": list(self.game.legal_multiples(st, s.cards)),
            "check": st.may_check,
            "fold": st.may_fold,
        }

    async def decide(self, seat: int, *, multiple: int | None = None, fold: bool = False, check: bool = False) -> None:
        """The decision of the seat to act, entered on the dealer panel."""
        self._require(Phase.DECISIONS)
        s = self.to_act()
        if s is None or s.seat != seat:
            raise RoundRefused(f"seat {seat} is not the one to act (clockwise from seat 1, RULINGS R1)")
        st = self.current_street
        if [multiple is not None, fold, check].count(True) != 1:
            raise RoundRefused("one decision: a multiple, check or fold")
        if check and not st.may_check:
            raise RoundRefused(f"no check at this decision ({st.clause})")
        if fold and not st.may_fold:
            raise RoundRefused(f"no fold at this decision ({st.clause})")
        if multiple is not None and multiple not in self.game.legal_multiples(st, s.cards):
            raise RoundRefused(
                f"{multiple}x is not allowed here; allowed: {list(self.game.legal_multiples(st, s.cards))} ({st.clause})"
            )
        if self._needs_cards_for_street() > len(self._dealt_community()):
            raise RoundRefused("deal the community cards of this street first")
        await self._record("decision", {"seat": seat, "street": self.street, "multiple": multiple,
                                        "fold": fold, "check": check})

    def _dealt_community(self) -> dict[int, Card]:
        return self.community

    def _needs_cards_for_street(self) -> int:
        """Community cards that must be on the layout before this street's decisions."""
        if self.game.community_names:  # RET: all five lie face down in the cross from the deal
            return len(self.game.community_names)
        return self.current_street.shown

    async def _apply_decision(self, data: Mapping[str, Any]) -> None:
        s = self.seats[data["seat"]]
        s.acted_on_street = data["street"]
        if data["fold"]:
            s.folded = True
        elif data["multiple"] is not None:
            s.multiples.append(data["multiple"])
        await self._advance()

    async def abandon(self, seat: int, who: str, *, returned: bool = False,
                      meters: Mapping[str, Decimal] | None = None) -> None:
        """A player left the table during the round (ch.7 §C(2); RET ch.7 §C(3)): the facility treats every
        wager of that seat as losing, or (``returned``, its configured choice) returns them (P42).  The seat
        is asked nothing more; its cards stay out of the deck (the stub count still counts them) but make no
        hand: no payout, no Envy Bonus for others.  ``meters``: the meters without the seat's progressive
        contribution, when a returned progressive wager takes it back (R7a)."""
        self._require(Phase.DECISIONS, Phase.REVEAL)
        s = self.seats.get(seat)
        if s is None or s.out:
            raise RoundRefused(f"seat {seat} is not playing this round")
        data: dict[str, Any] = {"seat": seat, "by": who, "wagers": "returned" if returned else "losing"}
        if meters is not None:
            data["meters"] = {k: str(v) for k, v in meters.items()}
        await self._record("seat_abandoned", data)

    async def skip_seat(self, seat: int, who: str, cards: list[tuple[str, str]],
                        meters: Mapping[str, Decimal] | None = None) -> None:
        """RET ch.13 §G: a player accidentally skipped in the deal plays the next hand (P44).

        The seat got no card: its wagers are returned and it leaves this round.  ``cards`` is where
        every card of the deal so far really went, in the order drawn (the dealing order without the
        seat); ``meters`` the progressive meters without the seat's contribution when it had a
        progressive wager."""
        self._require(Phase.DEALING)
        s = self.seats.get(seat)
        if s is None or s.out:
            raise RoundRefused(f"seat {seat} is not playing this round")
        if len(self.players) == 1:
            raise RoundRefused("the only player cannot have been skipped: a wrong number of cards voids the round")
        moved = {c for _, c in cards}
        dealt = {c.text for c in self._dealt_cards()}
        if moved != dealt or len(cards) != len(moved):
            raise RoundRefused("the cards re-placed must be exactly the cards dealt so far")
        data: dict[str, Any] = {"seat": seat, "by": who, "cards": [list(pc) for pc in cards]}
        if meters is not None:
            data["meters"] = {k: str(v) for k, v in meters.items()}
        await self._record("seat_skipped", data)

    async def _apply_seat_skipped(self, data: Mapping[str, Any]) -> None:
        self.seats[data["seat"]].skipped = True
        for st in self.seats.values():
            st.cards = []
        self.dealer, self.community, self.bonus_box = [], {}, []
        self._set_meters(data)
        for place, card in data["cards"]:
            await self._apply_card({"place": place, "card": card})

    def _set_meters(self, data: Mapping[str, Any]) -> None:
        """The round's meters after a contribution was taken back (R7a), when the event carries them."""
        if "meters" in data and self.setup.progressive:
            progressive = {**self.setup.progressive, "meters": {k: Decimal(v) for k, v in data["meters"].items()}}
            self.setup = replace(self.setup, progressive=progressive)

    async def _apply_seat_abandoned(self, data: Mapping[str, Any]) -> None:
        s = self.seats[data["seat"]]
        s.abandoned = True
        s.abandoned_returned = data.get("wagers") == "returned"  # journals before P42's option: losing
        self._set_meters(data)
        await self._advance()

    async def _advance(self) -> None:
        while self.phase is Phase.DECISIONS and self.to_act() is None:
            remaining = [s for s in self.players if not s.folded
                         and (self._decides_every_street or not s.multiples)]
            if self.street + 1 < len(self.game.streets) and remaining:
                self.street += 1
            else:
                await self.all_acted()

    # ------------------------------------------------------------------ settlement

    def settle_input(self) -> dict[str, Any]:
        """The round in the settle contract's input form (shared/contracts/settle.md)."""
        g = self.game
        out: dict[str, Any] = {"game": g.name, "paytables": dict(self.setup.paytables)}
        if self.setup.progressive:
            out["progressive"] = self.setup.progressive
        if self.setup.payout_limit is not None:
            out["payout_limit"] = self.setup.payout_limit
        if g.dealer_cards:
            out["dealer"] = [c.text for c in self.dealer]
        if g.community_names:
            out["community"] = {n: self.community[i].text for i, n in enumerate(g.community_names) if i in self.community}
        elif g.community_cards:
            out["community"] = [self.community[i].text for i in sorted(self.community)]
        if self.bonus_box:
            out["bonus_cards"] = [c.text for c in self.bonus_box]
        seats = []
        for s in self.players:
            entry: dict[str, Any] = {"seat": s.seat, "cards": [c.text for c in s.cards], "wagers": dict(s.wagers)}
            key = g.decision_keys[0]
            if key == "bets":
                entry["bets"] = list(s.multiples)
                if s.folded:
                    entry["fold"] = True
            elif s.folded:
                entry["fold"] = True
            elif s.multiples:
                entry[key] = s.multiples[0]
            seats.append(entry)
        out["seats"] = seats
        return out

    def missing_cards(self) -> list[str]:
        """Places still to be dealt before the round can be settled."""
        g = self.game
        if not self.players:
            return []  # every player left: nothing is settled on the cards
        missing = [f"seat:{s.seat}" for s in self.players if len(s.cards) < g.hole_cards]
        missing += ["dealer"] * (g.dealer_cards - len(self.dealer))
        names = g.community_names or tuple(str(i) for i in range(g.community_cards))
        missing += [f"community:{names[i]}" for i in range(g.community_cards) if i not in self.community]
        if any("six_card_bonus" in s.wagers for s in self.players):
            missing += ["bonus"] * (g.bonus_cards - len(self.bonus_box))
        return missing

    async def settle(self) -> Settlement:
        """Every player has acted and every card is on the layout: settle by the rules."""
        self._require(Phase.REVEAL)
        missing = self.missing_cards()
        if missing:
            raise RoundRefused(f"cards still to deal before settlement: {', '.join(missing)}")
        settlement = self._settlement()
        # the order of payment is journaled with the settlement it orders: one fact, on disk at once (P65)
        await self._record("settled", {"meters": {k: str(v) for k, v in settlement.meters.items()},
                                       "nets": {str(s.seat): str(s.net) for s in settlement.seats},
                                       "order": self._payment_order(settlement)})
        self.settlement = settlement
        return settlement

    def _payment_order(self, settlement: Settlement) -> list[dict[str, Any]]:
        """The dealer's order of payment (games.procedure, P65) with what each wager pays."""
        by_seat = {s.seat: s for s in settlement.seats}
        return [
            {"seat": p.seat, "clause": p.clause, "shows_hand": p.shows_hand,
             # a list: the journal stores objects with their keys sorted, and the order is the point
             "wagers": [{"wager": w, "result": r.result, "net": str(r.net), **({"line": r.line} if r.line else {})}
                        for w in p.wagers for r in [by_seat[p.seat].wagers[w]]]}
            for p in self.game.payment_order(settlement)
        ]

    async def _apply_settled(self, data: Mapping[str, Any]) -> None:
        if self.settlement is None:  # a replay: settle again from the journaled facts (pure, same result)
            self.settlement = self._settlement()
        self.payments = data.get("order")  # None in a journal older than P65
        await self.settled()

    def _settlement(self) -> Settlement:
        """The rules engine's settlement of the players (it checks every fact again), and every wager of a
        seat whose player left lost (P42)."""
        if self.players:
            settlement = self.game.settle(parse_round(self.settle_input()))
        else:
            meters = dict(self.setup.progressive["meters"]) if self.setup.progressive else {}
            settlement = Settlement(game=self.game.name, seats=[], meters={k: Decimal(str(v)) for k, v in meters.items()})
        settlement.seats = settlement_order([*settlement.seats, *self._out_seats()])
        return settlement

    def _out_seats(self) -> list[SeatSettlement]:
        """Seats out of the round, in a settlement and in a later void alike: a player who left loses
        every wager, or has them returned where the facility chose so (P42); a player skipped in the deal
        has every wager returned (RET ch.13 §G, P44)."""
        out = []
        for s in self.seats.values():
            if not s.out:
                continue
            seat = Seat(seat=s.seat, cards=tuple(s.cards), wagers=dict(s.wagers),
                        decision=Decision(tuple(s.multiples), s.folded))
            staked = {**s.wagers, **self.game.decision_amounts(seat)}
            result = lose if s.abandoned and not s.abandoned_returned else push
            out.append(SeatSettlement(seat=s.seat, hand={}, wagers={k: result(a) for k, a in staked.items()},
                                      covered=frozenset()))
        return out

    async def confirm(self) -> None:
        """The dealer paid and collected (or returned) as shown: the round is closed in the journal."""
        self._require(Phase.SETTLED, Phase.VOIDED)
        await self._record(ROUND_VOIDED if self.phase is Phase.VOIDED else ROUND_CLOSED, {})

    async def _apply_round_closed(self, data: Mapping[str, Any]) -> None:
        await self.finish()

    _apply_round_voided = _apply_round_closed

    # ------------------------------------------------------------------ irregularities

    async def void(self, reason: str, keep: Iterable[str] = ()) -> Settlement:
        """All hands void (R7a); ``keep`` the wagers a chapter 13 clause keeps alive (games.void)."""
        self._require(*OPEN_PHASES, Phase.HALTED)
        keep = sorted(keep)
        settlement = self._void_settlement(keep)
        await self._record("voided", {"reason": reason, "keep": keep, "order": self._payment_order(settlement)})
        return settlement

    def _void_settlement(self, keep: list[str]) -> Settlement:
        settlement = self._void_players(keep)
        settlement.seats = settlement_order([*settlement.seats, *self._out_seats()])
        return settlement

    def _void_players(self, keep: list[str]) -> Settlement:
        if keep and self.players:
            data = self.settle_input()
            for entry, seat in zip(data["seats"], self.players):
                if not seat.multiples and not seat.folded:
                    # not yet decided: the kept wagers do not depend on it (R7), the rest is returned
                    entry.pop("bets", None)
                    entry["fold"] = True
            return void_round(parse_round(data), keep)
        # nothing kept: no card is looked at, so a round voided mid-deal can be voided
        from games.round import Progressive, Round

        p = self.setup.progressive
        progressive = (
            Progressive(Decimal(str(p["unit"])), {k: Decimal(str(v)) for k, v in p["meters"].items()},
                        {k: Decimal(str(v)) for k, v in p["reset"].items()})
            if p else None
        )
        seats = tuple(
            Seat(seat=s.seat, cards=tuple(s.cards), wagers=dict(s.wagers),
                 decision=Decision(tuple(s.multiples), s.folded))
            for s in self.players
        )
        return void_round(Round(game=self.game.name, paytables=self.setup.paytables, seats=seats,
                                progressive=progressive, payout_limit=self.setup.payout_limit))

    async def _apply_voided(self, data: Mapping[str, Any]) -> None:
        self.void_reason = data["reason"]
        self.settlement = self._void_settlement(list(data["keep"]))
        self.payments = data.get("order")
        await self.voided()

    async def halt_round(self, reason: str) -> None:
        """Stop the round in a safe state (a device failed, an irregularity the dealer must resolve)."""
        self._require(*OPEN_PHASES)
        await self._record("halted", {"reason": reason, "phase": self.phase.value})

    async def _apply_halted(self, data: Mapping[str, Any]) -> None:
        self.halted_from = Phase(data["phase"])
        self.halt_reason = data["reason"]
        await self.halt()

    async def resume_round(self, who: str) -> None:
        self._require(Phase.HALTED)
        await self._record("resumed", {"by": who})

    async def _apply_resumed(self, data: Mapping[str, Any]) -> None:
        await self.resume()
        self.halted_from = self.halt_reason = None

    # ------------------------------------------------------------------ views

    def visible_community(self) -> dict[int, Card]:
        """Community cards face up now (UTH/JHE: the street's ``shown``; RET: the cross per ch.11 §C, §E, §G)."""
        if self.phase in (Phase.REVEAL, Phase.SETTLED, Phase.COMPLETE):
            return dict(self.community)
        if self.phase is not Phase.DECISIONS:
            return {}
        shown = self.current_street.shown
        if self.game.community_names:
            names = self.game.community_names  # left, center, right, top, bottom (R25)
            order = [names.index(n) for n in ("left", "right", "top", "bottom", "center")]
            return {i: self.community[i] for i in order[:shown] if i in self.community}
        return {i: c for i, c in self.community.items() if i < shown}

    def _dealer_revealed(self) -> bool:
        """The dealer's cards are face up once every player has acted (UTH ch.11 §G, JHE §H, HCF §B(4)(b))."""
        return self.phase in (Phase.REVEAL, Phase.SETTLED, Phase.COMPLETE)

    def public_view(self) -> dict[str, Any]:
        """What may be shown to anyone: no hole card, dealer card or unrevealed community card before its time."""
        revealed = self.phase in (Phase.SETTLED, Phase.COMPLETE)
        seats = {}
        for s in self.players:
            seats[s.seat] = {
                "wagers": {k: str(v) for k, v in s.wagers.items()},
                "cards": [c.text for c in s.cards] if revealed and not s.folded else len(s.cards),
                "multiples": list(s.multiples),
                "folded": s.folded,
            }
        for s in self.seats.values():
            if s.out:
                seats[s.seat] = {"wagers": {k: str(v) for k, v in s.wagers.items()},
                                 ("left" if s.abandoned else "skipped"): True,
                                 "cards": len(s.cards), "multiples": list(s.multiples), "folded": s.folded}
        view: dict[str, Any] = {
            "round_id": self.round_id,
            "game": self.game.name,
            "phase": self.phase.value,
            "seats": seats,
            "community": {str(i): c.text for i, c in sorted(self.visible_community().items())},
        }
        if self.phase is Phase.DECISIONS:
            view["street"] = self.current_street.name
            view["to_act"] = self.choices()
        if self._dealer_revealed():
            view["dealer"] = [c.text for c in self.dealer]
        else:
            view["dealer"] = len(self.dealer)
        if self.settlement is not None and self.phase in (Phase.SETTLED, Phase.VOIDED, Phase.COMPLETE):
            # what the dealer pays and collects (public once settled or voided)
            view["settlement"] = {
                str(st.seat): {k: {"result": w.result, "net": str(w.net), **({"line": w.line} if w.line else {})}
                               for k, w in st.wagers.items()}
                for st in self.settlement.seats
            }
            if self.payments is not None:
                # the dealer's order of payment (P65): seat by seat, pass by pass
                view["payment_order"] = [{"seat": p["seat"], "wagers": [w["wager"] for w in p["wagers"]], "clause": p["clause"]}
                                         for p in self.payments]
        if self.phase is Phase.HALTED:
            view["halted"] = {"reason": self.halt_reason, "in": self.halted_from.value if self.halted_from else None}
        return view

"""What every game module declares: everything the rules say about one game, in one place.

Each game (``games.ultimate_texas_holdem`` and the others) subclasses
``Game`` with the facts of its rules: how many cards each place receives,
which wagers exist, which of them a paytable settles, which the payout limit
covers, the legal decisions, and ``settle``; and, so that nothing about a game
is kept anywhere else: its paytables and meters (its module in
``games.paytables``), its dealing procedures, order of payment and reveals,
its chapter 13 clause map, and the clauses the configuration and the controller
cite (``games.facts``).  Checklist for a new game: docs/new-game.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from games.cards import Card
from games.facts import Cited, DealingFacts, KeptAlive, TableClauses
from games.money import shown
from games.paytable import Paytable
from games.paytables import MeterMinimum, letters, paytable
from games.procedure import PaymentPass, Reveal
from games.round import Decision, Payment, Round, RoundError, Seat, SeatSettlement, Settlement, WagerResult
from games.settlement import EnvyCandidate, ProgressiveMeters, apply_payout_limit, envy_bonuses, settlement_order


@dataclass(frozen=True)
class Street:
    """One decision of the player, asked clockwise from seat 1 (RULINGS R1).

    ``shown`` community cards are face up when it is asked; ``multiples`` are
    the wagers allowed (multiples of an Ante); ``may_check`` defers the decision
    to the next street; ``may_fold`` ends the player's hand.
    """

    name: str
    shown: int
    multiples: tuple[int, ...]
    may_check: bool
    may_fold: bool
    clause: str


class Game:
    name: ClassVar[str]
    short: ClassVar[str]  # the abbreviation clauses are cited with: UTH, JHE, HCF, RET
    title: ClassVar[str]  # the game's name as its rules title it, for people ("Ultimate Texas Hold 'Em")
    #: the game's own codes in a person's words: its wagers, decisions (streets), meters, community places;
    #: its paytables' lines are its paytable module's ``WORDS`` (web/words.py collects both)
    words: ClassVar[Mapping[str, str]] = {}
    hole_cards: ClassVar[int]
    dealer_cards: ClassVar[int]
    community_cards: ClassVar[int]  # 0 when the game has none
    community_names: ClassVar[tuple[str, ...]] = ()  # RET: the places of the cross (R25)
    bonus_cards: ClassVar[int] = 0  # UTH Six Card Bonus box
    wagers: ClassVar[tuple[str, ...]]  # every wager placed before no more bets, in output order
    antes: ClassVar[tuple[str, ...]]  # the wagers required to receive cards
    decision_keys: ClassVar[tuple[str, ...]]  # seat keys that carry the decision
    #: the wagers the decisions create, in order (Play; Raise; 1st Run, 2nd Run, Center)
    decision_wagers: ClassVar[tuple[str, ...]]
    #: wager (or paytable-settled bet) -> paytable wager name
    paytable_of: ClassVar[Mapping[str, str]]
    #: wagers whose winnings the payout limit does NOT cover (RULINGS R6)
    not_covered: ClassVar[frozenset[str]] = frozenset({"progressive", "envy"})
    has_envy: ClassVar[bool] = False
    #: the player's decisions, in the order they are asked
    streets: ClassVar[tuple[Street, ...]]
    decision_ruling: ClassVar[str] = ""  # the RULINGS entry that reads the decisions, cited in refusals

    # -- the rest of the rules: the controller reads these, it keeps no table of its own by game --
    #: the progressive meters, in the rules' order (the game's module in games.paytables)
    meters: ClassVar[tuple[str, ...]]
    #: Progressive paytable letter -> the minimum initial and reset amount of each meter
    meter_minimums: ClassVar[Mapping[str, MeterMinimum]]
    #: RULINGS R18a (HCF): the Envy table is the one of the Progressive paytable's own letter
    envy_letter_is_progressive_letter: ClassVar[bool] = False
    #: the game's chapters 8-11: where each card goes (games.dealing)
    dealing: ClassVar[DealingFacts]
    #: the dealer's order of payment (UTH ch.11; P65): the passes around the table
    payment_passes: ClassVar[tuple[PaymentPass, ...]]
    #: the cards turned face up during the round, in the order the rules reveal them (P66)
    reveals: ClassVar[tuple[Reveal, ...]]
    #: the game's chapter 13 and its card-count rules: irregularity -> clause (docs/irregularities.md)
    irregularities: ClassVar[Mapping[str, str]]
    #: irregularity -> the clause that keeps some wagers alive and settles them (RULINGS R7a, R10)
    kept_alive: ClassVar[Mapping[str, KeptAlive]] = {}
    #: the cards found face up while dealing that void every hand (UTH ch.13 §B: the second; RET ch.13 §A: any)
    face_up_voids_at: ClassVar[int] = 2
    #: the decks are changed at least every so many hours: dealt by hand, and from a shoe or a shuffler (the same
    #: rule in every game, UTH ch.3 §C(1), §C(2): each game's own in ``clauses.deck_change_by_hand``,
    #: ``deck_change_from_shoe``; P31)
    deck_change_hours_by_hand: ClassVar[int] = 4
    deck_change_hours_from_shoe: ClassVar[int] = 8
    #: the clauses the configuration check and the controller cite
    clauses: ClassVar[TableClauses]
    #: the wagers whose chips the dealer collects into the table inventory at "no more bets", before any card,
    #: each with its clause (the Progressive: UTH ch.8 §C(3), the same in UTH ch.9 §A(3)(b), UTH ch.10
    #: §A(2)(b)(ii)): settled later from the rack, a win paid in full, a loss already taken
    #: (``controller.round.chips``)
    collected_at_no_more_bets: ClassVar[Mapping[str, str]] = {}
    #: the clause by which a fold's main-game wagers (R7) are collected at once, before settlement (UTH ch.11
    #: §F(2)); empty where the game collects them at settlement
    collected_at_fold: ClassVar[str] = ""

    @property
    def reopening_clears_shoe(self) -> bool:
        """Reopening an idle table starts by removing the cards from the shoe and the discard rack (HCF ch.5
        §G(1), RET ch.5 §F(1); P67): exactly where the game prints that clause (``clauses.idle_clears_shoe``),
        so the step and its citation cannot disagree."""
        return bool(self.clauses.idle_clears_shoe)

    def cite(self, *clauses: Cited) -> str:
        """The game's own citation of each clause named (a ``TableClauses`` field), joined: ``cite("recut")``
        is ``"UTH ch.5 §G"`` at UTH and ``"RET ch.5 §E"`` at RET.  Every citation the table gives as it runs
        (what the dealer is told, a status's ``why``, a journal event's ``clause``) comes from here or, for
        the game's chapter 13, from ``games.registry.irregularity_clause``: always with its game, in the game's own
        numbering.  Where a game prints no such clause the citation is refused (``ValueError``)."""
        cited = [getattr(self.clauses, c) for c in clauses]
        missing = [c for c, text in zip(clauses, cited, strict=True) if not text]
        if missing:
            raise ValueError(f"{self.name} prints no clause for {', '.join(missing)}")
        return ", ".join(cited)

    def wagers_kept_alive(self, what: str) -> frozenset[str]:
        """The wagers irregularity ``what`` keeps alive and settles on the cards (RULINGS R7a, R10);
        the rest are returned."""
        kept = self.kept_alive.get(what)
        return kept.wagers if kept else frozenset()

    def letters(self, wager_paytable: str) -> tuple[str, ...]:
        """The paytable letters the rules offer for a paytable of this game (``paytable_of`` values), A first."""
        return letters(self.name, wager_paytable)

    def paytable(self, wager_paytable: str, letter: str | None) -> Paytable:
        """One paytable of this game (``letter=None`` only where the rules print a single one)."""
        return paytable(self.name, wager_paytable, letter)

    def decision_amounts(self, seat: Seat) -> dict[str, Decimal]:
        """The wagers the seat's decisions made so far, each a multiple of its Ante (RET: of each Ante in turn, R26)."""
        return {
            name: seat.wagers[self.antes[i % len(self.antes)]] * k
            for i, (name, k) in enumerate(zip(self.decision_wagers, seat.decision.multiples, strict=False))
        }

    def legal_multiples(self, street: Street, cards: Sequence[Card]) -> tuple[int, ...]:
        """The wagers the player holding ``cards`` may make at ``street`` (HCF narrows them by hand, R16)."""
        return street.multiples

    # -- input -------------------------------------------------------------------------
    def parse_decision(self, obj: Mapping[str, Any], where: str) -> Decision:
        """The decision of a game with one wager to make (``decision_keys[0]``) or fold: UTH, JHE, HCF.

        The allowed multiples and the clauses come from ``streets``.
        """
        key = self.decision_keys[0]
        made, fold = obj.get(key), obj.get("fold", False)
        fold_clause = next(st.clause for st in self.streets if st.may_fold)
        if fold is not False and fold is not True:
            raise RoundError(f"{where}.fold", "must be true or false")
        choices = " or ".join(f"{'/'.join(map(str, st.multiples))} ({st.clause})" for st in self.streets)
        if self.decision_ruling:
            choices += f" ({self.decision_ruling})"
        if fold:
            if made is not None:
                raise RoundError(where, f'a player either makes the "{key}" wager or folds, not both ({fold_clause})')
            return Decision(fold=True)
        if made is None:
            raise RoundError(where, f'needs a decision: "{key}": {choices}, or "fold": true')
        allowed = {m for st in self.streets for m in st.multiples}
        if isinstance(made, bool) or not isinstance(made, int) or made not in allowed:
            raise RoundError(f"{where}.{key}", f"must be {choices} times the Ante, not {shown(made)}")
        return Decision(multiples=(made,))

    def validate(self, round: Round) -> None:
        """Game rules about the wagers and decisions beyond the shape of the input."""
        raise NotImplementedError

    def decision_legal(self, seat: Seat, round: Round) -> None:
        """Raise ``RoundError`` if the seat's decision is not one the rules allow."""

    # -- paytables -----------------------------------------------------------------------
    def table(self, round: Round, wager: str) -> Paytable:
        """The paytable ``wager`` is settled by in this round (its letter from ``round.paytables``)."""
        name = self.paytable_of[wager]
        return paytable(self.name, name, round.paytables.get(name))

    def paytable_required(self, wager: str) -> bool:
        """True when the rules give this wager more than one paytable, so its letter must be named."""
        return len(letters(self.name, self.paytable_of[wager])) > 1

    # -- settlement ---------------------------------------------------------------------------
    def settle(self, round: Round) -> Settlement:
        raise NotImplementedError

    # The steps every game's settle() shares: open the meters, pay each seat's Progressive at
    # its turn, then Envy, the payout limit and the result.
    @staticmethod
    def open_meters(round: Round) -> ProgressiveMeters | None:
        p = round.progressive
        return ProgressiveMeters(p.unit, p.meters, p.reset) if p else None

    def settle_progressive(
        self,
        round: Round,
        meters: ProgressiveMeters | None,
        seat: Seat,
        made: frozenset[str],
        results: dict[str, WagerResult],
    ) -> None:
        """The seat's Progressive wager, paid at the meter when this seat's turn comes (R4).

        (UTH ch.12 §D(4), JHE ch.12 §E(11), HCF ch.12 §E(3), RET ch.12 §F(6)(v).)
        """
        amount = seat.wagers.get("progressive")
        if amount is None:
            return
        assert meters is not None  # games.contract refuses a progressive wager without its block
        results["progressive"] = meters.settle(amount, self.table(round, "progressive").line_for(made))

    def seat_result(self, seat: Seat, hand: dict[str, Any], results: dict[str, WagerResult]) -> SeatSettlement:
        return SeatSettlement(seat=seat.seat, hand=hand, wagers=results, covered=self.covered(results))

    def finish(
        self,
        round: Round,
        seats: list[SeatSettlement],
        meters: ProgressiveMeters | None,
        *,
        envy_made: Mapping[int, frozenset[str]] | None = None,
        dealer: dict[str, Any] | None = None,
    ) -> Settlement:
        """Envy Bonuses (games that have them), the payout limit per seat (R6), the settlement."""
        if envy_made is not None:
            self.pay_envy(round, seats, envy_made)
        for s in seats:
            apply_payout_limit(s, round.payout_limit)
        return Settlement(game=self.name, dealer=dealer, seats=seats, meters=meters.meters if meters else {})

    def cards_on_layout(self, seat: Seat) -> bool:
        """RULINGS R24c: a folded hand stays on the layout only while a side or Progressive wager is pending.

        (UTH ch.11 §F(3), HCF ch.11 §B(4)(a), RET ch.11 §B(2)-(3), §D, §F.)
        """
        return not seat.decision.fold or any(w in seat.wagers for w in self.wagers if w not in self.antes)

    def pay_envy(self, round: Round, seats: list[SeatSettlement], envy_made: Mapping[int, frozenset[str]]) -> None:
        """Add the Envy Bonus of every seat with a Progressive wager (R18a, R24, R24c, R29).

        ``envy_made`` is, per seat, the Envy table lines its qualifying hand makes
        (UTH and JHE: the two cards and the flop, R24a; HCF: the seven cards; RET: the 1st Run hand, R29).
        """
        progressive = round.progressive
        if progressive is None or progressive.envy is None:
            return
        table = paytable(self.name, "envy", progressive.envy)
        by_seat = {s.seat: s for s in round.seats}
        candidates = [
            EnvyCandidate(
                seat=s.seat,
                has_progressive="progressive" in by_seat[s.seat].wagers,
                made=envy_made[s.seat],
                cards_on_layout=self.cards_on_layout(by_seat[s.seat]),
            )
            for s in seats
        ]
        bonuses = envy_bonuses(candidates, table, progressive.unit, progressive.envy_requires_progressive_wager)
        for s in seats:
            if s.seat in bonuses:
                s.wagers["envy"] = bonuses[s.seat]

    def payment_order(self, settlement: Settlement) -> list[Payment]:
        """The dealer's order of payment: pass by pass, each seat in settlement order (R1), its wagers
        of that pass in the pass's order (P65).  A wager no pass names is refused: the dealer could
        not be told when to pay it (fail closed)."""
        named = {w for p in self.payment_passes for w in p.wagers}
        seats = settlement_order(settlement.seats)
        for s in seats:
            unnamed = sorted(set(s.wagers) - named)
            if unnamed:
                raise ValueError(f"seat {s.seat}: {', '.join(unnamed)} is in no pass of the order of payment "
                                 f"of {self.name}")
        order = []
        for p in self.payment_passes:
            for s in seats:
                wagers = tuple(w for w in p.wagers if w in s.wagers)
                if wagers:
                    order.append(Payment(seat=s.seat, wagers=wagers, clause=p.clause, shows_hand=p.shows_hand))
        return order

    def covered(self, wagers: Mapping[str, Any]) -> frozenset[str]:
        return frozenset(k for k in wagers if k not in self.not_covered)


def require_equal(seat: Seat, wager: str, other: str, clause: str) -> None:
    a, b = seat.wagers.get(wager), seat.wagers.get(other)
    if a is None:
        raise RoundError(f"seats[{seat.index}].wagers.{wager}", f"required with {other} ({clause})")
    if a != b:
        raise RoundError(
            f"seats[{seat.index}].wagers.{wager}",
            f"must equal the {other} ({b}), not {a} ({clause})",
        )

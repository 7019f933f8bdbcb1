"""The dealing procedures of chapters 8-11 of each game, as data: where each card out of the deck goes.

Each game's facts (the community places, when they are shown, the clauses of its stacks) are its own
(``Game.dealing``); the functions here apply them.  Pure rules, no I/O: the daemon asks where the next card
out of the manual dealing shoe or the dealer's hand goes (UTH ch.8, UTH ch.9), or which stack the automated
dealing shoe or shuffler delivers next (UTH ch.10), and compares what the devices report with them.  The
places, the decision indexes and the readings behind them: docs/architecture.md (dealing as data).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from games.facts import DealingFacts
from games.game import Game

#: the places a card goes, in a person's words (web/words.py); a place is ``seat:3``, ``community:left``
WORDS: dict[str, str] = {"seat": "Seat", "dealer": "Dealer", "community": "Community card",
                         "bonus_box": "Six Card Bonus box", "burn": "Burn card", "discard": "Discard"}
MAX_SEAT = 6  # RULINGS R1; UTH/JHE ch.2 §A, HCF/RET ch.2

SeatPlace = tuple[Literal["seat"], int, int]
DealerPlace = tuple[Literal["dealer"], int]
CommunityPlace = tuple[Literal["community"], int | str]
BonusBoxPlace = tuple[Literal["bonus_box"], int]
BurnPlace = tuple[Literal["burn"]]
DiscardPlace = tuple[Literal["discard"]]
Place = SeatPlace | DealerPlace | CommunityPlace | BonusBoxPlace | BurnPlace | DiscardPlace

BURN: BurnPlace = ("burn",)
DISCARD: DiscardPlace = ("discard",)

StackKind = Literal["bonus_box", "community", "dealer", "seat"]


class Procedure(enum.Enum):
    """How the cards leave the deck; each is one chapter of every game's rules."""

    MANUAL_SHOE = "manual_shoe"  # UTH ch.8: a manual dealing shoe, one card at a time
    HAND = "hand"  # UTH ch.9: from the dealer's hand, one card at a time
    AUTOMATED = "automated"  # UTH ch.10: stacks from an automated dealing shoe or shuffler

    @property
    def chapter(self) -> int:
        return {"manual_shoe": 8, "hand": 9, "automated": 10}[self.value]


@dataclass(frozen=True)
class Stack:
    """One stack the automated dealing shoe or shuffler dispenses (UTH, JHE, HCF and RET ch.10 §B).

    ``places`` are where its cards go, in the order the stack is read.  A
    ``held`` stack is set aside in the shuffler (the dealer's cards left there
    until every player has acted) and delivered later by
    :func:`dealer_release_stack`.
    """

    kind: StackKind
    places: tuple[Place, ...]
    held: bool = False
    clause: str = field(default="", compare=False)

    @property
    def size(self) -> int:
        return len(self.places)


def _facts(game: Game) -> DealingFacts:
    """The game's own dealing facts (``Game.dealing``, declared in its module)."""
    facts = getattr(game, "dealing", None)
    if not isinstance(facts, DealingFacts):
        raise ValueError(f"no dealing procedure for {game.name!r}")
    assert len(facts.schedule) == len(game.streets) + 1
    assert len(facts.community) == game.community_cards
    return facts


def _procedure(procedure: Procedure) -> Procedure:
    if not isinstance(procedure, Procedure):
        raise TypeError(f"not a dealing procedure: {procedure!r}")
    return procedure


def clockwise(seats: Sequence[int]) -> tuple[int, ...]:
    """The seats that placed the required wagers, in dealing order: seat 1 first (RULINGS R1).

    Refuses an empty list, a seat outside 1..6 and a seat given twice.
    """
    seen: set[int] = set()
    for s in seats:
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= MAX_SEAT:
            raise ValueError(f"seat must be 1..{MAX_SEAT}, not {s!r} (RULINGS R1)")
        if s in seen:
            raise ValueError(f"seat {s} given twice")
        seen.add(s)
    if not seen:
        raise ValueError("no seat placed the required wagers: nothing is dealt (UTH ch.8 §D(2); RULINGS R1)")
    return tuple(sorted(seen))


def _street(game: Game, street_index: int) -> int:
    last = len(game.streets)
    if isinstance(street_index, bool) or not isinstance(street_index, int) or not 0 <= street_index <= last:
        raise ValueError(f"street_index must be 0..{last} for {game.short}, not {street_index!r}")
    return street_index


# -- counts --------------------------------------------------------------------------------


def cards_per_seat(game: Game) -> int:
    """UTH/JHE/RET: two (UTH ch.8 §D, JHE ch.8 §D, RET ch.8 §D); HCF: seven (HCF ch.8 §E)."""
    return game.hole_cards


def cards_to_dealer(game: Game) -> int:
    """UTH/JHE: two; HCF: seven; RET: none (no dealer hand, RET ch.7 §E(1), RET ch.8 §D(3))."""
    return game.dealer_cards


def community_count(game: Game) -> int:
    """Five in UTH, JHE and RET (the RET cross, RULINGS R25); none in HCF."""
    return game.community_cards


def bonus_box_cards(game: Game, procedure: Procedure) -> int:
    """Cards dealt to the UTH Six Card Bonus box: four, by an automated shoe or shuffler only.

    UTH ch.10 §B(1) is the only procedure that deals the box: UTH ch.8 and UTH ch.9
    deal none, so a table dealing from a manual shoe or by hand has no Six Card
    Bonus cards to settle that wager on (UTH ch.7 §F(4)).
    """
    return game.bonus_cards if _procedure(procedure) is Procedure.AUTOMATED else 0


# -- one card at a time: the manual shoe and the hand, chapters 8 and 9 of each game ---------


def initial_deal(game: Game, procedure: Procedure, seats: Sequence[int]) -> list[Place]:
    """Every card dealt before the first decision, in order, from a manual shoe or the hand.

    One card at a time clockwise from seat 1 to each seat given, then to the
    dealer (under a cover card), round after round until each has its cards
    (UTH ch.8 §D(2), UTH ch.9 §B(2); JHE likewise; HCF ch.8 §E, HCF ch.9 §B(2)).  RET has no
    dealer: the five cards of the cross come first, face down, then the
    players' cards (RET ch.8 §D(2)-(3), RET ch.9 §B(1)-(2)).  JHE deals its five
    community cards face down right after the players' and the dealer's (JHE
    JHE ch.8 §D(3), JHE ch.9 §B(3)); JHE ch.11 only reveals them.  UTH deals its community
    cards between decisions (:func:`street_deal`).
    """
    if _procedure(procedure) is Procedure.AUTOMATED:
        raise ValueError(f"an automated shoe or shuffler delivers stacks: use stacks() ({game.cite('stacks')})")
    facts = _facts(game)
    order = clockwise(seats)
    places: list[Place] = []
    community: list[Place] = [("community", c) for c in facts.community]
    if facts.community_first:
        places += community
    for i in range(game.hole_cards):
        places += [("seat", s, i) for s in order]
        if i < game.dealer_cards:
            places.append(("dealer", i))
    if not facts.community_first and not facts.community_at_streets:
        places += community
    return places


def street_deal(game: Game, procedure: Procedure, street_index: int) -> list[Place]:
    """The cards dealt out of the deck just before decision ``street_index`` (after the last: ``len(streets)``).

    Only UTH deals between decisions: before the second decision the flop,
    before the third the last two community cards, face up (UTH ch.11 §C(2),
    §E(2)), each preceded by a burn card when dealing by hand (UTH ch.11 §C(1),
    §E(1)).  An automated shoe or shuffler has delivered every community card
    already (UTH ch.10 §B(2), §F): nothing is dealt, the cards are revealed.
    """
    procedure = _procedure(procedure)
    facts = _facts(game)
    k = _street(game, street_index)
    if procedure is Procedure.AUTOMATED or not facts.community_at_streets or not facts.schedule[k]:
        return []
    burn: list[Place] = [BURN] if procedure is Procedure.HAND and facts.burn_by_hand else []
    return burn + [("community", c) for c in facts.schedule[k]]


def reveals(game: Game, procedure: Procedure, street_index: int) -> list[Place]:
    """Cards already on the layout face down that are turned face up just before decision ``street_index``.

    JHE: the first community card before the first decision (JHE ch.11 §B, RULINGS
    R11), then two and two (§D, §F).  RET: the two outside cards of the
    horizontal line, then those of the vertical line, then the center (RET ch.11
    §C, §E, §G; RULINGS R25).  UTH dealt by an automated shoe or shuffler: the
    flop, then the last two (UTH ch.10 §F, UTH ch.11 §C(2), §E(2)).  After the last
    decision (``len(game.streets)``) the dealer's cards (UTH ch.11 §G(1),
    JHE ch.11 §H(1), HCF ch.11 §B(4)(b)); if they were left in the shuffler they
    are released first (:func:`dealer_release_stack`).
    """
    procedure = _procedure(procedure)
    facts = _facts(game)
    k = _street(game, street_index)
    places: list[Place] = []
    if procedure is Procedure.AUTOMATED or not facts.community_at_streets:
        places += [("community", c) for c in facts.schedule[k]]
    if k == len(game.streets):
        places += [("dealer", i) for i in range(game.dealer_cards)]
    return places


# -- stacks: chapter 10 of each game --------------------------------------------------------


def stacks(game: Game, seats: Sequence[int], dealer_in_shuffler: bool = False) -> list[Stack]:
    """The stacks the automated dealing shoe or shuffler dispenses, in order (UTH, JHE, HCF and RET ch.10 §B).

    UTH: the four-card Six Card Bonus stack (always: UTH ch.10 §B(1) makes it the
    first stack whatever the wagers), the five community cards, the dealer's
    two, then each seat clockwise (§B(2)-(3)).  JHE: the five community cards,
    the dealer's two, the seats (JHE ch.10 §B(1)-(2)).  With
    ``dealer_in_shuffler`` (UTH ch.10 §B(4), JHE ch.10 §B(3)) the dealer's stack is set
    aside at its place in that order (``held``) and delivered after every
    player has acted.  HCF: seven cards to each seat, then the dealer's seven
    under a cover card (HCF ch.10 §B(1)-(2)).  RET: the five cards of the cross,
    then two to each seat (RET ch.10 §B(1)-(2)).
    """
    facts = _facts(game)
    order = clockwise(seats)
    if dealer_in_shuffler and not facts.dealer_may_stay:
        raise ValueError(
            f"{game.cite('stacks')} gives no procedure that leaves the dealer's cards in the shuffler"
            + (" (there is no dealer hand)" if not game.dealer_cards else "")
        )
    out: list[Stack] = []
    if game.bonus_cards:
        box: tuple[BonusBoxPlace, ...] = tuple(("bonus_box", i) for i in range(game.bonus_cards))
        out.append(Stack("bonus_box", box, clause=facts.bonus_clause))
    if facts.community:
        out.append(Stack("community", tuple(("community", c) for c in facts.community), clause=facts.community_clause))
    seat_clause = facts.held_clause if dealer_in_shuffler else facts.seats_clause
    players = [Stack("seat", tuple(("seat", s, i) for i in range(game.hole_cards)), clause=seat_clause) for s in order]
    if not game.dealer_cards:
        return out + players
    dealer = Stack(
        "dealer",
        tuple(("dealer", i) for i in range(game.dealer_cards)),
        held=dealer_in_shuffler,
        clause=facts.held_clause if dealer_in_shuffler else facts.dealer_clause,
    )
    return out + ([dealer, *players] if facts.dealer_stack_first else [*players, dealer])


def dealer_release_stack(game: Game) -> Stack:
    """The dealer's stack left in the shuffler, delivered once every player has acted.

    UTH ch.10 §B(4), UTH ch.11 §G(1); JHE ch.10 §B(3), JHE ch.11 §H(1).
    """
    facts = _facts(game)
    if not facts.dealer_may_stay:
        raise ValueError(f"{game.cite('stacks')} gives no procedure that leaves the dealer's cards in the shuffler")
    return Stack("dealer", tuple(("dealer", i) for i in range(game.dealer_cards)), clause=facts.held_clause)


# -- totals ------------------------------------------------------------------------------------


def expected_total(game: Game, seats: Sequence[int], procedure: Procedure) -> int:
    """How many cards leave the deck in a full round, burn cards and a held dealer stack included.

    52 less this is the stub (UTH/JHE ch.8 §E-§F, HCF ch.8 §G-§I, RET ch.8 §E-§F).
    """
    if _procedure(procedure) is Procedure.AUTOMATED:
        return sum(s.size for s in stacks(game, seats))
    return len(initial_deal(game, procedure, seats)) + sum(
        len(street_deal(game, procedure, k)) for k in range(len(game.streets) + 1)
    )

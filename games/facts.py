"""The shapes of what one game's rules say beyond its settlement, filled in by each game module.

A game module (``games.ultimate_texas_holdem`` and the others) declares, as
attributes of its ``Game``: its dealing procedures (``DealingFacts``, its
chapters 8-11), its chapter 13 clause map and the wagers a clause keeps alive
(``KeptAlive``), and the clauses the configuration check and the controller cite
(``TableClauses``).  The order of payment and the reveals are
``games.procedure``'s ``PaymentPass`` and ``Reveal``; the paytables, meters and
meter minimums are the game's module in ``games.paytables``.

The controller reads these from the ``Game``; it holds no table keyed by game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class DealingFacts:
    """What chapters 8-11 of one game say about the cards' order (used by ``games.dealing``)."""

    #: community places in the order they are dealt or stacked
    community: tuple[int | str, ...]
    #: the community cards that become face up before decision k (k = len(streets): after the last)
    schedule: tuple[tuple[int | str, ...], ...]
    #: dealt before the players' cards by a shoe or by hand (RET ch.8 §D(2), RET ch.9 §B(1))
    community_first: bool = False
    #: dealt face up between decisions by a shoe or by hand (UTH ch.11 §C(2), §E(2));
    #: otherwise dealt face down with the initial deal and revealed
    community_at_streets: bool = False
    #: a burn card before each street dealt by hand (UTH ch.11 §C(1), §E(1))
    burn_by_hand: bool = False
    #: automated: the dealer's stack comes before the players' (UTH/JHE) or after them (HCF)
    dealer_stack_first: bool = False
    #: automated: the dealer's cards may stay in the shuffler until every player has acted
    #: (the option's clause is ``held_clause``)
    dealer_may_stay: bool = False
    bonus_clause: str = ""
    community_clause: str = ""
    #: where the dealer's cards are delivered in the deal by an automated shoe or shuffler
    dealer_clause: str = ""
    held_clause: str = ""
    seats_clause: str = ""


@dataclass(frozen=True)
class KeptAlive:
    """A clause of the game's chapter 13 that keeps some wagers alive, settled on the cards (RULINGS R7a)."""

    clause: str
    wagers: frozenset[str]


@dataclass(frozen=True)
class TableClauses:
    """The clauses of one game the configuration check and the controller cite, each with its game."""

    #: the Ante every player places (and, where there is one, the companion placed equal to it)
    ante: str
    #: where the game lists the wagers a player may place
    wagers: str
    #: the wagers paid 1 to 1
    even_money: str
    #: the payout limit per round (RULINGS R6)
    payout_limit: str
    #: the progressive table game system (required with the Progressive wager)
    progressive_system: str
    #: the boxes one player may wager on; RET prints none: its boxes are the seats (RULINGS R1)
    adjacent_boxes: str
    #: whether the game has a dealer hand (where the game lists the player's wagers against it)
    dealer_hand: str
    #: a winning progressive hand is validated by a floorperson or above before it is paid
    progressive_validation: str
    #: a table with no gaming activity (chapter 5 of each game), P67
    idle: str
    # -- the general chapters: the same rule in every game, lettered by each game as it prints it --
    #: opening a table for gaming (chapter 4 of each game)
    opening: str
    #: the cards received at the table are inspected
    inspection: str
    #: spread face up, then turned down, washed and stacked
    spread: str
    #: turned face down, washed and stacked
    turned_down: str
    #: preinspected, preshuffled decks skip the inspection
    preinspected: str
    #: the table is played with one deck of cards
    one_deck: str
    #: two decks only with an automated shuffler, alternated every round
    two_decks: str
    #: the decks are changed at least every so many hours
    deck_change: str
    #: ... every four hours when dealt by hand
    deck_change_by_hand: str
    #: ... every eight hours when dealt from a shoe
    deck_change_from_shoe: str
    #: the cards are shuffled
    shuffle: str
    #: ... after each round of play
    shuffle_after_round: str
    #: the deck is removed when the automated shuffler counts anything but 52 cards
    deck_count: str
    #: the cards are cut
    cut: str
    #: a floorperson or above may require the cards recut
    recut: str
    #: the progressive wager is made after the Ante
    progressive_needs_ante: str
    #: "no more bets" before any card is dealt
    no_more_bets: str
    #: the progressive system prevents any further progressive wager (the lock-out)
    lockout: str
    #: the progressive chips counted against the wagers the system accepted
    progressive_count: str
    #: each card taken from the shoe and placed
    draw: str
    #: a card found face up while dealing is not used (RET: voids every hand)
    found_face_up: str
    #: dealing by hand needs an automated shuffler
    hand_needs_shuffler: str
    #: betting positions for no more than six players
    seats: str
    #: the stacks an automated shoe or shuffler delivers
    stacks: str
    #: the irregularities (chapter 13 of each game): cited where the game has no clause of its own for one
    irregularity_chapter: str
    #: completing a round of play (chapter 11 of each game)
    completion: str
    #: the paytables (chapter 12 of each game)
    paytables: str
    #: each dealing procedure's chapter, by ``DealingConfig.procedure``
    procedure: Mapping[str, str]
    #: the stub counted when no automated shuffler is used, by dealing procedure (``DealingConfig.procedure``)
    stub_count: Mapping[str, str] = field(default_factory=dict)
    #: reopening an idle table starts by removing the cards from the shoe and the discard rack: only where the
    #: game prints it, and the step is taken exactly there (``Game.reopening_clears_shoe`` reads this)
    idle_clears_shoe: str = ""


#: The clauses ``Game.cite`` names: the ``TableClauses`` fields that are one citation each.
Cited = Literal[
    "ante", "wagers", "even_money", "payout_limit", "progressive_system", "adjacent_boxes", "dealer_hand",
    "progressive_validation", "idle", "opening", "inspection", "spread", "turned_down", "preinspected",
    "one_deck", "two_decks", "deck_change", "deck_change_by_hand", "deck_change_from_shoe", "shuffle",
    "shuffle_after_round", "deck_count", "cut", "recut", "progressive_needs_ante", "no_more_bets", "lockout",
    "progressive_count", "draw", "found_face_up", "hand_needs_shuffler", "seats", "stacks", "irregularity_chapter",
    "completion", "paytables", "idle_clears_shoe",
]

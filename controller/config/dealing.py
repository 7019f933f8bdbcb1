"""The ``[dealing]`` section: the dealing procedure, the decks, their age, the stub count.

Owns the dealing model and its checks against the game's rules (the decks and the dealing procedures:
chapters 3 and 8-10 of each game); each problem cites the configured
game's own clause (``Game.clauses``, ``Game.dealing``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from controller.config.devices import DevicesConfig
from controller.config.values import STRICT, Add, Hours
from games.game import Game

HAND, MANUAL_SHOE, AUTO_SHOE, SHUFFLER = "hand", "manual_shoe", "automated_shoe", "shuffler"
#: the procedures in a person's words (web/words.py); the device ``shuffler`` is named alike
WORDS: dict[str, str] = {HAND: "Dealt by hand", MANUAL_SHOE: "Manual dealing shoe", AUTO_SHOE: "Automated dealing shoe",
                         SHUFFLER: "Shuffler"}

Procedure = Literal["manual_shoe", "hand", "automated_shoe", "shuffler"]


class DealingConfig(BaseModel):
    model_config = STRICT

    #: UTH ch.8 manual dealing shoe, UTH ch.9 from the hand, UTH ch.10 automated dealing shoe or shuffler
    procedure: Procedure
    #: "in_shuffler": the shuffler holds the dealer's cards until every player has acted
    #: (UTH ch.10 §B(4), JHE ch.10 §B(3), HCF ch.11 §B(4)(b)); "dealt": delivered with the players'.
    dealer_cards: Literal["dealt", "in_shuffler"] = "dealt"
    decks: Literal[1, 2] = 1
    deck_change_hours: Hours
    stub_count_rounds: Annotated[int, Field(ge=1)] = 5
    #: decks that arrive preinspected and preshuffled skip the opening inspection and shuffle
    #: (UTH ch.4 §F and the same clause of every game)
    preinspected: bool = False


def check_dealing(game: Game, d: DealingConfig, devices: DevicesConfig, add: Add) -> None:
    """The dealing section against the game and the devices configured."""
    c = game.clauses
    shuffler = devices.automated_shuffler
    if d.procedure == HAND and not shuffler:
        add("dealing.procedure", f"dealing by hand needs an automated shuffler: set devices.shuffler "
            f"({game.cite('hand_needs_shuffler')})")
    if d.procedure == SHUFFLER and not shuffler:
        add("dealing.procedure", f"dealing from the shuffler needs devices.shuffler ({c.procedure[SHUFFLER]})")
    if d.procedure in (MANUAL_SHOE, AUTO_SHOE) and devices.shoe is None:
        add("dealing.procedure", f"dealing from a shoe needs devices.shoe, the card-reading shoe the cards are read "
            f"from ({c.procedure[d.procedure]})")
    if d.decks == 2 and not shuffler:
        add("dealing.decks", "two decks only with an automated shuffler: set devices.shuffler "
            f"({game.cite('two_decks')})")
    if d.dealer_cards == "in_shuffler":
        if not game.dealer_cards:
            add("dealing.dealer_cards", f"{game.name} has no dealer hand ({c.dealer_hand})")
        elif not game.dealing.dealer_may_stay:
            add("dealing.dealer_cards", f"{game.name} has no procedure that leaves the dealer's cards in the shuffler: "
                f"they are delivered in the deal ({game.dealing.dealer_clause}, P27)")
        elif d.procedure != SHUFFLER:
            add("dealing.dealer_cards", f'"in_shuffler" needs dealing.procedure = "shuffler" '
                f'({game.dealing.held_clause})')
    max_hours = Decimal(game.deck_change_hours_by_hand if d.procedure == HAND else game.deck_change_hours_from_shoe)
    if d.deck_change_hours > max_hours:
        how = ("when the cards are dealt by hand" if d.procedure == HAND
               else "when the cards are dealt from a shoe or shuffler")
        where = game.cite("deck_change_by_hand" if d.procedure == HAND else "deck_change_from_shoe")
        add("dealing.deck_change_hours", f"must be at most {max_hours} {how} ({where})")
    if d.stub_count_rounds > 5:
        add("dealing.stub_count_rounds", f"must be at most 5 ({c.stub_count[d.procedure]})")


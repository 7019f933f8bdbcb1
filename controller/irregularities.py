"""Each game's chapter 13 and card-count rules as the daemon applies them (docs/irregularities.md).

Two kinds of irregularity reach the daemon:

* what a device sees (a second card face up, a jam, a card read twice, a
  card it cannot read, a stub count that does not add up): the remedy is
  applied at once, because the rule leaves nobody a choice (P40);
* what only a person sees (a dealer card exposed early, a wrong number of
  cards on the layout, a player who left, a device out of order): the dealer
  picks it from the ``irregularity`` menu on the panel and a floor supervisor
  confirms it with the key (P41).

The clauses are the game's own (``Game.irregularities``, ``Game.kept_alive``,
declared in each game's module); this module holds no table by game: it
answers from the ``Game`` which clause applies, which wagers a clause keeps
alive, and what the menu offers in which phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.game import Game
from games.registry import BY_SHORT, GAMES, irregularity_clause

#: Every game's clause for each irregularity, ``{what: {short: clause}}``: a view of the games'
#: own ``Game.irregularities`` (kept for readers of the old table; read the Game instead).
CLAUSES: dict[str, dict[str, str]] = {}
for _game in GAMES.values():
    for _what, _clause in _game.irregularities.items():
        CLAUSES.setdefault(_what, {})[_game.short] = _clause
del _game, _what, _clause


#: every irregularity (each game's chapter 13, what a device sees) in a person's words (web/words.py)
WORDS: dict[str, str] = {
    "face_up": "Card found face up",
    "face_up_in_stack": "Card face up in a stack",
    "exposed_after_initial": "Cards face up after the first two",
    "wrong_number_of_cards": "Wrong number of cards",
    "dealer_card_exposed": "Dealer card exposed",
    "shuffle_failed": "Shuffle failed",
    "deal_failed": "Deal failed",
    "in_service": "Device back in service",
    "out_of_order": "Device out of order",
    "stub_count": "Stub count wrong",
    "skipped": "Player skipped",
    "player_left": "A player left",
    "card_of_another_deck": "Card of another deck",
    "unreadable_card": "Unreadable card",
    "in_shuffler": "Cards left in the shuffler",
}


def clause(what: str, short: str) -> str:
    """The clause of game ``short`` for irregularity ``what`` (falls back to the nearest rule, named)."""
    return irregularity_clause(BY_SHORT[short], what)


def kept_alive(what: str, game: str, short: str = "") -> frozenset[str]:
    """The wagers a clause keeps alive and settles on the cards (RULINGS R7a, R10); the rest are returned.

    ``game`` is the game's name (``short`` is accepted for the old callers and not needed)."""
    return GAMES[game].wagers_kept_alive(what)


@dataclass(frozen=True)
class Option:
    """One line of the panel's irregularity menu."""

    what: str
    label: str
    needs_seat: bool = False  # the dealer then presses the seat's button


def menu(game: Game | str, phase: str, *, has_dealer: bool, devices: list[str],
         out_of_order: Sequence[str] = ()) -> list[Option]:
    """What the dealer may report now, in the order shown (option n is chosen with seat button n).

    Phases are controller.round.machine.Phase values.  Only what can still happen is offered: a dealer card
    can be exposed early only while players are still deciding (UTH ch.13 §F: "before each player
    has folded or placed a Play Wager"); cards on the layout exist only once dealing started.
    """
    rules = BY_SHORT[game] if isinstance(game, str) else game  # the game or its short name
    has = rules.irregularities
    out: list[Option] = []
    dealt = phase in ("dealing", "decisions", "reveal")
    if dealt and "exposed_after_initial" in has:
        out.append(Option("exposed_after_initial", "cards found face up after the initial two cards"))
    if phase == "decisions" and has_dealer and "dealer_card_exposed" in has:
        out.append(Option("dealer_card_exposed", "a dealer card exposed before every player acted"))
    if phase == "dealing" and "skipped" in has:
        out.append(Option("skipped", "a player was skipped: got no card (plays the next hand)", needs_seat=True))
    if dealt:
        out.append(Option("wrong_number_of_cards", "a player, the dealer or the community got a wrong number of cards"))
    if phase in ("decisions", "reveal"):
        out.append(Option("player_left", "a player left the table: wagers abandoned", needs_seat=True))
    if phase == "wagers":  # between rounds: no card of a round is out
        for device in devices:
            if device in out_of_order:
                out.append(Option(f"in_service:{device}", f"the {device} is back in service"))
            else:
                out.append(Option(f"out_of_order:{device}", f"the {device} is out of order (covered or signed)"))
    return out


__all__ = ["CLAUSES", "WORDS", "Option", "clause", "kept_alive", "menu"]

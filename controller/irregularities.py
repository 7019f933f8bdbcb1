"""Chapter 13 and the card-count rules as the daemon applies them (docs/irregularities.md).

Two kinds of irregularity reach the daemon:

* what a device sees (a second card face up, a jam, a card read twice, a
  card it cannot read, a stub count that does not add up): the remedy is
  applied at once, because the rule leaves nobody a choice (P40);
* what only a person sees (a dealer card exposed early, a wrong number of
  cards on the layout, a player who left, a device out of order): the dealer
  picks it from the ``irregularity`` menu on the panel and a floor supervisor
  confirms it with the key (P41).

This module is data and small pure helpers: which clause of which game, what
the menu offers in which phase, which wagers a clause keeps alive
(``games.void.KEPT_ALIVE``).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.void import KEPT_ALIVE

#: The clause of each game for each irregularity (the games number chapter 13 differently).
CLAUSES: dict[str, dict[str, str]] = {
    # more than one card face up while dealing; RET: any card face up voids every hand
    "face_up": {"UTH": "UTH ch.13 §B", "JHE": "JHE ch.13 §B", "HCF": "HCF ch.13 §B", "RET": "RET ch.13 §A"},
    # cards found face up after every player and the dealer had their initial cards (R10 for JHE)
    "exposed_after_initial": {"UTH": "UTH ch.13 §C", "JHE": "JHE ch.13 §C"},
    "wrong_number_of_cards": {"UTH": "UTH ch.13 §E", "JHE": "JHE ch.13 §E", "HCF": "HCF ch.13 §D",
                              "RET": "RET ch.13 §C, §F"},
    "dealer_card_exposed": {"UTH": "UTH ch.13 §F-§G", "JHE": "JHE ch.13 §F-§G", "HCF": "HCF ch.13 §E-§F"},
    # the shuffler jams or stops while shuffling: reshuffle (no round is dealt from it yet)
    "shuffle_failed": {"UTH": "UTH ch.13 §H", "JHE": "JHE ch.13 §H", "HCF": "HCF ch.13 §G", "RET": "RET ch.13 §D"},
    # the device the cards come out of (an automated shoe, or the shuffler delivering) jams or fails to deal
    "deal_failed": {"UTH": "UTH ch.13 §I", "JHE": "JHE ch.13 §I", "HCF": "HCF ch.13 §H", "RET": "RET ch.13 §D"},
    "in_service": {"UTH": "UTH ch.13 §J", "JHE": "JHE ch.13 §J", "HCF": "HCF ch.13 §I", "RET": "RET ch.13 §E"},
    "out_of_order": {"UTH": "UTH ch.13 §J", "JHE": "JHE ch.13 §J", "HCF": "HCF ch.13 §I", "RET": "RET ch.13 §E"},
    "stub_count": {"UTH": "UTH ch.8 §E-§G", "JHE": "JHE ch.8 §E-§G", "HCF": "HCF ch.8 §G-§J, ch.10 §C-§E",
                   "RET": "RET ch.8 (stub count)"},
    "skipped": {"RET": "RET ch.13 §G"},
    "player_left": {"UTH": "UTH ch.7 §C(2)", "JHE": "JHE ch.7 §C(2)", "HCF": "HCF ch.7 §C(2)",
                    "RET": "RET ch.7 §C(3)"},
}

#: The clause in games.void.KEPT_ALIVE that gives the wagers kept alive, per irregularity and game.
_KEPT_BY = {
    ("exposed_after_initial", "UTH"): "UTH ch.13 §C",
    ("exposed_after_initial", "JHE"): "JHE ch.13 §C",
    ("dealer_card_exposed", "UTH"): "UTH ch.13 §G",
    ("dealer_card_exposed", "JHE"): "JHE ch.13 §G",
    ("dealer_card_exposed", "HCF"): "HCF ch.13 §F",
}


def clause(what: str, short: str) -> str:
    """The clause of game ``short`` for irregularity ``what`` (falls back to the nearest rule, named)."""
    return CLAUSES[what].get(short) or f"{short} ch.13 (no clause of its own; as {next(iter(CLAUSES[what].values()))})"


def kept_alive(what: str, game: str, short: str) -> frozenset[str]:
    """The wagers a clause keeps alive and settles on the cards (RULINGS R7a, R10); the rest are returned."""
    key = _KEPT_BY.get((what, short))
    return KEPT_ALIVE.get((game, key), frozenset()) if key else frozenset()


@dataclass(frozen=True)
class Option:
    """One line of the panel's irregularity menu."""

    what: str
    label: str
    needs_seat: bool = False  # the dealer then presses the seat's button


def menu(short: str, phase: str, *, has_dealer: bool, devices: list[str],
         out_of_order: list[str] = ()) -> list[Option]:
    """What the dealer may report now, in the order shown (option n is chosen with seat button n).

    Phases are controller.round.Phase values.  Only what can still happen is offered: a dealer card
    can be exposed early only while players are still deciding (UTH ch.13 §F: "before each player
    has folded or placed a Play Wager"); cards on the layout exist only once dealing started.
    """
    out: list[Option] = []
    dealt = phase in ("dealing", "decisions", "reveal")
    if dealt and short in ("UTH", "JHE"):
        out.append(Option("exposed_after_initial", "cards found face up after the initial two cards"))
    if phase == "decisions" and has_dealer and short in CLAUSES["dealer_card_exposed"]:
        out.append(Option("dealer_card_exposed", "a dealer card exposed before every player acted"))
    if phase == "dealing" and short == "RET":
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


__all__ = ["CLAUSES", "Option", "clause", "kept_alive", "menu"]

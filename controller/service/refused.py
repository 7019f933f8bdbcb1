"""A press the table refuses: nothing changed, the dealer is told why and the panel buzzes.

Owns ``Refused``, raised by a part for a rule of its own (the supervisor's key needed, a device
not answering, chips outside the table limits) and by ``ask`` when the round answers no to the
question a part asks before it acts (``RoundController.can_...``: ask before you act).  The panel
turns a ``Refused`` into a refusal.  A ``RoundRefused`` that is not a ``Refused`` comes from an action
no part asked the round about first: a programming error, which the panel logs as one (and still
refuses: a press never stops the daemon).
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.round.machine import Answer, RoundRefused

#: why a press is refused (``told["cause"]``), the codes of the round's answers and of the parts, in a person's
#: words (web/words.py)
WORDS: dict[str, str] = {
    "refused": "Refused", "phase": "Not now", "turn": "Not this seat's turn", "seat": "Seat",
    "place": "Card place", "decision": "Decision", "wager": "Wager",
    "required_wager": "A required wager is missing", "amount": "Amount outside the limits", "count": "Count",
    "cards": "Cards", "cards_missing": "Cards missing", "card_seen": "Card already seen",
    "no_players": "No players", "no_player": "No player at that seat", "key_needed": "Supervisor's key needed",
    "no_round": "No round", "not_between_rounds": "Only between rounds", "not_answering": "Device not answering",
    "menu_open": "Irregularity menu open", "no_option": "No such option", "no_irregularity": "No irregularity",
    "does_nothing": "Does nothing now", "device_trouble": "Device trouble", "inspection": "Inspection",
    "storage_error": "Storage error", "game": "Game",
    "panel_unreachable": "Pressed while the panel was unreachable", "deal_ended": "The deal had ended",
}


class Refused(RoundRefused):
    """The press is refused; the reason is said to the dealer.  ``code`` says why for machines (the status's
    ``told["cause"]``), ``clauses`` the citations the reason gives, as it gives them."""

    def __init__(self, reason: str, code: str = "refused", *, clauses: Iterable[str] = ()) -> None:
        super().__init__(reason, code)
        self.clauses = tuple(clauses)


def ask(answer: Answer) -> None:
    """Go on only if the round allows the action now; otherwise refuse the press with the round's reason."""
    if not answer:
        raise Refused(answer.reason, answer.code or "refused")

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

"""A journal row in words, for the floor's pages: its kind, each field named, each code said, amounts as money,
times in the table's local time with the zone (issue 26).

The words are declared beside the kinds (``controller.events.WORDS``, ``controller.journal.trust.WORDS``,
``web.audit.WORDS``: ``event.<kind>``, ``field.<name>``, ``<field>.<code>``) and read through ``web.words.say``.
Free text (a void's reason, who did it) is shown whole.  Cards are shown only when the caller says the round's
cards may be (a closed round): an open round's cards are the daemon's secret until the rules reveal them.
Internal parts of a row (an alarm's id, the order of payment, a checkpoint's state) are left to the recall.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from web.words import local_time, money, say

MONEY = frozenset(("amount", "paid", "after", "settled", "payout_limit"))
MONEY_BY = frozenset(("meters", "nets"))  # {name or seat: amount}
TIMES = frozenset(("since", "at"))  # seconds since 1970 (an alarm's)
CARDS = frozenset(("card", "cards"))
LEFT_OUT = frozenset(("id", "order", "open_rounds", "table", "link", "alarms", "paytables", "progressive",
                      "sha256", "steps_journaled"))


def kind(code: str) -> str:
    return say(code, "event")


def field(name: str) -> str:
    return say(name, "field")


def value(name: str, v: Any) -> str:
    """One field's value in words (see the module docstring)."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if name in MONEY:
        return money(v)
    if name in TIMES and not isinstance(v, str | list | dict):
        return local_time(float(v), date=True)
    if name in MONEY_BY and isinstance(v, Mapping):
        return ", ".join(f"{say(k) if not str(k).isdigit() else f'seat {k}'} {money(x)}" for k, x in v.items())
    if isinstance(v, Mapping):
        return ", ".join(f"{say(k)}: {value(str(k), x)}" for k, x in v.items())
    if isinstance(v, list | tuple):
        return ", ".join(value(name, x) for x in v) or "none"
    return say(str(v), name)  # ``<field>.<code>`` first (``device.progressive``, ``wagers.losing``), then the code


def card_text(name: str, v: Any) -> str:
    """A card field's value (``card``: "As"; ``cards``: ["As", ...] or [[place, card], ...])."""
    if isinstance(v, list | tuple):
        return ", ".join(f"{say(x[0])} {x[1]}" if isinstance(x, list | tuple) and len(x) == 2 else str(x) for x in v)
    return str(v)


def details(data: Mapping[str, Any], *, cards_shown: bool) -> list[tuple[str, str]]:
    """(the field in words, its value in words) for each field a page shows, in the row's order."""
    out = []
    for name, v in data.items():
        if name in LEFT_OUT:
            continue
        if name in CARDS:
            out.append((field(name), card_text(name, v) if cards_shown else "shown once the round closes"))
        else:
            out.append((field(name), value(name, v)))
    return out


__all__ = ["card_text", "details", "field", "kind", "value"]

"""What the dealer was told, as data: the status's ``told``, published with every ``message``.

The ``message`` is the sentence on the dealer's screen, for people; ``told`` says the same in fields, for
machines (the web pages, the tests, a floor system).  The call that writes the sentence passes the same
citations here, so the two cannot disagree.  Nothing secret goes in: a card named here is refused.  Each
key: docs/architecture.md (the status).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

Told = dict[str, Any]

#: what the dealer can be told, one word each
KINDS = frozenset({
    "info",                   # a sentence nobody has described as data yet
    "table_step",             # a step of the table done (opening, between rounds, reopening)
    "round_opened", "wagers_closed", "cards_dealt", "decision", "pay_and_collect",
    "round_closed", "shuffle_and_cut", "table_closed", "table_idle", "recut",
    "voided",                 # a round voided by a person, or by a restart during the deal (P34)
    "irregularity",           # a remedy of the game's chapter 13 applied: all hands void (but those kept alive)
    "card_discarded",         # a card found face up, not used (UTH ch.13 §A, and each game's own)
    "irregularity_menu", "menu_closed", "menu_seat", "menu_confirm",
    "player_left", "seat_skipped", "device_service",
    "halted", "resumed", "refused",
    "deck_count", "shuffle_failed", "deck_not_inspected",
    "progressive_disabled", "progressive_enabled", "progressive_win", "progressive_validated",
    "devices_silent", "panel_fault",
    "lockout_lost", "progressive_wager_returned",  # the notes that stay until the round closes (``notice``)
})

#: a card's name (``As``, ``Td``): never in ``told`` (the secrets stay out of the status)
_CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")
_CODE = re.compile(r"[a-z][a-z0-9_]*")


def told(kind: str, *, cause: str | None = None, clauses: Iterable[str] = (), seats: Iterable[int] = (),
         remove_deck: bool = False, wagers: Iterable[str] = (), device: str | None = None,
         deck: str | None = None, counts: Mapping[str, int] | None = None, also: Iterable[str] = ()) -> Told:
    """The ``told`` of one sentence (see the module's docstring); every key present, always."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of sentence: {kind!r}")
    codes = [cause] if cause is not None else []
    codes += list(also)
    codes += list(counts or ())
    bad = [c for c in codes if not _CODE.fullmatch(c)]
    if bad:
        raise ValueError(f"a cause is a code (lower case, underscores): {bad}")
    out: Told = {"kind": kind, "cause": cause, "clauses": [str(c) for c in clauses],
                 "seats": sorted(int(n) for n in seats), "remove_deck": bool(remove_deck),
                 "wagers": sorted(wagers), "device": device, "deck": deck,
                 "counts": {k: int(v) for k, v in (counts or {}).items()}, "also": list(also)}
    if any(not c for c in out["clauses"]):
        raise ValueError("an empty citation")
    texts = [*out["clauses"], *out["wagers"], device or "", deck or ""]
    if any(_CARD.search(t) for t in texts):
        raise ValueError("a card in what the dealer was told, as data: the status is public")
    return out


def amend(before: Mapping[str, Any] | None, also: str, *, clauses: Iterable[str] = ()) -> Told:
    """The ``told`` of a sentence that adds to the one before it (``f"{message} -- NOTE: ..."``): the
    same, with ``also`` and the added citations."""
    b = dict(before) if before else told("info")
    return told(b["kind"], cause=b["cause"], clauses=[*b["clauses"], *clauses], seats=b["seats"],
                remove_deck=b["remove_deck"], wagers=b["wagers"], device=b["device"], deck=b["deck"],
                counts=b["counts"], also=[*b["also"], also])


__all__ = ["KINDS", "Told", "amend", "told"]

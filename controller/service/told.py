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

#: the kinds, the ``also`` and the ``counts`` keys in a person's words, and the causes written here and in the
#: parts that tell (web/words.py)
WORDS: dict[str, str] = {
    "info": "Note", "table_step": "Table step done", "round_opened": "Round opened", "wagers_closed": "No more bets",
    "cards_dealt": "Cards dealt", "decision": "Decision", "pay_and_collect": "Pay and collect",
    "round_closed": "Round closed", "shuffle_and_cut": "Shuffle and cut", "table_closed": "Table closed",
    "table_idle": "Table idle", "recut": "Recut", "voided": "Round void", "irregularity": "Irregularity",
    "card_discarded": "Card discarded", "irregularity_menu": "Irregularity menu", "menu_closed": "Menu closed",
    "menu_seat": "Seat picked", "menu_confirm": "Irregularity confirmed", "player_left": "A player left",
    "seat_skipped": "Seat skipped", "device_service": "Device out of order or back in service",
    "halted": "Round halted", "resumed": "Round resumed", "refused": "Refused", "deck_count": "Deck counted wrong",
    "shuffle_failed": "Shuffle failed", "deck_not_inspected": "Deck not inspected",
    "progressive_disabled": "Progressive wagers disabled", "progressive_enabled": "Progressive wagers enabled",
    "progressive_win": "Progressive win", "progressive_validated": "Progressive win validated",
    "devices_silent": "Devices not answering", "panel_fault": "Panel fault", "lockout_lost": "Lock-out lost",
    "progressive_wager_returned": "Progressive wager returned",
    # also
    "journal_writable": "Journal writable again", "table_open": "Table open",
    # counts, qualified: ``count.left`` (``left`` is also a place of the cross)
    **{f"count.{k}": v for k, v in {
        "players": "Players", "progressive_accepted": "Progressive wagers accepted", "deck": "Cards in the deck",
        "drawn": "Cards drawn", "left": "Cards left", "round_took": "Cards the round took", "options": "Options",
        "shuffler": "Cards the shuffler counted"}.items()},
    # causes
    "restarted": "The controller restarted", "restarted_during_deal": "The controller restarted during the deal",
    "supervisor": "By the supervisor", "returned": "Wagers returned", "lost": "Wagers lost",
    "progressive_count": "Progressive count", "disabled_before_start": "Disabled before the round",
    "device_fault": "Device fault", "deck_removed": "Deck removed", "deal_interrupted": "Deal interrupted",
    "bet": "Bet", "check": "Check", "fold": "Fold",
}

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


__all__ = ["KINDS", "WORDS", "Told", "amend", "told"]

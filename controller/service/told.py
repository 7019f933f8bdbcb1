"""What the dealer was told, as data: the status's ``told``, published with every ``message``.

The ``message`` is the sentence on the dealer's screen, for people; ``told`` says the same in fields, for
machines (the web pages, the tests, a floor system)::

    {"kind": "irregularity", "cause": "stub_count", "clauses": ["UTH ch.8 §E-§G"], "seats": [],
     "remove_deck": true, "wagers": [], "device": "shoe", "deck": null,
     "counts": {"drawn": 30, "left": 21, "round_took": 30}, "also": [], "n": 12}

* ``kind``: what happened (one of ``KINDS``): a remedy that voided the round (``irregularity``), a round
  ``halted`` or ``resumed``, a press ``refused``, a ``progressive_win`` held, a deck that counted wrong
  (``deck_count``), a ``shuffle_failed``, a ``recut`` ...;
* ``cause``: why, as a code (``stub_count``, ``card_of_another_deck``, a refusal's code ...) or None;
* ``clauses``: every citation the sentence gives, in its order, each exactly as the sentence has it
  (from ``Game.cite`` or ``games.registry.irregularity_clause``, or a ruling: ``P40``, ``R7a``): the
  call that writes the sentence passes the same strings here, so the two cannot disagree;
* ``seats``: the seats the sentence names; ``wagers``: the wagers it names (kept alive, closed);
* ``remove_deck``: the dealer must take the deck off the table (UTH ch.5 §E, UTH ch.8 §G(2));
* ``device``, ``deck``: the device and the deck (``A``/``B``) it names; ``counts``: the counts it names, by
  what they count (``{"deck": 51}``, ``{"players": 3, "progressive_accepted": 1}``);
* ``also``: what else the sentence says, or adds to the one before it (``lockout_lost``,
  ``journal_writable``, ``status_writable``, ``table_open``; a refusal for storage, ``journal_fault``, the
  disk's condition: ``disk_full``, ``io_error``, ``read_only``, ``storage_error``, P97);
* ``n``: how many sentences the daemon has said since it started (a new sentence, even the same one
  again, is a new ``n``).

Nothing secret goes in (the status is public): no card at all -- a card named here is refused --, no
hole card, no undealt card, no order of the deck.
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

"""Every paytable of every game, and the progressive meters' minimum
initial/reset amounts, as data: one module per game (``games.paytables.run_em_twice``
and the others), indexed here.

Transcribed from chapter 12 of each game's rules (see docs of ``games.paytable``
for the payout kinds).  Every table keeps the rules' own printed order of lines,
highest first, and every line carries the clause it was read from.  Clause
letters and numbers are cited exactly as printed, even where the scanned text
numbers them oddly (each such place has a comment below).

Short names in the clauses: UTH = Ultimate Texas Hold 'Em Poker, JHE = Jackpot
Hold 'Em, HCF = High Card Flush, RET = Run 'Em Twice Poker.

Public API:

* ``PAYTABLES``: ``{(game, wager, letter): Paytable}``.
* ``paytable(game, wager, letter)``: one table; ``letter=None`` only where the
  wager has a single table.
* ``letters(game, wager)``: the letters the rules offer for a wager.
* ``METERS``: ``{game: meter names}``.
* ``METER_MINIMUMS``: ``{(game, progressive letter): {meter: minimum initial and
  reset amount}}``, with ``METER_MINIMUM_CLAUSES`` naming where each stands.

The meters and their minimums are the game's own (``Game.meters``,
``Game.meter_minimums``); the flat views above are built from the game modules.
A new game adds its module here, in ``GAME_MODULES``.

The Envy Bonus tables are stored for a $1 Progressive wager only
(``FixedPerUnit``); the rules' $5 Envy tables (UTH ch.12 §D(7), RET ch.12 §I)
are exactly 5x those and are not stored (RULINGS R3).
"""

from __future__ import annotations

from decimal import Decimal

from games.paytable import Paytable
from games.paytables import high_card_flush, jackpot_holdem, run_em_twice, ultimate_texas_holdem
from games.paytables._build import MeterMinimum

#: One module per game: its ``GAME`` name, ``TABLES``, ``METERS`` and ``METER_MINIMUMS``.
GAME_MODULES = (ultimate_texas_holdem, jackpot_holdem, high_card_flush, run_em_twice)

_TABLES: list[Paytable] = [t for m in GAME_MODULES for t in m.TABLES]


# =============================================================================
# Index and look-ups
# =============================================================================


def _index(tables: list[Paytable]) -> dict[tuple[str, str, str], Paytable]:
    out: dict[tuple[str, str, str], Paytable] = {}
    for t in tables:
        key = (t.game, t.wager, t.letter)
        if key in out:  # pragma: no cover - a transcription slip
            raise ValueError(f"duplicate paytable {key}")
        out[key] = t
    return out


PAYTABLES: dict[tuple[str, str, str], Paytable] = _index(_TABLES)


_LETTERS: dict[tuple[str, str], tuple[str, ...]] = {}
for (_g, _w, _l) in PAYTABLES:
    _LETTERS[(_g, _w)] = tuple(sorted(_LETTERS.get((_g, _w), ()) + (_l,)))
del _g, _w, _l


def letters(game: str, wager: str) -> tuple[str, ...]:
    """The paytable letters the rules offer for ``wager`` of ``game``, A first."""
    try:
        return _LETTERS[(game, wager)]
    except KeyError:
        raise KeyError(f"no paytables for game {game!r}, wager {wager!r}") from None


def paytable(game: str, wager: str, letter: str | None) -> Paytable:
    """The paytable ``letter`` of ``wager`` of ``game``.

    ``letter`` may be None only where the rules print a single table for the
    wager (JHE X-tra Bonus and Player Bonus, RET Run and Five Card Bonus).
    """
    offered = letters(game, wager)
    if letter is None:
        if len(offered) == 1:
            return PAYTABLES[(game, wager, offered[0])]
        raise KeyError(
            f"game {game!r}, wager {wager!r} has paytables {', '.join(offered)}: "
            f"a letter is required"
        )
    try:
        return PAYTABLES[(game, wager, letter)]
    except KeyError:
        raise KeyError(
            f"no paytable {letter!r} for game {game!r}, wager {wager!r} "
            f"(the rules offer {', '.join(offered)})"
        ) from None


# =============================================================================
# Progressive meters: the flat views of every game's own
# =============================================================================

METERS: dict[str, tuple[str, ...]] = {m.GAME: m.METERS for m in GAME_MODULES}

METER_MINIMUMS: dict[tuple[str, str], dict[str, Decimal]] = {
    (m.GAME, letter): dict(minimum.amounts) for m in GAME_MODULES for letter, minimum in m.METER_MINIMUMS.items()
}

METER_MINIMUM_CLAUSES: dict[tuple[str, str], str] = {
    (m.GAME, letter): minimum.clause for m in GAME_MODULES for letter, minimum in m.METER_MINIMUMS.items()
}

__all__ = [
    "PAYTABLES",
    "paytable",
    "letters",
    "MeterMinimum",
    "METERS",
    "METER_MINIMUMS",
    "METER_MINIMUM_CLAUSES",
]

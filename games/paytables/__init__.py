"""Every paytable of every game, and the progressive meters' minimum initial/reset amounts, as data.

One module per game (``games.paytables.run_em_twice`` and the others), transcribed from chapter 12 of
each game's rules in its printed order, every line carrying the clause it was read from; indexed here
(``PAYTABLES``, ``paytable``, ``letters``, ``METERS``, ``METER_MINIMUMS``).  A new game adds its module
to ``GAME_MODULES``.  More: docs/architecture.md (paytables as data).
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

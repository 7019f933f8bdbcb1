"""Exact par sheets of the base games (issue 27): which module computes each game, the stored sheets.

``stored(game, letter, strategy)`` reads ``games/par/data/<game>.<letter or base>.<strategy>.json``
(package data: no computing, no numba); ``compute(...)`` recomputes a sheet with the game's module,
imported by name only when asked (numba compiles on first use).  A sheet is one JSON object (fields:
docs/analysis.md, "The exact base games"): exact figures as "p/q" fraction strings beside a decimal
string, the distribution of the round's net result, the decisions, the outcomes, each starting
hand's value and decision, and the combination with a side wager where the enumeration sees its cards.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from importlib import resources
from typing import Any

#: game -> the module computing its exact base-game sheet (imported lazily)
MODULES: dict[str, str] = {
    "ultimate_texas_holdem": "games.par.uth",
    "high_card_flush": "games.par.hcf",
    "jackpot_holdem": "games.par.jhe",
    "run_em_twice": "games.par.ret",
}
STRATEGIES = ("optimal", "posted")


class ParError(LookupError):
    """No stored sheet (or no module) for what was asked: the message names what is missing."""


def file_name(game: str, letter: str | None, strategy: str) -> str:
    return f"{game}.{letter or 'base'}.{strategy}.json"


def _check(game: str, strategy: str) -> None:
    if game not in MODULES:
        raise ParError(f"no exact base-game sheet for game {game!r}: one of {', '.join(MODULES)}")
    if strategy not in STRATEGIES:
        raise ParError(f"strategy {strategy!r}: one of {', '.join(STRATEGIES)}")


def stored(game: str, letter: str | None, strategy: str) -> dict[str, Any]:
    """The stored sheet of ``game`` (paytable ``letter``, None for a game with one base table) and
    ``strategy``; ``ParError`` naming the missing file."""
    _check(game, strategy)
    name = file_name(game, letter, strategy)
    path = resources.files("games.par").joinpath("data", name)
    if not path.is_file():
        raise ParError(f"no stored sheet games/par/data/{name} ({game}, paytable {letter or 'none'}, {strategy})")
    sheet: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return sheet


def has_stored(game: str, letter: str | None, strategy: str) -> bool:
    try:
        stored(game, letter, strategy)
    except ParError:
        return False
    return True


def compute(game: str, letter: str | None, strategy: str,
            progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Recompute the sheet with the game's module (``compute(letter, strategy, progress)``)."""
    _check(game, strategy)
    try:
        module = importlib.import_module(MODULES[game])
    except ModuleNotFoundError as e:
        if e.name != MODULES[game]:
            raise
        raise ParError(f"no module {MODULES[game]} computes {game}'s exact sheet yet") from None
    sheet: dict[str, Any] = module.compute(letter, strategy, progress)
    return sheet

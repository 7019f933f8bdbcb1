"""Exact par sheets of the base games (issue 27): which module computes each game, the stored sheets.

``stored(game, letter, strategy)`` reads ``games/par/data/<game>.<letter or base>.<strategy>.json``
(package data: no computing, no numba); ``compute(...)`` recomputes a sheet with the game's module,
imported by name only when asked (numba compiles on first use).  A sheet is one JSON object (fields:
docs/analysis.md, "The exact base games"): exact figures as "p/q" fraction strings beside a decimal
string, the distribution of the round's net result, the decisions, the outcomes, each starting
hand's value and decision, and the combination with a side wager where the enumeration sees its cards.
``combinations(...)`` adds the other side wagers' (games.par.combine, stored beside the sheets), each
with the method of its figures.
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


def _first(entry: dict[str, Any], *keys: str) -> Any:
    return next((entry[k] for k in keys if k in entry), None)


def combinations(game: str, letter: str | None, strategy: str, sheet: dict[str, Any]) -> list[dict[str, Any]]:
    """The base game with each side wager of one Ante, one shape for every game: those of the sheet
    (counted in the enumeration: ``exact``) and those of games.par.combine (``exact``, ``simulation``
    with its 95 % intervals, or ``not computed``).  Figures per Ante, decimal strings."""
    from decimal import ROUND_HALF_UP, Decimal
    from fractions import Fraction

    def nine(x: str) -> str:
        f = Fraction(x)
        return str((Decimal(f.numerator) / Decimal(f.denominator)).quantize(Decimal("1e-9"), ROUND_HALF_UP))

    ref = resources.files("games.par").joinpath("data", f"{game}.{letter or 'base'}.{strategy}.combinations.json")
    extra: dict[str, Any] = json.loads(ref.read_text(encoding="utf-8")) if ref.is_file() else {}
    own = {(c["side_wager"], c["paytable"]): c for c in extra.get("sheet_combinations", [])}
    out: list[dict[str, Any]] = []
    for c in sheet.get("combinations", []):
        side = _first(c, "side_return_per_ante", "side_wager_return", "side_return")
        out.append({
            "side_wager": c["side_wager"], "paytable": c["paytable"], "method": "exact",
            "side_return": None if side is None else nine(side),
            "side_std_dev": _first(c, "side_std_dev_per_ante", "side_wager_std_dev", "side_std_dev"),
            "covariance": c["covariance_decimal"], "std_dev": c["std_dev_per_ante"],
            **_distribution(own.get((c["side_wager"], c["paytable"]), {})),
        })
    if extra:
        for c in extra["combinations"]:
            entry = {"side_wager": c["side_wager"], "paytable": c["paytable"], "method": c["method"],
                     "side_return": c.get("side_return_per_ante_decimal"),
                     "side_std_dev": c.get("side_std_dev_per_ante"),
                     "covariance": c.get("covariance_decimal"), "std_dev": c.get("std_dev_per_ante")}
            for k, new in (("covariance_ci95", "covariance_ci95"), ("std_dev_per_ante_ci95", "std_dev_ci95"),
                           ("rounds", "rounds"), ("seed", "seed"), ("meters", "meters"), ("why", "why")):
                if k in c:
                    entry[new] = c[k]
            out.append({**entry, **_distribution(c)})
    return out


def _distribution(c: dict[str, Any]) -> dict[str, Any]:
    """The distribution of base + side of a stored combination (games.par.combine), its fields as stored:
    ``distribution_method`` (exact, simulation or not computed), ``distribution`` (net, probability,
    intervals), its mean, variance and standard deviation."""
    return {k: v for k, v in c.items() if k.startswith("distribution")}

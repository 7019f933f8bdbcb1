"""The games the table runs, by the names the settle contract uses (and by their short names)."""

from __future__ import annotations

from games.game import Game
from games.high_card_flush import GAME as HIGH_CARD_FLUSH
from games.jackpot_holdem import GAME as JACKPOT_HOLDEM
from games.run_em_twice import GAME as RUN_EM_TWICE
from games.ultimate_texas_holdem import GAME as ULTIMATE_TEXAS_HOLDEM

GAMES: dict[str, Game] = {g.name: g for g in (ULTIMATE_TEXAS_HOLDEM, JACKPOT_HOLDEM, RUN_EM_TWICE, HIGH_CARD_FLUSH)}

#: The same games by the abbreviation their clauses are cited with (UTH, JHE, HCF, RET).
BY_SHORT: dict[str, Game] = {g.short: g for g in GAMES.values()}


def irregularity_clause(game: Game, what: str) -> str:
    """The clause of ``game`` for irregularity ``what``.  A game with no clause of its own for it is
    read by the first game's that has one, named (never a citation without its game); an
    irregularity no game names is a ``KeyError``."""
    own = game.irregularities.get(what)
    if own is not None:
        return own
    nearest = next((g.irregularities[what] for g in GAMES.values() if what in g.irregularities), None)
    if nearest is None:
        raise KeyError(what)
    return f"{game.cite('irregularity_chapter')} (no clause of its own; as {nearest})"

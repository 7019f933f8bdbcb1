"""The games the table runs, by the names the settle contract uses."""

from __future__ import annotations

from games.game import Game
from games.ultimate_texas_holdem import GAME as ULTIMATE_TEXAS_HOLDEM

GAMES: dict[str, Game] = {g.name: g for g in (ULTIMATE_TEXAS_HOLDEM,)}

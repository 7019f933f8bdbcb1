"""The games the table runs, by the names the settle contract uses."""

from __future__ import annotations

from games.game import Game
from games.high_card_flush import GAME as HIGH_CARD_FLUSH
from games.jackpot_holdem import GAME as JACKPOT_HOLDEM
from games.run_em_twice import GAME as RUN_EM_TWICE
from games.ultimate_texas_holdem import GAME as ULTIMATE_TEXAS_HOLDEM

GAMES: dict[str, Game] = {g.name: g for g in (ULTIMATE_TEXAS_HOLDEM, JACKPOT_HOLDEM, RUN_EM_TWICE, HIGH_CARD_FLUSH)}

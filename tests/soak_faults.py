"""The fault soak (issue 30): faults of every kind at random moments across the four games, `make soak`.

Not collected by `make test` (its name is not test_*); each test's `make test` sample is named in it.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from games.registry import GAMES
from test_panel_glitches import glitch_rounds


@pytest.mark.parametrize("game", sorted(GAMES))
def test_panel_counter_jumps_of_random_size_make_no_press(game: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """25 jumps a game, 100 in all (make test: tests/test_panel_glitches.py, 6 in one game)."""
    glitch_rounds(game, 25, tmp_path, monkeypatch, seed=zlib.crc32(game.encode()))

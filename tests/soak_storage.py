"""The storage-fault soak (``make soak``): the disk fills or fails at random journal writes of every game.

``STORAGE_FAULTS`` faults per game (15: 60 in all; ``make test`` runs six on UTH,
``tests/test_storage_faults.py``), each full with the reserve beside the journal, full without it, or an I/O
error; ``tests/storage_sweep.py`` says what is checked after each: the daemon alive after every fault, every
refusal naming its cause, no decision, card or reveal from a glitch, zero lost or doubled cents.
"""

from __future__ import annotations

import os
import random

import pytest

import controller.journal.store
import controller.service.storage
from daemon_harness import table_in_process
from games.registry import GAMES
from storage_sweep import Disk, storage_sweep

FAULTS = int(os.environ.get("STORAGE_FAULTS", "15"))


@pytest.mark.parametrize("game", list(GAMES))
def test_storage_fault_soak(game, tmp_path, monkeypatch):
    rng = random.Random(f"storage-{game}-{FAULTS}")  # the same faults every run
    disk = Disk(tmp_path / "table.journal")
    monkeypatch.setattr(controller.journal.store, "_test_kill_point", disk.hook)
    monkeypatch.setattr(controller.service.storage.os, "posix_fallocate", disk.fallocate(os.posix_fallocate))
    with table_in_process(game, tmp_path, monkeypatch, seed=rng.randrange(1000)) as t:
        result = storage_sweep(t, disk, rng, game, FAULTS)
    print(result.line())
    assert result.faults == FAULTS
    assert not result.violations, "\n".join(result.violations)
    assert result.rounds_closed > 0

"""The crash suite and the kill-point sweeps (whole processes and in process) with every round rolling the
journal over (issue 14, P60): `make soak`.

Not collected by `make test` (its name is not test_*; about 2 minutes on 2 cores): each suite runs as it is, with
``[journal_options] segment_max_mb`` below one round's journal, so the daemon seals a segment between every two
rounds, and its checks read the journal across the segments (``SegmentedJournal``) instead of the open file.
"""

from __future__ import annotations

import pytest

import kill_invariants
import test_daemon_crash as crash
import test_kill_points as kills
import test_kill_sweep as sweep
from controller.journal import segments as segs

EVERY_ROUND = "0.01"  # megabytes: less than one round's journal


@pytest.mark.parametrize("config", ["ultimate_texas_holdem", "run_em_twice"])
def test_the_crash_suite_across_roll_overs(config, tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_JOURNAL_OPTIONS__SEGMENT_MAX_MB", EVERY_ROUND)
    monkeypatch.setattr(crash, "Journal", segs.SegmentedJournal)
    crash.test_sigkill_at_random_points_loses_and_doubles_nothing(config, tmp_path, monkeypatch)
    assert len(segs.sealed(tmp_path / "table.journal")) >= 3


@pytest.mark.parametrize("game", ["ultimate_texas_holdem", "high_card_flush"])
def test_the_kill_point_sweep_across_roll_overs(game, tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_JOURNAL_OPTIONS__SEGMENT_MAX_MB", EVERY_ROUND)
    monkeypatch.setattr(kills, "Journal", segs.SegmentedJournal)
    monkeypatch.setattr(kill_invariants, "Journal", segs.SegmentedJournal)
    kills.test_kill_point_sweep(game, tmp_path, monkeypatch)
    assert len(segs.sealed(tmp_path / "table.journal")) >= 3


@pytest.mark.parametrize("game", ["ultimate_texas_holdem", "run_em_twice"])
def test_the_in_process_kill_sweep_across_roll_overs(game, tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_JOURNAL_OPTIONS__SEGMENT_MAX_MB", EVERY_ROUND)
    monkeypatch.setattr(kill_invariants, "Journal", segs.SegmentedJournal)
    sweep.test_kill_point_sweep_in_process(game, tmp_path, monkeypatch)
    assert len(segs.sealed(tmp_path / "table.journal")) >= 3

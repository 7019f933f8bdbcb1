"""The fault soak (issue 30): faults of every kind at random moments across the four games, `make soak`.

Not collected by `make test` (its name is not test_*); each test's `make test` sample is named in it.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest

from controller.daemon import TableDaemon
from controller.journal.trust import JournalTrustError
from daemon_harness import (
    bet,
    confirm,
    deal,
    deal_a_round,
    next_round,
    no_more_bets,
    phase,
    play_out,
    table_config,
    table_in_process,
)
from games.registry import GAMES
from kill_invariants import violations
from test_journal_trust import begin, make_key
from test_panel_glitches import glitch_rounds


@pytest.mark.parametrize("game", sorted(GAMES))
def test_panel_counter_jumps_of_random_size_make_no_press(game: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """25 jumps a game, 100 in all (make test: tests/test_panel_glitches.py, 6 in one game)."""
    glitch_rounds(game, 25, tmp_path, monkeypatch, seed=zlib.crc32(game.encode()))


def _files(journal: Path) -> list[Path]:
    return [p for p in (journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")) if p.exists()]


def _copy(journal: Path, to: Path) -> None:
    """A consistent copy of ``journal`` (what a backup holds), private as a journal is."""
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        db.execute(f"VACUUM INTO '{to}'")
    to.chmod(0o600)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_lost_rolled_back_or_foreign_journal_is_refused_and_the_table_plays_on_once_it_is_back(
        game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30 (1): 5 a game, 20 in all, at random (make test: tests/test_journal_trust.py, each once).  A
    table that has journaled rounds is stopped and its journal deleted, emptied, put back as an older copy
    or replaced by another table's; the daemon refuses to start, naming the cause (nothing begun in its
    place, the meters not set back); with the journal back the table plays on and every invariant holds."""
    rng = random.Random(zlib.crc32(game.encode()) ^ 1)
    other = next(g for g in sorted(GAMES) if g != game)
    (tmp_path / "other").mkdir()
    foreign = tmp_path / "other" / "foreign.journal"  # another table's keyed journal (its own key and chain)
    make_key(foreign)
    begin(foreign, table="other-01", game=other, rounds=tuple(f"o-{i}" for i in range(100)))  # longer than ours
    (tmp_path / "table").mkdir()
    with table_in_process(game, tmp_path / "table", monkeypatch) as t:
        rid, _ = deal_a_round(t)
        play_out(t)
        confirm(t)
        older = tmp_path / "older.journal"
        _copy(t.journal_path, older)
        _, s = next_round(t, rid)
        rid = bet(t, s)
        no_more_bets(t)
        deal(t)
        play_out(t)
        confirm(t)
        t.stop_daemon()
        kept = tmp_path / "kept.journal"
        _copy(t.journal_path, kept)
        cfg = table_config(t.config_path)
        faults = ["deleted", "emptied", "rolled back", "replaced"]
        faults.append(rng.choice(faults))
        for fault in faults:
            for p in _files(t.journal_path):
                p.unlink()
            if fault == "emptied":
                t.journal_path.write_bytes(b"")
            elif fault == "rolled back":
                shutil.copy(older, t.journal_path)
            elif fault == "replaced":
                shutil.copy(foreign, t.journal_path)
            if t.journal_path.exists():
                t.journal_path.chmod(0o600)  # a journal as the table keeps it: refused for what it is, not its mode
            with pytest.raises(JournalTrustError) as refused:
                TableDaemon(cfg)
            assert refused.value.cause == CAUSES[fault], (fault, str(refused.value))
            assert "\n" not in str(refused.value)
            for p in _files(t.journal_path):
                p.unlink()
            shutil.copy(kept, t.journal_path)  # the technician puts the table's own journal back
            t.journal_path.chmod(0o600)
        before = t.status()
        t.start_daemon()
        t.dealer.wait_change(before, "the start")  # the new daemon's first status (its press count from 0)
        _, s = next_round(t, rid)
        rid = bet(t, s)
        no_more_bets(t)
        deal(t)
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        confirm(t)
        registers = t.controls["progressive"]("state")["state"]
        found = violations(t.cfg, t.journal_path, t.status(), registers)
        assert found == [], found


CAUSES = {"deleted": "journal_missing", "emptied": "journal_missing", "rolled back": "behind_anchor",
          "replaced": "not_anchored_chain"}

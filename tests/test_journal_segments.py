"""The journal in segments (issue 14, P60-P62): roll-over by day or size, the chain continuous across files,
reading and checking across them, a crash at each step of a roll-over, retention only after archiving.

Tiny journals (a few rounds per segment); the day is set by the journal's clock (``controller.journal.store._dt``).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.config.table import ConfigError, load_config
from controller.journal import segments as segs
from controller.journal import store as journal_mod
from controller.journal.rows import GENESIS, at_text, chain_hash
from controller.journal.store import Journal, JournalError, JournalIntegrityError, KilledForTest
from controller.journal.verify import segment_base
from controller.progressive import hits as prog
from controller.table import TableLife
from test_journal_checkpoints import UTH, play

CFG = load_config(UTH)


def daemons(path: Path) -> Journal:
    """The journal as the daemon opens it: its table's life registered (a segment's checkpoint holds it)."""
    j = Journal(path, checkpoint_every=100)
    TableLife(CFG, j)
    return j


def build(path: Path, per_segment: tuple[int, ...] = (2, 2), tail: int = 1) -> list[str]:
    """A journal with a meter and ``per_segment`` rounds in each sealed segment, then ``tail`` in the open one;
    the round ids in order."""
    rids = []
    with daemons(path) as j:
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        for n, count in enumerate((*per_segment, tail)):
            for i in range(count):
                rids.append(f"r{n}-{i}")
                play(j, rids[-1])
            if n < len(per_segment):
                segs.roll_over(j)
    return rids


def test_a_roll_over_continues_the_chain_in_a_new_file_that_begins_with_a_checkpoint(tmp_path):
    path = tmp_path / "t.journal"
    with daemons(path) as j:
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        play(j, "r1")
        head = j.head()
        seg = segs.roll_over(j)
        assert (seg.first, seg.last) == (1, head[0])
        assert seg.path.parent == segs.segments_dir(path) and seg.path.exists()
        # the open file now begins after the sealed head, with a checkpoint holding the meters
        first = next(j.iter_events())
        assert (first.seq, first.kind) == (head[0] + 1, ev.Checkpoint.kind)
        assert first.typed.why == segs.SEGMENT_WHY and first.typed.meters == {"major": Decimal("1000.04")}
        assert segment_base(j._db) == head  # its first row links to the sealed head (format 2 stores no link, P76)
        stored = j._query("SELECT at, hash FROM events WHERE seq = ?", (first.seq,))[0]
        assert stored[1] == bytes.fromhex(chain_hash(head[1], first.seq, at_text(stored[0]), None, first.kind, None,
                                                     j._query("SELECT data FROM events WHERE seq = ?",
                                                              (first.seq,))[0][0]))
        play(j, "r2")
        assert j.meter_values() == {"major": Decimal("1000.08")}
        assert j.verify(full=True) == j.head()[0] and j.verify(full=False) == j.head()[0]
    # a restart reads the open file from its checkpoint
    with Journal(path) as j:
        assert j.check_at_start("uth-01", "ultimate_texas_holdem") == j.head()[0]
        assert j.meter_values() == {"major": Decimal("1000.08")}
    with sqlite3.connect(seg.path) as db:  # the sealed copy is one self-contained file, private
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert oct(seg.path.stat().st_mode & 0o777) == oct(0o600)


def test_recall_history_report_and_the_full_check_read_across_segments(tmp_path):
    path = tmp_path / "t.journal"
    rids = build(path)
    assert len(segs.sealed(path)) == 2
    with segs.open_for_reading(path) as j:
        assert isinstance(j, segs.SegmentedJournal)
        assert j.verify(full=True) == j.head()[0]
        assert j.begins() == (0, GENESIS)
        assert [e.kind for e in j.events(rids[0])] == ["round_opened", "wager", "no_more_bets", "meter_add",
                                                         "round_closed"]
        assert [r.round_id for r in j.rounds(last=3)] == rids[-3:]
        assert [r.round_id for r in j.rounds()] == rids
        seqs = [e.seq for e in j.iter_events()]
        assert seqs == list(range(1, j.head()[0] + 1))  # every event once, in the chain's order
        rep = prog.report(j, ["major"])
        assert rep["meters"]["major"]["contributions"] == Decimal("0.04") * len(rids)
        assert rep["meters"]["major"]["current"] == Decimal("1000.00") + Decimal("0.04") * len(rids)


def test_a_journal_that_never_rolled_over_is_read_as_before(tmp_path):
    path = tmp_path / "t.journal"
    build(path, per_segment=())
    assert not segs.segments_dir(path).exists()
    with segs.open_for_reading(path) as j:
        assert type(j) is Journal
        assert j.verify(full=True) == j.head()[0]


@pytest.mark.parametrize("damage", ["missing", "edited", "reordered", "truncated"])
def test_the_full_check_names_a_segment_missing_edited_swapped_or_cut(tmp_path, damage):
    path = tmp_path / "t.journal"
    build(path, per_segment=(2, 2, 2))
    first, second, third = segs.sealed(path)
    if damage == "missing":
        second.path.unlink()
        expected = ("deleted", third.path.name)
    elif damage == "edited":
        with sqlite3.connect(second.path) as db:
            db.execute("UPDATE events SET data = '{\"seat\":1,\"wager\":\"ante\",\"amount\":\"500\"}' "
                       "WHERE kind = 'wager' AND seq = (SELECT MIN(seq) FROM events WHERE kind = 'wager')")
        expected = ("edited", second.path.name)
    elif damage == "reordered":  # the second and third files' contents swapped under their names
        tmp = second.path.with_suffix(".x")
        os.replace(second.path, tmp)
        os.replace(third.path, second.path)
        os.replace(tmp, third.path)
        expected = ("reordered", second.path.name)
    else:  # the last round of the second segment cut off, its head rewritten to match
        with sqlite3.connect(second.path) as db:
            db.execute("DELETE FROM events WHERE seq = ?", (second.last,))
            db.execute("UPDATE head SET seq = seq - 1, hash = (SELECT lower(hex(hash)) FROM events WHERE seq = ?)",
                       (second.last - 1,))
        expected = ("deleted", second.path.name)
    with segs.open_for_reading(path) as j, pytest.raises(JournalIntegrityError) as caught:
        j.verify(full=True)
    assert caught.value.what == expected[0]
    assert expected[1] in caught.value.reason


@pytest.mark.parametrize("step", ["copied", "sealed", "before", "after"])
def test_a_crash_at_each_step_of_a_roll_over_leaves_a_journal_that_starts_and_verifies(tmp_path, monkeypatch, step):
    """``copied``: the copy made, not yet named; ``sealed``: named, the open file not yet begun after it;
    ``before``/``after``: the kill hook around the open file's one transaction (controller.journal.store)."""
    path = tmp_path / "t.journal"
    with daemons(path) as j:
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        play(j, "r1")
        head = j.head()
        if step in ("copied", "sealed"):
            monkeypatch.setenv("TABLECTL_TEST_SEGMENT_FAIL", step)
        else:
            j._test_writes = 0
            monkeypatch.setenv(journal_mod.KILL_AT_ENV, f"1:{step}:raise")
        with pytest.raises(KilledForTest):
            segs.roll_over(j)
    monkeypatch.delenv("TABLECTL_TEST_SEGMENT_FAIL", raising=False)
    monkeypatch.delenv(journal_mod.KILL_AT_ENV, raising=False)
    # the next start: every reader verifies; the daemon completes a roll-over cut short
    with segs.open_for_reading(path) as r:
        assert r.verify(full=True) == r.head()[0]
        assert [e.kind for e in r.events("r1")][-1] == "round_closed"
    with daemons(path) as j:
        j.check_at_start("uth-01", "ultimate_texas_holdem")
        done = segs.complete(j)
        assert (done is not None) == (step in ("sealed", "before"))
        rolled = step != "copied"
        assert (next(j.iter_events()).seq == head[0] + 1) == rolled
        play(j, "r2")
        if not rolled:
            segs.roll_over(j)  # the copy cut short is removed and made again
            assert not list(segs.segments_dir(path).glob("*.tmp"))
        assert j.meter_values() == {"major": Decimal("1000.08")}
    with segs.open_for_reading(path) as r:
        assert r.verify(full=True) == r.head()[0]
        assert [e.kind for e in r.events("r1")][-1] == "round_closed"
        assert len(segs.sealed(path)) == 1


def test_no_roll_over_inside_a_round(tmp_path):
    with daemons(tmp_path / "t.journal") as j:
        j.append("r1", "round_opened", {"game": "ultimate_texas_holdem", "paytables": {}, "progressive": None})
        with pytest.raises(JournalError):
            segs.roll_over(j)


def test_due_by_day_and_by_size(tmp_path, monkeypatch):
    path = tmp_path / "t.journal"
    with Journal(path) as j:
        assert segs.due(j, by_day=True, max_bytes=1) is None  # nothing in it
    with daemons(path) as j:
        play(j, "r1")
        written = dt.datetime.fromisoformat(next(j.iter_events()).at)
        assert segs.due(j, by_day=True, max_bytes=None, now=written) is None
        assert segs.due(j, by_day=True, max_bytes=None, now=written + dt.timedelta(days=1)) == "day"
        assert segs.due(j, by_day=False, max_bytes=10**9, now=written + dt.timedelta(days=1)) is None
        assert segs.due(j, by_day=False, max_bytes=1) == "size"
        big = 64_000  # bytes: some dozens of these rounds
        for i in range(200):
            if segs.due(j, by_day=False, max_bytes=big):
                break
            play(j, f"r2-{i}")
        assert i > 10 and segs.due(j, by_day=False, max_bytes=big) == "size"
        segs.roll_over(j)
        # a segment holding only its beginning checkpoint does not roll over again
        assert segs.due(j, by_day=True, max_bytes=1, now=written + dt.timedelta(days=2)) is None
        # the pages the roll-over freed are reused, not counted: one round is far from the limit again
        play(j, "r3")
        assert segs.due(j, by_day=False, max_bytes=big) is None


def test_retention_deletes_only_archived_identical_segments_and_never_the_open_one(tmp_path):
    path = tmp_path / "t.journal"
    archive = tmp_path / "archive"
    build(path, per_segment=(1, 1))
    first, second = segs.sealed(path)
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=40)
    # an archive copy that differs from the segment keeps it
    archive.mkdir()
    shutil.copy(first.path, archive / first.path.name)
    with open(archive / first.path.name, "ab") as f:
        f.write(b"x")
    gone = segs.retain(path, archive, retain_days=30, now=later)
    assert gone == [second.path] and first.path.exists() and path.exists()
    assert (archive / second.path.name).read_bytes() == (tmp_path / "archive" / second.path.name).read_bytes()
    # not old enough: kept
    (archive / first.path.name).unlink()
    assert segs.retain(path, archive, retain_days=30, now=dt.datetime.now(dt.UTC)) == []
    assert segs.retain(path, archive, retain_days=30, now=later) == [first.path]
    assert path.exists() and not segs.sealed(path)
    # the chain still reads whole, from the archive
    with segs.open_for_reading(path, archive) as j:
        assert j.verify(full=True) == j.head()[0] and j.begins() == (0, GENESIS)
        assert len(j.rounds()) == 3
    # without the archive the oldest file here says where it begins
    with segs.SegmentedJournal(path) as j:
        assert j.verify(full=True) == j.head()[0]
        assert j.begins()[0] == second.last


def test_an_auditors_copy_of_some_segments_verifies_and_recalls(tmp_path):
    """docs/journal.md: some segments copied, the last of them as the copy's journal file."""
    path = tmp_path / "table" / "t.journal"
    path.parent.mkdir()
    rids = build(path, per_segment=(1, 2, 2))
    _, second, third = segs.sealed(path)
    copy = tmp_path / "audit" / "t.journal"
    segs.segments_dir(copy).mkdir(parents=True)
    for seg in (second, third):
        shutil.copy2(seg.path, segs.segments_dir(copy) / seg.path.name)
    os.replace(segs.segments_dir(copy) / third.path.name, copy)
    with segs.open_for_reading(copy) as j:
        assert j.verify(full=True) == third.last
        assert j.begins()[0] == second.first - 1
        assert [r.round_id for r in j.rounds()] == rids[1:5]
        assert [e.kind for e in j.events(rids[1])][-1] == "round_closed"


@pytest.mark.parametrize(("options", "key"), [
    ("segment_max_mb = 0", "journal_options.segment_max_mb"),
    ("segment_daily = \"often\"", "journal_options.segment_daily"),
    ("retain_days = 0\narchive_dir = \"a\"", "journal_options.retain_days"),
    ("retain_days = 30", "journal_options"),  # without archive_dir (P62)
    ("segments = 3", "journal_options.segments"),
])
def test_segment_options_out_of_range_or_unknown_stop_start_up_naming_the_key(tmp_path, options, key):
    text = UTH.read_text().replace('log_format = "auto"', f'log_format = "auto"\n\n[journal_options]\n{options}')
    (tmp_path / "t.toml").write_text(text.replace("../var/", str(tmp_path) + "/"))
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "t.toml")
    assert key in str(caught.value)


def test_segment_options_read_with_the_archive_from_the_files_directory(tmp_path):
    options = 'segment_daily = true\nsegment_max_mb = 0.5\narchive_dir = "archive"\nretain_days = 30'
    text = UTH.read_text().replace('log_format = "auto"', f'log_format = "auto"\n\n[journal_options]\n{options}')
    (tmp_path / "t.toml").write_text(text.replace("../var/", str(tmp_path) + "/"))
    o = load_config(tmp_path / "t.toml").journal_options
    assert (o.segment_daily, o.segment_max_mb, o.archive_dir, o.retain_days) == (
        True, Decimal("0.5"), tmp_path / "archive", 30)


def test_the_floor_pages_recall_a_round_of_a_sealed_segment(tmp_path):
    from web import floor, recall

    path = tmp_path / "t.journal"
    rids = build(path)
    events, _ = recall._recall(path, rids[0])
    assert events is not None and [e.kind for e in events][-1] == "round_closed"
    assert all(e.round_id == rids[0] for e in events)
    report = floor._progressive(path, ["major"])[1]
    assert report["meters"]["major"]["contributions"] == Decimal("0.04") * len(rids)  # every segment's rounds


def test_a_copy_that_cannot_be_written_leaves_the_open_file_as_it_was(tmp_path, monkeypatch):
    """The segment's disk full: the roll-over is refused (the daemon logs it and tries after the next round)."""
    path = tmp_path / "t.journal"
    with daemons(path) as j:
        play(j, "r1")
        head = j.head()

        def disk_full(src: Path, dst: sqlite3.Connection) -> None:  # the copy fails as on a full disk
            raise sqlite3.OperationalError("database or disk is full")

        with monkeypatch.context() as m:
            m.setattr(segs, "_snapshot", disk_full)
            with pytest.raises(JournalError):
                segs.roll_over(j)
        assert j.head() == head and next(j.iter_events()).seq == 1
        assert not list(segs.segments_dir(path).iterdir())
        play(j, "r2")
        assert j.verify(full=True) == j.head()[0]


def test_the_daemon_answers_while_a_segment_is_copied(tmp_path, monkeypatch):
    """P78: the roll-over's copy runs in a thread, through a connection of its own: while it is under way the
    event loop runs and the journal's lock is free (the status, the watchdog and the devices go on)."""
    import asyncio
    import threading

    from controller.service.session import Session

    options = CFG.journal_options.model_copy(update={"segment_max_mb": Decimal("0.001")})
    s = Session(CFG.model_copy(update={"journal": tmp_path / "t.journal", "journal_options": options}))
    play(s.journal, "r1")
    meters, head = s.meters.values(), s.journal.head()[0]
    reached, go = threading.Event(), threading.Event()
    snapshot = segs._snapshot

    def paused(path: Path, dst: sqlite3.Connection) -> None:
        reached.set()
        if not go.wait(30):
            raise AssertionError("the event loop did not go on during the copy")
        snapshot(path, dst)

    monkeypatch.setattr(segs, "_snapshot", paused)

    async def main() -> None:
        rolling = asyncio.ensure_future(s.between_rounds())
        assert await asyncio.to_thread(reached.wait, 30)  # the loop runs this while the copy waits
        assert not rolling.done()
        assert s.journal._lock.acquire(timeout=5)  # free: a status read would not wait for the copy
        s.journal._lock.release()
        assert s.meters.values() == meters
        go.set()
        await rolling

    asyncio.run(main())
    assert [seg.last for seg in segs.sealed(s.journal.path)] == [head]
    assert s.journal.verify(full=True) == head + 2  # the open file begins with its checkpoint and the digest (P101)
    s.journal.close()


def test_recall_rehashes_a_sealed_segment_once_and_refuses_one_changed_since(tmp_path, monkeypatch):
    """P79: recall and progressive remember, beside the journal, the point through which each file verified: a
    sealed segment is rehashed by the first call only, the open file after its remembered point; a segment
    changed since (its identity is part of what is remembered) is rehashed again and refused."""
    from controller.journal import verify as journal_verify
    from test_journal_formats import run

    path = tmp_path / "t.journal"
    rids = build(path, per_segment=(2, 2))
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    rehashed = []
    chain_hash = journal_verify.chain_hash
    monkeypatch.setattr(journal_verify, "chain_hash", lambda *row: rehashed.append(row[1]) or chain_hash(*row))
    head = Journal.read_only(path).head()[0]
    code, out, err = run("recall", "--config", str(UTH))  # the last rounds
    assert code == 0 and rids[-1] in out, err
    assert sorted(rehashed) == list(range(1, head + 1))  # the first call: every row of every file
    rehashed.clear()
    code, _, err = run("progressive", "report", "--config", str(UTH))
    assert code == 0, err
    last_sealed = segs.sealed(path)[-1].last
    assert rehashed and min(rehashed) > last_sealed  # the open file only, from its checkpoint
    first = segs.sealed(path)[0]
    with sqlite3.connect(first.path) as db:
        db.execute("UPDATE events SET data = '{\"amount\":\"500\",\"seat\":1,\"wager\":\"ante\"}' "
                   "WHERE seq = (SELECT MIN(seq) FROM events WHERE kind = 'wager')")
    db.close()
    for argv in (("recall",), ("progressive", "report"), ("journal", "verify", "--full")):
        code, out, err = run(*argv, "--config", str(UTH))
        assert (code, out) == (2, "") and first.path.name in err and ": edited" in err

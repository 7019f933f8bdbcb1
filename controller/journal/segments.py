"""The journal in segments: rolled over to a new file by day or size, archived, kept N days (issue 14, P60-P62).

The configured journal path is always the *open* segment; sealed segments sit beside it in
``<journal>.segments/``, one SQLite file each, named by their first and last seq and the UTC date of their
first event.  ``roll_over`` (between rounds only, P60) seals the open file and carries the chain on;
``SegmentedJournal`` reads every segment as one journal (P61); ``retain`` archives and deletes (P62).
Step by step, and what a crash at each step leaves: docs/journal.md (segments).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from controller.journal import trust
from controller.journal.rows import GENESIS, Event, RoundSummary, at_text, connect_read_only, hash_hex
from controller.journal.sealed import (
    SEGMENT_WHY,
    SUFFIX,
    Segment,
    check_sealed,
    connect_sealed,
    first_event,
    recorded,
    sealed,
    segments_dir,
)
from controller.journal.store import FILE_MODE, Journal, JournalError, JournalIntegrityError
from controller.journal.verify import segment_base


def _fsync(path: Path) -> None:
    """Make a file, or a directory's entries, durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _day(at: str) -> str:
    return _dt.datetime.fromisoformat(at).astimezone(_dt.UTC).strftime("%Y%m%d")


def _first_row(journal: Journal) -> tuple[int, str] | None:
    rows = journal._query("SELECT seq, at FROM events ORDER BY seq LIMIT 1")
    return (int(rows[0][0]), at_text(rows[0][1])) if rows else None


# -- rolling over (the daemon) ---------------------------------------------------------------------


def due(journal: Journal, *, by_day: bool, max_bytes: int | None, now: _dt.datetime | None = None) -> str | None:
    """Why the open segment should roll over now (``"day"``, ``"size"``), or None (P60).  By day: its first
    event was journaled on an earlier UTC date; by size: the file and its WAL pass ``max_bytes``.  A segment
    holding nothing but its beginning checkpoint never rolls over."""
    first = _first_row(journal)
    if first is None:
        return None
    with journal._lock:
        base_seq = segment_base(journal._db)[0]
        beginning = base_seq + (2 if recorded(journal._db) is not None else 1)
    if journal.last_seq() <= beginning and base_seq > 0:
        return None  # only the checkpoint that began it (and the sealed segment's digest, P101)
    if by_day:
        today = (now or _dt.datetime.now(_dt.UTC)).astimezone(_dt.UTC).strftime("%Y%m%d")
        if _day(first[1]) < today:
            return "day"
    if max_bytes is not None:
        with journal._lock:  # the pages in use (those still in the WAL too; not those a roll-over freed)
            db = journal._db
            size = (db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count")
                    .fetchone()[0]) * db.execute("PRAGMA page_size").fetchone()[0]
        if size >= max_bytes:
            return "size"
    return None


def roll_over(journal: Journal) -> Segment:
    """Seal the open segment and begin the next one (the module docstring's steps 1 and 2); the sealed segment.
    Call it between rounds only: the daemon's journal, no round open, the table's life registered
    (``controller.table.TableLife``): the checkpoint that begins the next segment holds it."""
    if "table" not in journal.checkpoint_parts:
        raise JournalError("a segment begins with the table's life in its checkpoint: the daemon's journal only")
    if journal.open_round() is not None:
        raise JournalError("a segment is rolled over between rounds only: a round is open")
    d = segments_dir(journal.path)
    d.mkdir(mode=0o700, exist_ok=True)
    for stale in d.glob("*.tmp"):  # a copy cut short by a crash
        stale.unlink()
    first = _first_row(journal)
    if first is None:
        raise JournalError(f"the journal {journal.path} has no event to seal")
    head = journal.head()
    seg = Segment(first[0], head[0], _day(first[1]), d / Segment.name(first[0], head[0], _day(first[1])))
    if not seg.path.exists():
        _copy_sealed(journal, seg, head)
    for other in d.iterdir():  # an earlier copy of the open file's beginning (a roll-over cut short)
        old = Segment.parse(other)
        if old is not None and old.first == seg.first and old.last < seg.last:
            rows = journal._query("SELECT seq, hash FROM events WHERE seq = ?", (old.last,))
            if rows and _head_of(old.path) == (int(rows[0][0]), hash_hex(rows[0][1])):
                other.unlink()  # the new copy holds it whole
    _begin_next(journal, seg, head)
    return seg


def _copy_sealed(journal: Journal, seg: Segment, head: tuple[int, str]) -> None:
    tmp = seg.path.with_name(seg.path.name + ".tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)  # private from the start: it holds cards
    os.close(fd)
    dst = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        _snapshot(journal.path, dst)
        dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file: archived and copied as it is
        got = dst.execute("SELECT seq, hash FROM head WHERE one = 1").fetchone()
    except sqlite3.Error as exc:  # the copy's disk, not the journal's: the open file is untouched
        tmp.unlink()
        raise JournalError(f"the segment {seg.path.name} cannot be written: {exc}") from None
    finally:
        dst.close()
    if got is None or (int(got[0]), str(got[1])) != head:
        tmp.unlink()
        raise JournalError(f"the copy of {journal.path} does not end at its head seq {head[0]}")
    _fsync(tmp)
    _test_step("copied")
    os.replace(tmp, seg.path)
    _fsync(seg.path.parent)
    _test_step("sealed")


def _snapshot(path: Path, dst: sqlite3.Connection) -> None:
    """Copy the journal at ``path`` into ``dst`` as one snapshot, through a connection of its own (SQLite's
    backup in one step is one read transaction of the WAL file): the journal's own connection and lock stay
    free for the daemon meanwhile (the roll-over runs off its event loop).  An event appended during the copy
    is not in it: the copy then does not end at the head the roll-over sealed, and the roll-over is given up."""
    src = connect_read_only(path)
    try:
        src.backup(dst)
    finally:
        src.close()


def _begin_next(journal: Journal, seg: Segment, head: tuple[int, str]) -> None:
    digest, size = trust.sha256_file(seg.path)  # the sealed file as it is now, recorded in the chain (P101)
    record = trust.SegmentSealed(name=seg.path.name, first=seg.first, last=seg.last, sha256=digest, size=size)
    journal.append_many([], checkpoint=SEGMENT_WHY, sealed=head, trailing=[(None, record.kind, record.to_data(), None)])
    try:
        with journal._lock:
            journal._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # hand the deleted pages back to the file
    except sqlite3.Error:
        pass  # a reader holds the WAL: the pages are reused all the same


def complete(journal: Journal) -> Segment | None:
    """At start: finish a roll-over a crash cut short between its two steps (a sealed copy of the whole open
    file exists, the open file not yet begun after it); the segment, or None when there was none to finish."""
    segs = sealed(journal.path)
    first = _first_row(journal)
    if not segs or first is None:
        return None
    seg, head = segs[-1], journal.head()
    if (seg.first, seg.last) == (first[0], head[0]) and _head_of(seg.path) == head:
        _begin_next(journal, seg, head)
        return seg
    return None


def _head_of(path: Path) -> tuple[int, str] | None:
    db = connect_read_only(path)
    try:
        row = db.execute("SELECT seq, hash FROM head WHERE one = 1").fetchone()
    finally:
        db.close()
    return (int(row[0]), str(row[1])) if row else None


_TEST_STEP_ENV = "TABLECTL_TEST_SEGMENT_FAIL"  # test-only: the roll-over step after which it fails


def _test_step(step: str) -> None:
    """Test-only: with ``TABLECTL_TEST_SEGMENT_FAIL=<step>`` the roll-over dies after that step (a crash)."""
    if os.environ.get(_TEST_STEP_ENV) == step:
        from controller.journal.store import KilledForTest

        raise KilledForTest(f"killed after the roll-over step {step}")


def between_rounds(journal: Journal, *, by_day: bool, max_bytes: int | None, archive_dir: Path | None,
                   retain_days: int | None, now: _dt.datetime | None = None) -> Segment | None:
    """The daemon between two rounds (P60): roll the open segment over when it is ``due``, then archive and
    apply the retention; the segment sealed, or None."""
    if due(journal, by_day=by_day, max_bytes=max_bytes, now=now) is None:
        return None
    seg = roll_over(journal)
    if archive_dir is not None:
        if retain_days is None:
            archive(journal.path, archive_dir)
        else:
            retain(journal.path, archive_dir, retain_days, now)
    return seg


# -- retention -------------------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def archive(journal: str | os.PathLike[str], archive_dir: str | os.PathLike[str]) -> list[Path]:
    """Copy every sealed segment not yet in ``archive_dir`` there (durably, hash-checked); the copies made."""
    dest_dir = Path(archive_dir)
    dest_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    made = []
    for seg in sealed(journal):
        dest = dest_dir / seg.path.name
        if dest.exists():
            continue
        tmp = dest.with_name(dest.name + ".tmp")
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, FILE_MODE)
        with seg.path.open("rb") as src:
            for block in iter(lambda: src.read(1 << 20), b""):
                os.write(fd, block)
        os.fsync(fd)
        os.close(fd)
        if _sha256(tmp) != _sha256(seg.path):
            tmp.unlink()
            raise JournalError(f"the archive copy of {seg.path.name} in {dest_dir} differs from it")
        os.replace(tmp, dest)
        _fsync(dest_dir)
        made.append(dest)
    return made


def retain(journal: str | os.PathLike[str], archive_dir: str | os.PathLike[str], retain_days: int,
           now: _dt.datetime | None = None) -> list[Path]:
    """Archive the sealed segments, then delete those whose last event is more than ``retain_days`` days
    old and whose archive copy is identical (SHA-256); the files deleted.  Never the open segment."""
    archive(journal, archive_dir)
    cutoff = (now or _dt.datetime.now(_dt.UTC)) - _dt.timedelta(days=retain_days)
    gone = []
    for seg in sealed(journal):
        db = connect_read_only(seg.path)
        try:
            last_at = db.execute("SELECT at FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        finally:
            db.close()
        if last_at is None or _dt.datetime.fromisoformat(at_text(last_at[0])) >= cutoff:
            continue
        copy = Path(archive_dir) / seg.path.name
        if not copy.is_file() or _sha256(copy) != _sha256(seg.path):
            continue  # not archived as it is: kept
        seg.path.unlink()
        gone.append(seg.path)
    if gone:
        _fsync(segments_dir(journal))
    return gone


# -- reading across segments -----------------------------------------------------------------------


class SegmentedJournal(Journal):
    """The open journal and its sealed segments, read as one journal (read-only; see the module docstring).

    What reads the table now (the meters, the state, the head, the owner) is the open file's; what reads
    history (a round's events, events of a kind, every event, the last rounds, the full check) reads the
    sealed segments first, in the chain's order."""

    def __init__(self, path: str | os.PathLike[str], archive_dir: str | os.PathLike[str] | None = None) -> None:
        opened = Journal.read_only(path)
        self.__dict__.update(opened.__dict__)
        self._segments: list[tuple[Segment, Journal]] = []
        self.pending: Segment | None = None  # a sealed copy of the open file (a roll-over cut short)
        try:
            first = _first_row(opened)
            for seg in sealed(path, archive_dir):
                if first is not None and seg.first == first[0]:
                    self.pending = seg  # the open file still holds these rows: read them there
                    continue
                self._segments.append((seg, _Sealed.read_only(seg.path)))
        except BaseException:
            self.close()
            raise

    @property
    def segments(self) -> list[Segment]:
        return [seg for seg, _ in self._segments]

    def close(self) -> None:
        for _, j in self._segments:
            j.close()
        super().close()

    def begins(self) -> tuple[int, str]:
        """(seq, hash) the oldest file here follows: (0, 64 zeros) when the chain is whole from its start."""
        if self._segments:
            return segment_base(self._segments[0][1]._db)
        with self._lock:
            return segment_base(self._db)

    def verify(self, full: bool = True, *, remember: bool = False, marks: dict[str, str] | None = None,
               whole: bool = False) -> int:
        """Each file's chain (``full``: every row rehashed; else from each file's verified point, or from the
        point ``marks`` remembered for it, P79), each file's link to the one before it, and each sealed file's
        SHA-256 against the record in the file after it (P101).  ``whole`` (``journal verify`` on the table's
        journal): the files must run from the chain's first event; a segment missing before them is named."""
        if whole:
            begins = self.begins()
            if begins[0] != 0:
                with (self._segments[0][1] if self._segments else self)._lock:
                    rec = recorded((self._segments[0][1] if self._segments else self)._db)
                name = rec.name if rec is not None else f"of the seqs up to {begins[0]}"
                raise JournalIntegrityError(begins[0], f"the sealed segment {name} is missing (not here, nor in "
                                            "the archive): the journal does not begin at its first event", "deleted")
        prev: tuple[int, str] | None = None
        for seg, j in self._segments:
            where = f"segment {seg.path.name}"
            try:
                n = j.verify(full=full, marks=marks)
            except JournalIntegrityError as e:
                raise JournalIntegrityError(e.seq, f"{where}: {e.reason}", e.what) from None
            with j._lock:
                base = segment_base(j._db)
            head = j.head()
            if (base[0] + 1, head[0]) != (seg.first, seg.last) or n != seg.last:
                # a file put in another's place, or rows cut from its end (its head rewritten to match)
                raise JournalIntegrityError(min(base[0], head[0]) + 1, f"{where}: its name says seqs {seg.first}-"
                                            f"{seg.last}, it holds {base[0] + 1}-{head[0]}",
                                            "reordered" if base[0] + 1 != seg.first else "deleted")
            if prev is not None and base != prev:
                raise _link_fault(where, base, prev)
            prev = head
        n = super().verify(full=full, marks=marks)
        with self._lock:
            base = segment_base(self._db)
        if self.pending is not None:
            want = _head_of(self.pending.path)
            rows = self._query("SELECT seq, hash FROM events WHERE seq = ?", (self.pending.last,))
            if want is None or not rows or (int(rows[0][0]), hash_hex(rows[0][1])) != want:
                raise JournalIntegrityError(self.pending.first, f"segment {self.pending.path.name}: it is not the "
                                            "open journal's beginning", "edited")
        if prev is not None and base != prev:
            raise _link_fault(f"the open journal {self.path}", base, prev)
        files: list[Journal] = [j for _, j in self._segments] + [self]
        for before, after in zip(files, files[1:], strict=False):  # the chain's record of each sealed file (P101)
            with after._lock:
                rec = recorded(after._db)
            if rec is not None and isinstance(before, _Sealed) and \
                    (rec.name != before.path.name or rec.sha256 != before.digest()):
                raise JournalIntegrityError(rec.first, f"segment {before.path.name}: its SHA-256 is not the one the "
                                            "chain recorded when it was sealed", "edited")
        return n

    # -- history across the files --------------------------------------------------------------------

    def _parts(self) -> Iterator[Journal]:
        for _, j in self._segments:
            yield j
        yield _OpenView(self)

    def events(self, round_id: str | None, *, after: int = 0) -> list[Event]:
        return [e for j in self._parts() for e in j.events(round_id, after=after)]

    def events_of(self, kind: str, *, after: int = 0) -> list[Event]:
        return [e for j in self._parts() for e in j.events_of(kind, after=after)]

    def first_seq(self, round_id: str) -> int | None:
        for j in self._parts():
            found = j.first_seq(round_id)
            if found is not None:
                return found
        return None

    def iter_events(self, after: int = 0, batch: int = 1000) -> Iterator[Event]:
        for j in self._parts():
            yield from j.iter_events(after, batch)

    def rounds(self, last: int | None = None) -> list[RoundSummary]:
        if last is None:
            return [r for j in self._parts() for r in j.rounds()]
        out: list[RoundSummary] = []
        for j in reversed(list(self._parts())):  # from the newest file back, until there are enough
            if len(out) >= last:
                break
            out = j.rounds(last=last - len(out)) + out
        return out[-last:] if last else []


class _Sealed(Journal):
    """A sealed segment read by a tool: never written again, so what a tool verified of it is remembered by
    the file's content as well (P79, P101): its SHA-256, not its time or size, which an edit can restore; a
    file changed in any way since is rehashed whole."""

    SEALED = True
    _digest: str | None = None

    def digest(self) -> str:
        if self._digest is None:
            self._digest = trust.sha256_file(self.path)[0]
        return self._digest

    def marks_key(self) -> str:
        return f"{self.path.resolve()}@sha256:{self.digest()}"


class _OpenView(Journal):
    """The open file's own reads, as a plain ``Journal`` (``SegmentedJournal`` overrides them)."""

    def __init__(self, outer: SegmentedJournal) -> None:  # the open file's connection and lock, shared
        self.__dict__.update(outer.__dict__)


def _link_fault(where: str, base: tuple[int, str], prev: tuple[int, str]) -> JournalIntegrityError:
    if base[0] > prev[0]:
        return JournalIntegrityError(prev[0] + 1, f"{where} begins after seq {base[0]}, the segment before it "
                                     f"ends at seq {prev[0]}: a segment is missing", "deleted")
    if base[0] < prev[0]:
        return JournalIntegrityError(base[0] + 1, f"{where} begins after seq {base[0]}, the segment before it "
                                     f"ends at seq {prev[0]}", "reordered")
    return JournalIntegrityError(base[0] + 1, f"{where} does not follow the head of the segment before it "
                                 "(another hash)", "edited")


# -- what the reading tools verified (P79) ---------------------------------------------------------

MARKS_SUFFIX = ".verified"


def marks_path(journal: str | os.PathLike[str]) -> Path:
    """Where the reading tools remember the point through which each file of the journal verified."""
    return Path(f"{os.fspath(journal)}{MARKS_SUFFIX}")


def verify_remembered(journal: Journal) -> int:
    """``recall`` and ``progressive`` (P79): verify each file from the point an earlier call verified it through
    (remembered in ``<journal>.verified``; a file not there is rehashed whole), then remember the new ends.  A
    sealed segment is rehashed once; after that only its shape from its last checkpoint and its links to its
    neighbours are checked.  A remembered point that no longer holds (the file replaced or edited) sends
    every file to the full check, which refuses a broken journal; ``journal verify --full`` reads no marks."""
    where = marks_path(journal.path)
    try:
        marks = {str(k): str(v) for k, v in json.loads(where.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        marks = {}
    try:
        n = journal.verify(full=False, marks=marks)
    except JournalIntegrityError:
        if not marks:
            raise
        marks = {}
        n = journal.verify(full=True, marks=marks)
    files = [j for _, j in journal._segments] if isinstance(journal, SegmentedJournal) else []
    keep = {j.marks_key() for j in (*files, journal)}
    _write_private(where, json.dumps({k: v for k, v in marks.items() if k in keep}, sort_keys=True))
    return n


def _write_private(path: Path, text: str) -> None:
    """Write ``path`` whole (a temporary file renamed over it), mode 0600; a tool that cannot is not stopped:
    the next call verifies every row again."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, FILE_MODE)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def open_for_reading(path: str | os.PathLike[str], archive_dir: str | os.PathLike[str] | None = None) -> Journal:
    """The journal at ``path`` for a read-only tool: across its segments when it has any (a ``SegmentedJournal``),
    else the single file as before."""
    if segments_dir(path).is_dir() or (archive_dir and Path(archive_dir).is_dir() and sealed(path, archive_dir)):
        return SegmentedJournal(path, archive_dir)
    return Journal.read_only(path)


__all__ = ["GENESIS", "SUFFIX", "Segment", "SegmentedJournal", "archive", "between_rounds", "check_sealed",
           "complete", "connect_sealed", "due", "first_event", "marks_path", "open_for_reading", "retain", "roll_over",
           "sealed", "segments_dir", "verify_remembered"]

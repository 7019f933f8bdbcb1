"""The table's journal as the floor's pages verify it: kept incrementally, and what is wrong named (issue 26).

The web process keeps what it verified in memory (``JournalCheck``): a sealed segment is rehashed whole once, and
again only when its file changes (its device, inode, size or modification time: a sealed file is never written
again, P60); the open file from the point verified last, its seq and row hash (``verify_snapshot``'s mark, P79),
so a page load rehashes only the rows appended since.  Across the files, as ``SegmentedJournal.verify``: each
file begins where the one before it ends, each sealed file holds the seqs its name says, its SHA-256 is the one
the chain recorded when it was sealed (P101), and the chain begins at its first event (or in the archive).
A journal begun for another table or game (its labels, its ``journal_begun``: P90, P99) is foreign.

A failure is a ``Verdict`` naming the file (a segment's name, or the open journal), the first seq that does not
check and what is wrong (``JournalIntegrityError.WHAT``, ``foreign`` or ``unreadable``); never an exception.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from controller import events as ev
from controller.journal import trust
from controller.journal.rows import JournalError, JournalIntegrityError, stored_dictionary, unpack
from controller.journal.sealed import Segment, first_event, recorded, sealed
from controller.journal.store import Journal
from controller.journal.verify import segment_base

OPEN = "the open journal"  # the file a verdict names when it is not a sealed segment
#: what is wrong, in words (a verdict's ``what``: ``JournalIntegrityError.WHAT``, ``foreign``)
WORDS: dict[str, str] = {
    "journal.edited": "altered", "journal.deleted": "rows or a segment missing", "journal.reordered": "out of order",
    "journal.unreadable": "unreadable", "journal.foreign": "another table's journal",
}


@dataclass(frozen=True)
class Verdict:
    """The journal verified (``ok``: ``events`` rows, the head's hash ``head``), or what is wrong: in ``file``
    (a sealed segment's name or ``OPEN``), from seq ``seq``, ``what`` (a code), ``reason`` (words)."""

    ok: bool
    at: float  # when it was checked, seconds since 1970
    events: int = 0
    head: str = ""
    file: str | None = None
    seq: int | None = None
    what: str | None = None
    reason: str = ""


class _Fault(Exception):
    def __init__(self, file: str, seq: int | None, what: str, reason: str) -> None:
        super().__init__(reason)
        self.file, self.seq, self.what, self.reason = file, seq, what, reason


@dataclass(frozen=True)
class _SealedFile:
    """What a sealed file held when it was verified whole: its beginning and head, the record of the segment before
    it (P101), its SHA-256; or the fault found in it."""

    base: tuple[int, str]
    head: tuple[int, str]
    record: trust.SegmentSealed | None
    digest: str
    fault: _Fault | None = None


def _identity(path: Path) -> tuple[int, int, int, int]:
    st = path.stat()
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


class JournalCheck:
    """The journal at ``path`` of table ``table`` playing ``game``, verified again at each ``check`` from what the
    checks before it verified (see the module docstring).  Thread-safe: the pages call it off the event loop."""

    def __init__(self, path: Path, table: str, game: str, archive_dir: Path | None = None) -> None:
        self.path, self.table, self.game, self.archive_dir = Path(path), table, game, archive_dir
        self._lock = threading.Lock()
        self._sealed: dict[Path, tuple[tuple[int, int, int, int], _SealedFile]] = {}
        self._mark: tuple[tuple[int, int], str] | None = None  # the open file's (device, inode), "seq:hash"
        self.whole_checks = 0  # sealed files rehashed whole (each once while unchanged)
        self.rehashed_after: int | None = None  # the seq after which the last check rehashed the open file

    def check(self) -> Verdict:
        with self._lock:
            now = time.time()
            try:
                n, head = self._check()
            except _Fault as f:
                return Verdict(False, now, file=f.file, seq=f.seq, what=f.what, reason=f.reason)
            return Verdict(True, now, events=n, head=head)

    # -- the files -------------------------------------------------------------------------------------

    def _check(self) -> tuple[int, str]:
        try:
            opened = Journal.read_only(self.path)
        except JournalError as exc:
            raise _Fault(OPEN, None, "unreadable", str(exc)) from None
        with opened:
            try:
                first = opened._query("SELECT seq FROM events ORDER BY seq LIMIT 1")
                segs = [s for s in sealed(self.path, self.archive_dir) if not first or s.first != int(first[0][0])]
                files = [(s, self._sealed_file(s)) for s in segs]
                self._foreign(opened, segs)
                prev: tuple[int, str] | None = None
                for seg, f in files:
                    if f.fault is not None:
                        raise f.fault
                    if (f.base[0] + 1, f.head[0]) != (seg.first, seg.last):
                        raise _Fault(seg.path.name, min(f.base[0], f.head[0]) + 1,
                                     "reordered" if f.base[0] + 1 != seg.first else "deleted",
                                     f"its name says seqs {seg.first}-{seg.last}, it holds {f.base[0] + 1}-{f.head[0]}")
                    self._follows(seg.path.name, f.base, prev)
                    prev = f.head
                n, head = self._open(opened)
                with opened._lock:
                    base, rec = segment_base(opened._db), recorded(opened._db)
                self._follows(OPEN, base, prev)
                # the chain's record of each sealed file, in the file after it (P101)
                records = [f.record for _, f in files[1:]] + [rec] if files else []
                for (seg, f), r in zip(files, records, strict=True):
                    if r is not None and (r.name != seg.path.name or r.sha256 != f.digest):
                        raise _Fault(seg.path.name, r.first, "edited",
                                     "its SHA-256 is not the one the chain recorded when it was sealed")
                return n, head
            except JournalIntegrityError as exc:
                raise _Fault(OPEN, exc.seq, exc.what, exc.reason) from None
            except (JournalError, sqlite3.DatabaseError, OSError, ValueError) as exc:
                raise _Fault(OPEN, None, "unreadable", str(exc)) from None

    def _follows(self, name: str, base: tuple[int, str], prev: tuple[int, str] | None) -> None:
        """The file ``name`` begins after ``base``: the head of the file before it, or the chain's beginning."""
        if prev is None:
            if base[0] != 0:
                raise _Fault(name, base[0], "deleted", f"the segment of the seqs up to {base[0]} is missing (not "
                             "here, nor in the archive): the journal does not begin at its first event")
        elif base[0] > prev[0]:
            raise _Fault(name, prev[0] + 1, "deleted", f"it begins after seq {base[0]}, the segment before it ends "
                         f"at seq {prev[0]}: a segment is missing")
        elif base[0] < prev[0]:
            raise _Fault(name, base[0] + 1, "reordered", f"it begins after seq {base[0]}, the segment before it "
                         f"ends at seq {prev[0]}")
        elif base != prev:
            raise _Fault(name, base[0] + 1, "edited", "it does not follow the head of the segment before it")

    def _sealed_file(self, seg: Segment) -> _SealedFile:
        """The sealed file verified whole, or as it was when its file was last seen unchanged."""
        try:
            ident = _identity(seg.path)
        except OSError as exc:
            return _SealedFile((0, ""), (0, ""), None, "", _Fault(seg.path.name, seg.first, "deleted", str(exc)))
        known = self._sealed.get(seg.path)
        if known is not None and known[0] == ident:
            return known[1]
        self.whole_checks += 1
        try:
            with Journal.read_only(seg.path) as j:
                j.verify(full=True)
                with j._lock:
                    base, rec = segment_base(j._db), recorded(j._db)
                found = _SealedFile(base, j.head(), rec, trust.sha256_file(seg.path)[0])
        except JournalIntegrityError as exc:
            found = _SealedFile((0, ""), (0, ""), None, "", _Fault(seg.path.name, exc.seq, exc.what, exc.reason))
        except (JournalError, sqlite3.DatabaseError, OSError, ValueError) as exc:
            found = _SealedFile((0, ""), (0, ""), None, "", _Fault(seg.path.name, seg.first, "unreadable", str(exc)))
        self._sealed = {p: v for p, v in self._sealed.items() if p.exists()}  # a segment retention removed
        self._sealed[seg.path] = (ident, found)
        return found

    def _open(self, opened: Journal) -> tuple[int, str]:
        """The open file from the point verified last (the same file: its device and inode), else whole."""
        st = os.stat(self.path)
        inode = (st.st_dev, st.st_ino)
        key = opened.marks_key()
        marks = {key: self._mark[1]} if self._mark is not None and self._mark[0] == inode else {}
        self.rehashed_after = int(marks[key].partition(":")[0]) if marks else 0
        try:
            opened.verify(full=False, marks=marks)
        except JournalIntegrityError:
            if not marks:
                raise
            marks, self.rehashed_after = {}, 0  # the point verified last no longer holds: every row, to name the first
            opened.verify(full=False, marks=marks)
        self._mark = (inode, marks[key])
        seq, _, digest = marks[key].partition(":")
        return int(seq), digest

    # -- whose journal ---------------------------------------------------------------------------------

    def _foreign(self, opened: Journal, segs: list[Segment]) -> None:
        """A journal labelled or begun for another table or game (P90, P99) is named as another table's."""
        owner = opened.owner()
        if owner is not None and owner != (self.table, self.game):  # every row of it, from its first
            first = opened._query("SELECT MIN(seq) FROM events")[0][0]
            raise _Fault(OPEN, first, "foreign", f"it is table {owner[0]}'s ({owner[1]}), not table {self.table}'s "
                         f"({self.game})")
        with opened._lock:
            base = segment_base(opened._db)[0]
            row = opened._db.execute("SELECT kind, data FROM events WHERE seq = 1").fetchone() if base == 0 else None
            found = (str(row[0]), json.loads(unpack(row[1], stored_dictionary(opened._db)))) if row else None
        if base > 0:
            found = first_event(self.path, self.archive_dir)
        if found is None or found[0] != trust.JournalBegun.kind:
            return
        begun = ev.parse(found[0], found[1])
        if isinstance(begun, trust.JournalBegun) and (begun.table, begun.game) != (self.table, self.game):
            raise _Fault(segs[0].path.name if base > 0 and segs else OPEN, 1, "foreign",
                         f"it was begun for table {begun.table} ({begun.game}), not table {self.table} ({self.game})")


__all__ = ["OPEN", "JournalCheck", "Verdict"]

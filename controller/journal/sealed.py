"""The sealed segments as files: where they are, their names, and the start's check of them (P60, P101).

Read-only, and below the journal (``controller.journal.store`` reads them at start; ``segments`` writes
them at a roll-over): a sealed segment is never written again.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.journal import trust
from controller.journal.rows import JournalIntegrityError, connect_read_only, hash_hex, stored_dictionary, unpack
from controller.journal.verify import segment_base

connect_sealed = connect_read_only  # a sealed segment is only ever read

SUFFIX = ".segments"
SEGMENT_NAME = re.compile(r"^(\d{12})-(\d{12})-(\d{8})\.journal$")
SEGMENT_WHY = "segment"  # the checkpoint that begins a segment


def segments_dir(journal: str | os.PathLike[str]) -> Path:
    """Where the sealed segments of the journal at ``journal`` are kept."""
    return Path(f"{os.fspath(journal)}{SUFFIX}")


@dataclass(frozen=True, order=True)
class Segment:
    """One sealed segment file: its events are seqs ``first``..``last``; ``day`` the UTC date of the first."""

    first: int
    last: int
    day: str
    path: Path

    @classmethod
    def parse(cls, path: Path) -> Segment | None:
        m = SEGMENT_NAME.match(path.name)
        return cls(int(m[1]), int(m[2]), m[3], path) if m else None

    @staticmethod
    def name(first: int, last: int, day: str) -> str:
        return f"{first:012d}-{last:012d}-{day}.journal"


def sealed(journal: str | os.PathLike[str], archive_dir: str | os.PathLike[str] | None = None) -> list[Segment]:
    """The sealed segments in the chain's order: those in the segments directory, and those only in the
    archive (retention removed them here) when ``archive_dir`` is given."""
    found: dict[str, Segment] = {}
    for d in ([Path(archive_dir)] if archive_dir else []) + [segments_dir(journal)]:
        if d.is_dir():
            for p in d.iterdir():
                seg = Segment.parse(p)
                if seg is not None:
                    found[p.name] = seg  # the local file over the archive's copy
    # a copy of the open file sealed by a roll-over cut short, then superseded by a longer one: the longest
    longest: dict[int, Segment] = {}
    for seg in sorted(found.values()):
        longest[seg.first] = seg
    return sorted(longest.values())


def recorded(db: sqlite3.Connection) -> trust.SegmentSealed | None:
    """The record of the segment before this file (P101): the event after the checkpoint that begins it; None
    in a file that begins the chain, or in one begun before the records."""
    base_seq = segment_base(db)[0]
    if base_seq == 0:
        return None
    row = db.execute("SELECT kind, data FROM events WHERE seq = ?", (base_seq + 2,)).fetchone()
    if row is None or row[0] != trust.SegmentSealed.kind:
        return None
    try:
        typed = ev.parse(row[0], json.loads(unpack(row[1], stored_dictionary(db))))
    except (ValueError, ev.EventFormatError):
        raise JournalIntegrityError(base_seq + 2, "the sealed segment's record is not readable", "unreadable") from None
    return typed if isinstance(typed, trust.SegmentSealed) else None


def check_sealed(path: Path, db: sqlite3.Connection, archive_dir: str | os.PathLike[str] | None = None) -> int:
    """At start (P101): every sealed segment the chain runs through, from the open file back to the first, is
    here (or in the archive), and each one's SHA-256 is the one recorded in the chain when it was sealed (a
    segment sealed before the records: its head is where the file after it begins); no other segment is here.
    ``db``: the open file's connection (the caller holds its lock).  The number of segments; else
    ``trust.JournalTrustError`` naming the segment."""
    first = db.execute("SELECT seq FROM events ORDER BY seq LIMIT 1").fetchone()
    segs = [seg for seg in sealed(path, archive_dir) if first is None or seg.first != int(first[0])]
    by_last = {seg.last: seg for seg in segs}
    base, rec = segment_base(db), recorded(db)
    where = f" nor in the archive {archive_dir}" if archive_dir else " (no archive is configured)"
    seen: list[Segment] = []
    while base[0] > 0:
        seg = by_last.get(base[0])
        if seg is None:
            name = rec.name if rec is not None else f"of the seqs up to {base[0]}"
            raise trust.JournalTrustError(f"the sealed segment {name} is missing: not in "
                                          f"{segments_dir(path)}{where}", "segment_missing")
        if rec is not None and (rec.name != seg.path.name or trust.sha256_file(seg.path)[0] != rec.sha256):
            raise trust.JournalTrustError(f"the sealed segment {seg.path} is not the one sealed: its SHA-256 is not "
                                          "the one the chain recorded (edited or replaced)", "segment_altered")
        try:
            db = connect_sealed(seg.path)
            try:
                head = db.execute("SELECT seq, hash FROM head WHERE one = 1").fetchone()
                if head is None or (int(head[0]), hash_hex(head[1])) != base:
                    raise trust.JournalTrustError(f"the sealed segment {seg.path} does not end where the file after "
                                                  "it begins (edited or replaced)")
                base, rec = segment_base(db), recorded(db)
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            raise trust.JournalTrustError(f"the sealed segment {seg.path} is not readable: {exc}") from None
        seen.append(seg)
    extra = [seg for seg in segs if seg not in seen]
    if extra:
        raise trust.JournalTrustError(f"the sealed segment {extra[0].path} is not one the journal's chain runs "
                                      "through")
    return len(seen)


def first_event(journal: str | os.PathLike[str], archive_dir: str | os.PathLike[str] | None = None
                ) -> tuple[str, Any] | None:
    """(kind, data) of the chain's first event (seq 1) in the sealed segment that holds it; None when none does."""
    for seg in sealed(journal, archive_dir):
        if seg.first == 1:
            db = connect_sealed(seg.path)
            try:
                row = db.execute("SELECT kind, data FROM events WHERE seq = 1").fetchone()
                return (str(row[0]), json.loads(unpack(row[1], stored_dictionary(db)))) if row else None
            finally:
                db.close()
    return None

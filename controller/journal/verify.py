"""Checking the journal's hash chain (P90), split from ``controller.journal.store`` (``Journal.verify`` calls it).

Every row's link to the row before it, the seq numbers and the head are checked in one SQL pass; the
rows' contents are rehashed all (``full``) or after the last verified point only.  The first bad row
is named with what is wrong (``JournalIntegrityError.what``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from controller.journal.rows import (
    FORMAT_V1,
    GENESIS,
    KIND_INDEXED,
    JournalIntegrityError,
    _row_hash,
    at_text,
    chain_hash,
    hash_hex,
    row_format,
    stored_dictionary,
    unpack,
)

CHAINED_ROWS = "SELECT seq, at, round_id, kind, who, data, prev_hash, hash FROM events"  # format 1
_CHAINED_ROWS = CHAINED_ROWS
_ROWS_V2 = "SELECT seq, at, round_id, kind, who, data, hash FROM events"  # format 2: the link is the row before
REORDER_WINDOW = 10_000  # format 2: how far from a failing row its own place is looked for (P77)


def verify_snapshot(db: sqlite3.Connection, full: bool, mark: str | None = None, *,
                    rehash: bool = True) -> tuple[int, str]:
    """(the number of events, the last one's hash) once the journal checks; else raise (see the module doc).

    The shape of the chain (links, seqs, readable JSON) is checked over every row by the full check, and
    by the start's check from the latest checkpoint at or before the verified point (P59): what comes
    before that checkpoint was checked by an earlier start or by the daemon itself (``Journal.advance``).
    A file of format 2 (P76) stores no link: its rows are rehashed from that checkpoint instead, so that
    the start checks the same rows as in format 1 (P77).  ``mark`` ("seq:hash"): the verified point a reading
    tool remembered (P79) instead of the one in the file; ``rehash=False`` (a sealed file unchanged since it
    verified through ``mark``): no row rehashed, the shape and the head checked."""
    try:
        v1 = row_format(db) == FORMAT_V1
        head = db.execute("SELECT seq, hash FROM head WHERE one = 1").fetchone()
        found = (mark,) if mark is not None else db.execute("SELECT value FROM meta WHERE key = 'verified'").fetchone()
        mark_seq, _, mark_hash = str(found[0]).partition(":") if found else ("0", "", "")
        base_seq, base_hash = segment_base(db)  # a segment's rows follow the previous segment's head (P60)
        start = base_seq  # the first row whose link and JSON are checked follows this seq
        if not full and mark_seq.isdigit() and int(mark_seq) > base_seq:
            cp = db.execute(f"SELECT MAX(seq) FROM events WHERE {KIND_INDEXED} AND kind = 'checkpoint' AND seq <= ?",
                            (int(mark_seq),)).fetchone()
            start = max((cp[0] or 1) - 1 if cp else 0, base_seq)
        before = (base_hash,) if start == base_seq else \
            db.execute("SELECT hash FROM events WHERE seq = ?", (start,)).fetchone()
        if before is None:
            start, before = base_seq, (base_hash,)  # the row before the checkpoint is gone: the whole chain's shape
        before_hash = hash_hex(before[0])
        count, last = db.execute("SELECT COUNT(*) + ?, MAX(seq) FROM events WHERE seq > ?", (start, start)).fetchone()
        if last is None and start:
            last = start
        if v1:
            link = db.execute(_FIRST_BROKEN_LINK, (start, before_hash, start)).fetchone()
        else:
            link = db.execute(_FIRST_GAP, (start, start)).fetchone()
        # unreadable data (cheap, in SQLite): every reader of the journal would stop on it
        # (format 2's compressed data, a BLOB, is read when it is rehashed)
        unreadable = db.execute("SELECT seq FROM events WHERE seq > ? AND (typeof(data) NOT IN ('text', 'blob') OR "
                                "(typeof(data) = 'text' AND NOT json_valid(data))) ORDER BY seq LIMIT 1",
                                (start,)).fetchone()
    except sqlite3.DatabaseError as exc:
        raise JournalIntegrityError(None, f"the journal cannot be read: {exc}", "unreadable") from None
    first_bad: JournalIntegrityError | None = None
    if link is not None:
        first_bad = _broken_link(db, *link) if v1 else \
            JournalIntegrityError(link[2] + 1, f"missing (the row after seq {link[2]} is seq {link[0]})", "deleted")
    if unreadable is not None:
        first_bad = _first(first_bad, JournalIntegrityError(unreadable[0], "its data is not readable JSON",
                                                            "unreadable"))
    # the rows to rehash: all, or those after the verified point (which must still be as recorded)
    after = base_seq
    if not full and mark_seq.isdigit() and int(mark_seq) > 0 and (int(mark_seq), mark_hash) != (base_seq, base_hash):
        row = db.execute("SELECT hash FROM events WHERE seq = ?", (int(mark_seq),)).fetchone()
        if row is None or hash_hex(row[0]) != mark_hash:
            bad = JournalIntegrityError(int(mark_seq), "the row the last check verified has changed",
                                        "deleted" if row is None else "edited")
            first_bad = _first(first_bad, bad)
        else:
            after = int(mark_seq) if v1 else start
    stop = first_bad.seq if first_bad is not None and first_bad.seq is not None else None
    end = stop if stop is not None else (last or 0) + 1
    if rehash and v1:
        rows = db.execute(f"{_CHAINED_ROWS} WHERE seq > ? AND seq < ? ORDER BY seq", (after, end))
        for seq, at, round_id, kind, who, data, prev_hash, digest in rows:
            fault = _content_fault(seq, at, round_id, kind, who, data, prev_hash, digest)
            if fault is not None:
                first_bad = fault  # rows come in order, below any link fault
                break
    elif rehash:
        fault = _rehash_v2(db, after, end, before_hash if after == start else None, base_seq, base_hash)
        if fault is not None:
            first_bad = fault
    if first_bad is not None:
        raise first_bad
    n = int(count)
    last_hash = hash_hex(db.execute("SELECT hash FROM events WHERE seq = ?", (last,)).fetchone()[0]) \
        if n > base_seq else base_hash
    head_seq, head_hash = head if head else (0, GENESIS)
    if head_seq > n:
        raise JournalIntegrityError(n + 1, f"the journal head says seq {head_seq}, the rows end at seq {n}",
                                    "deleted")
    if (head_seq, head_hash) != (n, last_hash):
        raise JournalIntegrityError(min(head_seq + 1, n), f"the journal head says seq {head_seq}, the rows end "
                                    f"at seq {n} with another hash", "edited")
    return n, last_hash


def _rehash_v2(db: sqlite3.Connection, after: int, end: int, prev: str | None, base_seq: int,
               base_hash: str) -> JournalIntegrityError | None:
    """Format 2: rehash the rows after ``after`` and before ``end``, each linked to the stored hash of the row
    before it (``prev``: that of row ``after``); the first that does not match, named (P77)."""
    if prev is None:
        row = db.execute("SELECT hash FROM events WHERE seq = ?", (after,)).fetchone() if after > base_seq else None
        prev = hash_hex(row[0]) if row is not None else base_hash
    zdict = stored_dictionary(db)
    last_at: tuple[Any, str] = (None, "")  # the rows of one transaction share their time: converted once
    for seq, at, round_id, kind, who, data, digest in db.execute(f"{_ROWS_V2} WHERE seq > ? AND seq < ? ORDER BY seq",
                                                                 (after, end)):
        stored = hash_hex(digest)
        if not (isinstance(digest, bytes) and len(digest) == 32 and isinstance(at, (int, str))):
            return JournalIntegrityError(seq, "its hash or time is not of format 2", "edited")
        if at != last_at[0] or type(at) is not type(last_at[0]):
            last_at = (at, at_text(at))
        try:
            data = unpack(data, zdict)
        except ValueError as exc:
            return JournalIntegrityError(seq, f"its data is not readable: {exc}", "unreadable")
        fault = _content_fault(seq, last_at[1], round_id, kind, who, data, prev, stored)
        if fault is not None:
            moved = _moved_from(db, seq, (last_at[1], round_id, kind, who, data), stored, base_seq, base_hash)
            if moved is not None:
                return JournalIntegrityError(seq, f"out of order: it follows seq {moved} in the chain", "reordered")
            return fault
        prev = stored
    return None


def _moved_from(db: sqlite3.Connection, seq: int, contents: tuple[Any, ...], digest: str, base_seq: int,
                base_hash: str) -> int | None:
    """The seq a format-2 row that fails at ``seq`` follows in the chain when it was moved there from nearby
    (its hash matches its contents at another place, within ``REORDER_WINDOW`` rows), else None."""
    at, round_id, kind, who, data = contents
    if not isinstance(data, str):
        return None
    rows = db.execute("SELECT seq, hash FROM events WHERE seq >= ? AND seq <= ? ORDER BY seq",
                      (seq - REORDER_WINDOW - 1, seq + REORDER_WINDOW)).fetchall()
    hashes: dict[int, str] = {int(s): hash_hex(h) for s, h in rows}
    hashes.setdefault(base_seq, base_hash)
    for place in sorted(hashes):
        prev = hashes.get(place - 1)
        if place != seq and prev is not None and chain_hash(prev, place, at, round_id, kind, who, data) == digest:
            return place - 1
    return None


_FIRST_GAP = """
    SELECT seq, NULL, before FROM (
        SELECT seq, LAG(seq, 1, ?) OVER w AS before FROM events WHERE seq > ? WINDOW w AS (ORDER BY seq))
    WHERE seq != before + 1 ORDER BY seq LIMIT 1
"""


def segment_base(db: sqlite3.Connection) -> tuple[int, str]:
    """(seq, hash) the journal's first row follows: the previous segment's head (``meta.base``, P60), or
    (0, 64 zeros) for a journal that begins the chain."""
    row = db.execute("SELECT value FROM meta WHERE key = 'base'").fetchone()
    if row is None:
        return 0, GENESIS
    seq, _, digest = str(row[0]).partition(":")
    if not seq.isdigit() or len(digest) != len(GENESIS):
        raise JournalIntegrityError(None, "the segment's beginning (meta base) is not readable", "unreadable")
    return int(seq), digest


def _broken_link(db: sqlite3.Connection, seq: int, prev_hash: str, before: int) -> JournalIntegrityError:
    """What is wrong at the first row that does not follow the row before it."""
    if seq != before + 1:
        return JournalIntegrityError(before + 1, f"missing (the row after seq {before} is seq {seq})", "deleted")
    elsewhere = db.execute("SELECT seq FROM events WHERE hash = ? AND seq != ?", (prev_hash, seq - 1)).fetchone()
    if elsewhere is not None:
        return JournalIntegrityError(seq, f"out of order: it follows seq {elsewhere[0]} in the chain", "reordered")
    row = db.execute(f"{_CHAINED_ROWS} WHERE seq = ?", (seq,)).fetchone()
    fault = _content_fault(*row)
    if fault is not None:
        return fault
    # the row is whole and links to a row that is no longer there
    return JournalIntegrityError(seq, "the row it follows in the chain is missing", "deleted")


_FIRST_BROKEN_LINK = """
    SELECT seq, prev_hash, before FROM (
        SELECT seq, prev_hash, LAG(seq, 1, ?) OVER w AS before, LAG(hash, 1, ?) OVER w AS before_hash
        FROM events WHERE seq > ? WINDOW w AS (ORDER BY seq))
    WHERE seq != before + 1 OR prev_hash IS NOT before_hash ORDER BY seq LIMIT 1
"""


def _content_fault(seq: int, at: Any, round_id: Any, kind: Any, who: Any, data: Any, prev_hash: Any,
                   digest: Any) -> JournalIntegrityError | None:
    """None when the row's contents match its hash; else what is wrong with it."""
    if type(seq) is int and type(at) is str and type(kind) is str and type(data) is str \
            and type(prev_hash) is str and (round_id is None or type(round_id) is str) \
            and (who is None or type(who) is str) \
            and chain_hash(prev_hash, seq, at, round_id, kind, who, data) == digest:
        return None  # the stored data is the canonical text that was hashed (as every append writes it)
    try:
        recomputed = _row_hash(prev_hash, seq, at, round_id, kind, who, data)
    except (ValueError, TypeError, AttributeError):
        return JournalIntegrityError(seq, "its data is not readable JSON", "unreadable")
    if recomputed != digest:
        return JournalIntegrityError(seq, "its contents do not match its hash", "edited")
    return None


def _first(a: JournalIntegrityError | None, b: JournalIntegrityError) -> JournalIntegrityError:
    return b if a is None or (b.seq or 0) < (a.seq or 0) else a


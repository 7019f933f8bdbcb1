"""The table's journal: every event, appended and made durable before it takes effect.

``Journal``: an embedded SQLite database in WAL mode with ``synchronous=FULL``; ``append`` returns only
after the commit, so the caller appends first and acts after (deal, pay, move a meter), and after a crash
the journal shows everything that may have happened, never less.  Each row is linked to the one before
by a hash chain.  The row, the chain, its checks, whose journal it is, its secrecy and the kinds it reads
itself: docs/journal.md (the format of a row and the chain).
"""

from __future__ import annotations

import datetime as _dt
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from controller import events
from controller.journal import trust
from controller.journal.reads import JournalReads
from controller.journal.rows import (
    FORMAT_V1,
    FORMAT_V2,
    FORMATS,
    GENESIS,
    KIND_INDEXED,
    METER_ADD,
    METER_KINDS,
    METER_PAID,
    METER_SET,
    Event,
    JournalError,
    JournalIntegrityError,
    JournalOwnerError,
    RoundSummary,
    _canonical,
    _check_meter_event,
    _plain,
    _row_hash,  # noqa: F401  (re-exported: the chain's hash of one row)
    chain_hash,
    connect_read_only,
    dictionary,
    hash_hex,
    pack,
    stored_at,
)
from controller.journal.sealed import check_sealed, connect_sealed, first_event, sealed
from controller.journal.state import CHECKPOINT, JournalState
from controller.journal.verify import segment_base, verify_snapshot

SCHEMA_VERSION = FORMAT_V2  # the row format this program writes in a new journal (P76)
# the kinds the journal reads, from their declared types (controller.events)
ROUND_CLOSED = events.RoundClosed.kind
ROUND_VOIDED = events.RoundVoided.kind
CLOSING_KINDS = frozenset(e.kind for e in events.CLOSING)

FILE_MODE = 0o600
CHECKPOINT_EVERY = 250  # rounds between two checkpoints unless configured ([journal_options] checkpoint_every)

_CLOSING_ORDER = tuple(sorted(CLOSING_KINDS))
_CLOSED = f"SELECT kind FROM events WHERE round_id = ? AND kind IN ({','.join('?' * len(_CLOSING_ORDER))}) LIMIT 1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS head (
    one  INTEGER PRIMARY KEY CHECK (one = 1),
    seq  INTEGER NOT NULL,
    hash TEXT NOT NULL
);
"""
# the events of a journal begun in format 2 (P76; rows.FORMATS): a journal of format 1 keeps its table
_EVENTS_V2 = f"""
CREATE TABLE events (
    seq       INTEGER PRIMARY KEY,
    at        INTEGER NOT NULL,
    round_id  TEXT,
    kind      TEXT NOT NULL,
    who       TEXT,
    data      TEXT NOT NULL,
    hash      BLOB NOT NULL
);
CREATE INDEX events_round ON events (round_id);  -- with the rowid (seq) after it, in order
CREATE INDEX events_kind ON events (kind, seq) WHERE {KIND_INDEXED};
"""




def _create_events_v2(db: sqlite3.Connection) -> None:
    """The events table of format 2 and its dictionary (P76), in the caller's transaction (one statement at a
    time: ``executescript`` would commit)."""
    for statement in _EVENTS_V2.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("INSERT INTO meta VALUES ('dictionary', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
               (dictionary(),))


_INSERT_V1 = "INSERT INTO events (seq, at, round_id, kind, who, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_INSERT_V2 = "INSERT INTO events (seq, at, round_id, kind, who, data, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"


def _row(v1: bool, seq: int, at: str | int, round_id: str | None, kind: str, who: str | None, text: str | bytes,
         prev: str, digest: str) -> tuple[Any, ...]:
    """One row as the file's format stores it (P76): format 1 with the text forms and the link, 2 without
    (``at`` and ``text`` already in the file's form: ``stored_at``, ``pack``; a checkpoint's data is text)."""
    if v1:
        return (seq, at, round_id, kind, who, text, prev, digest)
    return (seq, at, round_id, kind, who, text, bytes.fromhex(digest))


# -- the journal -----------------------------------------------------------------------------------




class Journal(JournalReads):
    """The append-only, hash-chained event journal of one table (see the module docstring)."""

    # the test-only kill point's count of writes (tests/test_kill_points.py; nothing on a table reads them)
    _test_writes: int = 0
    _test_kind_at: int = 0

    def __init__(self, path: str | os.PathLike[str], *, checkpoint_every: int = CHECKPOINT_EVERY) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._init_state(checkpoint_every)
        self._create_private(self.path)
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc}") from None
        try:
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"the journal {self.path} cannot use WAL mode (got {mode})")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
            self._init_meta()
            self._load_trust()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise JournalError(f"the journal {self.path} is not usable: {exc}") from None
        except JournalError:
            self._db.close()
            raise

    def _load_trust(self) -> None:
        """The table's key and the journal's anchor, when it has them (``controller.journal.trust``, P99, P100): a
        keyed journal seals its head in every transaction and rewrites its anchor after each commit.  An anchor
        that does not read is left to the start's check (``check_at_start``), which names it."""
        self._key = trust.read_key(trust.key_file(self.path))
        self._anchor: trust.Anchor | None = None
        if self._key is not None:
            try:
                self._anchor, slot = trust.read_anchor_slot(trust.anchor_file(self.path), self._key)
                self._anchor_slot = 1 - slot
            except trust.JournalTrustError:
                self._anchor = None

    @classmethod
    def read_only(cls, path: str | os.PathLike[str]) -> Journal:
        """An existing journal opened for reading only, by another process while the daemon writes it
        (the web service): SQLite's ``mode=ro``, so nothing is created, migrated or written."""
        self = cls.__new__(cls)
        self.path = Path(path)
        self._lock = threading.Lock()
        self._init_state(CHECKPOINT_EVERY)
        try:
            self._db = connect_read_only(self.path)
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("SELECT 1 FROM events LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot read the journal {self.path}: {exc}") from None
        return self

    _key: bytes | None = None  # the table's key: this journal is keyed (P100)
    _anchor: trust.Anchor | None = None  # the anchor this journal rewrites after each commit (P99)
    _unsealed_ok = False  # the one append that seals a journal begun before keys (check_at_start, P102)
    _anchor_slot = 1  # the anchor's slot the next write goes to (the other holds the head before)

    def _init_state(self, checkpoint_every: int) -> None:
        if checkpoint_every < 1:
            raise ValueError("checkpoint_every must be at least 1")
        self.checkpoint_every = checkpoint_every
        self._state: JournalState | None = None  # read at the first need (_synced)
        #: the state kept outside the journal that a checkpoint holds: name -> its current value's maker
        #: (``controller.table.TableLife`` adds "table")
        self.checkpoint_parts: dict[str, Callable[[], Any]] = {}

    @staticmethod
    def _create_private(path: Path) -> None:
        """Create the file with mode 0600, or check an existing one is private."""
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
        except FileExistsError:
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & 0o077:
                raise JournalError(
                    f"the journal {path} is open to other users (mode {mode:04o}); it holds the cards: chmod 600 it"
                ) from None
            return
        except OSError as exc:
            raise JournalError(f"cannot create the journal {path}: {exc}") from None
        os.fchmod(fd, FILE_MODE)  # whatever the umask
        os.close(fd)
        # Make the new directory entry durable too.
        dfd = os.open(path.parent if str(path.parent) else ".", os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    def _init_meta(self) -> None:
        """A new journal gets the events table of the format this program writes; an existing one keeps its
        format (``meta.schema_version``, P76), which this program reads and appends to."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                has_events = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'"
                                              ).fetchone() is not None
                if row is None and not has_events:
                    _create_events_v2(self._db)
                    self._db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                elif row is None or row[0] not in {str(f) for f in FORMATS} or not has_events:
                    raise JournalError(f"the journal {self.path} has schema version {row[0] if row else None}, "
                                       f"this program reads {', '.join(str(f) for f in FORMATS)}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------------

    def record(self, event: events.JournalEvent, round_id: str | None = None, *, who: str | None = None) -> int:
        """Journal one typed event (``controller.events``) of ``round_id`` (None: the table's); see ``append``."""
        return self.append(round_id, event.kind, event.to_data(), who=who)

    def record_many(self, evs: Sequence[events.JournalEvent], round_id: str | None = None, *,
                    who: str | None = None, checkpoint: str | None = None) -> list[int]:
        """Journal typed events of ``round_id`` as one fact, in one transaction; see ``append_many``."""
        return self.append_many([(round_id, e.kind, e.to_data(), who) for e in evs], checkpoint=checkpoint)

    def append(self, round_id: str | None, kind: str, data: Mapping[str, Any] | None = None, *,
               who: str | None = None) -> int:
        """Journal one event and make it durable; return its seq.  Act on the event only after this returns.

        The kind and data as stored (the journal's own tests, a row of a kind no type declares); the
        program journals through ``record`` and ``record_many``, which take the declared event types."""
        return self.append_many([(round_id, kind, data, who)])[0]

    def append_many(self, entries: list[tuple[str | None, str, Mapping[str, Any] | None, str | None]], *,
                    checkpoint: str | None = None, sealed: tuple[int, str] | None = None,
                    trailing: list[tuple[str | None, str, Mapping[str, Any] | None, str | None]] | None = None
                    ) -> list[int]:
        """Journal several events as one fact, in one transaction: all of them are on disk, or none
        (no more bets with its meter contributions; the last opening step with the table opened).
        Each entry is ``(round_id, kind, data, who)``; their seqs, in order.

        A checkpoint (P58) follows them in the same transaction when ``checkpoint`` says why, or when
        they close a round and ``checkpoint_every`` rounds have closed since the latest one.

        ``sealed`` (the roll-over to a new segment, ``controller.journal.segments``, P60): the journal's
        head (seq, hash), whose rows are now in a sealed segment; in the same transaction they are deleted
        and the file begins after that head (``meta.base``), so the chain runs on from the sealed file.
        ``trailing``: table events journaled after the checkpoint, in the same transaction (the sealed segment's
        digest after the checkpoint that begins the next one, P101)."""
        rows = []
        n_entries = len(entries)
        for round_id, kind, data, who in [*entries, *(trailing or [])]:
            if round_id is not None and (not isinstance(round_id, str) or not round_id):
                raise JournalError("round_id must be a non-empty string or None")
            if not isinstance(kind, str) or not kind:
                raise JournalError("kind must be a non-empty string")
            if who is not None and (not isinstance(who, str) or not who):
                raise JournalError(f"{kind}: who must be a non-empty string or None")
            payload = _plain(dict(data or {}), kind)
            if kind in METER_KINDS:
                _check_meter_event(kind, payload)
            rows.append((round_id, kind, who, _canonical(payload), payload))
        # through _dt.timezone: tests set the clock by replacing _dt
        at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")  # noqa: UP017
        _test_kill_point(self, "before", [r[1] for r in rows])
        seqs: list[int] = []
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                last = db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
                seq, prev = (last[0], hash_hex(last[1])) if last else (0, GENESIS)
                if self._key is not None:
                    self._check_seal_locked(db, seq, prev)
                state = self._synced_locked().copy()  # becomes the state once the transaction commits
                if sealed is not None:  # read the state before its rows go
                    if (seq, prev) != sealed:
                        raise JournalError(f"the journal {self.path} moved on from seq {sealed[0]}: "
                                           "its segment is not what was sealed")
                    db.execute("DELETE FROM events")  # every row is sealed: SQLite frees the pages whole
                    mark = f"{seq}:{prev}"
                    db.executemany("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
                                   "excluded.value", (("base", mark), ("verified", mark)))
                    if self._read_format() == FORMAT_V1:  # the segment begins in the format this program writes
                        self._begin_format_v2(db)
                v1 = self._read_format() == FORMAT_V1  # read in the transaction: a roll-over may have changed it
                at_stored = at if v1 else stored_at(at)  # every row of the transaction has the same time
                zdict = None if v1 else self._dictionary_locked()
                closes = False
                closed: dict[str, str | None] = {}  # round -> its closing kind, each round asked once
                inserts = []
                for round_id, kind, who, text, payload in rows[:n_entries]:
                    if round_id is not None:
                        if round_id not in closed:
                            found = db.execute(_CLOSED, (round_id, *_CLOSING_ORDER)).fetchone()
                            closed[round_id] = found[0] if found else None
                        if closed[round_id] is not None:
                            raise JournalError(f"round {round_id} is closed ({closed[round_id]}): "
                                               "nothing more can be journaled for it")
                        if kind in CLOSING_KINDS:
                            closed[round_id] = kind
                            closes = True
                    seq += 1
                    digest = chain_hash(prev, seq, at, round_id, kind, who, text)
                    inserts.append(_row(v1, seq, at_stored, round_id, kind, who, pack(text, zdict), prev, digest))
                    seqs.append(seq)
                    prev = digest
                    state.apply(seq, round_id, kind, payload)
                if checkpoint is None and closes and state.since_checkpoint >= self.checkpoint_every:
                    checkpoint = "rounds"
                if checkpoint is not None:
                    parts = {name: make() for name, make in self.checkpoint_parts.items()}
                    payload = _plain(state.checkpoint(checkpoint, parts).to_data(), CHECKPOINT)
                    text = _canonical(payload)
                    seq += 1
                    digest = chain_hash(prev, seq, at, None, CHECKPOINT, None, text)
                    inserts.append(_row(v1, seq, at_stored, None, CHECKPOINT, None, text, prev, digest))
                    prev = digest
                    state.apply(seq, None, CHECKPOINT, payload)
                for round_id, kind, who, text, payload in rows[n_entries:]:  # table events only
                    if round_id is not None:
                        raise JournalError(f"{kind}: a trailing event is the table's, not round {round_id}'s")
                    seq += 1
                    digest = chain_hash(prev, seq, at, None, kind, who, text)
                    inserts.append(_row(v1, seq, at_stored, None, kind, who, pack(text, zdict), prev, digest))
                    seqs.append(seq)
                    prev = digest
                    state.apply(seq, None, kind, payload)
                db.executemany(_INSERT_V1 if v1 else _INSERT_V2, inserts)
                db.execute("INSERT INTO head (one, seq, hash) VALUES (1, ?, ?) "
                           "ON CONFLICT (one) DO UPDATE SET seq = excluded.seq, hash = excluded.hash", (seq, prev))
                if self._key is not None:  # the new head sealed under the table's key, in the same transaction
                    db.execute("INSERT INTO meta VALUES ('seal', ?) ON CONFLICT (key) DO UPDATE SET value = "
                               "excluded.value", (trust.seal_of(self._key, seq, prev),))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            self._state = state
            if self._anchor is not None and self._key is not None:
                # after the commit: the anchor may lag the journal (a crash here), never lead it (P99)
                self._anchor = trust.Anchor(self._anchor.table, self._anchor.game, seq, prev)
                try:
                    trust.advance_anchor(trust.anchor_file(self.path), self._anchor, self._key, self._anchor_slot)
                    self._anchor_slot = 1 - self._anchor_slot
                except OSError:
                    pass  # the event is on disk; the anchor lags until the next write succeeds
        if checkpoint is not None:
            self._advance_verified()
        _test_kill_point(self, "after", [r[1] for r in rows])
        return seqs

    def _check_seal_locked(self, db: sqlite3.Connection, seq: int, prev: str) -> None:
        """A keyed journal is appended to only after the head its seal holds (P100): a chain rewritten while the
        daemon runs is not sealed again by the daemon's next write.  A new journal has no seal yet."""
        assert self._key is not None
        if self._anchor is not None and seq < self._anchor.seq:
            raise trust.JournalTrustError(f"the journal {self.path} ends at seq {seq}, behind its anchor at seq "
                                          f"{self._anchor.seq}: rows were removed")
        row = db.execute("SELECT value FROM meta WHERE key = 'seal'").fetchone()
        if row is None:
            if seq == 0 or self._unsealed_ok:
                return
            raise trust.JournalTrustError(f"the journal {self.path} is keyed and its head (seq {seq}) is not sealed")
        held = trust.check_seal(self._key, str(row[0]))
        if held is None:
            raise trust.JournalTrustError(f"the journal {self.path}'s seal was not made under this table's key "
                                          f"({trust.key_file(self.path)})")
        if held != (seq, prev):
            raise trust.JournalTrustError(f"the journal {self.path} ends at seq {seq} with a head its seal (seq "
                                          f"{held[0]}) does not hold: rewritten without the key")

    def _begin_format_v2(self, db: sqlite3.Connection) -> None:
        """In the roll-over's transaction, once the rows of a format-1 file are gone into the sealed segment:
        the open file goes on in format 2 (P76); the chain runs on from ``meta.base`` as in any segment."""
        db.execute("DROP TABLE events")
        _create_events_v2(db)
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(FORMAT_V2),))

    def _advance_verified(self) -> None:
        """At a checkpoint the daemon checks what it journaled since the verified point and moves the point to
        the end (P59), so that a start after months of play rehashes only the rounds since the last checkpoint.
        A failure moves nothing: the next start finds it and refuses the journal.  The events are on disk
        by then: a storage fault here is not the write's (the point stays; the next start reads further)."""
        try:
            self.verify(full=False, remember=True)
        except (JournalIntegrityError, sqlite3.Error):
            pass

    def checkpoint(self, why: str) -> int:
        """Journal a checkpoint now (P58); its seq."""
        with self._lock:
            before = self._synced_locked().seq
        self.append_many([], checkpoint=why)
        with self._lock:
            assert self._state is not None and self._state.checkpoint_seq > before
            return self._state.checkpoint_seq

    # -- whose journal -----------------------------------------------------------------------------

    def owner(self) -> tuple[str, str] | None:
        """(table id, game) the journal was begun for; None for an unlabelled one (P90)."""
        rows = dict(self._query("SELECT key, value FROM meta WHERE key IN ('table', 'game')"))
        return (rows["table"], rows["game"]) if "table" in rows and "game" in rows else None

    def claim(self, table: str, game: str) -> None:
        """Label a journal with no event yet as ``table``'s, playing ``game``; check any other (``check_owner``)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                empty = db.execute("SELECT 1 FROM events LIMIT 1").fetchone() is None
                labelled = db.execute("SELECT 1 FROM meta WHERE key = 'table'").fetchone() is not None
                if empty and not labelled:
                    db.executemany("INSERT INTO meta VALUES (?, ?)", (("table", table), ("game", game)))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        self.check_owner(table, game)

    def check_owner(self, table: str, game: str) -> tuple[str, str] | None:
        """Raise ``JournalOwnerError`` when the journal is another table's or game's; return its labels."""
        owner = self.owner()
        if owner is not None and owner != (table, game):
            raise JournalOwnerError(f"the journal {self.path} is table {owner[0]}'s ({owner[1]}), "
                                    f"not table {table}'s ({game})")
        return owner

    # -- integrity ---------------------------------------------------------------------------------
    def check_at_start(self, table: str, game: str, *, archive_dir: str | os.PathLike[str] | None = None) -> int:
        """The daemon's start (P90): verify from the last verified point and remember the new one,
        label a new journal, refuse a broken or foreign one (``JournalIntegrityError``, ``JournalOwnerError``).

        A keyed table (its key beside the journal, P99-P102) also refuses, with one line naming what is wrong
        (``trust.JournalTrustError``), a journal missing or empty, behind its anchor, not the anchored chain,
        not sealed under the key, or whose sealed segments are not those the chain recorded; it begins a new
        journal with its identity, and takes a journal begun before keys (no seal, no anchor) once, journaled.
        A table without a key (development) is checked as before, unless its anchor or seal says it had one."""
        if self._key is None:
            keyed = trust.anchor_file(self.path).exists() or \
                self._query("SELECT 1 FROM meta WHERE key = 'seal'") != []
            if keyed:
                raise trust.JournalTrustError(f"the key {trust.key_file(self.path)} is missing: the journal "
                                              f"{self.path} is keyed (docs/journal.md: key custody)",
                                              "key_missing")
            n = self.verify(full=False, remember=True)
            self.claim(table, game)
            self._check_segments(archive_dir)
            return n
        key, where = self._key, trust.anchor_file(self.path)
        anchor = trust.read_anchor(where, key)  # an edited or foreign anchor is named here
        if anchor is not None and (anchor.table, anchor.game) != (table, game):
            raise trust.JournalTrustError(f"the anchor {where} is table {anchor.table}'s ({anchor.game}), not "
                                          f"table {table}'s ({game})", "foreign_anchor")
        n = self.verify(full=False, remember=True)
        head = self.head()
        sealed = self._query("SELECT value FROM meta WHERE key = 'seal'")
        init = f"tablectl journal init --table {table} --reason TEXT"
        if anchor is not None:
            if head[0] == 0:
                raise trust.JournalTrustError(f"the journal {self.path} is missing or empty, and table {table} has "
                                              f"journaled to seq {anchor.seq} (its anchor {where}); to begin again "
                                              f"on purpose: {init}", "journal_missing")
            if head[0] < anchor.seq:
                raise trust.JournalTrustError(f"the journal {self.path} ends at seq {head[0]}, behind its anchor at "
                                              f"seq {anchor.seq}: an older copy put back? ({init} --keep takes it)",
                                              "behind_anchor")
            if self._hash_at(anchor.seq, archive_dir) != anchor.hash:
                raise trust.JournalTrustError(f"the journal {self.path} is not the chain its anchor holds (seq "
                                              f"{anchor.seq} has another hash): another table's journal, or rewritten",
                                              "not_anchored_chain")
        if sealed:
            held = trust.check_seal(key, str(sealed[0][0]))
            if held is None:
                raise trust.JournalTrustError(f"the journal {self.path}'s head is not sealed under this table's key "
                                              f"{trust.key_file(self.path)}: another table's journal, or rewritten",
                                              "not_sealed")
            if held != head:
                raise trust.JournalTrustError(f"the journal {self.path} ends at seq {head[0]} with a head its seal "
                                              f"(seq {held[0]}) does not hold: rewritten without the key",
                                              "seal_mismatch")
        elif anchor is not None:  # (head 0 with an anchor was refused above)
            raise trust.JournalTrustError(f"the journal {self.path} is anchored and not sealed: its seal was "
                                          "removed, or it is another journal", "seal_removed")
        owner = self.owner()
        begun = self._begun(archive_dir)
        if begun is not None and (begun.table, begun.game) != (table, game):
            raise JournalOwnerError(f"the journal {self.path} was begun for table {begun.table} ({begun.game}), "
                                    f"not table {table} ({game})")
        if anchor is None and head[0] != 0 and begun is not None:  # a keyed journal begins with its identity
            raise trust.JournalTrustError(f"the anchor {where} of the keyed journal {self.path} is missing; to take "
                                          f"the journal as it is on purpose: {init} --keep", "anchor_missing")
        self._check_segments(archive_dir)
        if head[0] == 0:  # a new journal: its identity first (P99), and its labels
            self.claim(table, game)
            self.record(trust.JournalBegun(table=table, game=game))
        elif anchor is None:  # begun before keys (P102): taken as it is, once, and said so in the chain
            if owner is not None and owner != (table, game):
                self.check_owner(table, game)
            self._unsealed_ok = True
            try:
                self.record(trust.JournalAnchored(table=table, game=game, by="daemon",
                                                  reason="begun before keys: taken on its first keyed start"))
            finally:
                self._unsealed_ok = False
        self.claim(table, game)
        head = self.head()
        self._anchor, self._anchor_slot = trust.Anchor(table, game, head[0], head[1]), 1
        trust.write_anchor(where, self._anchor, key)
        return n

    def _begun(self, archive_dir: str | os.PathLike[str] | None = None) -> trust.JournalBegun | None:
        """The journal's identity (P99): its first row, in this file or in the sealed segment that holds it."""
        if segment_base(self._db)[0] == 0:
            rows = self._query("SELECT kind, data FROM events WHERE seq = 1")
            found = (rows[0][0], self._data(rows[0][1])) if rows else None
        else:
            found = first_event(self.path, archive_dir)
        if found is None or found[0] != trust.JournalBegun.kind:
            return None
        typed = events.parse(trust.JournalBegun.kind, found[1])
        return typed if isinstance(typed, trust.JournalBegun) else None

    def _check_segments(self, archive_dir: str | os.PathLike[str] | None) -> None:
        """Every sealed segment the chain runs through, here or archived, its digest as recorded (P101)."""
        if archive_dir is not None or segment_base(self._db)[0] > 0:
            with self._lock:
                check_sealed(self.path, self._db, archive_dir)

    def _hash_at(self, seq: int, archive_dir: str | os.PathLike[str] | None) -> str | None:
        """The chain's hash at ``seq``: in this file, its beginning (``meta.base``), or the sealed segment that
        holds it (P60); None when no file here holds it."""
        base_seq, base_hash = segment_base(self._db)
        if seq == base_seq:
            return base_hash
        if seq > base_seq:
            rows = self._query("SELECT hash FROM events WHERE seq = ?", (seq,))
            return hash_hex(rows[0][0]) if rows else None
        for seg in sealed(self.path, archive_dir):
            if seg.first <= seq <= seg.last:
                db = connect_sealed(seg.path)
                try:
                    row = db.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
                finally:
                    db.close()
                return hash_hex(row[0]) if row else None
        return None


    SEALED = False  # a sealed segment (controller.journal.segments), never written again

    def marks_key(self) -> str:
        """The file's name in a reading tool's remembered verified points (P79)."""
        return str(self.path.resolve())

    def verify(self, full: bool = True, *, remember: bool = False, marks: dict[str, str] | None = None) -> int:
        """Check the hash chain; return the number of events, or raise ``JournalIntegrityError``
        naming the first bad seq and what is wrong (see the module docstring, P90).

        ``full``: rehash every row; otherwise only the rows after the last verified point (every
        row's link, seq and the head are checked either way).  ``remember``: record the journal's
        end as the verified point once it checks (a writable journal: the daemon at start).
        ``marks`` (a reading tool, P79): the verified points it remembered, by file; this file's is used
        instead of the one in the file (none: every row is rehashed) and set to the file's end once it checks."""
        key = self.marks_key()
        with self._lock:
            db = self._db
            db.execute("BEGIN")  # one snapshot: the daemon may append while a tool checks
            try:
                if marks is None:
                    n, last_hash = verify_snapshot(db, full)
                else:
                    # a sealed file unchanged since it verified (P79): its identity is in its key
                    n, last_hash = verify_snapshot(db, full or key not in marks, marks.get(key),
                                                   rehash=full or key not in marks or not self.SEALED)
            finally:
                db.execute("COMMIT")
            if remember:
                db.execute("INSERT INTO meta VALUES ('verified', ?) ON CONFLICT (key) DO UPDATE SET value = "
                           "excluded.value", (f"{n}:{last_hash}",))
        if marks is not None:
            marks[key] = f"{n}:{last_hash}"
        return n


# -- test-only kill points -------------------------------------------------------------------------

KILL_AT_ENV = "TABLECTL_TEST_KILL_AT"  # test-only: never set on a table (see tests/test_kill_points.py)


class KilledForTest(BaseException):
    """Raised by the test-only kill point (a BaseException: nothing in the daemon catches it)."""


def _test_kill_point(journal: Journal, when: str, kinds: list[str]) -> None:
    """The kill-point suite's hook: with ``TABLECTL_TEST_KILL_AT=K:before|after[:exit|raise|full]`` in the
    environment, just before or just after this journal object's K-th write (K a number, or a kind: the
    first write holding an event of that kind) the process dies (``exit``: ``os._exit(137)``, as from
    SIGKILL), ``KilledForTest`` is raised (``raise``), or the write fails as on a full disk (``full``,
    before only).  Unset (always, on a table) it does nothing; it never writes anything."""
    spec = os.environ.get(KILL_AT_ENV)
    if not spec:
        return
    k, _, rest = spec.partition(":")
    at, _, how = rest.partition(":")
    if when == "before":
        journal._test_writes += 1
        if not k.isdigit() and k in kinds and not journal._test_kind_at:
            journal._test_kind_at = journal._test_writes
    target = int(k) if k.isdigit() else journal._test_kind_at
    if target != journal._test_writes or (at or "before") != when:
        return
    if how == "raise":
        raise KilledForTest(f"killed {when} journal write {k}")
    if how == "full":
        raise sqlite3.OperationalError("database or disk is full")
    os._exit(137)

__all__ = [
    "CLOSING_KINDS",
    "Event",
    "Journal",
    "JournalError",
    "JournalIntegrityError",
    "JournalOwnerError",
    "METER_ADD",
    "METER_PAID",
    "METER_SET",
    "ROUND_CLOSED",
    "ROUND_VOIDED",
    "RoundSummary",
]

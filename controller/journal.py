"""The table's journal: every event, appended and made durable before it takes effect.

An embedded SQLite database in WAL mode with ``synchronous=FULL``: ``append``
runs one transaction per event and returns only after the commit, and with
``synchronous=FULL`` the write-ahead log is fsync'd at every commit, so an
event ``append`` has returned survives a crash of the process or the machine.
The caller appends first and acts after (deal, pay, move a meter): after a
crash the journal shows everything that may have happened, never less.

Each event has

* ``seq``: 1, 2, 3, ... with no gaps (assigned inside the transaction);
* ``at``: the wall-clock time it was journaled (UTC, ISO 8601, microseconds);
* ``round_id``: the round it belongs to, or None for table-level events
  (opening steps, deck changes, meter installation, supervisor actions);
* ``kind``: what happened (snake_case; each kind's type is declared in
  ``controller.events``; see below for the kinds the journal itself reads);
* ``who``: the dealer or supervisor id that caused it, when there is one;
* ``data``: a JSON object.  ``Decimal`` values are written exactly, as
  strings (``Decimal("12.50")`` -> ``"12.50"``); binary floats are refused
  (an amount is never a float), as are values JSON cannot hold.

**Hash chain.**  Each row stores ``hash = sha256(prev_hash + canonical JSON of
the row)``, where ``prev_hash`` is the previous row's hash (64 zeros for the
first row) and the canonical JSON has sorted keys and no spaces.  ``verify()``
recomputes the chain and finds any edited, inserted, reordered or deleted
row in the middle.  Deleting rows at the end leaves a valid shorter chain:
the journal keeps the head (last seq and hash) in its ``head`` table, written
in the same transaction, which catches a truncation by anyone who does not
also rewrite the head; ``head()`` returns it so that it can be recorded
outside the table PC as well.  The chain is unkeyed: someone with write
access who rewrites every later row and the head is detected only by such an
outside record.

**Verification at every start (P90).**  Recomputing every hash grows with the journal, so
``verify(full=False)`` checks what is cheap over every row and what is costly only from the last
verified point: every row's link to the row before it, the seq numbers and the head are checked
in one SQL pass over the whole journal (catches a deleted, inserted or reordered row anywhere);
the contents are rehashed only after the point the last check recorded (``meta.verified``, kept
by ``verify(remember=True)``, which the daemon does at start).  An edit of a row's contents before
that point is found by the full check (``verify()``, ``tablectl journal verify --full``).  The
first bad row is named with what is wrong (``JournalIntegrityError.what``): ``edited``,
``deleted``, ``reordered`` or ``unreadable``.

**Whose journal (P90).**  ``meta`` records the table id and game the journal was begun for
(``claim``, by the daemon at start on a journal with no event yet); ``owner()`` reads them back and
``check_owner`` refuses a journal of another table or game.  A journal begun before the labels
existed has events and no label: it stays *unlabelled* (accepted, and reported so), since
labelling it afterwards would take any table's word for it.

**Secrecy.**  The journal holds every card dealt (it must: hands and
settlements are reconstructed from it), so it is readable by the service user
only: the file is created with mode 0600 (SQLite gives its ``-wal`` and
``-shm`` files the same mode), and an existing journal readable or writable by
group or others is refused.  Nothing from the journal's contents is ever
logged: this module logs nothing, ``Event.__repr__`` leaves ``data`` out, and
errors name seq numbers and kinds, never data.

**Kinds the journal reads.**  A round is *closed* by an event of a kind in
``CLOSING_KINDS`` (``round_closed``, ``round_voided``); after it, appending to
that round is refused.  ``open_round()`` is the last round with no closing
event (crash recovery).  Meter events (the current meters are the replay of
them, ``meter_values()``):

* ``meter_set``  ``{"meters": {name: amount, ...}}``: set those meters (the
  initial amounts at installation, a reset after a jackpot, a correction);
* ``meter_add``  ``{"meters": {name: amount, ...}}``: add to those meters (the
  round's contributions; negative when a void takes them back, RULINGS R7a);
* ``meter_paid`` ``{"meter": name, "paid": amount, "after": amount}``: a
  progressive payout; the meter is ``after`` (RULINGS R4: never below reset).

Their data is checked on ``append``, so a replay never meets a malformed one.

Use::

    journal = Journal("/var/lib/tablectl/uth-01.journal")
    seq = journal.record(CardDealt(place="seat:1", card="As"), "r-000123", who="D042")
    journal.append("r-000123", "card", {"place": "seat:1", "card": "As"})  # the same, untyped

Each kind's payload is declared in ``controller.events``; ``Event.typed`` reads a
row back as its type.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from urllib.request import pathname2url

from controller import events

SCHEMA_VERSION = 1
GENESIS = "0" * 64

# the kinds the journal reads, from their declared types (controller.events)
ROUND_CLOSED = events.RoundClosed.kind
ROUND_VOIDED = events.RoundVoided.kind
CLOSING_KINDS = frozenset(e.kind for e in events.CLOSING)

METER_SET = events.MeterSet.kind
METER_ADD = events.MeterAdd.kind
METER_PAID = events.MeterPaid.kind
METER_KINDS = frozenset(e.kind for e in events.METERS)

FILE_MODE = 0o600

_ROWS = "SELECT seq, at, round_id, kind, who, data FROM events"
_CHAINED_ROWS = "SELECT seq, at, round_id, kind, who, data, prev_hash, hash FROM events"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq       INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    round_id  TEXT,
    kind      TEXT NOT NULL,
    who       TEXT,
    data      TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_round ON events (round_id, seq);
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, seq);
CREATE TABLE IF NOT EXISTS head (
    one  INTEGER PRIMARY KEY CHECK (one = 1),
    seq  INTEGER NOT NULL,
    hash TEXT NOT NULL
);
"""


class JournalError(Exception):
    """The journal cannot do what was asked (bad event, closed round, unusable file)."""


class JournalIntegrityError(JournalError):
    """``verify()`` found the journal altered: ``seq`` is the first row that does not check."""

    WHAT = ("edited", "deleted", "reordered", "unreadable")

    def __init__(self, seq: int | None, reason: str, what: str = "edited") -> None:
        if what not in self.WHAT:
            raise ValueError(what)
        self.seq = seq
        self.reason = reason
        self.what = what  # one of WHAT: for machines; the reason says it for people
        super().__init__(f"journal fails verification at seq {seq}: {what}: {reason}" if seq is not None
                         else f"journal fails verification: {what}: {reason}")


class JournalOwnerError(JournalError):
    """The journal was begun for another table or game than the configuration's."""


@dataclass(frozen=True)
class Event:
    seq: int
    at: str
    round_id: str | None
    kind: str
    who: str | None
    data: dict[str, Any] = field(repr=False)  # cards: never in a repr, never in a log

    @property
    def typed(self) -> events.AnyEvent:
        """The event as its declared type (``controller.events``); a kind not declared is ``Unrecognised``."""
        return events.parse(self.kind, self.data)


@dataclass(frozen=True)
class RoundSummary:
    round_id: str
    first_seq: int
    last_seq: int
    started_at: str
    events: int
    closed_by: str | None  # the closing kind, or None while the round is open


# -- JSON ------------------------------------------------------------------------------------------


def _plain(value: Any, where: str) -> Any:
    """``value`` with every Decimal as its exact string; refuse what JSON would not keep exactly."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise JournalError(f"{where}: not a finite amount")
        return format(value, "f")
    if isinstance(value, float):
        raise JournalError(f"{where}: a binary float; journal amounts as Decimal (or str/int)")
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise JournalError(f"{where}: keys must be strings")
            out[k] = _plain(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise JournalError(f"{where}: a {type(value).__name__} cannot be journaled")


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _row_hash(prev_hash: str, seq: int, at: str, round_id: str | None, kind: str, who: str | None, data: str) -> str:
    body = _canonical({"seq": seq, "at": at, "round_id": round_id, "kind": kind, "who": who, "data": json.loads(data)})
    return hashlib.sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()


def _amount(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        raise JournalError(f"{where}: must be an amount (Decimal)")
    try:
        d = Decimal(value)
    except (InvalidOperation, ValueError, TypeError):
        raise JournalError(f"{where}: not an amount") from None
    if not d.is_finite():
        raise JournalError(f"{where}: not a finite amount")
    return d


def _check_meter_event(kind: str, data: Mapping[str, Any]) -> None:
    if kind in (METER_SET, METER_ADD):
        meters = data.get("meters")
        if not isinstance(meters, Mapping) or not meters:
            raise JournalError(f"{kind}: data needs \"meters\": {{name: amount, ...}}")
        for name, v in meters.items():
            _amount(v, f"{kind}.meters.{name}")
    else:
        if not isinstance(data.get("meter"), str):
            raise JournalError(f"{kind}: data needs \"meter\": name")
        _amount(data.get("paid"), f"{kind}.paid")
        _amount(data.get("after"), f"{kind}.after")


# -- the journal -----------------------------------------------------------------------------------


class Journal:
    """The append-only, hash-chained event journal of one table (see the module docstring)."""

    # the test-only kill point's count of writes (tests/test_kill_points.py; nothing on a table reads them)
    _test_writes: int = 0
    _test_kind_at: int = 0

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
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
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise JournalError(f"the journal {self.path} is not usable: {exc}") from None
        except JournalError:
            self._db.close()
            raise

    @classmethod
    def read_only(cls, path: str | os.PathLike[str]) -> Journal:
        """An existing journal opened for reading only, by another process while the daemon writes it
        (the web service): SQLite's ``mode=ro``, so nothing is created, migrated or written."""
        self = cls.__new__(cls)
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(f"file:{pathname2url(str(self.path.resolve()))}?mode=ro", uri=True,
                                       isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("SELECT 1 FROM events LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot read the journal {self.path}: {exc}") from None
        return self

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
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                if row is None:
                    self._db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                elif row[0] != str(SCHEMA_VERSION):
                    raise JournalError(f"the journal {self.path} has schema version {row[0]}, "
                                       f"this program writes {SCHEMA_VERSION}")
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

    def append(self, round_id: str | None, kind: str, data: Mapping[str, Any] | None = None, *,
               who: str | None = None) -> int:
        """Journal one event and make it durable; return its seq.  Act on the event only after this returns.

        The kind and data as stored; ``record`` takes the declared event type instead."""
        return self.append_many([(round_id, kind, data, who)])[0]

    def append_many(self, entries: list[tuple[str | None, str, Mapping[str, Any] | None, str | None]]) -> list[int]:
        """Journal several events as one fact, in one transaction: all of them are on disk, or none
        (no more bets with its meter contributions; the last opening step with the table opened).
        Each entry is ``(round_id, kind, data, who)``; their seqs, in order."""
        rows = []
        for round_id, kind, data, who in entries:
            if round_id is not None and (not isinstance(round_id, str) or not round_id):
                raise JournalError("round_id must be a non-empty string or None")
            if not isinstance(kind, str) or not kind:
                raise JournalError("kind must be a non-empty string")
            if who is not None and (not isinstance(who, str) or not who):
                raise JournalError(f"{kind}: who must be a non-empty string or None")
            payload = _plain(dict(data or {}), kind)
            if kind in METER_KINDS:
                _check_meter_event(kind, payload)
            rows.append((round_id, kind, who, _canonical(payload)))
        # through _dt.timezone: tests set the clock by replacing _dt
        at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")  # noqa: UP017
        _test_kill_point(self, "before", [r[1] for r in rows])
        seqs: list[int] = []
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                last = db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
                seq, prev = (last[0], last[1]) if last else (0, GENESIS)
                for round_id, kind, who, text in rows:
                    if round_id is not None:
                        closed = db.execute(
                            "SELECT kind FROM events WHERE round_id = ? "
                            f"AND kind IN ({','.join('?' * len(CLOSING_KINDS))}) LIMIT 1",
                            (round_id, *sorted(CLOSING_KINDS)),
                        ).fetchone()
                        if closed is not None:
                            raise JournalError(f"round {round_id} is closed ({closed[0]}): "
                                               "nothing more can be journaled for it")
                    seq += 1
                    digest = _row_hash(prev, seq, at, round_id, kind, who, text)
                    db.execute(
                        "INSERT INTO events (seq, at, round_id, kind, who, data, prev_hash, hash) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (seq, at, round_id, kind, who, text, prev, digest),
                    )
                    seqs.append(seq)
                    prev = digest
                db.execute("INSERT INTO head (one, seq, hash) VALUES (1, ?, ?) "
                           "ON CONFLICT (one) DO UPDATE SET seq = excluded.seq, hash = excluded.hash", (seq, prev))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        _test_kill_point(self, "after", [r[1] for r in rows])
        return seqs

    # -- reading -----------------------------------------------------------------------------------

    @staticmethod
    def _event(row: tuple[Any, ...]) -> Event:
        seq, at, round_id, kind, who, data = row[:6]
        return Event(seq, at, round_id, kind, who, json.loads(data))

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def events(self, round_id: str | None) -> list[Event]:
        """The events of one round in order; ``None``: the table-level events."""
        if round_id is None:
            rows = self._query(f"{_ROWS} WHERE round_id IS NULL ORDER BY seq")
        else:
            rows = self._query(f"{_ROWS} WHERE round_id = ? ORDER BY seq", (round_id,))
        return [self._event(r) for r in rows]

    def iter_events(self, after: int = 0, batch: int = 1000) -> Iterator[Event]:
        """Every event with seq > ``after``, in order (for export and replay)."""
        while True:
            rows = self._query(
                f"{_ROWS} WHERE seq > ? ORDER BY seq LIMIT ?", (after, batch)
            )
            if not rows:
                return
            for r in rows:
                yield self._event(r)
            after = rows[-1][0]

    def last_seq(self) -> int:
        return int(self._query("SELECT COALESCE(MAX(seq), 0) FROM events")[0][0])

    def head(self) -> tuple[int, str]:
        """(last seq, its hash): record it elsewhere to anchor the chain; (0, 64 zeros) when empty."""
        row = self._query("SELECT seq, hash FROM head WHERE one = 1")
        return (row[0][0], row[0][1]) if row else (0, GENESIS)

    def rounds(self, last: int | None = None) -> list[RoundSummary]:
        """Round summaries in the order the rounds began; ``last=N``: the latest N."""
        closing = sorted(CLOSING_KINDS)
        marks = ",".join("?" * len(closing))
        sql = f"""
            WITH r AS (
                SELECT round_id, MIN(seq) AS first, MAX(seq) AS last, COUNT(*) AS n
                FROM events WHERE round_id IS NOT NULL GROUP BY round_id
            )
            SELECT r.round_id, r.first, r.last, r.n,
                   (SELECT at FROM events WHERE seq = r.first),
                   (SELECT kind FROM events c WHERE c.round_id = r.round_id AND c.kind IN ({marks})
                    ORDER BY c.seq LIMIT 1)
            FROM r ORDER BY r.first {"DESC LIMIT ?" if last is not None else ""}
        """
        args: tuple[Any, ...] = (*closing, last) if last is not None else tuple(closing)
        if last is not None and (not isinstance(last, int) or last < 0):
            raise ValueError("last must be a non-negative integer")
        rows = self._query(sql, args)
        out = [RoundSummary(r[0], r[1], r[2], r[4], r[3], r[5]) for r in rows]
        return out[::-1] if last is not None else out

    def open_round(self) -> str | None:
        """The last round with no closing event (after a crash: the round to recover), or None."""
        closing = sorted(CLOSING_KINDS)
        marks = ",".join("?" * len(closing))
        rows = self._query(
            f"""SELECT round_id FROM events e WHERE round_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM events c WHERE c.round_id = e.round_id AND c.kind IN ({marks}))
                ORDER BY seq DESC LIMIT 1""",
            tuple(closing),
        )
        return rows[0][0] if rows else None

    def meter_values(self) -> dict[str, Decimal]:
        """The progressive meters now: the replay of every meter event, in order."""
        meters: dict[str, Decimal] = {}
        rows = self._query(
            f"SELECT kind, data FROM events WHERE kind IN ({','.join('?' * len(METER_KINDS))}) ORDER BY seq",
            tuple(sorted(METER_KINDS)),
        )
        for kind, text in rows:
            data = json.loads(text)
            if kind == METER_SET:
                for name, v in data["meters"].items():
                    meters[name] = Decimal(v)
            elif kind == METER_ADD:
                for name, v in data["meters"].items():
                    meters[name] = meters.get(name, Decimal(0)) + Decimal(v)
            else:
                meters[data["meter"]] = Decimal(data["after"])
        return meters

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
    def check_at_start(self, table: str, game: str) -> int:
        """The daemon's start (P90): verify from the last verified point and remember the new one,
        label a new journal, refuse a broken or foreign one (``JournalIntegrityError``, ``JournalOwnerError``)."""
        n = self.verify(full=False, remember=True)
        self.claim(table, game)
        return n


    def verify(self, full: bool = True, *, remember: bool = False) -> int:
        """Check the hash chain; return the number of events, or raise ``JournalIntegrityError``
        naming the first bad seq and what is wrong (see the module docstring, P90).

        ``full``: rehash every row; otherwise only the rows after the last verified point (every
        row's link, seq and the head are checked either way).  ``remember``: record the journal's
        end as the verified point once it checks (a writable journal: the daemon at start)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN")  # one snapshot: the daemon may append while a tool checks
            try:
                n, last_hash = self._verify_snapshot(db, full)
            finally:
                db.execute("COMMIT")
            if remember:
                db.execute("INSERT INTO meta VALUES ('verified', ?) ON CONFLICT (key) DO UPDATE SET value = "
                           "excluded.value", (f"{n}:{last_hash}",))
        return n

    @staticmethod
    def _verify_snapshot(db: sqlite3.Connection, full: bool) -> tuple[int, str]:
        try:
            head = db.execute("SELECT seq, hash FROM head WHERE one = 1").fetchone()
            count, last = db.execute("SELECT COUNT(*), MAX(seq) FROM events").fetchone()
            link = db.execute(_FIRST_BROKEN_LINK, (GENESIS,)).fetchone()
            # unreadable data anywhere (cheap, in SQLite): every reader of the journal would stop on it
            unreadable = db.execute("SELECT seq FROM events WHERE data IS NULL OR NOT json_valid(data) "
                                    "ORDER BY seq LIMIT 1").fetchone()
            mark = db.execute("SELECT value FROM meta WHERE key = 'verified'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalIntegrityError(None, f"the journal cannot be read: {exc}", "unreadable") from None
        first_bad: JournalIntegrityError | None = None
        if link is not None:
            first_bad = Journal._broken_link(db, *link)
        if unreadable is not None:
            first_bad = _first(first_bad, JournalIntegrityError(unreadable[0], "its data is not readable JSON",
                                                                "unreadable"))
        # the rows to rehash: all, or those after the verified point (which must still be as recorded)
        after = 0
        mark_seq, _, mark_hash = str(mark[0]).partition(":") if mark else ("0", "", "")
        if not full and mark_seq.isdigit() and int(mark_seq) > 0:
            row = db.execute("SELECT hash FROM events WHERE seq = ?", (int(mark_seq),)).fetchone()
            if row is None or row[0] != mark_hash:
                bad = JournalIntegrityError(int(mark_seq), "the row the last check verified has changed",
                                            "deleted" if row is None else "edited")
                first_bad = _first(first_bad, bad)
            else:
                after = int(mark_seq)
        stop = first_bad.seq if first_bad is not None and first_bad.seq is not None else None
        rows = db.execute(f"{_CHAINED_ROWS} WHERE seq > ? AND seq < ? ORDER BY seq",
                          (after, stop if stop is not None else (last or 0) + 1))
        for seq, at, round_id, kind, who, data, prev_hash, digest in rows:
            fault = _content_fault(seq, at, round_id, kind, who, data, prev_hash, digest)
            if fault is not None:
                first_bad = fault  # rows come in order, below any link fault
                break
        if first_bad is not None:
            raise first_bad
        n = int(count)
        last_hash = db.execute("SELECT hash FROM events WHERE seq = ?", (last,)).fetchone()[0] if n else GENESIS
        head_seq, head_hash = head if head else (0, GENESIS)
        if head_seq > n:
            raise JournalIntegrityError(n + 1, f"the journal head says seq {head_seq}, the rows end at seq {n}",
                                        "deleted")
        if (head_seq, head_hash) != (n, last_hash):
            raise JournalIntegrityError(min(head_seq + 1, n), f"the journal head says seq {head_seq}, the rows end "
                                        f"at seq {n} with another hash", "edited")
        return n, last_hash

    @staticmethod
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
        SELECT seq, prev_hash, LAG(seq, 1, 0) OVER w AS before, LAG(hash, 1, ?) OVER w AS before_hash
        FROM events WINDOW w AS (ORDER BY seq))
    WHERE seq != before + 1 OR prev_hash IS NOT before_hash ORDER BY seq LIMIT 1
"""


def _content_fault(seq: int, at: Any, round_id: Any, kind: Any, who: Any, data: Any, prev_hash: Any,
                   digest: Any) -> JournalIntegrityError | None:
    """None when the row's contents match its hash; else what is wrong with it."""
    try:
        recomputed = _row_hash(prev_hash, seq, at, round_id, kind, who, data)
    except (ValueError, TypeError, AttributeError):
        return JournalIntegrityError(seq, "its data is not readable JSON", "unreadable")
    if recomputed != digest:
        return JournalIntegrityError(seq, "its contents do not match its hash", "edited")
    return None


def _first(a: JournalIntegrityError | None, b: JournalIntegrityError) -> JournalIntegrityError:
    return b if a is None or (b.seq or 0) < (a.seq or 0) else a


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

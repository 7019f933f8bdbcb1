"""Recall's search: an index of the journal's rounds that the web service keeps beside it (P109).

``<journal>.recall`` is a SQLite file of each round's facts a search asks about (when it began, its
seats, wagers and nets in cents, a progressive hit, a void, an irregularity, the payout limit, the
devices out of order and the last clock check before it), built from the journal's rows across its
segments and brought up to date with the rows appended since at every search.  It is never trusted over
the journal: it holds no card, each round it finds is read back from the journal before it is shown
(``confirm``), and an index that no longer matches its journal (another journal, a rebuilt one) is
thrown away and built again.  Only closed rounds are found: the open round is the daemon's (P61).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.journal.rows import Event
from controller.journal.segments import open_for_reading
from controller.journal.state import CLOSING_KINDS
from controller.journal.store import FILE_MODE, Journal

SUFFIX = ".recall"
PAGE = 25
OUTCOMES = ("hit", "void", "irregularity", "limit")
#: a round's events that are an irregularity of its own (each game's chapter 13; controller/service/remedies.py)
IRREGULAR = {ev.Halted.kind, ev.CardDiscarded.kind, ev.SeatSkipped.kind, ev.SeatAbandoned.kind}
#: table events that name the round they concern (``round``): an irregularity of that round
IRREGULAR_TABLE = {ev.DeckRemoved.kind, ev.ProgressiveLockoutLost.kind, ev.LateProgressiveWager.kind,
                   ev.SupervisorRefused.kind}
DEVICE_KINDS = {ev.DeviceOutOfOrder.kind, ev.DeviceInService.kind, ev.DeviceInputRefused.kind, ev.DeviceFault.kind,
                ev.DeviceFaultEnded.kind}
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (one INTEGER PRIMARY KEY CHECK (one = 1), seq INTEGER, at TEXT, kind TEXT,
    out_of_order TEXT, clock INTEGER);
CREATE TABLE IF NOT EXISTS rounds (rid TEXT PRIMARY KEY, first INTEGER, last INTEGER, began REAL, game TEXT,
    closed_by TEXT, hit INTEGER DEFAULT 0, void INTEGER DEFAULT 0, irregularity INTEGER DEFAULT 0,
    "limit" INTEGER DEFAULT 0, out_of_order TEXT, clock INTEGER);
CREATE TABLE IF NOT EXISTS wagers (rid TEXT, seat INTEGER, wager TEXT, cents INTEGER, PRIMARY KEY (rid, seat, wager));
CREATE TABLE IF NOT EXISTS nets (rid TEXT, seat INTEGER, cents INTEGER, PRIMARY KEY (rid, seat));
CREATE INDEX IF NOT EXISTS rounds_first ON rounds (first);
CREATE INDEX IF NOT EXISTS rounds_began ON rounds (began);
CREATE INDEX IF NOT EXISTS wagers_amount ON wagers (wager, cents);
CREATE INDEX IF NOT EXISTS nets_amount ON nets (cents);
"""
BATCH = 20_000  # rows per transaction while building: a build cut short keeps what it did


def index_path(journal: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(journal)}{SUFFIX}")


def cents(amount: Any) -> int:
    return int((Decimal(str(amount)) * 100).to_integral_value())


@dataclass(frozen=True)
class Query:
    """A search; every part optional.  Times in seconds since 1970, amounts in cents; ``on``: the amounts
    are of the seat's wager (``wager``) or of its net (``net``)."""

    round: str = ""
    since: float | None = None
    until: float | None = None
    seat: int | None = None
    wager: str = ""
    on: str = "wager"
    at_least: int | None = None
    at_most: int | None = None
    outcome: str = ""
    page: int = 1


@dataclass(frozen=True)
class Found:
    rid: str
    first: int
    last: int
    began: float
    game: str
    closed_by: str
    outcomes: tuple[str, ...]
    nets: dict[int, int]


class Index:
    """The index file of one journal; ``update`` before each search."""

    def __init__(self, journal: str | os.PathLike[str]) -> None:
        self.journal = Path(journal)
        self.path = index_path(journal)

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """The index file, opened for one call and closed after it."""
        if not self.path.exists():  # private from the start: it holds the table's wagers
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, FILE_MODE))
        db = sqlite3.connect(str(self.path), isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # a lost index is built again from the journal
        try:
            db.executescript(SCHEMA)
            yield db
        finally:
            db.close()

    def discard(self) -> None:
        for p in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
            p.unlink(missing_ok=True)

    def update(self, j: Journal | None = None) -> int:
        """Index the journal's rows appended since the last update; the number of rows read."""
        own = j is None
        journal = open_for_reading(self.journal) if j is None else j
        try:
            with self._connect() as db:
                n = _Builder(db).run(journal)
            if n < 0:  # the index is of another journal: built again
                self.discard()
                with self._connect() as db:
                    n = _Builder(db).run(journal)
            return n
        finally:
            if own:
                journal.close()

    def search(self, q: Query) -> tuple[int, list[Found]]:
        """(how many rounds match, the page ``q.page`` of them, the latest first)."""
        where, args = _where(q)
        with self._connect() as db:
            total = int(db.execute(f"SELECT COUNT(*) FROM rounds r WHERE {where}", args).fetchone()[0])
            rows = db.execute(f'SELECT rid, first, last, began, game, closed_by, hit, void, irregularity, "limit" '
                              f"FROM rounds r WHERE {where} ORDER BY first DESC LIMIT ? OFFSET ?",
                              (*args, PAGE, PAGE * (max(q.page, 1) - 1))).fetchall()
            found = []
            for rid, first, last, began, game, closed_by, *flags in rows:
                nets = dict(db.execute("SELECT seat, cents FROM nets WHERE rid = ? ORDER BY seat", (rid,)).fetchall())
                found.append(Found(rid, first, last, began, game or "", closed_by,
                                   tuple(o for o, f in zip(OUTCOMES, flags, strict=True) if f), nets))
        return total, found

    def wagers(self) -> list[str]:
        with self._connect() as db:
            return [r[0] for r in db.execute("SELECT DISTINCT wager FROM wagers ORDER BY wager")]

    def round(self, rid: str) -> dict[str, Any] | None:
        """The index's row of a round (its devices out of order and clock check at its start), or None."""
        with self._connect() as db:
            row = db.execute("SELECT first, last, out_of_order, clock FROM rounds WHERE rid = ?", (rid,)).fetchone()
        if row is None:
            return None
        return {"first": row[0], "last": row[1], "out_of_order": json.loads(row[2] or "[]"), "clock": row[3]}


def confirm(j: Journal, found: Iterable[Found]) -> list[str]:
    """The rounds of ``found`` the journal does not confirm (its first seq, or its closing, is not the index's)."""
    wrong = []
    for f in found:
        events = j.events(f.rid)
        closing = next((x.kind for x in events if x.kind in CLOSING_KINDS), None)
        if not events or events[0].seq != f.first or closing != f.closed_by:
            wrong.append(f.rid)
    return wrong


def _where(q: Query) -> tuple[str, tuple[Any, ...]]:
    parts: list[str] = ["closed_by IS NOT NULL"]  # the open round is the daemon's secret (P61)
    args: list[Any] = []
    if q.round:
        parts.append("substr(rid, 1, ?) = ?")
        args += [len(q.round), q.round]
    if q.since is not None:
        parts.append("began >= ?")
        args.append(q.since)
    if q.until is not None:
        parts.append("began <= ?")
        args.append(q.until)
    if q.outcome in OUTCOMES:
        parts.append(f'"{q.outcome}" = 1')
    amount = q.at_least is not None or q.at_most is not None
    w_parts, w_args = ["w.rid = r.rid"], list[Any]()
    if q.seat is not None:
        w_parts.append("w.seat = ?")
        w_args.append(q.seat)
    if q.wager:
        w_parts.append("w.wager = ?")
        w_args.append(q.wager)
    n_parts, n_args = ["n.rid = r.rid"], list[Any]()
    for op, v in ((">=", q.at_least), ("<=", q.at_most)):
        if v is not None:
            (w_parts if q.on == "wager" else n_parts).append(f"{'w' if q.on == 'wager' else 'n'}.cents {op} ?")
            (w_args if q.on == "wager" else n_args).append(v)
    if len(w_parts) > 1:
        parts.append(f"EXISTS (SELECT 1 FROM wagers w WHERE {' AND '.join(w_parts)})")
        args += w_args
    if amount and q.on == "net":
        if q.seat is not None:
            n_parts.append("n.seat = ?")
            n_args.append(q.seat)
        parts.append(f"EXISTS (SELECT 1 FROM nets n WHERE {' AND '.join(n_parts)})")
        args += n_args
    return " AND ".join(parts), tuple(args)


class _Builder:
    """One pass over the rows appended since the last: each round's facts, in journal order."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        row = db.execute("SELECT seq, at, kind, out_of_order, clock FROM meta").fetchone()
        self.seq: int = row[0] if row else 0
        self.at: str = row[1] if row else ""
        self.kind: str = row[2] if row else ""
        self.out_of_order: set[str] = set(json.loads(row[3] or "[]")) if row else set()
        self.clock: int | None = row[4] if row else None

    def run(self, j: Journal) -> int:
        """The rows read; -1 when the row the index ended at is not the journal's (another journal)."""
        if self.seq:
            there = next(iter(j.iter_events(after=self.seq - 1, batch=1)), None)
            if there is None or (there.seq, there.at, there.kind) != (self.seq, self.at, self.kind):
                return -1
        n = 0
        self.db.execute("BEGIN")
        for x in j.iter_events(after=self.seq, batch=2000):
            self._apply(x)
            self.seq, self.at, self.kind = x.seq, x.at, x.kind
            n += 1
            if n % BATCH == 0:
                self._mark()
                self.db.execute("COMMIT")
                self.db.execute("BEGIN")
        self._mark()
        self.db.execute("COMMIT")
        return n

    def _mark(self) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (1, ?, ?, ?, ?, ?)",
                        (self.seq, self.at, self.kind, json.dumps(sorted(self.out_of_order)), self.clock))

    def _flag(self, rid: str, flag: str) -> None:
        self.db.execute(f'UPDATE rounds SET "{flag}" = 1 WHERE rid = ?', (rid,))

    def _apply(self, x: Event) -> None:
        db, d, rid = self.db, x.data, x.round_id
        if rid is None:  # the table's events: its devices, its clock, and those naming a round
            if x.kind == ev.DeviceOutOfOrder.kind:
                self.out_of_order.add(str(d.get("device")))
            elif x.kind == ev.DeviceInService.kind:
                self.out_of_order.discard(str(d.get("device")))
            elif x.kind == ev.ClockChecked.kind:
                self.clock = x.seq
            elif x.kind == ev.ProgressiveHit.kind and d.get("round"):
                self._flag(str(d["round"]), "hit")
            elif x.kind in IRREGULAR_TABLE and d.get("round"):
                self._flag(str(d["round"]), "irregularity")
            return
        if x.kind == ev.RoundOpened.kind or db.execute("SELECT 1 FROM rounds WHERE rid = ?", (rid,)).fetchone() is None:
            db.execute("INSERT OR IGNORE INTO rounds (rid, first, last, began, game, out_of_order, clock) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (rid, x.seq, x.seq, datetime.fromisoformat(x.at).timestamp(), d.get("game"),
                        json.dumps(sorted(self.out_of_order)), self.clock))
        db.execute("UPDATE rounds SET last = ? WHERE rid = ?", (x.seq, rid))
        if x.kind == ev.WagerPlaced.kind:
            db.execute("INSERT OR REPLACE INTO wagers VALUES (?, ?, ?, ?)",
                       (rid, int(d["seat"]), str(d["wager"]), cents(d["amount"])))
        elif x.kind == ev.Settled.kind:
            for seat, net in (d.get("nets") or {}).items():
                db.execute("INSERT OR REPLACE INTO nets VALUES (?, ?, ?)", (rid, int(seat), cents(net)))
            before: dict[str, Decimal] = {}  # each seat's wagers' nets before the payout limit (R6)
            for step in d.get("order") or ():
                for w in step["wagers"]:
                    before[str(step["seat"])] = before.get(str(step["seat"]), Decimal(0)) + Decimal(str(w["net"]))
            if any(Decimal(str(net)) < before.get(seat, Decimal(net)) for seat, net in (d.get("nets") or {}).items()):
                self._flag(rid, "limit")
        elif x.kind == ev.Voided.kind:
            self._flag(rid, "void")
        elif x.kind in IRREGULAR:
            self._flag(rid, "irregularity")
        elif x.kind in CLOSING_KINDS:
            db.execute("UPDATE rounds SET closed_by = ? WHERE rid = ? AND closed_by IS NULL", (x.kind, rid))

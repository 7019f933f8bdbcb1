"""Reading the journal: its events, its rounds, its derived state (``Journal`` inherits ``JournalReads``).

Split from ``controller.journal.store``: every read goes through an index or through the derived state kept
current as events are appended (``controller.journal.state``, P58), so that what the daemon reads on a
press costs the same with a year of play behind it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from controller import events
from controller.journal.rows import (
    GENESIS,
    INDEXED_KINDS,
    KIND_INDEXED,
    Event,
    RoundSummary,
    at_text,
    row_format,
    stored_dictionary,
    unpack,
)
from controller.journal.state import CHECKPOINT, CLOSING_KINDS, READS_DATA, JournalState

ROWS = "SELECT seq, at, round_id, kind, who, data FROM events"
_ROWS = ROWS
_CLOSING_ORDER = tuple(sorted(CLOSING_KINDS))


class JournalReads:
    """The reading half of ``controller.journal.store.Journal``."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _state: JournalState | None
    _zdict: bytes | None = None  # format 2's dictionary (``meta.dictionary``), once read: it never changes

    def _dictionary_locked(self) -> bytes | None:
        """The file's dictionary for compressed data (P76), the lock held; None in a file of format 1 (read
        again until found: a roll-over begins the open file in format 2)."""
        if self._zdict is None:
            self._zdict = stored_dictionary(self._db)
        return self._zdict

    def _dictionary(self) -> bytes | None:
        if self._zdict is None:
            with self._lock:
                return self._dictionary_locked()
        return self._zdict

    def _data(self, stored: Any) -> Any:
        """A row's data as its object."""
        return json.loads(unpack(stored, self._dictionary() if isinstance(stored, bytes) else None))

    def _read_format(self) -> int:
        """The file's row format (``meta.schema_version``, P76); a journal without it is of format 1.  Read when
        needed, not kept: a roll-over begins the open file again in the format this program writes."""
        return row_format(self._db)

    # -- the derived state (controller.journal.state) ----------------------------------------------

    def _synced_locked(self) -> JournalState:
        """The state after the journal's last event (the lock held): read from the latest checkpoint at the
        first need, then brought up to date with what was appended since (by this or another process)."""
        state = self._state
        if state is None:
            state = JournalState()
            cp = self._db.execute(f"{_ROWS} WHERE {KIND_INDEXED} AND kind = ? ORDER BY seq DESC LIMIT 1",
                                  (CHECKPOINT,)).fetchone()
            if cp is not None:
                state.restore(cp[0], events.Checkpoint.from_data(json.loads(cp[5])))
        cur = self._db.execute("SELECT seq, round_id, kind, data FROM events WHERE seq > ? ORDER BY seq", (state.seq,))
        for seq, round_id, kind, text in cur:
            if kind in READS_DATA:
                state.apply(seq, round_id, kind, json.loads(
                    unpack(text, self._dictionary_locked() if isinstance(text, bytes) else None)))
            else:
                state.apply(seq, round_id, kind, None)
        self._state = state
        return state

    def state(self) -> JournalState:
        """A copy of the derived state now (meters, open rounds, progressive wagers disabled, the last round)."""
        with self._lock:
            return self._synced_locked().copy()

    def latest_checkpoint(self, with_part: str | None = None) -> tuple[int, events.Checkpoint] | None:
        """The latest checkpoint (seq, event), or None; ``with_part``: the latest holding that part."""
        where = f" AND json_extract(data, '$.{with_part}') IS NOT NULL" if with_part else ""
        if with_part is not None and not with_part.isidentifier():
            raise ValueError(with_part)
        rows = self._query(f"{_ROWS} WHERE {KIND_INDEXED} AND kind = ?{where} ORDER BY seq DESC LIMIT 1", (CHECKPOINT,))
        return (rows[0][0], events.Checkpoint.from_data(json.loads(rows[0][5]))) if rows else None

    def progressive_off(self) -> str | None:
        """Why progressive wagers are disabled now (the last ``progressive_disabled`` not enabled since), or None."""
        with self._lock:
            return self._synced_locked().progressive_off

    # -- reading -----------------------------------------------------------------------------------

    def _event(self, row: tuple[Any, ...]) -> Event:
        seq, at, round_id, kind, who, data = row[:6]
        return Event(seq, at_text(at), round_id, kind, who, self._data(data))

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def events(self, round_id: str | None, *, after: int = 0) -> list[Event]:
        """The events of one round in order; ``None``: the table-level events (``after``: those after that seq)."""
        if round_id is None:
            rows = self._query(f"{_ROWS} WHERE round_id IS NULL AND seq > ? ORDER BY seq", (after,))
        else:
            rows = self._query(f"{_ROWS} WHERE round_id = ? ORDER BY seq", (round_id,))
        return [self._event(r) for r in rows]

    def events_of(self, kind: str, *, after: int = 0) -> list[Event]:
        """The events of one kind after seq ``after``, in order (through the index on kind for ``INDEXED_KINDS``;
        a journal of format 2 reads every row for another kind, P76)."""
        indexed = f"{KIND_INDEXED} AND " if kind in INDEXED_KINDS else ""
        return [self._event(r) for r in self._query(f"{_ROWS} WHERE {indexed}kind = ? AND seq > ? ORDER BY seq",
                                                    (kind, after))]

    def first_seq(self, round_id: str) -> int | None:
        """The seq of the round's first event, or None when it has none."""
        rows = self._query("SELECT MIN(seq) FROM events WHERE round_id = ?", (round_id,))
        return int(rows[0][0]) if rows[0][0] is not None else None

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
        """Round summaries in the order the rounds began; ``last=N``: the latest N (read from the journal's
        end through the indexes, whatever its length)."""
        if last is not None and (not isinstance(last, int) or last < 0):
            raise ValueError("last must be a non-negative integer")
        if last is not None:
            return self._last_rounds(last)
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
            FROM r ORDER BY r.first
        """
        return [RoundSummary(r[0], r[1], r[2], at_text(r[4]), r[3], r[5]) for r in self._query(sql, tuple(closing))]

    def _last_rounds(self, last: int) -> list[RoundSummary]:
        """The ``last`` rounds that began latest: a window of rows back from the end, widened until it holds
        the first event of ``last`` rounds (or the journal's beginning), then each round through its index."""
        if last == 0:
            return []
        end = self.last_seq()
        window = 64 * last
        while True:
            begin = max(end - window, 0)
            ids = [r[0] for r in self._query("SELECT DISTINCT round_id FROM events WHERE seq > ? AND round_id "
                                             "IS NOT NULL", (begin,))]
            firsts = {rid: self.first_seq(rid) or 0 for rid in ids}
            began = sorted((f, rid) for rid, f in firsts.items() if f > begin or begin == 0)
            if len(began) >= last or begin == 0:
                break
            window *= 4
        closing = sorted(CLOSING_KINDS)
        marks = ",".join("?" * len(closing))
        out = []
        for first, rid in began[-last:]:
            n, last_seq = self._query("SELECT COUNT(*), MAX(seq) FROM events WHERE round_id = ?", (rid,))[0]
            at = self._query("SELECT at FROM events WHERE seq = ?", (first,))[0][0]
            closed = self._query(f"SELECT kind FROM events WHERE round_id = ? AND kind IN ({marks}) ORDER BY seq "
                                 "LIMIT 1", (rid, *closing))
            out.append(RoundSummary(rid, first, last_seq, at_text(at), n, closed[0][0] if closed else None))
        return out

    def open_round(self) -> str | None:
        """The last round with no closing event (after a crash: the round to recover), or None."""
        with self._lock:
            return self._synced_locked().open_round()

    def meter_values(self) -> dict[str, Decimal]:
        """The progressive meters now: the replay of every meter event, in order (kept current, P58)."""
        with self._lock:
            return dict(self._synced_locked().meters)

    def meter_accounts(self) -> dict[str, dict[str, Decimal]]:
        """The reserve and overflow meters now (P114): ``{"reserve": {meter: amount}, "overflow": {...}}``."""
        with self._lock:
            st = self._synced_locked()
            return {"reserve": dict(st.reserve), "overflow": dict(st.overflow)}


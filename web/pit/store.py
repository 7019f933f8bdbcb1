"""The pit's database (PostgreSQL, its own: never the link's): what the tables publish, what the pit reads.

* ``publish``: one transaction: the alarms' events inserted once each (``ON CONFLICT DO NOTHING`` on
  (table, alarm, event)), with how far the table's journal was read for them (``pit_journal_cursor``, when it
  was), then the table's summary upserted unless the row holds a newer one (its ``published`` time), then
  ``NOTIFY pit_changed, '<table>'`` (delivered at commit).
* ``acknowledge``: a supervisor's acknowledgement at the pit, the first one of an alarm stands; notified too.
* ``listen``: the pit server's wake-up at every change.

The connection settings and deadlines are the link's (``controller.progressive.link.store``): a server that
does not answer is given up on after a few seconds, on this side, and the table plays on.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from controller.progressive.link import migrate as link_migrate
from controller.progressive.link.store import (
    CLOSE_S,
    CONNECT_TIMEOUT_S,
    KEEPALIVE,
    STATEMENT_TIMEOUT_MS,
    background,
    close_pool,
)

CHANNEL = "pit_changed"
MIGRATIONS = Path(__file__).with_name("migrations")


def migrate(url: str) -> list[int]:
    """The pit's schema (web/pit/migrations) applied to ``url``'s database, as the link's is."""
    return link_migrate.migrate(url, MIGRATIONS)


@dataclass(frozen=True)
class AlarmEvent:
    """An alarm raised, acknowledged at the table, or cleared, as the table's status showed it."""

    alarm_id: str
    event: str  # raised, acknowledged, cleared
    alarm: dict[str, Any]
    at: float  # the table's clock (seconds since the epoch)


@dataclass(frozen=True)
class Acknowledgement:
    table_id: str
    alarm_id: str
    by: str
    at: datetime


def _when(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)




class PitStore:
    """A handle on the pit's database: a small pool (a publisher uses one connection, the server a few)."""

    def __init__(self, url: str, *, pool_size: int = 1) -> None:
        self.url = url
        self.pool_size = pool_size
        self.pool = self._new_pool()

    def _new_pool(self) -> AsyncConnectionPool:
        return AsyncConnectionPool(
            self.url, min_size=1, max_size=self.pool_size, open=False, timeout=CONNECT_TIMEOUT_S + 1,
            check=AsyncConnectionPool.check_connection,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S, **KEEPALIVE,
                    "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS}"},
            name="pit")

    async def open(self) -> None:
        """Open the pool (a fresh one after ``abandon``); raises when the database cannot be reached now."""
        if not self.pool.closed:
            return
        self.pool = self._new_pool()
        try:
            await self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_S + 1)
        except BaseException:
            await self.pool.close()
            raise

    async def close(self) -> None:
        """Close the pool, waiting at most CLOSE_S: a close held up goes on in the background (never
        cancelled: ``close_pool``), so the publisher or server that owns the pool always ends, and the pool's
        workers too.  Seen: with the server stopped and started again, a publisher's end waited without end."""
        await close_pool(self.pool, CLOSE_S)

    def abandon(self) -> None:
        """Leave the pool to close in the background (its calls may be stuck on a stalled server)."""
        old, self.pool = self.pool, self._new_pool()
        if not old.closed:
            background(old.close(timeout=1.0))

    # ------------------------------------------------------------------ the tables' side

    async def alarms_seq(self, table_id: str) -> int:
        """The table's journal seq up to which its alarms were taken (0: none yet)."""
        async with self.pool.connection() as conn:
            row = await (await conn.execute("SELECT seq FROM pit_journal_cursor WHERE table_id = %s",
                                            (table_id,))).fetchone()
        return int(row[0]) if row is not None else 0

    async def publish(self, table_id: str, summary: dict[str, Any], published: float,
                      events: Iterable[AlarmEvent] = (), alarms_seq: int | None = None) -> None:
        """``alarms_seq``: the journal's seq up to which ``events`` hold every alarm it journaled (recorded with
        them, in the same transaction)."""
        events = list(events)
        async with self.pool.connection() as conn, conn.transaction():
            if alarms_seq is not None:
                await conn.execute(
                    "INSERT INTO pit_journal_cursor (table_id, seq) VALUES (%s, %s) "
                    "ON CONFLICT (table_id) DO UPDATE SET seq = EXCLUDED.seq, updated = now()", (table_id, alarms_seq))
            if events:
                async with conn.cursor() as cur:
                    await cur.executemany(
                        "INSERT INTO pit_alarm_event (table_id, alarm_id, event, alarm, at) "
                        "VALUES (%s, %s, %s, %s, %s) "
                        "ON CONFLICT (table_id, alarm_id, event) DO NOTHING",
                        [(table_id, e.alarm_id, e.event, Jsonb(e.alarm), _when(e.at)) for e in events])
            await conn.execute(
                "INSERT INTO pit_table (table_id, summary, published) VALUES (%s, %s, %s) "
                "ON CONFLICT (table_id) DO UPDATE SET summary = EXCLUDED.summary, published = EXCLUDED.published, "
                "received = now() WHERE pit_table.published <= EXCLUDED.published",
                (table_id, Jsonb(summary), _when(published)))
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, table_id))

    # ------------------------------------------------------------------ the pit's side

    async def tables(self, only: Iterable[str] | None = None) -> dict[str, tuple[dict[str, Any], datetime]]:
        """Each table's latest summary and when the pit received it (``only``: those tables)."""
        names = None if only is None else list(only)
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT table_id, summary, received FROM pit_table WHERE %s::text[] IS NULL OR table_id = ANY(%s)",
                (names, names))).fetchall()
        return {t: (s if isinstance(s, dict) else json.loads(s), r) for t, s, r in rows}

    async def acknowledge(self, table_id: str, alarm_id: str, by: str) -> Acknowledgement:
        """``by`` acknowledged the alarm at the pit; the first acknowledgement stands (returned)."""
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO pit_acknowledgement (table_id, alarm_id, by) VALUES (%s, %s, %s) "
                "ON CONFLICT (table_id, alarm_id) DO NOTHING", (table_id, alarm_id, by))
            row = await (await conn.execute(
                "SELECT table_id, alarm_id, by, at FROM pit_acknowledgement WHERE table_id = %s AND alarm_id = %s",
                (table_id, alarm_id))).fetchone()
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, table_id))
        assert row is not None
        return Acknowledgement(*row)

    async def acknowledgements(self, only: Iterable[str] | None = None) -> dict[tuple[str, str], Acknowledgement]:
        names = None if only is None else list(only)
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT table_id, alarm_id, by, at FROM pit_acknowledgement "
                "WHERE %s::text[] IS NULL OR table_id = ANY(%s)", (names, names))).fetchall()
        return {(t, a): Acknowledgement(t, a, b, at) for t, a, b, at in rows}

    async def alarm_events(self, table_id: str) -> list[dict[str, Any]]:
        """One table's alarm events in the order received."""
        async with self.pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            return await (await cur.execute(
                "SELECT alarm_id, event, alarm, at FROM pit_alarm_event WHERE table_id = %s ORDER BY id",
                (table_id,))).fetchall()

    async def listen(self, changed: Callable[[str], Awaitable[None]], ready: Callable[[], None] | None = None) -> None:
        """Call ``changed(table)`` at every change, until the connection fails (it raises: reconnect)."""
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                                                     **KEEPALIVE)
        async with conn:
            await conn.execute(f"LISTEN {CHANNEL}")
            if ready is not None:
                ready()
            async for n in conn.notifies():
                await changed(n.payload)

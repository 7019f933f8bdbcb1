"""The linked meters in PostgreSQL: contributions exactly once, hits in the database's order.

Every operation is one transaction; PostgreSQL's constraints and row locks do the work, no application
lock stands in for them:

* ``contribute``: one call of ``link_contribute`` (migrations/002), one statement on the server: the round's
  meter rows locked in the order of their names (without that order two rounds moving two meters
  deadlock: the benchmark found it), its rows inserted with ``ON CONFLICT DO NOTHING`` on their key
  (link, table, round, seat, meter, kind), only the rows that were new moving the meter.  A replay after
  a crash of the table, the connection or the server adds nothing twice.
* ``hit``: the meter row is locked (``SELECT ... FOR NO KEY UPDATE``, the lock an UPDATE takes), so two
  tables hitting the same meter are taken one after the other; the first is paid p x the meter, the
  second p x what the first left, and the meter drops by what was paid but never below its reset (R4).
  ``seq`` records the order.  A replay of the same hit (table, round, hit) returns the hit already taken.
* every change is announced with ``NOTIFY link_meters, '<link>'`` (delivered at commit): ``listen``
  wakes every table of the link to read the meters again.
* ``advance_anchor``: the table's journal head, the journal's second anchor (migrations/003, P121); it only
  moves forward (``controller.progressive.link.anchor`` reads it at start and sets it anew on purpose).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from controller.progressive.hits import reserve_drawn
from games.money import round_cents

CHANNEL = "link_meters"
PARAMETERS = ":parameters"  # the notification's payload after the link's, when its parameters changed
# a link that does not answer within this is lost for this operation: the table plays on without it
CONNECT_TIMEOUT_S = 2
# the server's own limit on a statement: it holds only while the server runs (a stopped or stalled server
# enforces nothing); the table's side enforces its deadlines itself (``LinkedMeters``, P98)
STATEMENT_TIMEOUT_MS = 3000
CLOSE_S = 3.0  # seconds a pool's close is waited for before it is left to end in the background
READ_DEADLINE_S = 3.0  # a page's one read of the meters (``read_meters``)
# the connection's own checks, on the table's side: a peer gone (host down, cable pulled) is found by TCP
# keepalives within about 5 + 3 x 2 s, and data unacknowledged for 10 s fails the connection (libpq's
# ``keepalives*`` and ``tcp_user_timeout``); a server stopped on a running host still acknowledges (its
# kernel does), which only the table's own deadlines catch
KEEPALIVE: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3,
             "tcp_user_timeout": 10_000}

#: what the link raises: any failure to reach the database or to finish a transaction there
LinkError = (psycopg.Error, TimeoutError, OSError)
#: a meter's regulated parameters as the link holds them (migrations/004): the configuration's key of each
REGULATED = ("initial", "reset", "hidden_rate", "limit")


class ChangeRefused(ValueError):
    """A change of the link's parameters refused by the link (a table of the link not closed, a limit not
    above the meter now, a base that is installed already): one line, naming the table or the meter's key."""


@dataclass(frozen=True)
class Contribution:
    """One row of a round's contributions: ``seat`` >= 1 for a wager; -1, -2, ... for the taking back of a
    voided round's wagers (R7a), in the order the table journaled them."""

    seat: int
    meter: str
    amount: Decimal
    coin_in: Decimal
    kind: str = "wager"

    @property
    def key(self) -> tuple[int, str, str]:
        return self.seat, self.meter, self.kind


@dataclass(frozen=True)
class LinkHit:
    seq: int  # the database's order of the link's hits (NY 5321.18)
    meter: str
    table_id: str
    asset: str
    round_id: str
    hit: int
    seat: int
    line: str
    percent: Decimal
    before: Decimal
    paid: Decimal
    taken: Decimal  # what left the meter: paid, less what the reset floor kept (R4)
    after: Decimal
    state: str
    at: datetime
    validated_by: str | None = None
    drawn: Decimal = Decimal(0)  # what the reset floor drew from the reserve (P114)

    def public(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Decimal | datetime) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class LinkAnchor:
    """A table's journal head as the link's database holds it (migrations/003, P121)."""

    table_id: str
    game: str
    seq: int
    hash: str
    updated: datetime


ANCHOR_COLUMNS = "table_id, game, seq, hash, updated"

# migrations/002_contribute_function.sql: one statement, one round trip, its own transaction
_CONTRIBUTE = ("SELECT link_contribute(%(link)s, %(table)s, %(round)s, %(seats)s::integer[], %(meters)s::text[], "
               "%(kinds)s::text[], %(amounts)s::numeric[], %(coin_in)s::numeric[])")


class LinkStore:
    """One table's (or a tool's) handle on one link: a small pool of connections to its database."""

    def __init__(self, url: str, link: str, *, pool_size: int = 2) -> None:
        self.url = url
        self.link = link
        self.pool_size = pool_size
        self.pool = self._new_pool()

    def _new_pool(self) -> AsyncConnectionPool:
        return AsyncConnectionPool(
            self.url, min_size=1, max_size=self.pool_size, open=False, timeout=CONNECT_TIMEOUT_S + 1,
            check=AsyncConnectionPool.check_connection,  # a connection cut or a server restarted: a new one
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S, **KEEPALIVE,
                    "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS}"},
            name=f"link-{self.link}")

    async def open(self) -> None:
        """Open the pool (a fresh one after a failure); raises a ``LinkError`` when the database cannot be
        reached now."""
        if not self.pool.closed:
            return
        self.pool = self._new_pool()
        try:
            await self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_S + 1)
        except BaseException:
            await self.pool.close()
            raise

    async def close(self) -> None:
        await close_pool(self.pool, CLOSE_S)

    def abandon(self) -> None:
        """Leave the pool to close in the background and take a fresh one (opened by the next ``open``): its
        connections may be held by calls stuck on a stalled server, which nothing here waits for."""
        old, self.pool = self.pool, self._new_pool()
        if not old.closed:
            background(old.close(timeout=1.0))

    # ------------------------------------------------------------------ meters

    async def install(self, meters: Mapping[str, tuple[Decimal, Decimal]],
                      regulated: Mapping[str, tuple[Decimal, Decimal | None]] | None = None) -> None:
        """Install each meter (name: (initial, reset); ``regulated``: name: (hidden rate, limit), none: none)
        the link does not have yet; an installed meter is never set again from a table's configuration (the
        first table installs it; ``change_parameters`` changes it)."""
        async with self.pool.connection() as conn, conn.transaction():
            for name, (initial, reset) in meters.items():
                hidden, limit = (regulated or {}).get(name, (Decimal(0), None))
                await conn.execute(
                    "INSERT INTO link_meter (link, meter, value, reset, initial, hidden_rate, meter_limit) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (link, meter) DO NOTHING",
                    (self.link, name, initial, reset, initial, hidden, limit))

    async def parameters(self) -> dict[str, dict[str, Decimal | None]]:
        """Each meter's regulated parameters as the link holds them (``REGULATED``, the configuration's keys)."""
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT meter, initial, reset, hidden_rate, meter_limit FROM link_meter WHERE link = %s",
                (self.link,))).fetchall()
        return {m: dict(zip(REGULATED, (Decimal(i), Decimal(r), Decimal(h), None if lim is None else Decimal(lim)),
                            strict=True)) for m, i, r, h, lim in rows}

    async def accounts(self) -> dict[str, dict[str, Decimal]]:
        """The reserve and overflow meters now: ``{"reserve": {meter: amount}, "overflow": {...}}`` (P114)."""
        async with self.pool.connection() as conn:
            rows = await (await conn.execute("SELECT meter, reserve, overflow FROM link_meter WHERE link = %s",
                                              (self.link,))).fetchall()
        return {"reserve": {m: Decimal(r) for m, r, _ in rows}, "overflow": {m: Decimal(o) for m, _, o in rows}}

    # ------------------------------------------------------------------ the tables' states, parameters changed

    async def tell_state(self, table_id: str, state: str) -> None:
        """The table's state now (``TableState``'s value): a change of parameters needs every table closed."""
        async with self.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO link_table (link, table_id, state) VALUES (%s, %s, %s) ON CONFLICT (link, table_id) "
                "DO UPDATE SET state = excluded.state, at = now()", (self.link, table_id, state))

    async def states(self) -> dict[str, str]:
        async with self.pool.connection() as conn:
            rows = await (await conn.execute("SELECT table_id, state FROM link_table WHERE link = %s",
                                              (self.link,))).fetchall()
        return {t: s for t, s in rows}

    async def change_parameters(self, table_id: str, by: str, approval: str,
                                new: Mapping[str, Mapping[str, Decimal | None]]) -> list[dict[str, Any]]:
        """Set each meter's regulated parameters to ``new`` (meter: ``REGULATED`` key: value) from ``table_id``
        (closed: it says so here), made by ``by`` with ``approval``; each meter that changes is recorded in
        ``link_parameter_change`` with its old and new values (returned).  One transaction: the tables' rows
        locked, so no table is told open meanwhile.  ``ChangeRefused`` when a table of the link is not
        closed (NY 9 NYCRR 5321.18(b)(4)), a limit is not above the meter now (COMAR 36.05.03.24 C), or a
        base differs from the one installed (the meter's value counts from it: a correction sets a meter)."""
        changed: list[dict[str, Any]] = []
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute("LOCK TABLE link_table IN SHARE ROW EXCLUSIVE MODE")  # no state told meanwhile
            await conn.execute(
                "INSERT INTO link_table (link, table_id, state) VALUES (%s, %s, 'closed') ON CONFLICT (link, "
                "table_id) DO UPDATE SET state = 'closed', at = now()", (self.link, table_id))
            open_ = await (await conn.execute(
                "SELECT table_id, state FROM link_table WHERE link = %s AND state <> 'closed' ORDER BY table_id",
                (self.link,))).fetchall()
            if not open_:  # a table that played on the link but never told it its state counts as open (fail closed)
                open_ = await (await conn.execute(
                    "SELECT DISTINCT c.table_id, 'of unknown state' FROM link_contribution c WHERE c.link = %s AND "
                    "NOT EXISTS (SELECT 1 FROM link_table t WHERE t.link = c.link AND t.table_id = c.table_id) "
                    "ORDER BY c.table_id LIMIT 1", (self.link,))).fetchall()
            if open_:
                raise ChangeRefused(f"table {open_[0][0]} of link '{self.link}' is {open_[0][1]}: a link's "
                                    "parameters change only with every table closed (NY 9 NYCRR 5321.18(b)(4))")
            for meter, want in sorted(new.items()):
                row = await (await conn.execute(
                    "SELECT initial, reset, hidden_rate, meter_limit, value FROM link_meter WHERE link = %s AND "
                    "meter = %s FOR NO KEY UPDATE", (self.link, meter))).fetchone()
                if row is None:
                    await conn.execute(
                        "INSERT INTO link_meter (link, meter, value, reset, initial, hidden_rate, meter_limit) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)", (self.link, meter, want["initial"], want["reset"],
                                                                want["initial"], want["hidden_rate"], want["limit"]))
                    old: dict[str, Decimal | None] = {}
                else:
                    initial, reset, hidden, limit, value = row
                    old = dict(zip(REGULATED, (Decimal(initial), Decimal(reset), Decimal(hidden),
                                               None if limit is None else Decimal(limit)), strict=True))
                    if want == old:
                        continue
                    if want["initial"] != old["initial"]:
                        raise ChangeRefused(f"progressive.meters.{meter}.initial: the link's meter was installed "
                                            f"at {old['initial']}: its base is not changed (a meter correction "
                                            "sets a meter)")
                    lim = want["limit"]
                    if lim is not None and lim != old["limit"] and lim <= Decimal(value):
                        raise ChangeRefused(f"progressive.meters.{meter}.limit: a new limit ({lim}) must be above "
                                            f"the link's meter now ({value})")
                    await conn.execute("UPDATE link_meter SET reset = %s, hidden_rate = %s, meter_limit = %s "
                                       "WHERE link = %s AND meter = %s",
                                       (want["reset"], want["hidden_rate"], lim, self.link, meter))
                text = {k: None if v is None else str(v) for k, v in want.items()}
                was = {k: None if v is None else str(v) for k, v in old.items()}
                await conn.execute(
                    "INSERT INTO link_parameter_change (link, meter, table_id, by, approval, old, new) VALUES "
                    "(%s, %s, %s, %s, %s, %s, %s)", (self.link, meter, table_id, by, approval, Jsonb(was),
                                                     Jsonb(text)))
                changed.append({"meter": meter, "old": was, "new": text})
            if changed:  # every table checks its configuration against them (``listen``'s ``reparameterised``)
                await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.link + PARAMETERS))
        return changed

    async def parameter_changes(self) -> list[dict[str, Any]]:
        """Every change of the link's parameters, in order."""
        async with self.pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            rows = await (await cur.execute(
                "SELECT id, meter, table_id, by, approval, old, new, at FROM link_parameter_change WHERE link = %s "
                "ORDER BY id", (self.link,))).fetchall()
        return [dict(r) for r in rows]

    async def values(self) -> dict[str, Decimal]:
        async with self.pool.connection() as conn:
            return await meter_values(conn, self.link)

    async def resets(self) -> dict[str, tuple[Decimal, Decimal]]:
        """Each meter's (initial, reset) as installed."""
        async with self.pool.connection() as conn:
            rows = await (await conn.execute("SELECT meter, initial, reset FROM link_meter WHERE link = %s",
                                              (self.link,))).fetchall()
        return {m: (Decimal(i), Decimal(r)) for m, i, r in rows}

    # ------------------------------------------------------------------ contributions

    async def contribute(self, table_id: str, round_id: str, rows: Iterable[Contribution]) -> int:
        """Write a round's contributions once; how many rows were new (0 on a replay)."""
        rows = list(rows)
        if not rows:
            return 0
        params = {"link": self.link, "table": table_id, "round": round_id,
                  "seats": [r.seat for r in rows], "meters": [r.meter for r in rows],
                  "kinds": [r.kind for r in rows], "amounts": [r.amount for r in rows],
                  "coin_in": [r.coin_in for r in rows]}
        async with self.pool.connection() as conn:  # autocommit: the function's statement is the transaction
            row = await (await conn.execute(_CONTRIBUTE, params)).fetchone()
        assert row is not None
        return int(row[0])

    async def confirmed(self, table_id: str) -> set[tuple[str, int, str, str]]:
        """Every contribution key of ``table_id`` the database holds: (round, seat, meter, kind)."""
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT round_id, seat, meter, kind FROM link_contribution WHERE link = %s AND table_id = %s",
                (self.link, table_id))).fetchall()
        return {(r, s, m, k) for r, s, m, k in rows}

    # ------------------------------------------------------------------ the journal's second anchor (P121)

    async def anchor(self, table_id: str) -> LinkAnchor | None:
        """``table_id``'s journal head as the link holds it; None when the table never wrote one."""
        async with self.pool.connection() as conn:
            row = await (await conn.execute(f"SELECT {ANCHOR_COLUMNS} FROM link_anchor WHERE link = %s AND "
                                            "table_id = %s", (self.link, table_id))).fetchone()
        return LinkAnchor(*row) if row is not None else None

    async def advance_anchor(self, table_id: str, game: str, seq: int, digest: str) -> bool:
        """The table's journal head moved forward to (seq, digest) (never back: migrations/003); True when the
        link holds it now."""
        async with self.pool.connection() as conn:
            row = await (await conn.execute("SELECT link_anchor_advance(%s, %s, %s, %s, %s)",
                                            (self.link, table_id, game, seq, digest))).fetchone()
        return bool(row and row[0])

    # ------------------------------------------------------------------ hits

    async def hit(self, table_id: str, asset: str, round_id: str, hit: int, seat: int, line: str, meter: str,
                  percent: Decimal) -> LinkHit:
        """Take a hit of ``percent``% of ``meter`` in the database's order (R4); the same hit again returns it."""
        async with self.pool.connection() as conn, conn.transaction():
            cur = conn.cursor(row_factory=dict_row)
            row = await (await cur.execute(
                "SELECT value, reset, reserve FROM link_meter WHERE link = %s AND meter = %s FOR NO KEY UPDATE",
                (self.link, meter))).fetchone()
            if row is None:
                raise psycopg.DataError(f"link {self.link} has no meter {meter!r}")
            done = await (await cur.execute(
                "SELECT * FROM link_hit WHERE link = %s AND table_id = %s AND round_id = %s AND hit = %s",
                (self.link, table_id, round_id, hit))).fetchone()
            if done is not None:
                return _hit(done)
            before, reset = Decimal(row["value"]), Decimal(row["reset"])
            paid = round_cents(percent * before / 100)  # R4: p x meter, half up to the cent
            after = max(reset, before - paid)  # R4: never below the reset amount
            # the reset floor's part drawn on the reserve, as on a stand-alone table (P114)
            drawn = reserve_drawn(Decimal(row["reserve"]), after - (before - paid))
            await conn.execute("UPDATE link_meter SET value = %s, reserve = reserve - %s WHERE link = %s AND "
                               "meter = %s", (after, drawn, self.link, meter))
            new = await (await cur.execute(
                "INSERT INTO link_hit (link, meter, table_id, asset, round_id, hit, seat, line, percent, before, "
                "paid, taken, after, drawn) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "RETURNING *",
                (self.link, meter, table_id, asset, round_id, hit, seat, line, percent, before, paid,
                 before - after, after, drawn))).fetchone()
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.link))
            assert new is not None
            return _hit(new)

    async def validate(self, table_id: str, round_id: str, hit: int, who: str) -> None:
        """A floor supervisor validated the hit (the first validation stands on a replay)."""
        async with self.pool.connection() as conn, conn.transaction():
            await conn.execute(
                "UPDATE link_hit SET state = 'validated', validated_by = %s, validated_at = now() "
                "WHERE link = %s AND table_id = %s AND round_id = %s AND hit = %s AND state = 'pending'",
                (who, self.link, table_id, round_id, hit))
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.link))

    async def hits(self, state: str | None = None) -> list[LinkHit]:
        """The link's hits in the database's order (``state``: only 'pending' or 'validated' ones)."""
        async with self.pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            rows = await (await cur.execute(
                "SELECT * FROM link_hit WHERE link = %s AND (%s::text IS NULL OR state = %s) ORDER BY seq",
                (self.link, state, state))).fetchall()
        return [_hit(r) for r in rows]

    async def totals(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Per meter, per table: coin-in, contributions onto the meter (net of those taken back), to the reserve
        and to the overflow, hits, paid, taken."""
        out: dict[str, dict[str, dict[str, Any]]] = {}

        def row(meter: str, table: str) -> dict[str, Any]:
            return out.setdefault(meter, {}).setdefault(table, {
                "coin_in": Decimal(0), "contributions": Decimal(0), "hits": 0, "paid": Decimal(0),
                "taken": Decimal(0), "reserve": Decimal(0), "overflow": Decimal(0)})

        async with self.pool.connection() as conn:
            for meter, table, coin_in, amount, reserve, overflow in await (await conn.execute(
                    "SELECT meter, table_id, sum(coin_in), sum(amount), sum(reserve), sum(overflow) FROM "
                    "link_contribution WHERE link = %s GROUP BY meter, table_id", (self.link,))).fetchall():
                r = row(meter, table)
                r["coin_in"], r["contributions"] = Decimal(coin_in), Decimal(amount)
                r["reserve"], r["overflow"] = Decimal(reserve), Decimal(overflow)
            for meter, table, n, paid, taken in await (await conn.execute(
                    "SELECT meter, table_id, count(*), sum(paid), sum(taken) FROM link_hit WHERE link = %s "
                    "GROUP BY meter, table_id", (self.link,))).fetchall():
                r = row(meter, table)
                r["hits"], r["paid"], r["taken"] = int(n), Decimal(paid), Decimal(taken)
        return out

    # ------------------------------------------------------------------ every table told

    async def listen(self, changed: Callable[[], Awaitable[None]], ready: Callable[[], None] | None = None,
                     reparameterised: Callable[[], Awaitable[None]] | None = None) -> None:
        """Call ``changed()`` after every change on the link, until the connection fails (it raises then:
        the caller reconnects).  ``ready()`` once listening; ``reparameterised()`` after a change of the
        link's parameters."""
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                                                     **KEEPALIVE)
        async with conn:
            await conn.execute(f"LISTEN {CHANNEL}")
            if ready is not None:
                ready()
            async for n in conn.notifies():
                if n.payload == self.link:
                    await changed()
                elif n.payload == self.link + PARAMETERS and reparameterised is not None:
                    await reparameterised()


async def change_from_table(url: str, link: str, table_id: str, by: str, approval: str,
                            new: Mapping[str, Mapping[str, Decimal | None]]) -> str | None:
    """``tablectl parameters change`` on a linked table (its daemon stopped, its journal closed): the link's
    parameters set to ``new``; None when done, else why not in one line (a link not answering refuses it:
    fail closed)."""
    store = LinkStore(url, link, pool_size=1)
    try:
        await deadline(store.open(), CONNECT_TIMEOUT_S * 2)
        await deadline(store.change_parameters(table_id, by, approval, new), STATEMENT_TIMEOUT_MS / 1000 * 2)
    except ChangeRefused as e:
        return str(e)
    except LinkError as e:
        return f"the progressive link '{link}' is not answering ({type(e).__name__}): nothing changed"
    finally:
        try:
            await deadline(store.close(), CONNECT_TIMEOUT_S)
        except LinkError:
            store.abandon()
    return None


async def meter_values(conn: psycopg.AsyncConnection[Any], link: str) -> dict[str, Decimal]:
    """The meters of ``link`` now."""
    rows = await (await conn.execute("SELECT meter, value FROM link_meter WHERE link = %s", (link,))).fetchall()
    return {m: Decimal(v) for m, v in rows}


# each meter's value after each of its moves: installed, every contribution (+amount), every hit (-taken),
# a running sum in the order of their times (within a time: installed, contributions, hits, each by id);
# the last ``last`` per meter.  The last value of each is the meter (the invariant: initial + contributions
# - taken), whatever the order of commits of moves that began at the same time.
_SERIES = """
WITH moves AS (
    SELECT meter, installed AS at, -1 AS o, 0::bigint AS k, initial AS delta FROM link_meter WHERE link = %(link)s
    UNION ALL SELECT meter, at, 0, id, amount FROM link_contribution WHERE link = %(link)s
    UNION ALL SELECT meter, at, 1, seq, -taken FROM link_hit WHERE link = %(link)s
), run AS (
    SELECT meter, at, o, k, sum(delta) OVER (PARTITION BY meter ORDER BY at, o, k) AS value,
           row_number() OVER (PARTITION BY meter ORDER BY at DESC, o DESC, k DESC) AS back
    FROM moves
)
SELECT meter, at, value FROM run WHERE back <= %(last)s ORDER BY meter, at, o, k
"""


async def read_meters(url: str, link: str, last: int = 500) -> tuple[dict[str, Decimal],
                                                                       dict[str, list[tuple[datetime, Decimal]]]]:
    """The meters of ``link`` now, and each one's last ``last`` values over time, on one connection of its
    own (no pool: a page's one read fails at once when the server does not answer, it is not retried).
    A server that accepts and never answers (stopped) fails it after ``READ_DEADLINE_S``, on this side."""
    return await deadline(_read_meters(url, link, last), READ_DEADLINE_S)


async def _read_meters(url: str, link: str, last: int) -> tuple[dict[str, Decimal],
                                                               dict[str, list[tuple[datetime, Decimal]]]]:
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                                                 **KEEPALIVE)
    async with conn:
        values = await meter_values(conn, link)
        series: dict[str, list[tuple[datetime, Decimal]]] = {}
        for meter, at, value in await (await conn.execute(_SERIES, {"link": link, "last": last})).fetchall():
            series.setdefault(meter, []).append((at, Decimal(value)))
    return values, series


class LinkStalled(TimeoutError):
    """A call to the link not answered within its deadline, enforced on the table's side (P98)."""


T = TypeVar("T")


async def deadline(aw: Awaitable[T], seconds: float) -> T:
    """``aw``'s result, or ``LinkStalled`` after ``seconds`` without waiting any longer.

    Not ``asyncio.wait_for``: it waits for the cancelled call to end, and psycopg, cancelled mid-query,
    first asks the server to cancel it and waits up to 2 x 5 s for that answer, which a stopped server never
    gives.  The call is cancelled and left to end in the background; so it is when the caller is cancelled
    while it waits (a publisher or a table stopping: its call must not go on alone, holding a connection)."""
    fut = asyncio.ensure_future(aw)
    try:
        done, _ = await asyncio.wait({fut}, timeout=max(seconds, 0.0))
    except asyncio.CancelledError:
        fut.cancel()
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())
        raise
    if fut in done:
        return fut.result()
    fut.cancel()
    fut.add_done_callback(lambda f: f.cancelled() or f.exception())
    raise LinkStalled(f"no answer within {seconds:g} s")


async def close_pool(pool: AsyncConnectionPool, seconds: float) -> None:
    """Close ``pool``, waiting ``seconds`` at most, the close going on in the background past them.  The close
    itself is never cancelled (the caller's deadline or its own cancel stops only the waiting): psycopg_pool's
    workers end on the stop the close queues them, and a worker cancelled instead catches the cancel in the
    task it runs (its CLIENT_EXCEPTIONS) and waits on its queue for ever -- which hung the end of an event
    loop that cancelled it (a test's asyncio.run, seen in CI, and so a daemon's or a publisher's end)."""
    if pool.closed:
        return
    closing = background(pool.close(timeout=seconds))
    try:
        await deadline(asyncio.shield(closing), seconds)
    except LinkStalled:
        pass


def background(aw: Awaitable[Any]) -> asyncio.Future[Any]:
    """Run ``aw`` without waiting for it; its failure is expected (the link is away) and not reported."""
    fut = asyncio.ensure_future(aw)
    fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved: no "never retrieved" noise
    return fut


def _hit(row: Mapping[str, Any]) -> LinkHit:
    names = LinkHit.__dataclass_fields__
    return LinkHit(**{k: v for k, v in row.items() if k in names})


def invariant(initial: Mapping[str, Decimal], values: Mapping[str, Decimal], contributed: Mapping[str, Decimal],
              taken: Mapping[str, Decimal]) -> dict[str, Decimal]:
    """Per meter, what the meter differs from initial + contributions - taken by hits (all zero when whole)."""
    return {m: values[m] - (initial[m] + contributed.get(m, Decimal(0)) - taken.get(m, Decimal(0)))
            for m in values}

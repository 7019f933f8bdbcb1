"""``LinkedMeters``: the table's meters when ``[progressive] link`` is configured.

The same interface as ``controller.table.Meters`` (``values``, ``contributions``, ``setup_block``) plus
what the link needs, all async and called by ``controller.service.progressive``:

* ``sync(round_id)``: after the table journaled a round's no more bets (its contributions are in its own
  journal first: the journal stays the record), the round's contributions are written to the link keyed
  by table, round and seat; the meters read back.  Unconfirmed rounds stay listed and are sent again.
* ``connect()``: (again) reach the database, install the configured meters the link lacks, send every
  contribution of the journal the link does not hold (the journal decides, nothing is guessed), start
  listening to the link's changes.
* ``down``: why the link is lost, or None.  A lost link disables progressive wagers at the next no more
  bets (NJAC 13:69E-1.39B); ``connect()`` succeeds again and they are enabled again.
* ``claim(...)``: a progressive hit taken by the database in its order (R4); the hit records the table's
  asset number (COMAR 36.05.03.24 F(3)(c)).

Each seat's contribution is its rate x unit to the cent, and a round's is the seats' sum: the journal's
``meter_add`` of the round is then exactly the sum of the rows keyed by seat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any

import structlog

from controller.config.table import TableConfig
from controller.journal.store import METER_ADD, Journal
from controller.progressive.link.store import Contribution, LinkError, LinkHit, LinkStore
from controller.table import Meters
from games.money import CENT, round_cents

log = structlog.get_logger("link")

#: after the listening connection failed, it is tried again this often (while the table plays on)
LISTEN_RETRY_S = 1.0


def round_rows(events: Iterable[Any], unit: Decimal) -> list[Contribution]:
    """A round's contribution rows from its journal events: per seat of its no more bets, the round's
    ``meter_add`` split to the cent (the first seats take any odd cent); each later negative
    ``meter_add`` (wagers returned, R7a) is one 'returned' row per meter, keyed -1, -2, ...."""
    seats: list[int] = []
    rows: list[Contribution] = []
    added = False
    returned = 0
    per_seat: dict[str, Decimal] = {}
    for e in events:
        if e.kind == "no_more_bets":
            seats = sorted(e.data.get("progressive_seats") or ())
        elif e.kind == METER_ADD:
            meters = {m: Decimal(str(v)) for m, v in e.data["meters"].items()}
            if not added and seats and all(v >= 0 for v in meters.values()):
                added = True
                for m, total in meters.items():
                    base = (total / len(seats)).quantize(CENT, rounding="ROUND_FLOOR")
                    odd = int((total - base * len(seats)) / CENT)
                    per_seat[m] = base
                    for i, seat in enumerate(seats):
                        rows.append(Contribution(seat, m, base + (CENT if i < odd else 0), unit))
            elif added:
                returned += 1
                for m, v in meters.items():
                    wagers = int((-v / per_seat[m]).to_integral_value()) if per_seat.get(m) else 0
                    rows.append(Contribution(-returned, m, v, -unit * wagers, "returned"))
    return rows


class LinkedMeters(Meters):
    """The meters of a linked table: the link's, cached here, kept fresh by LISTEN/NOTIFY."""

    def __init__(self, cfg: TableConfig, journal: Journal, store: LinkStore | None = None) -> None:
        p = cfg.progressive
        assert p.link is not None and p.link_id is not None, "a linked table has progressive.link and link_id"
        self.cfg = cfg
        self.journal = journal
        self.enabled = p.enabled
        self.store = store or LinkStore(p.link, p.link_id)
        self.table_id = cfg.id
        self.asset = p.asset or cfg.id
        # until the link answers, the configured amounts stand in (and no progressive wager is taken on them)
        self.cache: dict[str, Decimal] = {m: c.initial for m, c in p.meters.items()}
        self.down: str | None = "the progressive link is not connected yet"
        self.unsent: set[str] = set()  # rounds whose contributions the link has not confirmed
        self.pending: list[LinkHit] = []  # the link's hits awaiting validation (every table shows them)
        self.on_change: Callable[[], Awaitable[None]] | None = None  # the signs shown again
        self._listener: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ Meters

    def values(self) -> dict[str, Decimal]:
        return {m: v for m, v in self.cache.items() if m in self.cfg.progressive.meters}

    def pending_elsewhere(self) -> list[dict[str, Any]]:
        """Every hit on the link awaiting its supervisor, in the database's order: the pending jackpot
        and the meter as reset, shown at every linked table (R4; the hit is public once settled)."""
        return [{"seq": h.seq, "meter": h.meter, "table": h.table_id, "asset": h.asset, "seat": h.seat,
                 "paid": str(h.paid), "after": str(h.after)} for h in self.pending]

    def contributions(self, wagers: int) -> dict[str, Decimal]:
        """Each wager's contribution is keyed by its seat: its rate x unit to the cent, times ``wagers``."""
        p = self.cfg.progressive
        if p.unit is None:
            raise ValueError("progressive.unit is not configured")
        return {m: round_cents(c.rate * p.unit) * wagers for m, c in p.meters.items()}

    # ------------------------------------------------------------------ the link

    def _unit(self, events: list[Any]) -> Decimal:
        opened = events[0].data.get("progressive") if events and events[0].kind == "round_opened" else None
        return Decimal(str(opened["unit"])) if opened else Decimal(self.cfg.progressive.unit or 0)

    def _rounds(self) -> Iterator[tuple[str, list[Contribution]]]:
        """Every round of the journal with contributions, and its rows."""
        by_round: dict[str, list[Any]] = {}
        for e in self.journal.iter_events():
            if e.round_id is not None:
                by_round.setdefault(e.round_id, []).append(e)
        for rid, events in by_round.items():
            rows = round_rows(events, self._unit(events))
            if rows:
                yield rid, rows

    async def connect(self) -> str | None:
        """Reach the link and reconcile the journal with it; None when linked, else why not."""
        try:
            await self.store.open()
            p = self.cfg.progressive
            await self.store.install({m: (c.initial, c.reset) for m, c in p.meters.items()})
            differ = self.configured_otherwise(await self.store.resets())
            if differ is not None:
                await self.store.close()
                return self.refused(differ)
            held = await self.store.confirmed(self.table_id)
            resent = 0
            for rid, rows in self._rounds():
                missing = [r for r in rows if (rid, *r.key) not in held]
                if missing:
                    resent += await self.store.contribute(self.table_id, rid, missing)
            await self._validations()
            self.unsent.clear()
            await self.refresh()
        except LinkError as e:
            await self.store.close()  # tried again with new connections
            return self.lost(e)
        if resent:
            log.warning("link: contributions the link lacked sent from the journal", table=self.table_id,
                        rows=resent)
        if self.down is not None:
            log.info("link connected", table=self.table_id, link=self.store.link)
        self.down = None
        if self._listener is None or self._listener.done():
            self._listener = asyncio.ensure_future(self._listen())
        return None

    def configured_otherwise(self, installed: Mapping[str, tuple[Decimal, Decimal]]) -> str | None:
        """Why this table may not share the link's meters: a meter installed on the link with another
        initial or reset amount than this table's configuration (the players of every linked table are
        offered one meter, by one rule: R4), named by its configuration key; None when they agree."""
        for m, c in self.cfg.progressive.meters.items():
            if m in installed and installed[m] != (c.initial, c.reset):
                initial, reset = installed[m]
                return (f"progressive.meters.{m}: initial {c.initial}, reset {c.reset} here, but {initial}, "
                        f"{reset} on link '{self.store.link}'")
        return None

    def refused(self, why: str) -> str:
        """The link is reached but may not be used (its meters are configured otherwise): no progressive
        wager is taken on it, as when it is lost (fail closed), until the configuration agrees."""
        if self.down != why:
            log.error("link refused", table=self.table_id, reason=why)
        self.down = why
        return why

    def lost(self, e: BaseException) -> str:
        why = f"the progressive link is not answering ({type(e).__name__})"
        if self.down is None:
            log.error("link lost", table=self.table_id, error=str(e))
        self.down = why
        return why

    async def refresh(self) -> None:
        values, pending = await self.store.values(), await self.store.hits("pending")
        self.cache.update(values)  # both at once: no one sees the reset meter without its pending hit
        self.pending = pending

    async def sync(self, round_id: str | None = None) -> str | None:
        """Send ``round_id``'s contributions (journaled already) and any unconfirmed ones; read the meters
        back.  None when the link holds them all, else why not (they stay unconfirmed and are sent again)."""
        if round_id is not None:
            self.unsent.add(round_id)
        if self.down is not None:
            return await self.connect()
        try:
            for rid in sorted(self.unsent):
                events = self.journal.events(rid)
                await self.store.contribute(self.table_id, rid, round_rows(events, self._unit(events)))
                self.unsent.discard(rid)
            await self.refresh()
        except LinkError as e:
            self.lost(e)
            await self.store.close()  # the server restarted or the connections were cut: new ones at once
            return await self.connect()
        return None

    async def claim(self, round_id: str, hit: int, seat: int, line: str, meter: str, percent: Decimal) -> LinkHit:
        """The hit taken by the link in its order (raises a ``LinkError`` when the link is lost)."""
        try:
            taken = await self.store.hit(self.table_id, self.asset, round_id, hit, seat, line, meter, percent)
            await self.refresh()
        except LinkError as e:
            self.lost(e)
            raise
        return taken

    async def validated(self, round_id: str, hit: int, who: str) -> None:
        try:
            await self.store.validate(self.table_id, round_id, hit, who)
            await self.refresh()
        except LinkError as e:
            self.lost(e)  # the journal holds the validation: sent again at the next connect()

    async def _validations(self) -> None:
        """The hits of this table the journal shows validated but the link holds pending: validated."""
        mine = [h for h in await self.store.hits("pending") if h.table_id == self.table_id]
        if not mine:
            return
        done = {(e.data.get("round"), e.data.get("hit")): e.who for e in self.journal.events(None)
                if e.kind == "progressive_hit"}
        for h in mine:
            if (h.round_id, h.hit) in done:
                await self.store.validate(self.table_id, h.round_id, h.hit, done[(h.round_id, h.hit)] or "")

    async def _changed(self) -> None:
        try:
            await self.refresh()
        except LinkError as e:
            self.lost(e)
            return
        if self.on_change is not None:
            await self.on_change()

    async def _listen(self) -> None:
        """Every change anywhere on the link refreshes the meters and the signs (within a second)."""
        def ready() -> None:  # listening again: what changed while not listening is read now
            asyncio.ensure_future(self._changed())

        while True:
            try:
                await self.store.listen(self._changed, ready=ready)
            except LinkError as e:
                self.lost(e)
            await asyncio.sleep(LISTEN_RETRY_S)  # a retry interval while the server is away, not a wait on it

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
        await self.store.close()

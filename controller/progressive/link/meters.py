"""``LinkedMeters``: the table's meters when ``[progressive] link`` is configured.

``controller.table.Meters``'s interface plus what the link needs, all async: the ``outbox`` of rounds whose
contributions the link has not confirmed (derived from the journal, checkpointed so that a roll-over never
seals one away, P98), ``sync`` (a no more bets waits ``LINK_WAIT_S`` at most; the drain goes on in the
background), ``connect``, ``down`` and ``claim`` (a hit in the database's order, R4).  Every call has a
deadline kept on the table's side (``store.deadline``).  How and why: docs/linked-progressive.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any, TypeVar

import psycopg
import structlog

from controller.config.table import TableConfig
from controller.journal.store import METER_ADD, Journal
from controller.journal.trust import JournalTrustError
from controller.progressive.link.anchor import compare
from controller.progressive.link.store import Contribution, LinkError, LinkHit, LinkStore, deadline
from controller.table import Meters
from games.money import CENT, round_cents

log = structlog.get_logger("link")
T = TypeVar("T")

#: after the listening connection failed, it is tried again this often (while the table plays on)
LISTEN_RETRY_S = 1.0
#: a lost link is tried again this often, in the background (its outbox drained as soon as it answers)
RETRY_S = 1.0
#: a no more bets waits on the link this long at most, in all (P98): then it goes on without the link
LINK_WAIT_S = 0.5
#: each call to the link (a statement, a connection, the pool's) ends by this, answered or not (table side)
CALL_DEADLINE_S = 2.0
#: the start waits on the link this long at most (the drain goes on in the background)
START_WAIT_S = 3.0
#: a caller with no press waiting (a tool, a test) waits this long for the link
DEFAULT_WAIT_S = 10.0


def round_rows(events: Iterable[Any], unit: Decimal) -> list[Contribution]:
    """A round's contribution rows from its journal events: per seat of its no more bets, the round's
    ``meter_add`` split to the cent (the first seats take any odd cent); each later negative
    ``meter_add`` (wagers returned, R7a) is one 'returned' row per meter, keyed -1, -2, ....  Each row is the
    whole contribution (onto the meter, the reserve and the overflow as the table journaled it): the link
    splits it again by its own meter, parameters and order (migrations/004, P114)."""
    seats: list[int] = []
    rows: list[Contribution] = []
    added = False
    returned = 0
    per_seat: dict[str, Decimal] = {}
    for e in events:
        if e.kind == "no_more_bets":
            seats = sorted(e.data.get("progressive_seats") or ())
        elif e.kind == METER_ADD:
            meters = {m: Decimal(str(v)) + sum((Decimal(str((e.data.get(account) or {}).get(m, 0)))
                                                for account in ("reserve", "overflow")), Decimal(0))
                      for m, v in e.data["meters"].items()}
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
        self.outbox: dict[str, list[Contribution]] = self._journaled_outbox()  # unconfirmed rounds (P98)
        journal.checkpoint_parts["link"] = self.checkpoint_part  # carried across checkpoints and roll-overs
        self.pending: list[LinkHit] = []  # the link's hits awaiting validation (every table shows them)
        self.on_change: Callable[[], Awaitable[None]] | None = None  # the signs shown again
        self._listener: asyncio.Task[None] | None = None
        self._drain: asyncio.Task[str | None] | None = None  # the one pass talking to the link for the outbox
        self._retry: asyncio.Task[None] | None = None  # a lost link tried again in the background
        self._refused = False  # reached but its meters are configured otherwise: not retried in the background
        # the table's state now (``TableState``'s value, set by the daemon): told the link at every pass that
        # finds it changed, so that a change of the link's parameters sees every table closed (P120)
        self.table_state: Callable[[], str] | None = None
        self._state_told: str | None = None
        self._anchor_checked = False  # the journal compared with the link's head of it (P121)
        self._anchor_written: tuple[int, str] | None = None  # the head the link holds from this table
        self._anchor_said = False  # a failed write logged once until one succeeds

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

    def _hidden(self, wagers: int) -> dict[str, Decimal]:
        """Each wager's hidden share, as its contribution, by its seat: the hidden rate x unit to the cent, times
        ``wagers`` (the link's ``link_contribute`` computes each row's so, P114)."""
        p = self.cfg.progressive
        unit = p.unit or Decimal(0)
        return {m: round_cents(c.hidden_rate * unit) * wagers for m, c in p.meters.items()}

    # ------------------------------------------------------------------ the outbox (P98)

    def _unit(self, events: list[Any]) -> Decimal:
        opened = events[0].data.get("progressive") if events and events[0].kind == "round_opened" else None
        return Decimal(str(opened["unit"])) if opened else Decimal(self.cfg.progressive.unit or 0)

    def _rounds(self) -> Iterator[tuple[str, list[Contribution]]]:
        """Every round of the journal's open segment with contributions, and its rows."""
        by_round: dict[str, list[Any]] = {}
        for e in self.journal.iter_events():
            if e.round_id is not None:
                by_round.setdefault(e.round_id, []).append(e)
        for rid, events in by_round.items():
            rows = round_rows(events, self._unit(events))
            if rows:
                yield rid, rows

    def _journaled_outbox(self) -> dict[str, list[Contribution]]:
        """The outbox as the journal has it: the latest checkpoint's (a roll-over carried it into this
        segment, P98) and every round of this segment with contributions; those the link holds already
        are found key by key at ``connect()`` and sent no more."""
        outbox: dict[str, list[Contribution]] = {}
        cp = self.journal.latest_checkpoint(with_part="link")
        if cp is not None and cp[1].link is not None:
            for rid, rows in cp[1].link.get("unsent", {}).items():
                outbox[rid] = [Contribution(int(seat), meter, Decimal(amount), Decimal(coin_in), kind)
                               for seat, meter, kind, amount, coin_in in rows]
        outbox.update(self._rounds())
        return outbox

    def checkpoint_part(self) -> dict[str, Any]:
        """The outbox as a checkpoint holds it (``_journaled_outbox`` reads it back): per round, its rows
        as [seat, meter, kind, amount, coin in], amounts as exact decimal text."""
        return {"unsent": {rid: [[r.seat, r.meter, r.kind, str(r.amount), str(r.coin_in)] for r in rows]
                           for rid, rows in sorted(self.outbox.items())}}

    def journaled(self, round_id: str) -> None:
        """The round's contributions as journaled now (its wagers, or their taking back, R7a) into the outbox."""
        events = self.journal.events(round_id)
        rows = round_rows(events, self._unit(events))
        if rows:
            self.outbox[round_id] = rows

    @property
    def unsent(self) -> set[str]:
        """The rounds whose contributions the link has not confirmed."""
        return set(self.outbox)

    # ------------------------------------------------------------------ the link

    async def _call(self, aw: Awaitable[T]) -> T:
        """One call to the link, ended by ``CALL_DEADLINE_S`` on this side; past it, the pool's connections
        are left behind (a call stuck on them ends in the background) and new ones made next time."""
        try:
            return await deadline(aw, CALL_DEADLINE_S)
        except LinkError:
            self.store.abandon()
            raise

    async def connect(self, wait: float = DEFAULT_WAIT_S) -> str | None:
        """Reach the link and reconcile the outbox with it; None when linked, else why not (``wait``: the
        longest the caller waits; the attempt goes on in the background)."""
        return await self._run(full=True, wait=wait)

    async def sync(self, round_id: str | None = None, wait: float = DEFAULT_WAIT_S) -> str | None:
        """Put ``round_id``'s contributions (journaled already) into the outbox and drain it; read the meters
        back.  None when the link holds the whole outbox, else why not (it stays in the outbox and is sent
        when the link answers).  Waits ``wait`` seconds at most: past that the link is taken as lost for
        now, the drain going on in the background."""
        if round_id is not None:
            self.journaled(round_id)
        return await self._run(full=self.down is not None, wait=wait)

    async def _run(self, full: bool, wait: float) -> str | None:
        loop = asyncio.get_running_loop()
        until = loop.time() + wait
        while True:
            if self._drain is None or self._drain.done():
                self._drain = asyncio.ensure_future(self._pass(full))
            task = self._drain
            done, _ = await asyncio.wait({task}, timeout=max(until - loop.time(), 0.0))
            if task not in done:
                return self.stalled(wait)
            why = task.result()
            if why is not None or not self.outbox:
                return why
            full = False  # a round journaled while the pass read the meters back: one more pass sends it

    def stalled(self, wait: float) -> str:
        """The link did not answer within ``wait``: lost for now (the attempt ends in the background)."""
        why = f"the progressive link is not answering (no answer within {wait:g} s)"
        if self.down is None:
            log.error("link lost", table=self.table_id, error=why)
        self.down = why
        return why

    async def _pass(self, full: bool) -> str | None:
        """One pass: (when ``full``) reach the link and reconcile, then send the outbox and read the meters."""
        resent = 0
        try:
            if full:
                await self._call(self.store.open())
                p = self.cfg.progressive
                await self._call(self.store.install({m: (c.initial, c.reset) for m, c in p.meters.items()},
                                                    {m: (c.hidden_rate, c.limit) for m, c in p.meters.items()}))
                differ = self.configured_otherwise(await self._call(self.store.parameters()))
                if differ is None:
                    self._anchor_checked = False  # compared again at every link reached (P121)
                    differ = await self._check_anchor()
                if differ is not None:
                    await self._call(self.store.close())
                    return self.refused(differ)
                held = await self._call(self.store.confirmed(self.table_id))
                # the outbox and every round of the open segment, compared key by key: a link that lost rows
                # it had confirmed (a server restored from a backup) gets them again
                rounds = {**dict(self._rounds()), **self.outbox}
                for rid in sorted(rounds):
                    rows = rounds[rid]
                    missing = [r for r in rows if (rid, *r.key) not in held]
                    if missing:
                        resent += await self._call(self.store.contribute(self.table_id, rid, missing))
                    if self.outbox.get(rid) is rows:  # not journaled again meanwhile (a taking back, R7a)
                        del self.outbox[rid]
                await self._validations()
            else:
                differ = await self._check_anchor()
                if differ is not None:
                    return self.refused(differ)
                while self.outbox:
                    rid = min(self.outbox)
                    rows = self.outbox[rid]
                    await self._call(self.store.contribute(self.table_id, rid, rows))
                    if self.outbox.get(rid) is rows:
                        del self.outbox[rid]
            await self._tell_state()
            await self.refresh()
            await self._write_anchor()
        except LinkError as e:
            self.store.abandon()  # tried again with new connections
            self._retry_later()
            return self.lost(e)
        self._refused = False
        if resent:
            log.warning("link: contributions the link lacked sent from the journal", table=self.table_id,
                        rows=resent)
        if self.down is not None:
            log.info("link connected", table=self.table_id, link=self.store.link)
        self.down = None
        if self._listener is None or self._listener.done():
            self._listener = asyncio.ensure_future(self._listen())
        return None

    # ------------------------------------------------------------------ the journal's second anchor (P121)

    async def _check_anchor(self) -> str | None:
        """Once per link reached: the journal compared with the head the link holds for this table (a table that
        started without the link is checked here, P121); why the link may not be used, or None.  A link without
        the head's table (migration 003 not applied) or a failed read leaves it to the next pass."""
        if self._anchor_checked:
            return None
        try:
            held = await self._call(self.store.anchor(self.table_id))
        except LinkError as e:
            if not isinstance(e, psycopg.errors.UndefinedTable):
                raise
            if not self._anchor_said:
                log.warning("link: no table of journal heads (tablectl link migrate)", table=self.table_id)
            self._anchor_said = True
            return None
        if held is not None:
            try:
                compare(self.journal, held, self.table_id, self.cfg.game, self.cfg.journal_options.archive_dir)
            except JournalTrustError as e:
                log.error("link: the journal is not the chain the link's anchor holds", table=self.table_id,
                          cause=e.cause, error=str(e))
                return f"the journal is not the one the link's anchor holds ({e.cause}): {e}"
        self._anchor_checked = True
        return None

    async def _write_anchor(self) -> None:
        """The journal's head to the link, after the pass's contributions (a keyed table's only: an unkeyed
        journal is development, unanchored).  Not a gate on play: a failure is logged and the next pass writes
        the head of then (P121)."""
        if self.journal._key is None or not self._anchor_checked:
            return
        head = self.journal.head()
        if head == self._anchor_written:
            return
        try:
            await self._call(self.store.advance_anchor(self.table_id, self.cfg.game, *head))
        except LinkError as e:
            if not self._anchor_said:
                log.warning("link: the journal's head not written to the link (the next pass writes it)",
                            table=self.table_id, error=f"{type(e).__name__}: {str(e)[:200]}")
            self._anchor_said = True
            return
        self._anchor_written = head
        self._anchor_said = False

    def _retry_later(self) -> None:
        if self._retry is None or self._retry.done():
            self._retry = asyncio.ensure_future(self._retrying())

    async def _retrying(self) -> None:
        """The lost link tried again every ``RETRY_S`` until it answers: its outbox is drained then, exactly
        once (the link's key), whether or not a no more bets asks; the signs show its meters again."""
        while self.down is not None and not self._refused:
            await asyncio.sleep(RETRY_S)  # a retry interval while the server is away, not a wait on it
            if await self._run(full=True, wait=CALL_DEADLINE_S * 8) is None and self.on_change is not None:
                await self.on_change()

    @property
    def state_untold(self) -> bool:
        """The table's state changed since the link was told it."""
        return self.table_state is not None and self.table_state() != self._state_told

    async def _tell_state(self) -> None:
        """The table's state told the link when it changed since it was last told (P120)."""
        state = self.table_state() if self.table_state is not None else None
        if state is not None and state != self._state_told:
            await self._call(self.store.tell_state(self.table_id, state))
            self._state_told = state

    def configured_otherwise(self, installed: Mapping[str, Mapping[str, Decimal | None]]) -> str | None:
        """Why this table may not share the link's meters: a meter installed on the link with another
        initial or reset amount, hidden rate or limit than this table's configuration (the players of every
        linked table are offered one meter, by one rule: R4; the link's parameters change only through the
        link, P120), named by its configuration key; None when they agree."""
        for m, c in self.cfg.progressive.meters.items():
            on_link = installed.get(m)
            if on_link is None:
                continue
            if (on_link["initial"], on_link["reset"]) != (c.initial, c.reset):
                return (f"progressive.meters.{m}: initial {c.initial}, reset {c.reset} here, but "
                        f"{on_link['initial']}, {on_link['reset']} on link '{self.store.link}'")
            for key in ("hidden_rate", "limit"):
                if on_link[key] != getattr(c, key):
                    return (f"progressive.meters.{m}.{key}: {getattr(c, key)} here, but {on_link[key]} on link "
                            f"'{self.store.link}' (tablectl parameters change)")
        return None

    def refused(self, why: str) -> str:
        """The link is reached but may not be used (its meters are configured otherwise): no progressive
        wager is taken on it, as when it is lost (fail closed), until the configuration agrees."""
        if self.down != why:
            log.error("link refused", table=self.table_id, reason=why)
        self.down = why
        self._refused = True
        return why

    def lost(self, e: BaseException) -> str:
        why = f"the progressive link is not answering ({type(e).__name__})"
        if self.down is None:
            log.error("link lost", table=self.table_id, error=str(e))
        self.down = why
        return why

    async def refresh(self) -> None:
        values = await self._call(self.store.values())
        pending = await self._call(self.store.hits("pending"))
        self.cache.update(values)  # both at once: no one sees the reset meter without its pending hit
        self.pending = pending

    async def claim(self, round_id: str, hit: int, seat: int, line: str, meter: str, percent: Decimal) -> LinkHit:
        """The hit taken by the link in its order (raises a ``LinkError`` when the link is lost or does not
        answer in time: asked again, the link returns the hit it took, if it took it)."""
        try:
            taken = await self._call(self.store.hit(self.table_id, self.asset, round_id, hit, seat, line, meter,
                                                    percent))
            await self.refresh()
        except LinkError as e:
            self.lost(e)
            self._retry_later()
            raise
        return taken

    async def validated(self, round_id: str, hit: int, who: str) -> None:
        try:
            await self._call(self.store.validate(self.table_id, round_id, hit, who))
            await self.refresh()
        except LinkError as e:
            self.lost(e)  # the journal holds the validation: sent again at the next connect()
            self._retry_later()

    async def _validations(self) -> None:
        """The hits of this table the journal shows validated but the link holds pending: validated."""
        mine = [h for h in await self._call(self.store.hits("pending")) if h.table_id == self.table_id]
        if not mine:
            return
        done = {(e.data.get("round"), e.data.get("hit")): e.who for e in self.journal.events(None)
                if e.kind == "progressive_hit"}
        for h in mine:
            if (h.round_id, h.hit) in done:
                await self._call(self.store.validate(self.table_id, h.round_id, h.hit,
                                                     done[(h.round_id, h.hit)] or ""))

    async def _changed(self) -> None:
        try:
            await self.refresh()
        except LinkError as e:
            self.lost(e)
            self._retry_later()
            return
        if self.on_change is not None:
            await self.on_change()

    async def _reparameterised(self) -> None:
        """The link's parameters changed: a table configured otherwise takes no progressive wager on them
        until its configuration (and its journal's approved parameters) agree (P120)."""
        try:
            differ = self.configured_otherwise(await self._call(self.store.parameters()))
        except LinkError as e:
            self.lost(e)
            self._retry_later()
            return
        if differ is not None:
            self.refused(differ)
            if self.on_change is not None:
                await self.on_change()

    async def _listen(self) -> None:
        """Every change anywhere on the link refreshes the meters and the signs (within a second)."""
        def ready() -> None:  # listening again: what changed while not listening is read now
            asyncio.ensure_future(self._changed())
            if self.down is not None:
                self._retry_later()  # the server is back: reconnect and drain the outbox now

        while True:
            try:
                await self.store.listen(self._changed, ready=ready, reparameterised=self._reparameterised)
            except LinkError as e:
                self.lost(e)
                self._retry_later()
            await asyncio.sleep(LISTEN_RETRY_S)  # a retry interval while the server is away, not a wait on it

    async def close(self) -> None:
        for task in (self._listener, self._retry, self._drain):
            if task is not None:
                task.cancel()
        try:
            await deadline(self.store.close(), CALL_DEADLINE_S)
        except LinkError:
            self.store.abandon()

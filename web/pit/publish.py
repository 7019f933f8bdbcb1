"""A table's summary for the pit, and its publisher in the table's web service (``tablectl web``).

The summary is taken from the daemon's public status (``StatusFeed``: the status file and the heartbeat):
nothing hidden is in the status, and the summary keeps only what the pit shows (no cards at all).  The
publisher looks at the feed every ``POLL``; a new status, or the daemon's liveness changed, is a new
summary, and every ``REFRESH`` the same one is published again (the pit knows the table's web service
still runs).  The alarms are compared with the last status's: each raised, acknowledged at the table or
cleared is an event, kept in an outbox (the newest ``OUTBOX`` of them) until the pit's database took it.
The outbox is in memory: at its start, and again after the database was away, the publisher reads the alarms
the journal holds (``alarm_raised``, ``alarm_acknowledged``, ``alarm_cleared``, P105) after the seq the pit
has taken them up to (``pit_journal_cursor``) and sends them first, so a restart while the pit is down loses
none (the pit inserts each event once).

The pit's server down or the network cut: the table plays on (the daemon never waits on this; the publisher
is in another process), the publisher tries again every ``RETRY`` seconds with a fresh connection, and
when the database answers again it sends the outbox and the latest summary only (the latest wins, docs/pit.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.journal.segments import open_for_reading
from controller.journal.store import Event, Journal, JournalError, JournalIntegrityError
from controller.progressive.link.store import LinkError, deadline
from web.feed import StatusFeed
from web.pit.store import AlarmEvent, PitStore

POLL = 0.02  # seconds between two looks at the feed (the feed itself looks at the file every 10 ms)
REFRESH = 5.0  # the same summary published again this often: the pit marks a table silent after SILENT
SILENT = 15.0
RETRY = 1.0  # seconds between two tries while the pit's database does not answer
PUBLISH_DEADLINE = 3.0  # one publish not answered within this: the server is taken as away
VERIFY_EVERY = 60.0  # the journal's hash chain verified this often, in a thread (the table's own journal)
OUTBOX = 5000  # alarm events kept while the database is away (the oldest dropped beyond)
HOUR = 3600.0
CATCH_UP_RETRY = 60.0  # a journal that could not be read for its alarms is tried again after this
ALARM_KINDS = (ev.AlarmRaised.kind, ev.AlarmAcknowledged.kind, ev.AlarmCleared.kind)
log = logging.getLogger(__name__)


START_REFUSED = "start_refused"


def refused_alarm(refused: dict[str, Any]) -> dict[str, Any]:
    """A refusal kept while the daemon does not run (``StatusFeed.refused``, P115/P122) as a high alarm of the
    pit's list: the daemon, not running, raises none of its own, and the heartbeat's stop alone names no cause.
    Its id is the refusal's time: a new refusal is a new alarm, acknowledged anew."""
    since = datetime.fromisoformat(refused["at"].replace("Z", "+00:00")).timestamp()
    return {"id": f"{START_REFUSED}@{refused['at']}", "priority": "high", "kind": START_REFUSED, "since": since,
            "seat": None, "device": None, "clauses": ["P115", "P122"], "acknowledged": None}


def summary(status: dict[str, Any] | None, running: bool, heartbeat: float | None, *, floor_url: str | None,
            hands: int, hands_since: float | None, verification: dict[str, Any] | None,
            start_refused: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the pit shows of a table: a subset of the daemon's public status, with no card in it (and the
    refusal kept while the daemon does not run, as an alarm: ``refused_alarm``)."""
    s = status or {}
    r = s.get("round") or {}
    devices = s.get("devices") or {}
    return {
        "table": s.get("table"),
        "game": s.get("game"),
        "state": s.get("state"),
        "round": {"round_id": r.get("round_id"), "phase": r.get("phase")} if r else None,
        "running": running,
        "heartbeat": heartbeat,
        "hands_per_hour": hands,
        "hands_since": hands_since,  # the publisher has counted since then (less than an hour ago)
        "held": [{k: h.get(k) for k in ("seat", "wager", "line", "amount")} for h in s.get("validation") or []],
        "link_pending": len(s.get("link_pending") or []),
        "faults": {d: v for d, v in devices.items() if v != "online"},  # degraded or offline (drivers/health.py)
        "out_of_order": list(s.get("out_of_order") or []),
        "irregularity": bool(s.get("irregularity_menu")) or r.get("phase") == "halted",
        "storage": (s.get("storage") or {}).get("state"),
        "alarms": list(s.get("alarms") or []) + ([refused_alarm(start_refused)] if start_refused else []),
        "start_refused": start_refused,
        "meters": dict(s.get("meters") or {}),
        "verification": verification,
        "floor_url": floor_url,
        "updated": s.get("updated"),
    }


def alarm_events(before: dict[str, dict[str, Any]], now: list[dict[str, Any]], at: float) -> list[AlarmEvent]:
    """Each alarm raised, acknowledged at the table or cleared between two statuses' ``alarms``."""
    out: list[AlarmEvent] = []
    ids = {a["id"]: a for a in now}
    for alarm_id, a in ids.items():
        old = before.get(alarm_id)
        if old is None:
            out.append(AlarmEvent(alarm_id, "raised", a, float(a.get("since") or at)))
        if a.get("acknowledged") and (old is None or not old.get("acknowledged")):
            out.append(AlarmEvent(alarm_id, "acknowledged", a, float(a["acknowledged"].get("at") or at)))
    out.extend(AlarmEvent(i, "cleared", a, at) for i, a in before.items() if i not in ids)
    return out


def _epoch(x: Event) -> float:
    return datetime.fromisoformat(x.at).timestamp()


def journal_alarms(path: Path, after: int) -> tuple[list[AlarmEvent], int]:
    """The alarms' events the journal holds after seq ``after`` (across its segments), as the status would have
    shown them (``alarm_events``), and the journal's last seq.  A journal whose last seq is before ``after`` is
    another one in its place: read from its start."""
    with open_for_reading(path) as j:
        last = j.last_seq()
        if last < after:
            after = 0
        rows = sorted((x for kind in ALARM_KINDS for x in j.events_of(kind, after=after)), key=lambda x: x.seq)
    alarms: dict[str, dict[str, Any]] = {}
    out: list[AlarmEvent] = []
    for x in rows:
        d = x.data
        alarm_id = str(d["id"])
        a = alarms.get(alarm_id) or {"id": alarm_id, "priority": d.get("priority"), "kind": d.get("alarm"),
                                     "since": None, "seat": None, "device": None, "clauses": [], "acknowledged": None}
        if x.kind == ev.AlarmRaised.kind:
            a = {**a, "since": float(d["since"]), "seat": d.get("seat"), "device": d.get("device"),
                 "clauses": list(d.get("clauses") or ())}
            out.append(AlarmEvent(alarm_id, "raised", a, float(d["since"])))
        elif x.kind == ev.AlarmAcknowledged.kind:
            a = {**a, "acknowledged": {"by": d.get("by"), "at": float(d["at"])}}
            out.append(AlarmEvent(alarm_id, "acknowledged", a, float(d["at"])))
        else:
            out.append(AlarmEvent(alarm_id, "cleared", a, _epoch(x)))
        alarms[alarm_id] = a
    return out, last


def verify(path: Path) -> dict[str, Any]:
    """The journal's hash chain (its open file, as the floor's glance page verifies it): ok, events, when."""
    try:
        with Journal.read_only(path) as j:
            return {"ok": True, "events": j.verify(), "at": time.time()}
    except (JournalIntegrityError, OSError) as exc:
        return {"ok": False, "problem": str(exc)[:300], "at": time.time()}


class Publisher:
    """Publishes one table's summary to the pit (run as a task beside the web service's feed)."""

    def __init__(self, store: PitStore, table_id: str, feed: StatusFeed, *, floor_url: str | None = None,
                 journal: Path | None = None, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.table_id = table_id
        self.feed = feed
        self.floor_url = floor_url
        self.journal = journal
        self.clock = clock
        self.started = clock()
        self.outbox: deque[AlarmEvent] = deque(maxlen=OUTBOX)
        self.closed: deque[float] = deque()  # when each round seen played out ended (the last hour's)
        self._round: str | None = None  # the round the last status showed, and whether it got past its wagers
        self._played = False
        self._alarms: dict[str, dict[str, Any]] = {}
        self.verification: dict[str, Any] | None = None
        self.pending: tuple[dict[str, Any], float] | None = None  # the summary not yet taken, and its time
        self.published = 0  # how many summaries the database took (tests, docs)
        self.failures = 0  # tries the database did not answer in a row
        self.connected = asyncio.Event()  # set while the last try succeeded
        self.poll = POLL  # between two looks at the feed; a caller that watches the feed itself ``wake``s it
        self.wake = asyncio.Event()
        self.behind = journal is not None  # the journal's alarms to be read (at the start, after the database was away)
        self._catch_up_at = 0.0

    def _hands(self, status: dict[str, Any], now: float) -> tuple[int, float | None]:
        """Rounds played in the last hour: a round counts when the next one begins, if it got past its
        wagers (a fast table can pass a round's last phases between two looks; its next round id cannot hide)."""
        r = status.get("round") or {}
        rid = r.get("round_id")
        if rid and rid != self._round:
            if self._round is not None and self._played:
                self.closed.append(now)
            self._round, self._played = rid, False
        if rid and r.get("phase") not in (None, "wagers"):
            self._played = True
        while self.closed and self.closed[0] < now - HOUR:
            self.closed.popleft()
        return len(self.closed), (self.started if now - self.started < HOUR else None)

    def take(self, now: float) -> None:
        """A summary of the feed now; the alarms' events since the last into the outbox."""
        status = self.feed.current()
        alive = self.feed.alive
        hands, since = self._hands(status or {}, now)
        refused = self.feed.refused
        if status is not None or refused is not None or any(a.get("kind") == START_REFUSED
                                                            for a in self._alarms.values()):
            daemons = list((status or {}).get("alarms") or [])
            alarms = daemons + ([refused_alarm(refused)] if refused is not None else [])
            self.outbox.extend(alarm_events(self._alarms, alarms, now))
            self._alarms = {a["id"]: a for a in alarms}
        self.pending = (summary(status, alive.running, alive.heartbeat, floor_url=self.floor_url, hands=hands,
                                hands_since=since, verification=self.verification, start_refused=refused), now)

    async def _verify(self) -> None:
        while self.journal is not None:
            self.verification = await asyncio.get_running_loop().run_in_executor(None, verify, self.journal)
            self.take(self.clock())
            await asyncio.sleep(VERIFY_EVERY)

    async def send(self) -> bool:
        """Send the outbox and the pending summary; False when the database did not take them."""
        if self.pending is None:
            return True
        summary_, at = self.pending
        events = list(self.outbox)
        try:
            caught, cursor = await self._catch_up()
            await deadline(self._send(summary_, at, caught + events, cursor), PUBLISH_DEADLINE)
        except LinkError:
            self.failures += 1
            self.connected.clear()
            self.store.abandon()
            self.behind = self.journal is not None  # the outbox may have lost some meanwhile: read the journal again
            return False
        if cursor is not None:
            self.behind = False
        for _ in events:  # taken: the events sent leave the outbox (newer ones may have come meanwhile)
            self.outbox.popleft()
        if self.pending is not None and self.pending[1] == at:
            self.pending = None
        self.published += 1
        self.failures = 0
        self.connected.set()
        return True

    async def _catch_up(self) -> tuple[list[AlarmEvent], int | None]:
        """The journal's alarms after the seq the pit took them up to, and the journal's last seq; nothing while
        not behind.  The journal is read in a thread, outside the publish's deadline (a long journal takes time)."""
        if not self.behind or self.journal is None or self.clock() < self._catch_up_at:
            return [], None
        after = await deadline(self._cursor(), PUBLISH_DEADLINE)
        try:
            return await asyncio.get_running_loop().run_in_executor(None, journal_alarms, self.journal, after)
        except (JournalError, OSError, sqlite3.Error) as exc:  # the pit is not told less: tried again later
            log.warning("the journal's alarms could not be read for the pit: %s", exc)
            self._catch_up_at = self.clock() + CATCH_UP_RETRY
            return [], None

    async def _cursor(self) -> int:
        await self.store.open()
        return await self.store.alarms_seq(self.table_id)

    async def _send(self, summary_: dict[str, Any], at: float, events: list[AlarmEvent], cursor: int | None = None
                    ) -> None:
        await self.store.open()
        await self.store.publish(self.table_id, summary_, at, events, alarms_seq=cursor)

    async def run(self) -> None:
        verifier = asyncio.create_task(self._verify())
        seen: tuple[str | None, bool, dict[str, Any] | None] | None = None
        last_sent = 0.0
        retry_at = 0.0
        try:
            while True:
                now = self.clock()
                look = (self.feed.text, self.feed.alive.running, self.feed.refused)
                if look != seen or now - last_sent >= REFRESH:
                    seen = look
                    self.take(now)
                if self.pending is not None and now >= retry_at:
                    if await self.send():
                        last_sent = now
                    else:
                        retry_at = self.clock() + RETRY
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), self.poll)
                self.wake.clear()
        finally:
            verifier.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await verifier
            await self.store.close()

"""``tablectl pit``: every table of the pit on one page, live, behind the floor's login (docs/pit.md).

The server reads the pit's database at start, then ``LISTEN``s: each table's publish (web/pit/publish.py)
and each acknowledgement notifies the table's id; a refresher reads the tables notified since its last read
in one query, draws the alarms (highest priority first) and the rows of the tables that changed, once, and
hands them to every open page by server-sent events (``/events``: what a slow page has not taken yet is
merged, the newest of each part). The page puts them in place (web/static/pit.js); nothing is drawn in the
browser but what the server drew, in words (web/words.py). A table not heard from for ``publish.SILENT``
seconds is shown silent. The login, its throttle and its audit are the floor's (web/floor.py, web/auth.py).

A supervisor acknowledges an alarm with the page's button (``POST /acknowledge``): the pit's journal of
acknowledgements records who, when, which alarm of which table; the table is not told (P108).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import secrets
import signal
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from aiohttp import web

from controller.config.table import WebConfig
from web import floor, guard, keys
from web.app import STATIC, security_headers, words_json
from web.audit import Audit, LoginThrottle, audit_dir
from web.auth import Sessions, Users
from web.pit.config import PitConfig
from web.pit.publish import SILENT
from web.pit.store import Acknowledgement, PitStore
from web.words import local_time, money, say

e = html.escape
ORDER = ("high", "medium", "low")
RETRY = 1.0  # seconds between two tries to listen again when the database is away


class _Subscriber:
    """One open page's changes not yet sent, merged: the newest alarms and counts, every row changed since
    (a slow page gets the pit as it is now in one message, not a backlog)."""

    def __init__(self) -> None:
        self.pending: dict[str, Any] = {}
        self.ready = asyncio.Event()

    def put(self, message: dict[str, Any]) -> None:
        rows = {**self.pending.get("rows", {}), **message.get("rows", {})}
        if "tables_html" in message:
            rows = {}  # the whole table is in the message
        keep = {"tables_html": self.pending["tables_html"]} if "tables_html" in self.pending else {}
        self.pending = {**keep, **message, "rows": rows}
        self.ready.set()

    def take(self) -> dict[str, Any]:
        self.ready.clear()
        taken, self.pending = self.pending, {}
        return taken


@dataclass
class Pit:
    """What the server knows of the pit, and the page's parts drawn from it."""

    store: PitStore
    tables: dict[str, tuple[dict[str, Any], datetime]] = field(default_factory=dict)
    acks: dict[tuple[str, str], Acknowledgement] = field(default_factory=dict)
    database: bool = False  # whether the last read of the database succeeded
    version: int = 0
    drawn: dict[str, Any] = field(default_factory=dict)  # the page's parts now (the whole of it)
    rows: dict[str, str] = field(default_factory=dict)  # each table's row, drawn
    subscribers: set[_Subscriber] = field(default_factory=set)
    dirty: set[str] = field(default_factory=set)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    silent: frozenset[str] = frozenset()
    boot: str = field(default_factory=lambda: secrets.token_hex(4))  # this server's start: a version is its own

    def drawn_at(self) -> str:
        """The page's version as a page keeps it (``data-drawn``): this server's start and its version."""
        return f"{self.boot}.{self.drawn.get('version', 0)}"

    # ------------------------------------------------------------------ reading

    async def load(self, only: set[str] | None = None) -> None:
        tables = await self.store.tables(only)
        acks = await self.store.acknowledgements(only)
        if only is None:
            self.tables, self.acks = tables, acks
        else:
            self.tables.update(tables)
            self.acks = {k: a for k, a in self.acks.items() if k[0] not in only} | acks
        self.database = True

    def silent_now(self) -> frozenset[str]:
        now = time.time()
        return frozenset(t for t, (_, received) in self.tables.items() if now - received.timestamp() > SILENT)

    async def changed(self, table: str) -> None:
        self.dirty.add(table)
        self.wake.set()

    async def listen(self, ready: asyncio.Event) -> None:
        """Listen for changes; when the database is away, say so and try again; back, read everything."""
        while True:
            try:
                await self.store.open()
                await self.load()
                self.draw()
                await self.store.listen(self.changed, ready.set)
            except Exception:  # psycopg's errors, a pool's timeout, a cut connection: the database is away
                if self.database:
                    self.database = False
                    self.draw()
                self.store.abandon()
                ready.set()
                await asyncio.sleep(RETRY)

    async def refresh(self) -> None:
        """Read the tables changed since the last read and draw the page again; each second, who fell silent."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), 1.0)
            self.wake.clear()
            dirty, self.dirty = self.dirty, set()
            if dirty:
                try:
                    await self.load(dirty)
                except Exception:  # the database away: the listener finds it and reads everything again
                    self.dirty |= dirty
                    continue
            if dirty or self.silent_now() != self.silent:
                self.draw(dirty)

    # ------------------------------------------------------------------ drawing

    def alarms(self) -> list[tuple[str, dict[str, Any]]]:
        out = [(t, a) for t, (s, _) in self.tables.items() for a in s.get("alarms") or []]
        return sorted(out, key=lambda x: (ORDER.index(x[1].get("priority")) if x[1].get("priority") in ORDER
                                          else len(ORDER), x[1].get("since") or 0, x[0]))

    def draw(self, changed: set[str] | None = None) -> None:
        """Draw the alarms and the rows of the tables ``changed`` (None: every row) and send them to every page;
        a table that fell silent or spoke again is drawn too, and a new table draws the whole table."""
        silent = self.silent_now()
        changed = set(self.tables) if changed is None else changed | (silent ^ self.silent)
        self.silent = silent
        whole = set(self.tables) != set(self.rows)
        if whole:
            changed = set(self.tables)
            self.rows = {t: r for t, r in self.rows.items() if t in self.tables}
        for t in changed & set(self.tables):
            self.rows[t] = self._row(t)
        self.version += 1
        alarms = self.alarms()
        message: dict[str, Any] = {"version": self.version, "tables": len(self.tables), "alarms": len(alarms),
                                   "database": self.database, "alarms_html": self._alarms_html(alarms)}
        self.drawn = {**message, "tables_html": self._tables_html()}
        message.update({"tables_html": self.drawn["tables_html"]} if whole else
                       {"rows": {t: self.rows[t] for t in changed if t in self.rows}})
        for sub in self.subscribers:
            sub.put(message)

    def _table_link(self, table: str) -> str:
        url = (self.tables[table][0].get("floor_url") or "") if table in self.tables else ""
        return f'<a href="{e(url)}">{e(table)}</a>' if url else e(table)

    def _alarms_html(self, alarms: list[tuple[str, dict[str, Any]]]) -> str:
        if not alarms:
            return '<p class="muted" id="no-alarms">No alarm at any table.</p>'
        rows = []
        for table, a in alarms:
            ack = self.acks.get((table, a["id"]))
            at_table = a.get("acknowledged") or {}
            said = []
            if ack:
                said.append(f"by {e(ack.by)} at the pit, {e(local_time(ack.at.timestamp()))}")
            if at_table:
                said.append(f"at the table by supervisor {e(str(at_table.get('by')))}")
            button = "" if ack else (
                '<form method="post" action="/acknowledge" class="ack">'
                f'<input type="hidden" name="table" value="{e(table)}">'
                f'<input type="hidden" name="alarm" value="{e(a["id"])}"><button>Acknowledge</button></form>')
            where = " ".join(x for x in (f"seat {a['seat']}" if a.get("seat") else "",
                                         say(a.get("device"), "device") if a.get("device") else "") if x)
            rows.append(
                f'<tr data-table="{e(table)}" data-alarm="{e(a["id"])}" data-priority="{e(str(a.get("priority")))}"'
                f' data-kind="{e(str(a.get("kind")))}" data-acknowledged-by="{e(ack.by) if ack else ""}"'
                f' data-acknowledged-at-table="{"yes" if at_table else "no"}">'
                f'<td class="prio {e(str(a.get("priority")))}">{e(say(a.get("priority"), "priority"))}</td>'
                f"<td>{self._table_link(table)}</td><td>{e(say(a.get('kind'), 'alarm'))}</td><td>{e(where)}</td>"
                f"<td>{e(local_time(a['since'])) if a.get('since') else ''}</td>"
                f"<td>{'; '.join(said) or 'not yet'}</td><td>{button}</td></tr>")
        return ('<table class="pit-alarms"><tr><th>Priority</th><th>Table</th><th>Alarm</th><th>Where</th>'
                "<th>Since</th><th>Acknowledged</th><th></th></tr>" + "".join(rows) + "</table>")

    def _tables_html(self) -> str:
        if not self.tables:
            return '<p class="muted">No table has published to the pit yet.</p>'
        rows = [self.rows[t] for t in sorted(self.tables)]
        return ('<table class="pit-tables"><tr><th>Table</th><th>Game</th><th>State</th><th>Round</th>'
                "<th>Hands per hour</th><th>Held jackpots</th><th>Faults</th><th>Meters</th><th>Journal</th>"
                "<th>Running</th></tr>" + "".join(rows) + "</table>")

    def _row(self, table: str) -> str:
        s, received = self.tables[table]
        r = s.get("round") or {}
        silent = table in self.silent
        held = s.get("held") or []
        faults = s.get("faults") or {}
        v = s.get("verification")
        verified = "unknown" if v is None else "yes" if v.get("ok") else "no"
        running = "silent" if silent else "yes" if s.get("running") else "no"
        if silent:
            run_text = f'<span class="bad">Not heard from since {e(local_time(received.timestamp()))}</span>'
        elif s.get("running"):
            run_text = '<span class="ok">Running</span>'
        else:
            run_text = '<span class="bad">NOT RUNNING</span>'
        hands = str(s.get("hands_per_hour", 0))
        if s.get("hands_since"):
            hands += f' <span class="muted">(since {e(local_time(s["hands_since"]))})</span>'
        held_text = "; ".join(f"seat {h.get('seat')} {e(say(h.get('line')))} {e(money(h.get('amount')))}"
                              for h in held) or "none"
        if s.get("link_pending"):
            held_text += f"; {s['link_pending']} at other linked tables"
        fault_text = ", ".join(f"{e(say(d, 'device'))} {e(say(h))}" for d, h in faults.items())
        fault_text = "; ".join(x for x in (fault_text, "irregularity" if s.get("irregularity") else "",
                                           "out of order: " + ", ".join(e(say(d, "device"))
                                                                       for d in s.get("out_of_order") or [])
                                           if s.get("out_of_order") else "") if x) or "none"
        meters = "<br>".join(f"{e(say(m))} {e(money(val))}" for m, val in (s.get("meters") or {}).items())
        if v is None:
            journal = '<span class="muted">not checked yet</span>'
        elif v.get("ok"):
            journal = f'<span class="ok">Verified</span> {e(str(v.get("events")))} events'
        else:
            journal = f'<span class="bad">NOT VERIFIED</span> {e(str(v.get("problem") or ""))}'
        return (
            f'<tr data-table="{e(table)}" data-state="{e(str(s.get("state")))}"'
            f' data-round="{e(str(r.get("round_id") or ""))}" data-phase="{e(str(r.get("phase") or ""))}"'
            f' data-running="{running}" data-hands="{e(str(s.get("hands_per_hour", 0)))}"'
            f' data-held="{len(held)}" data-faults="{len(faults)}" data-verified="{verified}"'
            f' data-alarms="{len(s.get("alarms") or [])}" data-updated="{e(str(s.get("updated") or ""))}">'
            f"<td>{self._table_link(table)}</td><td>{e(say(s.get('game')))}</td><td>{e(say(s.get('state')))}</td>"
            f"<td>{e(str(r.get('round_id') or '-'))} {e(say(r.get('phase')))}</td><td class=num>{hands}</td>"
            f"<td>{held_text}</td><td>{fault_text}</td><td class=num>{meters}</td><td>{journal}</td>"
            f"<td>{run_text}</td></tr>")


PIT = web.AppKey("pit", Pit)


def _page(request: web.Request, body: str) -> web.Response:
    login = request[keys.LOGIN]
    text = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The pit</title>'
        '<link rel="stylesheet" href="/static/style.css"><link rel="stylesheet" href="/static/pit.css">'
        # the login's form token (web/guard.py): pit.js adds it to the acknowledgements' forms, drawn for every
        # page alike (server-sent rows), as they are posted
        f'<meta name="csrf-token" content="{e(login.csrf)}">'
        '<script src="/static/pit.js" defer></script></head><body class="floor pit">'
        '<div id="pit-banner" role="alert" hidden></div>'
        f'<nav><strong>The pit</strong><span>{e(login.user)} ({e(login.role)})</span>'
        f'<form class="logout" method="post" action="/logout">{guard.csrf_field(request)}'
        '<button>Log out</button></form></nav>'
        f'<div class="page">{body}</div></body></html>')
    return web.Response(text=text, content_type="text/html", headers={"Cache-Control": "no-store"})


async def index(request: web.Request) -> web.Response:
    pit = request.app[PIT]
    d = pit.drawn
    body = (f'<h1>Alarms</h1><div id="alarms" data-count="{d.get("alarms", 0)}">{d.get("alarms_html", "")}</div>'
            f'<h1>Tables</h1><div id="tables" data-count="{d.get("tables", 0)}" data-drawn="{pit.drawn_at()}">'
            f'{d.get("tables_html", "")}</div>')
    resp = _page(request, body)
    resp.headers["X-Pit-Version"] = str(d.get("version", 0))
    return resp


async def events(request: web.Request) -> web.StreamResponse:
    """``GET /events``: ``event: pit`` with the page's parts, now and at every change (the newest only)."""
    pit = request.app[PIT]
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                       "X-Accel-Buffering": "no"})
    await resp.prepare(request)
    sub = _Subscriber()
    if pit.drawn:
        # a page drawn at this version (its ``data-drawn``) is not sent its whole self again, the counts only:
        # redrawing every row just after the page loaded added to its first frame's work (bench pit.page_load)
        same = request.query.get("drawn") == pit.drawn_at()
        sub.put({k: v for k, v in pit.drawn.items() if k not in ("tables_html", "alarms_html")} if same else pit.drawn)
    pit.subscribers.add(sub)
    try:
        while True:
            try:
                await asyncio.wait_for(sub.ready.wait(), 15.0)
            except TimeoutError:
                await resp.write(b": still here\n\n")  # keeps an idle stream open through proxies
                continue
            await resp.write(b"event: pit\ndata: " + json.dumps(sub.take()).encode() + b"\n\n")
    except (ConnectionResetError, asyncio.CancelledError):
        return resp
    finally:
        pit.subscribers.discard(sub)


async def pit_json(request: web.Request) -> web.Response:
    """``GET /pit.json``: every table's summary and the acknowledgements, as data."""
    pit = request.app[PIT]
    silent = pit.silent_now()
    return web.json_response({
        "database": pit.database, "version": pit.version,
        "tables": {t: {"summary": s, "received": r.timestamp(), "silent": t in silent}
                   for t, (s, r) in pit.tables.items()},
        "acknowledgements": [{"table": a.table_id, "alarm": a.alarm_id, "by": a.by, "at": a.at.timestamp()}
                             for a in pit.acks.values()]}, headers={"Cache-Control": "no-store"})


async def acknowledge(request: web.Request) -> web.Response:
    """``POST /acknowledge`` (table, alarm): a supervisor acknowledges an open alarm at the pit (P108)."""
    login = request[keys.LOGIN]
    if login.role != "supervisor":
        raise web.HTTPForbidden(text="Only a supervisor acknowledges alarms.")
    form = await request.post()
    table, alarm = str(form.get("table", "")), str(form.get("alarm", ""))
    pit = request.app[PIT]
    summary = pit.tables.get(table, ({}, None))[0]
    if not any(a.get("id") == alarm for a in summary.get("alarms") or []):
        raise web.HTTPNotFound(text="No such alarm open at that table.")
    try:
        ack = await pit.store.acknowledge(table, alarm, login.user)
    except Exception:
        raise web.HTTPServiceUnavailable(text="The pit's database does not answer: try again.") from None
    pit.acks[(table, alarm)] = ack
    pit.draw(set())
    raise web.HTTPSeeOther("/")


def pit_app(cfg: PitConfig, pit: Pit, audit: Audit) -> web.Application:
    # the floor's login, routes and tokens (web/guard.py: the pit's routes are declared there too)
    app = web.Application(middlewares=[security_headers, guard.guard], client_max_size=64 * 1024)
    app[PIT] = pit
    app[keys.WEB] = WebConfig(users=cfg.users, session_minutes=cfg.session_minutes)  # the floor's defaults
    app[keys.TABLE] = "The pit"  # the login page's heading (web/floor.py)
    app[keys.AUDIT] = audit
    app[keys.THROTTLE] = LoginThrottle()
    app[keys.USERS] = Users(cfg.users)
    app[keys.SESSIONS] = Sessions(cfg.session_minutes)
    app.router.add_get("/login", floor.login_page)
    app.router.add_post("/login", floor.login_post)
    app.router.add_post("/logout", floor.logout)
    app.router.add_get("/", index, name="pit")  # its view logged as the pit's (web/guard.py VIEWS)
    app.router.add_get("/events", events)
    app.router.add_get("/pit.json", pit_json)
    app.router.add_post("/acknowledge", acknowledge)
    app.router.add_get("/words.json", words_json)
    app.router.add_static("/static/", STATIC)
    return app


async def serve(cfg: PitConfig, out: TextIO = sys.stdout) -> None:
    """Serve the pit until SIGINT or SIGTERM; prints ``{"pit": URL}`` once listening."""
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    audit = Audit(audit_dir(Path(cfg.state_dir) / "pit.journal"))
    pit = Pit(PitStore(cfg.database, pool_size=3))
    ready = asyncio.Event()
    tasks = [asyncio.create_task(pit.listen(ready)), asyncio.create_task(pit.refresh())]
    runner = web.AppRunner(pit_app(cfg, pit, audit), access_log=None, shutdown_timeout=1.0)
    try:
        await ready.wait()
        await runner.setup()
        await web.TCPSite(runner, cfg.host, cfg.port).start()
        host, port = runner.addresses[-1][:2]
        out.write(json.dumps({"pit": f"http://{host}:{port}/"}) + "\n")
        out.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
        await runner.cleanup()
        await pit.store.close()
        audit.close()

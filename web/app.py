"""The two web applications of ``tablectl web`` and how they are served.

* the dealer's screen (``dealer_host:dealer_port``, this machine by default): ``/`` the page, ``/events``
  the daemon's public status and liveness as server-sent events, ``/status.json`` the same once (the status
  with ``liveness``), ``/liveness`` and ``/liveness.json`` the liveness alone (web/feed.py), ``/words.json``
  the words of every code (web/words.py, both apps); read-only.
* the floor's pages (``floor_host:floor_port``): behind a login (web/floor.py); ``/liveness`` and
  ``/liveness.json`` as the dealer's.

On start it prints one JSON line, the two addresses, e.g. ``{"dealer": "http://127.0.0.1:8700/", ...}``
(with port 0 in the configuration each gets a free port, which only this line tells).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import TextIO

from aiohttp import web

from controller.config.table import TableConfig
from controller.paths import heartbeat_file, status_file
from web import floor, keys, recall, words
from web.audit import Audit, LoginRefusalsUnrecorded, LoginThrottle, audit_dir
from web.auth import Sessions, load_users
from web.feed import StatusFeed, liveness_json

STATIC = Path(__file__).parent / "static"


async def words_json(request: web.Request) -> web.Response:
    """``/words.json``: every code's words (web/words.py), for web/static/words.js."""
    return web.Response(text=words.words_json(), content_type="application/json")
# the pages load only their own scripts and styles; nothing inline, no other origin
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


@web.middleware
async def security_headers(request: web.Request, handler: floor.Handler) -> web.StreamResponse:
    resp = await handler(request)
    resp.headers.update(HEADERS)
    return resp


def dealer_app(feed: StatusFeed) -> web.Application:
    app = web.Application(middlewares=[security_headers])

    async def index(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "dealer.html", headers={"Cache-Control": "no-store"})

    async def status(request: web.Request) -> web.Response:
        # the status as the daemon wrote it, and whether the daemon still runs (a stopped one's last status
        # is not the table now); null before the daemon's first status
        current = feed.current()
        text = json.dumps({**current, "liveness": feed.liveness().data()}) if current is not None else "null"
        return web.Response(text=text, content_type="application/json", headers={"Cache-Control": "no-store"})

    async def alive(request: web.Request) -> web.Response:
        return liveness_json(feed)

    app.router.add_get("/", index)
    app.router.add_get("/events", feed.stream)
    app.router.add_get("/status.json", status)
    app.router.add_get("/words.json", words_json)
    app.router.add_get("/liveness", feed.liveness_stream)
    app.router.add_get("/liveness.json", alive)
    app.router.add_static("/static/", STATIC)
    return app


def floor_app(cfg: TableConfig, feed: StatusFeed, audit: Audit, throttle: LoginThrottle | None = None
              ) -> web.Application:
    app = web.Application(middlewares=[security_headers, floor.require_login])
    app[keys.TABLE] = f"{cfg.id} · {cfg.name}"
    app[keys.FEED] = feed
    app[keys.AUDIT] = audit
    app[keys.THROTTLE] = throttle if throttle is not None else LoginThrottle()
    app[keys.JOURNAL_PATH] = Path(cfg.journal)
    app[keys.METER_NAMES] = list(cfg.progressive.meters)
    app[keys.PROGRESSIVE] = cfg.progressive  # a linked table's page reads the link's meters (floor.progressive)
    app[keys.USERS] = load_users(cfg.web.users)
    app[keys.SESSIONS] = Sessions(cfg.web.session_minutes)
    app[recall.PROCEDURE] = str(cfg.dealing.procedure)  # said on a round's page (web/recall.py)
    floor.routes(app)
    app.router.add_get("/words.json", words_json)
    app.router.add_static("/static/", STATIC)
    return app


async def serve(cfg: TableConfig, out: TextIO = sys.stdout) -> None:
    feed = StatusFeed(status_file(cfg.journal), heartbeat_file(cfg.journal))
    audit = Audit(audit_dir(Path(cfg.journal)))
    throttle = LoginThrottle()
    runners, urls = [], {}
    try:
        for name, app, host, port in (
            ("dealer", dealer_app(feed), cfg.web.dealer_host, cfg.web.dealer_port),
            ("floor", floor_app(cfg, feed, audit, throttle), cfg.web.floor_host, cfg.web.floor_port),
        ):
            runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
            await runner.setup()
            site = web.TCPSite(runner, host, port)
            await site.start()
            runners.append(runner)
            host_bound, port_bound = runner.addresses[-1][:2]  # the port actually bound (0: a free one)
            urls[name] = f"http://{host_bound}:{port_bound}/"
        out.write(json.dumps(urls) + "\n")
        out.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        watcher = asyncio.create_task(feed.run())
        await stop.wait()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    finally:
        for runner in runners:
            await runner.cleanup()
        if left_out := throttle.take_unrecorded():  # refusals over the cap in the last window, counted
            audit.record(LoginRefusalsUnrecorded(count=left_out), "-")
        audit.close()

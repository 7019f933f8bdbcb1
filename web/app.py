"""The two web applications of ``tablectl web`` and how they are served.

* the dealer's screen (``dealer_host:dealer_port``, this machine by default): ``/`` the page, ``/events``
  the daemon's public status and liveness as server-sent events, ``/status.json`` the same once (the status
  with ``liveness``), ``/liveness`` and ``/liveness.json`` the liveness alone (web/feed.py), ``/words.json``
  the words of every code (web/words.py, both apps); read-only.
* the floor's pages (``floor_host:floor_port``): behind a login (web/floor.py); ``/liveness`` and
  ``/liveness.json`` as the dealer's.
* with ``[web] pit`` (a database URL): the table's summary published to the pit (web/pit/publish.py).

On start it prints one JSON line, the two addresses, e.g. ``{"dealer": "http://127.0.0.1:8700/", ...}``
(with port 0 in the configuration each gets a free port, which only this line tells).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import ssl
import sys
from pathlib import Path
from typing import Any, TextIO

from aiohttp import web

from controller.config.table import TableConfig
from controller.paths import heartbeat_file, status_file
from web import accounts, floor, guard, keys, recall, technician, words
from web.audit import KEEP_FILES, AccountUnlocked, Audit, LoginRefusalsUnrecorded, LoginThrottle, audit_dir
from web.auth import Sessions, Users
from web.feed import StatusFeed, liveness_json
from web.verified import JournalCheck

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
    if request.secure:  # served over TLS: the browser keeps to it
        resp.headers["Strict-Transport-Security"] = "max-age=31536000"
    return resp


def dealer_app(feed: StatusFeed) -> web.Application:
    app = web.Application(middlewares=[security_headers])

    async def index(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "dealer.html", headers={"Cache-Control": "no-store"})

    async def status(request: web.Request) -> web.Response:
        # the status as the daemon wrote it, and whether the daemon still runs (a stopped one's last status
        # is not the table now); null before the daemon's first status
        current = feed.current()
        text = json.dumps({**current, "liveness": feed.liveness_data()}) if current is not None else "null"
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


def floor_app(cfg: TableConfig, feed: StatusFeed, audit: Audit, throttle: LoginThrottle | None = None,
              config: Path | None = None) -> web.Application:
    # the login, the roles' routes and the forms' tokens (web/guard.py); the journal verified before a page
    # (floor.journal_guard); bodies no bigger than a form needs
    app = web.Application(middlewares=[security_headers, guard.guard, floor.journal_guard],
                          client_max_size=cfg.web.max_body_kb * 1024)
    app[keys.WEB] = cfg.web
    app[keys.PROTECTION] = cfg.protection
    app[keys.TABLE] = f"{cfg.id} · {cfg.name}"
    app[keys.FEED] = feed
    app[keys.AUDIT] = audit
    app[keys.THROTTLE] = throttle if throttle is not None else LoginThrottle()
    app[keys.JOURNAL_PATH] = Path(cfg.journal)
    app[keys.METER_NAMES] = list(cfg.progressive.meters)
    app[keys.PROGRESSIVE] = cfg.progressive  # a linked table's page reads the link's meters (floor.progressive)
    app[keys.USERS] = Users(cfg.web.users, on_unlocked=lambda name: audit.record(AccountUnlocked(account=name),
                                                                                 "tablectl"))
    app[keys.SESSIONS] = Sessions(cfg.web.session_minutes)
    app[keys.CHECK] = JournalCheck(Path(cfg.journal), cfg.id, cfg.game, cfg.journal_options.archive_dir)
    app[recall.PROCEDURE] = str(cfg.dealing.procedure)  # said on a round's page (web/recall.py)
    app[technician.LOADED] = technician.loaded(cfg, config)  # the file and its digest now (the technician's page)
    floor.routes(app)
    accounts.routes(app)
    app.router.add_get("/words.json", words_json)
    app.router.add_static("/static/", STATIC)
    return app


def runner_options(cfg: TableConfig) -> dict[str, Any]:
    """How both applications are served: ``keepalive_timeout`` also closes a connection that has not sent a whole
    request head in that time (aiohttp's RequestHandler arms it from the connection's start): slow headers are cut
    off after ``[web] header_seconds``, and an idle kept-alive connection as well."""
    return {"access_log": None, "shutdown_timeout": 1.0, "keepalive_timeout": cfg.web.header_seconds}


async def serve(cfg: TableConfig, out: TextIO = sys.stdout, config: Path | None = None) -> None:
    feed = StatusFeed(status_file(cfg.journal), heartbeat_file(cfg.journal), Path(cfg.journal), cfg.id)
    # the access log within its cap on the disk, in KEEP_FILES files, kept at least audit_keep_days (P107)
    audit = Audit(audit_dir(Path(cfg.journal)), max_bytes=cfg.web.audit_max_mb * 2**20 // KEEP_FILES,
                  keep=KEEP_FILES, keep_days=cfg.web.audit_keep_days)
    throttle = LoginThrottle()
    tls = None
    if cfg.web.tls_cert is not None and cfg.web.tls_key is not None:  # the floor's pages over TLS
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(cfg.web.tls_cert, cfg.web.tls_key)
    runners, urls = [], {}
    try:
        for name, app, host, port, context in (
            ("dealer", dealer_app(feed), cfg.web.dealer_host, cfg.web.dealer_port, None),
            ("floor", floor_app(cfg, feed, audit, throttle, config), cfg.web.floor_host, cfg.web.floor_port, tls),
        ):
            runner = web.AppRunner(app, **runner_options(cfg))
            await runner.setup()
            site = web.TCPSite(runner, host, port, ssl_context=context)
            await site.start()
            runners.append(runner)
            host_bound, port_bound = runner.addresses[-1][:2]  # the port actually bound (0: a free one)
            urls[name] = f"{'https' if context else 'http'}://{host_bound}:{port_bound}/"
        out.write(json.dumps(urls) + "\n")
        out.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        watchers = [asyncio.create_task(feed.run())]
        if cfg.web.pit is not None:  # the table's summary to the pit (web/pit/publish.py, docs/pit.md)
            from web.pit.publish import Publisher
            from web.pit.store import PitStore

            watchers.append(asyncio.create_task(Publisher(
                PitStore(cfg.web.pit), cfg.id, feed, floor_url=cfg.web.floor_url or urls["floor"],
                journal=Path(cfg.journal)).run()))
        await stop.wait()
        for watcher in watchers:
            watcher.cancel()
        for watcher in watchers:
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
    finally:
        for runner in runners:
            await runner.cleanup()
        if left_out := throttle.take_unrecorded():  # refusals over the cap in the last window, counted
            audit.record(LoginRefusalsUnrecorded(count=left_out), "-")
        audit.close()

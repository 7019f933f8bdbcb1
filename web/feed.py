"""The daemon's public state and its liveness, watched and pushed to every open page by server-sent events.

The daemon replaces its status file (``<journal>.status.json``, ``controller.paths.status_file``)
atomically at every change (``TableDaemon._publish``); a ``stat`` every few milliseconds sees the
new file, and each subscriber gets the new text.  Nothing is added to it and nothing taken out: the
status is the public view by construction (``RoundController.public_view``), and the secrets test
(tests/test_web_secrets.py) checks every response and event stream of a round against the
round's hidden cards.  The same look ``stat``s the daemon's heartbeat (controller/liveness.py): a stream
sends ``event: liveness`` ``{"running": bool, "heartbeat": epoch or null}`` when ``running`` changes and
at least every ``LIVENESS_EVERY``, a tick the page times (web/static/liveness.js: "do not deal" when it stops).
Not running, with a refusal kept beside the journal (``controller.program.refusal_file``: a program that did
not verify, P115, or did not import, P122), it also has ``start_refused`` (``program.refused_view``: when, the
cause, the action, in codes and words; no path, no problem's text), sent again when that changes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from controller import liveness, program
from controller.liveness import Liveness

log = logging.getLogger(__name__)
POLL = 0.01  # seconds between two looks at the status file: a stat, nothing read unless it changed
LIVENESS_EVERY = 1.0  # an `event: liveness` at least this often (it also keeps an idle stream open)
STATUS, LIVENESS = "status", "liveness"  # the events a stream sends


class _Subscriber:
    """One open stream's events not yet sent: the newest of each kind (a slow page gets the newest state, not
    a backlog)."""

    def __init__(self, kinds: tuple[str, ...]) -> None:
        self.kinds = kinds
        self.pending: dict[str, str] = {}
        self.ready = asyncio.Event()

    def put(self, event: str, data: str) -> None:
        if event in self.kinds:
            self.pending[event] = data
            self.ready.set()

    async def take(self, timeout: float) -> dict[str, str]:
        try:
            await asyncio.wait_for(self.ready.wait(), timeout)
        except TimeoutError:
            pass
        self.ready.clear()
        taken, self.pending = self.pending, {}
        return taken


class StatusFeed:
    def __init__(self, path: Path, heartbeat: Path | None = None, journal: Path | None = None,
                 table: str | None = None) -> None:
        self.path = path
        self.heartbeat = heartbeat  # the daemon's heartbeat file; None: none known, never running
        self.journal = journal  # the refusal kept beside it is looked for while not running; None: none
        self.table = table  # (named in the command that clears a refusal)
        self.refused: dict[str, Any] | None = None  # ``start_refused`` as the last look found it
        self._refusal_seen: tuple[int, int, int] | None = None
        self.text: str | None = None  # the last complete status, as the daemon wrote it
        self.alive = Liveness(False, None)  # as the last look found it
        self._seen: tuple[int, int, int] | None = None
        self._subscribers: set[_Subscriber] = set()

    def current(self) -> dict[str, Any] | None:
        return json.loads(self.text) if self.text else None

    def liveness(self) -> Liveness:
        """The daemon's liveness now (a look at its heartbeat)."""
        self.look_alive()
        return self.alive

    def liveness_data(self) -> dict[str, Any]:
        """The liveness as the pages get it: ``{"running", "heartbeat"}``, and ``start_refused`` when there is one."""
        self.look_alive()
        return self._data()

    def _data(self) -> dict[str, Any]:
        data = self.alive.data()
        if self.refused is not None:
            data["start_refused"] = self.refused
        return data

    def look_alive(self) -> bool:
        """Read the heartbeat's age (and, not running, the refusal kept); True when ``running`` or the refusal
        changed (every stream is sent it)."""
        now = liveness.read(self.heartbeat) if self.heartbeat is not None else Liveness(False, None)
        changed = now.running != self.alive.running
        self.alive = now
        refused = None if now.running else self._refusal()
        changed = changed or refused != self.refused
        self.refused = refused
        if changed:
            self._send(LIVENESS, json.dumps(self._data()))
        return changed

    def _refusal(self) -> dict[str, Any] | None:
        """The refusal kept beside the journal, in the screens' view: read again only when its file changed (a
        ``stat`` at each look).  A file that does not read, or cannot even be looked at, is a refusal (fail
        closed, as ``program.read_refusal``)."""
        if self.journal is None:
            return None
        path = program.refusal_file(self.journal)
        try:
            st = path.stat()
        except FileNotFoundError:
            self._refusal_seen = None
            return None
        except OSError:  # dated when first seen (the same view at every look: nothing sent again)
            self._refusal_seen = None
            if self.refused is not None and self.refused["cause"] == "unreadable":
                return self.refused
            return program.refused_view({"problems": [program.UNREADABLE]}, time.time(), self.table)
        seen = (st.st_ino, st.st_mtime_ns, st.st_size)
        if seen == self._refusal_seen and self.refused is not None:
            return self.refused
        kept = program.read_refusal(self.journal) or {"problems": [program.UNREADABLE]}  # (gone since the stat)
        self._refusal_seen = seen
        return program.refused_view(kept, st.st_mtime, self.table)

    def look(self) -> bool:
        """Read the status file if it changed, and the heartbeat; True when there is a new status."""
        self.look_alive()
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return False
        seen = (st.st_ino, st.st_mtime_ns, st.st_size)
        if seen == self._seen:
            return False
        try:
            text = self.path.read_text()
            json.loads(text)
        except (OSError, ValueError):
            return False  # replaced under us: the next look reads the new one
        self._seen = seen
        if text == self.text:
            return False
        self.text = text
        self._send(STATUS, text.replace("\n", ""))
        return True

    def _send(self, event: str, data: str) -> None:
        for sub in self._subscribers:
            sub.put(event, data)

    async def run(self) -> None:
        while True:
            self.look()
            await asyncio.sleep(POLL)

    async def stream(self, request: web.Request) -> web.StreamResponse:
        """``GET /events``: ``event: status`` with the status JSON, now and at every change; ``event: liveness``
        (the module's docstring)."""
        return await self._stream(request, (LIVENESS, STATUS))

    async def liveness_stream(self, request: web.Request) -> web.StreamResponse:
        """``GET /liveness``: ``event: liveness`` only, for a page that shows no status (the floor's)."""
        return await self._stream(request, (LIVENESS,))

    async def _stream(self, request: web.Request, kinds: tuple[str, ...]) -> web.StreamResponse:
        resp = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )
        await resp.prepare(request)
        sub = _Subscriber(kinds)
        sub.put(LIVENESS, json.dumps(self.liveness_data()))
        if self.text is not None:
            sub.put(STATUS, self.text.replace("\n", ""))
        self._subscribers.add(sub)
        loop = asyncio.get_running_loop()
        tick = loop.time()  # the first liveness is due now (it is pending)
        try:
            while True:
                events = await sub.take(max(0.0, tick - loop.time()))
                if loop.time() >= tick and LIVENESS not in events:
                    events[LIVENESS] = json.dumps(self.liveness_data())  # the tick
                if LIVENESS in events:
                    tick = loop.time() + LIVENESS_EVERY
                for event in (LIVENESS, STATUS):  # liveness first: the page knows whether what follows is live
                    if event in events:
                        await resp.write(f"event: {event}\ndata: ".encode() + events[event].encode() + b"\n\n")
        except ConnectionResetError:  # the page went away (closed, reloaded): an everyday event, no traceback
            log.debug("event stream to %s closed by the client", request.remote)
            return resp
        finally:
            self._subscribers.discard(sub)


def liveness_json(feed: StatusFeed) -> web.Response:
    """``GET /liveness.json``: ``{"running": bool, "heartbeat": epoch or null}`` (and ``start_refused``), now."""
    return web.json_response(feed.liveness_data(), headers={"Cache-Control": "no-store"})

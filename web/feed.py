"""The daemon's public state, watched and pushed to every open page by server-sent events.

The daemon replaces its status file (``<journal>.status.json``, ``controller.paths.status_file``)
atomically at every change (``TableDaemon._publish``); a ``stat`` every few milliseconds sees the
new file, and each subscriber gets the new text.  Nothing is added to it and nothing taken out: the
status is the public view by construction (``RoundController.public_view``), and the secrets test
(tests/test_web_secrets.py) checks every response and event stream of a round against the
round's hidden cards.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from aiohttp import web

POLL = 0.01  # seconds between two looks at the status file: a stat, nothing read unless it changed
HEARTBEAT = 15.0  # an SSE comment this often keeps proxies and the browser from closing an idle stream


class StatusFeed:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.text: str | None = None  # the last complete status, as the daemon wrote it
        self._seen: tuple[int, int, int] | None = None
        self._subscribers: set[asyncio.Queue[str]] = set()

    def current(self) -> dict[str, Any] | None:
        return json.loads(self.text) if self.text else None

    def look(self) -> bool:
        """Read the file if it changed; True when there is a new status."""
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
        for q in self._subscribers:
            if q.full():
                q.get_nowait()  # a slow page gets the newest state, not a backlog
            q.put_nowait(text)
        return True

    async def run(self) -> None:
        while True:
            self.look()
            await asyncio.sleep(POLL)

    def subscribe(self) -> asyncio.Queue[str]:
        q: asyncio.Queue[str] = asyncio.Queue(maxsize=1)
        if self.text is not None:
            q.put_nowait(self.text)
        self._subscribers.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[str]) -> None:
        self._subscribers.discard(q)

    async def stream(self, request: web.Request) -> web.StreamResponse:
        """``GET /events``: ``event: status`` with the status JSON, now and at every change."""
        resp = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )
        await resp.prepare(request)
        q = self.subscribe()
        try:
            while True:
                try:
                    text = await asyncio.wait_for(q.get(), HEARTBEAT)
                except TimeoutError:
                    await resp.write(b": keep-alive\n\n")
                    continue
                await resp.write(b"event: status\ndata: " + text.replace("\n", "").encode() + b"\n\n")
        finally:
            self.unsubscribe(q)

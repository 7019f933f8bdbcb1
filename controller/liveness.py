"""Whether the table's daemon runs: its heartbeat file, touched from its event loop, and read by its age.

The daemon touches ``<journal>.heartbeat`` (``controller.paths.heartbeat_file``) every ``BEAT_S`` from its
event loop -- a ``utime``, no data written, the status not rewritten -- and deletes it when it stops.  A
heartbeat older than ``STALE_S`` (a daemon killed, crashed, frozen by SIGSTOP, its loop blocked) or none at
all reads as not running: the dealer's screen and the floor's pages say "do not deal" within 3 s of the
last beat (web/feed.py, web/static/liveness.js), and ``tablectl status`` says "not running".  The beat is
in the loop, not in a thread, so that a loop that no longer runs stops it.  Why these numbers and what a
failed touch does: docs/reliability.md (the daemon's heartbeat).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BEAT_S = 0.5  # the daemon touches its heartbeat this often
# older than this: not running.  Four beats: a loop late by 1.5 s (a slow press, a busy machine) is not taken
# for a stopped daemon, and the screens still turn within 3 s of the last beat (the web polls every 10 ms)
STALE_S = 2.0


@dataclass(frozen=True)
class Liveness:
    running: bool
    heartbeat: float | None  # the last beat (seconds since the epoch), None when there is no heartbeat file

    def data(self) -> dict[str, Any]:
        """As the web service sends it: ``{"running": bool, "heartbeat": epoch or None}``."""
        return {"running": self.running, "heartbeat": self.heartbeat}


def read(path: Path, now: float | None = None) -> Liveness:
    """The daemon's liveness by its heartbeat file ``path``: running when it was touched within ``STALE_S``
    (either way: a clock set back by more than that is not a beat)."""
    try:
        beat = path.stat().st_mtime
    except OSError:
        return Liveness(False, None)
    age = (time.time() if now is None else now) - beat
    return Liveness(abs(age) <= STALE_S, beat)


def beat(path: Path) -> None:
    """One heartbeat: ``path``'s time set to now, the file made when it is missing; raises OSError."""
    try:
        os.utime(path)
    except FileNotFoundError:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


def stopped(path: Path) -> None:
    """The daemon stops: its heartbeat deleted (the screens say so at once, not after ``STALE_S``)."""
    with contextlib.suppress(OSError):
        path.unlink()

"""Storage faults: a write the disk refuses halts the round, never the daemon (P97, P104).

Owns what the table knows of its storage: why the journal cannot be written now (``fault``, its ``cause``
as a code: ``disk_full``, ``io_error``, ``read_only``, ``storage_error``), why the status file could not be
written (``status_fault``) or the heartbeat touched (``heartbeat_fault``, controller/liveness.py), and the
reserve: a file of ``[journal_options] reserve_mb`` beside the journal (``<journal>.reserve``), made at start
and deleted when the disk is first found full, so that the round in progress can finish and the halt be
journaled; no new round opens until it can be made again (P104).

The daemon refuses every press while a write fails and tries again on each press and on a timer
(``controller.daemon``); ``Life`` asks ``room_for_a_round`` before it opens a round; the status shows
``view()``.  Nothing here raises: a storage fault is the table's condition, not the daemon's end.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from controller.journal.trust import JournalTrustError
from controller.service.session import Session

RETRY_S = 2.0  # while a write fails, the daemon tries again this often (and on every press)
_CHUNK = 1 << 20

#: the errors of a write the disk refused, by what they mean for the table (the cause's code)
#: the status's ``storage`` values in a person's words (web/words.py), qualified: ``storage.halted`` (a round
#: halts too)
WORDS: dict[str, str] = {f"storage.{k}": v for k, v in {
    "ok": "OK", "halted": "Halted: a write fails", "low": "Low: reserve given up, no new round",
    "held": "Held", "released": "Given up", "none": "None", "disk_full": "Disk full", "io_error": "Disk error",
    "read_only": "Disk read-only", "journal_untrusted": "Journal changed outside the table"}.items()} | {
    "disk_full": "Disk full", "io_error": "Disk error", "read_only": "Disk read-only", "storage_error": "Storage error",
    "journal_untrusted": "The journal was changed outside the table",
    # a refusal's cause (``TableDaemon._fault_told``): which write failed
    "journal_fault": "The journal cannot be written", "status_fault": "The status cannot be written",
    "heartbeat_fault": "The heartbeat cannot be written"}
#: what a journal write can raise that halts the table instead of ending the daemon: the disk's refusals, and a
#: chain found rewritten under the daemon (the seal or the anchor no longer holds the head, P100): fail closed,
#: told, never abrupt; that one never resumes by itself (a restart refuses the journal, naming it)
WRITE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, JournalTrustError)
_CAUSES = {errno.ENOSPC: "disk_full", errno.EDQUOT: "disk_full", errno.EIO: "io_error", errno.EROFS: "read_only"}


def cause_of(e: BaseException) -> str:
    """The cause's code of a failed write: an ``OSError`` by its errno, SQLite's by its message (SQLite
    gives no errno: ``database or disk is full``, ``disk I/O error``, ``attempt to write a readonly database``)."""
    if isinstance(e, JournalTrustError):
        return "journal_untrusted"
    if isinstance(e, OSError):
        return _CAUSES.get(e.errno or 0, "storage_error")
    text = str(e).lower()
    if isinstance(e, sqlite3.Error):
        if "full" in text:
            return "disk_full"
        if "i/o" in text:
            return "io_error"
        if "readonly" in text or "read-only" in text:
            return "read_only"
    return "storage_error"


def reserve_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".reserve")


class Storage:
    def __init__(self, s: Session) -> None:
        self.s = s
        self.reserve = reserve_path(s.journal.path)
        self.reserve_bytes = int(s.cfg.journal_options.reserve_mb * 1_000_000)
        self.reserve_held = False
        self.fault: str | None = None  # why the journal cannot be written now
        self.cause: str | None = None  # the same as a code (``cause_of``)
        self.status_fault: str | None = None  # why the status file could not be written, when it could not
        self.heartbeat_fault: str | None = None  # why the heartbeat file could not be touched, when it could not
        self.since: float | None = None  # when the fault began (wall clock)
        self.faults = 0  # storage faults met since start
        self.round_held_back = False  # a round was not opened for want of room: it opens once there is (P104)

    # ------------------------------------------------------------------ the reserve (P104)

    def hold_reserve(self) -> bool:
        """Make the reserve when it is not there: True when it is held (or none is configured).  A disk too
        full for it leaves no partial file (the room it took is given back at once)."""
        if self.reserve_bytes == 0 or self.reserve_held:
            return True
        try:
            fd = os.open(self.reserve, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
            try:
                self._fill(fd)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as e:
            self._drop_reserve()
            self.s.log.warning("storage reserve not made", path=str(self.reserve), error=str(e))
            return False
        self.reserve_held = True
        self.s.log.info("storage reserve held", path=str(self.reserve), bytes=self.reserve_bytes)
        return True

    def _fill(self, fd: int) -> None:
        """Blocks really allocated (a sparse file would reserve nothing): ``posix_fallocate`` where the file
        system has it, zeros written where it does not."""
        try:
            os.posix_fallocate(fd, 0, self.reserve_bytes)
            return
        except (AttributeError, OSError) as e:
            if isinstance(e, OSError) and e.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                raise
        zeros = bytes(_CHUNK)
        left = self.reserve_bytes
        while left > 0:
            left -= os.write(fd, zeros[:min(left, _CHUNK)])

    def _drop_reserve(self) -> bool:
        self.reserve_held = False
        try:
            self.reserve.unlink()
        except FileNotFoundError:
            return False
        except OSError as e:
            self.s.log.error("storage reserve not released", path=str(self.reserve), error=str(e))
            return False
        return True

    def release_reserve(self) -> None:
        """The disk is full: the reserve's room is given to the journal and the status (P104)."""
        if self.reserve_bytes and self._drop_reserve():
            self.s.log.warning("storage reserve released", path=str(self.reserve), bytes=self.reserve_bytes)

    def room_for_a_round(self) -> bool:
        """A new round opens only with the journal writable and the reserve held (P104); a round refused here
        is opened by the daemon's retry once there is room (``round_held_back``)."""
        self.round_held_back = not (self.fault is None and self.hold_reserve())
        return not self.round_held_back

    # ------------------------------------------------------------------ faults

    def _met(self, e: BaseException) -> str:
        cause = cause_of(e)
        if not self.halted:
            self.faults += 1
        if self.since is None:
            self.since = time.time()
        if cause == "disk_full":
            self.release_reserve()
        return cause

    def journal_failed(self, e: BaseException) -> None:
        """A journal write failed: what it would have recorded did not happen (P97)."""
        self.cause = self._met(e)
        self.fault = f"{self.s.journal.path}: {e}"
        self.s.log.error("journal write failed", path=str(self.s.journal.path), error=str(e), cause=self.cause)

    def journal_written(self) -> None:
        self.fault = self.cause = None
        if self.status_fault is None and self.heartbeat_fault is None:
            self.since = None

    def status_failed(self, path: Path, e: OSError) -> None:
        """The status file could not be written: the dealer's screen shows an older one (P104)."""
        cause = self._met(e)
        if self.status_fault is None:
            self.s.log.error("status not written", path=str(path), error=str(e), cause=cause)
        self.status_fault = f"{path}: {e}"
        if self.cause is None:
            self.cause = cause

    def status_written(self) -> None:
        if self.status_fault is not None:
            self.s.log.warning("status written again", problem=self.status_fault)
            self.status_fault = None
            if self.fault is None and self.heartbeat_fault is None:
                self.cause = self.since = None

    def heartbeat_failed(self, path: Path, e: OSError) -> bool:
        """The heartbeat could not be touched: the screens say the daemon is not running, "do not deal", so every
        press is refused until it is (the table and its screens agree); True when this begins a fault."""
        cause = self._met(e)
        began = self.heartbeat_fault is None
        if began:
            self.s.log.error("heartbeat not written", path=str(path), error=str(e), cause=cause)
        self.heartbeat_fault = f"{path}: {e}"
        if self.cause is None:
            self.cause = cause
        return began

    def heartbeat_written(self) -> bool:
        """The heartbeat was touched; True when this ends a fault."""
        if self.heartbeat_fault is None:
            return False
        self.s.log.warning("heartbeat written again", problem=self.heartbeat_fault)
        self.heartbeat_fault = None
        if self.fault is None and self.status_fault is None:
            self.cause = self.since = None
        return True

    @property
    def halted(self) -> bool:
        """A write fails now: every press is refused until it succeeds."""
        return self.fault is not None or self.status_fault is not None or self.heartbeat_fault is not None

    def view(self) -> dict[str, Any]:
        """The status's ``storage``: ``state`` ``ok``, ``halted`` (a write fails: every press refused) or ``low``
        (the reserve given up: the round in progress finishes, no new round opens), its ``cause``, the
        ``problem`` in words, the ``reserve`` (``held``, ``released``, ``none``) and the faults met since start."""
        if self.halted:
            state = "halted"
        elif self.reserve_bytes and not self.reserve_held:
            state = "low"
        else:
            state = "ok"
        return {"state": state, "cause": self.cause if self.halted else ("disk_full" if state == "low" else None),
                "problem": self.fault or self.status_fault or self.heartbeat_fault, "since": self.since,
                "reserve": "none" if not self.reserve_bytes else ("held" if self.reserve_held else "released"),
                "faults": self.faults}


__all__ = ["RETRY_S", "WORDS", "WRITE_ERRORS", "Storage", "cause_of", "reserve_path"]

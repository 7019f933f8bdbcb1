"""Logging: structlog; ``table`` and ``round_id`` bound by the daemon.

Where the lines go (``log_format``):

* ``journald``: to systemd's journal, one entry per event with its priority (``journalctl -p
  warning``) and the fields ``TABLE``, ``ROUND_ID``, ``DEVICE`` (``journalctl TABLE=uth-01``);
* ``json``: JSON lines on standard error;
* ``console``: readable lines on standard error;
* ``auto``: journald when systemd runs us with standard error connected to the journal (its
  ``JOURNAL_STREAM`` names that stream, systemd.exec(5)), else console on a terminal, else JSON.

Kept (``LogFiles``, ``[logs]``): every line is also written as a JSON line to files beside the journal
(``<journal stem>.logs.d/``), rolled over each day (UTC) and at ``file_mb``, each kept ``keep_days`` (90 at the
least: NY 9 NYCRR 5319.60(b)(2), AGCO's server logs) within ``max_mb``; a file the cap removes younger than
that is said in the next line (P116).  journald's own retention is the system's, not a minimum.

The journal's native protocol is a datagram of ``FIELD=value`` lines on a UNIX socket
(systemd's "Native Journal Protocol"); no library is needed for it.  An entry the socket does not
take at once (journald gone, its queue full) is written to standard error as a JSON line instead,
which systemd also keeps: nothing is lost and the daemon never waits for its logs.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import struct
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import structlog

JOURNAL_SOCKET = "/run/systemd/journal/socket"
JOURNAL_SOCKET_ENV = "TABLECTL_JOURNAL_SOCKET"  # another socket (tests; a container's journald)
IDENTIFIER = "tablectl"

# syslog priorities (sd-daemon(3)): what `journalctl -p` filters on
PRIORITY = {"debug": 7, "info": 6, "warning": 4, "warn": 4, "error": 3, "exception": 3, "critical": 2}
# event keys that become journal fields of their own, so that `journalctl TABLE=7` finds them
FIELDS = {"table": "TABLE", "round_id": "ROUND_ID", "device": "DEVICE"}


def under_journald(stream: TextIO | None = None) -> bool:
    """systemd connected ``stream`` (standard error) to the journal: JOURNAL_STREAM is its device:inode."""
    value = os.environ.get("JOURNAL_STREAM", "")
    stream = stream or sys.stderr
    try:
        dev, ino = (int(x) for x in value.split(":"))
        st = os.fstat(stream.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return (st.st_dev, st.st_ino) == (dev, ino)


def journal_entry(event: dict[str, Any]) -> dict[str, str]:
    """The journal fields of one structlog event (after add_log_level and the timestamp)."""
    event = dict(event)
    level = str(event.pop("level", "info"))
    event.pop("timestamp", None)  # journald stamps each entry itself (UTC inside, shown local)
    message = str(event.pop("event", ""))
    fields = {"PRIORITY": str(PRIORITY.get(level, 6)), "SYSLOG_IDENTIFIER": IDENTIFIER, "EVENT": message}
    for key, field in FIELDS.items():
        if event.get(key) is not None:
            fields[field] = str(event[key])
    rest = " ".join(f"{k}={json.dumps(v, default=str)}" for k, v in event.items())
    fields["MESSAGE"] = f"{message} {rest}".strip()
    return fields


def encode(fields: dict[str, str]) -> bytes:
    """The native protocol: ``KEY=value\\n``, or ``KEY\\n<64-bit LE length><value>\\n`` for multi-line values."""
    out = bytearray()
    for key, value in fields.items():
        data = value.encode("utf-8", "replace")
        if b"\n" in data:
            out += key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
        else:
            out += key.encode() + b"=" + data + b"\n"
    return bytes(out)


class JournaldLogger:
    """A structlog logger that takes the event dict as keywords (the last processor returns the dict)
    and sends it to journald."""

    def __init__(self, fallback: TextIO, path: str | None = None) -> None:
        self.fallback = fallback
        self.path = path or os.environ.get(JOURNAL_SOCKET_ENV) or JOURNAL_SOCKET
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        # never block the event loop on the journal: a full queue sends the entry to stderr instead
        self.sock.setblocking(False)

    def msg(self, **event: Any) -> None:
        try:
            self.sock.sendto(encode(journal_entry(event)), self.path)
        except OSError:
            self.fallback.write(json.dumps(event, default=str) + "\n")
            self.fallback.flush()

    log = debug = info = warning = warn = error = critical = exception = fatal = msg


def _to_journald(logger: Any, method: str, event: dict[str, Any]) -> Any:
    return event  # a dict from the last processor: structlog passes it to JournaldLogger as keywords


def logs_dir(journal: Path) -> Path:
    """Where a table's daemon keeps its log files: beside its journal (``<journal stem>.logs.d/``)."""
    return Path(journal).with_suffix(".logs.d")


class LogFiles:
    """JSON lines in ``directory/daemon.log``, rolled over (to ``daemon.log.<UTC time>``) at the first line of a
    new UTC day or past ``file_bytes``; a rolled file is removed once its last line is ``keep_days`` old, or
    earlier (the oldest first) while all of them pass ``max_bytes``, said in a line of its own (P116)."""

    NAME = "daemon.log"

    def __init__(self, directory: Path, *, keep_days: int = 90, max_bytes: int = 256 * 2**20,
                 file_bytes: int = 16 * 2**20, clock: Callable[[], float] = time.time) -> None:
        self.dir, self.keep_days, self.max_bytes, self.file_bytes, self.clock = (
            Path(directory), keep_days, max_bytes, file_bytes, clock)
        self.path = self.dir / self.NAME  # the directory made at the first line (its parent may not exist yet)
        self._day = self._day_of(self.path.stat().st_mtime) if self.path.exists() else None

    @staticmethod
    def _day_of(t: float) -> str:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d")

    def rolled(self) -> list[Path]:
        """The rolled files, oldest first (their names sort by the time they were rolled)."""
        return sorted(self.dir.glob(self.NAME + ".*"))

    def write(self, line: str) -> None:
        now = self.clock()
        self.dir.mkdir(parents=True, exist_ok=True)
        data = (line.rstrip("\n") + "\n").encode("utf-8", "replace")
        size = self.path.stat().st_size if self.path.exists() else 0
        if size and (self._day_of(now) != self._day or size + len(data) > self.file_bytes):
            self._roll_over(now)
        self._day = self._day_of(now)
        with self.path.open("ab") as f:
            f.write(data)

    def _roll_over(self, now: float) -> None:
        stamp = datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        os.replace(self.path, self.dir / f"{self.NAME}.{stamp}")
        cut: list[str] = []
        rolled = self.rolled()
        for old in list(rolled):
            # rolled at the time its name says, after its last line: removed keep_days after that, not before
            if self._rolled_at(old) <= now - self.keep_days * 86400:
                old.unlink()
                rolled.remove(old)
        while rolled and sum(p.stat().st_size for p in rolled) > self.max_bytes:
            old = rolled.pop(0)
            cut.append(old.name)
            old.unlink()
        with self.path.open("a", encoding="utf-8") as f:
            for name in cut:
                f.write(json.dumps({"event": "log file removed before its days for the cap", "file": name,
                                    "keep_days": self.keep_days, "level": "warning",
                                    "timestamp": datetime.fromtimestamp(now, UTC).isoformat()}) + "\n")

    def _rolled_at(self, path: Path) -> float:
        try:
            at = datetime.strptime(path.name[len(self.NAME) + 1:], "%Y%m%dT%H%M%S.%fZ")
            return at.replace(tzinfo=UTC).timestamp()
        except ValueError:  # not a name this class gives: its own time on disk
            return path.stat().st_mtime


def _to_files(files: LogFiles) -> Callable[[Any, str, dict[str, Any]], dict[str, Any]]:
    def tee(logger: Any, method: str, event: dict[str, Any]) -> dict[str, Any]:
        try:
            files.write(json.dumps(event, default=str))
        except OSError:  # a full disk is the journal's to report (P97); the log line goes on to its stream
            pass
        return event

    return tee


def configure(fmt: str = "auto", level: int = logging.INFO, files: LogFiles | None = None) -> str:
    """Set up structlog for ``fmt`` (json | console | journald | auto), also writing ``files`` when given;
    returns the format chosen."""
    if fmt == "auto":
        fmt = "journald" if under_journald() else "console" if sys.stderr.isatty() else "json"
    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if files is not None:
        processors.append(_to_files(files))
    if fmt == "journald":
        journald = JournaldLogger(sys.stderr)
        processors.append(_to_journald)
        factory: Any = lambda *args: journald  # noqa: E731 - one socket for every logger
    else:
        processors.append(structlog.dev.ConsoleRenderer() if fmt == "console" else structlog.processors.JSONRenderer())
        factory = structlog.PrintLoggerFactory(sys.stderr)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=factory,
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    return fmt

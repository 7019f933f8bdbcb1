"""Logging: structlog; ``table`` and ``round_id`` bound by the daemon.

Where the lines go (``log_format``):

* ``journald``: to systemd's journal, one entry per event with its priority (``journalctl -p
  warning``) and the fields ``TABLE``, ``ROUND_ID``, ``DEVICE`` (``journalctl TABLE=uth-01``);
* ``json``: JSON lines on standard error;
* ``console``: readable lines on standard error;
* ``auto``: journald when systemd runs us with standard error connected to the journal (its
  ``JOURNAL_STREAM`` names that stream, systemd.exec(5)), else console on a terminal, else JSON.

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


def configure(fmt: str = "auto", level: int = logging.INFO) -> str:
    """Set up structlog for ``fmt`` (json | console | journald | auto); returns the format chosen."""
    if fmt == "auto":
        fmt = "journald" if under_journald() else "console" if sys.stderr.isatty() else "json"
    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
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

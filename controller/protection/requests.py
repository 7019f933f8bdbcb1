"""Requests from the floor's pages to the daemon (issue 28): a supervisor takes the shuffler out of service.

The web service never writes the table's journal (the daemon is its one writer, docs/journal.md): it leaves a
request, one small JSON file written atomically (``put``) in a directory beside the journal (``directory``).  The
daemon takes each between rounds (``pending``), handles it as the dealer's report of a device out of order with the
supervisor's key would be (UTH ch.13 §J, P43), journaled with who made it, then removes it (``done``).  A file that
is not a request is removed unread (fail closed: nothing is done on it).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ACTIONS = frozenset({"out_of_order"})
DEVICES = frozenset({"shuffler"})


@dataclass(frozen=True)
class Request:
    path: Path
    action: str
    device: str
    by: str  # the floor login's user name
    at: str


def directory(journal: Path) -> Path:
    return journal.with_name(journal.name + ".requests")


def put(journal: Path, action: str, device: str, by: str) -> Path:
    """Leave a request for the daemon (written whole, then renamed: the daemon never reads half of one)."""
    if action not in ACTIONS or device not in DEVICES:
        raise ValueError(f"{action} {device}: not a request the floor makes")
    d = directory(journal)
    d.mkdir(mode=0o700, exist_ok=True)
    at = datetime.now(UTC).isoformat(timespec="milliseconds")
    name = f"{at.replace(':', '')}-{secrets.token_hex(4)}"
    tmp = d / f".{name}.tmp"
    with os.fdopen(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600), "w") as f:
        json.dump({"action": action, "device": device, "by": by, "at": at}, f)
        f.flush()
        os.fsync(f.fileno())
    path = d / f"{name}.json"
    os.replace(tmp, path)
    return path


def pending(journal: Path) -> list[Request]:
    """The requests waiting, oldest first; a file that is not one is removed."""
    d = directory(journal)
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.glob("*.json")):
        try:
            data = json.loads(p.read_text())
            r = Request(p, str(data["action"]), str(data["device"]), str(data["by"]), str(data["at"]))
        except (OSError, ValueError, KeyError, TypeError):
            p.unlink(missing_ok=True)
            continue
        if r.action in ACTIONS and r.device in DEVICES and r.by:
            out.append(r)
        else:
            p.unlink(missing_ok=True)
    return out


def done(r: Request) -> None:
    r.path.unlink(missing_ok=True)

"""Journals in row format 1 (P76: hex hashes, the stored link, ISO times), as the program before format 2
wrote them, for the tests that an old journal still loads, verifies, recalls and goes on.

``journal_format1/schema.sql`` is that program's schema; ``journal_format1/*.sql`` are the SQL dumps of a
journal it wrote (real UTH rounds, a meter, a roll-over to a second segment): ``open.sql`` the open file,
``segment-<name>.sql`` the sealed segment ``<name>.journal``.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

HERE = Path(__file__).parent / "journal_format1"


def _load(path: Path, sql: str) -> None:
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.close(fd)
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.commit()
    db.close()


def empty(path: Path) -> Path:
    """An empty journal of format 1 at ``path`` (the current program appends to it in format 1)."""
    _load(path, (HERE / "schema.sql").read_text())
    return path


def written(where: Path) -> Path:
    """The journal format 1 wrote, laid out in ``where`` as on a table; the open file's path."""
    path = where / "t.journal"
    segments = where / "t.journal.segments"
    segments.mkdir(mode=0o700)
    for dump in sorted(HERE.glob("segment-*.sql")):
        _load(segments / (dump.stem.removeprefix("segment-") + ".journal"), dump.read_text())
    _load(path, (HERE / "open.sql").read_text())
    return path

"""The link's schema: the SQL files of ``migrations/`` applied in the order of their number, each once.

``schema_version`` holds the number of every file applied; each file is applied in its own transaction
with its row, so a failed file leaves nothing behind and is applied again by the next ``migrate``.
"""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

MIGRATIONS = Path(__file__).with_name("migrations")
_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def migrations(directory: Path = MIGRATIONS) -> list[tuple[int, Path]]:
    """The migration files, by number (a file not named NNN_name.sql is an error: nothing is guessed);
    ``directory``: another database's (the pit's, web/pit/migrations)."""
    found: list[tuple[int, Path]] = []
    for path in sorted(directory.glob("*.sql")):
        m = _NAME.match(path.name)
        if m is None:
            raise ValueError(f"{path.name}: a migration is named NNN_name.sql")
        found.append((int(m.group(1)), path))
    numbers = [n for n, _ in found]
    if len(set(numbers)) != len(numbers):
        raise ValueError(f"two migrations share a number: {numbers}")
    return found


def migrate(url: str, directory: Path = MIGRATIONS) -> list[int]:
    """Apply the migrations ``url``'s database lacks, in order; the numbers applied."""
    applied: list[int] = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
                     "name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())")
        for number, path in migrations(directory):
            with conn.transaction():
                # one migrator at a time (two tables starting together): the lock is the transaction's
                conn.execute("LOCK TABLE schema_version IN EXCLUSIVE MODE")
                if conn.execute("SELECT 1 FROM schema_version WHERE version = %s", (number,)).fetchone():
                    continue
                conn.execute(path.read_text().encode())  # a file of our own, never input
                conn.execute("INSERT INTO schema_version (version, name) VALUES (%s, %s)", (number, path.name))
            applied.append(number)
    return applied


def version(url: str) -> int | None:
    """The last migration applied, or None on a database without the schema."""
    with psycopg.connect(url, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass('schema_version')").fetchone()
        if exists is None or exists[0] is None:
            return None
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0]) if row and row[0] is not None else None

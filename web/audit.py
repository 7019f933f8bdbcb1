"""Who logged in to the floor's pages and which hand history they looked at: an audit journal of its own.

Not the table's journal: that one has a single writer, the daemon, which appends an event before it acts
on it (deal, pay, move a meter).  A second writer there would make the daemon wait on the web process's
transactions (SQLite takes one writer at a time) and would give the web process, which faces the casino's
network, write access to the record of every wager.  So the web service keeps its own file beside the
journal, with the same guarantees (``controller.journal.store.Journal``: durable at each append, hash-chained,
``verify()``), and reads the table's journal read-only.
"""

from __future__ import annotations

from pathlib import Path

from controller import events as ev
from controller.journal.store import Event, Journal

# the kinds as the audit journal stores them (its events are declared in controller.events)
LOGIN = ev.LoggedIn.kind
LOGIN_REFUSED = ev.LoginRefused.kind
LOGOUT = ev.LoggedOut.kind
HAND_HISTORY = ev.HandHistoryViewed.kind


def audit_path(journal: Path) -> Path:
    return Path(journal).with_suffix(".web-audit")  # not *.journal: the table has one journal


class Audit:
    def __init__(self, path: Path) -> None:
        self.journal = Journal(path)

    def record(self, event: ev.JournalEvent, who: str) -> None:
        self.journal.record(event, who=who)

    def events(self, last: int = 100) -> list[Event]:
        return self.journal.events(None)[-last:]

    def close(self) -> None:
        self.journal.close()

"""Who logged in to the floor's pages and which hand history they looked at: an audit journal of its own.

Not the table's journal: the daemon is its single writer, and the web process faces the casino's network.
The audit files live in a directory of their own (``<journal stem>.web-audit.d/``), each a hash-chained
journal (``controller.journal.store.Journal``), rolled over at a size and kept to a number of files, so
nothing the web does can fill the table's disk (issue 30 (3)).  Refused logins are recorded at a bounded
rate (``LoginThrottle``): one address that keeps trying is turned away without a record for each try.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from controller import events as ev
from controller.events import optional
from controller.journal.store import Event, Journal

# -- the audit journal's events (declared here: only the web writes its audit) ----------


@dataclass(frozen=True)
class LoggedIn(ev.JournalEvent):
    """Someone logged in to the floor's pages (``who``: the account)."""

    kind = "login"
    role: str
    remote: str | None  # the client's address, null when the server does not know it


@dataclass(frozen=True)
class LoginRefused(ev.JournalEvent):
    """A login refused (``who``: the name given, or ``-``)."""

    kind = "login_refused"
    remote: str | None


@dataclass(frozen=True)
class LoginThrottled(ev.JournalEvent):
    """An address turned away for too many refused logins, its password not checked; once each time
    (``who``: the name given; web/audit.py ``LoginThrottle``)."""

    kind = "login_throttled"
    remote: str | None


@dataclass(frozen=True)
class LoginRefusalsUnrecorded(ev.JournalEvent):
    """How many refused logins went unrecorded over the audit's cap in a window (web/audit.py)."""

    kind = "login_refusals_unrecorded"
    count: int


@dataclass(frozen=True)
class LoggedOut(ev.JournalEvent):
    kind = "logout"


@dataclass(frozen=True)
class HandHistoryViewed(ev.JournalEvent):
    """A page of the hand history looked at: the list of rounds (``rounds`` shown) or one round."""

    kind = "hand_history_viewed"
    page: str  # "rounds" or "round"
    rounds: int | None = optional()
    round: str | None = optional()



# the kinds as the audit journal stores them
LOGIN = LoggedIn.kind
LOGIN_REFUSED = LoginRefused.kind
LOGIN_THROTTLED = LoginThrottled.kind
REFUSALS_UNRECORDED = LoginRefusalsUnrecorded.kind
LOGOUT = LoggedOut.kind
HAND_HISTORY = HandHistoryViewed.kind

#: the audit's kinds, fields and codes in words, for the audit page (web/words.py collects them)
WORDS: dict[str, str] = {
    "event.login": "Logged in", "event.login_refused": "Login refused", "event.login_throttled": "Logins turned away",
    "event.login_refusals_unrecorded": "Refused logins not recorded", "event.logout": "Logged out",
    "event.hand_history_viewed": "Hand history viewed", "field.role": "Role", "field.remote": "From",
    "field.page": "Page", "role.supervisor": "Supervisor", "role.auditor": "Auditor",
    "page.rounds": "the rounds", "page.round": "a round",
}

MAX_BYTES = 16_000_000  # one audit file: years of honest logins
KEEP_FILES = 8  # the audit directory holds at most this many files (the oldest removed): 128 MB at the most


def audit_dir(journal: Path) -> Path:
    return Path(journal).parent / f"{Path(journal).stem}.web-audit.d"


class Audit:
    """The audit files of one table: ``audit-NNNNNN.journal`` in ``directory``, the newest written."""

    def __init__(self, directory: Path, *, max_bytes: int = MAX_BYTES, keep: int = KEEP_FILES) -> None:
        if keep < 2:
            raise ValueError("keep at least two audit files: the one written and the one before it")
        self.directory, self.max_bytes, self.keep = Path(directory), max_bytes, keep
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        files = self.files()
        self._number = int(files[-1].stem.split("-")[1]) if files else 1
        self.journal = Journal(self._path(self._number))

    def _path(self, number: int) -> Path:
        return self.directory / f"audit-{number:06d}.journal"

    def files(self) -> list[Path]:
        return sorted(self.directory.glob("audit-*.journal"))

    def record(self, event: ev.JournalEvent, who: str) -> None:
        if self._size() >= self.max_bytes:
            self._roll_over()
        self.journal.record(event, who=who)

    def _size(self) -> int:
        """The bytes the file written takes, its write-ahead log included."""
        path = self.journal.path
        return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())

    def _roll_over(self) -> None:
        self.journal.close()
        self._number += 1
        self.journal = Journal(self._path(self._number))
        for old in self.files()[:-self.keep]:
            for part in (old, old.with_name(old.name + "-wal"), old.with_name(old.name + "-shm")):
                part.unlink(missing_ok=True)

    def events(self, last: int = 100) -> list[Event]:
        """The last ``last`` events, from the newest file and the one before it when it holds too few."""
        out = self.journal.events(None)[-last:]
        files = self.files()
        if len(out) < last and len(files) > 1:
            with Journal(files[-2]) as before:
                out = before.events(None)[-(last - len(out)):] + out
        return out

    def close(self) -> None:
        self.journal.close()


@dataclass
class LoginThrottle:
    """Refused logins, bounded: an address refused ``per_address`` times within ``window`` seconds is turned
    away without its password checked (a hash costs CPU) until its oldest refusal is ``window`` old; and at
    most ``recorded`` records of refusals a window are written in all, the rest counted and written as one
    record with the next one (or when the service stops)."""

    per_address: int = 5
    window: float = 60.0
    recorded: int = 60
    _refused: dict[str, deque[float]] = field(default_factory=dict)
    _throttled: set[str] = field(default_factory=set)
    _window_start: float = float("-inf")
    _records: int = 0
    _unrecorded: int = 0

    def turned_away(self, address: str, now: float) -> bool:
        q = self._refused.get(address)
        while q and now - q[0] >= self.window:
            q.popleft()
        if not q:
            self._refused.pop(address, None)
            self._throttled.discard(address)
        return q is not None and len(q) >= self.per_address

    def refused(self, address: str, now: float) -> None:
        self._refused.setdefault(address, deque()).append(now)

    def first_turned_away(self, address: str) -> bool:
        """True once for each time an address is turned away: whether to record that it was."""
        if address in self._throttled:
            return False
        self._throttled.add(address)
        return True

    def may_record(self, now: float) -> bool:
        """Whether one more refusal may be written in this window; counted as unrecorded when not."""
        if now - self._window_start >= self.window:
            self._window_start, self._records = now, 0
        if self._records >= self.recorded:
            self._unrecorded += 1
            return False
        self._records += 1
        return True

    def take_unrecorded(self) -> int:
        """The refusals not written since the last call (to be written as one record)."""
        n, self._unrecorded = self._unrecorded, 0
        return n


def record_refusal(audit: Audit, throttle: LoginThrottle, event: ev.JournalEvent, who: str, now: float) -> None:
    """Write a refused or turned-away login within the throttle's budget, with the count of those left out."""
    if not throttle.may_record(now):
        return
    left_out = throttle.take_unrecorded()
    if left_out:
        audit.record(LoginRefusalsUnrecorded(count=left_out), "-")
    audit.record(event, who)

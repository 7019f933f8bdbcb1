"""The floor's access log: who logged in (or was refused, throttled, locked out), which page and what hand history
they looked at, what they acknowledged or unlocked, and every request refused (CSRF, a role's route): an audit
journal of its own.

Not the table's journal: the daemon is its single writer, and the web process faces the casino's network.
The audit files live in a directory of their own (``<journal stem>.web-audit.d/``), each a hash-chained
journal (``controller.journal.store.Journal``), rolled over at a size and kept within a cap on the disk, so
nothing the web does can fill the table's disk (issue 30 (3)); kept at least ``keep_days`` (90 at the least,
the configuration's ``[web] audit_keep_days``): a file removed younger than that, the cap reached, is itself
recorded (``AuditCutShort``, P107).  Refused logins are slowed by ``LoginThrottle`` (growing delays per
address and per account name) and recorded at a bounded rate.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from controller import events as ev
from controller.events import optional
from controller.journal.store import Event, Journal

log = logging.getLogger(__name__)

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



@dataclass(frozen=True)
class PageViewed(ev.JournalEvent):
    """A page of the floor's or the pit's looked at (``who``: the login): ``page`` names it (web/guard.py
    ``VIEWS``), ``path`` the address opened, ``query`` the search's fields (only those of ``guard.QUERY_KEPT``:
    never a token), ``status`` the answer.  Not the event streams, the data polled, nor static files."""

    kind = "page_viewed"
    page: str
    path: str
    status: int
    query: str | None = optional()


@dataclass(frozen=True)
class AccountLocked(ev.JournalEvent):
    """An account locked after ``failures`` wrong passwords in a row (``who``: the account), until a supervisor
    unlocks it (P107)."""

    kind = "account_locked"
    failures: int
    remote: str | None


@dataclass(frozen=True)
class AccountUnlocked(ev.JournalEvent):
    """An account unlocked (``who``: the supervisor, or ``tablectl`` for ``tablectl web --unlock``)."""

    kind = "account_unlocked"
    account: str


@dataclass(frozen=True)
class RequestRefused(ev.JournalEvent):
    """A request refused before its page (``who``: the login, or ``-``): ``why`` is ``csrf`` (a form without its
    token or with a wrong one) or ``role`` (a route the login's role may not open, web/guard.py)."""

    kind = "request_refused"
    why: str
    method: str
    path: str
    remote: str | None


@dataclass(frozen=True)
class AuditCutShort(ev.JournalEvent):
    """An audit file removed to keep the cap before it was ``keep_days`` old (``newest``: its last record)."""

    kind = "audit_cut_short"
    file: str
    newest: str
    keep_days: int


# the kinds as the audit journal stores them
LOGIN = LoggedIn.kind
LOGIN_REFUSED = LoginRefused.kind
LOGIN_THROTTLED = LoginThrottled.kind
REFUSALS_UNRECORDED = LoginRefusalsUnrecorded.kind
LOGOUT = LoggedOut.kind
HAND_HISTORY = HandHistoryViewed.kind
LOCKED = AccountLocked.kind
UNLOCKED = AccountUnlocked.kind
REFUSED = RequestRefused.kind
VIEWED = PageViewed.kind
CUT_SHORT = AuditCutShort.kind

#: the audit's kinds, fields and codes in words, for the audit page (web/words.py collects them)
WORDS: dict[str, str] = {
    "event.login": "Logged in", "event.login_refused": "Login refused", "event.login_throttled": "Logins turned away",
    "event.login_refusals_unrecorded": "Refused logins not recorded", "event.logout": "Logged out",
    "event.hand_history_viewed": "Hand history viewed", "field.role": "Role", "field.remote": "From",
    "field.page": "Page", "role.supervisor": "Supervisor", "role.auditor": "Auditor",
    "page.rounds": "the rounds", "page.round": "a round",
    "event.account_locked": "Account locked", "event.account_unlocked": "Account unlocked",
    "event.request_refused": "Request refused", "event.audit_cut_short": "Access log cut short",
    "field.account": "Account", "field.failures": "Wrong passwords", "field.file": "File",
    "field.keep_days": "Days to keep", "field.method": "Method", "field.newest": "Newest entry",
    "field.path": "Address",
    "role.technician": "Technician",
    "event.page_viewed": "Page viewed", "field.status": "Answer", "field.query": "Searched for",
    "page.table": "the table", "page.progressive": "the progressive", "page.irregularities": "the irregularities",
    "page.audit": "the access log", "page.accounts": "the accounts", "page.technician": "devices and configuration",
    "page.protection": "game protection",
    "page.pit": "the pit",
}

MAX_BYTES = 16_000_000  # one audit file: years of honest logins
KEEP_FILES = 8  # the audit directory holds at most this many files (the oldest removed): 128 MB at the most


def audit_dir(journal: Path) -> Path:
    return Path(journal).parent / f"{Path(journal).stem}.web-audit.d"


class Audit:
    """The audit files of one table: ``audit-NNNNNN.journal`` in ``directory``, the newest written."""

    def __init__(self, directory: Path, *, max_bytes: int = MAX_BYTES, keep: int = KEEP_FILES,
                 keep_days: int | None = None, clock: Callable[[], float] = time.time) -> None:
        if keep < 2:
            raise ValueError("keep at least two audit files: the one written and the one before it")
        self.directory, self.max_bytes, self.keep = Path(directory), max_bytes, keep
        self.keep_days, self.clock = keep_days, clock
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
            newest = self._newest(old)
            for part in (old, old.with_name(old.name + "-wal"), old.with_name(old.name + "-shm")):
                part.unlink(missing_ok=True)
            # the cap outranks the days (the table's disk, issue 30): a file removed early says so (P107)
            if self.keep_days is not None and newest is not None and (
                    datetime.fromisoformat(newest).timestamp() > self.clock() - self.keep_days * 86400):
                log.warning("audit file %s removed before it was %d days old: the audit's cap is reached", old.name,
                            self.keep_days)
                self.journal.record(AuditCutShort(file=old.name, newest=newest, keep_days=self.keep_days), who="-")

    @staticmethod
    def _newest(path: Path) -> str | None:
        with Journal(path) as j:
            last = j.events(None)[-1:]
        return last[0].at if last else None

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
    """Refused logins, slowed and bounded.  Each key (an address, ``address:...``, and the name given,
    ``account:...``, whether an account has it or not: the delays tell nothing of which names exist) counts its
    wrong passwords; after ``free`` of them the next try of that key is held ``base`` seconds before its password
    is checked, doubling with each further one up to ``cap``; a key's count is forgotten ``forget`` seconds after
    its last failure (an account's also at a right password).  At most ``held`` tries of a key wait at once; one
    more is turned away (HTTP 429) without its password checked (a hash costs CPU), recorded once a key.  At most
    ``recorded`` records of refusals a ``window`` are written, the rest counted and written as one record."""

    free: int = 3
    base: float = 1.0
    cap: float = 30.0
    forget: float = 900.0
    held: int = 2
    window: float = 60.0
    recorded: int = 60
    most_keys: int = 10_000  # memory: the keys forgotten first when a flood of addresses or names passes this
    _failures: dict[str, tuple[int, float]] = field(default_factory=dict)  # key -> (count, last failure)
    _waiting: dict[str, int] = field(default_factory=dict)
    _throttled: dict[str, float] = field(default_factory=dict)  # key -> when its turning away was recorded
    _window_start: float = float("-inf")
    _records: int = 0
    _unrecorded: int = 0

    @staticmethod
    def keys(address: str, name: str) -> tuple[str, str]:
        return f"address:{address}", f"account:{name}"

    def delay_after(self, failures: int) -> float:
        """The seconds a try is held after this many failures of its key."""
        return 0.0 if failures < self.free else min(self.base * 2 ** (failures - self.free), self.cap)

    def failures(self, key: str, now: float) -> int:
        count, last = self._failures.get(key, (0, now))
        if now - last >= self.forget:
            self._failures.pop(key, None)
            self._throttled.pop(key, None)
            return 0
        return count

    def wait(self, keys: Iterable[str], now: float) -> float | None:
        """The seconds to hold a try of these keys before its password is checked; None: turned away (too many
        of a key's tries already waiting)."""
        waits = []
        for key in keys:
            n = self.failures(key, now)
            wait = self._failures[key][1] + self.delay_after(n) - now if n else 0.0
            if wait > 0 and self._waiting.get(key, 0) >= self.held:
                return None
            waits.append(max(0.0, wait))
        return max(waits, default=0.0)

    @contextlib.contextmanager
    def holding(self, keys: tuple[str, ...]) -> Iterator[None]:
        """Count a try as waiting on its keys while the caller holds it."""
        for key in keys:
            self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            yield
        finally:
            for key in keys:
                self._waiting[key] -= 1
                if not self._waiting[key]:
                    del self._waiting[key]

    def failed(self, keys: Iterable[str], now: float) -> int:
        """One more failure of each key; the count of the last (the account name's)."""
        count = 0
        for key in keys:
            count = self.failures(key, now) + 1
            self._failures[key] = (count, now)
        if len(self._failures) > self.most_keys:
            for key, _ in sorted(self._failures.items(), key=lambda kv: kv[1][1])[: len(self._failures) // 2]:
                del self._failures[key]
        return count

    def succeeded(self, key: str) -> None:
        self._failures.pop(key, None)

    def first_turned_away(self, key: str, now: float) -> bool:
        """True once for each key turned away (again after it was forgotten): whether to record that it was."""
        if key in self._throttled and now - self._throttled[key] < self.forget:
            return False
        self._throttled[key] = now
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

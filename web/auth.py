"""The floor's accounts and logins: supervisor, auditor, technician; scrypt-hashed passwords; logins that expire.

The users file has one account a line, ``name role hash [flags]`` (``tablectl web --add-user`` writes it); the
hash is ``scrypt$N$r$p$salt$key`` (hashlib.scrypt, RFC 7914, with a random 16-byte salt); flags, comma-separated:
``disabled`` (``tablectl web --disable``), ``locked`` (too many wrong passwords, until a supervisor unlocks it,
P107).  The service re-reads the file when it changes (``Users``): an account added, disabled or given another
role takes effect at its next request.  A login is a random token in an HttpOnly, SameSite=Strict cookie (Secure
over TLS), kept in this process only, with its own CSRF token (web/guard.py): it expires ``session_minutes``
after it was made, and a restart of the service logs everyone out.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import hmac
import logging
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

ROLES = ("supervisor", "auditor", "technician")
FLAGS = ("disabled", "locked")
# scrypt cost: 2**14 x 8 x 1 uses 16 MiB and takes tens of milliseconds (OWASP's minimum is N=2**17 with
# r=8 p=1 for interactive logins when memory allows; the table PC is small and logins are rare: N=2**15).
N, R, P = 2**15, 8, 1
MAXMEM = 64 * 1024 * 1024
COOKIE = "floor_session"

log = logging.getLogger(__name__)


class UsersError(Exception):
    pass


def hash_password(password: str, n: int = N) -> str:
    """The stored form of a password (``n``: scrypt's cost, lower only in tests)."""
    salt = os.urandom(16)
    key = hashlib.scrypt(password.encode(), salt=salt, n=n, r=R, p=P, maxmem=MAXMEM, dklen=32)
    return f"scrypt${n}${R}${P}${_b64(salt)}${_b64(key)}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def check_password(password: str, stored: str) -> bool:
    try:
        algo, n, r, p, salt, key = stored.split("$")
        if algo != "scrypt":
            return False
        want = base64.b64decode(key)
        got = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), maxmem=MAXMEM, dklen=len(want)
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, want)


def dummy_hash(like: str | None = None) -> str:
    """A hash of a random password with the cost of ``like`` (an account's hash): checked for a name that has
    no account, so that a refusal takes the same time whether the name exists or not."""
    try:
        _, n, r, p, _, _ = (like or "").split("$")
        cost = int(n), int(r), int(p)
    except ValueError:
        cost = N, R, P
    salt = os.urandom(16)
    key = hashlib.scrypt(os.urandom(16), salt=salt, n=cost[0], r=cost[1], p=cost[2], maxmem=MAXMEM, dklen=32)
    return f"scrypt${cost[0]}${cost[1]}${cost[2]}${_b64(salt)}${_b64(key)}"


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    hash: str
    flags: frozenset[str] = frozenset()

    @property
    def disabled(self) -> bool:
        return "disabled" in self.flags

    @property
    def locked(self) -> bool:
        return "locked" in self.flags

    def line(self) -> str:
        flags = f" {','.join(sorted(self.flags))}" if self.flags else ""
        return f"{self.name} {self.role} {self.hash}{flags}\n"


def load_users(path: Path | None) -> dict[str, Account]:
    """The accounts; a file others can write, or a malformed line, is refused with the line named."""
    if path is None or not path.exists():
        return {}
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o022:
        raise UsersError(f"{path}: writable by group or others (mode {mode:04o}): chmod 600 it")
    users = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        flags = frozenset(parts[3].split(",")) if len(parts) == 4 else frozenset()
        well_formed = len(parts) in (3, 4) and parts[1] in ROLES and parts[2].startswith("scrypt$")
        if not well_formed or flags - set(FLAGS):
            raise UsersError(f"{path} line {number}: expected 'name role scrypt-hash [flags]' with role one of {ROLES}"
                             f" and flags of {FLAGS}")
        users[parts[0]] = Account(parts[0], parts[1], parts[2], flags)
    return users


@contextlib.contextmanager
def _changing(path: Path) -> Iterator[dict[str, Account]]:
    """The accounts to change, written back whole and atomically; one writer at a time (the service locking an
    account and ``tablectl web`` adding one may meet: an advisory lock beside the file)."""
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        os.chmod(lock.name, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        users = load_users(path)
        yield users
        tmp = path.with_suffix(path.suffix + ".tmp")
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("".join(a.line() for a in users.values()))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)


def add_user(path: Path, name: str, role: str, password: str) -> None:
    """Add or replace one account (the file is created private)."""
    if role not in ROLES:
        raise UsersError(f"role must be one of {ROLES}, not {role!r}")
    if not name or any(c.isspace() for c in name):
        raise UsersError("a user name is one word")
    if len(password) < 8:
        raise UsersError("a password has at least 8 characters")
    hashed = hash_password(password)
    with _changing(path) as users:
        users[name] = Account(name, role, hashed)


def set_flag(path: Path, name: str, flag: str, on: bool) -> bool:
    """Set or clear ``disabled`` or ``locked`` on an account; False when there is no such account or nothing
    changed."""
    assert flag in FLAGS
    with _changing(path) as users:
        account = users.get(name)
        if account is None or (flag in account.flags) == on:
            return False
        users[name] = replace(account, flags=account.flags | {flag} if on else account.flags - {flag})
        return True


class Users:
    """The accounts as the users file says now: re-read when the file changes (its inode, size or modification
    time), so that an account added, disabled, locked or unlocked counts at once; ``on_unlocked`` is told of an
    account unlocked by another hand (``tablectl web --unlock``).  A file that turns bad while the service runs
    lets nobody in (logged) until it is right again."""

    def __init__(self, path: Path | None, on_unlocked: Callable[[str], None] | None = None) -> None:
        self.path, self.on_unlocked = path, on_unlocked
        self._accounts = load_users(path)  # a bad file at start-up stops the service (tablectl web)
        self._seen = self._stat()
        self.dummy = dummy_hash(next(iter(self._accounts.values())).hash if self._accounts else None)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat() if self.path is not None else None
        except FileNotFoundError:
            return None
        return None if st is None else (st.st_ino, st.st_size, st.st_mtime_ns)

    def accounts(self) -> dict[str, Account]:
        seen = self._stat()
        if seen != self._seen:
            self._seen, before = seen, self._accounts
            try:
                self._accounts = load_users(self.path)
            except (UsersError, OSError) as exc:
                log.error("the users file cannot be read, nobody can log in until it is right: %s", exc)
                self._accounts = {}
            for name, was in before.items():
                now = self._accounts.get(name)
                if self.on_unlocked is not None and was.locked and now is not None and not now.locked:
                    self.on_unlocked(name)
        return self._accounts

    def get(self, name: str) -> Account | None:
        return self.accounts().get(name)

    def set_flag(self, name: str, flag: str, on: bool) -> bool:
        """Lock or unlock (``set_flag``) an account from this service, read back at once (told to nobody)."""
        if self.path is None:
            return False
        self.accounts()  # a change by another hand first, as such
        try:
            changed = set_flag(self.path, name, flag, on)
        except OSError as exc:  # a users file this service cannot write (docs/install.md): held here until restart
            log.error("account %s: %s %s here only, the users file cannot be written: %s", name, flag,
                      "set" if on else "cleared", exc)
            account = self._accounts.get(name)
            if account is None or (flag in account.flags) == on:
                return False
            flags = account.flags | {flag} if on else account.flags - {flag}
            self._accounts = {**self._accounts, name: replace(account, flags=flags)}
            return True
        self._accounts, self._seen = load_users(self.path), self._stat()
        return changed


@dataclass
class Login:
    user: str
    role: str
    expires: float
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))  # every form of this login carries it


class Sessions:
    def __init__(self, minutes: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = minutes * 60
        self.clock = clock
        self._logins: dict[str, Login] = {}

    def start(self, account: Account) -> str:
        token = secrets.token_urlsafe(32)
        self._logins[token] = Login(account.name, account.role, self.clock() + self.seconds)
        return token

    def get(self, token: str | None) -> Login | None:
        login = self._logins.get(token or "")
        if login is None:
            return None
        if self.clock() >= login.expires:
            del self._logins[token or ""]
            return None
        return login

    def end(self, token: str | None) -> None:
        self._logins.pop(token or "", None)

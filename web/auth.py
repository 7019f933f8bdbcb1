"""The floor's accounts and logins: supervisor and auditor, scrypt-hashed passwords, logins that expire.

The users file has one account a line, ``name role hash`` (``tablectl web adduser`` writes it);
the hash is ``scrypt$N$r$p$salt$key`` (hashlib.scrypt, RFC 7914, with a random 16-byte salt).
A login is a random token in an HttpOnly, SameSite=Strict cookie, kept in this process only:
it expires ``session_minutes`` after it was made, and a restart of the service logs everyone out.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROLES = ("supervisor", "auditor")
# scrypt cost: 2**14 x 8 x 1 uses 16 MiB and takes tens of milliseconds (OWASP's minimum is N=2**17 with
# r=8 p=1 for interactive logins when memory allows; the table PC is small and logins are rare: N=2**15).
N, R, P = 2**15, 8, 1
MAXMEM = 64 * 1024 * 1024
COOKIE = "floor_session"


class UsersError(Exception):
    pass


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    key = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P, maxmem=MAXMEM, dklen=32)
    return f"scrypt${N}${R}${P}${_b64(salt)}${_b64(key)}"


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


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    hash: str


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
        if len(parts) != 3 or parts[1] not in ROLES or not parts[2].startswith("scrypt$"):
            raise UsersError(f"{path} line {number}: expected 'name role scrypt-hash' with role one of {ROLES}")
        users[parts[0]] = Account(*parts)
    return users


def add_user(path: Path, name: str, role: str, password: str) -> None:
    """Add or replace one account (the file is created private)."""
    if role not in ROLES:
        raise UsersError(f"role must be one of {ROLES}, not {role!r}")
    if not name or any(c.isspace() for c in name):
        raise UsersError("a user name is one word")
    if len(password) < 8:
        raise UsersError("a password has at least 8 characters")
    users = load_users(path)
    users[name] = Account(name, role, hash_password(password))
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("".join(f"{a.name} {a.role} {a.hash}\n" for a in users.values()))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@dataclass
class Login:
    user: str
    role: str
    expires: float


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

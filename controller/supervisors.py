"""The floor supervisors the table knows: an allow-list of their IDs, stored as salted hashes (P93).

The dealer's panel reports the key switch and the 16-bit ID of the supervisor who turned it
(docs/protocols-modbus.md).  The configuration lists who may use the key (``[supervisors] ids``),
each ID as ``scrypt$N$r$p$SALT$HASH`` (hex), so that the file does not name them in clear;
``tablectl supervisor hash`` prints the entry for an ID read from standard input.  ID 0 is what the
panel reports with no supervisor: it is never a supervisor (P93).

``SupervisorList.known(id)`` checks an ID against the list; each answer is kept (the IDs of one
table are few), the hashing runs off the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets

ENTRY = re.compile(r"scrypt\$(\d{1,8})\$(\d{1,2})\$(\d{1,2})\$([0-9a-f]{32})\$([0-9a-f]{64})")
# scrypt's cost: hashlib's interface to OpenSSL; 2**14 with r=8 (16 MiB, some tens of milliseconds a check)
N, R, P = 2**14, 8, 1
MAX_ID = 0xFFFF  # the panel's supervisor_id register is 16 bits


def _scrypt(supervisor_id: int, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(str(supervisor_id).encode(), salt=salt, n=n, r=r, p=p, dklen=32,
                          maxmem=256 * n * r * p + 2**20)


def check_id(text: str) -> int:
    """A supervisor ID as the panel reports it (1 to 65535); ValueError naming what is wrong."""
    text = text.strip()
    if not text.isdigit():
        raise ValueError(f"a supervisor ID is a whole number from 1 to {MAX_ID}, not {text[:40]!r}")
    value = int(text)
    if not 1 <= value <= MAX_ID:
        raise ValueError(f"a supervisor ID is from 1 to {MAX_ID} (0 is the panel's 'no supervisor'), not {value}")
    return value


def hash_id(supervisor_id: int) -> str:
    """The allow-list entry of ``supervisor_id``, with a new random salt."""
    salt = secrets.token_bytes(16)
    return f"scrypt${N}${R}${P}${salt.hex()}${_scrypt(supervisor_id, salt, N, R, P).hex()}"


def entry_problem(entry: object) -> str | None:
    """Why ``entry`` is not an allow-list entry, or None."""
    m = ENTRY.fullmatch(entry) if isinstance(entry, str) else None
    if m is None:
        return "must be a hashed supervisor ID (scrypt$N$r$p$SALT$HASH, from `tablectl supervisor hash`)"
    n, r, p = (int(m.group(i)) for i in (1, 2, 3))
    if n < 2**14 or n & (n - 1) or n > 2**20 or not 1 <= r <= 32 or not 1 <= p <= 16:
        return f"scrypt cost N={n} r={r} p={p}: N must be a power of two from 2**14 to 2**20, r 1-32, p 1-16"
    return None


def matches(entry: str, supervisor_id: int) -> bool:
    m = ENTRY.fullmatch(entry)
    assert m is not None, "checked when the configuration was loaded"
    n, r, p = (int(m.group(i)) for i in (1, 2, 3))
    return hmac.compare_digest(_scrypt(supervisor_id, bytes.fromhex(m.group(4)), n, r, p),
                               bytes.fromhex(m.group(5)))


class SupervisorList:
    def __init__(self, entries: tuple[str, ...]) -> None:
        self.entries = entries
        self._answers: dict[int, bool] = {}

    def _check(self, supervisor_id: int) -> bool:
        return any(matches(e, supervisor_id) for e in self.entries)

    async def known(self, supervisor_id: int) -> bool:
        """Whether ``supervisor_id`` is on the list; 0 (no supervisor) never is (P93)."""
        if not 1 <= supervisor_id <= MAX_ID:
            return False
        if supervisor_id not in self._answers:
            self._answers[supervisor_id] = await asyncio.to_thread(self._check, supervisor_id)
        return self._answers[supervisor_id]

"""The journal's trust (issue 30): its identity, its anchor outside itself, its key, its sealed segments' digests.

A table's journal is *keyed* once the table has a key (``<journal>.key``: 32 random bytes as hex, mode 0600, the
daemon's user only; made at install or by ``tablectl journal key``, never by the daemon, P100).  A keyed journal:

* begins with its identity (``journal_begun``: the table id and game, the first facts of the chain, P99);
* has its head *sealed* in every transaction: ``meta.seal`` = ``seq:hash:mac``, the MAC an HMAC-SHA-256 under the
  key of the head's seq and hash; the SHA-256 chain binds every row to the head, so a journal re-hashed from an
  edited row onwards has a head no one without the key can seal (P100); each append checks the seal it extends;
* is *anchored* outside itself: ``<journal>.anchor`` (JSON, its own MAC) holds the table, game and a head (seq,
  hash), written after each commit into the older of its two slots (``advance_anchor``); it may lag the journal
  (a crash between the commit and the write), never lead it, so a journal behind its anchor is an older copy put
  back (P99);
* records each sealed segment's SHA-256 in the chain (``segment_sealed``, P101).

A table without a key is a development table (``--config``): journaled as before, unkeyed and unanchored;
``tablectl run --table`` (a table PC) refuses to start one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller import events
from controller.events import optional
from controller.journal.rows import JournalError

KEY_SUFFIX = ".key"
ANCHOR_SUFFIX = ".anchor"
FILE_MODE = 0o600


class JournalTrustError(JournalError):
    """The journal is not the one this table's anchor, key or sealed segments say (one line naming what);
    ``cause`` names it for programs (``journal_missing``, ``behind_anchor``, ``not_anchored_chain``, ...)."""

    def __init__(self, message: str, cause: str = "journal_trust") -> None:
        super().__init__(message)
        self.cause = cause


# -- the events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetersRestored(events.JournalEvent):
    """The progressive meters set back (the ``meter_set`` in the same transaction) by two different floor
    supervisors on the allow-list (``who`` names both; P103): after a journal begun again, never otherwise."""

    kind = "meters_restored"
    supervisors: list[int]
    by: str
    reason: str


@dataclass(frozen=True)
class JournalBegun(events.JournalEvent):
    """The first fact of a keyed journal (P99): whose journal it is.  ``by``/``reason``: the technician who began
    it again on purpose (``tablectl journal init``); ``replaces``: the head (``seq:hash``) of the chain it
    replaces, from the anchor, when there was one."""

    kind = "journal_begun"
    table: str
    game: str
    by: str | None = optional()
    reason: str | None = optional()
    replaces: str | None = optional()
    link_was: str | None = optional()  # the head (``seq:hash``) the link's database held, set anew (P121)


@dataclass(frozen=True)
class JournalAnchored(events.JournalEvent):
    """A journal taken as the table's chain from here on (P99): a journal begun before keys, on its first keyed
    start (``by`` the daemon), or one a technician accepts on purpose (``tablectl journal init --keep``: an
    older copy put back, an anchor lost); ``was``: the head (``seq:hash``) the anchor said before, if any."""

    kind = "journal_anchored"
    table: str
    game: str
    by: str | None = optional()
    reason: str | None = optional()
    was: str | None = optional()
    link_was: str | None = optional()  # the head (``seq:hash``) the link's database held, set anew (P121)


@dataclass(frozen=True)
class JournalRekeyed(events.JournalEvent):
    """The table's key replaced (``tablectl journal key --rotate``, P100): the head up to here was sealed under the
    key before; this event's head and every one after it, under the new key."""

    kind = "journal_rekeyed"
    by: str
    reason: str


@dataclass(frozen=True)
class SegmentSealed(events.JournalEvent):
    """A sealed segment's file and its SHA-256, in the roll-over's transaction (P101): the start checks every sealed
    segment's digest and the list against these."""

    kind = "segment_sealed"
    name: str
    first: int
    last: int
    sha256: str
    size: int


TRUST_KINDS = frozenset((JournalBegun.kind, JournalAnchored.kind, JournalRekeyed.kind, SegmentSealed.kind))

#: the kinds and their fields in words, for the floor's pages (web/words.py; controller/events.py says how)
WORDS: dict[str, str] = {
    "event.meters_restored": "Meters restored", "event.journal_begun": "Journal begun",
    "event.journal_anchored": "Journal anchored", "event.journal_rekeyed": "Journal's key replaced",
    "event.segment_sealed": "Segment sealed", "field.supervisors": "Supervisors", "field.was": "Was",
    "field.replaces": "Replaces", "field.name": "File", "field.first": "First", "field.last": "Last",
    "field.sha256": "SHA-256", "field.size": "Bytes",
    "field.link_was": "Link's anchor was",
}


# -- where they are --------------------------------------------------------------------------------


def key_file(journal: str | os.PathLike[str]) -> Path:
    """The table's key, beside its journal in the state directory (P100)."""
    return Path(f"{os.fspath(journal)}{KEY_SUFFIX}")


def anchor_file(journal: str | os.PathLike[str]) -> Path:
    """The journal's anchor, beside it (P99)."""
    return Path(f"{os.fspath(journal)}{ANCHOR_SUFFIX}")


# -- the key ---------------------------------------------------------------------------------------


def create_key(path: Path) -> Path:
    """Make a new key at ``path`` (refused when one is there: a key is never replaced silently); mode 0600."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        raise JournalTrustError(f"the key {path} exists: a key is never replaced (docs/journal.md: rotation)") from None
    except OSError as exc:
        raise JournalTrustError(f"cannot create the key {path}: {exc}") from None
    try:
        os.fchmod(fd, FILE_MODE)
        os.write(fd, (secrets.token_hex(32) + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_dir(path.parent)
    return path


def new_key_file(key: Path) -> Path:
    """Where a rotation keeps the next key until the journal is sealed under it (P100)."""
    return key.with_name(f"{key.name}.new")


def read_key(path: Path) -> bytes | None:
    """The key at ``path``; None when there is none; refused when others may read it or it is not a key."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        raise JournalTrustError(f"the key {path} is open to other users (mode {mode:04o}): chmod 600 it")
    try:
        text = path.read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise JournalTrustError(f"the key {path} is not readable: {exc}") from None
    if len(key) < 32:
        raise JournalTrustError(f"the key {path} is not a key (under 32 bytes)")
    return key


def mac(key: bytes, what: str) -> str:
    return hmac.new(key, what.encode("utf-8"), hashlib.sha256).hexdigest()


def seal_of(key: bytes, seq: int, digest: str) -> str:
    """``meta.seal``: the head (seq, hash) with its MAC under the key (P100)."""
    return f"{seq}:{digest}:{mac(key, f'seal:{seq}:{digest}')}"


def check_seal(key: bytes, value: str) -> tuple[int, str] | None:
    """The head a seal holds when its MAC is the key's; else None."""
    seq, _, rest = value.partition(":")
    digest, _, got = rest.partition(":")
    if not seq.isdigit() or not got:
        return None
    return (int(seq), digest) if hmac.compare_digest(seal_of(key, int(seq), digest), value) else None


# -- the anchor ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Anchor:
    table: str
    game: str
    seq: int
    hash: str

    def text(self, key: bytes) -> str:
        body = {"table": self.table, "game": self.game, "seq": self.seq, "hash": self.hash}
        body["mac"] = mac(key, "anchor:" + json.dumps(body, sort_keys=True))
        return json.dumps(body, sort_keys=True) + "\n"


SLOT = 4096  # the anchor's two slots, one block each: a write torn by a crash spoils only the slot it wrote


def _slot_text(anchor: Anchor, key: bytes) -> bytes:
    text = anchor.text(key).encode("utf-8")
    if len(text) >= SLOT:
        raise JournalTrustError("the anchor does not fit its slot (a table id or game too long)")
    return text.ljust(SLOT, b" ")


def read_anchor(path: Path, key: bytes) -> Anchor | None:
    """The anchor at ``path`` (None: none): the later of its two slots made under the key (the other is the one
    before it, or a write a crash tore); refused when neither reads or was made under the key."""
    return read_anchor_slot(path, key)[0]


def read_anchor_slot(path: Path, key: bytes) -> tuple[Anchor | None, int]:
    """``read_anchor`` and the slot it was read from (the next write goes to the other)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, 0
    except OSError as exc:
        raise JournalTrustError(f"the anchor {path} is not readable: {exc}") from None
    found: list[tuple[int, int, Anchor]] = []
    for slot in (0, 1):
        text = raw[slot * SLOT:(slot + 1) * SLOT].rstrip(b" ")
        try:
            d: Any = json.loads(text)
            anchor = Anchor(str(d["table"]), str(d["game"]), int(d["seq"]), str(d["hash"]))
        except (ValueError, KeyError, TypeError):
            continue
        if hmac.compare_digest(anchor.text(key).encode("utf-8"), text):
            found.append((anchor.seq, slot, anchor))
    if not found:
        raise JournalTrustError(f"the anchor {path} is not readable, or was not made under this table's key "
                                "(edited, or another table's)")
    seq, slot, anchor = max(found, key=lambda f: f[0])
    return anchor, slot


def write_anchor(path: Path, anchor: Anchor, key: bytes) -> None:
    """Make the anchor anew, whole: both slots, in a temporary file fsync'd and renamed over it (the first anchor,
    ``tablectl journal init``)."""
    tmp = path.with_name(f"{path.name}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, FILE_MODE)
    try:
        os.write(fd, _slot_text(anchor, key) * 2)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def advance_anchor(path: Path, anchor: Anchor, key: bytes, slot: int) -> None:
    """After each commit (P99): the anchor's ``slot`` rewritten in place and made durable (``fdatasync``: no
    file created or renamed, a fraction of the commit's own cost, tests/bench/anchor.py).  The other slot keeps
    the head before it, so a crash in the middle leaves an anchor one transaction behind the journal, which the
    start accepts, never one that does not read."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, _slot_text(anchor, key), slot * SLOT)
        os.fdatasync(fd)
    finally:
        os.close(fd)


def _fsync_dir(d: Path) -> None:
    fd = os.open(d if str(d) else ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sha256_file(path: Path) -> tuple[str, int]:
    """A file's SHA-256 (hex) and size."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


__all__ = ["ANCHOR_SUFFIX", "Anchor", "JournalAnchored", "JournalBegun", "JournalRekeyed", "JournalTrustError",
           "KEY_SUFFIX", "SegmentSealed", "TRUST_KINDS", "advance_anchor", "anchor_file", "check_seal", "create_key",
           "key_file", "mac", "new_key_file", "read_anchor", "read_anchor_slot", "read_key", "seal_of", "sha256_file",
           "write_anchor"]

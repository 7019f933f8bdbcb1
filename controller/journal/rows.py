"""The journal's rows: what one row holds, its canonical JSON and its link in the hash chain, the errors.

Split from ``controller.journal.store`` (which re-exports the names its callers use): the row format is
shared by the journal, its verification (``controller.journal.verify``) and its derived state
(``controller.journal.state``).  The format itself: docs/journal.md (the format of a row and the chain).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import hashlib
import json
import sqlite3
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from controller import events

GENESIS = "0" * 64

# The row formats (``meta.schema_version``, P76).  Both hash the same canonical JSON of the row the same way
# (``chain_hash``), so one chain runs through files of either format; they differ in how a row is stored:
#   1: ``at`` the ISO text, ``prev_hash`` and ``hash`` 64-character hex, an index on every kind;
#   2: ``at`` integer microseconds since 1970 UTC (the text when it would not give back the same text),
#      ``hash`` the 32-byte digest, no ``prev_hash`` (it is the row before's ``hash``, or ``meta.base``'s),
#      the index on kind only over ``INDEXED_KINDS`` (the kinds the journal is asked for by kind), and
#      ``data`` (the canonical JSON, as hashed) stored as raw DEFLATE with a preset dictionary when that is
#      shorter (a BLOB; else the text, and a checkpoint always as text); the dictionary is in the file
#      (``meta.dictionary``), written with its events table and never changed.
FORMAT_V1 = 1
FORMAT_V2 = 2
FORMATS = (FORMAT_V1, FORMAT_V2)
INDEXED_KINDS = ("checkpoint", "progressive_hit")  # format 2's partial index on kind (queries repeat the list)
KIND_INDEXED = f"kind IN ({', '.join(repr(k) for k in INDEXED_KINDS)})"  # the index's WHERE, SQL as written
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_MICRO = _dt.timedelta(microseconds=1)

METER_SET = events.MeterSet.kind
METER_ADD = events.MeterAdd.kind
METER_PAID = events.MeterPaid.kind
METER_KINDS = frozenset(e.kind for e in events.METERS)


class JournalError(Exception):
    """The journal cannot do what was asked (bad event, closed round, unusable file)."""


class JournalIntegrityError(JournalError):
    """``verify()`` found the journal altered: ``seq`` is the first row that does not check."""

    WHAT = ("edited", "deleted", "reordered", "unreadable")

    def __init__(self, seq: int | None, reason: str, what: str = "edited") -> None:
        if what not in self.WHAT:
            raise ValueError(what)
        self.seq = seq
        self.reason = reason
        self.what = what  # one of WHAT: for machines; the reason says it for people
        super().__init__(f"journal fails verification at seq {seq}: {what}: {reason}" if seq is not None
                         else f"journal fails verification: {what}: {reason}")


class JournalOwnerError(JournalError):
    """The journal was begun for another table or game than the configuration's."""


@dataclass(frozen=True)
class Event:
    seq: int
    at: str
    round_id: str | None
    kind: str
    who: str | None
    data: dict[str, Any] = field(repr=False)  # cards: never in a repr, never in a log

    @property
    def typed(self) -> events.AnyEvent:
        """The event as its declared type (``controller.events``); a kind not declared is ``Unrecognised``."""
        return events.parse(self.kind, self.data)


@dataclass(frozen=True)
class RoundSummary:
    round_id: str
    first_seq: int
    last_seq: int
    started_at: str
    events: int
    closed_by: str | None  # the closing kind, or None while the round is open


# -- JSON ------------------------------------------------------------------------------------------


_AS_IS = frozenset((bool, int, str))  # exactly these types (a subclass goes through _plain's checks)


def _plain(value: Any, where: str) -> Any:
    """``value`` with every Decimal as its exact string; refuse what JSON would not keep exactly."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise JournalError(f"{where}: not a finite amount")
        return format(value, "f")
    if isinstance(value, float):
        raise JournalError(f"{where}: a binary float; journal amounts as Decimal (or str/int)")
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise JournalError(f"{where}: keys must be strings")
            # the plain values as they are, without a call (most of a payload: a journal write's cost)
            out[k] = v if v is None or type(v) in _AS_IS else _plain(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [v if v is None or type(v) in _AS_IS else _plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise JournalError(f"{where}: a {type(value).__name__} cannot be journaled")


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _row_hash(prev_hash: str, seq: int, at: str, round_id: str | None, kind: str, who: str | None, data: str) -> str:
    body = _canonical({"seq": seq, "at": at, "round_id": round_id, "kind": kind, "who": who, "data": json.loads(data)})
    return hashlib.sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()


def _amount(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        raise JournalError(f"{where}: must be an amount (Decimal)")
    try:
        d = Decimal(value)
    except (InvalidOperation, ValueError, TypeError):
        raise JournalError(f"{where}: not an amount") from None
    if not d.is_finite():
        raise JournalError(f"{where}: not a finite amount")
    return d


def _check_meter_event(kind: str, data: Mapping[str, Any]) -> None:
    if kind in (METER_SET, METER_ADD):
        meters = data.get("meters")
        if not isinstance(meters, Mapping) or not meters:
            raise JournalError(f"{kind}: data needs \"meters\": {{name: amount, ...}}")
        for name, v in meters.items():
            _amount(v, f"{kind}.meters.{name}")
    else:
        if not isinstance(data.get("meter"), str):
            raise JournalError(f"{kind}: data needs \"meter\": name")
        _amount(data.get("paid"), f"{kind}.paid")
        _amount(data.get("after"), f"{kind}.after")



def chain_hash(prev_hash: str, seq: int, at: str, round_id: str | None, kind: str, who: str | None,
               data: str) -> str:
    """``_row_hash`` of a row whose ``data`` is already canonical JSON (as ``append`` stores it), without
    parsing it again: the canonical JSON of the row is composed around it (keys in sorted order)."""
    body = (f'{{"at":{_jstr(at)},"data":{data},"kind":{_jstr(kind)},"round_id":{_jstr(round_id)},'
            f'"seq":{seq},"who":{_jstr(who)}}}')
    return hashlib.sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4096)  # the same times, kinds and round ids row after row
def _jstr(value: str | None) -> str:
    """``_canonical`` of a string or None, without the encoder for the plain strings of ids, kinds and times."""
    if value is None:
        return "null"
    if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    return _canonical(value)


# -- the stored forms of format 2 (P76) -----------------------------------------------------------


def at_text(stored: Any) -> str:
    """The row's ``at`` as journaled (ISO text), from either stored form."""
    if isinstance(stored, int) and not isinstance(stored, bool):
        return (_EPOCH + stored * _MICRO).isoformat(timespec="microseconds")
    return stored  # type: ignore[no-any-return]  # format 1, or a time format 2 keeps as text


def stored_at(at: str) -> int | str:
    """Format 2's ``at``: integer microseconds since 1970 UTC when that gives back exactly ``at``, else ``at``."""
    try:
        moment = _dt.datetime.fromisoformat(at)
    except ValueError:
        return at
    if moment.tzinfo is None:
        return at
    us = (moment - _EPOCH) // _MICRO
    return us if at_text(us) == at else at


def hash_hex(stored: Any) -> Any:
    """The row's hash as hex (what ``chain_hash`` returns), from either stored form; anything else as it is."""
    return stored.hex() if isinstance(stored, bytes) else stored


# -- what the file says of its rows (``meta``, P76) -----------------------------------------------


def row_format(db: sqlite3.Connection) -> int:
    """The file's row format (``meta.schema_version``); a journal without it is of format 1."""
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row is not None and str(row[0]).isdigit() else FORMAT_V1


def stored_dictionary(db: sqlite3.Connection) -> bytes | None:
    """The file's dictionary for compressed data (``meta.dictionary``); None in a file of format 1."""
    row = db.execute("SELECT value FROM meta WHERE key = 'dictionary'").fetchone()
    return str(row[0]).encode("utf-8") if row is not None else None


# -- format 2's compressed data (P76) --------------------------------------------------------------


def dictionary() -> str:
    """The preset dictionary a new format-2 file is given: the journal's own words (every declared event's
    keys, as canonical JSON writes them, the settlement's, the places, the results, the wagers, the games and
    their clause prefixes), none of a round's values.  Later words come out shorter (DEFLATE prefers near
    matches): the most frequent kinds last."""
    words = ['"clause":"UTH ch.', '"clause":"HCF ', '"clause":"JHE ch.', '"clause":"RET ', "high_card_flush",
             "jackpot_holdem", "run_em_twice", '"game":"ultimate_texas_holdem"', '"result":"push","wager":"',
             '"result":"win","wager":"', '"shows_hand":true,"wagers":[{"net":"', '"shows_hand":false,"wagers":[',
             '"order":[{"clause":"', '"nets":{"', '"reset":{"major":"', '"unit":"', '"progressive":{"meters":',
             '"paytables":{"blind":"', '"trips":"', '"meters":{"major":"', '","minor":"', '"bad_beat"', '"envy"',
             '"progressive"', '"what":"turn_and_river"}', '"what":"flop"}', '"what":"dealer"}',
             '"result":"lose","wager":"', '","place":"community:', '","place":"dealer"}', '","place":"seat:']
    for kind, cls in sorted(events.EVENTS.items()):
        if kind != "checkpoint":
            words.append(_canonical({f.name: "" for f in dataclasses.fields(cls)}))
    words += ['{"check":false,"fold":false,"multiple":null,"seat":', '{"check":true,"fold":false,"multiple":null,'
              '"seat":', ',"wager":"ante"}', ',"wager":"blind"}', ',"wager":"play"}', '{"amount":"', '{"card":"']
    return "".join(words)


@functools.lru_cache(maxsize=4)
def _compressor(zdict: bytes) -> Any:
    """A compressor with ``zdict`` set, never used itself (``pack`` uses copies): a 4 KB window holds the
    dictionary, small tables (a row is a few dozen bytes); any window inflates what it writes."""
    return zlib.compressobj(6, zlib.DEFLATED, -12, 2, zlib.Z_DEFAULT_STRATEGY, zdict=zdict)


def pack(text: str, zdict: bytes | None) -> str | bytes:
    """``data`` as format 2 stores it: compressed when that is shorter (``zdict``: the file's dictionary)."""
    if zdict is None:
        return text
    raw = text.encode("utf-8")
    z = _compressor(zdict).copy()  # a copy of one with the dictionary set: cheaper than setting it again
    packed = z.compress(raw) + z.flush()
    return packed if len(packed) < len(raw) else text


def unpack(stored: Any, zdict: bytes | None) -> Any:
    """The canonical JSON text of a stored ``data``; anything not of either form as it is (the checks name it).
    Raises ``ValueError`` for a BLOB that does not inflate with the dictionary."""
    if not isinstance(stored, bytes):
        return stored
    if zdict is None:
        raise ValueError("compressed data in a journal without a dictionary")
    try:
        z = zlib.decompressobj(-15, zdict=zdict)
        text = z.decompress(stored) + z.flush()
        if not z.eof:
            raise ValueError("compressed data cut short")
        return text.decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(f"compressed data does not inflate: {exc}") from None

def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection to the SQLite file ``path`` that can only read it (``mode=ro``: nothing is created,
    migrated or written), usable from any thread; the journal's and its sealed segments' readers."""
    from urllib.request import pathname2url  # only readers need it: not imported by every daemon

    return sqlite3.connect(f"file:{pathname2url(str(path.resolve()))}?mode=ro", uri=True, isolation_level=None,
                           check_same_thread=False)

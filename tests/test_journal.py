"""The journal (controller/journal/store.py): append-before-effect, replay, hash chain, secrecy, crash safety."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

import format1
from controller.journal.rows import _row_hash, at_text, hash_hex, unpack
from controller.journal.store import (
    CLOSING_KINDS,
    GENESIS,
    Journal,
    JournalError,
    JournalIntegrityError,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "table.journal"


@pytest.fixture
def journal(path: Path):
    with Journal(path) as j:
        yield j


def stored_text(path: Path, data: str | bytes) -> str:
    """A row's data as stored, read back with the file's own dictionary (format 2 compresses it, P76)."""
    found = raw(path).execute("SELECT value FROM meta WHERE key = 'dictionary'").fetchone()
    return unpack(data, found[0].encode() if found else None)


def raw(path: Path) -> sqlite3.Connection:
    """A second connection, as someone editing the file by hand would open it."""
    return sqlite3.connect(str(path), isolation_level=None)


# -- appending and reading -----------------------------------------------------------------------


def test_append_returns_increasing_seq_and_events_read_back(journal: Journal) -> None:
    assert journal.append(None, "table_opened", {"dealer": "D1"}, who="S7") == 1
    assert journal.append("r1", "wagers_closed", {"seats": [1, 3]}, who="D1") == 2
    assert journal.append("r1", "cards_dealt", {"seat": 1, "cards": ["As", "Kd"]}) == 3
    assert journal.last_seq() == 3
    events = journal.events("r1")
    assert [e.seq for e in events] == [2, 3]
    assert events[0].kind == "wagers_closed" and events[0].who == "D1" and events[0].round_id == "r1"
    assert events[1].data == {"seat": 1, "cards": ["As", "Kd"]} and events[1].who is None
    assert events[0].at.endswith("+00:00") and events[0].at <= events[1].at  # UTC wall clock
    table = journal.events(None)
    assert [(e.seq, e.kind, e.who) for e in table] == [(1, "table_opened", "S7")]
    assert [e.seq for e in journal.iter_events()] == [1, 2, 3]
    assert [e.seq for e in journal.iter_events(after=1, batch=1)] == [2, 3]


def test_decimals_are_written_exactly_as_strings(journal: Journal, path: Path) -> None:
    journal.append(
        "r1", "settled", {"net": Decimal("12.50"), "meter": Decimal("1E+3"), "n": 3, "nested": [{"x": Decimal("0.10")}]}
    )
    (data,) = raw(path).execute("SELECT data FROM events").fetchone()
    assert json.loads(stored_text(path, data)) == {"meter": "1000", "n": 3, "nested": [{"x": "0.10"}], "net": "12.50"}
    assert journal.events("r1")[0].data["net"] == "12.50"


@pytest.mark.parametrize("data, words", [
    ({"net": 1.5}, "binary float"),
    ({"net": Decimal("NaN")}, "finite"),
    ({1: "x"}, "keys must be strings"),
    ({"when": object()}, "cannot be journaled"),
])
def test_what_json_would_not_keep_exactly_is_refused(journal: Journal, data: dict, words: str) -> None:
    with pytest.raises(JournalError, match=words):
        journal.append("r1", "x", data)
    assert journal.last_seq() == 0  # nothing half-written


def test_bad_arguments_are_refused(journal: Journal) -> None:
    for args, kw in [(("", "x", {}), {}), (("r1", "", {}), {}), (("r1", "x", {}), {"who": ""}), ((5, "x", {}), {})]:
        with pytest.raises(JournalError):
            journal.append(*args, **kw)


def test_event_repr_never_shows_the_data(journal: Journal) -> None:
    journal.append("r1", "cards_dealt", {"cards": ["As", "Kd"]})
    shown = repr(journal.events("r1")[0])
    assert "cards_dealt" in shown and "As" not in shown


def test_events_survive_reopening(path: Path) -> None:
    with Journal(path) as j:
        j.append("r1", "a", {"i": 1})
    with Journal(path) as j:
        assert j.append("r1", "b", {"i": 2}) == 2
        assert [e.data["i"] for e in j.events("r1")] == [1, 2]
        assert j.verify() == 2


def test_wal_and_full_sync(journal: Journal, path: Path) -> None:
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


# -- rounds --------------------------------------------------------------------------------------


def test_open_round_is_the_last_round_without_a_closing_event(journal: Journal) -> None:
    assert journal.open_round() is None
    journal.append(None, "deck_changed", {})
    assert journal.open_round() is None
    journal.append("r1", "round_started", {})
    assert journal.open_round() == "r1"
    journal.append("r1", "round_closed", {})
    assert journal.open_round() is None
    journal.append("r2", "round_started", {})
    journal.append("r2", "round_voided", {"reason": "shoe jam"})
    journal.append("r3", "round_started", {})
    journal.append(None, "deck_changed", {})  # table events do not hide the open round
    assert journal.open_round() == "r3"
    assert CLOSING_KINDS == {"round_closed", "round_voided"}


def test_a_closed_round_takes_no_more_events(journal: Journal) -> None:
    journal.append("r1", "round_started", {})
    journal.append("r1", "round_closed", {})
    with pytest.raises(JournalError, match="round r1 is closed"):
        journal.append("r1", "late", {})
    assert journal.last_seq() == 2


def test_rounds_last_n(journal: Journal) -> None:
    for i in range(1, 6):
        journal.append(f"r{i}", "round_started", {})
        journal.append(None, "stub_counted", {})
        if i != 5:
            journal.append(f"r{i}", "round_closed" if i != 3 else "round_voided", {})
    all_rounds = journal.rounds()
    assert [r.round_id for r in all_rounds] == ["r1", "r2", "r3", "r4", "r5"]
    last2 = journal.rounds(last=2)
    assert [(r.round_id, r.closed_by, r.events) for r in last2] == [("r4", "round_closed", 2), ("r5", None, 1)]
    assert journal.rounds(last=1)[0].first_seq == 13
    assert all_rounds[2].closed_by == "round_voided"
    assert journal.rounds(last=0) == []


# -- meters --------------------------------------------------------------------------------------


def test_meter_values_replay_the_meter_events(journal: Journal) -> None:
    assert journal.meter_values() == {}
    journal.append(None, "meter_set", {"meters": {"major": Decimal("1000.00"), "minor": Decimal("250.00")}}, who="S1")
    journal.append("r1", "meter_add", {"meters": {"major": Decimal("0.04"), "minor": Decimal("0.01")}})
    journal.append("r1", "meter_add", {"meters": {"major": Decimal("0.04")}})
    journal.append("r1", "round_closed", {})
    assert journal.meter_values() == {"major": Decimal("1000.08"), "minor": Decimal("250.01")}
    # a jackpot: paid, the meter back at its reset (R4)
    journal.append("r2", "meter_add", {"meters": {"major": Decimal("0.04")}})
    journal.append("r2", "meter_paid", {"meter": "major", "paid": Decimal("1000.12"), "after": Decimal("1000.00")})
    # a void takes its contributions back (R7a)
    journal.append("r3", "meter_add", {"meters": {"minor": Decimal("0.02")}})
    journal.append("r3", "meter_add", {"meters": {"minor": Decimal("-0.02")}})
    journal.append("r3", "round_voided", {})
    values = journal.meter_values()
    assert values == {"major": Decimal("1000.00"), "minor": Decimal("250.01")}
    assert all(isinstance(v, Decimal) for v in values.values())


def test_meter_values_equal_a_replay_of_random_events(journal: Journal) -> None:
    rng = random.Random(7)
    expected = {"mega": Decimal("10000.00"), "major": Decimal("1000.00")}
    journal.append(None, "meter_set", {"meters": dict(expected)})
    for i in range(60):
        name = rng.choice(["mega", "major"])
        if rng.random() < 0.85:
            add = Decimal(rng.randint(1, 500)) / 100
            journal.append(f"r{i}", "meter_add", {"meters": {name: add}})
            expected[name] += add
        else:
            after = max(Decimal("1000.00"), expected[name] - expected[name])
            journal.append(f"r{i}", "meter_paid", {"meter": name, "paid": expected[name], "after": after})
            expected[name] = after
    assert journal.meter_values() == expected


@pytest.mark.parametrize("kind, data", [
    ("meter_set", {}),
    ("meter_set", {"meters": {}}),
    ("meter_add", {"meters": {"major": "lots"}}),
    ("meter_add", {"meters": {"major": True}}),
    ("meter_paid", {"meter": "major", "paid": Decimal("5")}),
    ("meter_paid", {"paid": Decimal("5"), "after": Decimal("5")}),
])
def test_malformed_meter_events_are_refused(journal: Journal, kind: str, data: dict) -> None:
    with pytest.raises(JournalError):
        journal.append("r1", kind, data)
    assert journal.last_seq() == 0


# -- the hash chain ------------------------------------------------------------------------------


def _fill(journal: Journal, n: int = 10) -> None:
    for i in range(1, n + 1):
        journal.append(f"r{(i + 1) // 2}", "event", {"i": i, "amount": Decimal(i) / 4})


def test_verify_accepts_an_untouched_journal(journal: Journal) -> None:
    assert journal.verify() == 0
    assert journal.head() == (0, GENESIS)
    _fill(journal)
    assert journal.verify() == 10
    assert journal.head()[0] == 10


@pytest.mark.parametrize("row_format", [1, 2])
def test_each_row_chains_to_the_previous_one(path: Path, row_format: int) -> None:
    """P76: format 1 stores each row's link (``prev_hash``); format 2 stores the 32-byte digest only, the link
    being the row before's; both hash the same text the same way."""
    if row_format == 1:
        format1.empty(path)
    with Journal(path) as journal:
        _fill(journal, 3)
    if row_format == 1:
        rows = raw(path).execute("SELECT prev_hash, hash FROM events ORDER BY seq").fetchall()
        assert rows[0][0] == GENESIS
        assert rows[1][0] == rows[0][1] and rows[2][0] == rows[1][1]
    else:
        rows = raw(path).execute("SELECT seq, at, round_id, kind, who, data, hash FROM events ORDER BY seq").fetchall()
        prev = GENESIS
        for seq, at, round_id, kind, who, data, digest in rows:
            assert isinstance(at, int) and isinstance(digest, bytes) and len(digest) == 32
            assert digest.hex() == _row_hash(prev, seq, at_text(at), round_id, kind, who, stored_text(path, data))
            prev = digest.hex()
    assert len({h for *_, h in rows}) == 3


@pytest.mark.parametrize("sql, seq", [
    ("UPDATE events SET data = '{\"amount\":\"100\",\"i\":5}' WHERE seq = 5", 5),  # an edited amount
    ("UPDATE events SET kind = 'other' WHERE seq = 3", 3),
    ("UPDATE events SET who = 'S9' WHERE seq = 7", 7),
    ("UPDATE events SET round_id = 'r9' WHERE seq = 2", 2),
    ("UPDATE events SET at = '2020-01-01T00:00:00.000000+00:00' WHERE seq = 4", 4),
    ("DELETE FROM events WHERE seq = 6", 6),  # truncation in the middle
    ("DELETE FROM events WHERE seq >= 4 AND seq <= 6", 4),
    ("UPDATE events SET data = 'not json' WHERE seq = 8", 8),
])
def test_verify_finds_tampering(journal: Journal, path: Path, sql: str, seq: int) -> None:
    _fill(journal)
    raw(path).execute(sql)
    with pytest.raises(JournalIntegrityError) as info:
        journal.verify()
    assert info.value.seq == seq


@pytest.mark.parametrize("row_format", [1, 2])
def test_verify_finds_a_rewritten_row_with_a_recomputed_hash(path: Path, row_format: int) -> None:
    if row_format == 1:
        format1.empty(path)
    with Journal(path) as journal:
        _fill(journal)
        db = raw(path)
        seq, at, round_id, kind, who = db.execute("SELECT seq, at, round_id, kind, who FROM events WHERE seq = 5"
                                                  ).fetchone()
        prev = hash_hex(db.execute("SELECT hash FROM events WHERE seq = 4").fetchone()[0])
        forged = '{"amount":"100","i":5}'
        digest = _row_hash(prev, seq, at_text(at), round_id, kind, who, forged)
        db.execute("UPDATE events SET data = ?, hash = ? WHERE seq = 5",
                   (forged, digest if row_format == 1 else bytes.fromhex(digest)))
        with pytest.raises(JournalIntegrityError) as info:
            journal.verify()
        assert info.value.seq == 6  # the next row no longer links to it


def test_verify_finds_a_truncated_tail(journal: Journal, path: Path) -> None:
    _fill(journal)
    raw(path).execute("DELETE FROM events WHERE seq > 7")
    with pytest.raises(JournalIntegrityError, match="head says seq 10"):
        journal.verify()


def test_verify_message_names_no_data(journal: Journal, path: Path) -> None:
    journal.append("r1", "cards_dealt", {"cards": ["As", "Kd"]})
    raw(path).execute("UPDATE events SET data = '{\"cards\":[\"Ah\",\"Kd\"]}'")
    with pytest.raises(JournalIntegrityError) as info:
        journal.verify()
    assert "Ah" not in str(info.value) and "As" not in str(info.value)


# -- secrecy -------------------------------------------------------------------------------------


def test_the_journal_is_readable_by_its_owner_only(path: Path) -> None:
    old = os.umask(0o022)  # a permissive umask does not widen the journal
    try:
        with Journal(path) as j:
            j.append("r1", "cards_dealt", {"cards": ["As", "Kd"]})
            for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    finally:
        os.umask(old)


def test_an_existing_journal_open_to_others_is_refused(path: Path) -> None:
    Journal(path).close()
    path.chmod(0o644)
    with pytest.raises(JournalError, match="chmod 600"):
        Journal(path)


def test_a_file_that_is_not_a_journal_is_refused(path: Path) -> None:
    path.write_bytes(b"not a database" * 100)
    path.chmod(0o600)
    with pytest.raises(JournalError, match="not usable"):
        Journal(path)


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="cannot create"):
        Journal(tmp_path / "no" / "such" / "journal")


# -- crash safety --------------------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys
    from decimal import Decimal
    sys.path.insert(0, sys.argv[2])
    from controller.journal.store import Journal

    j = Journal(sys.argv[1])
    i = j.last_seq()
    while True:
        i += 1
        r = f"r{i // 4}"
        kind = "round_closed" if i % 4 == 3 else "event"
        seq = j.append(r, kind, {"i": i, "amount": Decimal(i) / 100, "cards": ["As", "Kd", "Qh"] * 20})
        assert seq == i
        sys.stdout.write(f"{seq}\\n")
        sys.stdout.flush()
    """
)


@pytest.mark.parametrize("run", range(3))
def test_sigkill_leaves_a_consistent_verified_prefix(path: Path, run: int) -> None:
    rng = random.Random(1000 + run)
    committed = 0
    for _ in range(2):  # killed twice: the second writer goes on from the first one's prefix
        n = rng.randint(20, 150)
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(ROOT)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert child.stdout is not None
            for _ in range(n):
                line = child.stdout.readline()
                assert line, "the writer stopped early"
                reported = int(line)
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        assert reported == committed + n

        with Journal(path) as j:
            total = j.verify()  # the chain checks: no half-written event
            assert total >= reported  # every event reported appended is there
            events = list(j.iter_events())
            assert [e.seq for e in events] == list(range(1, total + 1))
            assert all(e.data["i"] == e.seq and e.data["amount"] == str(Decimal(e.seq) / 100) for e in events)
            assert j.head() == (total, hash_hex(j._db.execute("SELECT hash FROM events WHERE seq = ?", (total,))
                                                .fetchone()[0]))
            committed = total

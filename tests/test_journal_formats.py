"""Row formats (P76, P77): a journal written in format 1 (before format 2) loads, verifies, recalls, settles
again and reports; it goes on in format 1 and its next segment begins in format 2, the chain continuous
across; format 2 holds the same events in fewer bytes and refuses a tampered row as format 1 does.

The format-1 journal is ``tests/journal_format1``: SQL dumps of a journal the program before format 2 wrote
(real UTH rounds, a meter, one roll-over).
"""

from __future__ import annotations

import io
import json
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

import format1
from controller.cli.main import main as tablectl
from controller.config.table import load_config
from controller.journal import segments as segs
from controller.journal.rows import pack, unpack
from controller.journal.store import Journal, JournalIntegrityError
from controller.table import TableLife
from test_journal_checkpoints import play

ROOT = Path(__file__).resolve().parent.parent
UTH = str(ROOT / "config" / "ultimate_texas_holdem.toml")
ROUNDS = ["r0000000", "r0000001", "r0000002", "r0000003"]  # the format-1 journal's rounds, two per file


def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = tablectl(list(argv), io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def schema_version(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        db.close()


@pytest.fixture
def old(tmp_path, monkeypatch) -> Path:
    path = format1.written(tmp_path)
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    return path


def test_a_format_1_journal_verifies_recalls_settles_again_and_reports(old):
    assert schema_version(old) == "1" and [schema_version(s.path) for s in segs.sealed(old)] == ["1"]
    code, out, err = run("journal", "verify", "--full", "--config", UTH)
    assert code == 0, err
    with segs.open_for_reading(old) as j:
        assert j.verify(full=True) == j.head()[0] == 127
        assert [r.round_id for r in j.rounds()] == ROUNDS
        assert j.events(ROUNDS[0])[0].at == "2026-01-01T00:02:00.000000+00:00"  # as the dump holds it
        settled = {rid: [e for e in j.events(rid) if e.kind == "settled"][0].data for rid in ROUNDS}
    for rid in (ROUNDS[0], ROUNDS[-1]):  # one in the sealed segment, one in the open file
        code, out, err = run("recall", "--round", rid, "--json", "--config", UTH)
        assert code == 0, err
        code, paid, err = run("settle", stdin=out)
        assert code == 0, err
        again = {str(seat["seat"]): Decimal(seat["net"]) for seat in json.loads(paid)["seats"]}
        assert again == {seat: Decimal(net) for seat, net in settled[rid]["nets"].items()}  # what was paid
    code, out, err = run("progressive", "report", "--json", "--config", UTH)
    assert code == 0, err


def test_a_format_1_journal_goes_on_and_its_next_segment_is_format_2(old):
    cfg = load_config(UTH)
    with Journal(old, checkpoint_every=100) as j:
        TableLife(cfg, j)
        j.check_at_start("uth-01", "ultimate_texas_holdem")
        play(j, "r-old")  # appended in the file's own format
        assert schema_version(old) == "1"
        seg = segs.roll_over(j)
        assert schema_version(old) == "2" and schema_version(seg.path) == "1"
        play(j, "r-new")
        meters = j.meter_values()
    with segs.open_for_reading(old) as j:
        assert j.verify(full=True) == j.head()[0]  # one chain: format 1, 1, then 2
        assert [r.round_id for r in j.rounds()] == [*ROUNDS, "r-old", "r-new"]
        # the meter set at 12000.00, then 0.04 from each of the six rounds
        assert j.meter_values() == meters and meters["major"] == Decimal("12000.00") + Decimal("0.04") * 6
        first_new = j.first_seq("r-new")
    db = sqlite3.connect(old)
    at, digest = db.execute("SELECT at, hash FROM events WHERE seq = ?", (first_new,)).fetchone()
    db.execute("UPDATE events SET data = '{\"amount\":\"500\",\"seat\":1,\"wager\":\"ante\"}' WHERE seq = ?",
               (first_new + 1,))
    db.commit()
    db.close()
    assert isinstance(at, int) and isinstance(digest, bytes) and len(digest) == 32
    with segs.open_for_reading(old) as j, pytest.raises(JournalIntegrityError) as caught:
        j.verify(full=True)
    assert (caught.value.seq, caught.value.what) == (first_new + 1, "edited")
    code, _, err = run("journal", "verify", "--full", "--config", UTH)
    assert code == 2 and f"seq {first_new + 1}: edited" in err


def test_format_2_compresses_data_with_the_files_dictionary_and_refuses_a_changed_blob(tmp_path):
    """P76: a row's data is stored deflated with the dictionary in the file when that is shorter; the event
    reads back as journaled, and a compressed value altered or replaced is refused like any edit."""
    path = tmp_path / "t.journal"
    with Journal(path) as j:
        play(j, "r1")
        wager = [e for e in j.events("r1") if e.kind == "wager"][0]
    db = sqlite3.connect(path)
    stored = db.execute("SELECT data FROM events WHERE seq = ?", (wager.seq,)).fetchone()[0]
    zdict = db.execute("SELECT value FROM meta WHERE key = 'dictionary'").fetchone()[0].encode()
    assert isinstance(stored, bytes) and len(stored) < len(json.dumps(wager.data, separators=(",", ":")))
    assert json.loads(unpack(stored, zdict)) == wager.data == {"seat": 1, "wager": "ante", "amount": "5"}
    for blob, what in ((b"\x00\xff\x13", "unreadable"),
                       (pack('{"amount":"500","seat":1,"wager":"ante"}', zdict), "edited")):
        db.execute("UPDATE events SET data = ? WHERE seq = ?", (blob, wager.seq))
        db.commit()
        with Journal.read_only(path) as j, pytest.raises(JournalIntegrityError) as caught:
            j.verify(full=True)
        assert (caught.value.seq, caught.value.what) == (wager.seq, what)
    db.close()

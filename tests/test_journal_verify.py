"""The journal is verified and belongs to its table (issue 13 findings 5 and 9; P90).

A journal copied and altered with sqlite3 (an event's data edited, a row deleted, two rows swapped,
JSON corrupted) is caught naming the first bad seq and what is wrong; the daemon refuses to start on
it; `status`, `recall` and `progressive` refuse it, and a journal of another table or game; the
operator tools give one line and exit 2 instead of a traceback.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

import format1
from controller import liveness
from controller.cli.main import main as tablectl
from controller.config.table import load_config
from controller.daemon import TableDaemon
from controller.journal.store import Journal, JournalIntegrityError, JournalOwnerError
from controller.paths import heartbeat_file

ROOT = Path(__file__).resolve().parent.parent
UTH = str(ROOT / "config" / "ultimate_texas_holdem.toml")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = tablectl(list(argv), io.StringIO(), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def journal_path(tmp_path, monkeypatch, request) -> Path:
    """A journal of table uth-01 as the daemon begins it (labelled, verified), with two rounds; in the row
    format this program writes (2), or in format 1 (P76) when the test asks (``indirect``)."""
    path = tmp_path / "table.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    if getattr(request, "param", 2) == 1:
        format1.empty(path)
    with Journal(path) as j:
        j.check_at_start("uth-01", "ultimate_texas_holdem")
        for r in ("r-1", "r-2"):
            j.append(r, "wager", {"seat": 1, "wager": "ante", "amount": "5"})
            j.append(r, "meter_add", {"meters": {"major": "0.01"}})
            j.append(r, "round_voided", {"reason": "test"})
    return path  # seqs 1..6


TAMPER = {  # what, the first bad seq, the SQL
    "edited": (2, "UPDATE events SET data = '{\"meters\":{\"major\":\"900.00\"}}' WHERE seq = 2"),
    "deleted": (3, "DELETE FROM events WHERE seq = 3"),
    "reordered": (2, "UPDATE events SET seq = -1 WHERE seq = 2; UPDATE events SET seq = 2 WHERE seq = 5; "
                     "UPDATE events SET seq = 5 WHERE seq = -1"),
    "unreadable": (4, "UPDATE events SET data = '{\"seat\": 1, ' WHERE seq = 4"),
}


def tamper(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.commit()
    db.close()


@pytest.mark.parametrize("journal_path", [1, 2], indirect=True, ids=["format1", "format2"])
@pytest.mark.parametrize("what", sorted(TAMPER))
def test_verify_names_the_first_bad_event(journal_path, what):
    seq, sql = TAMPER[what]
    copy = journal_path.with_name("copy.journal")
    shutil.copy(journal_path, copy)
    tamper(copy, sql)
    with Journal.read_only(copy) as j, pytest.raises(JournalIntegrityError) as caught:
        j.verify(full=True)
    assert (caught.value.seq, caught.value.what) == (seq, what)
    # the command on the altered journal: exit 2, one line naming the seq and what is wrong
    shutil.copy(copy, journal_path)
    code, out, err = run("journal", "verify", "--full", "--config", UTH)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"seq {seq}: {what}" in err


def test_an_intact_journal_verifies_and_says_whose_it_is(journal_path):
    code, out, err = run("journal", "verify", "--config", UTH)
    assert (code, err) == (0, "")
    with Journal.read_only(journal_path) as j:
        assert j.owner() == ("uth-01", "ultimate_texas_holdem")
        assert j.verify() == 6


def test_the_start_check_rehashes_from_the_last_verified_point(journal_path):
    with Journal(journal_path) as j:
        assert j.check_at_start("uth-01", "ultimate_texas_holdem") == 6  # verified point: seq 6
        j.append("r-3", "wager", {"seat": 1, "wager": "ante", "amount": "5"})  # seq 7, after it
    tamper(journal_path, "UPDATE events SET data = '{\"amount\":\"9\",\"seat\":1,\"wager\":\"ante\"}' WHERE seq = 7")
    with Journal.read_only(journal_path) as j, pytest.raises(JournalIntegrityError) as caught:
        j.verify(full=False)
    assert (caught.value.seq, caught.value.what) == (7, "edited")


@pytest.mark.parametrize("journal_path", [1], indirect=True, ids=["format1"])
def test_an_edit_before_the_verified_point_needs_the_full_check_a_deletion_does_not(journal_path):
    with Journal(journal_path) as j:
        j.check_at_start("uth-01", "ultimate_texas_holdem")
    tamper(journal_path, TAMPER["edited"][1])
    with Journal.read_only(journal_path) as j:
        assert j.verify(full=False) == 6  # P90: contents before the verified point are not rehashed at start
        with pytest.raises(JournalIntegrityError) as caught:
            j.verify(full=True)
        assert (caught.value.seq, caught.value.what) == (2, "edited")
    tamper(journal_path, TAMPER["deleted"][1])
    with Journal.read_only(journal_path) as j, pytest.raises(JournalIntegrityError) as caught:
        j.verify(full=False)
    assert (caught.value.seq, caught.value.what) == (3, "deleted")


def test_format_2_rehashes_at_start_from_the_checkpoint_before_the_verified_point(journal_path):
    """P77: format 2 stores no link, so the start rehashes what format 1 only links (from the latest checkpoint
    at or before the verified point): an edit after that checkpoint is found at start, one before it by the
    full check only."""
    with Journal(journal_path) as j:
        j.check_at_start("uth-01", "ultimate_texas_holdem")
        j.append("r-3", "wager", {"seat": 1, "wager": "ante", "amount": "5"})  # seq 7
        j.checkpoint("test")  # seq 8, and the verified point moves to it
        j.append("r-3", "wager", {"seat": 1, "wager": "blind", "amount": "5"})  # seq 9
    tamper(journal_path, "UPDATE events SET data = '{\"amount\":\"9\",\"seat\":1,\"wager\":\"ante\"}' WHERE seq = 7")
    with Journal.read_only(journal_path) as j:
        assert j.verify(full=False) == 9  # before the checkpoint: the start does not read it
        with pytest.raises(JournalIntegrityError) as caught:
            j.verify(full=True)
        assert (caught.value.seq, caught.value.what) == (7, "edited")
    tamper(journal_path, "UPDATE events SET data = '{\"amount\":\"9\",\"seat\":1,\"wager\":\"blind\"}' WHERE seq = 9")
    with Journal.read_only(journal_path) as j, pytest.raises(JournalIntegrityError) as caught:
        j.verify(full=False)
    assert (caught.value.seq, caught.value.what) == (9, "edited")


def test_the_daemon_refuses_a_broken_journal(journal_path):
    tamper(journal_path, TAMPER["deleted"][1])
    cfg = load_config(UTH)
    with pytest.raises(JournalIntegrityError) as caught:
        TableDaemon(cfg)
    assert caught.value.seq == 3
    code, out, err = run("run", "--config", UTH)
    assert code == 2 and err.count("\n") == 1 and "seq 3" in err


@pytest.mark.parametrize("argv", [("recall",), ("progressive", "report"), ("progressive", "history"),
                                  ("journal", "verify", "--full")])
def test_the_read_tools_refuse_a_forged_journal(journal_path, argv):
    tamper(journal_path, TAMPER["edited"][1])
    code, out, err = run(*argv, "--config", UTH)
    assert code == 2 and out == "" and err.count("\n") == 1 and "seq 2" in err


def foreign(tmp_path: Path) -> Path:
    """A journal begun by table hcf-01 (High Card Flush) where uth-01's configuration points."""
    path = tmp_path / "table.journal"
    with Journal(path) as j:
        j.check_at_start("hcf-01", "high_card_flush")
        j.append("r-1", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
    return path


@pytest.mark.parametrize("argv", [("recall",), ("progressive", "report"), ("journal", "verify"), ("run",)])
def test_a_journal_of_another_table_or_game_is_refused(journal_path, tmp_path, argv):
    journal_path.unlink()
    foreign(tmp_path)
    code, out, err = run(*argv, "--config", UTH)
    assert code == 2 and err.count("\n") == 1 and "hcf-01" in err
    with pytest.raises(JournalOwnerError):
        TableDaemon(load_config(UTH))


def test_an_unlabelled_journal_is_accepted_and_reported(tmp_path, monkeypatch):
    path = tmp_path / "old.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    with Journal(path) as j:  # begun before journals named their table
        j.append("r-1", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
        j.claim("uth-01", "ultimate_texas_holdem")  # a journal with events is not labelled afterwards
        assert j.owner() is None
    code, out, err = run("journal", "verify", "--config", UTH)
    assert code == 0 and "unlabelled" in out
    assert run("recall", "--config", UTH)[0] == 0


def test_recall_on_an_empty_file_writes_nothing_into_it(tmp_path, monkeypatch):
    path = tmp_path / "empty.journal"
    path.touch(mode=0o600)
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    for argv in (("recall",), ("progressive", "report"), ("journal", "verify")):
        code, out, err = run(*argv, "--config", UTH)
        assert code == 2 and err.count("\n") == 1
    assert path.stat().st_size == 0


def write_status(journal_path: Path, **changes) -> Path:
    status = {"table": "uth-01", "game": "ultimate_texas_holdem", "state": "open", "devices": {"panel": "online"},
              "meters": {}, "round": None, "message": "", "updated": time.time(), "heartbeat_every": 5.0, **changes}
    path = journal_path.with_suffix(".status.json")
    path.write_text(json.dumps(status))
    return path


def test_status_says_not_running_when_the_heartbeat_is_stale(journal_path):
    """Running as the screens say it (controller/liveness.py): the heartbeat file touched within STALE_S; a
    fresh status without a heartbeat (a daemon just stopped) is not running."""
    write_status(journal_path)
    beat = heartbeat_file(journal_path)
    beat.touch()
    code, out, _ = run("status", "--json", "--config", UTH)
    shown = json.loads(out)
    assert code == 0 and shown["running"] is True and shown["heartbeat"] == beat.stat().st_mtime
    stale = time.time() - liveness.STALE_S - 1
    os.utime(beat, (stale, stale))
    code, out, _ = run("status", "--json", "--config", UTH)
    assert code == 0 and json.loads(out)["running"] is False  # frozen or killed: its status is fresh, its beat not
    beat.unlink()
    write_status(journal_path, updated=time.time() - 60)
    code, out, _ = run("status", "--json", "--config", UTH)
    shown = json.loads(out)
    assert code == 0 and shown["running"] is False and shown["heartbeat_age"] >= 60 and shown["heartbeat"] is None
    code, out, _ = run("status", "--config", UTH)
    assert code == 0 and "not running" in out and "panel" not in out  # no device shown online


def test_status_refuses_a_truncated_status_file_and_a_foreign_one(journal_path):
    path = write_status(journal_path)
    path.write_text(path.read_text()[:40])
    code, out, err = run("status", "--config", UTH)
    assert code == 2 and out == "" and err.count("\n") == 1
    write_status(journal_path, table="hcf-01", game="high_card_flush")
    code, out, err = run("status", "--config", UTH)
    assert code == 2 and err.count("\n") == 1 and "hcf-01" in err


def test_status_refuses_a_forged_journal(journal_path):
    write_status(journal_path)
    tamper(journal_path, TAMPER["deleted"][1])
    code, out, err = run("status", "--config", UTH)
    assert code == 2 and out == "" and "seq 3" in err


@pytest.mark.parametrize("argv", [("status",), ("recall",), ("run",), ("journal", "verify")])
def test_an_empty_journal_setting_is_one_line(monkeypatch, argv):
    monkeypatch.setenv("TABLE_JOURNAL", "")
    code, out, err = run(*argv, "--config", UTH)
    assert code == 2 and err.count("\n") == 1 and "journal" in err


def test_an_unwritable_journal_path_is_one_line(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TABLE_JOURNAL", str(blocker / "table.journal"))
    code, out, err = run("run", "--config", UTH)
    assert code == 2 and err.count("\n") == 1

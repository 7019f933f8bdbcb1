"""Storage faults halt the round, never the daemon (issue 30; P97, P104).

A full disk, an I/O error, a status file that cannot be written: the daemon keeps running, the round halts
where the journal stands, every press is refused naming its cause, the dealer and the floor are told (the
status's ``storage``, the glance page), and play resumes when a write takes again, journaled
(``journal_fault``).  The reserve beside the journal (``[journal_options] reserve_mb``) is given up when the
disk is first found full, so that the round in progress finishes; no new round opens until it is made again.

The disk is ``storage_sweep.Disk`` (the journal's writes fail as SQLite fails them on a full disk), the status
file's write an ``OSError(ENOSPC)``, and once a real 2 MB tmpfs filled to the last block (as root, as CI runs).
``test_storage_fault_sweep_sample`` is ``make test``'s sample of the soak (``tests/soak_storage.py``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import sqlite3
import subprocess
from pathlib import Path

import pytest

import controller.journal.store
import controller.service.status
import controller.service.storage
from controller.journal.store import Journal
from controller.service.storage import cause_of, reserve_path
from daemon_harness import confirm, phase, play_out, table_in_process
from kill_invariants import violations
from storage_sweep import Disk, storage_sweep

GAME = "ultimate_texas_holdem"


@pytest.mark.parametrize(("error", "cause"), [
    (OSError(errno.ENOSPC, "No space left on device"), "disk_full"),
    (OSError(errno.EDQUOT, "Disk quota exceeded"), "disk_full"),
    (OSError(errno.EIO, "Input/output error"), "io_error"),
    (OSError(errno.EROFS, "Read-only file system"), "read_only"),
    (OSError(errno.EPERM, "Operation not permitted"), "storage_error"),
    (sqlite3.OperationalError("database or disk is full"), "disk_full"),
    (sqlite3.OperationalError("disk I/O error"), "io_error"),
    (sqlite3.OperationalError("attempt to write a readonly database"), "read_only"),
    (sqlite3.DatabaseError("database disk image is malformed"), "storage_error"),
])
def test_each_failed_write_is_named_by_its_cause(error, cause):
    assert cause_of(error) == cause


@contextlib.contextmanager
def table_on(disk_full_at: int | None, tmp_path, monkeypatch, mode: str = "full"):
    """The in-process UTH table with ``Disk`` in place of the journal's test hook and the reserve's allocation."""
    disk = Disk(tmp_path / "table.journal")
    monkeypatch.setattr(controller.journal.store, "_test_kill_point", disk.hook)
    monkeypatch.setattr(controller.service.storage.os, "posix_fallocate", disk.fallocate(os.posix_fallocate))
    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        if disk_full_at is not None:
            disk.arm(disk_full_at, mode)
        yield t, disk


def _to_decisions(t):
    t.until(lambda s: phase(s) == "wagers", "a round opened")
    t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}, "6": {"0": 1000, "1": 1000}})
    t.controls["progressive"]("wager", seat=6)
    t.press("no_more_bets")
    t.press("confirm")
    return t.until(lambda s: phase(s) == "decisions", "the decisions")


def _check(t):
    registers = t.controls["progressive"]("state")["state"]
    found = violations(t.cfg, t.journal_path, t.status(), registers)
    assert not found, "\n".join(found)


def test_a_full_disk_at_a_decision_halts_gives_up_the_reserve_and_the_round_finishes(tmp_path, monkeypatch):
    """The decision's write fails (disk full): the daemon is alive, the decision is not taken (not journaled,
    not shown), the press refused naming its cause, the reserve given up; the next press takes a write (the
    fault journaled), the round plays to its end; no new round opens until the floor frees space, then it
    opens by itself (the daemon's retry) and play goes on (P97, P104)."""
    with table_on(None, tmp_path, monkeypatch) as (t, disk):
        assert reserve_path(t.journal_path).stat().st_size == 4_000_000  # held from the start
        s = _to_decisions(t)
        round_id = s["round"]["round_id"]
        assert s["storage"] == {"state": "ok", "cause": None, "problem": None, "since": None, "reserve": "held",
                                "faults": 0}
        disk.arm(1, "full")
        before = s["round"]
        buzzes = t.controls["panel"]("outputs")["buzz_count"]
        s = t.press("check")
        assert t.daemon.poll() is None
        assert (s["told"]["kind"], s["told"]["cause"], s["told"]["also"]) == ("refused", "journal_fault",
                                                                              ["disk_full"])
        assert "P97" in s["told"]["clauses"]
        assert t.controls["panel"]("outputs")["buzz_count"] == buzzes + 1
        assert s["storage"]["state"] == "halted" and s["storage"]["cause"] == "disk_full"
        assert s["storage"]["reserve"] == "released" and s["storage"]["faults"] == 1
        assert s["next_action"] == {"action": "storage_fault", "button": None, "key": False, "why": "P97",
                                    "cause": "disk_full",
                                    "steps": [{"n": 1, "do": "stop_play", "clause": "P97"},
                                              {"n": 2, "do": "call_floor", "clause": "P97"},
                                              {"n": 3, "do": "free_disk", "clause": "P97"},
                                              {"n": 4, "do": "table_resumes", "clause": "P97"}]}
        assert s["round"] == before  # the decision did not happen
        assert not reserve_path(t.journal_path).exists()
        with Journal(t.journal_path) as j:
            assert not [e for e in j.events(round_id) if e.kind == "decision"]
        s = t.press("check")  # the reserve's room takes the write: the fault journaled, the table recovered
        assert s["storage"]["state"] == "low" and "journal_writable" in s["told"]["also"]
        assert phase(s) == "decisions" and s["round"] == before
        with Journal(t.journal_path) as j:
            faults = [e for e in j.events(None) if e.kind == "journal_fault"]
        assert len(faults) == 1 and "database or disk is full" in faults[0].data["problem"]
        play_out(t)
        s = t.until(lambda s: phase(s) == "settled", "the settlement")
        s = confirm(t)  # the round closes; no new one for want of room
        assert s["round"] is None and s["storage"]["state"] == "low"
        assert (s["told"]["kind"], s["told"]["cause"], s["told"]["clauses"]) == ("halted", "disk_full", ["P104"])
        assert s["next_action"]["action"] == "free_storage"
        s = t.press("no_more_bets")  # no round: refused, saying why
        assert (s["told"]["kind"], s["told"]["cause"]) == ("refused", "disk_full") and s["round"] is None
        _check(t)
        disk.free()  # the floor frees space: the reserve is made again and the next round opens by itself
        s = t.until(lambda s: phase(s) == "wagers", "the next round")
        assert s["storage"]["state"] == "ok" and s["storage"]["reserve"] == "held"
        assert reserve_path(t.journal_path).stat().st_size == 4_000_000
        t.press("no_more_bets")
        _check(t)


def test_no_progressive_wager_is_taken_while_no_round_can_record_it(tmp_path, monkeypatch):
    """Issue 30: a storage fault takes no new wager.  The disk fills at a decision: the round finishes on the
    reserve, then no round opens (P104) and the progressive system's lock-out is set, so a progressive wager tried
    meanwhile is not accepted; once the floor frees space the next round opens with the lock-out released and a
    wager is taken again."""
    with table_on(None, tmp_path, monkeypatch) as (t, disk):
        progressive = t.controls["progressive"]
        _to_decisions(t)
        disk.arm(1, "full")
        t.press("check")  # refused: the disk is full (the reserve given up)
        s = t.press("check")  # the reserve's room takes the write
        assert s["storage"]["state"] == "low"
        play_out(t)
        t.until(lambda s: phase(s) == "settled", "the settlement")
        s = confirm(t)
        assert s["round"] is None and s["storage"]["state"] == "low"
        assert progressive("outputs")["lockout"] is True  # held for the storage fault, not left released
        assert progressive("wager", seat=3) == {"accepted": False, "late": True}
        disk.free()
        s = t.until(lambda s: phase(s) == "wagers", "the next round")
        assert progressive("outputs")["lockout"] is False
        assert progressive("wager", seat=2) == {"accepted": True}
        _check(t)


def test_a_daemon_started_on_a_full_disk_halts_and_resumes_where_the_journal_stands(tmp_path, monkeypatch):
    """Issue 30: a start on a full disk is a storage fault like any other, not an exit: the daemon restarts with
    a round taking wagers, its first write fails (the disk full), it stays up with the table halted and says why;
    the next press finds room (the reserve given up) and the round is where the journal left it."""
    with table_on(None, tmp_path, monkeypatch) as (t, disk):
        round_id = t.until(lambda s: phase(s) == "wagers", "a round opened")["round"]["round_id"]
        assert t.stop_daemon() == 0
        disk.arm(1, "full")
        t.start_daemon()
        s = t.until(lambda s: s.get("storage", {}).get("state") == "halted", "the halt at start")
        assert t.daemon.poll() is None
        assert (s["storage"]["cause"], s["told"]["kind"], s["told"]["cause"]) == ("disk_full", "refused",
                                                                                  "journal_fault")
        s = t.press("no_more_bets")  # not acted on: it finds the journal writable again
        assert "journal_writable" in s["told"]["also"] and s["storage"]["state"] == "low"
        assert phase(s) == "wagers" and s["round"]["round_id"] == round_id
        _check(t)


def test_a_journal_rewritten_under_the_daemon_halts_the_table_and_keeps_it_halted(tmp_path, monkeypatch):
    """Issue 30: a chain rewritten while the daemon runs (here its seal replaced, P100) is found at the next append:
    the daemon does not end; the table halts as for a storage fault, naming the cause (``journal_untrusted``),
    refuses every press, never resumes by itself (the retry finds the same), and the rewritten journal is not
    sealed again: a restart refuses it, naming it."""
    with table_on(None, tmp_path, monkeypatch) as (t, disk):
        s = _to_decisions(t)
        before = s["round"]
        with contextlib.closing(sqlite3.connect(t.journal_path)) as db, db:
            db.execute("UPDATE meta SET value = 'forged' WHERE key = 'seal'")
        s = t.press("check")
        assert t.daemon.poll() is None
        assert (s["told"]["kind"], s["told"]["cause"], s["told"]["also"]) == ("refused", "journal_fault",
                                                                              ["journal_untrusted"])
        assert s["storage"]["state"] == "halted" and s["storage"]["cause"] == "journal_untrusted"
        assert [step["do"] for step in s["next_action"]["steps"]] == ["stop_play", "call_floor", "check_journal"]
        assert s["round"] == before
        s = t.press("check")  # tried again: still untrusted, still refused
        assert s["storage"]["cause"] == "journal_untrusted" and s["round"] == before
        with contextlib.closing(sqlite3.connect(t.journal_path)) as db:
            assert db.execute("SELECT value FROM meta WHERE key = 'seal'").fetchone()[0] == "forged"
        t.stop_daemon()
        t.start_daemon()
        assert t.daemon.wait(timeout=30) != 0
        assert "seal" in str(t.daemon.exception())


def test_an_io_error_in_the_deal_holds_until_the_disk_answers_then_the_deal_is_voided(tmp_path, monkeypatch):
    """An I/O error at a card's write, lasting: every press refused (naming io_error), the reserve kept, the
    daemon alive; when the disk answers again the daemon's retry takes a write with no press, and the round
    recovers as after a restart: a deal cut short is voided (P34), nothing lost or doubled."""
    with table_on(None, tmp_path, monkeypatch) as (t, disk):
        t.until(lambda s: phase(s) == "wagers", "a round opened")
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
        t.press("no_more_bets")
        disk.arm(2, "io")  # the deal's second write
        s = t.press("confirm")
        assert t.daemon.poll() is None
        assert s["storage"]["state"] == "halted" and s["storage"]["cause"] == "io_error"
        assert s["storage"]["reserve"] == "held"
        for button in ("check", "confirm", "void_round"):
            s = t.press(button)
            assert (s["told"]["kind"], s["told"]["cause"], s["told"]["also"]) == ("refused", "journal_fault",
                                                                                  ["io_error"]), s["told"]
            assert t.daemon.poll() is None
        failed = disk.failed
        assert failed >= 3  # every press tried a write
        disk.free()
        s = t.until(lambda s: s["storage"]["state"] == "ok", "the retry's write")  # no press needed
        assert phase(s) == "voided" and s["told"]["cause"] == "restarted_during_deal"
        assert "journal_writable" in s["told"]["also"]
        t.press("confirm")
        _check(t)


def test_a_status_file_that_cannot_be_written_halts_and_never_kills(tmp_path, monkeypatch):
    """The status file's write fails (ENOSPC): the daemon is alive, the reserve is given up and the write
    tried again at once (it takes); when it fails still, presses are refused ``status_fault`` until a status
    is written again (the dealer's screen would show an older one)."""
    failing = {"n": 0}
    real = controller.service.status.write_status

    def write_status(path: Path, text: str) -> None:
        if failing["n"]:
            failing["n"] -= 1
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, text)

    monkeypatch.setattr(controller.service.status, "write_status", write_status)
    with table_on(None, tmp_path, monkeypatch) as (t, _disk):
        s = t.until(lambda s: phase(s) == "wagers", "a round opened")
        failing["n"] = 1  # the first try fails, the reserve given up, the second takes
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
        s = t.press("no_more_bets")
        assert phase(s) == "no_more_bets" and s["storage"]["reserve"] == "released"
        assert s["storage"]["state"] == "low" and t.daemon.poll() is None
        failing["n"] = 10 ** 6  # the status cannot be written at all
        t.controls["panel"]("press", button="confirm")
        daemon = t.daemon.daemon
        deadline = 200
        while daemon.storage.status_fault is None and deadline:  # seen in the daemon: no status is written
            t.dealer.next_status(t.status(), 0.1)
            deadline -= 1
        assert daemon.storage.status_fault is not None and t.daemon.poll() is None
        failing["n"] = 0
        s = t.until(lambda s: s["storage"]["state"] != "halted" and s["presses_handled"] >= 2, "the status again")
        assert t.daemon.poll() is None
        s = t.press("confirm")
        assert s["storage"]["state"] in ("low", "ok")
        _check(t)


def _mount_tmpfs(where: Path, size: str) -> str | None:
    """A tmpfs of ``size`` at ``where``; None when mounted, else why not."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root (CI runs as root)"
    where.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
                       capture_output=True, text=True)
    return None if p.returncode == 0 else f"mount -t tmpfs refused: {p.stderr.strip()}"


def test_a_real_full_disk_halts_the_round_and_play_resumes_once_space_is_freed(tmp_path, monkeypatch):
    """Once for real: the journal on a 24 MB tmpfs, filled to its last block by another file; SQLite's own
    write fails, the daemon lives, the reserve (4 MB: a round's write-ahead log frames take some hundreds of
    kB) gives the round in progress its room, and once the other file is gone a new round opens.  Needs root
    (``mount``): skipped with that reason otherwise."""
    where = tmp_path / "disk"
    why = _mount_tmpfs(where, "24m")
    if why is not None:
        pytest.skip(why)
    try:
        with table_in_process(GAME, where, monkeypatch) as t:
            t.start_daemon()
            t.open_table()
            t.until(lambda s: phase(s) == "wagers", "a round opened")
            assert reserve_path(t.journal_path).exists()
            filler = where / "filler"
            fd = os.open(filler, os.O_CREAT | os.O_WRONLY, 0o600)  # the rest of the disk taken by something else
            try:
                with contextlib.suppress(OSError):
                    while True:
                        os.write(fd, bytes(4096))
            finally:
                os.close(fd)
            s = t.status()
            for _ in range(40):  # play until a write finds the disk full
                if s["storage"]["faults"]:
                    break
                t.dealer.step()
                s = t.status()
                assert t.daemon.poll() is None
            assert s["storage"]["faults"] >= 1 and s["storage"]["cause"] == "disk_full", s["storage"]
            assert not reserve_path(t.journal_path).exists()
            for _ in range(200):  # the round in progress finishes in the reserve's room
                s = t.status()
                if s["round"] is None:
                    break
                t.dealer.step()
                assert t.daemon.poll() is None
            assert s["round"] is None and s["next_action"]["action"] == "free_storage", s
            filler.unlink()
            s = t.until(lambda s: phase(s) == "wagers", "a round once space is freed")
            assert s["storage"]["state"] == "ok" and reserve_path(t.journal_path).exists()
            with Journal(t.journal_path) as j:
                assert [e.kind for e in j.events(None)].count("journal_fault") >= 1
                j.verify()
            t.dealer.step()
            _check(t)
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


FAULTS = int(os.environ.get("STORAGE_FAULTS", "6"))


def test_storage_fault_sweep_sample(tmp_path, monkeypatch):
    """``make test``'s sample of the soak (``tests/soak_storage.py``: 60 faults over the four games): faults
    at random writes of UTH's play, each of the three kinds (full with the reserve, full without, I/O)."""
    rng = random.Random(f"storage-{GAME}-{FAULTS}")
    disk = Disk(tmp_path / "table.journal")
    monkeypatch.setattr(controller.journal.store, "_test_kill_point", disk.hook)
    monkeypatch.setattr(controller.service.storage.os, "posix_fallocate", disk.fallocate(os.posix_fallocate))
    with table_in_process(GAME, tmp_path, monkeypatch, seed=rng.randrange(1000)) as t:
        result = storage_sweep(t, disk, rng, GAME, FAULTS)
    print(result.line())
    assert result.faults == FAULTS
    assert not result.violations, "\n".join(result.violations)
    assert result.refusals >= FAULTS and result.rounds_closed > 0


def test_the_floor_sees_the_storage_at_a_glance():
    """The glance page's row from the status's ``storage`` (``web/floor.py``): the state, the cause, the problem."""
    from web.floor import _storage
    from web.words import say

    ok = _storage({"state": "ok", "cause": None, "problem": None, "reserve": "held"})
    assert ok == f"{say('ok', 'storage')} (reserve: {say('held', 'storage')})"
    row = _storage({"state": "halted", "cause": "io_error", "problem": "/j: disk I/O error", "reserve": "held"})
    assert row.startswith(say("halted", "storage").upper()) and say("io_error", "storage") in row
    assert "disk I/O error" in row and "io_error" not in row  # the cause in words
    low = _storage({"state": "low", "cause": "disk_full", "problem": None, "reserve": "released"})
    assert low.startswith(say("low", "storage").upper())
    assert _storage(None) == "-"

"""The journal's identity, its anchor, its keyed chain and its sealed segments (issue 30 findings 1, 7, 8; P99-P102).

Each finding, tried as an attacker would, is refused here with one line naming what is wrong; on the program
before this change each of these was accepted.  A table's key is written here as the installer's command makes
it (64 hex digits, mode 0600), so that the tests of the findings need nothing this change added to set up.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.cli.main import main as tablectl
from controller.config.table import load_config
from controller.daemon import TableDaemon
from controller.journal import segments as segs
from controller.journal import trust
from controller.journal.rows import JournalError, _canonical, chain_hash
from controller.journal.store import Journal
from controller.table import TableLife
from test_journal_checkpoints import UTH as _UTH
from test_journal_checkpoints import play

TABLE, GAME = "uth-01", "ultimate_texas_holdem"
UTH = str(_UTH)
ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = tablectl(list(argv), io.StringIO(), out, err)
    return code, out.getvalue(), err.getvalue()


def make_key(journal: Path) -> Path:
    """The table's key beside its journal, as `tablectl journal key` makes it."""
    path = Path(f"{journal}.key")
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.write(fd, (secrets.token_hex(32) + "\n").encode())
    os.close(fd)
    return path


def begin(path: Path, table: str = TABLE, game: str = GAME, rounds: tuple[str, ...] = ("r-1", "r-2")) -> None:
    """A journal as the daemon keeps it (its start's check, then events)."""
    with Journal(path) as j:
        j.check_at_start(table, game)
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        for r in rounds:
            j.append(r, "wager", {"seat": 1, "wager": "ante", "amount": "5"})
            j.append(r, "meter_add", {"meters": {"major": "0.01"}})
            j.append(r, "round_voided", {"reason": "test"})


def gone(path: Path) -> None:
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)


def put(source: Path, path: Path) -> None:
    """A file put where the journal was, private as a journal is."""
    shutil.copy(source, path)
    path.chmod(0o600)


def refused(match: str) -> None:
    """The daemon refuses to start, and `tablectl run` says why in one line, exit 2."""
    with pytest.raises(JournalError, match=match):
        TableDaemon(load_config(UTH))
    code, _, err = run("run", "--config", UTH)
    assert code == 2 and err.count("\n") == 1, err


@pytest.fixture
def keyed(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "table.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    make_key(path)
    begin(path)
    return path


# -- finding 1: a deleted, emptied, older or foreign journal ------------------------------------------------


@pytest.mark.requirement("NY 9 NYCRR 5321.18(b)(2)")
@pytest.mark.parametrize("how", ["deleted", "zero bytes"])
def test_a_deleted_or_emptied_journal_is_refused_not_begun_again(keyed, how):
    gone(keyed)
    if how == "zero bytes":
        keyed.write_bytes(b"")
        keyed.chmod(0o600)
    refused("missing or empty")
    with Journal.read_only(keyed) as j:
        assert j.last_seq() == 0  # nothing was begun in its place: the meters were not set back


def test_an_older_copy_put_back_is_refused(keyed, tmp_path):
    older = tmp_path / "older.journal"
    with Journal.read_only(keyed) as j:
        j._db.execute(f"VACUUM INTO '{older}'")
    with Journal(keyed) as j:
        j.append("r-3", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
    gone(keyed)
    put(older, keyed)
    refused("behind its anchor")


def test_another_tables_journal_without_its_labels_is_refused(keyed, tmp_path):
    other = tmp_path / "hcf" / "table.journal"
    other.parent.mkdir()
    make_key(other)
    begin(other, "hcf-01", "high_card_flush", rounds=("h-1", "h-2", "h-3"))
    with sqlite3.connect(other) as db:
        db.execute("DELETE FROM meta WHERE key IN ('table', 'game')")  # "unlabelled"
    db.close()
    gone(keyed)
    put(other, keyed)
    refused("not the chain its anchor holds")


def test_the_identity_is_the_first_fact_of_the_chain(keyed):
    with Journal.read_only(keyed) as j:
        first = next(j.iter_events())
    assert (first.seq, first.kind, first.data) == (1, "journal_begun", {"table": TABLE, "game": GAME})


def test_a_missing_key_or_anchor_is_named(keyed):
    anchor = Path(f"{keyed}.anchor")
    saved = anchor.read_bytes()
    anchor.unlink()
    refused("anchor .* is missing")
    anchor.write_bytes(saved)
    Path(f"{keyed}.key").unlink()
    refused("key .* is missing")


def test_a_crash_between_the_commit_and_the_anchor_does_not_refuse_the_table(keyed):
    """The anchor lags the journal by the transaction a crash cut short before its rename: the start accepts it."""
    anchor = Path(f"{keyed}.anchor")
    lagging = anchor.read_bytes()
    with Journal(keyed) as j:
        j.append("r-3", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
    anchor.write_bytes(lagging)
    with Journal(keyed) as j:
        j.check_at_start(TABLE, GAME)
        key = trust.read_key(Path(f"{keyed}.key"))
        assert key is not None and trust.read_anchor(anchor, key).seq == j.head()[0]


def test_an_anchor_write_torn_by_a_crash_leaves_the_one_before(keyed):
    """Each write goes to the older of the anchor's two slots: one torn in the middle leaves the other."""
    anchor, key = Path(f"{keyed}.anchor"), trust.read_key(Path(f"{keyed}.key"))
    assert key is not None
    with Journal(keyed) as j:
        j.append("r-3", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
        before = j.head()
        j.append("r-3", "wager", {"seat": 1, "wager": "blind", "amount": "5"})
        slot = 1 - j._anchor_slot  # the slot just written
    raw = bytearray(anchor.read_bytes())
    raw[slot * trust.SLOT + 20: slot * trust.SLOT + 60] = b"\0" * 40  # torn
    anchor.write_bytes(bytes(raw))
    assert trust.read_anchor(anchor, key).seq == before[0]
    with Journal(keyed) as j:
        j.check_at_start(TABLE, GAME)


def test_beginning_again_is_a_technicians_journaled_command(keyed):
    with Journal.read_only(keyed) as j:
        old_head = j.head()
    gone(keyed)
    code, out, err = run("journal", "init", "--config", UTH, "--reason", "disk replaced", "--by", "tech-7")
    assert code == 0, err
    with Journal.read_only(keyed) as j:
        (first,) = list(j.iter_events())
    assert (first.kind, first.who) == ("journal_begun", "tech-7")
    assert first.data == {"table": TABLE, "game": GAME, "by": "tech-7", "reason": "disk replaced",
                          "replaces": f"{old_head[0]}:{old_head[1]}"}
    with Journal(keyed) as j:
        j.check_at_start(TABLE, GAME)  # the table starts again


def test_an_older_copy_is_taken_only_on_purpose(keyed, tmp_path):
    older = tmp_path / "older.journal"
    with Journal.read_only(keyed) as j:
        j._db.execute(f"VACUUM INTO '{older}'")
    with Journal(keyed) as j:
        j.append("r-3", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
        newer = j.head()
    gone(keyed)
    put(older, keyed)
    code, _, err = run("journal", "init", "--config", UTH, "--reason", "lost disk, restored")
    assert code == 2 and "--keep" in err
    code, _, err = run("journal", "init", "--config", UTH, "--reason", "lost disk, restored", "--keep")
    assert code == 0, err
    with Journal(keyed) as j:
        j.check_at_start(TABLE, GAME)
        last = j.events_of("journal_anchored")[-1]
    assert last.data["reason"] == "lost disk, restored" and last.data["was"] == f"{newer[0]}:{newer[1]}"


def test_a_journal_begun_before_keys_is_taken_once_on_its_first_keyed_start(tmp_path, monkeypatch):
    path = tmp_path / "table.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    begin(path)  # no key: as before this change, no anchor, no seal
    assert not Path(f"{path}.anchor").exists()
    make_key(path)
    with Journal(path) as j:
        j.check_at_start(TABLE, GAME)
        (taken,) = j.events_of("journal_anchored")
    assert (taken.data["by"], taken.data["table"]) == ("daemon", TABLE)
    with Journal(path) as j:
        j.check_at_start(TABLE, GAME)
        assert len(j.events_of("journal_anchored")) == 1  # once
    code, out, _ = run("journal", "verify", "--full", "--config", UTH)
    assert code == 0 and "keyed chain checked" in out


def test_a_table_pc_refuses_to_run_without_its_key(tmp_path, monkeypatch):
    etc, state = tmp_path / "etc", tmp_path / "state"
    etc.mkdir()
    state.mkdir()
    shutil.copy(UTH, etc / f"{TABLE}.toml")
    monkeypatch.setenv("TABLECTL_ETC_DIR", str(etc))
    monkeypatch.setenv("TABLECTL_STATE_DIR", str(state))
    monkeypatch.setenv("TABLE_JOURNAL", str(state / f"{TABLE}.journal"))
    # its own process, bounded: a daemon that did start would wait on its devices
    r = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--table", TABLE], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "key" in r.stderr, r.stderr
    assert not (state / f"{TABLE}.journal").exists()
    code, out, err = run("journal", "key", "--table", TABLE)
    assert code == 0 and (os.stat(out.strip()).st_mode & 0o777) == 0o600, err
    code, _, err = run("journal", "key", "--table", TABLE)
    assert code == 2 and "never replaced" in err


# -- finding 8: a journal re-hashed from an edited row onwards ---------------------------------------------


def rehash_from(path: Path, seq: int, data: dict) -> None:
    """Edit row ``seq``'s data and re-hash every row from it, and the head: the unkeyed chain checks again."""
    with Journal.read_only(path) as j:
        rows = list(j.iter_events())
        prev = j._query("SELECT hash FROM events WHERE seq = ?", (seq - 1,))[0][0].hex()
    db = sqlite3.connect(path)
    for e in rows:
        if e.seq < seq:
            continue
        text = _canonical(data if e.seq == seq else e.data)
        prev = chain_hash(prev, e.seq, e.at, e.round_id, e.kind, e.who, text)
        db.execute("UPDATE events SET data = ?, hash = ? WHERE seq = ?", (text, bytes.fromhex(prev), e.seq))
    db.execute("UPDATE head SET hash = ?", (prev,))
    db.commit()
    db.close()


def test_a_rehashed_journal_fails_on_the_table_pc_and_an_auditor_is_told_which_chain(keyed, tmp_path):
    rehash_from(keyed, 3, {"seat": 1, "wager": "ante", "amount": "500"})
    code, out, err = run("journal", "verify", "--full", "--config", UTH)
    assert code == 2 and err.count("\n") == 1 and "key" in err, out + err
    refused("not the chain its anchor holds")
    # an auditor's copy, without the key: the unkeyed chain verifies, and the output says that is all it checked
    audit = tmp_path / "audit"
    audit.mkdir()
    put(keyed, audit / "table.journal")
    os.environ["TABLE_JOURNAL"] = str(audit / "table.journal")  # (monkeypatch restores it at teardown)
    code, out, err = run("journal", "verify", "--full", "--config", UTH)
    assert code == 0 and "unkeyed chain checked" in out, err


def test_a_rehash_while_the_daemon_runs_is_not_sealed_by_its_next_write(keyed):
    with Journal(keyed) as daemon:
        rehash_from(keyed, 3, {"seat": 1, "wager": "ante", "amount": "500"})
        with pytest.raises(JournalError, match="seal"):
            daemon.append("r-3", "wager", {"seat": 1, "wager": "ante", "amount": "5"})


def test_the_verify_says_the_keyed_chain_was_checked(keyed):
    code, out, err = run("journal", "verify", "--full", "--config", UTH)
    assert code == 0 and "keyed chain checked" in out, err


# -- finding 7: sealed segments ---------------------------------------------------------------------------


@pytest.fixture
def segmented(tmp_path, monkeypatch) -> Path:
    """A keyed journal of two sealed segments and the open one, as the daemon keeps it."""
    path = tmp_path / "table.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    make_key(path)
    with Journal(path, checkpoint_every=100) as j:
        j.check_at_start(TABLE, GAME)
        TableLife(load_config(UTH), j)
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        for r in ("r1", "r2", "r3"):
            play(j, r)
            if r != "r3":
                segs.roll_over(j)
    return path


def edit_in_place(seg: Path) -> None:
    """An ante changed inside a sealed segment, its size and times restored: only its content says so."""
    st = seg.stat()
    with sqlite3.connect(seg) as db:
        row = db.execute("SELECT seq, data FROM events WHERE kind = 'wager' ORDER BY seq LIMIT 1").fetchone()
        if isinstance(row[1], str):
            data = json.loads(row[1])
        else:
            with Journal.read_only(seg) as j:
                data = j._data(row[1])
        data["amount"] = str(Decimal(data["amount"]) * 9)
        db.execute("UPDATE events SET data = ? WHERE seq = ?", (_canonical(data), row[0]))
    db.close()
    assert seg.stat().st_size == st.st_size
    os.utime(seg, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_the_start_checks_every_sealed_segment(segmented):
    with Journal(segmented) as j:
        j.check_at_start(TABLE, GAME)  # untouched: starts
    first = segs.sealed(segmented)[0].path
    edit_in_place(first)
    refused(f"{first.name} is not the one sealed")


def test_a_keyed_journal_stripped_of_its_seal_and_anchor_is_not_taken_as_one_begun_before_keys(segmented):
    """Its identity is in its first sealed segment: the start does not take it as a journal from before keys."""
    with sqlite3.connect(segmented) as db:
        db.execute("DELETE FROM meta WHERE key = 'seal'")
    db.close()
    Path(f"{segmented}.anchor").unlink()
    refused("anchor .* is missing")


def test_recall_does_not_take_an_edited_segment_from_its_cache(segmented):
    code, _, err = run("recall", "--config", UTH)
    assert code == 0, err
    edit_in_place(segs.sealed(segmented)[0].path)
    code, _, err = run("recall", "--config", UTH)
    assert code == 2 and err.count("\n") == 1, err
    code, _, err = run("progressive", "report", "--config", UTH)
    assert code == 2, err


def test_the_oldest_segment_deleted_is_named(segmented):
    oldest = segs.sealed(segmented)[0].path
    oldest.unlink()
    code, out, err = run("journal", "verify", "--full", "--config", UTH)
    assert code == 2 and oldest.name in err, out + err
    refused(f"{oldest.name} is missing")
    code, out, err = run("journal", "verify", "--full", "--partial", "--config", UTH)  # an auditor's copy, said so
    assert code == 0 and "after the hash" in out, err


def test_each_sealed_segments_digest_is_in_the_chain(segmented):
    with segs.open_for_reading(segmented) as j:
        records = j.events_of("segment_sealed")
    assert [(r.data["name"], r.data["sha256"]) for r in records] == \
        [(s.path.name, trust.sha256_file(s.path)[0]) for s in segs.sealed(segmented)]


def test_the_key_is_rotated_on_purpose_and_a_rotation_cut_short_is_finished(keyed):
    key = Path(f"{keyed}.key")
    before = key.read_bytes()
    code, out, err = run("journal", "key", "--rotate", "--config", UTH, "--reason", "custodian left", "--by", "t-7")
    assert code == 0, err
    assert key.read_bytes() != before and (key.stat().st_mode & 0o777) == 0o600
    with Journal(keyed) as j:
        j.check_at_start(TABLE, GAME)  # sealed and anchored under the new key
        (rekeyed,) = j.events_of("journal_rekeyed")
    assert (rekeyed.who, rekeyed.data) == ("t-7", {"by": "t-7", "reason": "custodian left"})
    # cut short after the seal, before the rename: the journal sealed under the next key, still beside the key
    current = key.read_bytes()
    code, _, err = run("journal", "key", "--rotate", "--config", UTH, "--reason", "again")
    assert code == 0, err
    Path(f"{keyed}.key.new").write_bytes(key.read_bytes())
    Path(f"{keyed}.key.new").chmod(0o600)
    key.write_bytes(current)
    with pytest.raises(JournalError):
        TableDaemon(load_config(UTH))  # the seal is under the next key, the key is the old one
    code, _, err = run("journal", "key", "--rotate", "--config", UTH, "--reason", "again")
    assert code == 0, err
    with Journal(keyed) as j:
        j.check_at_start(TABLE, GAME)


# -- the meters of a journal begun again: restored by two supervisors (issue 30 (1), P103) ----------------


@pytest.fixture
def two_supervisors(monkeypatch) -> tuple[int, int]:
    from controller.supervisors import hash_id

    monkeypatch.setenv("TABLE_SUPERVISORS__IDS", json.dumps([hash_id(4711), hash_id(4712)]))
    return 4711, 4712


def test_the_meters_are_restored_only_by_two_different_allow_listed_supervisors(keyed, two_supervisors):
    """After `journal init`, the meters stand at their configured amounts; `journal restore-meters` sets them back
    only with two different supervisors of the allow-list, journaled as one entry naming both (P103)."""
    a, b = two_supervisors
    gone(keyed)
    code, _, err = run("journal", "init", "--config", UTH, "--reason", "disk replaced", "--by", "tech")
    assert code == 0, err
    base = ["journal", "restore-meters", "--config", UTH, "--meter", "major=12345.67", "--reason", "from the signs"]
    for refused_ids, cause in (([a], "two different"), ([a, a], "two different"), ([a, 999], "allow-list")):
        code, _, err = run(*base, *[x for i in refused_ids for x in ("--supervisor", str(i))])
        assert code == 2 and cause in err and err.count("\n") == 1, err
    code, _, err = run("journal", "restore-meters", "--config", UTH, "--meter", "major=999.99", "--reason", "x",
                       "--supervisor", str(a), "--supervisor", str(b))
    assert code == 2 and "below its reset amount" in err, err  # R4: never below the reset amount
    with Journal.read_only(keyed) as j:
        assert not [e for e in j.events(None) if e.kind in ("meters_restored", "meter_set")]
    code, out, err = run(*base, "--supervisor", str(a), "--supervisor", str(b), "--by", "tech")
    assert code == 0, err
    with Journal.read_only(keyed) as j:
        restored = [e for e in j.events(None) if e.kind == "meters_restored"]
        assert [(e.data["supervisors"], e.data["by"], e.who) for e in restored] == [
            ([a, b], "tech", f"supervisor {a} and supervisor {b}")]
        assert j.meter_values()["major"] == Decimal("12345.67")
    d = TableDaemon(load_config(UTH))  # the table starts on it, its meters as restored
    try:
        assert d.status_file.status()["meters"]["major"] == "12345.67"
    finally:
        d.journal.close()

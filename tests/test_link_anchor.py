"""The link's database as the journal's second anchor (issue 30's first "What to build" bullet; P121), against a
real PostgreSQL (tests/pg.py).

The anchor file beside the journal catches a journal rolled back or replaced alone; these are the cases it
cannot: the journal and its anchor file put back or replaced together (a pair that agrees with itself), or both
deleted.  On the program before this change each was started on.  Each is refused at start with one line and the
local anchor's cause; a link that does not answer at start is not waited for (the table starts on its local
anchor, said in the log) and the comparison is made when it answers; ``tablectl journal init`` sets the link's
head anew with who and why; a stalled link never holds a no more bets for the head's write.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import psycopg
import pytest
from structlog.testing import capture_logs

import pg
from controller.config.table import TableConfig, load_config
from controller.daemon import TableDaemon
from controller.journal import trust
from controller.journal.store import Journal
from controller.progressive.link import anchor as link_anchor
from controller.progressive.link.meters import LINK_WAIT_S, LinkedMeters
from controller.progressive.link.migrate import migrate
from controller.progressive.link.store import LinkStore
from test_journal_trust import UTH, begin, gone, make_key, put, run
from test_link_faults import _until, paused
from test_link_meters import no_more_bets

TABLE, GAME, LINK = "uth-01", "ultimate_texas_holdem", "floor"


@pytest.fixture
def link_url() -> str:
    url = pg.cluster().new_database()
    migrate(url)
    return url


@pytest.fixture
def table(tmp_path, monkeypatch, link_url) -> Path:
    """A keyed table on the link (``tablectl run --config`` reads the same environment)."""
    path = tmp_path / "table.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK", link_url)
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK_ID", LINK)
    make_key(path)
    begin(path)
    return path


def cfg() -> TableConfig:
    return load_config(UTH)


def held(url: str) -> tuple[int, str, str | None, str | None] | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT seq, hash, reset_by, reset_reason FROM link_anchor WHERE link = %s AND "
                           "table_id = %s", (LINK, TABLE)).fetchone()
    return (int(row[0]), str(row[1]), row[2], row[3]) if row else None


def play(path: Path, rounds: list[str], seats: list[int] = [1]) -> tuple[int, str]:  # noqa: B006 (not mutated)
    """Rounds' no more bets journaled and written to the link as the table does (``LinkedMeters.sync``); the head
    the link holds then."""
    async def main() -> tuple[int, str]:
        with Journal(path) as j:
            m = LinkedMeters(cfg(), j)
            assert await m.connect() is None
            for r in rounds:
                no_more_bets(m, j, r, seats)
                assert await m.sync(r) is None
            await m.close()
            return j.head()

    return asyncio.run(main())


def copy_pair(path: Path, to: Path) -> None:
    """The journal and its anchor file copied together (a backup of the state directory)."""
    to.mkdir()
    with Journal.read_only(path) as j:
        j._db.execute(f"VACUUM INTO '{to / path.name}'")
    shutil.copy(trust.anchor_file(path), trust.anchor_file(to / path.name))


def put_pair(source: Path, path: Path) -> None:
    gone(path)
    put(source / path.name, path)
    shutil.copy(trust.anchor_file(source / path.name), trust.anchor_file(path))


def refused(cause: str) -> None:
    """The daemon refuses with the local anchor's cause; `tablectl run` says why in one line, exit 2."""
    with pytest.raises(trust.JournalTrustError) as e:
        TableDaemon(cfg())
    assert e.value.cause == cause and "link's database" in str(e.value), e.value
    code, _, err = run("run", "--config", UTH)
    assert code == 2 and err.count("\n") == 1, err


def test_the_link_keeps_each_tables_head_forward_only(table, link_url):
    """Written with the contributions, one row per table; a later write of an earlier head (a write arriving late,
    or a table whose journal was put back) does not move it back; only `journal init` sets it anew."""
    head = play(table, ["r-a", "r-b"])
    assert held(link_url) == (*head, None, None)

    async def back() -> bool:
        store = LinkStore(link_url, LINK)
        await store.open()
        try:
            return await store.advance_anchor(TABLE, GAME, 3, "0" * 64)
        finally:
            await store.close()

    assert asyncio.run(back()) is False and held(link_url) == (*head, None, None)


@pytest.mark.parametrize("how", ["rolled back together", "replaced with its anchor and key", "deleted with its anchor"])
def test_a_journal_the_links_anchor_does_not_hold_is_refused_at_start(table, link_url, tmp_path, how):
    """The three cases the local anchor file cannot see: each fails on the program before this change (it
    started: the pair agrees with itself, or a journal with no anchor is begun again)."""
    if how == "rolled back together":
        copy_pair(table, tmp_path / "older")
        play(table, ["r-a"])
        put_pair(tmp_path / "older", table)
        refused("behind_anchor")
    elif how == "replaced with its anchor and key":
        other = tmp_path / "other"
        other.mkdir()
        make_key(other / table.name)
        begin(other / table.name, rounds=("x-1", "x-2", "x-3", "x-4", "x-5"))  # the same table id, another chain
        play(table, ["r-a"])
        with Journal.read_only(other / table.name) as j:
            assert j.head()[0] >= held(link_url)[0]  # type: ignore[index]  # not behind: another hash there
        put_pair(other, table)
        trust.key_file(table).unlink()
        shutil.copy(trust.key_file(other / table.name), trust.key_file(table))
        refused("not_anchored_chain")
    else:
        play(table, ["r-a"])
        gone(table)
        trust.anchor_file(table).unlink()
        refused("journal_missing")


def test_a_link_not_answering_at_start_is_not_waited_for_and_checked_when_it_answers(table, link_url, tmp_path,
                                                                                     monkeypatch):
    """P121: the server paused (SIGSTOP), a table whose journal and anchor file were put back together starts on its
    local anchor within the start's deadline, and says so in the log; once the link answers, its comparison
    refuses the link (no progressive wager on it, nothing sent) and leaves the link's head as it was."""
    monkeypatch.setattr(link_anchor, "START_DEADLINE_S", 0.5)
    copy_pair(table, tmp_path / "older")
    head = play(table, ["r-a"])
    put_pair(tmp_path / "older", table)
    with paused(pg.cluster()), capture_logs() as logs:
        took = time.monotonic()
        d = TableDaemon(cfg())
        assert time.monotonic() - took < 1.5
        d.journal.close()
    said = [e for e in logs if e["event"].startswith("second anchor not checked")]
    assert said and said[0]["log_level"] == "warning", logs

    async def when_it_answers() -> None:
        with Journal(table) as j:
            m = LinkedMeters(cfg(), j)
            no_more_bets(m, j, "r-z", [2])
            why = await m.connect()
            # (the table played on from the older copy: past the link's seq, another hash there)
            assert why is not None and ("behind_anchor" in why or "not_anchored_chain" in why) and m.down == why
            await m.close()

    asyncio.run(when_it_answers())
    assert held(link_url) == (*head, None, None)
    with psycopg.connect(link_url) as conn:
        assert conn.execute("SELECT count(*) FROM link_contribution WHERE round_id = 'r-z'").fetchone() == (0,)


def test_journal_init_sets_the_links_anchor_anew_with_who_and_why(table, link_url):
    play(table, ["r-a"])
    was = held(link_url)
    assert was is not None
    gone(table)
    trust.anchor_file(table).unlink()
    code, out, err = run("journal", "init", "--config", UTH, "--reason", "disk replaced", "--by", "T042")
    assert code == 0, err
    with Journal.read_only(table) as j:
        head = j.head()
        begun = [e.data for e in j.events(None) if e.kind == "journal_begun"]
    assert begun[0]["link_was"] == f"{was[0]}:{was[1]}" and begun[0]["by"] == "T042"
    assert held(link_url) == (*head, "T042", "disk replaced")
    d = TableDaemon(cfg())  # starts on the journal begun again
    d.journal.close()


def test_journal_init_does_nothing_when_the_link_does_not_answer(table, link_url, monkeypatch):
    monkeypatch.setattr(link_anchor, "INIT_DEADLINE_S", 0.5)
    play(table, ["r-a"])
    gone(table)
    with paused(pg.cluster()):
        code, _, err = run("journal", "init", "--config", UTH, "--reason", "disk replaced", "--by", "T042")
    assert code == 2 and err.count("\n") == 1 and "does not answer" in err, err
    assert not table.exists() or table.stat().st_size == 0


def test_a_stalled_link_never_holds_a_no_more_bets_for_the_heads_write(table, link_url):
    """The head is written in the sync's pass, within its 500 ms: the server paused, the sync returns in under a
    second; continued, the background drain writes the head of then."""
    async def main() -> None:
        with Journal(table) as j:
            m = LinkedMeters(cfg(), j)
            assert await m.connect() is None
            no_more_bets(m, j, "n-1", [1])
            assert await m.sync("n-1", wait=LINK_WAIT_S) is None
            assert held(link_url)[:2] == j.head()  # type: ignore[index]
            with paused(pg.cluster()):
                no_more_bets(m, j, "n-2", [3])
                took = time.monotonic()
                assert await m.sync("n-2", wait=LINK_WAIT_S) is not None
                assert time.monotonic() - took < 1.0
            await _until(lambda: m.down is None and not m.outbox, "the outbox drained once the server answers")
            await _until(lambda: (held(link_url) or (0, ""))[:2] == j.head(), "the head written when it answers")
            await m.close()

    asyncio.run(main())


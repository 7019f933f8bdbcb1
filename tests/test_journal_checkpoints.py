"""The journal over a year of play (issue 14): the derived state kept current, checkpoints in the chain (P58),
the start's check bounded by them (P59), and journals written before them.

Small journals only (a few dozen rounds, ``checkpoint_every`` of 3): the big ones are in ``make bench``
(tests/bench/journal.py).
"""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.config.table import ConfigError, load_config
from controller.journal.store import Journal, JournalIntegrityError
from controller.table import TableLife, TableState
from test_journal_events import ROWS, old_journal  # noqa: F401  (the fixture: the v1 rows as an old journal)

ROOT = Path(__file__).resolve().parents[1]
UTH = ROOT / "config" / "ultimate_texas_holdem.toml"


def play(j: Journal, rid: str, contribution: str = "0.04") -> None:
    """One round as the daemon journals it: opened, a wager, no more bets with a contribution, closed."""
    j.append(rid, "round_opened", {"game": "ultimate_texas_holdem", "paytables": {}, "progressive": None})
    j.append(rid, "wager", {"seat": 1, "wager": "ante", "amount": "5"})
    j.append_many([(rid, "no_more_bets", {"progressive_seats": [1]}, None),
                   (rid, "meter_add", {"meters": {"major": contribution}}, None)])
    j.append(rid, "round_closed", {})


def checkpoints(j: Journal) -> list:
    return [e for e in j.iter_events() if e.kind == ev.Checkpoint.kind]


def test_a_checkpoint_follows_every_nth_closed_round_in_the_same_transaction(tmp_path):
    with Journal(tmp_path / "t.journal", checkpoint_every=3) as j:
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        for i in range(7):
            play(j, f"r{i}")
        cps = checkpoints(j)
        assert len(cps) == 2  # after the 3rd and the 6th round
        events = list(j.iter_events())
        for cp in cps:
            closing = events[cp.seq - 2]  # the row before it
            assert (closing.kind, closing.at) == ("round_closed", cp.at)  # one transaction: one time
        last = cps[-1].typed
        assert isinstance(last, ev.Checkpoint)
        assert last.why == "rounds" and last.rounds == 6 and last.last_round == "r5" and last.open_rounds == {}
        assert last.meters == {"major": Decimal("1000.00") + 6 * Decimal("0.04")}
        assert j.meter_values() == {"major": Decimal("1000.00") + 7 * Decimal("0.04")}
        assert j.verify() == len(events)


def test_start_reads_the_latest_checkpoint_not_the_events_before_it(tmp_path):
    """An event before the checkpoint changed on disk does not move the meters read at start (they come from
    the checkpoint); the full check finds the change."""
    path = tmp_path / "t.journal"
    with Journal(path, checkpoint_every=3) as j:
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        for i in range(4):
            play(j, f"r{i}")
        expected = j.meter_values()
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET data = '{\"meters\":{\"major\":\"5.00\"}}' WHERE seq = 1")
    db.commit()
    db.close()
    with Journal(path) as j:
        assert j.meter_values() == expected == {"major": Decimal("1000.16")}
        with pytest.raises(JournalIntegrityError) as caught:
            j.verify(full=True)
        assert (caught.value.seq, caught.value.what) == (1, "edited")


def test_a_reader_in_another_process_follows_the_writer(tmp_path):
    path = tmp_path / "t.journal"
    with Journal(path, checkpoint_every=2) as writer:
        writer.record(ev.MeterSet(meters={"major": Decimal("10")}))
        reader = Journal.read_only(path)
        assert reader.meter_values() == {"major": Decimal("10")}
        play(writer, "r1", "1.50")
        writer.append("r2", "round_opened", {"game": "ultimate_texas_holdem"})
        assert reader.meter_values() == {"major": Decimal("11.50")}
        assert reader.open_round() == writer.open_round() == "r2"
        reader.close()


def test_the_open_round_and_disabled_progressive_wagers_survive_a_checkpoint(tmp_path):
    path = tmp_path / "t.journal"
    with Journal(path) as j:
        j.record(ev.ProgressiveDisabled(round=None, reason="the progressive system is not answering"))
        j.append("r1", "round_opened", {"game": "ultimate_texas_holdem"})
        j.append("r1", "wager", {"seat": 2, "wager": "ante", "amount": "5"})
        j.checkpoint("test")
    with Journal(path) as j:
        assert j.open_round() == "r1"
        assert j.progressive_off() == "the progressive system is not answering"
        j.record(ev.ProgressiveEnabled(round="r1"))
        j.append("r1", "round_voided", {})
    with Journal(path) as j:
        assert j.open_round() is None and j.progressive_off() is None
        assert j.state().last_round == "r1"


def test_the_table_life_is_checkpointed_at_table_close_and_restored_from_it(tmp_path):
    cfg = load_config(UTH).model_copy(update={"journal": tmp_path / "t.journal"})
    with Journal(cfg.journal) as j:
        life = TableLife(cfg, j)
        while life.next_step() is not None:
            step = life.next_step()[0]
            deck = step.rpartition(":")[2] if step.startswith("shuffled") else None
            life.record(ev.StepDone(step=step, deck=deck, count=52 if deck else None), who="D042")
        life.record_many([ev.TableOpened()], who="D042")
        life.record(ev.DeckDealt(deck="A", round="r1"))
        life.record(ev.DeviceOutOfOrder(device="shoe"))
        life.record(ev.TableClosed(), who="D042")
        assert life.state is TableState.CLOSED
        cp = checkpoints(j)[-1]
        assert cp.typed.why == "table_closed" and cp.typed.table == life.checkpoint()
        assert j.events(None)[-2].kind == "table_closed"  # the checkpoint follows the closing it holds
        before = life.checkpoint()
        life.require(["decks_inspected"], "test")  # after the checkpoint: read from the events
    with Journal(cfg.journal) as j:
        again = TableLife(cfg, j)
        assert again.checkpoint() == {**before, "required": ["decks_inspected"]}
        assert again.out_of_order == {"shoe"} and again.last_dealt == "A" and again.decks_in_use == ["A", "B"]


def test_a_failed_table_close_leaves_the_table_as_it_was(tmp_path):
    cfg = load_config(UTH).model_copy(update={"journal": tmp_path / "t.journal"})
    with Journal(cfg.journal) as j:
        life = TableLife(cfg, j)
        life.record_many([ev.TableOpened()])
        before = life.checkpoint()
        j._db.execute("PRAGMA query_only = 1")  # every write fails as on a read-only disk
        with pytest.raises(sqlite3.OperationalError):
            life.record(ev.TableClosed())
        assert life.checkpoint() == before and life.state is TableState.OPEN


def test_the_start_check_begins_at_the_checkpoint_before_the_verified_point(tmp_path):
    """P59: a row deleted after the checkpoint is found at start; one deleted before it by the full check."""
    path = tmp_path / "t.journal"
    with Journal(path, checkpoint_every=2) as j:
        for i in range(5):
            play(j, f"r{i}")
        assert j.state().checkpoint_seq > 0
        mark = j._query("SELECT value FROM meta WHERE key = 'verified'")[0][0]
        assert int(mark.partition(":")[0]) == j.state().checkpoint_seq  # the daemon verified up to it
        n = j.check_at_start("uth-01", "ultimate_texas_holdem")
        cp = j.state().checkpoint_seq
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE seq = 3")  # long before the checkpoint
    db.commit()
    db.close()
    with Journal(path) as j:
        assert j.verify(full=False) == n
        with pytest.raises(JournalIntegrityError) as caught:
            j.verify(full=True)
        assert (caught.value.seq, caught.value.what) == (3, "deleted")
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE seq = ?", (cp + 1,))  # after it
    db.commit()
    db.close()
    with Journal(path) as j, pytest.raises(JournalIntegrityError) as caught:
        j.verify(full=False)
    assert (caught.value.seq, caught.value.what) == (cp + 1, "deleted")


def test_the_last_rounds_are_the_same_read_from_the_end(tmp_path):
    with Journal(tmp_path / "t.journal", checkpoint_every=4) as j:
        for i in range(30):
            play(j, f"r{i}")
            j.append(None, "deck_shuffled", {"deck": "A", "count": 52})
        j.append("open", "round_opened", {"game": "ultimate_texas_holdem"})
        every = j.rounds()
        assert len(every) == 31 and every[-1].closed_by is None
        for last in (0, 1, 5, 31, 100):
            assert j.rounds(last=last) == (every[-last:] if last else [])


def test_a_journal_written_before_checkpoints_loads_verifies_recalls_and_goes_on(old_journal):  # noqa: F811
    """The v1 rows (written before checkpoints and the derived state) as an old journal stored them."""
    with Journal(old_journal.path, checkpoint_every=1) as j:
        assert j.check_at_start("uth-01", "ultimate_texas_holdem") == len(ROWS)
        assert [r.round_id for r in j.rounds(last=2)] == ["r1", "r2"] and j.open_round() is None
        assert j.meter_values() == {}  # the v1 rows hold no meter event
        assert j.state().rounds == 2 and j.state().last_round == "r2"
        play(j, "r3")  # a new round closes: the first checkpoint, on the old chain
        cp = checkpoints(j)[-1].typed
        assert cp.rounds == 3 and cp.meters == {"major": Decimal("0.04")}
        assert j.verify(full=True) == len(ROWS) + 6
    with Journal.read_only(old_journal.path) as j:
        assert [e.data for e in j.events("r1")] == [json.loads(r[5]) for r in ROWS if r[2] == "r1"]


def test_a_journal_written_today_without_checkpoints_starts_the_same_as_with_them(tmp_path):
    """The state read from the whole history equals the one read from a checkpoint."""
    with Journal(tmp_path / "a.journal", checkpoint_every=100_000) as a, \
            Journal(tmp_path / "b.journal", checkpoint_every=2) as b:
        for j in (a, b):
            j.record(ev.MeterSet(meters={"major": Decimal("100"), "minor": Decimal("20")}))
            for i in range(5):
                play(j, f"r{i}", "0.05")
            j.append("r5", "meter_paid", {"meter": "major", "paid": "30.00", "after": "70.25"})
        assert not checkpoints(a) and checkpoints(b)
    with Journal(tmp_path / "a.journal") as a, Journal(tmp_path / "b.journal") as b:
        sa, sb = a.state(), b.state()
        assert (sa.meters, list(sa.open_rounds), sa.rounds, sa.last_round) == \
               (sb.meters, list(sb.open_rounds), sb.rounds, sb.last_round) == \
               ({"major": Decimal("70.25"), "minor": Decimal("20")}, ["r5"], 5, "r4")
        assert sa.open_rounds["r5"] == a.last_seq() and sb.open_rounds["r5"] == b.last_seq()


def test_checkpoint_every_is_configured_and_checked(tmp_path):
    text = UTH.read_text().replace('log_format = "auto"',
                                   'log_format = "auto"\n\n[journal_options]\ncheckpoint_every = 0')
    (tmp_path / "t.toml").write_text(text.replace("../var/", str(tmp_path) + "/"))
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "t.toml")
    assert "journal_options.checkpoint_every" in str(caught.value)
    (tmp_path / "t.toml").write_text(text.replace("checkpoint_every = 0", "checkpoint_every = 250")
                                     .replace("../var/", str(tmp_path) + "/"))
    assert load_config(tmp_path / "t.toml").journal_options.checkpoint_every == 250


@pytest.mark.parametrize("when", ["before:full", "after:raise"])
def test_a_write_that_fails_or_dies_at_a_checkpoint_leaves_a_journal_that_starts(tmp_path, monkeypatch, when):
    """The round's closing and its checkpoint are one transaction: a failed write leaves neither (the state
    in memory unchanged, the write can be made again), a death after it leaves both."""
    from controller.journal.store import KILL_AT_ENV, KilledForTest

    path = tmp_path / "t.journal"
    with Journal(path, checkpoint_every=2) as j:
        j.record(ev.MeterSet(meters={"major": Decimal("100")}))
        play(j, "r1")
        j.append("r2", "round_opened", {"game": "ultimate_texas_holdem"})
        j.append("r2", "meter_add", {"meters": {"major": "1.00"}})
        before = (j.state().meters, j.open_round(), j.last_seq())
        monkeypatch.setenv(KILL_AT_ENV, f"round_closed:{when}")
        with pytest.raises(sqlite3.OperationalError if when == "before:full" else KilledForTest):
            j.append("r2", "round_closed", {})
        monkeypatch.delenv(KILL_AT_ENV)
        if when == "before:full":
            assert (j.state().meters, j.open_round(), j.last_seq()) == before and not checkpoints(j)
            j.append("r2", "round_closed", {})  # made again
    with Journal(path) as j:
        assert j.check_at_start("uth-01", "ultimate_texas_holdem") == j.last_seq()
        assert j.open_round() is None and j.meter_values() == {"major": Decimal("101.04")}
        assert [cp.typed.last_round for cp in checkpoints(j)] == ["r2"]
        assert j.verify(full=True) == j.last_seq()

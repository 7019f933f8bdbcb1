"""Typed journal events (controller.events) read journals written before they were declared.

``journal_rows_v1.jsonl`` holds real rows (seq, at, round_id, kind, who, data, prev_hash, hash) as the
journal stored them before the event types existed: a UTH round with a progressive wager settled and
closed, a round halted, resumed, left by a player (P42) and voided (R7a), and table events.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

import format1
from controller import events as ev
from controller.journal.store import Journal
from controller.replay import replay
from controller.round.machine import Answer, Phase, RoundController, RoundRefused
from controller.table import setup_from_journal

ROWS = [json.loads(line) for line in (Path(__file__).parent / "journal_rows_v1.jsonl").read_text().splitlines()]


@pytest.fixture
def old_journal(tmp_path):
    path = format1.empty(tmp_path / "old.journal")  # the schema of row format 1 (P76)
    db = sqlite3.connect(path)
    db.executemany("INSERT INTO events (seq, at, round_id, kind, who, data, prev_hash, hash) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    db.execute("INSERT INTO head (one, seq, hash) VALUES (1, ?, ?)", (ROWS[-1][0], ROWS[-1][7]))
    db.commit()
    db.close()
    with Journal(path) as j:
        yield j


def test_an_old_journal_verifies_and_every_row_reads_as_its_declared_type(old_journal):
    assert old_journal.verify() == len(ROWS)
    typed = [e.typed for e in old_journal.iter_events()]
    assert not [e.kind for e in typed if isinstance(e, ev.Unrecognised)]
    assert [e.kind for e in typed] == [row[3] for row in ROWS]


def test_a_declared_type_writes_back_exactly_the_data_it_was_read_from(old_journal, tmp_path):
    """The on-disk format is unchanged: journaling the typed event again stores the same JSON object."""
    with Journal(tmp_path / "again.journal") as again:
        for e in old_journal.iter_events():
            assert isinstance(e.typed, ev.JournalEvent)
            again.record(e.typed, e.round_id, who=e.who)
        assert [(e.round_id, e.kind, e.who, e.data) for e in again.iter_events()] == \
               [(row[2], row[3], row[4], json.loads(row[5])) for row in ROWS]


def test_an_old_journal_restores_its_rounds_and_recalls_them(old_journal):
    async def main():
        for summary in old_journal.rounds():
            events = old_journal.events(summary.round_id)
            r = await RoundController.restore(summary.round_id, setup_from_journal(events[0].data),
                                              [(e.kind, e.data) for e in events])
            assert r.phase is Phase.COMPLETE
            closing = [e for e in events if e.kind in ("settled", "voided")][0]
            if closing.kind == "settled":  # settled again from the journaled facts: the journaled nets
                assert {str(s.seat): str(s.net) for s in r.settlement.seats} == closing.data["nets"]
            assert [p.seat for p in r.payments] == [p["seat"] for p in closing.data["order"]]
            steps = replay(summary.round_id, events)
            assert steps["steps_journaled"] and not steps["in_play"]
            assert [s["seq"] for s in steps["steps"] if s["step"] == "card"] == \
                   [e.seq for e in events if e.kind == "card"]

    asyncio.run(main())
    voided = [e.typed for e in old_journal.events("r2") if e.kind == "voided"][0]
    assert isinstance(voided, ev.Voided) and voided.keep == ()


def test_a_round_journaled_before_reveals_and_payment_order_restores(old_journal):
    """P65/P66 rows lack ``steps_journaled``, ``order`` and ``revealed``; P42 rows lack ``wagers``."""
    old = []
    for e in old_journal.events("r2"):
        data = {k: v for k, v in e.data.items() if k not in ("steps_journaled", "order")}
        if e.kind == "seat_abandoned":
            data.pop("wagers")
        if e.kind != "revealed":
            old.append((e.kind, data))

    async def main():
        r = await RoundController.restore("r2", setup_from_journal(old[0][1]), old)
        assert r.phase is Phase.COMPLETE and r.payments is None
        assert r.seats[1].abandoned and not r.seats[1].abandoned_returned  # before P42's option: losing
        assert {s.seat: s.wagers["ante"].net for s in r.settlement.seats} == {1: Decimal(-10), 2: Decimal(0)}

    asyncio.run(main())


def test_a_row_missing_a_declared_field_is_refused_by_name():
    with pytest.raises(ev.EventFormatError) as e:
        ev.parse("card", {"place": "seat:1"})
    assert "card" in str(e.value) and "card" == ev.CardDealt.kind
    assert isinstance(ev.parse("a_kind_from_a_newer_program", {"x": 1}), ev.Unrecognised)


def test_the_round_answers_before_it_acts():
    """Ask, then act: the same question, an ``Answer`` with a code instead of an exception."""
    from tests.test_round import uth_round

    async def main():
        r = await uth_round(None)
        assert r.can_decide(1, multiple=4) and r.can_decide(1, check=True)
        assert r.can_decide(3, check=True) == Answer("turn", r.can_decide(3, check=True).reason)
        assert not r.current_street.may_fold and r.can_decide(1, fold=True).code == "decision"
        assert r.can_place_wager(1, "ante", Decimal(5)).code == "phase"
        assert r.can_deal("seat:1", "As").code == "card_seen"
        assert r.can_void() and r.can_halt() and not r.can_resume() and not r.can_settle()
        with pytest.raises(RoundRefused) as refused:
            await r.decide(1, fold=True)
        assert refused.value.code == "decision"
        assert r.to_act().seat == 1  # unchanged

    asyncio.run(main())

"""Two tables on one link through the real daemons and simulators (tests/daemon_harness.py) and a real
PostgreSQL (tests/pg.py): a progressive wager accepted at one table shows on the other's meter sign
within a second; the link's database holds the contribution keyed by the table, round and seat.  A royal
flush at one table after the other's wager is paid what the link holds when it takes the hit, the
settlement's own figure journaled beside it (P68, P80)."""

from __future__ import annotations

import time
from decimal import Decimal

import psycopg
import pytest

import pg
from controller.journal.store import Journal
from controller.progressive.link.migrate import migrate
from daemon_harness import phase, simulated_table
from games.cards import DECK

GAME = "ultimate_texas_holdem"  # config/: Major $10,000 at 4% of the $1 unit, Minor $500 at 1%
# the shuffler's order (UTH ch.10 §B): the Six Card Bonus stack, the board, the dealer's two, seat 1's two:
# seat 1 makes a royal flush, paid 100% of the Major meter (UTH ch.12 §D(3)(b))
FIRST = ["2c", "3c", "4c", "5c", "Ts", "Js", "Qs", "7d", "2d", "8h", "8d", "As", "Ks"]
ROYAL = FIRST + [c.text for c in DECK if c.text not in FIRST]


@pytest.mark.requirement("NY 9 NYCRR 5321.18(b)(3)(ii)")
def test_a_contribution_at_one_table_shows_on_the_other_tables_sign(tmp_path, monkeypatch):
    url = pg.cluster().new_database()
    migrate(url)
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK", url)
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK_ID", "floor")
    dirs = {name: tmp_path / name for name in ("a", "b")}
    for d in dirs.values():
        d.mkdir()
    monkeypatch.setenv("TABLE_ID", "uth-a")
    monkeypatch.setenv("TABLE_PROGRESSIVE__ASSET", "A-100")
    with simulated_table(GAME, dirs["a"], monkeypatch, simulators="in_process") as a:
        for deck in ("A", "B"):
            a.controls["shuffler"]("set_deck", cards=ROYAL, deck=deck)
        a.start_daemon()  # its environment is taken now: table a
        monkeypatch.setenv("TABLE_ID", "uth-b")
        monkeypatch.setenv("TABLE_PROGRESSIVE__ASSET", "A-200")
        with simulated_table(GAME, dirs["b"], monkeypatch, seed=2, simulators="in_process") as b:
            b.start_daemon()
            b.open_table()
            a.open_table()
            s = a.until(lambda s: phase(s) == "wagers", "the first round")
            round_id = s["round"]["round_id"]
            a.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
            assert a.controls["progressive"]("wager", seat=1)["accepted"]
            a.press("no_more_bets")
            took = time.monotonic()
            # the other table's sign: major 10,000.04 (in cents), within a second of no more bets at a
            # and its status (the dealer's screen)
            while (b.controls["progressive"]("outputs")["meters"][0] != 1000004
                   or Decimal(b.status()["meters"]["major"]) != Decimal("10000.04")):
                assert time.monotonic() - took < 1.0, (b.controls["progressive"]("outputs"), b.status()["meters"])
                time.sleep(0.01)
            # b's own progressive wager before a's round settles: a settles the meter as its round had it
            # (10,000.04) but the link holds 10,000.08 when it takes the hit, and pays that (P68, P80)
            b.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
            assert b.controls["progressive"]("wager", seat=1)["accepted"]
            b.press("no_more_bets")
            # the royal flush at a: taken by the link before validation (R4), every table shows the reset
            a.press("confirm")
            s = a.press("bet_4x")
            assert phase(s) == "settled" and s["validation"][0]["amount"] == "10000.08"
            # the dealer's row pays what the link took, not the settlement's 10,000.04 (P80, round.chips)
            assert s["round"]["chips"]["1"]["wagers"]["progressive"]["amount"] == "10000.08"
            took = time.monotonic()
            while b.controls["progressive"]("outputs")["meters"][0] != 100000:
                assert time.monotonic() - took < 1.0, b.controls["progressive"]("outputs")
                time.sleep(0.01)
            # while it awaits validation, the other table shows the pending jackpot and the reset meter
            b.until(lambda s: s.get("link_pending"), "the pending jackpot shown at b")
            assert b.status()["link_pending"] == [{"seq": 1, "meter": "major", "table": "uth-a", "asset": "A-100",
                                                   "seat": 1, "paid": "10000.08", "after": "1000.00"}]
            s = a.dealer.with_key(a.status(), "confirm")  # the floor supervisor validates
            assert s["validation"] == [] and Decimal(s["meters"]["major"]) == Decimal("1000.00")
            assert s["round"]["chips"]["1"]["wagers"]["progressive"]["amount"] == "10000.08"  # and once validated
            b.until(lambda s: s.get("link_pending") == [], "the validated jackpot no longer pending at b")
            with Journal(a.journal_path) as j:
                paid = [e.data for e in j.events(round_id) if e.kind == "meter_paid"]
            # what the link paid is journaled, the settlement's figure beside it (P80)
            assert [(p["meter"], Decimal(str(p["paid"])), Decimal(str(p["settled"]))) for p in paid] == [
                ("major", Decimal("10000.08"), Decimal("10000.04"))]
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT table_id, round_id, seat, meter, amount FROM link_contribution "
                            "WHERE table_id = 'uth-a' ORDER BY meter").fetchall()
        assert rows == [("uth-a", round_id, 1, "major", Decimal("0.04")), ("uth-a", round_id, 1, "minor",
                                                                            Decimal("0.01"))]
        hit = conn.execute("SELECT seq, table_id, asset, seat, paid, after, state, validated_by "
                           "FROM link_hit").fetchall()
        assert hit == [(1, "uth-a", "A-100", 1, Decimal("10000.08"), Decimal("1000.00"), "validated",
                        "supervisor 4711")]  # COMAR 36.05.03.24 F(3)(c): the winning table's asset number


@pytest.mark.requirement("NY 9 NYCRR 5321.18(c)")
def test_link_lost_disables_progressive_wagers_until_it_returns(tmp_path, monkeypatch):
    """NJAC 13:69E-1.39B, P70: the link's server stopped, the next no more bets takes no progressive wager,
    journals why and tells the dealer; the round plays on. The server back, the next no more bets takes
    them again (journaled) and the link has that round's contribution."""
    cluster = pg.cluster()
    url = cluster.new_database()
    migrate(url)
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK", url)
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK_ID", "floor")
    monkeypatch.setenv("TABLE_ID", "uth-c")
    with simulated_table(GAME, tmp_path, monkeypatch, seed=3, simulators="in_process") as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        lost_round = s["round"]["round_id"]
        cluster.stop()
        try:
            t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
            assert t.controls["progressive"]("wager", seat=1)["accepted"]
            s = t.press("no_more_bets")
            with Journal(t.journal_path) as j:
                off = [e.data for e in j.events(None) if e.kind == "progressive_disabled"]
                taken = [e.data for e in j.events(lost_round) if e.kind == "no_more_bets"]
            assert [o["round"] for o in off] == [lost_round] and "link" in off[0]["reason"]
            assert taken[0]["progressive_seats"] == []  # no progressive wager this round; the base game plays
            told = s["told"]  # the dealer is told: no progressive wager taken, progressive wagers disabled
            assert told["kind"] == "wagers_closed" and "progressive_disabled" in told["also"], told
            assert told["counts"]["progressive_accepted"] == 0, told
        finally:
            cluster.start()
        # the link reached again in the background (it is tried every second): the status says so
        t.until(lambda s: s.get("link_down") is None, "the link reached again")
        t.press("confirm")
        s = t.press("bet_4x")
        assert phase(s) == "settled", s
        for _ in range(3):  # a progressive win of the base round is validated, then paid and collected
            if phase(s) == "wagers":
                break
            s = t.dealer.with_key(s, "confirm") if s.get("validation") else t.press("confirm")
        assert phase(s) == "wagers", s
        back_round = s["round"]["round_id"]
        t.controls["progressive"]("set_bets", bets={"2": {"0": 1000, "1": 1000}})
        assert t.controls["progressive"]("wager", seat=2)["accepted"]
        t.press("no_more_bets")
        with Journal(t.journal_path) as j:
            on = [e.data for e in j.events(None) if e.kind == "progressive_enabled"]
            taken = [e.data for e in j.events(back_round) if e.kind == "no_more_bets"]
        assert [o["round"] for o in on] == [back_round] and taken[0]["progressive_seats"] == [2]
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT round_id, seat FROM link_contribution WHERE table_id = 'uth-c'").fetchall()
    assert set(rows) == {(back_round, 2)}

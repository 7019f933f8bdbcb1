"""Two tables on one link through the real daemons and simulators (tests/daemon_harness.py) and a real
PostgreSQL (tests/pg.py): a progressive wager accepted at one table shows on the other's meter sign
within a second; the link's database holds the contribution keyed by the table, round and seat."""

from __future__ import annotations

import time
from decimal import Decimal

import psycopg

import pg
from controller.journal import Journal
from controller.link.migrate import migrate
from daemon_harness import phase, simulated_table
from games.cards import DECK

GAME = "ultimate_texas_holdem"  # config/: Major $10,000 at 4% of the $1 unit, Minor $500 at 1%
# the shuffler's order (UTH ch.10 §B): the Six Card Bonus stack, the board, the dealer's two, seat 1's two:
# seat 1 makes a royal flush, paid 100% of the Major meter (UTH ch.12 §D(3)(b))
FIRST = ["2c", "3c", "4c", "5c", "Ts", "Js", "Qs", "7d", "2d", "8h", "8d", "As", "Ks"]
ROYAL = FIRST + [c.text for c in DECK if c.text not in FIRST]


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
    with simulated_table(GAME, dirs["a"], monkeypatch) as a:
        for deck in ("A", "B"):
            a.controls["shuffler"]("set_deck", cards=ROYAL, deck=deck)
        a.start_daemon()  # its environment is taken now: table a
        monkeypatch.setenv("TABLE_ID", "uth-b")
        monkeypatch.setenv("TABLE_PROGRESSIVE__ASSET", "A-200")
        with simulated_table(GAME, dirs["b"], monkeypatch, seed=2) as b:
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
            # the royal flush at a: taken by the link before validation (R4), every table shows the reset
            a.press("confirm")
            s = a.press("bet_4x")
            assert phase(s) == "settled" and s["validation"][0]["amount"] == "10000.04"
            took = time.monotonic()
            while b.controls["progressive"]("outputs")["meters"][0] != 100000:
                assert time.monotonic() - took < 1.0, b.controls["progressive"]("outputs")
                time.sleep(0.01)
            s = a.dealer.with_key(a.status(), "confirm")  # the floor supervisor validates
            assert s["validation"] == [] and Decimal(s["meters"]["major"]) == Decimal("1000.00")
            with Journal(a.journal_path) as j:
                paid = [e.data for e in j.events(round_id) if e.kind == "meter_paid"]
            assert [(p["meter"], Decimal(str(p["paid"]))) for p in paid] == [("major", Decimal("10000.04"))]
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT table_id, round_id, seat, meter, amount FROM link_contribution "
                            "ORDER BY meter").fetchall()
        assert rows == [("uth-a", round_id, 1, "major", Decimal("0.04")), ("uth-a", round_id, 1, "minor",
                                                                            Decimal("0.01"))]
        hit = conn.execute("SELECT seq, table_id, asset, seat, paid, after, state, validated_by "
                           "FROM link_hit").fetchall()
        assert hit == [(1, "uth-a", "A-100", 1, Decimal("10000.04"), Decimal("1000.00"), "validated",
                        "supervisor 4711")]  # COMAR 36.05.03.24 F(3)(c): the winning table's asset number

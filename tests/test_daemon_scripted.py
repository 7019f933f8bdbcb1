"""Scripted rounds through the daemon: the cards are set in the simulated shuffler, every press is scripted.

UTH with the example table (config/ultimate_texas_holdem.toml: Blind A, Trips A,
Ultimate Pairs A, Progressive B with Envy B, payout limit $75,000, the
dealer's cards left in the shuffler).  Seat 1 makes a royal flush with the
largest bets the table allows, seat 2 folds with a side wager still working:

* the payout limit (R6; UTH ch.12 §F) takes what the covered wagers win above $75,000;
* the progressive royal is paid 100% of the Major meter, including this round's
  contribution (UTH ch.12 §D(1)(b)(i), R4), and the meter goes back to its reset;
* a fold loses Ante and Blind and still settles Ultimate Pairs (R7).
"""

from __future__ import annotations

from decimal import Decimal

from controller.journal import Journal
from daemon_harness import simulated_table
from games.cards import DECK

# UTH ch.10 §B: the Six Card Bonus stack, the community stack, the dealer's two (held, §B(4)),
# then two cards for each player from the dealer's left (R1).
BONUS = ["2c", "3c", "4c", "5c"]
COMMUNITY = ["Ts", "Js", "Qs", "7d", "2d"]
DEALER = ["8h", "8d"]  # a pair of eights: the dealer qualifies (UTH ch.11 §H(2))
SEAT_1 = ["As", "Ks"]  # royal flush in spades
SEAT_2 = ["9c", "9h"]  # a pair of nines
FIRST = BONUS + COMMUNITY + DEALER + SEAT_1 + SEAT_2
ORDER = FIRST + [c.text for c in DECK if c.text not in FIRST]


def test_royal_flush_payout_limit_progressive_and_fold(tmp_path, monkeypatch):
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.controls["shuffler"]("set_deck", cards=ORDER)  # the opening shuffle deals this order
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: (s.get("round") or {}).get("phase") == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        # bet-sensor areas follow the game's wagers: 0 ante, 1 blind, 2 trips, 3 six card, 4 ultimate pairs
        t.controls["progressive"]("set_bets", bets={"1": {"0": 50000, "1": 50000, "2": 10000},
                                                    "2": {"0": 1000, "1": 1000, "4": 500}})
        t.controls["progressive"]("wager", seat=1)
        t.press("no_more_bets")
        s = t.status()
        assert s["round"]["phase"] == "no_more_bets"
        assert s["round"]["seats"]["1"]["wagers"]["progressive"] == "1.00"
        t.press("confirm")  # one progressive chip, one accepted wager (ch.10 §A(2)(b)(ii))
        s = t.status()
        assert s["round"]["phase"] == "decisions" and s["round"]["to_act"]["seat"] == 1
        assert s["round"]["seats"]["1"]["cards"] == 2  # hole cards hidden
        assert s["round"]["dealer"] == 0  # still in the shuffler
        t.press("bet_4x")  # seat 1: 4x before the flop
        t.press("check")  # seat 2
        t.press("check")  # seat 2 after the flop
        s = t.press("fold")  # seat 2 after the river
        assert s["round"]["phase"] == "settled", s

    with Journal(t.journal_path) as j:
        events = j.events(round_id)
        nets = next(e.data for e in events if e.kind == "settled")["nets"]
        meters_after = next(e.data for e in events if e.kind == "meter_set")["meters"]
        no_more_bets = next(e.data for e in events if e.kind == "no_more_bets")

    # Seat 1, from the rules' odds: Ante 1 to 1 (ch.12 §A), Blind royal 500 to 1 (§B(1)(a)),
    # Play 4 x 500 at 1 to 1, Trips royal 50 to 1 (§C(1)(a)).
    covered = Decimal(500) + 500 * 500 + 4 * 500 + 100 * 50
    limited_by = covered - 75000  # R6
    major = Decimal("10000.00") + Decimal("0.04") * 1  # initial + the rate x unit of this round's wager
    assert Decimal(no_more_bets["meters"]["major"]) == major
    progressive = major - 1  # 100% of the Major meter; the $1 wager was collected (R3)
    assert Decimal(nets["1"]) == covered - limited_by + progressive
    assert Decimal(meters_after["major"]) == Decimal("1000.00")  # back to its reset (R4)
    assert Decimal(meters_after["minor"]) == Decimal("500.00") + Decimal("0.01")
    # Seat 2 folded: Ante and Blind lost; Ultimate Pairs A, pair of tens or less, 3 to 1 (ch.12 §E(1)(g), R7, R22)
    assert Decimal(nets["2"]) == -10 - 10 + 5 * 3


def test_progressive_count_mismatch_stops_the_round_until_the_supervisor_resolves_it(tmp_path, monkeypatch):
    """ch.8 §C(3) / ch.10 §A(2)(b)(ii): the chips must match the wagers the system accepted."""
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        t.until(lambda s: (s.get("round") or {}).get("phase") == "wagers", "the first round")
        t.controls["progressive"]("set_bets", bets={"3": {"0": 1000, "1": 1000}})
        t.controls["progressive"]("wager", seat=3)
        t.press("no_more_bets")
        s = t.press("undo")  # the dealer counts no chip on the layout for the accepted wager
        assert s["round"]["phase"] == "halted" and "do not match" in s["round"]["halted"]["reason"]
        s = t.press("confirm")  # without the supervisor's key: refused, still halted
        assert s["round"]["phase"] == "halted" and s["message"].startswith("refused")
        s = t.dealer.with_key(s, "confirm")  # the supervisor resolved it
        assert s["round"]["phase"] == "no_more_bets"
        s = t.press("confirm")
        assert s["round"]["phase"] == "decisions"
        assert t.controls["panel"]("outputs")["buzz_count"] >= 1  # the refused press buzzed

"""Run 'Em Twice Poker (RET, rules file 004_*): settlement through the settle contract.

Every expected amount is computed here from the paytables as RET ch.12 prints
them (odds written in the test, clause cited), never copied from the engine's
output.  Rounds are built as the contract's JSON (shared/contracts/settle.md)
and settled through ``games.contract.settle`` / ``settlement_json``.
"""

from __future__ import annotations

import io
import json
from decimal import ROUND_HALF_UP, Decimal

import pytest

from controller.cli.main import main as tablectl
from games.cards import DECK
from games.contract import parse_round, settle, settlement_json
from games.round import RoundError

D = Decimal
CENT = D("0.01")
PLACES = ("left", "center", "right", "top", "bottom")  # RULINGS R25


# -- building rounds -------------------------------------------------------------------


def cross(left, center, right, top, bottom) -> dict:
    return dict(zip(PLACES, (left, center, right, top, bottom), strict=True))


def seat(n, cards, ante=10, bets=(1, 1, 1), fold=False, **side) -> dict:
    s = {"seat": n, "cards": list(cards), "wagers": {"ante_1": ante, "ante_2": ante, **side}, "bets": list(bets)}
    if fold:
        s["fold"] = True
    return s


def round_(community: dict, seats: list, paytables=None, progressive=None, payout_limit=None) -> dict:
    r = {"game": "run_em_twice", "paytables": paytables or {}, "community": community, "seats": seats}
    if progressive is not None:
        r["progressive"] = progressive
    if payout_limit is not None:
        r["payout_limit"] = payout_limit
    return r


def run(r: dict) -> dict:
    return settlement_json(settle(r))


def seat_out(out: dict, n: int) -> dict:
    return next(s for s in out["seats"] if s["seat"] == n)


def spare(used, n) -> list[str]:
    """``n`` cards not in ``used``, in deck order (filler whose value the test does not look at)."""
    used = set(used)
    return [c.text for c in DECK if c.text not in used][:n]


def odds_to(amount, x) -> Decimal:
    """"X to 1" pays X times the wager; the wager stays (RULINGS R2)."""
    return D(amount) * x


def odds_for(amount, x) -> Decimal:
    """"X for 1" pays X times the wager in total, wager included (RULINGS R2)."""
    return D(amount) * (x - 1)


def pct_of(meter, percent) -> Decimal:
    """p% of a meter, half up to the cent (RULINGS R4)."""
    return (D(meter) * D(percent) / 100).quantize(CENT, rounding=ROUND_HALF_UP)


# -- hands for the Run paytable (RET ch.12 §B) -------------------------------------------
# Each case: the player's two cards P, the center card C, the two outside cards X
# that with P and C make the line, and two outside cards Y that with P and C make
# a losing hand (below a pair of 6s) on the other line of the cross.
RUN_CASES = [
    # id, line key, hand name, rules' payout (odds "X to 1" or "push"), P, C, X, Y
    ("RET ch.12 §B(1) royal flush 500 to 1", "royal_flush", "royal_flush", 500,
     ("As", "Ks"), "Qs", ("Js", "Ts"), ("2c", "3d")),
    ("RET ch.12 §B(2) straight flush 100 to 1", "straight_flush", "straight_flush", 100,
     ("9h", "8h"), "7h", ("6h", "5h"), ("2c", "Kd")),
    ("RET ch.12 §B(3) four of a kind 40 to 1", "four_of_a_kind", "four_of_a_kind", 40,
     ("5c", "5d"), "Kd", ("5h", "5s"), ("2c", "9h")),
    ("RET ch.12 §B(4) full house 12 to 1", "full_house", "full_house", 12,
     ("4c", "4d"), "Kh", ("Kd", "Kc"), ("2s", "9c")),
    ("RET ch.12 §B(5) flush 8 to 1", "flush", "flush", 8,
     ("Ah", "9h"), "6h", ("3h", "2h"), ("Kc", "4d")),
    ("RET ch.12 §B(6) straight 5 to 1", "straight", "straight", 5,
     ("9c", "8d"), "7h", ("6s", "5c"), ("2d", "Kc")),
    ("RET ch.12 §B(6) wheel straight 5 to 1", "straight", "straight", 5,
     ("Ac", "2d"), "3h", ("4s", "5c"), ("9d", "Jc")),
    ("RET ch.12 §B(7) three of a kind 3 to 1", "three_of_a_kind", "three_of_a_kind", 3,
     ("3c", "3d"), "Kh", ("3h", "8s"), ("2c", "9d")),
    ("RET ch.12 §B(8) two pair 2 to 1", "two_pair", "two_pair", 2,
     ("Kc", "4d"), "2h", ("Kd", "4c"), ("9s", "7c")),
    ("RET ch.12 §B(9) pair of jacks 1 to 1", "pair_of_jacks_or_better", "pair", 1,
     ("Jc", "4d"), "2h", ("Jd", "8s"), ("9s", "7c")),
    ("RET ch.12 §B(9) pair of aces 1 to 1", "pair_of_jacks_or_better", "pair", 1,
     ("Ac", "4d"), "2h", ("Ad", "8s"), ("9s", "7c")),
    ("RET ch.12 §B(10) pair of 10s push", "pair_of_6s_to_10s", "pair", "push",
     ("Tc", "4d"), "2h", ("Td", "8s"), ("9s", "7c")),
    ("RET ch.12 §B(10) pair of 6s push", "pair_of_6s_to_10s", "pair", "push",
     ("6c", "4d"), "2h", ("6d", "8s"), ("9s", "Kc")),
    ("RET ch.12 §B below the table: pair of 5s loses (R27)", None, "pair", "lose",
     ("5c", "4d"), "2h", ("5d", "8s"), ("9s", "Kc")),
    ("RET ch.12 §B below the table: high card loses (R27)", None, "high_card", "lose",
     ("Ac", "4d"), "2h", ("Kd", "8s"), ("9s", "7c")),
]


def _community(which: str, c: str, x, y) -> dict:
    """The cross with the line cards X on the horizontal (1st Run) or vertical (2nd Run) line (R25)."""
    if which == "first_run":
        return cross(x[0], c, x[1], y[0], y[1])
    return cross(y[0], c, y[1], x[0], x[1])


@pytest.mark.parametrize("which", ["first_run", "second_run"])
@pytest.mark.parametrize("case", RUN_CASES, ids=[c[0] for c in RUN_CASES])
def test_run_paytable_every_line_via_each_run_hand_and_the_center(case, which):
    """R27: Run wager by RET ch.12 §B, its Ante 1 to 1 (§A); R28: Center at the same line, or push/lose."""
    _id, line, hand_name, pays, p, c, x, y = case
    other = "second_run" if which == "first_run" else "first_run"
    ante, bets = D(10), [3, 1, 2]  # 1st Run 3x, 2nd Run 1x, Center 2x an Ante (R26)
    amount = {"first_run": ante * 3, "second_run": ante * 1, "center": ante * 2}
    ante_of = {"first_run": "ante_1", "second_run": "ante_2"}
    out = run(round_(_community(which, c, x, y), [seat(2, p, ante=ante, bets=bets)]))
    s = seat_out(out, 2)
    w = s["wagers"]
    assert s[which]["hand"] == hand_name
    # the other Run hand loses with its Ante (below a pair of 6s, R27)
    assert w[other] == {"amount": amount[other], "result": "lose", "net": -amount[other]}
    assert w[ante_of[other]] == {"amount": ante, "result": "lose", "net": -ante}
    if pays == "push":
        assert w[which] == {"amount": amount[which], "result": "push", "net": 0}
        assert w[ante_of[which]] == {"amount": ante, "result": "push", "net": 0}
        # RET ch.11 §I(3)(b)/(c): one Run pushes, the other loses -> the Center pushes
        assert w["center"] == {"amount": amount["center"], "result": "push", "net": 0}
    elif pays == "lose":
        assert w[which] == {"amount": amount[which], "result": "lose", "net": -amount[which]}
        assert w[ante_of[which]] == {"amount": ante, "result": "lose", "net": -ante}
        # RET ch.11 §I(3)(d): both lose -> the Center loses
        assert w["center"] == {"amount": amount["center"], "result": "lose", "net": -amount["center"]}
    else:
        assert w[which] == {"amount": amount[which], "result": "win", "net": odds_to(amount[which], pays), "line": line}
        assert w[ante_of[which]] == {"amount": ante, "result": "win", "net": ante}  # RET ch.12 §A: 1 to 1
        # R28: either Run wins -> Center paid at the odds of the higher Run hand (this one)
        assert w["center"] == {
            "amount": amount["center"], "result": "win", "net": odds_to(amount["center"], pays), "line": line
        }
    assert s["net"] == sum(v["net"] for v in w.values())


# -- the Center wager, RULINGS R28 and RET ch.11 §I(3) ------------------------------------------


def _center_round(p, community, bets=(1, 1, 3)):
    out = run(round_(community, [seat(1, p, ante=5, bets=bets)]))
    return seat_out(out, 1)["wagers"]


def test_center_pushes_when_first_run_pushes_and_second_loses():
    """RET ch.11 §I(3)(b): 1st Run push (pair of 10s), 2nd Run loses -> Center push."""
    w = _center_round(("Tc", "4d"), cross("Td", "2h", "8s", "9s", "7c"))
    assert (w["first_run"]["result"], w["second_run"]["result"]) == ("push", "lose")
    assert w["center"] == {"amount": 15, "result": "push", "net": 0}


def test_center_pushes_when_second_run_pushes_and_first_loses():
    """RET ch.11 §I(3)(c)."""
    w = _center_round(("Tc", "4d"), cross("9s", "2h", "7c", "Td", "8s"))
    assert (w["first_run"]["result"], w["second_run"]["result"]) == ("lose", "push")
    assert w["center"] == {"amount": 15, "result": "push", "net": 0}


def test_center_loses_when_both_runs_lose():
    """RET ch.11 §I(3)(d)."""
    w = _center_round(("5c", "4d"), cross("9s", "2h", "Kc", "8s", "Jd"))
    assert (w["first_run"]["result"], w["second_run"]["result"]) == ("lose", "lose")
    assert w["center"] == {"amount": 15, "result": "lose", "net": -15}


def test_center_pushes_when_both_runs_push():
    """R28: neither wins and at least one pushes (both pairs of 7s)."""
    w = _center_round(("7c", "4d"), cross("2s", "7h", "9d", "Kc", "3s"))
    assert (w["first_run"]["result"], w["second_run"]["result"]) == ("push", "push")
    assert w["center"] == {"amount": 15, "result": "push", "net": 0}


def test_center_wins_when_one_run_wins_and_the_other_pushes():
    """R28: 1st Run two pair (2 to 1, RET ch.12 §B(8)), 2nd Run pair of 8s pushes -> Center 2 to 1."""
    w = _center_round(("8c", "8d"), cross("Jc", "2h", "Jd", "3s", "Kh"))
    assert (w["first_run"]["result"], w["second_run"]["result"]) == ("win", "push")
    assert w["center"] == {"amount": 15, "result": "win", "net": odds_to(15, 2), "line": "two_pair"}


def test_center_paid_at_the_higher_run_hand_when_both_win():
    """R28: 1st Run three aces (3 to 1, §B(7)), 2nd Run flush (8 to 1, §B(5)) -> Center at 8 to 1."""
    w = _center_round(("Ah", "9h"), cross("Ad", "5h", "Ac", "2h", "3h"), bets=(2, 1, 3))
    assert w["first_run"] == {"amount": 10, "result": "win", "net": odds_to(10, 3), "line": "three_of_a_kind"}
    assert w["second_run"] == {"amount": 5, "result": "win", "net": odds_to(5, 8), "line": "flush"}
    assert w["ante_1"]["net"] == 5 and w["ante_2"]["net"] == 5
    assert w["center"] == {"amount": 15, "result": "win", "net": odds_to(15, 8), "line": "flush"}


def test_center_paid_at_the_higher_run_hand_when_it_is_the_first():
    """R28: 1st Run full house (12 to 1, §B(4)), 2nd Run pair of kings (1 to 1, §B(9)) -> Center 12 to 1."""
    w = _center_round(("Kc", "Kd"), cross("4h", "Kh", "4s", "2c", "9d"))
    assert w["first_run"]["line"] == "full_house"
    assert w["second_run"]["line"] == "three_of_a_kind"  # K K K from the shared center card
    assert w["center"] == {"amount": 15, "result": "win", "net": odds_to(15, 12), "line": "full_house"}


# -- Five Card Bonus, RET ch.12 §D: the five community cards alone (R29) ------------------
FIVE_CARD_CASES = [
    ("RET ch.12 §D(1) royal flush 250 to 1", ("Ah", "Kh", "Qh", "Jh", "Th"), "royal_flush", 250),
    ("RET ch.12 §D(2) straight flush 100 to 1", ("9d", "8d", "7d", "6d", "5d"), "straight_flush", 100),
    ("RET ch.12 §D(3) four of a kind 40 to 1", ("8c", "8d", "8h", "8s", "2c"), "four_of_a_kind", 40),
    ("RET ch.12 §D(4) full house 15 to 1", ("Qc", "Qd", "Qh", "3s", "3c"), "full_house", 15),
    ("RET ch.12 §D(5) flush 10 to 1", ("Ks", "9s", "7s", "4s", "2s"), "flush", 10),
    ("RET ch.12 §D(6) straight 6 to 1", ("6c", "5d", "4h", "3s", "2c"), "straight", 6),
    ("RET ch.12 §D(6) wheel 6 to 1", ("Ac", "2d", "3h", "4s", "5c"), "straight", 6),
    ("RET ch.12 §D(7) three of a kind 4 to 1", ("7c", "7d", "7h", "Ks", "2c"), "three_of_a_kind", 4),
    ("RET ch.12 §D(8) two pair 3 to 1", ("Jc", "Jd", "4h", "4s", "9c"), "two_pair", 3),
    ("RET ch.12 §D(9) pair of 6s 1 to 1", ("6c", "6d", "Kh", "9s", "2c"), "pair_of_6s_or_better", 1),
    ("RET ch.12 §D(9) pair of aces 1 to 1", ("Ac", "Ad", "Kh", "9s", "2c"), "pair_of_6s_or_better", 1),
    ("RET ch.12 §D below the table: pair of 5s loses", ("5c", "5d", "Kh", "9s", "2c"), None, None),
    ("RET ch.12 §D below the table: high card loses", ("Ac", "Kd", "9h", "7s", "2c"), None, None),
]


@pytest.mark.parametrize("case", FIVE_CARD_CASES, ids=[c[0] for c in FIVE_CARD_CASES])
def test_five_card_bonus_every_line(case):
    _id, community, line, x = case
    # The player's cards do not matter: the hand is the five community cards alone (RET ch.7 §E(2)(a)).
    player = spare(community, 2)
    out = run(round_(cross(*community), [seat(3, player, five_card_bonus=D("7.50"))]))
    fcb = seat_out(out, 3)["wagers"]["five_card_bonus"]
    if line is None:
        assert fcb == {"amount": D("7.50"), "result": "lose", "net": D("-7.50")}
    else:
        assert fcb == {"amount": D("7.50"), "result": "win", "net": odds_to(D("7.50"), x), "line": line}


def test_five_card_bonus_ignores_the_players_cards():
    """R29: the player's pair of aces does not improve a community high card."""
    out = run(round_(cross("Kc", "9d", "7h", "4s", "2c"), [seat(1, ("Ac", "Ad"), five_card_bonus=5)]))
    assert seat_out(out, 1)["wagers"]["five_card_bonus"]["result"] == "lose"


# -- Ultimate Pairs, RET ch.12 §E: the player's two cards (R22, R29) ---------------------
PAIR_OF_ACES = [("As", "Ac"), ("Ah", "As"), ("Ad", "Ac")]
HANDS = {
    "pair_of_player_aces_of_hearts_and_diamonds": [("Ah", "Ad")],
    "pair_of_aces": PAIR_OF_ACES,
    "ace_and_king_of_the_same_suit": [("Ad", "Kd"), ("Ks", "As")],
    "ace_and_queen_or_jack_of_the_same_suit": [("Ac", "Qc"), ("Jh", "Ah")],
    "ace_and_king_of_different_suits": [("Ac", "Kh")],
    "ace_and_queen_or_jack_of_different_suits": [("As", "Qd"), ("Jc", "Ad")],
    "pair_of_jacks_queens_or_kings": [("Jc", "Jd"), ("Qh", "Qs"), ("Kc", "Kd")],
    "pair_of_tens_or_less": [("Tc", "Td"), ("2h", "2s")],
}
# Each table as the rules print it: (clause label, line, X in "X to 1").
ULTIMATE_PAIRS = {
    "A": ("RET ch.12 §E(1)", [
        ("a", "pair_of_aces", 30), ("b", "ace_and_king_of_the_same_suit", 25),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", 20), ("d", "ace_and_king_of_different_suits", 15),
        ("e", "pair_of_jacks_queens_or_kings", 10), ("f", "ace_and_queen_or_jack_of_different_suits", 5),
        ("g", "pair_of_tens_or_less", 3),
    ]),
    "B": ("RET ch.12 §E(2)", [
        ("a", "pair_of_aces", 30), ("b", "ace_and_king_of_the_same_suit", 20),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", 20), ("d", "ace_and_king_of_different_suits", 10),
        ("e", "ace_and_queen_or_jack_of_different_suits", 10), ("f", "pair_of_jacks_queens_or_kings", 5),
        ("g", "pair_of_tens_or_less", 5),
    ]),
    "C": ("RET ch.12 §E(3)", [
        ("a", "pair_of_player_aces_of_hearts_and_diamonds", 100), ("b", "pair_of_aces", 30),
        ("c", "ace_and_king_of_the_same_suit", 20), ("d", "ace_and_queen_or_jack_of_the_same_suit", 20),
        ("e", "ace_and_king_of_different_suits", 10), ("f", "ace_and_queen_or_jack_of_different_suits", 10),
        ("g", "pair_of_jacks_queens_or_kings", 4), ("h", "pair_of_tens_or_less", 4),
    ]),
    "D": ("RET ch.12 §E(4)", [
        ("a", "pair_of_player_aces_of_hearts_and_diamonds", 50), ("b", "pair_of_aces", 25),
        ("c", "ace_and_king_of_the_same_suit", 20), ("d", "ace_and_queen_or_jack_of_the_same_suit", 20),
        ("e", "ace_and_king_of_different_suits", 10), ("f", "ace_and_queen_or_jack_of_different_suits", 10),
        ("g", "pair_of_jacks_queens_or_kings", 5), ("h", "pair_of_tens_or_less", 5),
    ]),
    "E": ("RET ch.12 §E(5)", [
        ("a", "pair_of_aces", 25), ("b", "ace_and_king_of_the_same_suit", 20),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", 20), ("d", "ace_and_king_of_different_suits", 10),
        ("e", "ace_and_queen_or_jack_of_different_suits", 10), ("f", "pair_of_jacks_queens_or_kings", 5),
        ("g", "pair_of_tens_or_less", 5),
    ]),
}
UP_CASES = []
for _letter, (_clause, _lines) in ULTIMATE_PAIRS.items():
    _has_hd = any(k == "pair_of_player_aces_of_hearts_and_diamonds" for _, k, _ in _lines)
    for _label, _key, _x in _lines:
        for _cards in HANDS[_key]:
            UP_CASES.append((f"{_clause}({_label}) {'/'.join(_cards)} {_x} to 1", _letter, _cards, _key, _x))
    if not _has_hd:  # A, B, E have no A♥A♦ line: that pair is a plain pair of aces (R22)
        _x = dict((k, x) for _, k, x in _lines)["pair_of_aces"]
        UP_CASES.append((f"{_clause} Ah/Ad is a pair of aces (R22)", _letter, ("Ah", "Ad"), "pair_of_aces", _x))
    for _cards in (("Kc", "Qd"), ("Ac", "Td"), ("Ah", "9h"), ("Js", "Qs")):
        UP_CASES.append((f"{_clause} {'/'.join(_cards)} loses", _letter, _cards, None, None))


@pytest.mark.parametrize("case", UP_CASES, ids=[c[0] for c in UP_CASES])
def test_ultimate_pairs_every_line_of_every_table(case):
    _id, letter, cards, line, x = case
    community = spare(cards, 5)
    out = run(round_(cross(*community), [seat(4, cards, ultimate_pairs=4)], paytables={"ultimate_pairs": letter}))
    up = seat_out(out, 4)["wagers"]["ultimate_pairs"]
    if line is None:
        assert up == {"amount": 4, "result": "lose", "net": -4}
    else:
        assert up == {"amount": 4, "result": "win", "net": odds_to(4, x), "line": line}


# -- Progressive, RET ch.12 §F: the 1st Run hand (R29) ----------------------------------------
# Meters and resets per table (at least the §F(6)(b) minimums); meter amounts chosen so a
# percentage lands on a half cent (R4: half up).
PROGRESSIVE_BLOCKS = {
    "A": {"unit": 1, "meters": {"meter": D("12345.65")}, "reset": {"meter": D("10000")}},
    "B": {"unit": 5, "meters": {"meter": D("2345.65")}, "reset": {"meter": D("2000")}},
    "C": {"unit": 1, "meters": {"major": D("15000.55"), "minor": D("1234.45")},
          "reset": {"major": D("10000"), "minor": D("1000")}},
    "D": {"unit": 5, "meters": {"mega": D("25000.25"), "major": D("1500.50"), "minor": D("333.33")},
          "reset": {"mega": D("10000"), "major": D("1000"), "minor": D("250")}},
}
# As printed: ("pct", meter, percent) or ("for", X).
PROGRESSIVE = {
    "A": ("RET ch.12 §F(1)", [("a", "royal_flush", ("pct", "meter", 100)),
                               ("b", "straight_flush", ("pct", "meter", 10)),
                               ("c", "four_of_a_kind", ("for", 300)), ("d", "full_house", ("for", 50)),
                               ("e", "flush", ("for", 40)), ("f", "straight", ("for", 30)),
                               ("g", "three_of_a_kind", ("for", 9))]),
    "B": ("RET ch.12 §F(2)", [("a", "royal_flush", ("pct", "meter", 100)),
                               ("b", "straight_flush", ("pct", "meter", 10)),
                               ("c", "four_of_a_kind", ("for", 300)), ("d", "full_house", ("for", 50)),
                               ("e", "flush", ("for", 40)), ("f", "straight", ("for", 30)),
                               ("g", "three_of_a_kind", ("for", 9))]),
    "C": ("RET ch.12 §F(3)", [("a", "royal_flush", ("pct", "major", 100)),
                               ("b", "straight_flush", ("pct", "minor", 100)),
                               ("c", "four_of_a_kind", ("for", 300)), ("d", "full_house", ("for", 50)),
                               ("e", "flush", ("for", 40)), ("f", "straight", ("for", 30)),
                               ("g", "three_of_a_kind", ("for", 9))]),
    "D": ("RET ch.12 §F(4)", [("a", "royal_flush", ("pct", "mega", 100)),
                               ("b", "straight_flush", ("pct", "major", 100)),
                               ("c", "four_of_a_kind", ("pct", "minor", 100)), ("d", "full_house", ("for", 50)),
                               ("e", "flush", ("for", 40)), ("f", "straight", ("for", 30)),
                               ("g", "three_of_a_kind", ("for", 9))]),
}
PROG_CASES = []
for _letter, (_clause, _lines) in PROGRESSIVE.items():
    for _label, _key, _pays in _lines:
        PROG_CASES.append((f"{_clause}({_label}) {_key} via first_run", _letter, _key, _pays, "first_run"))
        # R29: the same hand made on the vertical line (2nd Run) pays nothing; the 1st Run hand is then
        # at most a pair, below every progressive table
        PROG_CASES.append((f"{_clause}({_label}) {_key} via second_run loses (R29)", _letter, _key, None, "second_run"))
    # two pair is below every progressive table: the wager loses
    PROG_CASES.append((f"{_clause} two pair loses", _letter, "two_pair", None, "first_run"))


@pytest.mark.parametrize("case", PROG_CASES, ids=[c[0] for c in PROG_CASES])
def test_progressive_every_line_of_every_table_with_meters(case):
    _id, letter, hand_line, pays, which = case
    _rid, _l, _h, _x, p, c, x, y = _RUN_CASES_BY_HAND[hand_line]
    block = PROGRESSIVE_BLOCKS[letter]
    unit = D(block["unit"])
    out = run(round_(
        _community(which, c, x, y),
        [seat(6, p, progressive=block["unit"])],
        paytables={"progressive": letter},
        progressive=block,
    ))
    prog = seat_out(out, 6)["wagers"]["progressive"]
    assert seat_out(out, 6)[which]["hand"] == _h
    meters = dict(block["meters"])
    if pays is None:
        assert prog == {"amount": unit, "result": "lose", "net": -unit}
    elif pays[0] == "for":
        # R3: "X for 1" of the fixed unit; the wager was collected
        assert prog == {"amount": unit, "result": "win", "net": odds_for(unit, pays[1]), "line": hand_line}
    else:
        _, meter, percent = pays
        paid = pct_of(meters[meter], percent)
        # R3: a percentage of the meter does not scale with the unit: net = paid - u
        assert prog == {"amount": unit, "result": "win", "net": paid - unit, "line": hand_line}
        # R4: the meter drops by what was paid, never below its reset amount
        meters[meter] = max(block["reset"][meter], meters[meter] - paid)
    assert out["meters"] == {k: v.quantize(CENT) for k, v in meters.items()}


_RUN_CASES_BY_HAND = {c[1]: c for c in RUN_CASES if c[1] is not None}


def test_progressive_is_the_first_run_hand_even_when_the_second_is_better():
    """RET ch.12 §F(5), R29: 1st Run three aces, 2nd Run flush -> the three of a kind line (9 for 1, §F(1)(g))."""
    block = PROGRESSIVE_BLOCKS["A"]
    out = run(round_(cross("Ad", "5h", "Ac", "2h", "3h"), [seat(1, ("Ah", "9h"), progressive=1)],
                     paytables={"progressive": "A"}, progressive=block))
    s = seat_out(out, 1)
    assert s["first_run"]["hand"] == "three_of_a_kind" and s["second_run"]["hand"] == "flush"
    assert s["wagers"]["progressive"] == {
        "amount": 1, "result": "win", "net": odds_for(1, 9), "line": "three_of_a_kind"
    }


def test_second_run_straight_flush_with_a_high_card_first_run_pays_no_progressive_and_no_envy():
    """R29: a 2nd Run straight flush beside a high-card 1st Run hand: no Progressive, no Envy for the others."""
    seats = [seat(2, ("4h", "7h"), progressive=1), seat(3, ("Ac", "Kd"), progressive=1)]
    # horizontal 9c 8h Td: seat 2's 1st Run is T-high; vertical 6h 8h 5h: its 2nd Run is a 4-8 straight flush
    out = run(round_(cross("9c", "8h", "Td", "6h", "5h"), seats, paytables={"progressive": "A"},
                     progressive=_progressive_block("A", "A")))
    s2 = seat_out(out, 2)
    assert s2["first_run"]["hand"] == "high_card" and s2["second_run"]["hand"] == "straight_flush"
    assert s2["wagers"]["progressive"] == {"amount": 1, "result": "lose", "net": -1}
    assert "envy" not in seat_out(out, 3)["wagers"]
    assert out["meters"] == {"meter": D("20000.00")}


def test_progressive_two_winners_of_one_meter_paid_in_settlement_order():
    """R1, R4, RET ch.12 §F(6)(v): seat 5 (first to be paid) then seat 2 from the meter seat 5 left."""
    meter, reset = D("12345.65"), D("10000")
    block = {"unit": 1, "meters": {"meter": meter}, "reset": {"meter": reset}}
    # horizontal 9h 8h Th: seat 5 (Jh Qh) 8-Q and seat 2 (6h 7h) 6-T straight flushes on the 1st Run
    out = run(round_(cross("9h", "8h", "Th", "2c", "3d"),
                     [seat(2, ("6h", "7h"), progressive=1), seat(5, ("Jh", "Qh"), progressive=1)],
                     paytables={"progressive": "A"}, progressive=block))
    assert [s["seat"] for s in out["seats"]] == [5, 2]
    paid_5 = pct_of(meter, 10)  # §F(1)(b): 10 percent of meter
    after_5 = max(reset, meter - paid_5)
    paid_2 = pct_of(after_5, 10)
    after_2 = max(reset, after_5 - paid_2)
    assert seat_out(out, 5)["wagers"]["progressive"]["net"] == paid_5 - 1
    assert seat_out(out, 2)["wagers"]["progressive"]["net"] == paid_2 - 1
    assert seat_out(out, 2)["first_run"]["hand"] == "straight_flush"
    assert seat_out(out, 5)["first_run"]["hand"] == "straight_flush"
    assert out["meters"] == {"meter": after_2}


def test_progressive_royal_empties_the_meter_to_its_reset():
    """R4: 100% of the meter paid; meter_after = max(reset, 0) = reset."""
    block = {"unit": 1, "meters": {"mega": D("23456.78"), "major": D("1500"), "minor": D("300")},
             "reset": {"mega": D("10000"), "major": D("1000"), "minor": D("250")}}
    out = run(round_(cross("Qs", "Js", "Ts", "2c", "3d"), [seat(1, ("As", "Ks"), progressive=1)],
                     paytables={"progressive": "D"}, progressive=block))
    assert seat_out(out, 1)["wagers"]["progressive"]["net"] == D("23456.78") - 1
    assert out["meters"] == {"mega": D("10000.00"), "major": D("1500.00"), "minor": D("300.00")}


# -- Envy Bonus, RET ch.12 §G-§I, RULINGS R24, R24c, R29 --------------------------------------
ENVY_CASES = [
    (f"RET ch.12 §H({n})({label}) {line} ${amount}", letter, line, amount)
    for letter, n in (("A", 1), ("B", 2), ("C", 3), ("D", 4))
    for label, line, amount in (("a", "royal_flush", 1000), ("b", "straight_flush", 300))
]
# The hand on seat 1, in either Run hand; seats 3 and 5 make nothing.  Only the 1st Run hand
# qualifies (R29): the same hand on the 2nd Run pays no Envy Bonus.
ENVY_DEALS = {
    ("royal_flush", "first_run"): (cross("Qs", "Js", "Ts", "2c", "3d"), ("As", "Ks")),
    ("royal_flush", "second_run"): (cross("2c", "Js", "3d", "Qs", "Ts"), ("As", "Ks")),
    ("straight_flush", "first_run"): (cross("7h", "8h", "9h", "2c", "3d"), ("Th", "Jh")),
    ("straight_flush", "second_run"): (cross("2c", "8h", "3d", "7h", "9h"), ("Th", "Jh")),
}


def _progressive_block(letter, envy, unit=1, requires=None):
    metered = {"A": ["meter"], "B": ["meter"], "C": ["major", "minor"], "D": ["mega", "major", "minor"]}[letter]
    block = {
        "unit": unit, "meters": {m: D(20000) for m in metered}, "reset": {m: D(250) for m in metered}, "envy": envy
    }
    if requires is not None:
        block["envy_requires_progressive_wager"] = requires
    return block


@pytest.mark.parametrize("which", ["first_run", "second_run"])
@pytest.mark.parametrize("case", ENVY_CASES, ids=[c[0] for c in ENVY_CASES])
def test_envy_bonus_every_line_of_every_table(case, which):
    _id, letter, line, amount = case
    community, qualifying = ENVY_DEALS[(line, which)]
    seats = [
        seat(1, qualifying, progressive=1),
        seat(3, ("Kc", "Qd"), progressive=1),
        seat(5, ("4c", "5d")),  # no Progressive wager: no Envy Bonus (RET ch.12 §G(1))
    ]
    out = run(round_(community, seats, paytables={"progressive": "A"}, progressive=_progressive_block("A", letter)))
    assert seat_out(out, 1)[which]["hand"] == line
    if which == "first_run":
        assert seat_out(out, 3)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": amount, "from_seats": [1]}
    else:
        assert "envy" not in seat_out(out, 3)["wagers"]
    assert "envy" not in seat_out(out, 1)["wagers"]  # never for the seat's own hand (R24)
    assert "envy" not in seat_out(out, 5)["wagers"]


def test_envy_bonus_for_a_5_dollar_progressive_wager():
    """RET ch.12 §I(1)(a): royal flush $5,000 for a $5 Progressive wager (R3)."""
    community, qualifying = ENVY_DEALS[("royal_flush", "first_run")]
    seats = [seat(1, qualifying, progressive=5), seat(2, ("Kc", "Qd"), progressive=5)]
    out = run(round_(community, seats, paytables={"progressive": "B"},
                     progressive=_progressive_block("B", "A", unit=5)))
    assert seat_out(out, 2)["wagers"]["envy"]["net"] == 5000


def test_envy_bonus_from_two_qualifying_seats():
    """R29: one amount per other qualifying seat, from_seats ascending (§H(1)(b) $300 each)."""
    seats = [
        seat(2, ("6h", "7h"), progressive=1),  # 6-T straight flush on the horizontal line
        seat(5, ("Jh", "Qh"), progressive=1),  # 8-Q straight flush on the horizontal line
        seat(3, ("Ac", "Kd"), progressive=1),
    ]
    out = run(round_(cross("9h", "8h", "Th", "2c", "3d"), seats, paytables={"progressive": "A"},
                     progressive=_progressive_block("A", "A")))
    assert seat_out(out, 3)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": 300 + 300, "from_seats": [2, 5]}
    assert seat_out(out, 2)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": 300, "from_seats": [5]}
    assert seat_out(out, 5)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": 300, "from_seats": [2]}


@pytest.mark.parametrize("requires, paid", [(None, False), (True, False), (False, True)])
def test_envy_option_qualifying_seat_needs_a_progressive_wager(requires, paid):
    """R24 (via R29): by default the qualifying hand's seat must itself have a Progressive wager."""
    community, qualifying = ENVY_DEALS[("royal_flush", "first_run")]
    seats = [seat(1, qualifying), seat(3, ("Kc", "Qd"), progressive=1)]
    out = run(round_(community, seats, paytables={"progressive": "C"},
                     progressive=_progressive_block("C", "C", requires=requires)))
    w = seat_out(out, 3)["wagers"]
    if paid:
        assert w["envy"] == {"amount": 0, "result": "win", "net": 1000, "from_seats": [1]}
    else:
        assert "envy" not in w


@pytest.mark.parametrize(
    "bets, side, qualifies",
    [
        ([], {}, False),  # R24c: folded at the 1st decision, no pending wager: cards collected (RET ch.11 §B(2)(b))
        ([2], {}, False),  # RET ch.11 §D(1)(b)
        ([2, 1], {}, False),  # RET ch.11 §F(1)(b)
        ([], {"five_card_bonus": 5}, True),  # RET ch.11 §B(3): cards left on the table for the pending wager
        ([2, 1], {"ultimate_pairs": 5}, True),  # RET ch.11 §F(2)
        ([1], {"progressive": 1}, True),  # RET ch.11 §J
    ],
)
def test_envy_folded_hand_qualifies_only_while_its_cards_are_on_the_layout(bets, side, qualifies):
    """R24c; the option of R24 is off here so that the wager itself does not decide."""
    community, qualifying = ENVY_DEALS[("straight_flush", "first_run")]
    seats = [seat(1, qualifying, bets=bets, fold=True, **side), seat(3, ("Kc", "Qd"), progressive=1)]
    out = run(round_(community, seats, paytables={"progressive": "D", "ultimate_pairs": "A"},
                     progressive=_progressive_block("D", "D", requires=False)))
    w = seat_out(out, 3)["wagers"]
    if qualifies:
        assert w["envy"] == {"amount": 0, "result": "win", "net": 300, "from_seats": [1]}
    else:
        assert "envy" not in w


def test_no_envy_without_an_envy_table():
    """Settle contract: without progressive.envy no Envy Bonus is paid."""
    community, qualifying = ENVY_DEALS[("royal_flush", "first_run")]
    block = _progressive_block("A", None)
    del block["envy"]
    out = run(round_(community, [seat(1, qualifying, progressive=1), seat(3, ("Kc", "Qd"), progressive=1)],
                     paytables={"progressive": "A"}, progressive=block))
    assert "envy" not in seat_out(out, 3)["wagers"]


# -- folds (R7, R26, RET ch.11 §B(2), §D(1), §F(1)) ----------------------------------------------


@pytest.mark.parametrize(
    "bets, clause",
    [([], "RET ch.11 §B(2)"), ([2], "RET ch.11 §D(1)"), ([2, 3], "RET ch.11 §F(1)")],
    ids=["fold at the 1st Run decision", "fold at the 2nd Run decision", "fold at the Center decision"],
)
def test_fold_loses_antes_and_run_wagers_made_side_wagers_still_settle(bets, clause):
    # A royal flush on the 1st Run line that a folded player does not get paid for;
    # the community makes three queens for the Five Card Bonus.
    ante = D(10)
    out = run(round_(
        cross("Qs", "Js", "Ts", "Qd", "Qc"),
        [seat(4, ("As", "Ks"), ante=ante, bets=bets, fold=True, five_card_bonus=5, ultimate_pairs=2, progressive=1)],
        paytables={"ultimate_pairs": "A", "progressive": "A"},
        progressive={"unit": 1, "meters": {"meter": D("15000")}, "reset": {"meter": D("10000")}},
    ))
    s = seat_out(out, 4)
    w = s["wagers"]
    expected_main = {"ante_1": ante, "ante_2": ante}
    if len(bets) > 0:
        expected_main["first_run"] = ante * bets[0]
    if len(bets) > 1:
        expected_main["second_run"] = ante * bets[1]
    for k, amount in expected_main.items():
        assert w[k] == {"amount": amount, "result": "lose", "net": -amount}, k
    assert "center" not in w
    assert len(bets) > 0 or "first_run" not in w
    assert len(bets) > 1 or "second_run" not in w
    # R7: side wagers settled on the player's cards
    # §D(7)
    assert w["five_card_bonus"] == {"amount": 5, "result": "win", "net": odds_to(5, 4), "line": "three_of_a_kind"}
    assert w["ultimate_pairs"] == {"amount": 2, "result": "win", "net": odds_to(2, 25),
                                   "line": "ace_and_king_of_the_same_suit"}  # §E(1)(b)
    assert w["progressive"] == {"amount": 1, "result": "win", "net": D("15000") - 1, "line": "royal_flush"}  # §F(1)(a)
    assert out["meters"] == {"meter": D("10000.00")}
    assert list(w) == [k for k in ("ante_1", "first_run", "ante_2", "second_run", "five_card_bonus",
                                    "ultimate_pairs", "progressive") if k in w]
    assert s["net"] == sum(v["net"] for v in w.values())


# -- payout limit (R6, RET ch.12 §C) -------------------------------------------------------------


def test_payout_limit_caps_all_but_progressive():
    ante = D(1000)
    meter = D("12000")
    out = run(round_(
        cross("Qs", "Js", "Ts", "2c", "3d"),
        [seat(1, ("As", "Ks"), ante=ante, bets=[3, 1, 3], ultimate_pairs=100, five_card_bonus=50, progressive=1)],
        paytables={"ultimate_pairs": "A", "progressive": "A"},
        progressive={"unit": 1, "meters": {"meter": meter}, "reset": {"meter": D("10000")}},
        payout_limit=50000,
    ))
    s = seat_out(out, 1)
    w = s["wagers"]
    covered_winnings = (
        ante  # ante_1, RET ch.12 §A
        + odds_to(ante * 3, 500)  # 1st Run royal flush, §B(1)
        + odds_to(ante * 3, 500)  # Center at the royal flush, R28
        + odds_to(100, 25)  # Ultimate Pairs A-K suited, §E(1)(b)
    )
    losses = -ante - ante * 1 - 50  # ante_2, second_run (A-K-J high), five card bonus (high card)
    progressive_net = meter - 1  # §F(1)(a), not covered (R6)
    assert w["progressive"]["net"] == progressive_net
    assert s["limited_by"] == covered_winnings - 50000
    assert s["net"] == 50000 + losses + progressive_net


def test_payout_limit_not_reached():
    out = run(round_(cross("Qs", "Js", "Ts", "2c", "3d"), [seat(1, ("As", "Ks"), ante=5, bets=[1, 1, 1])],
                     payout_limit=1000000))
    s = seat_out(out, 1)
    assert s["limited_by"] == 0
    assert s["net"] == 5 + odds_to(5, 500) - 5 - 5 + odds_to(5, 500)


# -- the shape of the output (settle contract, R1, R25) ---------------------------------------------


def test_output_shape_order_and_cards():
    out = run(round_(
        cross("Qs", "Js", "Ts", "2c", "3d"),
        [
            seat(1, ("As", "Ks"), bets=[1, 2, 3], five_card_bonus=1, ultimate_pairs=1, progressive=1),
            seat(6, ("7h", "7d"), bets=[], fold=True),
            seat(4, ("9c", "8c")),
        ],
        paytables={"ultimate_pairs": "B", "progressive": "B"},
        progressive={"unit": 1, "meters": {"meter": D(3000)}, "reset": {"meter": D(2000)}, "envy": "B"},
    ))
    assert "dealer" not in out
    assert [s["seat"] for s in out["seats"]] == [6, 4, 1]  # R1: highest seat first
    s1 = seat_out(out, 1)
    assert "hand" not in s1 and "cards" not in s1
    assert s1["first_run"] == {"hand": "royal_flush", "cards": ["As", "Ks", "Qs", "Js", "Ts"]}
    assert s1["second_run"] == {"hand": "high_card", "cards": ["As", "Ks", "Js", "3d", "2c"]}
    assert list(s1["wagers"]) == ["ante_1", "first_run", "ante_2", "second_run", "center",
                                  "five_card_bonus", "ultimate_pairs", "progressive"]
    assert [s1["wagers"][k]["amount"] for k in ("first_run", "second_run", "center")] == [10, 20, 30]
    s4 = seat_out(out, 4)
    assert s4["first_run"]["hand"] == "straight"  # 8-Q
    assert s4["second_run"] == {"hand": "high_card", "cards": ["Js", "9c", "8c", "3d", "2c"]}
    assert list(seat_out(out, 6)["wagers"]) == ["ante_1", "ante_2"]
    assert out["meters"] == {"meter": D("2000.00")}


def test_round_without_progressive_block_has_empty_meters_and_cents_amounts():
    out = run(round_(cross("Jd", "2h", "8s", "9s", "7c"), [seat(2, ("Jc", "4d"), ante=D("2.55"), bets=[3, 1, 2])]))
    assert out["meters"] == {}
    w = seat_out(out, 2)["wagers"]
    assert w["first_run"] == {"amount": D("7.65"), "result": "win", "net": D("7.65"), "line": "pair_of_jacks_or_better"}
    assert w["center"] == {"amount": D("5.10"), "result": "win", "net": D("5.10"), "line": "pair_of_jacks_or_better"}


def test_cli_settles_a_round():
    r = round_(cross("Qs", "Js", "Ts", "2c", "3d"), [seat(1, ("As", "Ks"), ante=1, bets=[1, 1, 1])])
    stdout, stderr = io.StringIO(), io.StringIO()
    assert tablectl(["settle"], stdin=io.StringIO(json.dumps(r)), stdout=stdout, stderr=stderr) == 0
    out = json.loads(stdout.getvalue())
    assert out["seats"][0]["wagers"]["first_run"]["net"] == 500  # §B(1) 500 to 1 on $1


# -- refusals -----------------------------------------------------------------------------------------


def _valid(**over) -> dict:
    r = round_(cross("Qs", "Js", "Ts", "2c", "3d"), [seat(1, ("As", "Ks"))])
    r.update(over)
    return r


def _refused(r: dict) -> RoundError:
    with pytest.raises(RoundError) as e:
        parse_round(r)
    return e.value


def _with_seat(**changes) -> dict:
    r = _valid()
    r["seats"][0].update(changes)
    return r


@pytest.mark.parametrize(
    "changes, clause",
    [
        ({"bets": [1, 2]}, "RET ch.11 §F"),  # no Center wager and no fold
        ({"bets": [1]}, "RET ch.11 §D"),
        ({"bets": []}, "RET ch.11 §B"),
        ({"bets": [1, 2, 3], "fold": True}, "RET ch.11 §F"),  # nothing left to fold at
        ({"bets": [1, 2, 3, 1]}, "RET ch.7 §E(1)"),
        ({"bets": [0, 1, 1]}, "RULINGS R26"),
        ({"bets": [1, 4, 1]}, "RULINGS R26"),
        ({"bets": [1, 1, -1]}, "RULINGS R26"),
        ({"bets": [True, 1, 1]}, "RULINGS R26"),
        ({"bets": [1, "2", 1]}, "RULINGS R26"),
        ({"bets": [1, 1, D("1.5")]}, "RULINGS R26"),
        ({"bets": [None], "fold": True}, "RULINGS R26"),
        ({"bets": 3}, "RULINGS R26"),
        ({"bets": {"first_run": 1}}, "RULINGS R26"),
    ],
)
def test_illegal_bets_are_refused_naming_the_field_and_clause(changes, clause):
    e = _refused(_with_seat(**changes))
    assert e.field == "seats[0].bets"
    assert clause in e.message


def test_missing_bets_refused_even_with_fold():
    r = _valid()
    del r["seats"][0]["bets"]
    r["seats"][0]["fold"] = True
    assert _refused(r).field == "seats[0].bets"


def test_fold_must_be_a_boolean():
    assert _refused(_with_seat(bets=[], fold="yes")).field == "seats[0].fold"


@pytest.mark.parametrize(
    "bets, fold", [([1, 2, 3], False), ([3, 3, 3], False), ([], True), ([1], True), ([3, 2], True)]
)
def test_legal_decisions_are_accepted(bets, fold):
    r = _with_seat(bets=bets)
    if fold:
        r["seats"][0]["fold"] = True
    seat_ = parse_round(r).seats[0]
    assert seat_.decision.multiples == tuple(bets) and seat_.decision.fold is fold


def test_second_ante_required():
    """RET ch.7 §E(1), R26: two Antes."""
    r = _valid()
    del r["seats"][0]["wagers"]["ante_2"]
    e = _refused(r)
    assert e.field == "seats[0].wagers.ante_2" and "RET ch.7 §E(1)" in e.message


def test_antes_must_be_equal():
    r = _valid()
    r["seats"][0]["wagers"]["ante_2"] = 15
    e = _refused(r)
    assert e.field == "seats[0].wagers.ante_2" and "R26" in e.message


def test_first_ante_required():
    r = _valid()
    del r["seats"][0]["wagers"]["ante_1"]
    assert _refused(r).field == "seats[0].wagers.ante_1"


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda r: r.update(dealer=["2h", "3h"]), "dealer"),  # no dealer hand in RET
        (lambda r: r.update(community=["Qs", "Js", "Ts", "2c", "3d"]), "community"),  # the cross is by place (R25)
        (lambda r: r["community"].pop("bottom"), "community.bottom"),
        (lambda r: r["community"].update(middle="4h"), "community.middle"),
        (lambda r: r["community"].update(top="As"), "seats[0].cards"),  # a card twice
        (lambda r: r["seats"][0]["wagers"].update(trips=5), "seats[0].wagers.trips"),
        (lambda r: r["seats"][0]["wagers"].update(first_run=5), "seats[0].wagers.first_run"),  # follows from bets
        (lambda r: r["seats"][0].update(play=1), "seats[0].play"),
        (lambda r: r["seats"][0]["wagers"].update(ultimate_pairs=5), "paytables.ultimate_pairs"),
        (lambda r: r["paytables"].update(run="B"), "paytables.run"),
        (lambda r: r["paytables"].update(blind="A"), "paytables.blind"),
    ],
)
def test_refusals_specific_to_run_em_twice(mutate, field):
    r = _valid()
    mutate(r)
    assert _refused(r).field == field


def test_progressive_refusals():
    def base():
        r = _valid(paytables={"progressive": "C"},
                   progressive={"unit": 1, "meters": {"major": 10000, "minor": 1000},
                                "reset": {"major": 10000, "minor": 1000}, "envy": "C"})
        r["seats"][0]["wagers"]["progressive"] = 1
        return r

    parse_round(base())  # the base round is legal
    r = base()
    r["progressive"]["envy"] = "E"  # RET has Envy tables A-D only (RET ch.12 §H)
    assert _refused(r).field == "progressive.envy"
    r = base()
    del r["progressive"]["meters"]["minor"]  # table C pays from the minor meter (§F(3)(b))
    assert _refused(r).field == "progressive.meters.minor"
    r = base()
    r["progressive"]["meters"]["star"] = 5
    assert _refused(r).field == "progressive.meters.star"
    r = base()
    r["seats"][0]["wagers"]["progressive"] = 2  # R3: exactly one unit
    assert _refused(r).field == "seats[0].wagers.progressive"
    r = base()
    del r["paytables"]["progressive"]
    assert _refused(r).field == "paytables.progressive"


@pytest.mark.parametrize(
    "changes, field",
    [({"bets": [1, 2]}, "seats[0].bets"), ({"bets": [1, 1, 1], "fold": True}, "seats[0].bets")],
)
def test_cli_refuses_illegal_decision_with_exit_2(changes, field):
    r = _with_seat(**changes)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert tablectl(["settle"], stdin=io.StringIO(json.dumps(r)), stdout=stdout, stderr=stderr) == 2
    assert field in stderr.getvalue() and "RULINGS R26" in stderr.getvalue()
    assert stdout.getvalue() == ""


def test_cli_refuses_unequal_antes_with_exit_2():
    r = _valid()
    r["seats"][0]["wagers"]["ante_2"] = 20
    stdout, stderr = io.StringIO(), io.StringIO()
    assert tablectl(["settle"], stdin=io.StringIO(json.dumps(r)), stdout=stdout, stderr=stderr) == 2
    assert "seats[0].wagers.ante_2" in stderr.getvalue() and "RET ch.7 §E(1)" in stderr.getvalue()

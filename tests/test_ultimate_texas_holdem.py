"""Ultimate Texas Hold 'Em Poker (UTH, MLGCA v1.5) settled through the `tablectl settle` contract.

Every expected amount below is computed here from the odds as the rules print
them (UTH ch.12) and the project's RULINGS (R1-R8, R20-R24c): "X to 1" nets
X times the wager, "X for 1" nets X-1 times it (R2); fixed dollar progressive
and Envy amounts scale with the unit (R3); percent-of-meter lines pay p x meter
rounded half up to the cent, and the meter drops to max(reset, meter - paid) (R4).

Each round is built in contract form (shared/contracts/settle.md) and settled
through ``games.contract.settle`` / ``settlement_json``, or through the
command line ``controller.cli.main.main``.
"""

from __future__ import annotations

import io
import itertools
import json
from decimal import ROUND_HALF_UP
from decimal import Decimal as D
from pathlib import Path

import pytest

from controller.cli.main import main
from games.contract import parse_round, settle, settlement_json
from games.round import RoundError

ROOT = Path(__file__).resolve().parent.parent
GAME = "ultimate_texas_holdem"
CENT = D("0.01")


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def seat(n, cards, *, play=4, fold=False, ante=10, **side):
    """One seat in contract form: Ante and an equal Blind (UTH ch.7 §F(1)) plus ``side`` wagers."""
    s = {"seat": n, "cards": list(cards), "wagers": {"ante": ante, "blind": ante, **side}}
    if fold:
        s["fold"] = True
    else:
        s["play"] = play
    return s


def table(seats, community, dealer, *, paytables=None, bonus=None, progressive=None, payout_limit=None):
    r = {
        "game": GAME,
        # the Blind is on every seat and has two paytables, so its letter is always needed (contract)
        "paytables": {"blind": "A", **(paytables or {})},
        "dealer": list(dealer),
        "community": list(community),
        "seats": list(seats),
    }
    if bonus is not None:
        r["bonus_cards"] = list(bonus)
    if progressive is not None:
        r["progressive"] = progressive
    if payout_limit is not None:
        r["payout_limit"] = payout_limit
    return r


def settled(r):
    return settlement_json(settle(r))


def seat_out(out, n):
    return next(s for s in out["seats"] if s["seat"] == n)


# Cards handed out for places a case does not care about (no aces, so that no filler
# dealer hand ever holds the two aces of Ultimate Pairs paytable B line (a)).
FILLER = "2c 3d 4h 6s 7c 8d Js Qc 5h 9s Td Kc 3s 4c 6d 7h 2d 5c 8s 9c Th Qd Ks Jd 3h 4s 6c 7d".split()


def filler(used, n):
    used = set(used)
    out = [c for c in FILLER if c not in used][:n]
    assert len(out) == n
    return out


def refused(r):
    with pytest.raises(RoundError) as e:
        parse_round(r)
    return e.value


def cli(round_obj):
    out, err = io.StringIO(), io.StringIO()
    text = round_obj if isinstance(round_obj, str) else json.dumps(round_obj)
    code = main(["settle"], stdin=io.StringIO(text), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def half_up(x):
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


# Player cards, community and dealer cards where the player's final five-card hand is
# exactly the named category and beats the dealer, whose hand is a pair or better
# (so the dealer qualifies, UTH ch.11 §H(2)).
WINS = {
    "royal_flush": (["Ah", "Kh"], ["Qh", "Jh", "Th", "2c", "3d"], ["2s", "7c"]),
    "straight_flush": (["9h", "8h"], ["7h", "6h", "5h", "2c", "Kd"], ["2s", "3s"]),
    "four_of_a_kind": (["9c", "9d"], ["9h", "9s", "2c", "5d", "Kh"], ["2s", "7c"]),
    "full_house": (["Kc", "Kd"], ["Ks", "5h", "5c", "2d", "8s"], ["2s", "7c"]),
    "flush": (["Ah", "4h"], ["Kh", "9h", "2h", "6c", "7d"], ["2s", "7c"]),
    "straight": (["8c", "9d"], ["Th", "Js", "7c", "2d", "5h"], ["2s", "4c"]),
    "three_of_a_kind": (["8c", "8d"], ["8h", "Ks", "2c", "5d", "Jh"], ["2s", "4c"]),
    "two_pair": (["Kc", "5d"], ["Kh", "5s", "2c", "9d", "Jh"], ["2s", "4c"]),
    "pair": (["Kc", "7d"], ["Kh", "5s", "2c", "9d", "Jh"], ["2s", "4c"]),
}


def test_scenario_hands_are_what_they_claim():
    """Guard for the tables below: each WINS scenario makes its category and beats a qualifying dealer."""
    for category, (cards, community, dealer) in WINS.items():
        out = settled(table([seat(1, cards)], community, dealer))
        s = seat_out(out, 1)
        assert s["hand"] == category
        assert out["dealer"]["qualifies"] is True
        assert s["wagers"]["ante"]["result"] == "win"


# --------------------------------------------------------------------------------------
# Blind, UTH ch.12 §B; UTH ch.11 §H(3)(b)-(c); RULINGS R20
# --------------------------------------------------------------------------------------

# (letter, hand, odds as printed or None for "push")
BLIND_CASES = [
    ("A", "royal_flush", (500, 1), "UTH ch.12 §B(1)(a)"),
    ("A", "straight_flush", (50, 1), "UTH ch.12 §B(1)(b)"),
    ("A", "four_of_a_kind", (10, 1), "UTH ch.12 §B(1)(c)"),
    ("A", "full_house", (3, 1), "UTH ch.12 §B(1)(d)"),
    ("A", "flush", (3, 2), "UTH ch.12 §B(1)(e)"),
    ("A", "straight", (1, 1), "UTH ch.12 §B(1)(f)"),
    ("A", "three_of_a_kind", None, "UTH ch.12 §B(1)(g) less than a straight pushes"),
    ("A", "two_pair", None, "UTH ch.12 §B(1)(g) less than a straight pushes"),
    ("A", "pair", None, "UTH ch.12 §B(1)(g) less than a straight pushes"),
    ("B", "royal_flush", (500, 1), "UTH ch.12 §B(2)(a)"),
    ("B", "straight_flush", (50, 1), "UTH ch.12 §B(2)(b)"),
    ("B", "four_of_a_kind", (10, 1), "UTH ch.12 §B(2)(c)"),
    ("B", "full_house", (3, 1), "UTH ch.12 §B(2)(d)"),
    ("B", "flush", (3, 2), "UTH ch.12 §B(2)(e)"),
    ("B", "straight", None, "UTH ch.12 §B(2) R20 winning straight pushes"),
    ("B", "three_of_a_kind", None, "UTH ch.12 §B(2)(f) less than a straight pushes"),
    ("B", "pair", None, "UTH ch.12 §B(2)(f) R20 below a straight pushes"),
]


@pytest.mark.parametrize("letter, hand, odds, clause", BLIND_CASES, ids=[f"{c[3]} {c[1]}" for c in BLIND_CASES])
def test_blind_every_line(letter, hand, odds, clause):
    cards, community, dealer = WINS[hand]
    out = settled(table([seat(3, cards, ante=10)], community, dealer, paytables={"blind": letter}))
    s = seat_out(out, 3)
    assert s["hand"] == hand
    blind = s["wagers"]["blind"]
    assert blind["amount"] == 10
    if odds is None:
        assert blind["result"] == "push" and blind["net"] == 0
    else:
        assert blind == {"amount": 10, "result": "win", "net": D(10) * odds[0] / odds[1], "line": hand}
    # UTH ch.12 §A: Ante and Play win 1 to 1 against a qualifying dealer
    assert s["wagers"]["ante"]["net"] == 10
    assert s["wagers"]["play"] == {"amount": 40, "result": "win", "net": 40}


@pytest.mark.parametrize("letter", ["A", "B"])
def test_blind_loses_when_the_player_loses(letter):
    """UTH ch.11 §H(3)(a), R20: a losing hand loses the Blind, whatever it is (here a flush under a full house)."""
    community = ["Kh", "9h", "2h", "Ks", "7d"]
    out = settled(table([seat(1, ["Ah", "4h"])], community, ["Kc", "7c"], paytables={"blind": letter}))
    s = seat_out(out, 1)
    assert s["hand"] == "flush" and out["dealer"]["hand"] == "full_house"
    assert s["wagers"]["blind"] == {"amount": 10, "result": "lose", "net": -10}
    assert s["wagers"]["ante"]["net"] == -10 and s["wagers"]["play"]["net"] == -40


def test_blind_three_to_two_rounds_half_up_to_the_cent():
    """UTH ch.12 §B(1)(e) flush 3 to 2 on $5.05 = 7.575 -> 7.58 (settle contract: half up)."""
    cards, community, dealer = WINS["flush"]
    out = settled(table([seat(1, cards, ante=D("5.05"), play=2)], community, dealer, paytables={"blind": "A"}))
    s = seat_out(out, 1)
    assert s["wagers"]["blind"]["net"] == D("7.58")
    assert s["wagers"]["play"] == {"amount": D("10.10"), "result": "win", "net": D("10.10")}
    assert s["net"] == D("5.05") + D("7.58") + D("10.10")


# --------------------------------------------------------------------------------------
# Trips, UTH ch.12 §C (paid whatever the outcome against the dealer, UTH ch.11 §I(2))
# --------------------------------------------------------------------------------------

TRIPS_ODDS = {
    # royal, straight flush, four, full house, flush, straight, three of a kind ("X to 1")
    "A": (50, 40, 30, 9, 7, 4, 3),
    "B": (50, 40, 30, 8, 6, 5, 3),
    "C": (50, 40, 30, 8, 7, 4, 3),
    "D": (50, 40, 20, 7, 6, 5, 3),
    "E": (50, 40, 30, 7, 6, 5, 3),
}
POKER_LINES = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind")
TRIPS_CASES = [
    (letter, line, odds[i], f"UTH ch.12 §C({n})({'abcdefg'[i]})")
    for n, (letter, odds) in enumerate(TRIPS_ODDS.items(), start=1)
    for i, line in enumerate(POKER_LINES)
]


@pytest.mark.parametrize("letter, line, x, clause", TRIPS_CASES, ids=[f"{c[3]} {c[1]}" for c in TRIPS_CASES])
def test_trips_every_line(letter, line, x, clause):
    cards, community, dealer = WINS[line]
    out = settled(table([seat(2, cards, trips=5)], community, dealer, paytables={"trips": letter}))
    assert seat_out(out, 2)["wagers"]["trips"] == {"amount": 5, "result": "win", "net": 5 * x, "line": line}


@pytest.mark.parametrize("letter", list(TRIPS_ODDS))
def test_trips_loses_below_three_of_a_kind(letter):
    cards, community, dealer = WINS["two_pair"]
    out = settled(table([seat(2, cards, trips=5)], community, dealer, paytables={"trips": letter}))
    assert seat_out(out, 2)["wagers"]["trips"] == {"amount": 5, "result": "lose", "net": -5}


def test_trips_paid_when_the_player_loses_to_the_dealer():
    """UTH ch.11 §I(2): a winning Trips wager is paid regardless of the hand against the dealer."""
    community = ["Kh", "9h", "2h", "Ks", "7d"]
    out = settled(table([seat(1, ["Ah", "4h"], trips=5)], community, ["Kc", "7c"], paytables={"trips": "A"}))
    w = seat_out(out, 1)["wagers"]
    assert w["play"]["result"] == "lose"
    assert w["trips"] == {"amount": 5, "result": "win", "net": 5 * 7, "line": "flush"}  # §C(1)(e) 7 to 1


# --------------------------------------------------------------------------------------
# Progressive, UTH ch.12 §D(1); RULINGS R2, R3, R4, R5, R24a
# --------------------------------------------------------------------------------------

PROG_PAYS = {
    # UTH ch.12 §D(1)(a): "X to 1"; (b)-(d): "X for 1"; percentages of the named meter
    "A": [("pct", "meter", 100), ("pct", "meter", 10), ("to", 300), ("to", 50), ("to", 40), ("to", 30), ("to", 9)],
    "B": [("pct", "major", 100), ("pct", "minor", 100),
          ("for", 300), ("for", 50), ("for", 40), ("for", 30), ("for", 9)],
    "C": [("pct", "mega", 100), ("pct", "major", 100), ("pct", "minor", 100),
          ("for", 50), ("for", 40), ("for", 30), ("for", 10)],
    "D": [("pct", "mega", 100), ("pct", "major", 100), ("pct", "minor", 100),
          ("for", 50), ("for", 40), ("for", 30), ("for", 9)],
}
PROG_METERS = {
    "A": {"meter": D("12345.65")},
    "B": {"major": D("12000.00"), "minor": D("1400.35")},
    "C": {"mega": D("25000.50"), "major": D("3000.00"), "minor": D("600.25")},
    "D": {"mega": D("25000.50"), "major": D("3000.00"), "minor": D("600.25")},
}
PROG_RESET = {  # the minimum initial/reset amounts of UTH ch.12 §D(3)(b)
    "A": {"meter": D(10000)},
    "B": {"major": D(1000), "minor": D(250)},
    "C": {"mega": D(10000), "major": D(1000), "minor": D(250)},
    "D": {"mega": D(10000), "major": D(1000), "minor": D(250)},
}
PROG_CASES = [
    (letter, line, pays, unit, f"UTH ch.12 §D(1)({letter.lower()})({['i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii'][i]})")
    for letter, lines in PROG_PAYS.items()
    for i, (line, pays) in enumerate(zip(POKER_LINES, lines, strict=True))
    for unit in (1, 5)
]


def progressive_block(letter, unit=1, meters=None, reset=None, **extra):
    return {
        "unit": unit,
        "meters": dict(meters if meters is not None else PROG_METERS[letter]),
        "reset": dict(reset if reset is not None else PROG_RESET[letter]),
        **extra,
    }


def expected_progressive(pays, unit, meters, reset):
    """R2/R3/R4 from their words: the net of the Progressive wager and the meters after."""
    unit = D(unit)
    after = dict(meters)
    if pays[0] == "to":
        return pays[1] * unit, after
    if pays[0] == "for":
        return (pays[1] - 1) * unit, after
    _, meter, percent = pays
    paid = half_up(meters[meter] * percent / 100)
    after[meter] = max(reset[meter], meters[meter] - paid)
    return paid - unit, after


@pytest.mark.parametrize(
    "letter, line, pays, unit, clause", PROG_CASES, ids=[f"{c[4]} {c[1]} unit {c[3]}" for c in PROG_CASES]
)
def test_progressive_every_line(letter, line, pays, unit, clause):
    cards, community, dealer = WINS[line]
    r = table(
        [seat(4, cards, progressive=unit)],
        community,
        dealer,
        paytables={"progressive": letter},
        progressive=progressive_block(letter, unit),
    )
    out = settled(r)
    net, meters_after = expected_progressive(pays, unit, PROG_METERS[letter], PROG_RESET[letter])
    assert seat_out(out, 4)["wagers"]["progressive"] == {"amount": unit, "result": "win", "net": net, "line": line}
    assert out["meters"] == meters_after


@pytest.mark.parametrize("letter", list(PROG_PAYS))
def test_progressive_loses_below_three_of_a_kind(letter):
    """UTH ch.1 §B(6): a Progressive Payout Hand is three of a kind or better."""
    cards, community, dealer = WINS["two_pair"]
    r = table([seat(4, cards, progressive=1)], community, dealer, paytables={"progressive": letter},
              progressive=progressive_block(letter))
    out = settled(r)
    assert seat_out(out, 4)["wagers"]["progressive"] == {"amount": 1, "result": "lose", "net": -1}
    assert out["meters"] == PROG_METERS[letter]


def test_progressive_ten_percent_of_a_meter_with_odd_cents_rounds_half_up():
    """UTH ch.12 §D(1)(a)(ii), R4: 10% of 12,345.65 = 1,234.565 -> 1,234.57 (half up, not half even)."""
    cards, community, dealer = WINS["straight_flush"]
    r = table([seat(1, cards, progressive=1)], community, dealer, paytables={"progressive": "A"},
              progressive=progressive_block("A", meters={"meter": D("12345.65")}))
    out = settled(r)
    assert seat_out(out, 1)["wagers"]["progressive"]["net"] == D("1234.57") - 1
    assert out["meters"] == {"meter": D("12345.65") - D("1234.57")}  # 11,111.08, above the reset


def test_progressive_meter_never_drops_below_reset():
    """R4: meter after = max(reset, meter - paid): 10,500 - 1,050 = 9,450 < 10,000 -> 10,000."""
    cards, community, dealer = WINS["straight_flush"]
    r = table([seat(1, cards, progressive=1)], community, dealer, paytables={"progressive": "A"},
              progressive=progressive_block("A", meters={"meter": D(10500)}, reset={"meter": D(10000)}))
    out = settled(r)
    assert seat_out(out, 1)["wagers"]["progressive"]["net"] == 1050 - 1
    assert out["meters"] == {"meter": D(10000)}


def test_progressive_other_meters_of_the_game_are_echoed_unchanged():
    """settle contract: a meter of the game the paytable does not pay from is echoed unchanged."""
    cards, community, dealer = WINS["straight_flush"]
    meters = {"major": D(12000), "minor": D(1400), "mega": D("33333.33")}
    reset = {"major": D(1000), "minor": D(250)}
    r = table([seat(1, cards, progressive=1)], community, dealer, paytables={"progressive": "B"},
              progressive=progressive_block("B", meters=meters, reset=reset))
    out = settled(r)
    assert out["meters"] == {"major": D(12000), "minor": D(250), "mega": D("33333.33")}


# Two straight flushes in hearts from one board: seat 5 J-high, seat 2 9-high.
TWO_SF_COMMUNITY = ["7h", "8h", "9h", "2c", "Kd"]
TWO_SF_DEALER = ["2s", "3s"]


def test_two_winners_of_one_meter_paid_in_settlement_order_ten_percent():
    """R4, UTH ch.12 §D(4), UTH ch.11 §H(2): seat 5 (settled first, R1) is paid 10% of 20,000.05 = 2,000.005
    -> 2,000.01; seat 2 is paid 10% of the meter as seat 5 left it, 18,000.04 -> 1,800.004 -> 1,800.00."""
    seats = [seat(2, ["5h", "6h"], progressive=1), seat(5, ["Th", "Jh"], progressive=1)]
    r = table(seats, TWO_SF_COMMUNITY, TWO_SF_DEALER, paytables={"progressive": "A"},
              progressive=progressive_block("A", meters={"meter": D("20000.05")}))
    out = settled(r)
    assert [s["seat"] for s in out["seats"]] == [5, 2]
    assert seat_out(out, 5)["wagers"]["progressive"]["net"] == D("2000.01") - 1
    assert seat_out(out, 2)["wagers"]["progressive"]["net"] == D("1800.00") - 1
    assert out["meters"] == {"meter": D("20000.05") - D("2000.01") - D("1800.00")}


def test_two_winners_of_one_meter_hundred_percent_second_gets_the_reset():
    """R4, UTH ch.12 §D(1)(b)(ii): the first straight flush takes the whole Minor meter (1,400), which resets to
    250; the second winner is paid from the meter as the first left it (250)."""
    seats = [seat(2, ["5h", "6h"], progressive=1), seat(5, ["Th", "Jh"], progressive=1)]
    r = table(seats, TWO_SF_COMMUNITY, TWO_SF_DEALER, paytables={"progressive": "B"},
              progressive=progressive_block("B", meters={"major": D(12000), "minor": D(1400)}))
    out = settled(r)
    assert seat_out(out, 5)["wagers"]["progressive"] == {
        "amount": 1, "result": "win", "net": 1399, "line": "straight_flush"
    }
    assert seat_out(out, 2)["wagers"]["progressive"] == {
        "amount": 1, "result": "win", "net": 249, "line": "straight_flush"
    }
    assert out["meters"] == {"major": D(12000), "minor": D(250)}


def test_progressive_settled_for_a_folded_player():
    """R7: the Progressive wager of a folded player is still settled on the final cards (R24a)."""
    cards, community, dealer = WINS["full_house"]
    r = table([seat(1, cards, fold=True, progressive=1)], community, dealer, paytables={"progressive": "B"},
              progressive=progressive_block("B"))
    w = seat_out(settled(r), 1)["wagers"]
    assert w["progressive"] == {"amount": 1, "result": "win", "net": 50 - 1, "line": "full_house"}  # §D(1)(b)(iv)


def test_progressive_pays_only_the_highest_line():
    """R5, UTH ch.12 §D(2): a royal flush is also a flush and a straight, but only the royal line pays."""
    cards, community, dealer = WINS["royal_flush"]
    r = table([seat(1, cards, progressive=1)], community, dealer, paytables={"progressive": "B"},
              progressive=progressive_block("B", meters={"major": D(12000), "minor": D(1400)}))
    out = settled(r)
    assert seat_out(out, 1)["wagers"]["progressive"] == {
        "amount": 1, "result": "win", "net": 11999, "line": "royal_flush"
    }
    assert out["meters"] == {"major": D(1000), "minor": D(1400)}


# --------------------------------------------------------------------------------------
# Envy Bonus, UTH ch.11 §J(2)(e), UTH ch.12 §D(5)-(7); RULINGS R3, R24, R24a, R24c
# --------------------------------------------------------------------------------------

ENVY_PER_1 = {"royal_flush": 1000, "straight_flush": 300}  # UTH ch.12 §D(6)(a)-(d), identical in A-D
ENVY_PER_5 = {"royal_flush": 5000, "straight_flush": 1500}  # UTH ch.12 §D(7)(a)-(d), the $5 tables
ENVY_CASES = [
    (letter, line, unit,
     f"UTH ch.12 §D({6 if unit == 1 else 7})({letter.lower()})({'i' if line == 'royal_flush' else 'ii'})")
    for letter in "ABCD"
    for line in ENVY_PER_1
    for unit in (1, 5)
]


@pytest.mark.parametrize("letter, line, unit, clause", ENVY_CASES, ids=[f"{c[3]} {c[1]} ${c[2]}" for c in ENVY_CASES])
def test_envy_every_line(letter, line, unit, clause):
    """Seat 5 holds the qualifying hand; seat 2 (Progressive wager, nothing of its own) receives the Envy Bonus."""
    cards, community, dealer = WINS[line]
    other = filler(cards + community + dealer, 2)
    r = table(
        [seat(2, other, progressive=unit), seat(5, cards, progressive=unit)],
        community,
        dealer,
        paytables={"progressive": "B"},
        progressive=progressive_block("B", unit, envy=letter),
    )
    out = settled(r)
    assert seat_out(out, 5)["hand"] == line
    expected = (ENVY_PER_1 if unit == 1 else ENVY_PER_5)[line]
    assert expected == ENVY_PER_1[line] * unit  # R3: the $5 tables are 5x the $1 tables
    assert seat_out(out, 2)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": expected, "from_seats": [5]}
    # UTH ch.11 §J(2)(e)(iv): never for one's own hand
    assert "envy" not in seat_out(out, 5)["wagers"]


def test_envy_not_for_own_hand_nor_for_the_dealer():
    """UTH ch.11 §J(2)(e)(iv), R24: the dealer's straight flush earns nobody an Envy Bonus; nor does one's own royal."""
    community = ["Qh", "Jh", "Th", "2c", "3d"]
    seats = [seat(1, ["Ah", "Kh"], progressive=1), seat(2, ["4s", "6d"], progressive=1)]
    r = table(seats, community, ["9h", "8h"], paytables={"progressive": "B"},
              progressive=progressive_block("B", envy="A"))
    out = settled(r)
    assert out["dealer"]["hand"] == "straight_flush"
    assert "envy" not in seat_out(out, 1)["wagers"]  # own royal only
    assert seat_out(out, 2)["wagers"]["envy"]["from_seats"] == [1]  # seat 1's royal, not the dealer's hand
    assert seat_out(out, 2)["wagers"]["envy"]["net"] == 1000


# A board straight flush: every hand left in play is a straight flush (R24a).
# R24a: the Envy Bonus Qualifying Hand is the two cards and the flop.  The flop 9h Th Jh
# leaves room for exactly two such straight flushes (7h 8h and Qh Kh; a flop gives at most
# three cards of a suit, so at most two seats can qualify in one round).
ENVY_BOARD = ["9h", "Th", "Jh", "2c", "4s"]
ENVY_DEALER = ["3c", "3d"]


def test_envy_one_amount_per_other_qualifying_seat():
    """UTH ch.11 §J(2)(e)(i)-(iv), R24, R24a, R24c: each seat with a Progressive wager gets $300 (SF, §D(6)(a)(ii))
    per OTHER seat whose two cards and flop make a straight flush, from_seats ascending; a folded hand kept on
    the layout for its Progressive wager qualifies."""
    seats = [
        seat(1, ["7h", "8h"], play=1, progressive=1),  # J-high straight flush on the flop
        seat(2, ["Qh", "Kh"], fold=True, progressive=1),  # K-high, folded, kept for its Progressive (R24c)
        seat(3, ["5d", "5s"], play=1),  # no Progressive wager: receives nothing (UTH ch.1 §B(2))
        seat(6, ["Ac", "Ad"], play=1, progressive=1),  # no straight flush: receives from both
    ]
    r = table(seats, ENVY_BOARD, ENVY_DEALER, paytables={"progressive": "B"},
              progressive=progressive_block("B", envy="A"))
    out = settled(r)
    for n, others in {1: [2], 2: [1], 6: [1, 2]}.items():
        assert seat_out(out, n)["wagers"]["envy"] == {
            "amount": 0, "result": "win", "net": 300 * len(others), "from_seats": others,
        }
    assert "envy" not in seat_out(out, 3)["wagers"]


def option_seats(collected: bool):
    """Two straight-flush holders without a Progressive wager; seat 2 folded, its cards kept under its Trips
    wager or (``collected``) taken in with nothing pending (UTH ch.11 §F(3), R24c)."""
    return [
        seat(1, ["7h", "8h"], play=1),
        seat(2, ["Qh", "Kh"], fold=True, **({} if collected else {"trips": 5})),
        seat(5, ["Ac", "Ad"], play=1, progressive=1),
        seat(6, ["5d", "5s"], play=1, progressive=1),
    ]


@pytest.mark.parametrize(
    "requires, collected, from_seats",
    [(True, False, None), (False, False, [1, 2]), (False, True, [1])],
    ids=["R24 default: holders need a Progressive wager", "option off: any hand on the layout",
         "option off: a collected folded hand never qualifies (R24c)"],
)
def test_envy_option_and_collected_hands(requires, collected, from_seats):
    r = table(option_seats(collected), ENVY_BOARD, ENVY_DEALER, paytables={"progressive": "B", "trips": "A"},
              progressive=progressive_block("B", envy="A", envy_requires_progressive_wager=requires))
    out = settled(r)
    for n in (5, 6):
        envy = seat_out(out, n)["wagers"].get("envy")
        if from_seats is None:
            assert envy is None
        else:
            assert envy == {"amount": 0, "result": "win", "net": 300 * len(from_seats), "from_seats": from_seats}


def test_envy_default_requires_progressive_wager():
    """R24 default (option not given): the holder of the qualifying hand must have a Progressive wager."""
    block = progressive_block("B", envy="A")
    assert "envy_requires_progressive_wager" not in block
    r = table(option_seats(False), ENVY_BOARD, ENVY_DEALER, paytables={"progressive": "B", "trips": "A"},
              progressive=block)
    assert all("envy" not in s["wagers"] for s in settled(r)["seats"])


def test_no_envy_without_an_envy_table():
    """settle contract: without `envy` no Envy Bonus is paid."""
    seats = [seat(1, ["7h", "8h"], play=1, progressive=1), seat(6, ["Ac", "Ad"], play=1, progressive=1)]
    r = table(seats, ENVY_BOARD, ENVY_DEALER, paytables={"progressive": "B"}, progressive=progressive_block("B"))
    out = settled(r)
    assert all("envy" not in s["wagers"] for s in out["seats"])


def test_envy_scales_with_a_five_dollar_unit_for_several_hands():
    """R3 + UTH ch.12 §D(7)(a)(ii): $1,500 per other straight flush on a $5 Progressive wager."""
    seats = [seat(1, ["7h", "8h"], play=1, progressive=5), seat(6, ["Qh", "Kh"], play=1, progressive=5)]
    r = table(seats, ENVY_BOARD, ENVY_DEALER, paytables={"progressive": "B"},
              progressive=progressive_block("B", 5, envy="D"))
    out = settled(r)
    assert seat_out(out, 1)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": 1500, "from_seats": [6]}
    assert seat_out(out, 6)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": 1500, "from_seats": [1]}


def test_envy_not_for_a_straight_flush_the_turn_and_river_complete():
    """R24a: a seven-card straight flush whose two cards and flop do not make one qualifies no one."""
    board = ["9h", "Th", "2c", "Jh", "Qh"]  # the turn and river bring the J and Q of hearts
    seats = [seat(1, ["7h", "8h"], play=1, progressive=1), seat(6, ["Ac", "Ad"], play=1, progressive=1)]
    r = table(seats, board, ENVY_DEALER, paytables={"progressive": "B"},
              progressive=progressive_block("B", envy="A"))
    out = settled(r)
    assert seat_out(out, 1)["hand"] == "straight_flush"  # the main game still reads all seven (UTH ch.11 §H)
    assert seat_out(out, 1)["wagers"]["progressive"]["result"] == "lose"  # two cards and flop: 7h 8h 9h Th 2c
    assert all("envy" not in s["wagers"] for s in out["seats"])


# --------------------------------------------------------------------------------------
# Six Card Bonus, UTH ch.6 §F, UTH ch.7 §F(4), UTH ch.12 §E (first §E); RULINGS R21, R21a, R21b
# --------------------------------------------------------------------------------------

SIX = {  # (player's two cards, the four of the Six Card Bonus box)
    "super_royal_d": (["Ad", "Kd"], ["Qd", "Jd", "Td", "9d"]),
    "super_royal_h": (["Ah", "Kh"], ["Qh", "Jh", "Th", "9h"]),
    "super_royal_s": (["9s", "Ks"], ["Qs", "Js", "Ts", "As"]),
    "super_royal_c": (["Ac", "Kc"], ["Qc", "Jc", "Tc", "9c"]),
    "royal_flush": (["Ah", "Kh"], ["Qh", "Jh", "Th", "9s"]),  # the 9 of another suit: a royal, not a super royal
    "straight_flush": (["9h", "8h"], ["7h", "6h", "5h", "2d"]),
    "four_of_a_kind": (["9c", "9d"], ["9h", "9s", "2c", "5d"]),
    "full_house": (["Kc", "Kd"], ["Ks", "5h", "5c", "2d"]),
    "flush": (["Ah", "4h"], ["Kh", "9h", "2h", "6c"]),
    "straight": (["8c", "9d"], ["Th", "Js", "7c", "2d"]),
    "three_of_a_kind": (["8c", "8d"], ["8h", "Ks", "2c", "5d"]),
    "box_three_of_a_kind": (["2c", "7d"], ["Ks", "Kh", "Kd", "9s"]),  # all three kings in the box (R21)
    "two_pair": (["Kc", "5d"], ["Kh", "5s", "2c", "9d"]),
}
# (letter, six-card hand, line, payout: ("fixed", dollars) or ("to", X), clause)
SCB_CASES = [
    ("A", "super_royal_d", "super_royal_diamonds", ("fixed", 1_000_000), "UTH ch.12 §E(1)(a)"),
    ("A", "super_royal_h", "super_royal_hearts_spades_or_clubs", ("fixed", 100_000), "UTH ch.12 §E(1)(b) hearts"),
    ("A", "super_royal_s", "super_royal_hearts_spades_or_clubs", ("fixed", 100_000), "UTH ch.12 §E(1)(b) spades"),
    ("A", "super_royal_c", "super_royal_hearts_spades_or_clubs", ("fixed", 100_000), "UTH ch.12 §E(1)(b) clubs"),
    ("A", "royal_flush", "royal_flush", ("to", 1000), "UTH ch.12 §E(1)(c)"),
    ("A", "straight_flush", "straight_flush", ("to", 200), "UTH ch.12 §E(1)(d)"),
    ("A", "four_of_a_kind", "four_of_a_kind", ("to", 50), "UTH ch.12 §E(1)(e)"),
    ("A", "full_house", "full_house", ("to", 20), "UTH ch.12 §E(1)(f)"),
    ("A", "flush", "flush", ("to", 15), "UTH ch.12 §E(1)(g)"),
    ("A", "straight", "straight", ("to", 10), "UTH ch.12 §E(1)(h)"),
    ("A", "three_of_a_kind", "three_of_a_kind", ("to", 5), "UTH ch.12 §E(1)(i)"),
    ("A", "box_three_of_a_kind", "three_of_a_kind", ("to", 5), "UTH ch.12 §E(1)(i) R21 box cards"),
    ("B", "super_royal_d", "super_royal", ("fixed", 100_000), "UTH ch.12 §E(2)(a) diamonds"),
    ("B", "super_royal_h", "super_royal", ("fixed", 100_000), "UTH ch.12 §E(2)(a) hearts"),
    ("B", "super_royal_s", "super_royal", ("fixed", 100_000), "UTH ch.12 §E(2)(a) spades"),
    ("B", "super_royal_c", "super_royal", ("fixed", 100_000), "UTH ch.12 §E(2)(a) clubs"),
    ("B", "royal_flush", "royal_flush", ("to", 1000), "UTH ch.12 §E(2)(b)"),
    ("B", "straight_flush", "straight_flush", ("to", 200), "UTH ch.12 §E(2)(c)"),
    ("B", "four_of_a_kind", "four_of_a_kind", ("to", 50), "UTH ch.12 §E(2)(d)"),
    ("B", "full_house", "full_house", ("to", 20), "UTH ch.12 §E(2)(e)"),
    ("B", "flush", "flush", ("to", 15), "UTH ch.12 §E(2)(f)"),
    ("B", "straight", "straight", ("to", 10), "UTH ch.12 §E(2)(g)"),
    ("B", "three_of_a_kind", "three_of_a_kind", ("to", 5), "UTH ch.12 §E(2)(h)"),
    ("B", "box_three_of_a_kind", "three_of_a_kind", ("to", 5), "UTH ch.12 §E(2)(h) R21 box cards"),
]


def six_card_round(six, letter, wager, **kw):
    cards, box = SIX[six]
    rest = filler(cards + box, 7)
    return table(
        [seat(1, cards, trips=5, six_card_bonus=wager)],
        rest[:5],
        rest[5:],
        paytables={"trips": "A", "six_card_bonus": letter},
        bonus=box,
        **kw,
    )


@pytest.mark.parametrize("letter, six, line, pays, clause", SCB_CASES, ids=[c[4] for c in SCB_CASES])
@pytest.mark.parametrize("wager", [5, 25])
def test_six_card_bonus_every_line(letter, six, line, pays, clause, wager):
    out = settled(six_card_round(six, letter, wager))
    # R21a: the super royal amounts are fixed, whatever the wager; the other lines are "X to 1"
    net = pays[1] if pays[0] == "fixed" else wager * pays[1]
    assert seat_out(out, 1)["wagers"]["six_card_bonus"] == {"amount": wager, "result": "win", "net": net, "line": line}


@pytest.mark.parametrize("letter", ["A", "B"])
def test_six_card_bonus_loses_below_three_of_a_kind(letter):
    out = settled(six_card_round("two_pair", letter, 5))
    assert seat_out(out, 1)["wagers"]["six_card_bonus"] == {"amount": 5, "result": "lose", "net": -5}


def test_six_card_bonus_ignores_the_community_cards():
    """UTH ch.7 §F(4), R21: the six cards are the player's two and the box's four; the board's quads do not count."""
    r = table(
        [seat(1, ["8c", "8d"], trips=5, six_card_bonus=5)],
        ["8h", "8s", "2c", "5d", "Jh"],
        ["2s", "4c"],
        paytables={"trips": "A", "six_card_bonus": "A"},
        bonus=["Kd", "Qs", "3h", "6c"],
    )
    w = seat_out(settled(r), 1)["wagers"]
    assert w["trips"]["line"] == "four_of_a_kind"  # the five-card hand of UTH ch.12 §C
    assert w["six_card_bonus"] == {"amount": 5, "result": "lose", "net": -5}  # only a pair among the six


def test_six_card_bonus_settled_for_a_folded_player():
    """R7, UTH ch.11 §F(3)(c): a folded player's Six Card Bonus is still settled."""
    cards, box = SIX["flush"]
    rest = filler(cards + box, 7)
    r = table([seat(1, cards, fold=True, trips=5, six_card_bonus=5)], rest[:5], rest[5:],
              paytables={"trips": "A", "six_card_bonus": "B"}, bonus=box)
    assert seat_out(settled(r), 1)["wagers"]["six_card_bonus"]["net"] == 5 * 15  # §E(2)(f)


def test_six_card_bonus_not_covered_by_the_payout_limit():
    """R6, R21a, UTH ch.12 §F(2): a $1,000,000 super royal against a $50,000 limit is paid in full."""
    out = settled(six_card_round("super_royal_d", "A", 5, payout_limit=50000))
    s = seat_out(out, 1)
    assert s["wagers"]["six_card_bonus"]["net"] == 1_000_000
    assert s["limited_by"] == 0
    assert s["net"] == sum(w["net"] for w in s["wagers"].values())


# --------------------------------------------------------------------------------------
# Ultimate Pairs, UTH ch.7 §F(5), UTH ch.12 §E (second §E); RULINGS R22
# --------------------------------------------------------------------------------------

UP_ODDS = {  # "X to 1", in each table's printed order
    "A": {"pair_of_aces": 30, "ace_and_king_of_the_same_suit": 25, "ace_and_queen_or_jack_of_the_same_suit": 20,
          "ace_and_king_of_different_suits": 15, "pair_of_jacks_queens_or_kings": 10,
          "ace_and_queen_or_jack_of_different_suits": 5, "pair_of_tens_or_less": 3},
    "B": {"pair_of_player_aces_and_dealer_aces": 1000, "pair_of_aces": 30, "ace_and_king_of_the_same_suit": 25,
          "ace_and_queen_or_jack_of_the_same_suit": 20, "ace_and_king_of_different_suits": 15,
          "pair_of_jacks_queens_or_kings": 10, "ace_and_queen_or_jack_of_different_suits": 5,
          "pair_of_tens_or_less": 3},
    "C": {"pair_of_aces": 30, "ace_and_king_of_the_same_suit": 20, "ace_and_queen_or_jack_of_the_same_suit": 20,
          "ace_and_king_of_different_suits": 10, "pair_of_jacks_queens_or_kings": 5,
          "ace_and_queen_or_jack_of_different_suits": 10, "pair_of_tens_or_less": 5},
    "D": {"pair_of_player_aces_of_hearts_and_diamonds": 100, "pair_of_aces": 30,
          "ace_and_king_of_the_same_suit": 20, "ace_and_queen_or_jack_of_the_same_suit": 20,
          "ace_and_king_of_different_suits": 10, "pair_of_jacks_queens_or_kings": 4,
          "ace_and_queen_or_jack_of_different_suits": 10, "pair_of_tens_or_less": 4},
    "E": {"pair_of_player_aces_of_hearts_and_diamonds": 50, "pair_of_aces": 25,
          "ace_and_king_of_the_same_suit": 20, "ace_and_queen_or_jack_of_the_same_suit": 20,
          "ace_and_king_of_different_suits": 10, "pair_of_jacks_queens_or_kings": 5,
          "ace_and_queen_or_jack_of_different_suits": 10, "pair_of_tens_or_less": 5},
    "F": {"pair_of_aces": 25, "ace_and_king_of_the_same_suit": 20, "ace_and_queen_or_jack_of_the_same_suit": 20,
          "ace_and_king_of_different_suits": 10, "pair_of_jacks_queens_or_kings": 5,
          "ace_and_queen_or_jack_of_different_suits": 10, "pair_of_tens_or_less": 5},
}
UP_HANDS = {  # line -> examples (player's two cards, dealer's two cards or None for filler)
    "pair_of_player_aces_and_dealer_aces": [(["As", "Ac"], ["Ah", "Ad"])],
    "pair_of_player_aces_of_hearts_and_diamonds": [(["Ah", "Ad"], None)],
    "pair_of_aces": [(["As", "Ac"], None), (["Ac", "Ad"], None)],
    "ace_and_king_of_the_same_suit": [(["As", "Ks"], None), (["Kd", "Ad"], None)],
    "ace_and_queen_or_jack_of_the_same_suit": [(["As", "Qs"], None), (["Jc", "Ac"], None)],
    "ace_and_king_of_different_suits": [(["As", "Kd"], None)],
    "pair_of_jacks_queens_or_kings": [(["Js", "Jd"], None), (["Qc", "Qh"], None), (["Kh", "Ks"], None)],
    "ace_and_queen_or_jack_of_different_suits": [(["As", "Qd"], None), (["Ah", "Jc"], None)],
    "pair_of_tens_or_less": [(["2s", "2d"], None), (["6c", "6h"], None), (["Tc", "Th"], None)],  # R22: 2s..10s
}
UP_CASES = []
for _n, (_letter, _odds) in enumerate(UP_ODDS.items(), start=1):
    for _i, (_line, _x) in enumerate(_odds.items()):
        for _cards, _dealer in UP_HANDS[_line]:
            UP_CASES.append((_letter, _line, _x, _cards, _dealer, f"UTH ch.12 §E(UP)({_n})({'abcdefgh'[_i]})"))


def ultimate_pairs_round(letter, cards, dealer=None):
    used = list(cards) + list(dealer or [])
    rest = filler(used, 7)
    return table([seat(1, cards, ultimate_pairs=5)], rest[:5], dealer or rest[5:],
                 paytables={"ultimate_pairs": letter})


@pytest.mark.parametrize(
    "letter, line, x, cards, dealer, clause", UP_CASES, ids=[f"{c[5]} {''.join(c[3])}" for c in UP_CASES]
)
def test_ultimate_pairs_every_line(letter, line, x, cards, dealer, clause):
    out = settled(ultimate_pairs_round(letter, cards, dealer))
    assert seat_out(out, 1)["wagers"]["ultimate_pairs"] == {"amount": 5, "result": "win", "net": 5 * x, "line": line}


@pytest.mark.parametrize("letter", list(UP_ODDS))
@pytest.mark.parametrize("cards", [["Ks", "Qs"], ["9s", "8d"], ["Kd", "Jd"], ["Ah", "Td"]])
def test_ultimate_pairs_loses_without_a_line(letter, cards):
    out = settled(ultimate_pairs_round(letter, cards))
    assert seat_out(out, 1)["wagers"]["ultimate_pairs"] == {"amount": 5, "result": "lose", "net": -5}


@pytest.mark.parametrize(
    "letter, cards, dealer, line, x",
    [
        # tables without the A♥A♦ line pay it as a pair of aces (R22)
        ("A", ["Ah", "Ad"], None, "pair_of_aces", 30),
        ("C", ["Ah", "Ad"], None, "pair_of_aces", 30),
        ("F", ["Ah", "Ad"], None, "pair_of_aces", 25),
        # only paytable B pays for the dealer's aces: the others pay the player's pair of aces
        ("D", ["As", "Ac"], ["Ah", "Ad"], "pair_of_aces", 30),
        ("E", ["As", "Ac"], ["Ah", "Ad"], "pair_of_aces", 25),
        ("B", ["Ah", "Ad"], ["As", "Ac"], "pair_of_player_aces_and_dealer_aces", 1000),
        # the dealer's aces alone are nothing: the player's A-K suited pays its own line
        ("B", ["Ah", "Kh"], ["As", "Ac"], "ace_and_king_of_the_same_suit", 25),
        # A♥A♦ in D: "player aces of hearts and diamonds" (R22), exactly those two
        ("D", ["Ah", "Ad"], None, "pair_of_player_aces_of_hearts_and_diamonds", 100),
        ("D", ["Ah", "As"], None, "pair_of_aces", 30),
    ],
)
def test_ultimate_pairs_readings(letter, cards, dealer, line, x):
    """R22 readings; UTH ch.7 §F(5): the player's first two cards (and the dealer's two for B(a))."""
    out = settled(ultimate_pairs_round(letter, cards, dealer))
    assert seat_out(out, 1)["wagers"]["ultimate_pairs"] == {"amount": 5, "result": "win", "net": 5 * x, "line": line}


# --------------------------------------------------------------------------------------
# Bad Beat, UTH ch.7 §F(6), UTH ch.12 §F (second §F); RULINGS R24b
# --------------------------------------------------------------------------------------

BAD_BEAT_ODDS = {  # "X to 1": straight flush, four, full house, flush, straight, three of a kind (printed (b)-(g))
    "A": (10000, 500, 40, 25, 20, 9),
    "B": (7500, 500, 50, 30, 20, 9),
    "C": (2500, 500, 50, 30, 20, 9),
}
BAD_BEAT_HANDS = {  # line -> (community, losing two cards, winning two cards)
    "straight_flush": (["7h", "8h", "9h", "2c", "3d"], ["5h", "6h"], ["Th", "Jh"]),
    "four_of_a_kind": (["9c", "9d", "Kh", "Ks", "2c"], ["9h", "9s"], ["Kc", "Kd"]),
    "full_house": (["Kh", "Ks", "5c", "2d", "8s"], ["5h", "5d"], ["Kc", "8d"]),
    "flush": (["Ah", "9h", "2h", "6c", "7d"], ["4h", "3h"], ["Kh", "5h"]),
    "straight": (["5c", "6d", "7h", "Ks", "2d"], ["3c", "4s"], ["8c", "9s"]),
    "three_of_a_kind": (["8h", "Ks", "2c", "5d", "Jh"], ["8c", "8d"], ["Kc", "Kd"]),
}
BAD_BEAT_CASES = [
    (letter, line, odds[i], loser, f"UTH ch.12 §F(BB)({n})({'bcdefg'[i]})")
    for n, (letter, odds) in enumerate(BAD_BEAT_ODDS.items(), start=1)
    for i, line in enumerate(BAD_BEAT_HANDS)
    for loser in ("player", "dealer")
]


@pytest.mark.parametrize(
    "letter, line, x, loser, clause", BAD_BEAT_CASES, ids=[f"{c[4]} {c[1]} {c[3]} loses" for c in BAD_BEAT_CASES]
)
def test_bad_beat_every_line(letter, line, x, loser, clause):
    """R24b: paid by the losing hand's line, whether the loser is the player or the dealer."""
    community, losing, winning = BAD_BEAT_HANDS[line]
    player, dealer = (losing, winning) if loser == "player" else (winning, losing)
    out = settled(table([seat(1, player, play=1, bad_beat=5)], community, dealer, paytables={"bad_beat": letter}))
    s = seat_out(out, 1)
    loser_hand = s["hand"] if loser == "player" else out["dealer"]["hand"]
    assert loser_hand == line and s["hand"] == out["dealer"]["hand"]  # both hands of the category
    assert s["wagers"]["play"]["result"] == ("lose" if loser == "player" else "win")
    assert s["wagers"]["bad_beat"] == {"amount": 5, "result": "win", "net": 5 * x, "line": line}


@pytest.mark.parametrize("letter", list(BAD_BEAT_ODDS))
@pytest.mark.parametrize(
    "community, player, dealer, why",
    [
        # the losing hand is two pair: below three of a kind
        (["Kh", "7s", "2c", "5d", "9h"], ["2s", "5s"], ["Kc", "7c"], "loser two pair"),
        (["Kh", "7s", "2c", "5d", "9h"], ["Kc", "7c"], ["2s", "5s"], "dealer loses with two pair"),
        # the player's trips beat the dealer's pair: the losing hand is a pair
        (["8h", "Ks", "2c", "5d", "Jh"], ["8c", "8d"], ["2s", "4c"], "loser pair"),
        # both play the board's straight: a tie loses (R24b)
        (["5c", "6d", "7h", "8s", "9c"], ["2d", "2h"], ["3h", "3s"], "tie straight"),
        # both hold four kings with an ace kicker: tie of quads still loses
        (["Kc", "Kd", "Kh", "Ks", "Ac"], ["2d", "3h"], ["4h", "5s"], "tie four of a kind"),
    ],
)
def test_bad_beat_loses(letter, community, player, dealer, why):
    out = settled(table([seat(1, player, play=1, bad_beat=5)], community, dealer, paytables={"bad_beat": letter}))
    assert seat_out(out, 1)["wagers"]["bad_beat"] == {"amount": 5, "result": "lose", "net": -5}


def test_bad_beat_settled_for_a_folded_player():
    """R24b, R7: a folded straight flush that loses to the dealer's higher straight flush is paid 10,000 to 1 (A)."""
    community, losing, winning = BAD_BEAT_HANDS["straight_flush"]
    out = settled(table([seat(1, losing, fold=True, bad_beat=5)], community, winning, paytables={"bad_beat": "A"}))
    w = seat_out(out, 1)["wagers"]
    assert w["bad_beat"] == {"amount": 5, "result": "win", "net": 50000, "line": "straight_flush"}
    assert w["ante"]["net"] == -10 and w["blind"]["net"] == -10 and "play" not in w


# --------------------------------------------------------------------------------------
# Play the Board, UTH ch.7 §F(7), UTH ch.12 §G; RULINGS R23
# --------------------------------------------------------------------------------------

PTB_ODDS = {  # "X to 1" in printed order (a)-(h), then the second "(g)" pair of tens or better
    "A": {"royal_flush": 1000, "straight_flush": 200, "four_of_a_kind": 100, "full_house": 50, "flush": 40,
          "straight": 25, "three_of_a_kind": 7, "two_pair": 3, "pair_of_tens_or_better": 1},
    "B": {"royal_flush": 1000, "straight_flush": 200, "four_of_a_kind": 100, "full_house": 50, "flush": 40,
          "straight": 25, "three_of_a_kind": 6, "two_pair": 3, "pair_of_tens_or_better": 1},
    "C": {"royal_flush": 1000, "straight_flush": 200, "four_of_a_kind": 100, "full_house": 50, "flush": 40,
          "straight": 20, "three_of_a_kind": 6, "two_pair": 3, "pair_of_tens_or_better": 1},
}
PTB_BOARDS = {
    "royal_flush": [["Ah", "Kh", "Qh", "Jh", "Th"]],
    "straight_flush": [["9h", "8h", "7h", "6h", "5h"], ["Ad", "2d", "3d", "4d", "5d"]],
    "four_of_a_kind": [["9c", "9d", "9h", "9s", "2c"]],
    "full_house": [["Kc", "Kd", "Ks", "5h", "5c"]],
    "flush": [["Ah", "4h", "Kh", "9h", "2h"]],
    "straight": [["8c", "9d", "Th", "Js", "7c"], ["Ac", "2d", "3h", "4s", "5c"]],
    "three_of_a_kind": [["8c", "8d", "8h", "Ks", "2c"]],
    "two_pair": [["Kc", "Kd", "5h", "5c", "2d"]],
    # R23: a pair of 10s, Js, Qs, Ks or As
    "pair_of_tens_or_better": [["Tc", "Td", "5h", "7c", "2d"], ["Jc", "Jd", "5h", "7c", "2d"],
                               ["Ac", "Ad", "5h", "7c", "2d"]],
}
PTB_LABEL = {"royal_flush": "a", "straight_flush": "b", "four_of_a_kind": "c", "full_house": "d", "flush": "e",
             "straight": "f", "three_of_a_kind": "g", "two_pair": "h", "pair_of_tens_or_better": "g 2nd"}
PTB_CASES = [
    (letter, line, x, board, f"UTH ch.12 §G({n})({PTB_LABEL[line]})")
    for n, (letter, odds) in enumerate(PTB_ODDS.items(), start=1)
    for line, x in odds.items()
    for board in PTB_BOARDS[line]
]


def play_the_board_round(letter, board, cards=None):
    rest = filler(list(board) + list(cards or []), 4)
    cards = cards or rest[:2]
    return table([seat(1, cards, play=1, play_the_board=5)], board, rest[2:4], paytables={"play_the_board": letter})


@pytest.mark.parametrize(
    "letter, line, x, board, clause", PTB_CASES, ids=[f"{c[4]} {''.join(c[3])}" for c in PTB_CASES]
)
def test_play_the_board_every_line(letter, line, x, board, clause):
    out = settled(play_the_board_round(letter, board))
    assert seat_out(out, 1)["wagers"]["play_the_board"] == {"amount": 5, "result": "win", "net": 5 * x, "line": line}


@pytest.mark.parametrize("letter", list(PTB_ODDS))
@pytest.mark.parametrize(
    "board, cards",
    [
        (["9c", "9d", "5h", "7c", "2d"], None),  # R23: a pair of 9s loses
        (["2c", "2h", "5h", "7c", "Kd"], None),  # a pair of 2s loses
        (["Ac", "Kd", "5h", "7c", "2d"], None),  # no pair
        (["9c", "9d", "5h", "7c", "2d"], ["9h", "9s"]),  # R23: the player's cards do not count (player has quads)
        (["Qh", "Jh", "Th", "5c", "2d"], ["Ah", "Kh"]),  # nor a royal made with the player's cards
    ],
)
def test_play_the_board_loses(letter, board, cards):
    out = settled(play_the_board_round(letter, board, cards))
    assert seat_out(out, 1)["wagers"]["play_the_board"] == {"amount": 5, "result": "lose", "net": -5}


# --------------------------------------------------------------------------------------
# The main game: Ante, Blind, Play (UTH ch.11 §B-§H, UTH ch.12 §A-§B)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "multiple", [4, 3, 2, 1], ids=["4x ch.11 §B(1)", "3x ch.11 §B(1)", "2x ch.11 §D(1)", "1x ch.11 §F"]
)
def test_play_multiples_legal_and_paid_one_to_one(multiple):
    cards, community, dealer = WINS["straight"]
    out = settled(table([seat(1, cards, play=multiple)], community, dealer, paytables={"blind": "A"}))
    s = seat_out(out, 1)
    play = 10 * multiple
    assert s["wagers"]["play"] == {"amount": play, "result": "win", "net": play}  # UTH ch.12 §A 1 to 1
    assert s["wagers"]["ante"] == {"amount": 10, "result": "win", "net": 10}
    assert s["net"] == 10 + 10 + play  # Blind: straight 1 to 1 (§B(1)(f))
    assert s["limited_by"] == 0


def test_dealer_qualifies_player_loses():
    """UTH ch.11 §H(3)(a): the Ante, Blind and Play are collected."""
    out = settled(table([seat(1, ["2s", "7h"])], ["2c", "5d", "9h", "Js", "Kd"], ["Kc", "4h"],
                        paytables={"blind": "A"}))
    s = seat_out(out, 1)
    assert out["dealer"]["hand"] == "pair" and out["dealer"]["qualifies"] is True
    # the five cards, best first: the pair of kings, then J, 9, 5
    assert set(out["dealer"]["cards"][:2]) == {"Kc", "Kd"} and out["dealer"]["cards"][2:] == ["Js", "9h", "5d"]
    assert s["wagers"] == {
        "ante": {"amount": 10, "result": "lose", "net": -10},
        "blind": {"amount": 10, "result": "lose", "net": -10},
        "play": {"amount": 40, "result": "lose", "net": -40},
    }
    assert s["net"] == -60


def test_dealer_qualifies_tie_pushes_everything():
    """UTH ch.11 §H(3)(d), R8: both play the board's straight: Ante, Blind and Play are returned."""
    out = settled(table([seat(1, ["2d", "2h"], play=3)], ["5c", "6d", "7h", "8s", "9c"], ["3h", "3s"],
                        paytables={"blind": "A"}))
    s = seat_out(out, 1)
    assert out["dealer"]["qualifies"] is True
    assert {k: (w["result"], w["net"]) for k, w in s["wagers"].items()} == {
        "ante": ("push", 0), "blind": ("push", 0), "play": ("push", 0)}
    assert s["net"] == 0


DEALER_HIGH_CARD_BOARD = ["2c", "5d", "9h", "Js", "Kd"]


@pytest.mark.parametrize(
    "cards, dealer, expected",
    [
        # player's straight beats the dealer's king high: Ante returned, Blind by the paytable, Play wins
        (["Qc", "Th"], ["Qh", "8s"], {"ante": ("push", 0), "blind": ("win", 10), "play": ("win", 40)}),
        # player's pair beats the dealer: Blind pushes (less than a straight), Play wins
        (["Kc", "3h"], ["Qh", "8s"], {"ante": ("push", 0), "blind": ("push", 0), "play": ("win", 40)}),
        # player's king-jack-nine-7-6 loses to the dealer's king-queen: Blind and Play lose, Ante returned
        (["6c", "7h"], ["Qh", "8s"], {"ante": ("push", 0), "blind": ("lose", -10), "play": ("lose", -40)}),
        # equal high cards: everything pushes
        (["3c", "4d"], ["3h", "4s"], {"ante": ("push", 0), "blind": ("push", 0), "play": ("push", 0)}),
    ],
    ids=["win", "win below straight", "lose", "tie"],
)
def test_dealer_does_not_qualify(cards, dealer, expected):
    """UTH ch.11 §H(1): below a pair the dealer returns the Ante and settles Blind and Play by comparison."""
    out = settled(table([seat(1, cards)], DEALER_HIGH_CARD_BOARD, dealer, paytables={"blind": "A"}))
    assert out["dealer"]["qualifies"] is False and out["dealer"]["hand"] == "high_card"
    s = seat_out(out, 1)
    assert {k: (w["result"], w["net"]) for k, w in s["wagers"].items()} == expected


def test_fold_loses_ante_and_blind_side_wagers_still_settled():
    """UTH ch.11 §F(2), R7: a folded player loses Ante and Blind, makes no Play, and the side wagers are settled
    on the final cards: Trips (three 8s, §C(1)(g) 3 to 1), Ultimate Pairs (8-8, pair of tens or less, A 3 to 1),
    Progressive (B three of a kind 9 for 1), Play the Board (the board alone has no pair of tens: loses)."""
    cards, community, dealer = WINS["three_of_a_kind"]
    r = table(
        [seat(1, cards, fold=True, trips=5, ultimate_pairs=5, progressive=1, play_the_board=5)],
        community,
        dealer,
        paytables={"trips": "A", "ultimate_pairs": "A", "progressive": "B", "play_the_board": "A"},
        progressive=progressive_block("B"),
    )
    s = seat_out(settled(r), 1)
    w = s["wagers"]
    assert "play" not in w
    assert w["ante"] == {"amount": 10, "result": "lose", "net": -10}
    assert w["blind"] == {"amount": 10, "result": "lose", "net": -10}
    assert w["trips"] == {"amount": 5, "result": "win", "net": 15, "line": "three_of_a_kind"}
    assert w["ultimate_pairs"] == {"amount": 5, "result": "win", "net": 15, "line": "pair_of_tens_or_less"}
    assert w["progressive"] == {"amount": 1, "result": "win", "net": 8, "line": "three_of_a_kind"}
    assert w["play_the_board"] == {"amount": 5, "result": "lose", "net": -5}
    assert s["net"] == -10 - 10 + 15 + 15 + 8 - 5


def test_fold_loses_even_with_the_better_hand():
    """UTH ch.11 §F(2): the folded royal flush still loses Ante and Blind."""
    cards, community, dealer = WINS["royal_flush"]
    s = seat_out(settled(table([seat(1, cards, fold=True)], community, dealer)), 1)
    assert s["wagers"] == {"ante": {"amount": 10, "result": "lose", "net": -10},
                           "blind": {"amount": 10, "result": "lose", "net": -10}}


# --------------------------------------------------------------------------------------
# Payout limit, UTH ch.12 §F(1)-(2) (first §F); RULINGS R6
# --------------------------------------------------------------------------------------


def payout_limit_round(limit=50000):
    community = ["Qh", "Jh", "Th", "2c", "3d"]
    seats = [
        seat(4, ["9h", "8h"], play=1, progressive=1),  # Q-high straight flush
        seat(6, ["Ah", "Kh"], ante=100, play=4, trips=100, ultimate_pairs=10, bad_beat=10, six_card_bonus=10,
             progressive=1),  # royal flush
    ]
    return table(
        seats,
        community,
        ["2s", "7c"],
        paytables={"blind": "A", "trips": "A", "ultimate_pairs": "A", "bad_beat": "A", "six_card_bonus": "A",
                   "progressive": "B"},
        bonus=["Ac", "Ad", "As", "9d"],
        progressive=progressive_block("B", meters={"major": D(12000), "minor": D(1400)}, envy="B"),
        payout_limit=limit,
    )


def test_payout_limit_caps_covered_winnings_only():
    """R6: seat 6's covered winnings are Ante 100 + Blind 500x100 + Play 400 + Trips 50x100 + Ultimate Pairs 25x10
    = 55,750; the limit 50,000 takes 5,750. The losing Bad Beat does not offset winnings; Progressive (royal:
    100% of Major), Six Card Bonus (four aces 50 to 1) and the Envy Bonus ($300 for seat 4's straight flush) are
    not covered."""
    out = settled(payout_limit_round())
    s6 = seat_out(out, 6)
    w = s6["wagers"]
    assert w["ante"]["net"] == 100
    assert w["blind"] == {"amount": 100, "result": "win", "net": 500 * 100, "line": "royal_flush"}
    assert w["play"] == {"amount": 400, "result": "win", "net": 400}
    assert w["trips"]["net"] == 50 * 100
    assert w["ultimate_pairs"] == {"amount": 10, "result": "win", "net": 250, "line": "ace_and_king_of_the_same_suit"}
    assert w["bad_beat"] == {"amount": 10, "result": "lose", "net": -10}  # the loser (dealer) holds a pair
    assert w["six_card_bonus"] == {"amount": 10, "result": "win", "net": 500, "line": "four_of_a_kind"}
    assert w["progressive"] == {"amount": 1, "result": "win", "net": 12000 - 1, "line": "royal_flush"}
    assert w["envy"] == {"amount": 0, "result": "win", "net": 300, "from_seats": [4]}
    covered = 100 + 500 * 100 + 400 + 50 * 100 + 250
    assert s6["limited_by"] == covered - 50000
    assert s6["net"] == covered - 10 + 500 + 11999 + 300 - (covered - 50000)

    s4 = seat_out(out, 4)
    assert s4["limited_by"] == 0  # under the limit
    assert s4["wagers"]["progressive"]["net"] == 1400 - 1  # 100% of Minor
    assert s4["wagers"]["envy"] == {"amount": 0, "result": "win", "net": 1000, "from_seats": [6]}
    assert s4["net"] == 10 + 50 * 10 + 10 + 1399 + 1000
    assert out["meters"] == {"major": D(1000), "minor": D(250)}


def test_no_payout_limit_given_nothing_is_taken():
    out = settled(payout_limit_round(limit=None))
    assert seat_out(out, 6)["limited_by"] == 0


def test_payout_limit_higher_than_winnings_takes_nothing():
    out = settled(payout_limit_round(limit=60000))
    assert seat_out(out, 6)["limited_by"] == 0


def test_payout_limit_below_50000_refused():
    """R6, UTH ch.12 §F(1): at least $50,000."""
    e = refused(payout_limit_round(limit=D("49999.99")))
    assert e.field == "payout_limit"
    parse_round(payout_limit_round(limit=50000))  # the floor itself is accepted


# --------------------------------------------------------------------------------------
# Settlement order and independence from the input order (RULINGS R1, R4)
# --------------------------------------------------------------------------------------


def order_round(seats):
    return table(seats, TWO_SF_COMMUNITY, TWO_SF_DEALER, paytables={"progressive": "A", "trips": "C"},
                 progressive=progressive_block("A", meters={"meter": D("20000.05")}, envy="C"))


def order_seats():
    return [
        seat(2, ["5h", "6h"], progressive=1),
        seat(5, ["Th", "Jh"], progressive=1),
        seat(1, ["Ac", "Kc"], progressive=1, trips=5),
        seat(6, ["4s", "4d"], fold=True),
        seat(3, ["Qs", "Qc"], play=2, trips=5),
    ]


def test_settlement_order_highest_seat_first():
    """R1: counterclockwise from the dealer's right: the highest occupied seat first."""
    out = settled(order_round(order_seats()))
    assert [s["seat"] for s in out["seats"]] == [6, 5, 3, 2, 1]


def test_settlement_independent_of_input_order():
    """R1, R4: the input order of the seats changes nothing, meters and Envy Bonuses included."""
    first = settled(order_round(order_seats()))
    assert seat_out(first, 5)["wagers"]["progressive"]["net"] == D("2000.01") - 1
    assert seat_out(first, 1)["wagers"]["envy"]["from_seats"] == [2, 5]
    for perm in itertools.permutations(order_seats()):
        assert settled(order_round(list(perm))) == first


# --------------------------------------------------------------------------------------
# The README's example (docs/examples/settle-uth.json) through the command line.  That it is the
# settle contract's worked example, and settles to the contract's output, is checked against the
# contract kept beside the project by `make contracts` (tests/contracts/contract_settle.py).
# --------------------------------------------------------------------------------------


def test_the_project_example_through_the_command_line():
    code, out, err = cli((ROOT / "docs/examples/settle-uth.json").read_text())
    assert code == 0, err
    got = json.loads(out, parse_float=D)
    assert got["game"] == GAME
    assert [s["seat"] for s in got["seats"]] == [3, 1]  # settlement order, highest seat first (R1)
    folded = got["seats"][0]["wagers"]  # a fold loses the Ante and the Blind (UTH ch.11 §F(2))
    assert {w: (r["result"], r["net"]) for w, r in folded.items()} == {"ante": ("lose", -25), "blind": ("lose", -25)}


# --------------------------------------------------------------------------------------
# Refusals (settle contract; exit 2 with one line naming the field)
# --------------------------------------------------------------------------------------


def base_round(**wagers):
    cards, community, dealer = WINS["straight"]
    return table([seat(1, cards, **wagers)], community, dealer, paytables={"blind": "A", "trips": "A"})


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda r: r["seats"][0]["wagers"].update(blind=15), "seats[0].wagers.blind"),  # UTH ch.7 §F(1)
        (lambda r: r["seats"][0].update(play=5), "seats[0].play"),  # UTH ch.11 §B(1), §D(1), §F
        (lambda r: r["seats"][0]["wagers"].update(progressive=5), "seats[0].wagers.progressive"),  # R3
    ],
    ids=["unequal Ante and Blind", "play 5", "progressive wager not the unit"],
)
def test_cli_refusals_exit_2_naming_the_field(change, field):
    r = base_round()
    r["paytables"]["progressive"] = "B"
    r["progressive"] = {"unit": 1, "meters": {"major": 12000, "minor": 1400}, "reset": {"major": 1000, "minor": 250}}
    r["seats"][0]["wagers"]["progressive"] = 1
    assert cli(r)[0] == 0  # the unchanged round is accepted
    change(r)
    code, out, err = cli(r)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and field in err


def _set(path, value):
    def change(r):
        target = r
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _del(path):
    def change(r):
        target = r
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


REFUSALS = [
    ("unequal Ante/Blind ch.7 §F(1)", {}, _set(["seats", 0, "wagers", "blind"], 11), "seats[0].wagers.blind"),
    ("no Blind ch.7 §F(1)", {}, _del(["seats", 0, "wagers", "blind"]), "seats[0].wagers.blind"),
    ("play 5", {}, _set(["seats", 0, "play"], 5), "seats[0].play"),
    ("play 0", {}, _set(["seats", 0, "play"], 0), "seats[0].play"),
    ("play true", {}, _set(["seats", 0, "play"], True), "seats[0].play"),
    ("play and fold", {}, _set(["seats", 0, "fold"], True), "seats[0]"),
    ("no decision", {}, _del(["seats", 0, "play"]), "seats[0]"),
    ("a card twice", {}, _set(["seats", 0, "cards"], ["Th", "2h"]), "seats[0].cards"),  # Th is on the board
    ("a card twice in the hand", {}, _set(["seats", 0, "cards"], ["2h", "2h"]), "seats[0].cards"),
    ("4 community cards", {}, _set(["community"], ["Th", "Js", "7c", "2d"]), "community"),
    ("6 community cards", {}, _set(["community"], ["Th", "Js", "7c", "2d", "5h", "6h"]), "community"),
    ("3 dealer cards", {}, _set(["dealer"], ["2s", "4c", "6h"]), "dealer"),
    ("1 dealer card", {}, _set(["dealer"], ["2s"]), "dealer"),
    ("3 player cards", {}, _set(["seats", 0, "cards"], ["8c", "9d", "Ac"]), "seats[0].cards"),
    ("unknown wager", {}, _set(["seats", 0, "wagers", "xtra_bonus"], 10), "seats[0].wagers.xtra_bonus"),
    ("unknown wager run", {}, _set(["seats", 0, "wagers", "ante_2"], 10), "seats[0].wagers.ante_2"),
    ("missing trips letter", {"trips": 5}, _del(["paytables", "trips"]), "paytables.trips"),
    ("trips letter F", {"trips": 5}, _set(["paytables", "trips"], "F"), "paytables.trips"),
    ("missing bad beat letter", {"bad_beat": 5}, lambda r: None, "paytables.bad_beat"),
    ("missing ultimate pairs letter", {"ultimate_pairs": 5}, lambda r: None, "paytables.ultimate_pairs"),
    ("missing play the board letter", {"play_the_board": 5}, lambda r: None, "paytables.play_the_board"),
    ("six card bonus without bonus_cards", {"trips": 5, "six_card_bonus": 5},
     _set(["paytables", "six_card_bonus"], "A"), "bonus_cards"),
    ("six card bonus without trips R21b", {"six_card_bonus": 5},
     lambda r: r.update(bonus_cards=["Ac", "Ad", "As", "Kd"]) or r["paytables"].update(six_card_bonus="A"),
     "seats[0].wagers.six_card_bonus"),
    ("3 bonus cards", {"trips": 5, "six_card_bonus": 5},
     lambda r: r.update(bonus_cards=["Ac", "Ad", "As"]) or r["paytables"].update(six_card_bonus="A"),
     "bonus_cards"),
    ("bonus card on the board", {"trips": 5, "six_card_bonus": 5},
     lambda r: r.update(bonus_cards=["Ac", "Ad", "As", "Th"]) or r["paytables"].update(six_card_bonus="A"),
     "bonus_cards"),
]


@pytest.mark.parametrize("why, wagers, change, field", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusals_name_the_field(why, wagers, change, field):
    r = base_round(**wagers)
    change(r)
    e = refused(r)
    assert e.field == field, str(e)
    if "twice" in why or "on the board" in why:  # the message names the card and where it already is
        assert "Th" in e.message or "2h" in e.message


def progressive_round(**block_changes):
    cards, community, dealer = WINS["straight"]
    block = progressive_block("B", **block_changes)
    return table([seat(1, cards, progressive=1)], community, dealer, paytables={"progressive": "B"},
                 progressive=block)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda r: r["progressive"].update(envy="E"), "progressive.envy"),  # UTH ch.12 §D(6): A-D only
        (lambda r: r["progressive"].update(envy="b"), "progressive.envy"),
        (lambda r: r["seats"][0]["wagers"].update(progressive=2), "seats[0].wagers.progressive"),  # R3
        (lambda r: r["seats"][0]["wagers"].update(progressive=D("0.50")), "seats[0].wagers.progressive"),  # R3
        (lambda r: r["progressive"]["meters"].update(star=100), "progressive.meters.star"),
        (lambda r: r["progressive"]["reset"].update(grand=100), "progressive.reset.grand"),
        (lambda r: r["progressive"]["meters"].pop("minor"), "progressive.meters.minor"),
        (lambda r: r["progressive"]["reset"].pop("major"), "progressive.reset.major"),
        (lambda r: r["paytables"].update(progressive="C"), "progressive.meters.mega"),  # C pays from Mega too
        (lambda r: r["paytables"].pop("progressive"), "paytables.progressive"),
        (lambda r: r.pop("progressive"), "progressive"),
        (lambda r: r["progressive"].update(envy_requires_progressive_wager="yes"),
         "progressive.envy_requires_progressive_wager"),
    ],
    ids=["envy E", "envy lowercase", "wager 2 on unit 1", "wager 0.50 on unit 1", "unknown meter",
         "unknown reset meter", "missing minor meter", "missing major reset", "missing mega for C",
         "no progressive letter", "no progressive block", "option not boolean"],
)
def test_progressive_refusals_name_the_field(change, field):
    r = progressive_round()
    parse_round(r)  # the unchanged round is accepted
    change(r)
    e = refused(r)
    assert e.field == field, str(e)


def test_progressive_wager_must_equal_a_five_dollar_unit():
    """R3: exactly one unit per seat: with a $5 unit a $1 wager is refused and a $5 wager accepted."""
    cards, community, dealer = WINS["straight"]
    r = table([seat(1, cards, progressive=1)], community, dealer, paytables={"progressive": "B"},
              progressive=progressive_block("B", 5))
    assert refused(r).field == "seats[0].wagers.progressive"
    r["seats"][0]["wagers"]["progressive"] = 5
    parse_round(r)

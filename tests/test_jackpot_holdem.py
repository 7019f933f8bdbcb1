"""Jackpot Hold 'Em settlement, through the settle contract (shared/contracts/settle.md).

Every expected amount is computed here from the odds as JHE ch.12 prints them
(written out below, with their clauses) and RULINGS R2-R4, R6, R7, R11-R13;
none is copied from the engine's output.
"""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest

from controller.cli.main import main
from games.contract import parse_round, settle, settlement_json
from games.round import RoundError

D = Decimal

# -- hands ----------------------------------------------------------------------------
# Each fixture: (player's two cards, the five community cards, the dealer's two cards,
# the player's hand name).  In every one the dealer makes a pair of 2s or two pair
# with 2s (qualifies, JHE ch.11 §I(2)) and the player's hand is higher.
HANDS = {
    "royal_spades": (["As", "Ks"], ["Qs", "Js", "Ts", "2d", "7c"], ["2h", "3c"], "royal_flush"),
    "royal_hearts": (["Ah", "Kh"], ["Qh", "Jh", "Th", "2d", "7c"], ["2s", "3c"], "royal_flush"),
    "royal_clubs": (["Ac", "Kc"], ["Qc", "Jc", "Tc", "2d", "7h"], ["2h", "3s"], "royal_flush"),
    "royal_diamonds": (["Ad", "Kd"], ["Qd", "Jd", "Td", "2c", "7h"], ["2h", "3s"], "royal_flush"),
    "straight_flush": (["9h", "8h"], ["7h", "6h", "5h", "2d", "Kc"], ["2c", "3s"], "straight_flush"),
    "four_of_a_kind": (["9s", "9h"], ["9d", "9c", "2d", "5h", "Kc"], ["2h", "3s"], "four_of_a_kind"),
    "full_house": (["Ks", "Kh"], ["Kd", "5c", "5d", "2s", "8h"], ["2h", "3c"], "full_house"),
    "flush": (["Ah", "7h"], ["Kh", "9h", "3h", "2d", "5c"], ["2c", "8s"], "flush"),
    "straight": (["8c", "7d"], ["6h", "5s", "4d", "Kc", "2h"], ["2s", "Jd"], "straight"),
    "three_of_a_kind": (["7s", "7h"], ["7d", "Kc", "9h", "2d", "4s"], ["2h", "3c"], "three_of_a_kind"),
    "two_pair": (["Ks", "9c"], ["Kd", "9h", "4s", "2d", "7c"], ["2h", "3c"], "two_pair"),
    "pair": (["Ac", "Ad"], ["9h", "5s", "4d", "Kc", "2h"], ["2s", "Jd"], "pair"),
}

UNIT = D(5)  # the table's progressive unit (RULINGS R3)
# Meters before the round; every one above the largest reset amount of JHE ch.12 §E.
METERS = {
    "star": D("12345.67"), "spade": D("10500.50"), "heart": D("5500.25"), "diamond": D("1800.10"), "club": D("400.40")
}
# Reset amounts at the minimums of JHE ch.12 §E(2), (4), (6), (8), (10), per progressive paytable.
RESET = {
    "A": {"star": D(10000), "spade": D(5000), "heart": D(1000), "diamond": D(500), "club": D(0)},
    "B": {"star": D(10000), "spade": D(1000), "heart": D(500), "diamond": D(100), "club": D(0)},
    "C": {"star": D(10000), "spade": D(5000), "heart": D(1000), "diamond": D(500), "club": D(0)},
    "D": {"star": D(10000), "spade": D(1000), "heart": D(500), "diamond": D(100), "club": D(0)},
    "E": {"star": D(10000), "spade": D(10000), "heart": D(5000), "diamond": D(1000), "club": D(250)},
}


def seat(number, cards, wagers, **decision):
    return {"seat": number, "cards": cards, "wagers": wagers, **decision}


def make_round(seats, community, dealer, *, progressive_letter=None, meters=None, payout_limit=None, **extra):
    obj = {"game": "jackpot_holdem", "paytables": {}, "dealer": dealer, "community": community, "seats": seats}
    if progressive_letter is not None:
        obj["paytables"]["progressive"] = progressive_letter
        obj["progressive"] = {
            "unit": UNIT,
            "meters": dict(meters if meters is not None else METERS),
            "reset": dict(RESET[progressive_letter]),
        }
    if payout_limit is not None:
        obj["payout_limit"] = payout_limit
    obj.update(extra)
    return obj


def run(obj):
    return settlement_json(settle(obj))


def one_seat(hand_key, wagers, progressive_letter=None, **decision):
    player, community, dealer, _ = HANDS[hand_key]
    decision = decision or {"play": 1}
    obj = make_round([seat(3, player, wagers, **decision)], community, dealer, progressive_letter=progressive_letter)
    return run(obj)


def check(entry, result, net, line=None):
    assert entry["result"] == result
    assert entry["net"] == net
    if line is None:
        assert "line" not in entry
    else:
        assert entry["line"] == line


def to(x, y=1):  # "X to Y" (RULINGS R2): net +X/Y of the wager
    return ("to", x, y)


def for_(x, y=1):  # "X for Y" (RULINGS R2): X/Y of the wager in total, wager included
    return ("for", x, y)


def odds_net(amount, odds):
    word, x, y = odds
    net = amount * D(x) / D(y)
    return net - amount if word == "for" else net


# -- fixtures are what they claim ------------------------------------------------------


@pytest.mark.parametrize("key", sorted(HANDS))
def test_fixture_hands(key):
    """The player's hand is as named, the dealer qualifies (JHE ch.11 §I(2)) and the player wins."""
    out = one_seat(key, {"ante": 10, "xtra_bonus": 10})
    s = out["seats"][0]
    assert s["hand"] == HANDS[key][3]
    assert out["dealer"]["qualifies"] is True
    assert s["wagers"]["ante"]["result"] == "win"


# -- X-tra Bonus paytable A, JHE ch.12 §B(1) (R12: paid when the player beats the dealer) -----

XTRA_BONUS_A = [
    ("JHE ch.12 §B(1)(a)", "royal_spades", "royal_flush", to(500)),
    ("JHE ch.12 §B(1)(b)", "straight_flush", "straight_flush", to(50)),
    ("JHE ch.12 §B(1)(c)", "four_of_a_kind", "four_of_a_kind", to(10)),
    ("JHE ch.12 §B(1)(d)", "full_house", "full_house", to(4)),
    ("JHE ch.12 §B(1)(e)", "flush", "flush", to(2)),
    ("JHE ch.12 §B(1)(f)", "straight", "straight", to(1)),
]


@pytest.mark.parametrize("clause,hand,line,odds", XTRA_BONUS_A, ids=[c[0] for c in XTRA_BONUS_A])
def test_xtra_bonus_paytable_a(clause, hand, line, odds):
    ante = D(10)
    out = one_seat(hand, {"ante": ante, "xtra_bonus": ante}, play=3)
    w = out["seats"][0]["wagers"]
    check(w["xtra_bonus"], "win", odds_net(ante, odds), line)
    # JHE ch.12 §A: Ante and Play 1 to 1; Play is 3x the Ante (JHE ch.11 §C(1), R11).
    check(w["ante"], "win", ante)
    check(w["play"], "win", ante * 3)
    assert w["play"]["amount"] == ante * 3


def test_xtra_bonus_less_than_a_straight_pushes():
    """JHE ch.12 §B(1)(g), R12: a winning hand below a straight pushes the X-tra Bonus."""
    out = one_seat("pair", {"ante": 10, "xtra_bonus": 10}, play=1)
    w = out["seats"][0]["wagers"]
    check(w["xtra_bonus"], "push", D(0))
    check(w["ante"], "win", D(10))
    check(w["play"], "win", D(10))
    assert out["seats"][0]["net"] == D(20)


def test_xtra_bonus_loses_when_the_dealer_wins():
    """JHE ch.11 §I(3)(a), R12: a lower hand loses Ante, X-tra Bonus and Play."""
    obj = make_round(
        [seat(2, ["Jc", "7d"], {"ante": 10, "xtra_bonus": 10}, play=2)],
        ["9h", "5s", "4d", "Kc", "2h"],
        ["Kh", "Qd"],
    )
    out = run(obj)
    assert out["dealer"] == {"hand": "pair", "cards": ["Kh", "Kc", "Qd", "9h", "5s"], "qualifies": True}
    s = out["seats"][0]
    assert s["hand"] == "high_card"
    check(s["wagers"]["ante"], "lose", D(-10))
    check(s["wagers"]["xtra_bonus"], "lose", D(-10))
    check(s["wagers"]["play"], "lose", D(-20))
    assert s["net"] == D(-40)


# -- Player Bonus paytable A, JHE ch.12 §C(1) ------------------------------------------

PLAYER_BONUS_A = [
    ("JHE ch.12 §C(1)(a)", "royal_hearts", "royal_flush", to(100)),
    ("JHE ch.12 §C(1)(b)", "straight_flush", "straight_flush", to(40)),
    ("JHE ch.12 §C(1)(c)", "four_of_a_kind", "four_of_a_kind", to(30)),
    ("JHE ch.12 §C(1)(d)", "full_house", "full_house", to(8)),
    ("JHE ch.12 §C(1)(e)", "flush", "flush", to(7)),
    ("JHE ch.12 §C(1)(f)", "straight", "straight", to(4)),
    ("JHE ch.12 §C(1)(g)", "three_of_a_kind", "three_of_a_kind", to(3)),
]


@pytest.mark.parametrize("clause,hand,line,odds", PLAYER_BONUS_A, ids=[c[0] for c in PLAYER_BONUS_A])
def test_player_bonus_paytable_a(clause, hand, line, odds):
    bonus = D("7.50")
    out = one_seat(hand, {"ante": 10, "xtra_bonus": 10, "player_bonus": bonus})
    check(out["seats"][0]["wagers"]["player_bonus"], "win", odds_net(bonus, odds), line)


@pytest.mark.parametrize("hand", ["two_pair", "pair"], ids=["two pair loses", "pair loses"])
def test_player_bonus_below_three_of_a_kind_loses(hand):
    """JHE ch.12 §C(1): the lowest line is three of a kind; the player still beats the dealer here."""
    out = one_seat(hand, {"ante": 10, "xtra_bonus": 10, "player_bonus": 5})
    w = out["seats"][0]["wagers"]
    check(w["player_bonus"], "lose", D(-5))
    assert w["ante"]["result"] == "win"


def test_player_bonus_paid_when_the_dealer_wins():
    """JHE ch.11 §J(2): paid whatever the outcome against the dealer."""
    obj = make_round(
        [seat(1, ["7s", "7h"], {"ante": 10, "xtra_bonus": 10, "player_bonus": 5}, play=1)],
        ["7d", "Kc", "Kh", "2d", "4s"],
        ["Ks", "4c"],
    )
    out = run(obj)
    s = out["seats"][0]
    assert (s["hand"], out["dealer"]["hand"]) == ("full_house", "full_house")
    check(s["wagers"]["ante"], "lose", D(-10))
    check(s["wagers"]["player_bonus"], "win", D(5) * 8, "full_house")  # JHE ch.12 §C(1)(d) 8 to 1


# -- Progressive paytables A-E, JHE ch.12 §D(2)-(6), meters as written (R13) ----------------

RF_D = "royal_flush_diamonds"
RF_O = "royal_flush_spades_hearts_or_clubs"


def meter(name):
    return ("meter", name)


_PROGRESSIVE_TABLES = {
    "A": ("JHE ch.12 §D(2)", [
        ("a", RF_D, meter("star")), ("b", RF_O, meter("spade")), ("c", "straight_flush", meter("heart")),
        ("d", "four_of_a_kind", meter("diamond")), ("e", "full_house", for_(50)), ("f", "flush", for_(30)),
        ("g", "straight", for_(20)), ("h", "three_of_a_kind", for_(10)), ("i", "two_pair", for_(4)),
    ], "pair"),
    "B": ("JHE ch.12 §D(3)", [
        ("a", RF_D, meter("star")), ("b", RF_O, meter("star")), ("c", "straight_flush", meter("spade")),
        ("d", "four_of_a_kind", meter("heart")), ("e", "full_house", meter("diamond")), ("f", "flush", for_(30)),
        ("g", "straight", for_(20)), ("h", "three_of_a_kind", for_(10)), ("i", "two_pair", for_(4)),
    ], "pair"),
    "C": ("JHE ch.12 §D(4)", [
        ("a", RF_D, meter("star")), ("b", RF_O, meter("spade")), ("c", "straight_flush", meter("heart")),
        ("d", "four_of_a_kind", meter("diamond")), ("e", "full_house", for_(60)), ("f", "flush", for_(40)),
        ("g", "straight", for_(30)), ("h", "three_of_a_kind", for_(15)),
    ], "two_pair"),
    "D": ("JHE ch.12 §D(5)", [
        ("a", RF_D, meter("star")), ("b", RF_O, meter("star")), ("c", "straight_flush", meter("spade")),
        ("d", "four_of_a_kind", meter("heart")), ("e", "full_house", meter("diamond")), ("f", "flush", for_(50)),
        ("g", "straight", for_(30)), ("h", "three_of_a_kind", for_(15)),
    ], "two_pair"),
    "E": ("JHE ch.12 §D(6)", [
        ("a", RF_D, meter("star")), ("b", RF_O, meter("spade")), ("c", "straight_flush", meter("heart")),
        ("d", "four_of_a_kind", meter("diamond")), ("e", "full_house", meter("club")), ("f", "flush", for_(50)),
        ("g", "straight", for_(30)), ("h", "three_of_a_kind", for_(10)),
    ], "two_pair"),
}

# The hands that make each line; the royal of spades, hearts or clubs in each of the three suits (R13).
_LINE_HANDS = {
    RF_D: ["royal_diamonds"],
    RF_O: ["royal_spades", "royal_hearts", "royal_clubs"],
}

PROGRESSIVE_CASES = []
for _letter, (_clause, _rows, _highest_losing) in _PROGRESSIVE_TABLES.items():
    for _label, _line, _pays in _rows:
        for _hand in _LINE_HANDS.get(_line, [_line]):
            _id = f"{_clause}({_label}) {_hand}"
            PROGRESSIVE_CASES.append(pytest.param(_letter, _hand, _line, _pays, id=_id))


@pytest.mark.parametrize("letter,hand,line,pays", PROGRESSIVE_CASES)
def test_progressive_paytables(letter, hand, line, pays):
    out = one_seat(hand, {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, progressive_letter=letter)
    entry = out["seats"][0]["wagers"]["progressive"]
    expected_meters = dict(METERS)
    if pays[0] == "meter":
        # R4: 100% is the meter itself; the wager was collected (R3): net = paid − unit.
        paid = METERS[pays[1]]
        check(entry, "win", paid - UNIT, line)
        expected_meters[pays[1]] = max(RESET[letter][pays[1]], METERS[pays[1]] - paid)
    else:
        check(entry, "win", odds_net(UNIT, pays), line)  # "X for 1" on the unit (R2, R3)
    assert out["meters"] == expected_meters


@pytest.mark.parametrize(
    "letter,hand",
    [
        pytest.param(letter, losing, id=f"{clause} {losing} loses")
        for letter, (clause, _, losing) in _PROGRESSIVE_TABLES.items()
    ],
)
def test_progressive_below_the_lowest_line_loses(letter, hand):
    out = one_seat(hand, {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, progressive_letter=letter)
    check(out["seats"][0]["wagers"]["progressive"], "lose", -UNIT)
    assert out["meters"] == METERS


def test_progressive_royal_with_the_first_three_community_cards_takes_its_suit():
    """R13, R24a: the two cards and the first three community cards revealed (JHE ch.11 §B, §D) make a royal flush
    of diamonds: the Royal Flush of diamonds line (Star meter)."""
    obj = make_round(
        [seat(4, ["Ad", "Kd"], {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, play=1)],
        ["Qd", "Jd", "Td", "2c", "3c"],
        ["2h", "3s"],
        progressive_letter="A",
    )
    s = run(obj)["seats"][0]
    assert s["hand"] == "royal_flush"
    check(s["wagers"]["progressive"], "win", METERS["star"] - UNIT, RF_D)  # JHE ch.12 §D(2)(a)


def test_progressive_royal_completed_on_the_last_two_cards_pays_no_meter():
    """R24a: the fourth and fifth community cards never count for the Progressive: a royal flush of diamonds
    they complete is a high card there (no Star meter), while the main game reads all seven (JHE ch.11 §I(2)(b))."""
    obj = make_round(
        [seat(4, ["Ad", "Kd"], {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, play=1)],
        ["Qd", "2c", "3c", "Jd", "Td"],
        ["2h", "3s"],
        progressive_letter="A",
    )
    out = run(obj)
    s = out["seats"][0]
    assert s["hand"] == "royal_flush"
    assert s["wagers"]["progressive"] == {"amount": UNIT, "result": "lose", "net": -UNIT}
    assert s["wagers"]["xtra_bonus"]["line"] == "royal_flush"  # the X-tra Bonus is a main-game wager
    assert D(str(out["meters"]["star"])) == METERS["star"]  # nothing paid from the Star meter


def test_progressive_two_winners_of_one_meter_in_settlement_order():
    """R4, JHE ch.12 §E(11): seat 5 (settled first, R1) takes the Heart meter; seat 2 is paid
    from the meter as seat 5 left it (its reset amount, JHE ch.12 §E(6)(a))."""
    obj = make_round(
        [
            seat(2, ["Th", "Jh"], {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, play=1),
            seat(5, ["6h", "5h"], {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, play=1),
        ],
        ["9h", "8h", "7h", "2c", "3d"],
        ["Kc", "Ks"],
        progressive_letter="A",
    )
    out = run(obj)
    assert [s["seat"] for s in out["seats"]] == [5, 2]
    first, second = out["seats"]
    assert first["hand"] == second["hand"] == "straight_flush"
    heart = METERS["heart"]
    heart_after_first = max(RESET["A"]["heart"], heart - heart)
    check(first["wagers"]["progressive"], "win", heart - UNIT, "straight_flush")  # JHE ch.12 §D(2)(c)
    check(second["wagers"]["progressive"], "win", heart_after_first - UNIT, "straight_flush")
    assert out["meters"]["heart"] == max(RESET["A"]["heart"], heart_after_first - heart_after_first)
    assert out["meters"]["star"] == METERS["star"]


# -- dealer does not qualify, JHE ch.11 §I(1), R12 ---------------------------------------

NOT_QUALIFYING_BOARD = ["9h", "5c", "Td", "Kc", "2h"]


@pytest.mark.parametrize(
    "player,dealer,xtra,play_result,hand",
    [
        # the player's straight beats the dealer's king high: X-tra Bonus 1 to 1 (JHE ch.12 §B(1)(f))
        (["Jc", "Qd"], ["3s", "4d"], ("win", D(10), "straight"), ("win", D(30)), "straight"),
        # a winning high card pushes the X-tra Bonus (JHE ch.12 §B(1)(g))
        (["Ac", "7d"], ["3s", "4d"], ("push", D(0), None), ("win", D(30)), "high_card"),
        # a losing hand loses X-tra Bonus and Play though the Ante is returned
        (["Jc", "6d"], ["Qs", "4d"], ("lose", D(-10), None), ("lose", D(-30)), "high_card"),
    ],
    ids=["player wins with a straight", "player wins with high card", "player loses"],
)
def test_dealer_not_qualifying(player, dealer, xtra, play_result, hand):
    obj = make_round([seat(6, player, {"ante": 10, "xtra_bonus": 10}, play=3)], NOT_QUALIFYING_BOARD, dealer)
    out = run(obj)
    assert out["dealer"]["hand"] == "high_card"
    assert out["dealer"]["qualifies"] is False
    s = out["seats"][0]
    assert s["hand"] == hand
    check(s["wagers"]["ante"], "push", D(0))
    check(s["wagers"]["xtra_bonus"], xtra[0], xtra[1], xtra[2])
    check(s["wagers"]["play"], *play_result)
    assert s["net"] == xtra[1] + play_result[1]


def test_dealer_not_qualifying_tie_pushes_everything():
    obj = make_round(
        [seat(1, ["2s", "3s"], {"ante": 10, "xtra_bonus": 10}, play=2)], ["Ah", "Kc", "9d", "7s", "4h"], ["2c", "3d"]
    )
    out = run(obj)
    assert out["dealer"]["qualifies"] is False
    for k in ("ante", "xtra_bonus", "play"):
        check(out["seats"][0]["wagers"][k], "push", D(0))


def test_tie_with_a_qualifying_dealer_pushes_everything():
    """JHE ch.11 §I(3)(c); suits never break ties (JHE ch.6 §C, R8)."""
    obj = make_round(
        [seat(1, ["Ac", "3d"], {"ante": 10, "xtra_bonus": 10, "player_bonus": 5}, play=3)],
        ["Kh", "Kd", "Qs", "Qh", "Js"],
        ["Ad", "3c"],
    )
    out = run(obj)
    assert out["dealer"]["qualifies"] is True
    s = out["seats"][0]
    assert s["hand"] == out["dealer"]["hand"] == "two_pair"
    for k in ("ante", "xtra_bonus", "play"):
        check(s["wagers"][k], "push", D(0))
    check(s["wagers"]["player_bonus"], "lose", D(-5))
    assert s["net"] == D(-5)


@pytest.mark.parametrize("multiple", [3, 2, 1], ids=["ch.11 §C(1) 3x", "ch.11 §E(1) 2x", "ch.11 §G 1x"])
def test_play_amount_is_the_multiple_of_the_ante(multiple):
    """R11: the Play wager is 3x, 2x or 1x the Ante, paid 1 to 1 (JHE ch.12 §A)."""
    ante = D("12.50")
    out = one_seat("two_pair", {"ante": ante, "xtra_bonus": ante}, play=multiple)
    w = out["seats"][0]["wagers"]
    assert w["play"]["amount"] == ante * multiple
    check(w["play"], "win", ante * multiple)
    assert list(w) == ["ante", "xtra_bonus", "play"]


# -- fold, JHE ch.11 §G, R7 --------------------------------------------------------------


def test_fold_loses_ante_and_xtra_bonus_side_wagers_still_settled():
    """JHE ch.11 §G(2): Ante and X-tra Bonus collected; §G(3)(a), §G(4)(a), R7: Player Bonus and
    Progressive settled on the player's cards (here a flush, which would have beaten the dealer)."""
    player, community, dealer, _ = HANDS["flush"]
    obj = make_round(
        [seat(3, player, {"ante": 10, "xtra_bonus": 10, "player_bonus": 5, "progressive": UNIT}, fold=True)],
        community,
        dealer,
        progressive_letter="C",
    )
    out = run(obj)
    s = out["seats"][0]
    assert s["hand"] == "flush"
    assert list(s["wagers"]) == ["ante", "xtra_bonus", "player_bonus", "progressive"]  # no Play
    check(s["wagers"]["ante"], "lose", D(-10))
    check(s["wagers"]["xtra_bonus"], "lose", D(-10))
    check(s["wagers"]["player_bonus"], "win", D(5) * 7, "flush")  # JHE ch.12 §C(1)(e) 7 to 1
    check(s["wagers"]["progressive"], "win", UNIT * 40 - UNIT, "flush")  # JHE ch.12 §D(4)(f) 40 for 1
    assert s["net"] == D(-20) + D(35) + UNIT * 39


def test_fold_with_progressive_meter_hand():
    """R7, R4: a folded straight flush still takes the meter (JHE ch.12 §D(6)(c): Heart in table E)."""
    player, community, dealer, _ = HANDS["straight_flush"]
    obj = make_round(
        [seat(1, player, {"ante": 25, "xtra_bonus": 25, "progressive": UNIT}, fold=True)],
        community,
        dealer,
        progressive_letter="E",
    )
    out = run(obj)
    w = out["seats"][0]["wagers"]
    check(w["ante"], "lose", D(-25))
    check(w["xtra_bonus"], "lose", D(-25))
    check(w["progressive"], "win", METERS["heart"] - UNIT, "straight_flush")
    assert out["meters"]["heart"] == RESET["E"]["heart"]


def test_fold_without_side_wagers():
    out = one_seat("pair", {"ante": 10, "xtra_bonus": 10}, fold=True)
    s = out["seats"][0]
    assert list(s["wagers"]) == ["ante", "xtra_bonus"]
    assert s["net"] == D(-20)


# -- settlement order and payout limit ---------------------------------------------------


def test_settlement_order_is_from_the_dealers_right():
    """R1, JHE ch.11 §I(2): the highest seat number first, whatever the input order."""
    obj = make_round(
        [
            seat(1, ["Ac", "Ad"], {"ante": 10, "xtra_bonus": 10}, play=1),
            seat(6, ["Kh", "Qh"], {"ante": 10, "xtra_bonus": 10}, fold=True),
            seat(4, ["7c", "7d"], {"ante": 10, "xtra_bonus": 10}, play=2),
        ],
        ["9h", "5s", "4d", "Kc", "2h"],
        ["2s", "Jd"],
    )
    out = run(obj)
    assert [s["seat"] for s in out["seats"]] == [6, 4, 1]


def test_payout_limit_caps_all_but_progressive():
    """R6, JHE ch.12 §F(2): Ante, X-tra Bonus, Play and Player Bonus are capped; Progressive is not."""
    ante = D(100)
    player, community, dealer, _ = HANDS["royal_spades"]
    obj = make_round(
        [seat(2, player, {"ante": ante, "xtra_bonus": ante, "player_bonus": ante, "progressive": UNIT}, play=3)],
        community,
        dealer,
        progressive_letter="A",
        payout_limit=50000,
    )
    out = run(obj)
    s = out["seats"][0]
    covered = ante + ante * 500 + ante * 3 + ante * 100  # JHE ch.12 §A, §B(1)(a) 500 to 1, §C(1)(a) 100 to 1
    progressive = METERS["spade"] - UNIT  # JHE ch.12 §D(2)(b): royal of spades, Spade meter
    check(s["wagers"]["progressive"], "win", progressive, RF_O)
    assert s["limited_by"] == covered - D(50000)
    assert s["net"] == covered + progressive - (covered - D(50000))


def test_payout_limit_not_reached():
    out = run(make_round(
        [seat(2, ["Ah", "7h"], {"ante": 10, "xtra_bonus": 10}, play=3)],
        HANDS["flush"][1], HANDS["flush"][2], payout_limit=50000,
    ))
    s = out["seats"][0]
    assert s["limited_by"] == 0
    assert s["net"] == D(10) + D(10) * 2 + D(30)


def test_no_paytable_letter_needed_for_single_tables():
    """JHE ch.12 §B and §C print one table each: the letters may be left out (settle contract)."""
    obj = make_round([seat(1, ["Ah", "7h"], {"ante": 10, "xtra_bonus": 10, "player_bonus": 5}, play=1)],
                     HANDS["flush"][1], HANDS["flush"][2])
    assert "xtra_bonus" not in obj["paytables"]
    out = run(obj)
    assert out["seats"][0]["wagers"]["xtra_bonus"]["line"] == "flush"
    assert out["meters"] == {}


# -- refusals --------------------------------------------------------------------------

BASE_CARDS = (["Ac", "Ad"], ["9h", "5s", "4d", "Kc", "2h"], ["2s", "Jd"])


def refused(seat_obj=None, **extra):
    player, community, dealer = BASE_CARDS
    if seat_obj is None:
        seat_obj = seat(1, player, {"ante": 10, "xtra_bonus": 10}, play=1)
    obj = make_round([seat_obj], community, dealer, **extra)
    with pytest.raises(RoundError) as e:
        parse_round(obj)
    return e.value


@pytest.mark.parametrize(
    "wagers,decision,field,words",
    [
        ({"ante": 10}, {"play": 1}, "seats[0].wagers.xtra_bonus", "JHE ch.7 §F(1)"),
        ({"ante": 10, "xtra_bonus": 5}, {"play": 1}, "seats[0].wagers.xtra_bonus", "JHE ch.7 §F(1)"),
        ({"xtra_bonus": 10}, {"play": 1}, "seats[0].wagers.ante", "missing"),
        ({"ante": 10, "xtra_bonus": 10, "trips": 5}, {"play": 1}, "seats[0].wagers.trips", "no such wager"),
        ({"ante": 10, "xtra_bonus": 10}, {"play": 1, "fold": True}, "seats[0]", "JHE ch.11 §G"),
        ({"ante": 10, "xtra_bonus": 10}, {}, "seats[0]", "R11"),
        ({"ante": 10, "xtra_bonus": 10}, {"play": 4}, "seats[0].play", "R11"),
        ({"ante": 10, "xtra_bonus": 10}, {"play": 0}, "seats[0].play", "R11"),
        ({"ante": 10, "xtra_bonus": 10}, {"play": "3"}, "seats[0].play", "R11"),
        ({"ante": 10, "xtra_bonus": 10}, {"play": True}, "seats[0].play", "R11"),
        ({"ante": 10, "xtra_bonus": 10}, {"play": D("1.5")}, "seats[0].play", "R11"),
        ({"ante": 10, "xtra_bonus": 10}, {"fold": "yes"}, "seats[0].fold", "true or false"),
        ({"ante": 10, "xtra_bonus": 10}, {"raise": 1}, "seats[0].raise", "unknown field"),
    ],
    ids=[
        "X-tra Bonus missing", "X-tra Bonus unequal", "Ante missing", "UTH wager", "play and fold",
        "no decision", "play 4x", "play 0", "play as text", "play true", "play 1.5", "fold not boolean",
        "HCF raise",
    ],
)
def test_refused_seat(wagers, decision, field, words):
    e = refused(seat(1, BASE_CARDS[0], wagers, **decision))
    assert e.field == field
    assert words in e.message


def test_refused_envy():
    """No Envy Bonus in JHE."""
    player, community, dealer = BASE_CARDS
    obj = make_round([seat(1, player, {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, play=1)],
                     community, dealer, progressive_letter="A")
    obj["progressive"]["envy"] = "A"
    with pytest.raises(RoundError) as e:
        parse_round(obj)
    assert e.value.field == "progressive.envy"


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda o: o["paytables"].update(progressive="F"), "paytables.progressive"),
        (lambda o: o["paytables"].update(xtra_bonus="B"), "paytables.xtra_bonus"),
        (lambda o: o["progressive"]["meters"].pop("club"), "progressive.meters.club"),  # table E pays Club
        (lambda o: o["progressive"]["meters"].update(mega=D(1)), "progressive.meters.mega"),
        (lambda o: o["seats"][0]["wagers"].update(progressive=D(1)), "seats[0].wagers.progressive"),  # R3
        (lambda o: o.pop("progressive"), "progressive"),
        (lambda o: o.update(bonus_cards=["3c", "4c", "5c", "6c"]), "bonus_cards"),
        (lambda o: o.update(community=["9h", "5s", "4d"]), "community"),
        (lambda o: o.update(dealer=["2s", "2h"]), "community"),  # 2h is on the board too (named where it recurs)
        (lambda o: o.update(payout_limit=49999), "payout_limit"),
    ],
    ids=["progressive F", "X-tra Bonus B", "Club meter missing", "UTH meter", "progressive not the unit",
         "no progressive block", "bonus cards", "three community cards", "card twice", "payout limit below $50,000"],
)
def test_refused_round(change, field):
    player, community, dealer = BASE_CARDS
    obj = make_round([seat(1, player, {"ante": 10, "xtra_bonus": 10, "progressive": UNIT}, play=1)],
                     community, dealer, progressive_letter="E")
    change(obj)
    with pytest.raises(RoundError) as e:
        parse_round(obj)
    assert e.value.field == field


def _cli(obj):
    stdout, stderr = io.StringIO(), io.StringIO()
    text = json.dumps(obj, default=str)
    code = main(["settle"], stdin=io.StringIO(text), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def _plain(obj):
    """The round with amounts as JSON numbers (json.dumps cannot write Decimal)."""
    return json.loads(json.dumps(obj, default=lambda d: float(d) if d % 1 else int(d)))


@pytest.mark.parametrize(
    "wagers,decision,field",
    [
        ({"ante": 10, "xtra_bonus": 10}, {"play": 4}, "seats[0].play"),
        ({"ante": 10, "xtra_bonus": 20}, {"play": 1}, "seats[0].wagers.xtra_bonus"),
        ({"ante": 10, "xtra_bonus": 10}, {"play": 2, "fold": True}, "seats[0]"),
    ],
    ids=["play 4x", "X-tra Bonus unequal", "play and fold"],
)
def test_cli_refuses_with_exit_2(wagers, decision, field):
    player, community, dealer = BASE_CARDS
    code, out, err = _cli(_plain(make_round([seat(1, player, wagers, **decision)], community, dealer)))
    assert code == 2
    assert out == ""
    assert err.startswith(f"tablectl settle: {field}:")


def test_cli_settles():
    player, community, dealer, _ = HANDS["straight"]
    obj = _plain(make_round([seat(1, player, {"ante": 10, "xtra_bonus": 10, "player_bonus": 5}, play=2)],
                            community, dealer))
    code, out, err = _cli(obj)
    assert code == 0, err
    data = json.loads(out)
    assert data["game"] == "jackpot_holdem"
    w = data["seats"][0]["wagers"]
    assert w["xtra_bonus"] == {"amount": 10, "result": "win", "net": 10, "line": "straight"}  # JHE ch.12 §B(1)(f)
    assert w["player_bonus"] == {"amount": 5, "result": "win", "net": 20, "line": "straight"}  # JHE ch.12 §C(1)(f)
    assert w["play"] == {"amount": 20, "result": "win", "net": 20}
    assert data["meters"] == {}

"""High Card Flush: hands (HCF ch.6, RULINGS R14, R17-R19) and settlement through the settle contract.

Every expected amount is computed here from the odds and amounts as HCF ch.12
prints them (written out below, each with its clause) and RULINGS R2-R7, R15,
R16, R18a, R24, R24c; none is copied from the engine's output.  The evaluator
is also checked against a brute-force reference written here in the plainest
way (every subset of the seven cards).
"""

from __future__ import annotations

import io
import itertools
import json
import random
from collections import Counter
from decimal import Decimal

import pytest

from controller.cli.main import main
from games.cards import DECK, SUIT_CHARS, parse_cards
from games.contract import parse_round, settle, settlement_json
from games.high_card_flush import dealer_qualifies, flush_hand, lines_made, straight_flush_run
from games.round import RoundError

D = Decimal
UNIT = D(5)  # the table's progressive unit (RULINGS R3)
METER = D("48000.00")  # above every reset amount of HCF ch.12 §E(2)(b)
# HCF ch.12 §E(2)(b): minimum initial and reset amounts, per progressive paytable.
RESET = {"A": D(30000), "B": D(30000), "C": D(5000), "D": D(30000), "E": D(25000)}

# -- the paytables as HCF ch.12 prints them --------------------------------------------------

# HCF ch.12 §B: Flush Bonus, "X to 1" for a seven-, six-, five-, four-card flush: (a), (b), (c), (d).
FLUSH_BONUS = {
    "A": ("1", (300, 100, 10, 1)),
    "B": ("2", (100, 20, 10, 2)),
    "C": ("3", (200, 20, 10, 2)),
    "D": ("4", (300, 75, 5, 2)),
    "E": ("5", (200, 60, 12, 1)),
    "F": ("6", (500, 50, 12, 1)),
    "G": ("7", (400, 60, 12, 1)),
    "H": ("8", (1000, 50, 10, 1)),
    "I": ("9", (150, 20, 10, 2)),
    "J": ("10", (150, 25, 10, 2)),
    "K": ("11", (400, 100, 10, 1)),
    "L": ("12", (300, 80, 11, 1)),
    "M": ("13", (500, 80, 11, 1)),
    "N": ("14", (500, 100, 10, 1)),
    "O": ("8", (250, 100, 10, 1)),  # printed "(8) Paytable O"
}
FLUSH_LINES = ("flush_7", "flush_6", "flush_5", "flush_4")

# HCF ch.12 §C: Straight Flush Bonus, "X to 1", lines (a)..(e) seven- to three-card straight flush.
SF_BONUS = {
    "A": ("1", [("a", "straight_flush_7", 8000), ("b", "straight_flush_6", 1000), ("c", "straight_flush_5", 100),
                ("d", "straight_flush_4", 60), ("e", "straight_flush_3", 7)]),
    "B": ("2", [("a", "straight_flush_7", 500), ("b", "straight_flush_6", 200), ("c", "straight_flush_5", 100),
                ("d", "straight_flush_4", 50), ("e", "straight_flush_3", 9)]),
    "C": ("3", [("a", "straight_flush_7", 500), ("b", "straight_flush_6", 200), ("c", "straight_flush_5", 100),
                ("d", "straight_flush_4", 75), ("e", "straight_flush_3", 7)]),
    "D": ("4", [("a", "straight_flush_7", 1000), ("b", "straight_flush_6", 500), ("c", "straight_flush_5", 100),
                ("d", "straight_flush_4", 75), ("e", "straight_flush_3", 7)]),
    "E": ("5", [("a", "straight_flush_7", 500), ("b", "straight_flush_6", 200), ("c", "straight_flush_5", 100),
                ("d", "straight_flush_4", 60), ("e", "straight_flush_3", 8)]),
    "F": ("6", [("a", "straight_flush_7", 1000), ("b", "straight_flush_6", 500), ("c", "straight_flush_5", 100),
                ("d", "straight_flush_4", 60), ("e", "straight_flush_3", 8)]),
    "G": ("7", [("a", "straight_flush_7", 500), ("b", "straight_flush_6", 200), ("c", "straight_flush_5", 100),
                ("d", "straight_flush_4", 50), ("e", "four_of_a_kind", 25), ("f", "straight_flush_3", 8)]),
}

# HCF ch.12 §E(1): Progressive, ("pct", p) = p% of the meter, ("usd", d) = $d for a $1 wager (R3).
SUITED = "suited_nine_ten_jack_queen_king_ace"
PROGRESSIVE = {
    "A": [("i", "straight_flush_7", ("pct", 100)), ("ii", "straight_flush_6", ("pct", 10)),
          ("iii", "straight_flush_5", ("usd", 250)), ("iv", "straight_flush_4", ("usd", 40)),
          ("v", "straight_flush_3", ("usd", 3))],
    "B": [("i", "straight_flush_7", ("pct", 100)), ("ii", "straight_flush_6", ("pct", 10)),
          ("iii", "straight_flush_5", ("usd", 900)), ("iv", "straight_flush_4", ("usd", 50))],
    "C": [("i", "straight_flush_7", ("pct", 100)), ("ii", "straight_flush_6", ("pct", 100)),
          ("iii", "straight_flush_5", ("usd", 200)), ("iv", "straight_flush_4", ("usd", 40)),
          ("v", "straight_flush_3", ("usd", 3))],
    "D": [("i", "straight_flush_7", ("pct", 100)), ("ii", SUITED, ("pct", 100)),
          ("iii", "straight_flush_6", ("pct", 10)), ("iv", "straight_flush_5", ("usd", 250)),
          ("v", "straight_flush_4", ("usd", 40)), ("vi", "straight_flush_3", ("usd", 3))],
    "E": [("i", "straight_flush_7", ("pct", 100)), ("ii", SUITED, ("pct", 100)),
          ("iii", "straight_flush_6", ("pct", 10)), ("iv", "straight_flush_5", ("usd", 800)),
          ("v", "straight_flush_4", ("usd", 50))],
}
PROGRESSIVE_CLAUSE = {"A": "a", "B": "b", "C": "c", "D": "d", "E": "e"}

# HCF ch.12 §E(5): Envy Bonus for a $1 Progressive wager (only C, D, E: RULINGS R18a).
ENVY = {
    "C": ("a", [("i", "straight_flush_7", 200), ("ii", "straight_flush_6", 200)]),
    "D": ("b", [("i", "straight_flush_7", 250)]),
    "E": ("c", [("i", "straight_flush_7", 250)]),
}

# -- hands that make exactly one line -----------------------------------------------------

FLUSH_HANDS = {
    "flush_7": "2h 4h 6h 8h Th Qh Ah",
    "flush_6": "2h 4h 6h 8h Th Qh Ac",
    "flush_5": "2h 4h 6h 8h Th Qc Ac",
    "flush_4": "2h 4h 6h 8h Tc Qc Ad",
}
NOTHING = "2h 4h 6h 8c Tc Qd Ad"  # a three-card flush, no three-card straight flush, no four of a kind
SF_HANDS = {
    "straight_flush_7": "3h 4h 5h 6h 7h 8h 9h",
    "straight_flush_6": "3h 4h 5h 6h 7h 8h Kc",
    "straight_flush_5": "3h 4h 5h 6h 7h Kc 9s",
    "straight_flush_4": "3h 4h 5h 6h Kc 9s Jd",
    "straight_flush_3": "3h 4h 5h Kc 9s Jd 7c",
    "four_of_a_kind": "7c 7d 7h 7s 2h 9c Ks",
    SUITED: "9h Th Jh Qh Kh Ah 2c",
}
OTHER = "3c 5c 6d 8d Ts Qs Ad"  # a neighbour's plain hand: two-card flushes, no run of three

# -- round building -----------------------------------------------------------------------------


def split(text):
    return text.split()


def seat(number, cards, wagers, **decision):
    if not decision:
        decision = {"raise": 1}
    return {"seat": number, "cards": split(cards) if isinstance(cards, str) else cards, "wagers": wagers, **decision}


def make_round(seats, *, dealer=None, paytables=None, progressive=None, envy=None, meter=METER, unit=UNIT,
               requires=None, payout_limit=None):
    used = {c for s in seats for c in s["cards"]}
    if dealer is None:  # any seven cards left, clubs and diamonds first: the dealer does not matter here
        order = [c.text for c in sorted(DECK, key=lambda c: ("cdhs".index(c.suit), c.rank))]
        dealer = [c for c in order if c not in used][:7]
    elif isinstance(dealer, str):
        dealer = split(dealer)
    obj = {"game": "high_card_flush", "paytables": dict(paytables or {}), "dealer": dealer, "seats": seats}
    if progressive is not None:
        obj["paytables"]["progressive"] = progressive
        block = {"unit": unit, "meters": {"meter": meter}, "reset": {"meter": RESET[progressive]}}
        if envy is not None:
            block["envy"] = envy
        if requires is not None:
            block["envy_requires_progressive_wager"] = requires
        obj["progressive"] = block
    if payout_limit is not None:
        obj["payout_limit"] = payout_limit
    return obj


def run(obj):
    return settlement_json(settle(obj))


def seat_out(out, number):
    return next(s for s in out["seats"] if s["seat"] == number)


def check(entry, result, net, line=None):
    assert entry["result"] == result, entry
    assert entry["net"] == net, entry
    if line is None:
        assert "line" not in entry
    else:
        assert entry["line"] == line


# =============================================================================================
# 1. Every line of every paytable, through the contract
# =============================================================================================

FLUSH_CASES = [
    pytest.param(letter, key, odds, id=f"HCF ch.12 §B({n})({'abcd'[i]}) {letter} {key}")
    for letter, (n, row) in FLUSH_BONUS.items()
    for i, (key, odds) in enumerate(zip(FLUSH_LINES, row, strict=True))
]


@pytest.mark.parametrize("letter, key, odds", FLUSH_CASES)
def test_flush_bonus_every_line(letter, key, odds):
    wager = D("12.50")
    out = run(make_round([seat(2, FLUSH_HANDS[key], {"ante": 10, "flush_bonus": wager})],
                         paytables={"flush_bonus": letter}))
    # "X to 1": net +X times the wager (RULINGS R2)
    check(seat_out(out, 2)["wagers"]["flush_bonus"], "win", wager * odds, key)


@pytest.mark.parametrize("letter", sorted(FLUSH_BONUS), ids=lambda x: f"HCF ch.7 §F(2) {x} three-card flush loses")
def test_flush_bonus_below_four_card_flush_loses(letter):
    out = run(make_round([seat(2, NOTHING, {"ante": 10, "flush_bonus": 5})], paytables={"flush_bonus": letter}))
    check(seat_out(out, 2)["wagers"]["flush_bonus"], "lose", D(-5))


SF_CASES = [
    pytest.param(letter, key, odds, id=f"HCF ch.12 §C({n})({label}) {letter} {key}")
    for letter, (n, rows) in SF_BONUS.items()
    for label, key, odds in rows
]


@pytest.mark.parametrize("letter, key, odds", SF_CASES)
def test_straight_flush_bonus_every_line(letter, key, odds):
    wager = D(3)
    out = run(make_round([seat(4, SF_HANDS[key], {"ante": 10, "straight_flush_bonus": wager})],
                         paytables={"straight_flush_bonus": letter}))
    check(seat_out(out, 4)["wagers"]["straight_flush_bonus"], "win", wager * odds, key)


@pytest.mark.parametrize("letter", sorted(SF_BONUS), ids=lambda x: f"HCF ch.7 §F(3) {x} no straight flush loses")
def test_straight_flush_bonus_nothing_loses(letter):
    out = run(make_round([seat(4, NOTHING, {"ante": 10, "straight_flush_bonus": 5})],
                         paytables={"straight_flush_bonus": letter}))
    check(seat_out(out, 4)["wagers"]["straight_flush_bonus"], "lose", D(-5))


@pytest.mark.parametrize("letter", "ABCDEF", ids=lambda x: f"RULINGS R19 four of a kind only on G, not {x}")
def test_four_of_a_kind_loses_off_paytable_g(letter):
    out = run(make_round([seat(4, SF_HANDS["four_of_a_kind"], {"ante": 10, "straight_flush_bonus": 5})],
                         paytables={"straight_flush_bonus": letter}))
    check(seat_out(out, 4)["wagers"]["straight_flush_bonus"], "lose", D(-5))


PROGRESSIVE_CASES = [
    pytest.param(letter, key, pays, id=f"HCF ch.12 §E(1)({PROGRESSIVE_CLAUSE[letter]})({label}) {letter} {key}")
    for letter, rows in PROGRESSIVE.items()
    for label, key, pays in rows
]


def progressive_expected(pays, meter=METER, unit=UNIT):
    """(net, meter after): RULINGS R3 (fixed $ scale with the unit) and R4 (percent of the meter)."""
    kind, x = pays
    if kind == "usd":
        return D(x) * unit - unit, meter
    paid = (meter * D(x) / 100).quantize(D("0.01"))
    return paid - unit, meter - paid


@pytest.mark.parametrize("letter, key, pays", PROGRESSIVE_CASES)
def test_progressive_every_line(letter, key, pays):
    out = run(make_round([seat(3, SF_HANDS[key], {"ante": 10, "progressive": UNIT})], progressive=letter))
    net, meter_after = progressive_expected(pays)
    check(seat_out(out, 3)["wagers"]["progressive"], "win", net, key)
    assert out["meters"] == {"meter": max(meter_after, RESET[letter])}


@pytest.mark.parametrize("letter", "ABCDE", ids=lambda x: f"HCF ch.7 §F(4) {x} no straight flush loses")
def test_progressive_nothing_loses(letter):
    out = run(make_round([seat(3, NOTHING, {"ante": 10, "progressive": UNIT})], progressive=letter))
    check(seat_out(out, 3)["wagers"]["progressive"], "lose", -UNIT)
    assert out["meters"] == {"meter": METER}


@pytest.mark.parametrize("letter", "BE", ids=lambda x: f"HCF ch.12 §E(1)({x.lower()}) prints no three-card line")
def test_progressive_three_card_straight_flush_loses_on_b_and_e(letter):
    out = run(
        make_round([seat(3, SF_HANDS["straight_flush_3"], {"ante": 10, "progressive": UNIT})], progressive=letter)
    )
    check(seat_out(out, 3)["wagers"]["progressive"], "lose", -UNIT)


ENVY_CASES = [
    pytest.param(letter, key, dollars, id=f"HCF ch.12 §E(5)({sub})({label}) Envy {letter} {key}")
    for letter, (sub, rows) in ENVY.items()
    for label, key, dollars in rows
]


@pytest.mark.parametrize("letter, key, dollars", ENVY_CASES)
def test_envy_every_line(letter, key, dollars):
    seats = [seat(2, SF_HANDS[key], {"ante": 10, "progressive": UNIT}),
             seat(5, OTHER, {"ante": 10, "progressive": UNIT})]
    out = run(make_round(seats, progressive=letter, envy=letter))
    # R3: the amount for a $1 wager times the unit; R18a: only for another seat's hand
    assert seat_out(out, 5)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": D(dollars) * UNIT,
                                                  "from_seats": [2]}
    assert "envy" not in seat_out(out, 2)["wagers"]


@pytest.mark.parametrize(
    "letter, key",
    [("C", "straight_flush_5"), ("D", "straight_flush_6"), ("E", "straight_flush_6"), ("D", SUITED), ("E", SUITED)],
    ids=lambda x: str(x),
)
def test_envy_hand_not_listed_pays_nothing(letter, key):
    """HCF ch.12 §E(5): a hand the chosen Envy table does not list qualifies for nothing (R18a)."""
    seats = [seat(2, SF_HANDS[key], {"ante": 10, "progressive": UNIT}),
             seat(5, OTHER, {"ante": 10, "progressive": UNIT})]
    out = run(make_round(seats, progressive=letter, envy=letter))
    assert "envy" not in seat_out(out, 5)["wagers"]


def test_envy_c_suited_nine_to_ace_is_a_six_card_straight_flush():
    """RULINGS R18: 9-A suited is a six-card straight flush, listed by Envy C (HCF ch.12 §E(5)(a)(ii))."""
    seats = [seat(2, SF_HANDS[SUITED], {"ante": 10, "progressive": 1}), seat(5, OTHER, {"ante": 10, "progressive": 1})]
    out = run(make_round(seats, progressive="C", envy="C", unit=D(1)))
    assert seat_out(out, 5)["wagers"]["envy"]["net"] == D(200)


# =============================================================================================
# 2. The evaluator: HCF ch.6, RULINGS R14, R17-R19
# =============================================================================================


def hand(text):
    return flush_hand(parse_cards(split(text)))


def test_r14_equal_length_suits_higher_cards_form_the_hand():
    # clubs A-3-2 against hearts K-Q-J: the ace decides, highest first (R14)
    assert [c.text for c in hand("Ac 3c 2c Kh Qh Jh 4d").cards] == ["Ac", "3c", "2c"]
    # clubs K-9-2 against hearts K-Q-3: kings equal, the queen decides
    assert [c.text for c in hand("Kc 9c 2c Kh Qh 3h 4d").cards] == ["Kh", "Qh", "3h"]
    # a two-card flush hand: the two of hearts J-4 beat diamonds 9-3 and clubs 7-2
    h = hand("2c 3d 4h 5s 7c 9d Jh")
    assert h.name == "flush_2" and [c.text for c in h.cards] == ["Jh", "4h"]


def test_ch6_c_length_ranks_first():
    """HCF ch.6 §C: a longer flush beats a shorter one whatever the cards (R14)."""
    assert hand("4c 3c 2c 5d 6h 7s 9d").value > hand("Ah Kh 2c 5d Qs 7c 9d").value
    assert hand("2s 3s 4s 6s 8s 5d 7c").value > hand("Ah Kh Qh Jh 2c 5d 9s").value


def test_ch6_d_equal_length_highest_card_not_held_by_the_other():
    assert hand("Kh Qh 3h 2c 5d 7s 9d").value > hand("Ks Js Ts 2d 5c 7h 9c").value  # Q > J
    assert hand("Kh Qh 4h 2c 5d 7s 9d").value > hand("Ks Qs 3s 2d 5c 7h 9c").value  # 4 > 3
    # HCF ch.6 §D(2): the same ranks in other suits tie; suits never rank (HCF ch.6 §B)
    assert hand("Kh Qh 4h 2c 5d 7s 9d").value == hand("Ks Qs 4s 2d 5c 7h 9c").value


@pytest.mark.parametrize(
    "cards, length, shown",
    [
        ("Qh Kh Ah 2c 4d 6s 8c", 3, "Ah Kh Qh"),  # R17: ace high
        ("Ah 2h 3h 9c Jd Ks 5c", 3, "3h 2h Ah"),  # R17: ace low
        ("Kh Ah 2h 9c Jd 5s 7c", 2, None),  # R17: never around the corner
        ("Jh Qh Kh Ah 2h 3h 5c", 4, "Ah Kh Qh Jh"),  # J-Q-K-A and A-2-3 do not join
        ("Ah 2h 3h 4h 5h 6h 7h", 7, "7h 6h 5h 4h 3h 2h Ah"),
        ("8h 9h Th Jh Qh Kh Ah", 7, "Ah Kh Qh Jh Th 9h 8h"),
        ("2h 3h 4h 6c 7c 8c 9c", 4, "9c 8c 7c 6c"),  # the longest run of any suit, not the flush suit's
        ("2h 3h 4h 9c Tc Jc 5d", 3, "Jc Tc 9c"),  # equal runs: the higher one is shown
        ("2c 3c 4c 9s Ts Js 5d", 3, "Js Ts 9s"),
        ("2h 3h 4h 9h Th Jh 5c", 3, "Jh Th 9h"),  # two runs in one suit
    ],
    ids=lambda x: str(x),
)
def test_r17_straight_flush_runs(cards, length, shown):
    run_ = straight_flush_run(parse_cards(split(cards)))
    assert run_.length == length
    if shown:
        assert [c.text for c in run_.cards] == split(shown)
    made = lines_made(parse_cards(split(cards)))["straight_flush_bonus"]
    assert ("straight_flush_3" in made) == (length >= 3)
    assert f"straight_flush_{length + 1}" not in made


def test_longer_run_makes_every_shorter_length_and_the_highest_is_paid():
    """HCF ch.6 §E: a five-card run holds runs of four and three; R5 pays only the highest line."""
    made = lines_made(parse_cards(split(SF_HANDS["straight_flush_5"])))
    assert made["straight_flush_bonus"] == {"straight_flush_5", "straight_flush_4", "straight_flush_3"}
    assert made["flush_bonus"] == {"flush_5", "flush_4"}
    # on Progressive B (no three-card line) the five-card line is paid, $900 not $50 (HCF ch.12 §E(1)(b)(iii))
    out = run(make_round([seat(3, SF_HANDS["straight_flush_5"], {"ante": 10, "progressive": 1})],
                         progressive="B", unit=D(1)))
    check(seat_out(out, 3)["wagers"]["progressive"], "win", D(899), "straight_flush_5")


@pytest.mark.parametrize(
    "letter, cards, line, pays",
    [
        ("D", "9h Th Jh Qh Kh Ah 2c", SUITED, ("pct", 100)),  # HCF ch.12 §E(1)(d)(ii), above the six-card line
        ("E", "9h Th Jh Qh Kh Ah 2c", SUITED, ("pct", 100)),  # HCF ch.12 §E(1)(e)(ii)
        ("D", "8h 9h Th Jh Qh Kh Ah", "straight_flush_7", ("pct", 100)),  # the seven-card run is higher still
        ("D", "8h 9h Th Jh Qh Kh 2c", "straight_flush_6", ("pct", 10)),  # another six-card run: (iii)
        ("A", "9h Th Jh Qh Kh Ah 2c", "straight_flush_6", ("pct", 10)),  # no suited line on A: six-card (ii)
        ("C", "9h Th Jh Qh Kh Ah 2c", "straight_flush_6", ("pct", 100)),  # C (ii)
    ],
    ids=lambda x: str(x),
)
def test_r18_suited_nine_to_ace_ordering(letter, cards, line, pays):
    out = run(make_round([seat(3, cards, {"ante": 10, "progressive": UNIT})], progressive=letter))
    check(seat_out(out, 3)["wagers"]["progressive"], "win", progressive_expected(pays)[0], line)


@pytest.mark.parametrize(
    "cards, line, odds",
    [
        ("7c 7d 7h 7s 8h 9h Th", "straight_flush_4", 50),  # HCF ch.12 §C(7)(d) above four of a kind (e)
        ("7c 7d 7s 7h 8h 9h 2c", "four_of_a_kind", 25),  # (e) above the three-card line (f)
    ],
    ids=["R19 four-card run beats quads", "R19 quads beat three-card run"],
)
def test_r19_paytable_g_order(cards, line, odds):
    out = run(
        make_round([seat(4, cards, {"ante": 10, "straight_flush_bonus": 2})], paytables={"straight_flush_bonus": "G"})
    )
    check(seat_out(out, 4)["wagers"]["straight_flush_bonus"], "win", D(2) * odds, line)


@pytest.mark.parametrize("letter", "ABCDEFG", ids=lambda x: f"R19 three of a kind is no four of a kind, {x}")
def test_three_of_a_kind_pays_no_straight_flush_bonus(letter):
    out = run(make_round([seat(4, "7c 7d 7h 2s 9c Ks 4d", {"ante": 10, "straight_flush_bonus": 2})],
                         paytables={"straight_flush_bonus": letter}))
    check(seat_out(out, 4)["wagers"]["straight_flush_bonus"], "lose", D(-2))


# -- brute-force reference: every subset of the seven cards ---------------------------------


def _one_suit(sub):
    return len({c.suit for c in sub}) == 1


def _consecutive(ranks):
    r = sorted(ranks)
    return all(b == a + 1 for a, b in itertools.pairwise(r))


def ref_flush(cards):
    """The flush cards by brute force: the biggest one-suit subsets, the one with the higher ranks (R14)."""
    for k in range(len(cards), 0, -1):
        subs = [sub for sub in itertools.combinations(cards, k) if _one_suit(sub)]
        if subs:
            return max(sorted((c.rank for c in sub), reverse=True) for sub in subs)
    raise AssertionError


def ref_run_length(cards):
    """The longest straight flush by brute force: a one-suit subset of consecutive ranks, ace as 14 or 1 (R17)."""
    for k in range(len(cards), 0, -1):
        for sub in itertools.combinations(cards, k):
            ranks = [c.rank for c in sub]
            if _one_suit(sub) and (_consecutive(ranks) or _consecutive([1 if r == 14 else r for r in ranks])):
                return k
    raise AssertionError


def ref_compare(a, b):
    """HCF ch.6 §C then §D(1) literally: longer flush wins; else the highest card one holds and the other does not."""
    fa, fb = ref_flush(a), ref_flush(b)
    if len(fa) != len(fb):
        return 1 if len(fa) > len(fb) else -1
    ca, cb = Counter(fa), Counter(fb)
    top_a, top_b = max(ca - cb, default=0), max(cb - ca, default=0)
    return (top_a > top_b) - (top_a < top_b)


def _random_hands(n, seed):
    rng = random.Random(seed)
    hands = []
    for i in range(n):
        # one in three from the whole deck; the rest from one or two suits, so long flushes and runs are common
        suits = SUIT_CHARS if i % 3 == 0 else rng.sample(SUIT_CHARS, 1 + i % 2)
        pool = [c for c in DECK if c.suit in suits]
        hands.append(rng.sample(pool, 7))
    return hands


def test_flush_and_run_match_brute_force_on_random_hands():
    hands = _random_hands(1500, 20260101)
    lengths = Counter()
    for cards in hands:
        ours = flush_hand(cards)
        ref = ref_flush(cards)
        assert list(ours.ranks) == ref, cards
        assert len({c.suit for c in ours.cards}) == 1 and set(ours.cards) <= set(cards)
        run_ = straight_flush_run(cards)
        assert run_.length == ref_run_length(cards), cards
        lengths[run_.length] += 1
        # R15 from its words: four or more, or a three-card flush with a 9 or better in some three-card suit
        suits = Counter(c.suit for c in cards)
        ref_q = max(suits.values()) >= 4 or (
            max(suits.values()) == 3
            and any(n == 3 and max(c.rank for c in cards if c.suit == s) >= 9 for s, n in suits.items())
        )
        assert dealer_qualifies(ours) == ref_q, cards
    assert all(lengths[k] > 0 for k in range(2, 8)), lengths  # every run length was exercised


def test_hand_order_matches_ch6_d_literal_reading():
    hands = _random_hands(1200, 7)
    for a, b in zip(hands[::2], hands[1::2], strict=True):
        va, vb = flush_hand(a).value, flush_hand(b).value
        assert (va > vb) - (va < vb) == ref_compare(a, b), (a, b)


# =============================================================================================
# 3. Main game: HCF ch.11 §B, HCF ch.12 §A, RULINGS R7, R15, R16
# =============================================================================================

DEALER_4_KING = "Kc Jc 9c 5c 4d Td 6s"  # four-card flush, king high: qualifies (R15)
DEALER_4_ACE = "Ac Jc 9c 5c 4d Td Qd"  # four-card flush, ace high: qualifies (R15)


@pytest.mark.parametrize(
    "dealer, shown",
    [
        ("8c 5c 2c 7d 4d 6h 3s", "8c 5c 2c"),  # three-card flush eight high
        ("8c 2c 9d 3d Th 4h Js", "Th 4h"),  # only two-card flushes
    ],
    ids=["R15 three-card eight high", "R15 two-card flush"],
)
@pytest.mark.parametrize("cards, multiple", [("Ah Kh Qh Jh 9h 2d 4s", 2), ("As 2d 7h 9s Qd Kc Jh", 1)],
                         ids=["five-card flush raise 2", "two-card flush raise 1"])
def test_dealer_not_qualifying_pays_ante_returns_raise(dealer, shown, cards, multiple):
    """HCF ch.11 §B(5)(c): the Ante is paid 1 to 1 (HCF ch.12 §A), the Raise returned; whatever the player holds."""
    out = run(make_round([seat(1, cards, {"ante": D("12.35")}, **{"raise": multiple})], dealer=dealer))
    assert out["dealer"] == {"hand": f"flush_{len(split(shown))}", "cards": split(shown), "qualifies": False}
    s = seat_out(out, 1)
    check(s["wagers"]["ante"], "win", D("12.35"))
    check(s["wagers"]["raise"], "push", D(0))
    assert s["wagers"]["raise"]["amount"] == D("12.35") * multiple
    assert s["net"] == D("12.35")


def test_dealer_three_card_nine_high_qualifies():
    """R15: exactly a three-card flush nine high qualifies; the player's eight-high three-card flush loses."""
    out = run(make_round([seat(1, "8h 7h 2h 3s 4s Tc Qd", {"ante": 10})], dealer="9c 5c 2c 7d 4d 6h 5s"))
    assert out["dealer"]["qualifies"] is True and out["dealer"]["cards"] == ["9c", "5c", "2c"]
    s = seat_out(out, 1)
    check(s["wagers"]["ante"], "lose", D(-10))
    check(s["wagers"]["raise"], "lose", D(-10))


def test_r14_dealer_chooses_the_higher_of_two_three_card_flushes_and_qualifies():
    # clubs 8-5-2 and diamonds 9-4-3: the diamonds form the hand (R14), nine high qualifies (R15)
    out = run(make_round([seat(1, "Ah Kh 2h 3s 4s Tc Qs", {"ante": 10})], dealer="8c 5c 2c 9d 4d 3d 6h"))
    assert out["dealer"] == {"hand": "flush_3", "cards": ["9d", "4d", "3d"], "qualifies": True}
    check(seat_out(out, 1)["wagers"]["ante"], "win", D(10))  # A-K-2 beats 9-4-3 (HCF ch.6 §D(1))


def test_any_four_card_flush_qualifies():
    """R15: a four-card flush five high qualifies and beats any three-card flush (HCF ch.6 §C)."""
    out = run(make_round([seat(1, "Ah Kh Qh 9s 8d Tc Js", {"ante": 10})], dealer="5c 4c 3c 2c 7d 6h 8s"))
    assert out["dealer"]["qualifies"] is True and out["dealer"]["hand"] == "flush_4"
    check(seat_out(out, 1)["wagers"]["ante"], "lose", D(-10))
    check(seat_out(out, 1)["wagers"]["raise"], "lose", D(-10))


@pytest.mark.parametrize(
    "cards, multiple, result",
    [
        ("Ah Qh 8h 7h 2h 3s 5d", 2, "win"),  # five-card flush beats four (HCF ch.6 §C)
        ("Kh Jh 9h 6h 2s 7d 8d", 1, "win"),  # K-J-9-6 beats K-J-9-5 (HCF ch.6 §D(1))
        ("Kh Jh 9h 4h 2s 7d 8d", 1, "lose"),  # K-J-9-4 loses
        ("Ks Js 9s 5s 2d 7h 8d", 1, "push"),  # K-J-9-5 ties (HCF ch.6 §D(2)): Ante and Raise returned (§B(5)(d)(iii))
        ("Ah Kh Qh 2s 7d 8d 3d", 1, "lose"),  # three cards lose to four
        ("Ah Kh Qh Jh Th 2h 3d", 3, "win"),  # six-card flush raise 3
    ],
    ids=["5 over 4", "higher 4", "lower 4", "equal 4", "3 under 4", "6 raise 3"],
)
def test_dealer_qualifies_compare(cards, multiple, result):
    """HCF ch.11 §B(5)(d), HCF ch.12 §A: Ante and Raise win 1 to 1, lose, or push together."""
    ante = D(25)
    out = run(make_round([seat(6, cards, {"ante": ante}, **{"raise": multiple})], dealer=DEALER_4_KING))
    assert out["dealer"] == {"hand": "flush_4", "cards": ["Kc", "Jc", "9c", "5c"], "qualifies": True}
    s = seat_out(out, 6)
    sign = {"win": 1, "lose": -1, "push": 0}[result]
    check(s["wagers"]["ante"], result, sign * ante)
    check(s["wagers"]["raise"], result, sign * ante * multiple)
    assert s["wagers"]["raise"]["amount"] == ante * multiple
    assert s["net"] == sign * ante * (1 + multiple)
    assert s["hand"] == f"flush_{len([c for c in split(cards) if c[1] == s['cards'][0][1]])}"


def test_seat_hand_and_cards_best_first():
    out = run(make_round([seat(1, "2h Th 5h 8s 9d Kd 3s", {"ante": 10})], dealer=DEALER_4_KING))
    s = seat_out(out, 1)
    assert s["hand"] == "flush_3" and s["cards"] == ["Th", "5h", "2h"]


def test_r7_fold_loses_ante_side_wagers_still_settled():
    """R7, HCF ch.11 §B: a fold forfeits the Ante; no Raise; side wagers settled on the seven cards."""
    cards = "3h 4h 5h 6h 7h 8h Kc"  # a six-card straight flush, folded anyway
    wagers = {"ante": 10, "flush_bonus": 5, "straight_flush_bonus": 2, "progressive": UNIT}
    out = run(make_round([seat(3, cards, wagers, fold=True)], dealer="8c 5c 2c 7d 4d 6s 3s",
                         paytables={"flush_bonus": "A", "straight_flush_bonus": "A"}, progressive="A"))
    s = seat_out(out, 3)
    assert set(s["wagers"]) == {"ante", "flush_bonus", "straight_flush_bonus", "progressive"}
    check(s["wagers"]["ante"], "lose", D(-10))  # even though the dealer does not qualify
    check(s["wagers"]["flush_bonus"], "win", D(5) * 100, "flush_6")  # HCF ch.12 §B(1)(b)
    check(s["wagers"]["straight_flush_bonus"], "win", D(2) * 1000, "straight_flush_6")  # HCF ch.12 §C(1)(b)
    check(s["wagers"]["progressive"], "win", METER / 10 - UNIT, "straight_flush_6")  # HCF ch.12 §E(1)(a)(ii)
    assert s["hand"] == "flush_6" and s["cards"] == split("8h 7h 6h 5h 4h 3h")
    assert s["net"] == D(-10) + 500 + 2000 + METER / 10 - UNIT


@pytest.mark.parametrize(
    "cards, multiple, legal",
    [
        ("As 2d 7h 9s Qd Kc Jh", 1, True),  # two-card flush: exactly 1x (HCF ch.11 §B(1))
        ("As 2d 7h 9s Qd Kc Jh", 2, False),
        ("Ah Kh 2h 9s Qd 3c Jd", 1, True),  # three-card flush
        ("Ah Kh 2h 9s Qd 3c Jd", 2, False),
        ("Ah Kh 2h 9h Qd 3c Jd", 2, False),  # four-card flush: still only 1x
        ("Ah Kh 2h 9h Qh 3c Jd", 2, True),  # five-card flush: 1x or 2x (§B(2))
        ("Ah Kh 2h 9h Qh 3c Jd", 3, False),
        ("Ah Kh 2h 9h Qh 3h Jd", 3, True),  # six-card flush: up to 3x (§B(3))
        ("Ah Kh 2h 9h Qh 3h Jh", 3, True),  # seven-card flush
        ("Ah Kh 2h 9h Qh 3h Jh", 1, True),
    ],
    ids=lambda x: str(x),
)
def test_r16_raise_limits(cards, multiple, legal):
    obj = make_round([seat(2, cards, {"ante": 10}, **{"raise": multiple})], dealer="Tc Jc 9c 5c 4d 8d 6s")
    if legal:
        s = seat_out(run(obj), 2)
        assert s["wagers"]["raise"]["amount"] == 10 * multiple
    else:
        with pytest.raises(RoundError) as e:
            parse_round(obj)
        assert e.value.field == "seats[0].raise"
        assert "R16" in str(e.value) and "ch.11 §B" in str(e.value)


# =============================================================================================
# 4. Payout limit (R6), progressive meters (R3, R4), Envy (R18a, R24, R24c)
# =============================================================================================


def test_r6_payout_limit_caps_covered_wagers_not_progressive_or_envy():
    big = seat(6, "3h 4h 5h 6h 7h 8h Kc", {"ante": 1000, "flush_bonus": 1000, "progressive": UNIT}, **{"raise": 3})
    qualifier = seat(2, "2s 3s 4s 5s 6s 7s 8s", {"ante": 10, "progressive": UNIT})
    obj = make_round([big, qualifier], dealer=DEALER_4_ACE, paytables={"flush_bonus": "A"},
                     progressive="C", envy="C", payout_limit=50000)
    s = seat_out(run(obj), 6)
    check(s["wagers"]["ante"], "win", D(1000))
    check(s["wagers"]["raise"], "win", D(3000))
    check(s["wagers"]["flush_bonus"], "win", D(1000) * 100, "flush_6")  # HCF ch.12 §B(1)(b)
    # progressive C: six-card straight flush 100% of the meter (HCF ch.12 §E(1)(c)(ii)); envy C $200 x unit
    assert s["wagers"]["progressive"]["net"] == METER - UNIT
    assert s["wagers"]["envy"]["net"] == 200 * UNIT
    covered = D(1000) + 3000 + 100000
    assert s["limited_by"] == covered - 50000
    assert s["net"] == covered + (METER - UNIT) + 200 * UNIT - (covered - 50000)


def test_r6_limit_not_reached_or_absent():
    one = seat(6, "3h 4h 5h 6h 7h 8h Kc", {"ante": 1000, "flush_bonus": 100}, **{"raise": 3})
    for limit in (None, 1000000):
        s = seat_out(run(make_round([one], dealer=DEALER_4_ACE, paytables={"flush_bonus": "A"},
                                    payout_limit=limit)), 6)
        assert s["limited_by"] == 0 and s["net"] == D(1000) + 3000 + 100 * 100


def test_r4_two_winners_of_one_meter_paid_in_settlement_order():
    """R1, R4, HCF ch.12 §E(3): seat 5 first (counterclockwise), seat 2 from the meter seat 5 left;
    10% rounds half up."""
    meter = D("123456.78")
    seats = [seat(2, "3s 4s 5s 6s 7s 8s Kd", {"ante": 10, "progressive": UNIT}),
             seat(5, "3h 4h 5h 6h 7h 8h Kc", {"ante": 10, "progressive": UNIT})]
    out = run(make_round(seats, progressive="A", meter=meter))
    assert [s["seat"] for s in out["seats"]] == [5, 2]
    first = D("12345.68")  # 10% of 123,456.78 = 12,345.678 -> half up
    second = D("11111.11")  # 10% of 111,111.10 = 11,111.11
    check(seat_out(out, 5)["wagers"]["progressive"], "win", first - UNIT, "straight_flush_6")
    check(seat_out(out, 2)["wagers"]["progressive"], "win", second - UNIT, "straight_flush_6")
    assert out["meters"] == {"meter": meter - first - second}


def test_r4_second_hundred_percent_winner_paid_from_the_reset():
    seats = [seat(1, "2s 3s 4s 5s 6s 7s 8s", {"ante": 10, "progressive": UNIT}),
             seat(4, "2h 3h 4h 5h 6h 7h 8h", {"ante": 10, "progressive": UNIT})]
    out = run(make_round(seats, progressive="A", meter=D("41000.10")))
    check(seat_out(out, 4)["wagers"]["progressive"], "win", D("41000.10") - UNIT, "straight_flush_7")
    # the meter never falls below its reset (R4): the second winner gets 100% of $30,000
    check(seat_out(out, 1)["wagers"]["progressive"], "win", RESET["A"] - UNIT, "straight_flush_7")
    assert out["meters"] == {"meter": RESET["A"]}


def test_r18a_envy_from_several_seats_never_own_hand():
    seats = [seat(1, "2s 3s 4s 5s 6s 7s 8s", {"ante": 10, "progressive": 1}),
             seat(3, "2h 3h 4h 5h 6h 7h 8h", {"ante": 10, "progressive": 1}),
             seat(6, "9s Ts Js 9h Th Jh Qd", {"ante": 10, "progressive": 1})]
    out = run(make_round(seats, progressive="D", envy="D", unit=D(1)))
    # HCF ch.12 §E(5)(b)(i): $250 per other seat's seven-card straight flush; HCF ch.11 §B(9)(e)(ii)-(iii)
    assert seat_out(out, 6)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": D(500), "from_seats": [1, 3]}
    assert seat_out(out, 1)["wagers"]["envy"]["from_seats"] == [3]
    assert seat_out(out, 3)["wagers"]["envy"]["from_seats"] == [1]
    assert seat_out(out, 1)["wagers"]["envy"]["net"] == D(250)


def test_envy_needs_the_receivers_progressive_wager_and_the_envy_table():
    seats = [seat(1, "2s 3s 4s 5s 6s 7s 8s", {"ante": 10, "progressive": 1}),
             seat(6, OTHER, {"ante": 10, "flush_bonus": 5})]
    out = run(make_round(seats, progressive="C", envy="C", unit=D(1), paytables={"flush_bonus": "A"}))
    assert "envy" not in seat_out(out, 6)["wagers"]  # HCF ch.11 §B(9)(e)(i): only a player with a Progressive wager
    seats[1]["wagers"]["progressive"] = 1
    out = run(make_round(seats, progressive="C", unit=D(1), paytables={"flush_bonus": "A"}))  # no envy table
    assert "envy" not in seat_out(out, 6)["wagers"]


@pytest.mark.parametrize("requires, paid", [(True, False), (False, True)], ids=["option yes (default)", "option no"])
def test_r24_option_qualifying_seat_without_progressive(requires, paid):
    seats = [seat(1, "2s 3s 4s 5s 6s 7s 8s", {"ante": 10}), seat(6, OTHER, {"ante": 10, "progressive": 1})]
    out = run(make_round(seats, progressive="E", envy="E", unit=D(1), requires=requires))
    if paid:
        assert seat_out(out, 6)["wagers"]["envy"]["net"] == D(250)  # HCF ch.12 §E(5)(c)(i)
    else:
        assert "envy" not in seat_out(out, 6)["wagers"]


@pytest.mark.parametrize(
    "wagers, paid",
    [
        ({"ante": 10}, False),  # cards collected at the fold (HCF ch.11 §B(4)(a))
        ({"ante": 10, "flush_bonus": 5}, True),  # kept on the layout for the Flush Bonus
        ({"ante": 10, "straight_flush_bonus": 5}, True),
        ({"ante": 10, "progressive": 1}, True),
    ],
    ids=["folded, collected", "folded, flush bonus", "folded, straight flush bonus", "folded, progressive"],
)
def test_r24c_folded_hand_qualifies_only_while_on_the_layout(wagers, paid):
    seats = [seat(1, "2s 3s 4s 5s 6s 7s 8s", wagers, fold=True), seat(6, OTHER, {"ante": 10, "progressive": 1})]
    obj = make_round(seats, progressive="D", envy="D", unit=D(1), requires=False,
                     paytables={"flush_bonus": "A", "straight_flush_bonus": "A"})
    out = run(obj)
    if paid:
        assert seat_out(out, 6)["wagers"]["envy"] == {"amount": 0, "result": "win", "net": D(250), "from_seats": [1]}
    else:
        assert "envy" not in seat_out(out, 6)["wagers"]


def test_losing_hand_in_play_qualifies_for_envy():
    """R24c: a hand that stayed in play qualifies whether it won or lost."""
    seats = [seat(1, "2s 3s 4s 5s 6s 7s 8s", {"ante": 10, "progressive": 1}),
             seat(6, "2d 4d Qd 6h 8h Th 3c", {"ante": 10, "progressive": 1})]
    # the dealer's seven clubs ace high beat the seven spades eight high (HCF ch.6 §D(1))
    out = run(make_round(seats, dealer="8c 9c Tc Jc Qc Kc Ac", progressive="E", envy="E", unit=D(1)))
    check(seat_out(out, 1)["wagers"]["ante"], "lose", D(-10))
    check(seat_out(out, 1)["wagers"]["raise"], "lose", D(-10))
    assert seat_out(out, 6)["wagers"]["envy"]["from_seats"] == [1]


# =============================================================================================
# 5. Refusals
# =============================================================================================


def cli(obj):
    out, err = io.StringIO(), io.StringIO()
    code = main(["settle"], stdin=io.StringIO(json.dumps(obj, default=str)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_refuses_raise_beyond_r16():
    obj = make_round([seat(1, "Ah Kh 2h 9h Qd 3c Jd", {"ante": 10}, **{"raise": 2})], dealer=DEALER_4_KING)
    code, out, err = cli(obj)
    assert code == 2 and out == ""
    assert "seats[0].raise" in err and "R16" in err


def test_cli_refuses_raise_and_fold_together():
    obj = make_round(
        [seat(1, "Ah Kh 2h 9h Qd 3c Jd", {"ante": 10}, **{"raise": 1, "fold": True})], dealer=DEALER_4_KING
    )
    code, out, err = cli(obj)
    assert code == 2 and out == "" and "seats[0]" in err and "HCF ch.11 §B" in err


def test_cli_accepts_a_good_round():
    obj = make_round([seat(1, "Ah Kh 2h 9h Qd 3c Jd", {"ante": 10})], dealer=DEALER_4_KING)
    code, out, err = cli(obj)
    assert code == 0 and err == "" and json.loads(out)["game"] == "high_card_flush"


def _base(**seat_changes):
    s = seat(1, "Ah Kh 2h 9h Qd 3c Jd", {"ante": 10})
    s.update(seat_changes)
    return make_round([s], dealer=DEALER_4_KING)


def _refused(obj, field):
    with pytest.raises(RoundError) as e:
        parse_round(obj)
    assert e.value.field == field, str(e.value)
    return str(e.value)


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"raise": 4}, "seats[0].raise"),
        ({"raise": 0}, "seats[0].raise"),
        ({"raise": "2"}, "seats[0].raise"),
        ({"raise": True}, "seats[0].raise"),
        ({"raise": D("1.5")}, "seats[0].raise"),
        ({"fold": "yes"}, "seats[0].fold"),
        ({"play": 1}, "seats[0].play"),  # not an HCF decision
        ({"cards": ["Ah", "Kh", "2h", "9h", "Qd", "3c"]}, "seats[0].cards"),  # HCF ch.10 §B(1): seven cards
    ],
    ids=lambda x: str(x),
)
def test_seat_refusals(changes, field):
    _refused(_base(**changes), field)


def test_missing_decision_refused():
    obj = _base()
    del obj["seats"][0]["raise"]
    assert "raise" in _refused(obj, "seats[0]")


def test_raise_is_a_decision_not_a_wager():
    obj = _base()
    obj["seats"][0]["wagers"]["raise"] = 10
    _refused(obj, "seats[0].wagers.raise")


def test_round_shape_refusals():
    obj = _base()
    obj["dealer"] = obj["dealer"][:5]
    _refused(obj, "dealer")
    obj = _base()
    obj["community"] = ["2c", "2d", "2h", "2s", "3c"]
    _refused(obj, "community")
    obj = _base()
    obj["bonus_cards"] = ["2c", "2d", "2h", "2s"]
    _refused(obj, "bonus_cards")


def test_paytable_refusals():
    obj = _base()
    obj["seats"][0]["wagers"]["flush_bonus"] = 5
    _refused(obj, "paytables.flush_bonus")  # fifteen tables: the letter must be named (HCF ch.12 §B)
    obj["paytables"]["flush_bonus"] = "P"
    _refused(obj, "paytables.flush_bonus")
    obj = _base()
    obj["paytables"]["straight_flush_bonus"] = "H"  # HCF ch.12 §C prints A-G
    _refused(obj, "paytables.straight_flush_bonus")
    obj = _base()
    obj["paytables"]["envy"] = "C"  # the Envy table is named in the progressive block
    _refused(obj, "paytables.envy")


def test_progressive_refusals():
    wagers = {"ante": 10, "progressive": UNIT}
    s = lambda: [seat(1, "Ah Kh 2h 9h Qd 3c Jd", dict(wagers))]  # noqa: E731
    _refused(make_round(s(), progressive="C", envy="D"), "progressive.envy")  # R18a: its own letter
    _refused(make_round(s(), progressive="A", envy="A"), "progressive.envy")  # R18a: C, D, E only
    obj = make_round(s(), progressive="A")
    obj["seats"][0]["wagers"]["progressive"] = UNIT * 2
    _refused(obj, "seats[0].wagers.progressive")  # R3: exactly one unit
    obj = make_round(s(), progressive="A")
    obj["progressive"]["meters"]["major"] = 100
    _refused(obj, "progressive.meters.major")  # HCF has a single meter
    obj = make_round(s(), progressive="A")
    del obj["progressive"]
    _refused(obj, "progressive")

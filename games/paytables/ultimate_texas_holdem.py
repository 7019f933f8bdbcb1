"""The paytables of Ultimate Texas Hold 'Em (UTH ch.12), as data, and its meters' minimums.

Transcribed from UTH ch.12: every table keeps the rules'
own printed order of lines, highest first, and every line carries the clause
it was read from (see ``games.paytables`` for the conventions).
"""

from __future__ import annotations

from decimal import Decimal

from games.paytable import Paytable
from games.paytables._build import _PUSH, MeterMinimum, Tables, _fixed, _for, _pct, _table, _to, _usd

UTH = "ultimate_texas_holdem"
GAME = UTH

_TABLES = Tables()
_add = _TABLES.add

# -- Blind, UTH ch.12 §B -------------------------------------------------------
_add(
    _table(UTH, "blind", "A", "UTH ch.12 §B(1)", [
        ("a", "royal_flush", _to(500)),
        ("b", "straight_flush", _to(50)),
        ("c", "four_of_a_kind", _to(10)),
        ("d", "full_house", _to(3)),
        ("e", "flush", _to(3, 2)),
        ("f", "straight", _to(1)),
        ("g", "less_than_a_straight", _PUSH),
    ]),
    # No Straight line: a winning straight pushes (RULINGS R20).
    _table(UTH, "blind", "B", "UTH ch.12 §B(2)", [
        ("a", "royal_flush", _to(500)),
        ("b", "straight_flush", _to(50)),
        ("c", "four_of_a_kind", _to(10)),
        ("d", "full_house", _to(3)),
        ("e", "flush", _to(3, 2)),
        ("f", "less_than_a_straight", _PUSH),
    ]),
)

# -- Trips, UTH ch.12 §C -------------------------------------------------------


def _uth_trips(letter: str, n: int, fh: int, fl: int, st: int, four: int = 30) -> Paytable:
    return _table(UTH, "trips", letter, f"UTH ch.12 §C({n})", [
        ("a", "royal_flush", _to(50)),
        ("b", "straight_flush", _to(40)),
        ("c", "four_of_a_kind", _to(four)),
        ("d", "full_house", _to(fh)),
        ("e", "flush", _to(fl)),
        ("f", "straight", _to(st)),
        ("g", "three_of_a_kind", _to(3)),
    ])


_add(
    _uth_trips("A", 1, fh=9, fl=7, st=4),
    _uth_trips("B", 2, fh=8, fl=6, st=5),
    _uth_trips("C", 3, fh=8, fl=7, st=4),
    _uth_trips("D", 4, fh=7, fl=6, st=5, four=20),
    _uth_trips("E", 5, fh=7, fl=6, st=5),
)

# -- Progressive, UTH ch.12 §D(1) ---------------------------------------------
# Paytable A prints "X to 1"; B-D print "X for 1".  The words decide (R2).
_add(
    _table(UTH, "progressive", "A", "UTH ch.12 §D(1)(a)", [
        ("i", "royal_flush", _pct("meter", "100")),
        ("ii", "straight_flush", _pct("meter", "10")),
        ("iii", "four_of_a_kind", _to(300)),
        ("iv", "full_house", _to(50)),
        ("v", "flush", _to(40)),
        ("vi", "straight", _to(30)),
        ("vii", "three_of_a_kind", _to(9)),
    ]),
    _table(UTH, "progressive", "B", "UTH ch.12 §D(1)(b)", [
        ("i", "royal_flush", _pct("major", "100")),
        ("ii", "straight_flush", _pct("minor", "100")),
        ("iii", "four_of_a_kind", _for(300)),
        ("iv", "full_house", _for(50)),
        ("v", "flush", _for(40)),
        ("vi", "straight", _for(30)),
        ("vii", "three_of_a_kind", _for(9)),
    ]),
    _table(UTH, "progressive", "C", "UTH ch.12 §D(1)(c)", [
        ("i", "royal_flush", _pct("mega", "100")),
        ("ii", "straight_flush", _pct("major", "100")),
        ("iii", "four_of_a_kind", _pct("minor", "100")),
        ("iv", "full_house", _for(50)),
        ("v", "flush", _for(40)),
        ("vi", "straight", _for(30)),
        ("vii", "three_of_a_kind", _for(10)),
    ]),
    _table(UTH, "progressive", "D", "UTH ch.12 §D(1)(d)", [
        ("i", "royal_flush", _pct("mega", "100")),
        ("ii", "straight_flush", _pct("major", "100")),
        ("iii", "four_of_a_kind", _pct("minor", "100")),
        ("iv", "full_house", _for(50)),
        ("v", "flush", _for(40)),
        ("vi", "straight", _for(30)),
        ("vii", "three_of_a_kind", _for(9)),
    ]),
)

# -- Envy Bonus for a $1 Progressive wager, UTH ch.12 §D(6) -------------------
# (The $5 tables of §D(7) are exactly 5x these: not stored, RULINGS R3.)
_add(*(
    _table(UTH, "envy", letter, f"UTH ch.12 §D(6)({sub})", [
        ("i", "royal_flush", _usd("1000")),
        ("ii", "straight_flush", _usd("300")),
    ])
    for letter, sub in (("A", "a"), ("B", "b"), ("C", "c"), ("D", "d"))
))

# -- Six Card Bonus, UTH ch.12 §E (the first of two §E's) --------------------
_SCB = "UTH ch.12 §E (Six Card Bonus)"
_add(
    _table(UTH, "six_card_bonus", "A", f"{_SCB}(1)", [
        ("a", "super_royal_diamonds", _fixed("1000000")),
        ("b", "super_royal_hearts_spades_or_clubs", _fixed("100000")),
        ("c", "royal_flush", _to(1000)),
        ("d", "straight_flush", _to(200)),
        ("e", "four_of_a_kind", _to(50)),
        ("f", "full_house", _to(20)),
        ("g", "flush", _to(15)),
        ("h", "straight", _to(10)),
        ("i", "three_of_a_kind", _to(5)),
    ]),
    _table(UTH, "six_card_bonus", "B", f"{_SCB}(2)", [
        ("a", "super_royal", _fixed("100000")),
        ("b", "royal_flush", _to(1000)),
        ("c", "straight_flush", _to(200)),
        ("d", "four_of_a_kind", _to(50)),
        ("e", "full_house", _to(20)),
        ("f", "flush", _to(15)),
        ("g", "straight", _to(10)),
        ("h", "three_of_a_kind", _to(5)),
    ]),
)

# -- Ultimate Pairs, UTH ch.12 §E (the second §E, printed after the payout
#    limit §F) -- each table keeps its own printed order (RULINGS R22) -------
_UP = "UTH ch.12 §E (Ultimate Pairs)"
_add(
    _table(UTH, "ultimate_pairs", "A", f"{_UP}(1)", [
        ("a", "pair_of_aces", _to(30)),
        ("b", "ace_and_king_of_the_same_suit", _to(25)),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("d", "ace_and_king_of_different_suits", _to(15)),
        ("e", "pair_of_jacks_queens_or_kings", _to(10)),
        ("f", "ace_and_queen_or_jack_of_different_suits", _to(5)),
        ("g", "pair_of_tens_or_less", _to(3)),
    ]),
    _table(UTH, "ultimate_pairs", "B", f"{_UP}(2)", [
        ("a", "pair_of_player_aces_and_dealer_aces", _to(1000)),
        ("b", "pair_of_aces", _to(30)),
        ("c", "ace_and_king_of_the_same_suit", _to(25)),
        ("d", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("e", "ace_and_king_of_different_suits", _to(15)),
        ("f", "pair_of_jacks_queens_or_kings", _to(10)),
        ("g", "ace_and_queen_or_jack_of_different_suits", _to(5)),
        ("h", "pair_of_tens_or_less", _to(3)),
    ]),
    # C-F as printed: the J/Q/K pair line stands above the A-Q/A-J offsuit line
    # although it pays less (5 or 4 to 1 against 10 to 1).
    _table(UTH, "ultimate_pairs", "C", f"{_UP}(3)", [
        ("a", "pair_of_aces", _to(30)),
        ("b", "ace_and_king_of_the_same_suit", _to(20)),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("d", "ace_and_king_of_different_suits", _to(10)),
        ("e", "pair_of_jacks_queens_or_kings", _to(5)),
        ("f", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("g", "pair_of_tens_or_less", _to(5)),
    ]),
    _table(UTH, "ultimate_pairs", "D", f"{_UP}(4)", [
        ("a", "pair_of_player_aces_of_hearts_and_diamonds", _to(100)),
        ("b", "pair_of_aces", _to(30)),
        ("c", "ace_and_king_of_the_same_suit", _to(20)),
        ("d", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("e", "ace_and_king_of_different_suits", _to(10)),
        ("f", "pair_of_jacks_queens_or_kings", _to(4)),
        ("g", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("h", "pair_of_tens_or_less", _to(4)),
    ]),
    _table(UTH, "ultimate_pairs", "E", f"{_UP}(5)", [
        ("a", "pair_of_player_aces_of_hearts_and_diamonds", _to(50)),
        ("b", "pair_of_aces", _to(25)),
        ("c", "ace_and_king_of_the_same_suit", _to(20)),
        ("d", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("e", "ace_and_king_of_different_suits", _to(10)),
        ("f", "pair_of_jacks_queens_or_kings", _to(5)),
        ("g", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("h", "pair_of_tens_or_less", _to(5)),
    ]),
    _table(UTH, "ultimate_pairs", "F", f"{_UP}(6)", [
        ("a", "pair_of_aces", _to(25)),
        ("b", "ace_and_king_of_the_same_suit", _to(20)),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("d", "ace_and_king_of_different_suits", _to(10)),
        ("e", "pair_of_jacks_queens_or_kings", _to(5)),
        ("f", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("g", "pair_of_tens_or_less", _to(5)),
    ]),
)

# -- Bad Beat, UTH ch.12 §F (the second §F; the first is the payout limit) ---
# Each table's lines are printed from "(b)" on: there is no "(a)" and no Royal
# Flush line.  Harmless: Bad Beat pays on the losing hand (RULINGS R24b), and a
# royal flush can only tie, never lose.


def _uth_bad_beat(letter: str, n: int, sf: int, fh: int, fl: int) -> Paytable:
    return _table(UTH, "bad_beat", letter, f"UTH ch.12 §F (Bad Beat)({n})", [
        ("b", "straight_flush", _to(sf)),
        ("c", "four_of_a_kind", _to(500)),
        ("d", "full_house", _to(fh)),
        ("e", "flush", _to(fl)),
        ("f", "straight", _to(20)),
        ("g", "three_of_a_kind", _to(9)),
    ])


_add(
    _uth_bad_beat("A", 1, sf=10000, fh=40, fl=25),
    _uth_bad_beat("B", 2, sf=7500, fh=50, fl=30),
    _uth_bad_beat("C", 3, sf=2500, fh=50, fl=30),
)

# -- Play the Board, UTH ch.12 §G (five community cards alone, RULINGS R23) ---
# Each table prints (a)..(h) and then a second "(g)" for the pair of tens or
# better line; cited as printed, so that line shares "(g)" with three of a kind.


def _uth_play_the_board(letter: str, n: int, st: int, three: int) -> Paytable:
    return _table(UTH, "play_the_board", letter, f"UTH ch.12 §G({n})", [
        ("a", "royal_flush", _to(1000)),
        ("b", "straight_flush", _to(200)),
        ("c", "four_of_a_kind", _to(100)),
        ("d", "full_house", _to(50)),
        ("e", "flush", _to(40)),
        ("f", "straight", _to(st)),
        ("g", "three_of_a_kind", _to(three)),
        ("h", "two_pair", _to(3)),
        ("g", "pair_of_tens_or_better", _to(1)),  # second (g), as printed
    ])


_add(
    _uth_play_the_board("A", 1, st=25, three=7),
    _uth_play_the_board("B", 2, st=25, three=6),
    _uth_play_the_board("C", 3, st=20, three=6),
)


TABLES: tuple[Paytable, ...] = tuple(_TABLES)

#: the lines of these tables that are not plain poker hands (``games.poker.WORDS``) nor Ultimate Pairs lines
#: (``games.ultimate_pairs.WORDS``), in a person's words
WORDS: dict[str, str] = {
    "less_than_a_straight": "Less than a straight",
    "pair_of_tens_or_better": "Pair of tens or better",
    "super_royal": "Super royal (six-card royal flush)",
    "super_royal_diamonds": "Super royal of diamonds",
    "super_royal_hearts_spades_or_clubs": "Super royal of hearts, spades or clubs",
}

# -- Progressive meters, UTH ch.12 §D(3)(b) -------------------------------------

METERS: tuple[str, ...] = ("meter", "mega", "major", "minor")

METER_MINIMUMS: dict[str, MeterMinimum] = {
    "A": MeterMinimum("UTH ch.12 §D(3)(b)(i)", {"meter": Decimal("10000")}),
    "B": MeterMinimum("UTH ch.12 §D(3)(b)(ii)", {"major": Decimal("1000"), "minor": Decimal("250")}),
    "C": MeterMinimum("UTH ch.12 §D(3)(b)(iii)",
                      {"mega": Decimal("10000"), "major": Decimal("1000"), "minor": Decimal("250")}),
    "D": MeterMinimum("UTH ch.12 §D(3)(b)(iv)",
                      {"mega": Decimal("10000"), "major": Decimal("1000"), "minor": Decimal("250")}),
}

"""The paytables of Run 'Em Twice Poker (RET ch.12), as data, and its meters' minimums.

Transcribed from RET ch.12: every table keeps the rules'
own printed order of lines, highest first, and every line carries the clause
it was read from (see ``games.paytables`` for the conventions).
"""

from __future__ import annotations

from decimal import Decimal

from games.paytable import Paytable
from games.paytables._build import _PUSH, MeterMinimum, Tables, _for, _pct, _table, _to, _usd

RET = "run_em_twice"
GAME = RET

_TABLES = Tables()
_add = _TABLES.add

# -- First and Second Run wagers, RET ch.12 §B (one unlettered table) --------
_add(
    _table(RET, "run", "A", "RET ch.12 §B", [
        ("1", "royal_flush", _to(500)),
        ("2", "straight_flush", _to(100)),
        ("3", "four_of_a_kind", _to(40)),
        ("4", "full_house", _to(12)),
        ("5", "flush", _to(8)),
        ("6", "straight", _to(5)),
        ("7", "three_of_a_kind", _to(3)),
        ("8", "two_pair", _to(2)),
        ("9", "pair_of_jacks_or_better", _to(1)),
        ("10", "pair_of_6s_to_10s", _PUSH),
    ], lettered=False),
)

# -- Five Card Bonus, RET ch.12 §D (one unlettered table; community cards
#    alone, RULINGS R29) -----------------------------------------------------
_add(
    _table(RET, "five_card_bonus", "A", "RET ch.12 §D", [
        ("1", "royal_flush", _to(250)),
        ("2", "straight_flush", _to(100)),
        ("3", "four_of_a_kind", _to(40)),
        ("4", "full_house", _to(15)),
        ("5", "flush", _to(10)),
        ("6", "straight", _to(6)),
        ("7", "three_of_a_kind", _to(4)),
        ("8", "two_pair", _to(3)),
        ("9", "pair_of_6s_or_better", _to(1)),
    ], lettered=False),
)

# -- Ultimate Pairs Bonus, RET ch.12 §E: A-E (RULINGS R29 / R22) -------------
# B-E print the A-Q/A-J offsuit line above the J/Q/K pair line (the reverse of
# UTH's order); kept as printed.
_add(
    _table(RET, "ultimate_pairs", "A", "RET ch.12 §E(1)", [
        ("a", "pair_of_aces", _to(30)),
        ("b", "ace_and_king_of_the_same_suit", _to(25)),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("d", "ace_and_king_of_different_suits", _to(15)),
        ("e", "pair_of_jacks_queens_or_kings", _to(10)),
        ("f", "ace_and_queen_or_jack_of_different_suits", _to(5)),
        ("g", "pair_of_tens_or_less", _to(3)),
    ]),
    _table(RET, "ultimate_pairs", "B", "RET ch.12 §E(2)", [
        ("a", "pair_of_aces", _to(30)),
        ("b", "ace_and_king_of_the_same_suit", _to(20)),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("d", "ace_and_king_of_different_suits", _to(10)),
        ("e", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("f", "pair_of_jacks_queens_or_kings", _to(5)),
        ("g", "pair_of_tens_or_less", _to(5)),
    ]),
    _table(RET, "ultimate_pairs", "C", "RET ch.12 §E(3)", [
        ("a", "pair_of_player_aces_of_hearts_and_diamonds", _to(100)),
        ("b", "pair_of_aces", _to(30)),
        ("c", "ace_and_king_of_the_same_suit", _to(20)),
        ("d", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("e", "ace_and_king_of_different_suits", _to(10)),
        ("f", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("g", "pair_of_jacks_queens_or_kings", _to(4)),
        ("h", "pair_of_tens_or_less", _to(4)),
    ]),
    _table(RET, "ultimate_pairs", "D", "RET ch.12 §E(4)", [
        ("a", "pair_of_player_aces_of_hearts_and_diamonds", _to(50)),
        ("b", "pair_of_aces", _to(25)),
        ("c", "ace_and_king_of_the_same_suit", _to(20)),
        ("d", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("e", "ace_and_king_of_different_suits", _to(10)),
        ("f", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("g", "pair_of_jacks_queens_or_kings", _to(5)),
        ("h", "pair_of_tens_or_less", _to(5)),
    ]),
    _table(RET, "ultimate_pairs", "E", "RET ch.12 §E(5)", [
        ("a", "pair_of_aces", _to(25)),
        ("b", "ace_and_king_of_the_same_suit", _to(20)),
        ("c", "ace_and_queen_or_jack_of_the_same_suit", _to(20)),
        ("d", "ace_and_king_of_different_suits", _to(10)),
        ("e", "ace_and_queen_or_jack_of_different_suits", _to(10)),
        ("f", "pair_of_jacks_queens_or_kings", _to(5)),
        ("g", "pair_of_tens_or_less", _to(5)),
    ]),
)

# -- Progressive, RET ch.12 §F(1)-(4) ----------------------------------------
# A and B print the same lines; they differ only in the meter's minimum
# (§F(6)(b)(i)-(ii)).
_add(
    _table(RET, "progressive", "A", "RET ch.12 §F(1)", [
        ("a", "royal_flush", _pct("meter", "100")),
        ("b", "straight_flush", _pct("meter", "10")),
        ("c", "four_of_a_kind", _for(300)),
        ("d", "full_house", _for(50)),
        ("e", "flush", _for(40)),
        ("f", "straight", _for(30)),
        ("g", "three_of_a_kind", _for(9)),
    ]),
    _table(RET, "progressive", "B", "RET ch.12 §F(2)", [
        ("a", "royal_flush", _pct("meter", "100")),
        ("b", "straight_flush", _pct("meter", "10")),
        ("c", "four_of_a_kind", _for(300)),
        ("d", "full_house", _for(50)),
        ("e", "flush", _for(40)),
        ("f", "straight", _for(30)),
        ("g", "three_of_a_kind", _for(9)),
    ]),
    _table(RET, "progressive", "C", "RET ch.12 §F(3)", [
        ("a", "royal_flush", _pct("major", "100")),
        ("b", "straight_flush", _pct("minor", "100")),
        ("c", "four_of_a_kind", _for(300)),
        ("d", "full_house", _for(50)),
        ("e", "flush", _for(40)),
        ("f", "straight", _for(30)),
        ("g", "three_of_a_kind", _for(9)),
    ]),
    _table(RET, "progressive", "D", "RET ch.12 §F(4)", [
        ("a", "royal_flush", _pct("mega", "100")),
        ("b", "straight_flush", _pct("major", "100")),
        ("c", "four_of_a_kind", _pct("minor", "100")),
        ("d", "full_house", _for(50)),
        ("e", "flush", _for(40)),
        ("f", "straight", _for(30)),
        ("g", "three_of_a_kind", _for(9)),
    ]),
)

# -- Envy Bonus for a $1 Progressive wager, RET ch.12 §H ---------------------
# (The $5 tables of §I are exactly 5x these: not stored, RULINGS R3.)
# §H(3)(b) prints "For Four a Straight Flush" (garbled); read as the Straight
# Flush line, like every other Envy table and its $5 twin §I(3)(b).
_add(*(
    _table(RET, "envy", letter, f"RET ch.12 §H({n})", [
        ("a", "royal_flush", _usd("1000")),
        ("b", "straight_flush", _usd("300")),
    ])
    for letter, n in (("A", 1), ("B", 2), ("C", 3), ("D", 4))
))


TABLES: tuple[Paytable, ...] = tuple(_TABLES)

#: the lines of these tables that are not plain poker hands (``games.poker.WORDS``) nor Ultimate Pairs lines
#: (``games.ultimate_pairs.WORDS``), in a person's words
WORDS: dict[str, str] = {
    "pair_of_jacks_or_better": "Pair of jacks or better",
    "pair_of_6s_to_10s": "Pair of sixes to tens",
    "pair_of_6s_or_better": "Pair of sixes or better",
}

# -- Progressive meters, RET ch.12 §F(6)(b) ---------------------------------------

METERS: tuple[str, ...] = ("meter", "mega", "major", "minor")

METER_MINIMUMS: dict[str, MeterMinimum] = {
    "A": MeterMinimum("RET ch.12 §F(6)(b)(i)", {"meter": Decimal("10000")}),
    "B": MeterMinimum("RET ch.12 §F(6)(b)(ii)", {"meter": Decimal("2000")}),
    "C": MeterMinimum("RET ch.12 §F(6)(b)(iii)", {"major": Decimal("10000"), "minor": Decimal("1000")}),
    "D": MeterMinimum("RET ch.12 §F(6)(b)(iv)",
                      {"mega": Decimal("10000"), "major": Decimal("1000"), "minor": Decimal("250")}),
}

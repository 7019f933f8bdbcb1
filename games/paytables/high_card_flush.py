"""The paytables of High Card Flush (HCF ch.12), as data, and its meters' minimums.

Transcribed from HCF ch.12: every table keeps the rules'
own printed order of lines, highest first, and every line carries the clause
it was read from (see ``games.paytables`` for the conventions).
"""

from __future__ import annotations

from decimal import Decimal

from games.paytable import Paytable
from games.paytables._build import MeterMinimum, Tables, _pct, _table, _to, _usd

HCF = "high_card_flush"
GAME = HCF

_TABLES = Tables()
_add = _TABLES.add

# -- Flush Bonus, HCF ch.12 §B: fifteen tables A-O --------------------------
# (seven-, six-, five-, four-card flush)
_HCF_FLUSH_BONUS: tuple[tuple[str, str, tuple[int, int, int, int]], ...] = (
    ("A", "1", (300, 100, 10, 1)),
    ("B", "2", (100, 20, 10, 2)),
    ("C", "3", (200, 20, 10, 2)),
    ("D", "4", (300, 75, 5, 2)),
    ("E", "5", (200, 60, 12, 1)),
    ("F", "6", (500, 50, 12, 1)),
    ("G", "7", (400, 60, 12, 1)),
    ("H", "8", (1000, 50, 10, 1)),
    ("I", "9", (150, 20, 10, 2)),
    ("J", "10", (150, 25, 10, 2)),
    ("K", "11", (400, 100, 10, 1)),
    ("L", "12", (300, 80, 11, 1)),
    ("M", "13", (500, 80, 11, 1)),
    ("N", "14", (500, 100, 10, 1)),
    # The fifteenth table, Paytable O, is printed "(8) Paytable O" (OCR
    # numbering); cited as printed, so it shares "§B(8)" with Paytable H.
    ("O", "8", (250, 100, 10, 1)),
)
_add(*(
    _table(HCF, "flush_bonus", letter, f"HCF ch.12 §B({n})", [
        ("a", "flush_7", _to(f7)),
        ("b", "flush_6", _to(f6)),
        ("c", "flush_5", _to(f5)),
        ("d", "flush_4", _to(f4)),
    ])
    for letter, n, (f7, f6, f5, f4) in _HCF_FLUSH_BONUS
))

# -- Straight Flush Bonus, HCF ch.12 §C: A-G ---------------------------------
# (seven-, six-, five-, four-, three-card straight flush)
_HCF_SF_BONUS: tuple[tuple[str, str, tuple[int, int, int, int, int]], ...] = (
    ("A", "1", (8000, 1000, 100, 60, 7)),
    ("B", "2", (500, 200, 100, 50, 9)),
    ("C", "3", (500, 200, 100, 75, 7)),
    ("D", "4", (1000, 500, 100, 75, 7)),
    ("E", "5", (500, 200, 100, 60, 8)),
    ("F", "6", (1000, 500, 100, 60, 8)),
)
_add(*(
    _table(HCF, "straight_flush_bonus", letter, f"HCF ch.12 §C({n})", [
        ("a", "straight_flush_7", _to(s7)),
        ("b", "straight_flush_6", _to(s6)),
        ("c", "straight_flush_5", _to(s5)),
        ("d", "straight_flush_4", _to(s4)),
        ("e", "straight_flush_3", _to(s3)),
    ])
    for letter, n, (s7, s6, s5, s4, s3) in _HCF_SF_BONUS
))
# Paytable G also pays four of a kind among the seven cards (RULINGS R19).
_add(
    _table(HCF, "straight_flush_bonus", "G", "HCF ch.12 §C(7)", [
        ("a", "straight_flush_7", _to(500)),
        ("b", "straight_flush_6", _to(200)),
        ("c", "straight_flush_5", _to(100)),
        ("d", "straight_flush_4", _to(50)),
        ("e", "four_of_a_kind", _to(25)),
        ("f", "straight_flush_3", _to(8)),
    ]),
)

# -- Progressive, HCF ch.12 §E(1): A-E, one meter ----------------------------
# "Suited Nine, Ten, Jack, Queen, King, Ace" (D and E) is the six-card straight
# flush 9-A and outranks the other six-card straight flushes (RULINGS R18).
_add(
    _table(HCF, "progressive", "A", "HCF ch.12 §E(1)(a)", [
        ("i", "straight_flush_7", _pct("meter", "100")),
        ("ii", "straight_flush_6", _pct("meter", "10")),
        ("iii", "straight_flush_5", _usd("250")),
        ("iv", "straight_flush_4", _usd("40")),
        ("v", "straight_flush_3", _usd("3")),
    ]),
    # B prints no three-card line.
    _table(HCF, "progressive", "B", "HCF ch.12 §E(1)(b)", [
        ("i", "straight_flush_7", _pct("meter", "100")),
        ("ii", "straight_flush_6", _pct("meter", "10")),
        ("iii", "straight_flush_5", _usd("900")),
        ("iv", "straight_flush_4", _usd("50")),
    ]),
    _table(HCF, "progressive", "C", "HCF ch.12 §E(1)(c)", [
        ("i", "straight_flush_7", _pct("meter", "100")),
        ("ii", "straight_flush_6", _pct("meter", "100")),
        ("iii", "straight_flush_5", _usd("200")),
        ("iv", "straight_flush_4", _usd("40")),
        ("v", "straight_flush_3", _usd("3")),
    ]),
    _table(HCF, "progressive", "D", "HCF ch.12 §E(1)(d)", [
        ("i", "straight_flush_7", _pct("meter", "100")),
        ("ii", "suited_nine_ten_jack_queen_king_ace", _pct("meter", "100")),
        ("iii", "straight_flush_6", _pct("meter", "10")),
        ("iv", "straight_flush_5", _usd("250")),
        ("v", "straight_flush_4", _usd("40")),
        ("vi", "straight_flush_3", _usd("3")),
    ]),
    # E prints no three-card line.
    _table(HCF, "progressive", "E", "HCF ch.12 §E(1)(e)", [
        ("i", "straight_flush_7", _pct("meter", "100")),
        ("ii", "suited_nine_ten_jack_queen_king_ace", _pct("meter", "100")),
        ("iii", "straight_flush_6", _pct("meter", "10")),
        ("iv", "straight_flush_5", _usd("800")),
        ("v", "straight_flush_4", _usd("50")),
    ]),
)

# -- Envy Bonus for a $1 Progressive wager, HCF ch.12 §E(5): C, D, E only ----
# (each with the Progressive table of its own letter, RULINGS R18a)
_add(
    _table(HCF, "envy", "C", "HCF ch.12 §E(5)(a)", [
        ("i", "straight_flush_7", _usd("200")),
        ("ii", "straight_flush_6", _usd("200")),
    ]),
    _table(HCF, "envy", "D", "HCF ch.12 §E(5)(b)", [
        ("i", "straight_flush_7", _usd("250")),
    ]),
    _table(HCF, "envy", "E", "HCF ch.12 §E(5)(c)", [
        ("i", "straight_flush_7", _usd("250")),
    ]),
)


TABLES: tuple[Paytable, ...] = tuple(_TABLES)

#: the lines of these tables in a person's words: HCF counts flushes and straight flushes by their cards
#: (HCF ch.7 §F(2)-(4)); "Suited Nine, Ten, Jack, Queen, King, Ace" is the 9-A straight flush (RULINGS R18)
WORDS: dict[str, str] = {
    **{f"flush_{k}": f"{n}-card flush" for k, n in ((7, "Seven"), (6, "Six"), (5, "Five"), (4, "Four"))},
    **{f"straight_flush_{k}": f"{n}-card straight flush"
       for k, n in ((7, "Seven"), (6, "Six"), (5, "Five"), (4, "Four"), (3, "Three"))},
    "suited_nine_ten_jack_queen_king_ace": "Suited nine, ten, jack, queen, king, ace",
}

# -- Progressive meter, HCF ch.12 §E(2)(b) -----------------------------------------

METERS: tuple[str, ...] = ("meter",)

METER_MINIMUMS: dict[str, MeterMinimum] = {
    "A": MeterMinimum("HCF ch.12 §E(2)(b)(i)", {"meter": Decimal("30000")}),
    "B": MeterMinimum("HCF ch.12 §E(2)(b)(i)", {"meter": Decimal("30000")}),
    "C": MeterMinimum("HCF ch.12 §E(2)(b)(ii)", {"meter": Decimal("5000")}),
    "D": MeterMinimum("HCF ch.12 §E(2)(b)(i)", {"meter": Decimal("30000")}),
    "E": MeterMinimum("HCF ch.12 §E(2)(b)(iii)", {"meter": Decimal("25000")}),
}

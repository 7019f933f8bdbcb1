"""The paytables of Jackpot Hold 'Em (JHE ch.12), as data, and its meters' minimums.

Transcribed from JHE ch.12: every table keeps the rules'
own printed order of lines, highest first, and every line carries the clause
it was read from (see ``games.paytables`` for the conventions).
"""

from __future__ import annotations

from decimal import Decimal

from games.paytable import Paytable
from games.paytables._build import _PUSH, MeterMinimum, Tables, _for, _pct, _table, _to

JHE = "jackpot_holdem"
GAME = JHE

_TABLES = Tables()
_add = _TABLES.add

# -- X-tra Bonus, JHE ch.12 §B (one table, printed "Paytable A") -------------
_add(
    _table(JHE, "xtra_bonus", "A", "JHE ch.12 §B(1)", [
        ("a", "royal_flush", _to(500)),
        ("b", "straight_flush", _to(50)),
        ("c", "four_of_a_kind", _to(10)),
        ("d", "full_house", _to(4)),
        ("e", "flush", _to(2)),
        ("f", "straight", _to(1)),
        ("g", "less_than_a_straight", _PUSH),
    ]),
)

# -- Player Bonus, JHE ch.12 §C (one table, printed "Paytable A") ------------
_add(
    _table(JHE, "player_bonus", "A", "JHE ch.12 §C(1)", [
        ("a", "royal_flush", _to(100)),
        ("b", "straight_flush", _to(40)),
        ("c", "four_of_a_kind", _to(30)),
        ("d", "full_house", _to(8)),
        ("e", "flush", _to(7)),
        ("f", "straight", _to(4)),
        ("g", "three_of_a_kind", _to(3)),
    ]),
)

# -- Progressive, JHE ch.12 §D(2)-(6) (meters as written, RULINGS R13) -------
# §D(1) is the introductory sentence; the tables are numbered (2)..(6).
# Tables B and D pay any royal flush from the Star meter and never use the
# Spade meter for a royal (their Spade meter pays the straight flush).
_add(
    _table(JHE, "progressive", "A", "JHE ch.12 §D(2)", [
        ("a", "royal_flush_diamonds", _pct("star", "100")),
        ("b", "royal_flush_spades_hearts_or_clubs", _pct("spade", "100")),
        ("c", "straight_flush", _pct("heart", "100")),
        ("d", "four_of_a_kind", _pct("diamond", "100")),
        ("e", "full_house", _for(50)),
        ("f", "flush", _for(30)),
        ("g", "straight", _for(20)),
        ("h", "three_of_a_kind", _for(10)),
        ("i", "two_pair", _for(4)),
    ]),
    _table(JHE, "progressive", "B", "JHE ch.12 §D(3)", [
        ("a", "royal_flush_diamonds", _pct("star", "100")),
        ("b", "royal_flush_spades_hearts_or_clubs", _pct("star", "100")),
        ("c", "straight_flush", _pct("spade", "100")),
        ("d", "four_of_a_kind", _pct("heart", "100")),
        ("e", "full_house", _pct("diamond", "100")),
        ("f", "flush", _for(30)),
        ("g", "straight", _for(20)),
        ("h", "three_of_a_kind", _for(10)),
        ("i", "two_pair", _for(4)),
    ]),
    _table(JHE, "progressive", "C", "JHE ch.12 §D(4)", [
        ("a", "royal_flush_diamonds", _pct("star", "100")),
        ("b", "royal_flush_spades_hearts_or_clubs", _pct("spade", "100")),
        ("c", "straight_flush", _pct("heart", "100")),
        ("d", "four_of_a_kind", _pct("diamond", "100")),
        ("e", "full_house", _for(60)),
        ("f", "flush", _for(40)),
        ("g", "straight", _for(30)),
        ("h", "three_of_a_kind", _for(15)),
    ]),
    _table(JHE, "progressive", "D", "JHE ch.12 §D(5)", [
        ("a", "royal_flush_diamonds", _pct("star", "100")),
        ("b", "royal_flush_spades_hearts_or_clubs", _pct("star", "100")),
        ("c", "straight_flush", _pct("spade", "100")),
        ("d", "four_of_a_kind", _pct("heart", "100")),
        ("e", "full_house", _pct("diamond", "100")),
        ("f", "flush", _for(50)),
        ("g", "straight", _for(30)),
        ("h", "three_of_a_kind", _for(15)),
    ]),
    _table(JHE, "progressive", "E", "JHE ch.12 §D(6)", [
        ("a", "royal_flush_diamonds", _pct("star", "100")),
        ("b", "royal_flush_spades_hearts_or_clubs", _pct("spade", "100")),
        ("c", "straight_flush", _pct("heart", "100")),
        ("d", "four_of_a_kind", _pct("diamond", "100")),
        ("e", "full_house", _pct("club", "100")),
        ("f", "flush", _for(50)),
        ("g", "straight", _for(30)),
        ("h", "three_of_a_kind", _for(10)),
    ]),
)


TABLES: tuple[Paytable, ...] = tuple(_TABLES)

#: the lines of these tables that are not plain poker hands (those: ``games.poker.WORDS``), in a person's words
WORDS: dict[str, str] = {
    "less_than_a_straight": "Less than a straight",
    "royal_flush_diamonds": "Royal flush of diamonds",
    "royal_flush_spades_hearts_or_clubs": "Royal flush of spades, hearts or clubs",
}

# -- Progressive meters, JHE ch.12 §E ------------------------------------------------
# §E(2) star (one amount for A-E), (4) spade, (6) heart, (8) diamond, (10) club.  All five meters
# are listed for every table, even where the table pays nothing from one (club in A-D is $0; B and
# D pay no royal from Spade).

METERS: tuple[str, ...] = ("star", "spade", "heart", "diamond", "club")


def _jhe_minimum(sub: str, star: str, spade: str, heart: str, diamond: str, club: str) -> MeterMinimum:
    """Paytable ``sub`` of each meter's list: the Star amount at §E(2)(a), the others at their own number."""
    numbers = {"star": "(2)(a)", "spade": f"(4)({sub})", "heart": f"(6)({sub})", "diamond": f"(8)({sub})",
               "club": f"(10)({sub})"}
    amounts = dict(zip(METERS, (star, spade, heart, diamond, club), strict=True))
    return MeterMinimum(
        "JHE ch.12 §E" + ", ".join(numbers[m] for m in METERS),
        {m: Decimal(a) for m, a in amounts.items()},
        {m: f"JHE ch.12 §E{numbers[m]}" for m in METERS},
    )


METER_MINIMUMS: dict[str, MeterMinimum] = {
    "A": _jhe_minimum("a", "10000", "5000", "1000", "500", "0"),
    "B": _jhe_minimum("b", "10000", "1000", "500", "100", "0"),
    "C": _jhe_minimum("c", "10000", "5000", "1000", "500", "0"),
    "D": _jhe_minimum("d", "10000", "1000", "500", "100", "0"),
    "E": _jhe_minimum("e", "10000", "10000", "5000", "1000", "250"),
}

"""Every paytable of the four games, and the progressive meters' minimum
initial/reset amounts, as data.

Transcribed from chapter 12 of each game's rules (see docs of ``games.paytable``
for the payout kinds).  Every table keeps the rules' own printed order of lines,
highest first, and every line carries the clause it was read from.  Clause
letters and numbers are cited exactly as printed, even where the scanned text
numbers them oddly (each such place has a comment below).

Short names in the clauses: UTH = Ultimate Texas Hold 'Em Poker, JHE = Jackpot
Hold 'Em, HCF = High Card Flush, RET = Run 'Em Twice Poker.

Public API:

* ``PAYTABLES``: ``{(game, wager, letter): Paytable}``.
* ``paytable(game, wager, letter)``: one table; ``letter=None`` only where the
  wager has a single table.
* ``letters(game, wager)``: the letters the rules offer for a wager.
* ``METERS``: ``{game: meter names}``.
* ``METER_MINIMUMS``: ``{(game, progressive letter): {meter: minimum initial and
  reset amount}}``, with ``METER_MINIMUM_CLAUSES`` naming where each stands.

The Envy Bonus tables are stored for a $1 Progressive wager only
(``FixedPerUnit``); the rules' $5 Envy tables (UTH ch.12 §D(7), RET ch.12 §I)
are exactly 5x those and are not stored (RULINGS R3).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable

from games.paytable import (
    FixedAmount,
    FixedPerUnit,
    Line,
    MeterPercent,
    Odds,
    Paytable,
    Pays,
    Push,
)

UTH = "ultimate_texas_holdem"
JHE = "jackpot_holdem"
HCF = "high_card_flush"
RET = "run_em_twice"


# -- payout shorthands -------------------------------------------------------


def _to(x: int, y: int = 1) -> Odds:
    """'X to Y' (RULINGS R2)."""
    return Odds(x, y, "to")


def _for(x: int, y: int = 1) -> Odds:
    """'X for Y' (RULINGS R2)."""
    return Odds(x, y, "for")


def _pct(meter: str, percent: str) -> MeterPercent:
    return MeterPercent(meter, Decimal(percent))


def _usd(dollars: str) -> FixedPerUnit:
    """A dollar amount stated for a $1 wager (RULINGS R3)."""
    return FixedPerUnit(Decimal(dollars))


def _fixed(dollars: str) -> FixedAmount:
    """A dollar amount whatever the wager (RULINGS R21a)."""
    return FixedAmount(Decimal(dollars))


_PUSH = Push()


# -- table builder -----------------------------------------------------------

_Row = tuple[str, str, Pays]  # (printed sub-clause label, line key, pays)


def _table(
    game: str,
    wager: str,
    letter: str,
    clause: str,
    rows: Iterable[_Row],
    *,
    lettered: bool = True,
) -> Paytable:
    """A table at ``clause``; each row's clause is ``clause`` + ``(label)``."""
    return Paytable(
        game=game,
        wager=wager,
        letter=letter,
        clause=clause,
        lines=tuple(Line(key, pays, f"{clause}({label})") for label, key, pays in rows),
        lettered=lettered,
    )


_TABLES: list[Paytable] = []


def _add(*tables: Paytable) -> None:
    _TABLES.extend(tables)


# =============================================================================
# Ultimate Texas Hold 'Em (003_*), chapter 12
# =============================================================================

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


# =============================================================================
# Jackpot Hold 'Em (000_*; 002_* is another OCR of the same text), chapter 12
# =============================================================================

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


# =============================================================================
# High Card Flush (001_*), chapter 12
# =============================================================================

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


# =============================================================================
# Run 'Em Twice Poker (004_*), chapter 12
# =============================================================================

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


# =============================================================================
# Index and look-ups
# =============================================================================


def _index(tables: list[Paytable]) -> dict[tuple[str, str, str], Paytable]:
    out: dict[tuple[str, str, str], Paytable] = {}
    for t in tables:
        key = (t.game, t.wager, t.letter)
        if key in out:  # pragma: no cover - a transcription slip
            raise ValueError(f"duplicate paytable {key}")
        out[key] = t
    return out


PAYTABLES: dict[tuple[str, str, str], Paytable] = _index(_TABLES)


_LETTERS: dict[tuple[str, str], tuple[str, ...]] = {}
for (_g, _w, _l) in PAYTABLES:
    _LETTERS[(_g, _w)] = tuple(sorted(_LETTERS.get((_g, _w), ()) + (_l,)))
del _g, _w, _l


def letters(game: str, wager: str) -> tuple[str, ...]:
    """The paytable letters the rules offer for ``wager`` of ``game``, A first."""
    try:
        return _LETTERS[(game, wager)]
    except KeyError:
        raise KeyError(f"no paytables for game {game!r}, wager {wager!r}") from None


def paytable(game: str, wager: str, letter: str | None) -> Paytable:
    """The paytable ``letter`` of ``wager`` of ``game``.

    ``letter`` may be None only where the rules print a single table for the
    wager (JHE X-tra Bonus and Player Bonus, RET Run and Five Card Bonus).
    """
    offered = letters(game, wager)
    if letter is None:
        if len(offered) == 1:
            return PAYTABLES[(game, wager, offered[0])]
        raise KeyError(
            f"game {game!r}, wager {wager!r} has paytables {', '.join(offered)}: "
            f"a letter is required"
        )
    try:
        return PAYTABLES[(game, wager, letter)]
    except KeyError:
        raise KeyError(
            f"no paytable {letter!r} for game {game!r}, wager {wager!r} "
            f"(the rules offer {', '.join(offered)})"
        ) from None


# =============================================================================
# Progressive meters
# =============================================================================

METERS: dict[str, tuple[str, ...]] = {
    UTH: ("meter", "mega", "major", "minor"),
    JHE: ("star", "spade", "heart", "diamond", "club"),
    HCF: ("meter",),
    RET: ("meter", "mega", "major", "minor"),
}


def _d(amount: str) -> Decimal:
    return Decimal(amount)


# Minimum initial and reset amount of each meter, per progressive paytable.
METER_MINIMUMS: dict[tuple[str, str], dict[str, Decimal]] = {
    # UTH ch.12 §D(3)(b)
    (UTH, "A"): {"meter": _d("10000")},
    (UTH, "B"): {"major": _d("1000"), "minor": _d("250")},
    (UTH, "C"): {"mega": _d("10000"), "major": _d("1000"), "minor": _d("250")},
    (UTH, "D"): {"mega": _d("10000"), "major": _d("1000"), "minor": _d("250")},
    # JHE ch.12 §E(2) star (one amount for A-E), (4) spade, (6) heart,
    # (8) diamond, (10) club.  All five meters are listed for every table,
    # even where the table pays nothing from one (club in A-D is $0; B and D
    # pay no royal from Spade).
    (JHE, "A"): {"star": _d("10000"), "spade": _d("5000"), "heart": _d("1000"),
                 "diamond": _d("500"), "club": _d("0")},
    (JHE, "B"): {"star": _d("10000"), "spade": _d("1000"), "heart": _d("500"),
                 "diamond": _d("100"), "club": _d("0")},
    (JHE, "C"): {"star": _d("10000"), "spade": _d("5000"), "heart": _d("1000"),
                 "diamond": _d("500"), "club": _d("0")},
    (JHE, "D"): {"star": _d("10000"), "spade": _d("1000"), "heart": _d("500"),
                 "diamond": _d("100"), "club": _d("0")},
    (JHE, "E"): {"star": _d("10000"), "spade": _d("10000"), "heart": _d("5000"),
                 "diamond": _d("1000"), "club": _d("250")},
    # HCF ch.12 §E(2)(b)
    (HCF, "A"): {"meter": _d("30000")},
    (HCF, "B"): {"meter": _d("30000")},
    (HCF, "C"): {"meter": _d("5000")},
    (HCF, "D"): {"meter": _d("30000")},
    (HCF, "E"): {"meter": _d("25000")},
    # RET ch.12 §F(6)(b)
    (RET, "A"): {"meter": _d("10000")},
    (RET, "B"): {"meter": _d("2000")},
    (RET, "C"): {"major": _d("10000"), "minor": _d("1000")},
    (RET, "D"): {"mega": _d("10000"), "major": _d("1000"), "minor": _d("250")},
}

METER_MINIMUM_CLAUSES: dict[tuple[str, str], str] = {
    (UTH, "A"): "UTH ch.12 §D(3)(b)(i)",
    (UTH, "B"): "UTH ch.12 §D(3)(b)(ii)",
    (UTH, "C"): "UTH ch.12 §D(3)(b)(iii)",
    (UTH, "D"): "UTH ch.12 §D(3)(b)(iv)",
    (JHE, "A"): "JHE ch.12 §E(2)(a), (4)(a), (6)(a), (8)(a), (10)(a)",
    (JHE, "B"): "JHE ch.12 §E(2)(a), (4)(b), (6)(b), (8)(b), (10)(b)",
    (JHE, "C"): "JHE ch.12 §E(2)(a), (4)(c), (6)(c), (8)(c), (10)(c)",
    (JHE, "D"): "JHE ch.12 §E(2)(a), (4)(d), (6)(d), (8)(d), (10)(d)",
    (JHE, "E"): "JHE ch.12 §E(2)(a), (4)(e), (6)(e), (8)(e), (10)(e)",
    (HCF, "A"): "HCF ch.12 §E(2)(b)(i)",
    (HCF, "B"): "HCF ch.12 §E(2)(b)(i)",
    (HCF, "C"): "HCF ch.12 §E(2)(b)(ii)",
    (HCF, "D"): "HCF ch.12 §E(2)(b)(i)",
    (HCF, "E"): "HCF ch.12 §E(2)(b)(iii)",
    (RET, "A"): "RET ch.12 §F(6)(b)(i)",
    (RET, "B"): "RET ch.12 §F(6)(b)(ii)",
    (RET, "C"): "RET ch.12 §F(6)(b)(iii)",
    (RET, "D"): "RET ch.12 §F(6)(b)(iv)",
}

__all__ = [
    "PAYTABLES",
    "paytable",
    "letters",
    "METERS",
    "METER_MINIMUMS",
    "METER_MINIMUM_CLAUSES",
]

"""Structural checks of the paytable data in ``games.paytables``.

These tests do not repeat the numbers of the rules (the module itself is the
one transcription); they check the shape: which tables exist, which line keys
and payout kinds they may use, that clauses are well formed, that payouts fall
down each table except where the rules themselves print otherwise, and that
every progressive meter has a minimum.

The rules' $5 Envy Bonus tables (UTH ch.12 §D(7), RET ch.12 §I) are not stored:
they are exactly 5x the $1 tables, which RULINGS R3 records and on which the
linear scaling of ``FixedPerUnit`` rests.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from games.paytable import (
    FixedAmount,
    FixedPerUnit,
    Line,
    MeterPercent,
    Odds,
    Paytable,
    Push,
)
from games.paytables import (
    METER_MINIMUM_CLAUSES,
    METER_MINIMUMS,
    METERS,
    PAYTABLES,
    letters,
    paytable,
)

UTH = "ultimate_texas_holdem"
JHE = "jackpot_holdem"
HCF = "high_card_flush"
RET = "run_em_twice"

ABBREV = {UTH: "UTH", JHE: "JHE", HCF: "HCF", RET: "RET"}

# -- which tables the rules offer ---------------------------------------------

EXPECTED_LETTERS: dict[tuple[str, str], str] = {
    (UTH, "blind"): "AB",                 # UTH ch.12 §B
    (UTH, "trips"): "ABCDE",              # UTH ch.12 §C
    (UTH, "progressive"): "ABCD",         # UTH ch.12 §D(1)
    (UTH, "envy"): "ABCD",                # UTH ch.12 §D(6)
    (UTH, "six_card_bonus"): "AB",        # UTH ch.12 §E (first)
    (UTH, "ultimate_pairs"): "ABCDEF",    # UTH ch.12 §E (second)
    (UTH, "bad_beat"): "ABC",             # UTH ch.12 §F (second)
    (UTH, "play_the_board"): "ABC",       # UTH ch.12 §G
    (JHE, "xtra_bonus"): "A",             # JHE ch.12 §B
    (JHE, "player_bonus"): "A",           # JHE ch.12 §C
    (JHE, "progressive"): "ABCDE",        # JHE ch.12 §D(2)-(6)
    (HCF, "flush_bonus"): "ABCDEFGHIJKLMNO",  # HCF ch.12 §B
    (HCF, "straight_flush_bonus"): "ABCDEFG",  # HCF ch.12 §C
    (HCF, "progressive"): "ABCDE",        # HCF ch.12 §E(1)
    (HCF, "envy"): "CDE",                 # HCF ch.12 §E(5), RULINGS R18a
    (RET, "run"): "A",                    # RET ch.12 §B (unlettered)
    (RET, "five_card_bonus"): "A",        # RET ch.12 §D (unlettered)
    (RET, "ultimate_pairs"): "ABCDE",     # RET ch.12 §E
    (RET, "progressive"): "ABCD",         # RET ch.12 §F
    (RET, "envy"): "ABCD",                # RET ch.12 §H
}

UNLETTERED = {(RET, "run"), (RET, "five_card_bonus")}

# -- the vocabulary of line keys ----------------------------------------------

POKER = {
    "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
    "straight", "three_of_a_kind", "two_pair",
}
PAIRS = {
    "pair_of_player_aces_and_dealer_aces",
    "pair_of_player_aces_of_hearts_and_diamonds",
    "pair_of_aces",
    "ace_and_king_of_the_same_suit",
    "ace_and_queen_or_jack_of_the_same_suit",
    "ace_and_king_of_different_suits",
    "pair_of_jacks_queens_or_kings",
    "ace_and_queen_or_jack_of_different_suits",
    "pair_of_tens_or_less",
}
HCF_STRAIGHT_FLUSHES = {f"straight_flush_{n}" for n in range(3, 8)}

VOCABULARY: dict[tuple[str, str], set[str]] = {
    (UTH, "blind"): POKER - {"three_of_a_kind", "two_pair"} | {"less_than_a_straight"},
    (UTH, "trips"): POKER - {"two_pair"},
    (UTH, "progressive"): POKER - {"two_pair"},
    (UTH, "envy"): {"royal_flush", "straight_flush"},
    (UTH, "six_card_bonus"): POKER - {"two_pair"} | {
        "super_royal_diamonds", "super_royal_hearts_spades_or_clubs", "super_royal",
    },
    (UTH, "ultimate_pairs"): PAIRS,
    (UTH, "bad_beat"): POKER - {"two_pair"},
    (UTH, "play_the_board"): POKER | {"pair_of_tens_or_better"},
    (JHE, "xtra_bonus"): POKER - {"three_of_a_kind", "two_pair"} | {"less_than_a_straight"},
    (JHE, "player_bonus"): POKER - {"two_pair"},
    (JHE, "progressive"): POKER - {"royal_flush"} | {
        "royal_flush_diamonds", "royal_flush_spades_hearts_or_clubs",
    },
    (HCF, "flush_bonus"): {"flush_7", "flush_6", "flush_5", "flush_4"},
    (HCF, "straight_flush_bonus"): HCF_STRAIGHT_FLUSHES | {"four_of_a_kind"},
    (HCF, "progressive"): HCF_STRAIGHT_FLUSHES | {"suited_nine_ten_jack_queen_king_ace"},
    (HCF, "envy"): {"straight_flush_7", "straight_flush_6"},
    (RET, "run"): POKER | {"pair_of_jacks_or_better", "pair_of_6s_to_10s"},
    (RET, "five_card_bonus"): POKER | {"pair_of_6s_or_better"},
    (RET, "ultimate_pairs"): PAIRS,
    (RET, "progressive"): POKER - {"two_pair"},
    (RET, "envy"): {"royal_flush", "straight_flush"},
}

# The payout kinds each wager may use.
PAY_KINDS: dict[str, set[type]] = {
    "blind": {Odds, Push},
    "xtra_bonus": {Odds, Push},
    "run": {Odds, Push},
    "six_card_bonus": {Odds, FixedAmount},  # RULINGS R21a
    "progressive": {Odds, MeterPercent, FixedPerUnit},
    "envy": {FixedPerUnit},  # RULINGS R3
}
DEFAULT_PAY_KINDS = {Odds}

# -- where the rules themselves break the usual shape --------------------------

# Tables whose printed order has a line paying MORE than the line above it, with
# the clause of each such line.  UTH Ultimate Pairs C-F print the J/Q/K pair line
# above the A-Q/A-J offsuit line although it pays less.  (RET's Ultimate Pairs
# tables print those two lines the other way round and are monotonic.)
NON_MONOTONIC: dict[tuple[str, str, str], tuple[str, ...]] = {
    (UTH, "ultimate_pairs", "C"): ("UTH ch.12 §E (Ultimate Pairs)(3)(f)",),
    (UTH, "ultimate_pairs", "D"): ("UTH ch.12 §E (Ultimate Pairs)(4)(g)",),
    (UTH, "ultimate_pairs", "E"): ("UTH ch.12 §E (Ultimate Pairs)(5)(g)",),
    (UTH, "ultimate_pairs", "F"): ("UTH ch.12 §E (Ultimate Pairs)(6)(f)",),
}

# Play the Board prints a second "(g)" (for the pair of tens or better line)
# after (h); cited as printed, so that clause occurs twice in each table.
DUPLICATE_LINE_CLAUSES: dict[tuple[str, str, str], set[str]] = {
    (UTH, "play_the_board", "A"): {"UTH ch.12 §G(1)(g)"},
    (UTH, "play_the_board", "B"): {"UTH ch.12 §G(2)(g)"},
    (UTH, "play_the_board", "C"): {"UTH ch.12 §G(3)(g)"},
}

# HCF's fifteenth Flush Bonus table, Paytable O, is printed "(8)" like H.
DUPLICATE_TABLE_CLAUSES: dict[str, set[tuple[str, str, str]]] = {
    "HCF ch.12 §B(8)": {(HCF, "flush_bonus", "H"), (HCF, "flush_bonus", "O")},
}


def _all_tables() -> list[Paytable]:
    return list(PAYTABLES.values())


def _ids(tables: list[Paytable]) -> list[str]:
    return [f"{t.game}/{t.wager}/{t.letter}" for t in tables]


TABLES = _all_tables()


# =============================================================================
# Which tables exist
# =============================================================================


def test_every_game_and_wager_has_exactly_the_expected_letters():
    found: dict[tuple[str, str], set[str]] = {}
    for game, wager, letter in PAYTABLES:
        found.setdefault((game, wager), set()).add(letter)
    assert {k: "".join(sorted(v)) for k, v in found.items()} == EXPECTED_LETTERS


@pytest.mark.parametrize("game_wager", sorted(EXPECTED_LETTERS))
def test_letters_lists_the_tables_in_order(game_wager):
    assert letters(*game_wager) == tuple(EXPECTED_LETTERS[game_wager])


def test_keys_match_the_tables_they_index():
    for (game, wager, letter), table in PAYTABLES.items():
        assert isinstance(table, Paytable)
        assert (table.game, table.wager, table.letter) == (game, wager, letter)


def test_only_the_rules_single_unlettered_tables_are_unlettered():
    # JHE's X-tra Bonus and Player Bonus are printed "Paytable A": lettered.
    unlettered = {(t.game, t.wager) for t in TABLES if not t.lettered}
    assert unlettered == UNLETTERED
    for game, wager in UNLETTERED:
        assert letters(game, wager) == ("A",)


# =============================================================================
# Look-ups
# =============================================================================


@pytest.mark.parametrize("game_wager", sorted(EXPECTED_LETTERS))
def test_letter_none_only_for_single_table_wagers(game_wager):
    game, wager = game_wager
    if len(EXPECTED_LETTERS[game_wager]) == 1:
        assert paytable(game, wager, None) is PAYTABLES[(game, wager, "A")]
    else:
        with pytest.raises(KeyError) as info:
            paytable(game, wager, None)
        assert game in str(info.value) and wager in str(info.value)


def test_lookup_by_letter_returns_the_table():
    for (game, wager, letter), table in PAYTABLES.items():
        assert paytable(game, wager, letter) is table


@pytest.mark.parametrize(
    "game, wager, letter",
    [
        (UTH, "trips", "F"),
        (HCF, "envy", "A"),  # HCF Envy exists only for C, D, E (R18a)
        (HCF, "flush_bonus", "P"),
        (JHE, "xtra_bonus", "B"),
        (UTH, "no_such_wager", "A"),
        ("no_such_game", "trips", "A"),
    ],
)
def test_unknown_table_raises_key_error_naming_it(game, wager, letter):
    with pytest.raises(KeyError) as info:
        paytable(game, wager, letter)
    message = str(info.value)
    assert game in message and wager in message
    if (game, wager) in EXPECTED_LETTERS:
        assert repr(letter) in message


def test_letters_of_unknown_wager_raises_key_error():
    with pytest.raises(KeyError, match="no_such_wager"):
        letters(UTH, "no_such_wager")


# =============================================================================
# Lines: keys, payout kinds, values
# =============================================================================


@pytest.mark.parametrize("table", TABLES, ids=_ids(TABLES))
def test_lines_are_unique_and_from_the_vocabulary(table):
    keys = [line.key for line in table.lines]
    assert keys, "empty paytable"
    assert len(keys) == len(set(keys)), f"repeated line in {table.clause}"
    assert set(keys) <= VOCABULARY[(table.game, table.wager)]


@pytest.mark.parametrize("table", TABLES, ids=_ids(TABLES))
def test_payout_kinds_and_values_are_well_formed(table):
    allowed = PAY_KINDS.get(table.wager, DEFAULT_PAY_KINDS)
    for line in table.lines:
        assert isinstance(line, Line)
        pays = line.pays
        assert type(pays) in allowed, f"{line.clause}: {type(pays).__name__}"
        if isinstance(pays, Odds):
            assert type(pays.numerator) is int and type(pays.denominator) is int
            assert pays.numerator > 0 and pays.denominator > 0
            assert pays.word in ("to", "for")
        elif isinstance(pays, (FixedPerUnit, FixedAmount)):
            assert isinstance(pays.dollars, Decimal) and pays.dollars.is_finite()
            assert pays.dollars > 0
        elif isinstance(pays, MeterPercent):
            assert isinstance(pays.percent, Decimal) and pays.percent.is_finite()
            assert Decimal(0) < pays.percent <= Decimal(100)
            assert pays.meter in METERS[table.game]


@pytest.mark.parametrize("table", TABLES, ids=_ids(TABLES))
def test_a_push_is_only_ever_the_last_line(table):
    for line in table.lines[:-1]:
        assert not isinstance(line.pays, Push), line.clause


def _worth(table: Paytable, line: Line) -> tuple[int, Decimal]:
    """A sortable size of a line's payout.

    Jackpot-sized payouts (a share of a meter, valued at the meter's minimum
    reset amount; a fixed amount whatever the wager) rank above every payout
    that is a multiple of the wager; those are compared by the net win per unit
    wagered (RULINGS R2, R3).
    """
    pays = line.pays
    if isinstance(pays, MeterPercent):
        minimum = METER_MINIMUMS[(table.game, table.letter)][pays.meter]
        return (1, pays.percent / 100 * minimum)
    if isinstance(pays, FixedAmount):
        return (1, pays.dollars)
    if isinstance(pays, FixedPerUnit):
        return (0, pays.dollars - 1)
    if isinstance(pays, Odds):
        net = Decimal(pays.numerator) / Decimal(pays.denominator)
        return (0, net if pays.word == "to" else net - 1)
    assert isinstance(pays, Push)
    return (0, Decimal(0))


def test_payouts_fall_down_each_table_except_where_the_rules_print_otherwise():
    rises: dict[tuple[str, str, str], tuple[str, ...]] = {}
    for key, table in PAYTABLES.items():
        worths = [_worth(table, line) for line in table.lines]
        up = tuple(
            table.lines[i].clause
            for i in range(1, len(worths))
            if worths[i] > worths[i - 1]
        )
        if up:
            rises[key] = up
    assert rises == NON_MONOTONIC


# =============================================================================
# Clauses
# =============================================================================

TABLE_CLAUSE = re.compile(r"^(UTH|JHE|HCF|RET) ch\.12 §[A-Z]( \([A-Za-z ]+\))?(\([0-9a-z]+\))*$")
LINE_LABEL = re.compile(r"^\(([a-z]|[ivx]+|[0-9]+)\)$")


@pytest.mark.parametrize("table", TABLES, ids=_ids(TABLES))
def test_clauses_are_well_formed(table):
    assert TABLE_CLAUSE.match(table.clause), table.clause
    assert table.clause.startswith(f"{ABBREV[table.game]} ch.12 §")
    for line in table.lines:
        assert line.clause.startswith(table.clause), line.clause
        assert LINE_LABEL.match(line.clause[len(table.clause):]), line.clause


def test_line_clauses_are_unique_within_a_table_except_play_the_board():
    duplicates: dict[tuple[str, str, str], set[str]] = {}
    for key, table in PAYTABLES.items():
        clauses = [line.clause for line in table.lines]
        repeated = {c for c in clauses if clauses.count(c) > 1}
        if repeated:
            duplicates[key] = repeated
    assert duplicates == DUPLICATE_LINE_CLAUSES


def test_table_clauses_are_unique_except_hcf_flush_bonus_o():
    by_clause: dict[str, set[tuple[str, str, str]]] = {}
    for key, table in PAYTABLES.items():
        by_clause.setdefault(table.clause, set()).add(key)
    shared = {c: keys for c, keys in by_clause.items() if len(keys) > 1}
    assert shared == DUPLICATE_TABLE_CLAUSES


def test_uth_duplicated_section_letters_are_disambiguated():
    # UTH ch.12 prints two §E's (Six Card Bonus, Ultimate Pairs) and two §F's
    # (payout limit, Bad Beat).
    for table in TABLES:
        if table.game != UTH:
            continue
        expected = {
            "six_card_bonus": "UTH ch.12 §E (Six Card Bonus)(",
            "ultimate_pairs": "UTH ch.12 §E (Ultimate Pairs)(",
            "bad_beat": "UTH ch.12 §F (Bad Beat)(",
        }.get(table.wager)
        if expected:
            assert table.clause.startswith(expected), table.clause
        else:
            assert " (" not in table.clause, table.clause


# =============================================================================
# Points the rulings settle, checked for shape
# =============================================================================


def test_uth_blind_b_has_no_straight_line():
    # RULINGS R20: a winning straight pushes the Blind under paytable B.
    keys = [line.key for line in paytable(UTH, "blind", "B").lines]
    assert "straight" not in keys
    assert keys[-1] == "less_than_a_straight"
    assert [line.key for line in paytable(UTH, "blind", "A").lines][-2:] == [
        "straight", "less_than_a_straight",
    ]


def test_uth_bad_beat_has_no_royal_flush_line():
    # As printed (the tables start at "(b)"); a royal flush can only tie, never lose (R24b).
    for letter in letters(UTH, "bad_beat"):
        table = paytable(UTH, "bad_beat", letter)
        assert table.lines[0].key == "straight_flush"
        assert table.lines[0].clause.endswith("(b)")


def test_uth_six_card_bonus_super_royals_are_fixed_amounts_on_top():
    # RULINGS R21, R21a.
    a = [line.key for line in paytable(UTH, "six_card_bonus", "A").lines]
    b = [line.key for line in paytable(UTH, "six_card_bonus", "B").lines]
    assert a[:3] == ["super_royal_diamonds", "super_royal_hearts_spades_or_clubs", "royal_flush"]
    assert b[:2] == ["super_royal", "royal_flush"]
    for letter in "AB":
        for line in paytable(UTH, "six_card_bonus", letter).lines:
            assert isinstance(line.pays, FixedAmount) == line.key.startswith("super_royal")


def test_hcf_straight_flush_bonus_g_pays_four_of_a_kind_where_printed():
    # RULINGS R19: between the four-card and three-card straight flush lines.
    keys = [line.key for line in paytable(HCF, "straight_flush_bonus", "G").lines]
    assert keys[keys.index("four_of_a_kind") - 1] == "straight_flush_4"
    assert keys[keys.index("four_of_a_kind") + 1] == "straight_flush_3"
    for letter in "ABCDEF":
        keys = [line.key for line in paytable(HCF, "straight_flush_bonus", letter).lines]
        assert "four_of_a_kind" not in keys


def test_hcf_suited_nine_to_ace_sits_between_seven_and_six_card_lines():
    # RULINGS R18: in Progressive D and E only.
    for letter in letters(HCF, "progressive"):
        keys = [line.key for line in paytable(HCF, "progressive", letter).lines]
        if letter in "DE":
            assert keys[:3] == [
                "straight_flush_7", "suited_nine_ten_jack_queen_king_ace", "straight_flush_6",
            ]
        else:
            assert "suited_nine_ten_jack_queen_king_ace" not in keys


def test_jhe_progressive_splits_the_royal_by_suit():
    # RULINGS R13.
    for letter in letters(JHE, "progressive"):
        table = paytable(JHE, "progressive", letter)
        assert [line.key for line in table.lines[:2]] == [
            "royal_flush_diamonds", "royal_flush_spades_hearts_or_clubs",
        ]
        assert table.lines[0].pays == MeterPercent("star", Decimal(100))


def test_envy_tables_exist_only_beside_a_progressive_table_of_the_same_letter():
    # RULINGS R18a (HCF), R24 (UTH), R29 (RET).
    for (game, wager), _ in EXPECTED_LETTERS.items():
        if wager == "envy":
            assert set(letters(game, "envy")) <= set(letters(game, "progressive"))


# =============================================================================
# Meters and their minimums
# =============================================================================


def test_meter_names_per_game():
    assert METERS == {
        UTH: ("meter", "mega", "major", "minor"),
        JHE: ("star", "spade", "heart", "diamond", "club"),
        HCF: ("meter",),
        RET: ("meter", "mega", "major", "minor"),
    }


def test_every_meter_name_is_used_by_some_table():
    used: dict[str, set[str]] = {}
    for table in TABLES:
        used.setdefault(table.game, set()).update(table.meters)
    for game, names in METERS.items():
        assert used.get(game, set()) == set(names), game


def test_meter_minimums_cover_exactly_the_progressive_tables():
    progressive = {(t.game, t.letter) for t in TABLES if t.wager == "progressive"}
    assert set(METER_MINIMUMS) == progressive
    assert set(METER_MINIMUM_CLAUSES) == progressive


@pytest.mark.parametrize(
    "table",
    [t for t in TABLES if t.wager == "progressive"],
    ids=_ids([t for t in TABLES if t.wager == "progressive"]),
)
def test_every_meter_a_table_pays_from_has_a_minimum(table):
    minimums = METER_MINIMUMS[(table.game, table.letter)]
    assert table.meters, "a progressive table without a meter"
    assert set(table.meters) <= set(minimums)
    assert set(minimums) <= set(METERS[table.game])
    if table.game == JHE:
        # JHE ch.12 §E lists all five meters for every table.
        assert set(minimums) == set(METERS[JHE])
    else:
        # The other games list exactly the meters the table pays from.
        assert set(minimums) == set(table.meters)
    for meter, amount in minimums.items():
        assert isinstance(amount, Decimal) and amount.is_finite() and amount >= 0, meter
        if meter in table.meters:
            assert amount > 0, f"{meter} pays but has a $0 minimum"


def test_meter_minimum_clauses_cite_the_right_game():
    for (game, _letter), clause in METER_MINIMUM_CLAUSES.items():
        assert clause.startswith(f"{ABBREV[game]} ch.12 §"), clause

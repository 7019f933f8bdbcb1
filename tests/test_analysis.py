"""Par sheets (shared/contracts/analyze.md): the batch evaluator against games.poker,
exact counts against the standard combinatorics, published house edges, refusals."""

from __future__ import annotations

import io
import json
import random
from decimal import Decimal
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

import numpy as np
import pytest

from controller.cli.main import main
from games import analysis, batch, progressive_return
from games.cards import DECK
from games.high_card_flush import lines_made as hcf_lines_made
from games.paytables import METER_MINIMUMS, PAYTABLES, paytable
from games.poker import value

UTH, HCF, JHE, RET = "ultimate_texas_holdem", "high_card_flush", "jackpot_holdem", "run_em_twice"

# Seven-card categories, high card .. royal flush (the standard combinatorics).
SEVEN = [23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 37260, 4324]
SIX = [6612900, 9730740, 2532816, 732160, 361620, 205792, 165984, 14664, 1656, 188]
FIVE = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["analyze", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# -- the batch evaluator -------------------------------------------------------------------------


@pytest.mark.parametrize("k", [5, 6, 7])
def test_batch_categories_equal_single_hand_evaluator(k):
    rng = random.Random(k)
    hands = [rng.sample(DECK, k) for _ in range(100_000 if k == 7 else 20_000)]
    got = batch.categorise(batch.hand_indices(hands))
    want = np.array([value(h) >> 20 for h in hands])
    assert np.array_equal(got, want)


def test_batch_pair_ranks():
    rng = random.Random(9)
    hands = [rng.sample(DECK, 5) for _ in range(5000)]
    ranks = batch.pair_ranks(batch.hand_indices(hands))
    for h, r in zip(hands, ranks, strict=True):
        counts = [sum(c.rank == x for c in h) for x in range(2, 15)]
        held = [x for x, n in zip(range(2, 15), counts, strict=True) if n >= 2]
        assert r == (max(held) if held else 0)


@pytest.mark.parametrize("k,want", [(5, FIVE), (6, SIX), (7, SEVEN)])
def test_every_hand_counted_by_category(k, want):
    counts = analysis.poker_counts(k)
    assert counts.categories.tolist() == want
    assert counts.hands == comb(52, k)
    assert counts.royal_by_suit.tolist() == [want[9] // 4] * 4


# -- the contract's worked example ------------------------------------------------------------------


def test_uth_trips_a_exact_as_the_contract_shows():
    code, out, err = run("--game", UTH, "--wager", "trips", "--paytable", "A", "--json")
    assert code == 0, err
    got = json.loads(out)
    assert {k: got[k] for k in ("game", "wager", "paytable", "method", "space", "losing_count")} == {
        "game": UTH, "wager": "trips", "paytable": "A", "method": "exact",
        "space": 133784560, "losing_count": 113355660,
    }
    assert got["lines"] == [
        {"line": "royal_flush", "pays": "50 to 1", "count": 4324},
        {"line": "straight_flush", "pays": "40 to 1", "count": 37260},
        {"line": "four_of_a_kind", "pays": "30 to 1", "count": 224848},
        {"line": "full_house", "pays": "9 to 1", "count": 3473184},
        {"line": "flush", "pays": "7 to 1", "count": 4047644},
        {"line": "straight", "pays": "4 to 1", "count": 6180020},
        {"line": "three_of_a_kind", "pays": "3 to 1", "count": 6461620},
    ]
    assert '"return": 0.990982' in out and '"house_edge": 0.009018' in out


@pytest.mark.parametrize("key", [k for k in PAYTABLES if k[1] in analysis.EXACT.get(k[0], ())])
def test_every_exact_par_sheet_adds_up(key):
    game, wager, letter = key
    r = analysis.analyze(game, wager, letter)
    table = PAYTABLES[key]
    assert [x["line"] for x in r["lines"]] == [line.key for line in table.lines]  # paytable order, zeros kept
    assert r["losing_count"] + sum(x["count"] for x in r["lines"]) == r["space"]
    assert r["return"] + r["house_edge"] == 1


def test_published_house_edge_uth_trips():
    # Wizard of Odds, "Florida Variant of Trips Bet"
    # (https://wizardofodds.com/games/three-card-poker/side-bets/millionaire-maker/florida-variant-trips-bet/):
    # "the most common 50-40-30-8-7-4-3 Trips pay table under the conventional rules has a house edge
    # of 3.50%" -- that is UTH ch.12 §C(3), paytable C.
    assert round(analysis.analyze(UTH, "trips", "C")["house_edge"] * 100, 2) == Decimal("3.50")
    # No citable published figure was found for the other games' wagers (Six Card Bonus, Ultimate Pairs,
    # Play the Board, JHE, HCF, RET): they are checked by their combinatorics below instead.


def test_six_card_bonus_counts():
    r = analysis.analyze(UTH, "six_card_bonus", "A")
    counts = [x["count"] for x in r["lines"]]
    # super royal: the four suited A-K-Q-J-10-9 (R21), taken out of the 188 six-card royals
    assert counts == [1, 3, 184, 1656, 14664, 165984, 205792, 361620, 732160]
    assert r["space"] == comb(52, 6)


def test_play_the_board_and_five_card_bonus_counts():
    r = analysis.analyze(UTH, "play_the_board", "A")
    # pair of tens or better: 5 ranks x 84,480 one-pair hands each (R23)
    assert [x["count"] for x in r["lines"]] == [4, 36, 624, 3744, 5108, 10200, 54912, 123552, 5 * 84480]
    r = analysis.analyze(RET, "five_card_bonus", None)
    assert r["lines"][-1] == {"line": "pair_of_6s_or_better", "pays": "1 to 1", "count": 9 * 84480}


def test_ultimate_pairs_counts():
    r = analysis.analyze(UTH, "ultimate_pairs", "A")
    assert r["space"] == 1326
    assert [x["count"] for x in r["lines"]] == [6, 4, 8, 12, 18, 24, 54]
    r = analysis.analyze(UTH, "ultimate_pairs", "B")  # the dealer's two cards too (R22)
    assert r["space"] == 1326 * 1225
    assert r["lines"][0]["count"] == 6  # player aces, dealer the other two aces
    assert r["lines"][1]["count"] == 6 * 1225 - 6
    r = analysis.analyze(UTH, "ultimate_pairs", "D")
    assert [x["count"] for x in r["lines"][:2]] == [1, 5]  # exactly A♥A♦ (R22)


def test_dealer_cards_matter_only_for_player_aces():
    from games.ultimate_pairs import ultimate_pairs_made

    rng = random.Random(3)
    for _ in range(5000):
        cards = rng.sample(DECK, 4)
        if not (cards[0].rank == cards[1].rank == 14):
            assert ultimate_pairs_made(cards[:2], cards[2:]) == ultimate_pairs_made(cards[:2])


def test_hcf_flush_bonus_counts():
    # longest suit of seven cards: 7, 6, 5, 4, counted by suit distribution
    c = comb
    want = [
        4 * c(13, 7),
        4 * c(13, 6) * 39,
        4 * c(13, 5) * c(39, 2),
        4 * 3 * c(13, 4) * c(13, 3) + 4 * 3 * 2 * c(13, 4) * c(13, 2) * 13 + 4 * c(13, 4) * 13**3,
    ]
    r = analysis.analyze(HCF, "flush_bonus", "A")
    assert [x["count"] for x in r["lines"]] == want == [6864, 267696, 3814668, 26137540]


@cache
def _hcf_hands_and_lines() -> tuple[tuple[list[Any], dict[str, Any]], ...]:
    """The 3,000 random seven-card hands every HCF paytable is checked on, with what the game makes of each:
    the same hands for every paytable, so the game's evaluation is made once per process, not per paytable."""
    rng = random.Random(7)
    return tuple((cards, hcf_lines_made(cards)) for cards in (rng.sample(DECK, 7) for _ in range(3000)))


@pytest.mark.parametrize("key", [k for k in PAYTABLES if k[0] == HCF and k[1] != "envy"])
def test_hcf_suit_by_suit_equals_the_game(key):
    table = PAYTABLES[key]
    for cards, made in _hcf_hands_and_lines():
        line = table.line_for(made[table.wager])
        want = len(table.lines) if line is None else table.lines.index(line)
        assert analysis.hcf_line_index(table, cards) == want


def test_hcf_suit_by_suit_on_rare_hands():
    table = paytable(HCF, "straight_flush_bonus", "G")
    rng = random.Random(8)
    for _ in range(3000):
        suit = rng.choice("cdhs")
        top = rng.randint(5, 14)
        run = [c for c in DECK if c.suit == suit and top - 4 <= c.rank <= top]
        rest = rng.sample([c for c in DECK if c not in run], 2)
        cards = run + rest
        line = table.line_for(hcf_lines_made(cards)["straight_flush_bonus"])
        want = len(table.lines) if line is None else table.lines.index(line)
        assert analysis.hcf_line_index(table, cards) == want


def test_progressive_meters_default_and_given():
    r = analysis.analyze(UTH, "progressive", "A")
    assert r["meters"] == {"meter": Decimal("10000.00")}
    assert r["progressive_unit"] == 1
    more = analysis.analyze(UTH, "progressive", "A", ["meter=20000"])
    # royal 100% and straight flush 10% of the meter (R4): 10,000 and 1,000 more per hit, on the
    # five cards of the Progressive Payout Hand (R24a)
    diff = Fraction(more["return_exact"]) - Fraction(r["return_exact"])
    assert diff == Fraction(ROYAL * 10000 + SF * 1000, comb(52, 5))
    jhe = analysis.analyze(JHE, "progressive", "A")
    assert [x["count"] for x in jhe["lines"][:2]] == [1, 3]  # the diamond royal, the other three (R13)


# -- the Progressive hand is five cards (R24a, R29); what a reviewer asks of a progressive ---------------

# Five-card categories, the standard closed forms (royal, straight flush, quads, full house, flush,
# straight, trips, two pair, pair).
ROYAL, SF, QUADS, FH, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR = 4, 36, 624, 3744, 5108, 10200, 54912, 123552, 1098240
FIVE_CARD_HANDS = comb(52, 5)


def test_done_when_uth_progressive_a():
    # UTH ch.12 §D(1)(a) at its minimum meter $10,000 (§D(3)(b)(i)), "X to 1" returns X + 1 (R2)
    total = ROYAL * 10000 + SF * 1000 + QUADS * 301 + FH * 51 + FLUSH * 41 + STRAIGHT * 31 + TRIPS * 10
    assert total == 1529516
    code, out, err = run("--game", UTH, "--wager", "progressive", "--paytable", "A", "--json")
    assert code == 0, err
    got = json.loads(out, parse_float=Decimal)
    assert got["space"] == FIVE_CARD_HANDS
    assert [x["count"] for x in got["lines"]] == [ROYAL, SF, QUADS, FH, FLUSH, STRAIGHT, TRIPS]
    assert Fraction(got["return_exact"]) == Fraction(total, FIVE_CARD_HANDS)
    assert got["return"] == Decimal("0.588511") and got["house_edge"] == Decimal("0.411489")
    # the break-even meter: the least amount (to the cent) at which the return reaches 1
    amount = got["break_even_meter"]["amount"]
    assert got["break_even_meter"]["meter"] == "meter"
    at = analysis.analyze(UTH, "progressive", "A", [f"meter={amount}"])
    below = analysis.analyze(UTH, "progressive", "A", [f"meter={amount - Decimal('0.01')}"])
    assert Fraction(at["return_exact"]) >= 1 > Fraction(below["return_exact"])
    # near 10,000 + 7.6 x the shortfall per hand counted (royal 100%, straight flush 10%: 4 + 3.6)
    assert abs(Fraction(amount) - Fraction(10 * (76000 + FIVE_CARD_HANDS - total), 76)) < 1


def test_done_when_ret_progressive_a():
    # RET ch.12 §F(1) on the 1st Run hand (R29), meter $10,000 (§F(6)(b)(i)), "X for 1" returns X (R2)
    total = ROYAL * 10000 + SF * 1000 + QUADS * 300 + FH * 50 + FLUSH * 40 + STRAIGHT * 30 + TRIPS * 9
    r = analysis.analyze(RET, "progressive", "A")
    assert r["space"] == FIVE_CARD_HANDS and r["lines"][0]["count"] == ROYAL
    assert Fraction(r["return_exact"]) == Fraction(total, FIVE_CARD_HANDS)
    assert r["return"] == Decimal("0.559812")


def test_unit_rates_and_hit_frequencies_jhe_e():
    # JHE ch.12 §D(6): every meter line pays the meter whatever the unit; "X for 1" scales with it (R3)
    meters = 10000 * 1 + 10000 * 3 + 5000 * SF + 1000 * QUADS + 250 * FH
    fixed = 50 * FLUSH + 30 * STRAIGHT + 10 * TRIPS
    one = analysis.analyze(JHE, "progressive", "E")
    assert Fraction(one["return_exact"]) == Fraction(meters + fixed, FIVE_CARD_HANDS)
    assert one["break_even_meter"]["amount"] is None  # 100% or more at the reset amounts already
    five = analysis.analyze(JHE, "progressive", "E", unit="5", rate_args=["star=0.03", "club=0.01"])
    want = Fraction(meters, 5 * FIVE_CARD_HANDS) + Fraction(fixed, FIVE_CARD_HANDS)
    assert Fraction(five["return_exact"]) == want and five["progressive_unit"] == 5
    assert five["rates"] == {"star": Decimal("0.03"), "spade": 0, "heart": 0, "diamond": 0, "club": Decimal("0.01")}
    assert five["contribution_rate"] == Decimal("0.04")
    assert Fraction(five["return_with_contributions_exact"]) == want + Fraction(4, 100)
    assert [(m["meter"], m["lines"], m["count"]) for m in five["meter_hits"]] == [
        ("star", ["royal_flush_diamonds"], 1),
        ("spade", ["royal_flush_spades_hearts_or_clubs"], 3),
        ("heart", ["straight_flush"], SF),
        ("diamond", ["four_of_a_kind"], QUADS),
        ("club", ["full_house"], FH),
    ]
    assert five["meter_hits"][0]["one_in"] == FIVE_CARD_HANDS
    assert five["hit_frequency"]["count"] == ROYAL + SF + QUADS + FH + FLUSH + STRAIGHT + TRIPS
    assert [h["count"] for h in five["line_hits"]] == [x["count"] for x in five["lines"]]
    assert five["line_hits"][-1]["one_in"] == round(Decimal(FIVE_CARD_HANDS) / TRIPS, 2)


def test_envy_break_even_counts_the_envy():
    r = analysis.analyze(UTH, "envy", "A")
    amount = r["break_even_meter"]["amount"]
    at = analysis.analyze(UTH, "envy", "A", [f"meter={amount}"])
    below = analysis.analyze(UTH, "envy", "A", [f"meter={amount - Decimal('0.01')}"])
    assert Fraction(at["return_exact"]) >= 1 > Fraction(below["return_exact"])
    alone = analysis.analyze(UTH, "progressive", "A")["break_even_meter"]["amount"]
    assert amount < alone


@pytest.mark.parametrize("key", [k for k in PAYTABLES if k[1] in ("progressive", "envy")])
def test_the_counts_of_the_start_up_check_equal_the_full_count(key):
    """games.progressive_return (closed forms and data, RULINGS R24d at every start) against the par
    sheet's count of every hand (five cards: every one enumerated; HCF: suit by suit)."""
    space, counts, losing = progressive_return.line_counts(*key)
    full = analysis.analyze(*key, other_seats=0)
    assert space == full["space"] and losing == full["losing_count"]
    assert list(counts) == [x["count"] for x in full["lines"]]
    if key[1] == "progressive":
        minimums = METER_MINIMUMS[(key[0], key[2])]
        assert progressive_return.progressive_return(key[0], key[2], Decimal(1), minimums) == Fraction(
            full["return_exact"]
        )


def test_five_card_closed_forms():
    assert progressive_return.FIVE_CARD_CATEGORIES == tuple(FIVE)
    assert list(reversed(FIVE[1:])) == [ROYAL, SF, QUADS, FH, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR]


@pytest.mark.parametrize(
    "argv,named",
    [
        (["--unit", "0"], "--unit"),
        (["--unit", "1.005"], "--unit"),
        (["--unit", "one"], "--unit"),
        (["--rate", "meter"], "--rate"),
        (["--rate", "mega=0.01"], "--rate"),
        (["--rate", "meter=1"], "--rate"),
        (["--rate", "meter=-0.1"], "--rate"),
    ],
)
def test_bad_unit_and_rates_refused(argv, named):
    code, out, err = run("--game", UTH, "--wager", "progressive", "--paytable", "A", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and named in err


def test_readable_progressive():
    code, out, _ = run("--game", UTH, "--wager", "progressive", "--paytable", "A", "--rate", "meter=0.05")
    assert code == 0
    assert "hit frequency" in out and "break-even meter meter" in out and "0.638511" in out


def test_line_returns():
    from fractions import Fraction

    from games.paytable import FixedAmount, FixedPerUnit, MeterPercent, Odds, Push

    assert analysis.line_return(Odds(50, 1, "to"), {}) == 51  # R2
    assert analysis.line_return(Odds(300, 1, "for"), {}) == 300  # R2
    assert analysis.line_return(Odds(3, 2, "to"), {}) == Fraction(5, 2)
    assert analysis.line_return(Push(), {}) == 1
    assert analysis.line_return(FixedAmount(Decimal(1000000)), {}) == 1000001  # R21a
    assert analysis.line_return(FixedPerUnit(Decimal(250)), {}) == 250  # R3
    assert analysis.line_return(MeterPercent("meter", Decimal(10)), {"meter": Decimal("12345.67")}) == Fraction(
        "1234.57"
    )  # R4: rounded half up to the cent


# -- refusals --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv,named",
    [
        (["--wager", "trips"], "--game"),
        (["--game", "poker", "--wager", "trips"], "--game"),
        (["--game", UTH], "--wager"),
        (["--game", UTH, "--wager", "nope", "--paytable", "A"], "--wager"),
        (["--game", UTH, "--wager", "blind", "--paytable", "A"], "--wager"),
        (["--game", UTH, "--wager", "bad_beat", "--paytable", "E"], "--paytable"),
        (["--game", RET, "--wager", "progressive", "--paytable", "E"], "--paytable"),
        (["--game", UTH, "--wager", "trips"], "--paytable"),
        (["--game", UTH, "--wager", "trips", "--paytable", "F"], "--paytable"),
        (["--game", UTH, "--wager", "trips", "--paytable", "A", "--meter", "meter=1"], "--meter"),
        (["--game", UTH, "--wager", "progressive", "--paytable", "A", "--meter", "mega=20000"], "--meter"),
        (["--game", UTH, "--wager", "progressive", "--paytable", "A", "--meter", "meter=9999.99"], "--meter"),
        (["--game", UTH, "--wager", "progressive", "--paytable", "A", "--meter", "meter=1.234"], "--meter"),
        (["--game", UTH, "--wager", "progressive", "--paytable", "A", "--meter", "meter"], "--meter"),
        (["--game", UTH, "--wager", "trips", "--paytable", "A", "--rounds", "many"], "--rounds"),
        (["--game", UTH, "--wager", "trips", "--paytable", "A", "--seed", "-1"], "--seed"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(argv, named):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and named in err


def test_parts_of_the_base_game_refused_naming_base():
    code, _, err = run("--game", HCF, "--wager", "raise")
    assert code == 2 and "--wager base" in err


def test_readable_table():
    code, out, _ = run("--game", UTH, "--wager", "ultimate_pairs", "--paytable", "A")
    assert code == 0
    assert "pair_of_aces" in out and "30 to 1" in out and "house edge" in out

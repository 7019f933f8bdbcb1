"""Par sheets by simulation and the exact Envy / RET Progressive (shared/contracts/analyze.md, docs/analysis.md).

Reproducibility by seed, confidence intervals, refusals naming the argument, counts
that add up, the strategies' decisions, the vectorised Bad Beat against the game's own
settlement, and the published house edges the Wizard of Odds gives for UTH and HCF.
"""

from __future__ import annotations

import io
import json
import random
from decimal import Decimal
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from controller.cli.analyze import render
from controller.cli.main import main
from games import analysis
from games.cards import DECK, parse_cards
from games.contract import dumps
from games.paytables import paytable
from games.round import Decision, Round, Seat
from games.simulation import bad_beat_lines, deal
from games.strategy import (
    FOLD,
    RetStrategy,
    hcf_raise,
    jhe_first,
    uth_dealer_outs,
    uth_flop,
    uth_preflop,
    uth_river,
)
from games.ultimate_texas_holdem import GAME as UTH_GAME

UTH, HCF, JHE, RET = "ultimate_texas_holdem", "high_card_flush", "jackpot_holdem", "run_em_twice"
BASES = [(UTH, "A"), (UTH, "B"), (JHE, "A"), (HCF, None), (RET, None)]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["analyze", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def cards(text: str):
    return parse_cards(text.split())


def sim(game, wager, letter, rounds, seed=3, workers=1):
    return analysis.analyze(game, wager, letter, rounds=rounds, seed=seed, workers=workers)


# -- reproducibility and the confidence interval -------------------------------------------------------


def test_same_seed_same_json_whatever_the_number_of_processes():
    # two chunks (5,000 rounds and 1,000): one process or two, the chunks draw the same cards
    one = dumps(sim(UTH, "base", "A", 6_000, seed=42, workers=1))
    two = dumps(sim(UTH, "base", "A", 6_000, seed=42, workers=2))
    assert one == two
    assert dumps(sim(UTH, "base", "A", 6_000, seed=43)) != one


def test_same_seed_same_json_through_the_command_line():
    argv = ("--game", RET, "--wager", "base", "--rounds", "3000", "--seed", "9", "--json")
    first, second = run(*argv), run(*argv)
    assert first[0] == 0 and first == second
    got = json.loads(first[1])
    assert got["method"] == "simulation" and got["rounds"] == 3000 and got["seed"] == 9
    assert "space" not in got


@pytest.mark.parametrize("game,letter", BASES)
def test_ci_contains_the_estimate_and_counts_add_up(game, letter):
    rounds = 4000
    r = sim(game, "base", letter, rounds)
    low, high = r["ci95"]
    assert low < r["house_edge"] < high
    assert r["return"] + r["house_edge"] == 1
    assert sum(r["decisions"].values()) == rounds
    assert sum(r["outcomes"].values()) == rounds
    # each wager's share of the net per round adds up to the whole (each rounded to six decimals)
    assert abs(sum(r["wagers"].values()) - (r["return"] - 1)) <= Decimal("0.000005") * len(r["wagers"])
    lines = sum(x["count"] for x in r["lines"])
    if game in (UTH, JHE):  # lines count the rounds the player won, by the companion's line
        assert 0 < lines <= r["outcomes"]["win"]
    elif game == RET:  # two Run hands per round played to the end, losing hands not counted
        assert 0 < lines <= 2 * r["outcomes"]["played"]
    else:
        assert r["lines"] == []  # HCF: the Ante and Raise pay 1 to 1, no paytable
    initial = analysis.BASE_UNIT[game][1]
    assert abs(r["house_edge_per_initial_wagers"] * initial - r["house_edge"]) <= Decimal("0.000001") * initial


def test_bad_beat_counts_add_up_and_ci():
    r = sim(UTH, "bad_beat", "A", 500_000, seed=4)
    assert r["losing_count"] + sum(x["count"] for x in r["lines"]) == 500_000
    assert [x["line"] for x in r["lines"]] == [line.key for line in paytable(UTH, "bad_beat", "A").lines]
    low, high = r["ci95"]
    assert low < r["house_edge"] < high
    # the counts alone give the return: each line "X to 1" returns X + 1
    total = sum(x["count"] * (int(x["pays"].split()[0].replace(",", "")) + 1) for x in r["lines"])
    assert abs(Decimal(total) / 500_000 - r["return"]) <= Decimal("0.0000005")


# -- refusals ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv,named",
    [
        (["--game", UTH, "--wager", "base"], "--paytable"),  # the Blind has two tables
        (["--game", UTH, "--wager", "base", "--paytable", "C"], "--paytable"),
        (["--game", JHE, "--wager", "base", "--paytable", "B"], "--paytable"),
        (["--game", HCF, "--wager", "base", "--paytable", "A"], "--paytable"),  # HCF has no base paytable
        (["--game", UTH, "--wager", "bad_beat", "--paytable", "D"], "--paytable"),
        (["--game", UTH, "--wager", "base", "--paytable", "A", "--rounds", "0"], "--rounds"),
        (["--game", UTH, "--wager", "base", "--paytable", "A", "--rounds", "1e6"], "--rounds"),
        (["--game", UTH, "--wager", "base", "--paytable", "A", "--seed", "x"], "--seed"),
        (["--game", UTH, "--wager", "envy", "--paytable", "A", "--other-seats", "6"], "--other-seats"),
        (["--game", HCF, "--wager", "envy", "--paytable", "A"], "--paytable"),  # Envy C-E only (R18a)
        (["--game", UTH, "--wager", "base", "--paytable", "A", "--meter", "meter=20000"], "--meter"),
        (["--game", HCF, "--wager", "base", "--meter", "meter=40000"], "--meter"),
        (["--game", RET, "--wager", "envy", "--paytable", "A", "--meter", "mega=20000"], "--meter"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(argv, named):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and named in err


@pytest.mark.parametrize(
    "game,wager",
    [(UTH, "ante"), (UTH, "blind"), (UTH, "play"), (JHE, "xtra_bonus"), (HCF, "raise"), (RET, "center"),
     (RET, "ante_2"), (RET, "run")],
)
def test_parts_of_a_base_game_point_to_base(game, wager):
    code, out, err = run("--game", game, "--wager", wager)
    assert code == 2 and out == ""
    assert "--wager" in err and "--wager base" in err and err.count("\n") == 1


# -- the strategies ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hole,bet",
    [("2c 2d", 0), ("3c 3d", 4), ("Ac 2d", 4), ("Kc 2c", 4), ("Kc 4d", 0), ("Kc 5d", 4), ("Qc 5c", 0),
     ("Qc 6c", 4), ("Qc 7d", 0), ("Qc 8d", 4), ("Jc 7c", 0), ("Jc 8c", 4), ("Jc 9d", 0), ("Jc Td", 4),
     ("Tc 9c", 0)],
)
def test_uth_preflop_as_the_wizard_of_odds_publishes_it(hole, bet):
    assert uth_preflop(cards(hole)) == bet


@pytest.mark.parametrize(
    "hole,flop,bet",
    [
        ("9c 4d", "9h Kc 2s", 2),  # hidden pair
        ("2c 2d", "9h Kc 5s", 0),  # pocket deuces: the exception
        ("Tc 3d", "9c Kc 5c", 2),  # four to a flush with a hidden ten
        ("9c 3d", "8c Kc 5c", 0),  # four to a flush, hidden card below ten
        ("7c 3d", "Kh Kc 5s", 0),  # the board's pair only
        ("7c 3d", "7h 3c 5s", 2),  # two pair
    ],
)
def test_uth_flop(hole, flop, bet):
    assert uth_flop(cards(hole), cards(flop)) == bet


def test_uth_river_outs():
    # board A A K Q 3, player 5-4: the dealer beats A-A-K-Q-5 with any K, Q or 3 (9), an ace (2),
    # or a J, T, 9, 8, 7, 6 for a better kicker (24) = 35 outs; a 5 ties, a 4 or 2 loses.
    hole, board = cards("5c 4d"), cards("Ah Ad Kc Qs 3h")
    assert uth_dealer_outs(hole, board) == 35
    assert uth_river(hole, board) == FOLD
    assert uth_river(cards("Kd 2d"), board) == 1  # two pair: hidden
    # board 2 3 7 8 J and K-Q (K-Q-J-8-7): a card pairing the board (a 2, 3, 7, 8 or J: 3 each = 15)
    # or an ace (A-J-8-7-3, 4) beats it: 19 outs, fewer than 21, so the Wizard bets 1x.
    assert uth_dealer_outs(cards("Kc Qd"), cards("2h 3s 7d 8c Jh")) == 19
    assert uth_river(cards("Kc Qd"), cards("2h 3s 7d 8c Jh")) == 1


def test_jhe_first_decision():
    assert jhe_first(cards("9c 4d"), cards("9h")[0]) == 3  # paired by the shown card
    assert jhe_first(cards("2c 4d"), cards("2h")[0]) == 0  # deuces excepted
    assert jhe_first(cards("Kc 7d"), cards("2h")[0]) == 0 and jhe_first(cards("Kc 8d"), cards("2h")[0]) == 3
    assert jhe_first(cards("Jc Td"), cards("2h")[0]) == 0 and jhe_first(cards("Jc Tc"), cards("2h")[0]) == 3


@pytest.mark.parametrize(
    "hand,bet",
    [
        ("Th 8h 6h Js Ad Qd Jc", 1),  # T-8-6: the weakest three-card flush raised
        ("Th 8h 5h Js Ad Qd 2c", FOLD),
        ("Ah 8h 5h 2h Ad Qd 3c", 1),  # four-card flush: 1x, the most allowed (R16)
        ("Ah 8h 5h 2h 3h Qd 3c", 2),
        ("Ah 8h 5h 2h 3h 4h 3c", 3),
        ("Ah Kh Qs Js Td 9d 8c", FOLD),  # two-card flushes only
    ],
)
def test_hcf_mousseau(hand, bet):
    assert hcf_raise(cards(hand)) == bet


def test_ret_first_decision_folds_six_offsuit_hands():
    strategy = RetStrategy.for_table(paytable(RET, "run", "A"))
    folds = set()
    for a in range(2, 15):
        for b in range(2, a + 1):
            for suited in (False, True) if a != b else (False,):
                hole = (next(c for c in DECK if c.rank == a and c.suit == "s"),
                        next(c for c in DECK if c.rank == b and c.suit == ("s" if suited else "h")))
                if strategy.first(hole) == FOLD:
                    folds.add((a, b, suited))
    assert folds == {(3, 2, False), (4, 2, False), (5, 2, False), (4, 3, False), (5, 3, False), (5, 4, False)}
    assert strategy.first(cards("Jc Jd")) == 3 and strategy.first(cards("Qc Jd")) == 1


def test_ret_hole_returns_exact():
    # A Run hand of a pair of aces and three random cards: it always wins, at least 1 to 1 with its Ante.
    e_run, e_ante = RetStrategy.for_table(paytable(RET, "run", "A")).hole_returns(cards("Ac Ad"))
    assert e_ante == 1 and e_run > 1
    assert isinstance(e_run, Fraction)


def test_ret_center_decision_agrees_with_the_game_settlement():
    """The Center decision is exact: recompute it from RunEmTwice.settle over the 46 possible centers."""
    from games.run_em_twice import GAME as RET_GAME

    strategy = RetStrategy.for_table(paytable(RET, "run", "A"))
    rng = random.Random(11)
    decided = set()
    checked = 0
    while decided != {1, 3, FOLD} and checked < 400:
        checked += 1
        hole_cross = rng.sample(DECK, 6)
        hole, (left, right, top, bottom) = tuple(hole_cross[:2]), hole_cross[2:]
        bets = (rng.choice((1, 3)), rng.choice((1, 3)))
        totals = {1: Fraction(0), 3: Fraction(0)}
        for center in (c for c in DECK if c not in hole_cross):
            for k in (1, 3):
                seat = Seat(seat=1, cards=hole, wagers={"ante_1": Decimal(1), "ante_2": Decimal(1)},
                            decision=Decision(multiples=(*bets, k)))
                rnd = Round(game=RET, paytables={"run": "A"}, seats=(seat,),
                            community=(left, center, right, top, bottom))
                totals[k] += Fraction(RET_GAME.settle(rnd).seats[0].net)
        best = max((1, 3), key=lambda k: totals[k])
        want = best if totals[best] / 46 > -(2 + sum(bets)) else FOLD
        got = strategy.center(hole, (left, None, right, top, bottom), bets)
        assert got == want
        decided.add(got)
    assert decided == {1, 3, FOLD}  # every choice was met and checked


# -- the vectorised Bad Beat against the game's own settlement -----------------------------------------


def _settled_bad_beat_line(table, row):
    seat = Seat(seat=1, cards=tuple(row[:2]), wagers={"ante": Decimal(1), "blind": Decimal(1),
                "bad_beat": Decimal(1)}, decision=Decision(fold=True))
    rnd = Round(game=UTH, paytables={"blind": "A", "bad_beat": table.letter}, seats=(seat,),
                dealer=tuple(row[2:4]), community=tuple(row[4:]))
    w = UTH_GAME.settle(rnd).seats[0].wagers["bad_beat"]
    return len(table.lines) if w.result == "lose" else [x.key for x in table.lines].index(w.line)


@pytest.mark.parametrize("letter", ["A", "C"])
def test_bad_beat_lines_equal_the_game_settlement(letter):
    table = paytable(UTH, "bad_beat", letter)
    rng = np.random.default_rng(7)
    dealt = deal(rng, 3000, 9)
    # and rounds rich in big hands: both hands from one suit's cards and a paired board
    rich = []
    r = random.Random(8)
    for _ in range(1500):
        suit = r.choice("cdhs")
        pool = [c for c in DECK if c.suit == suit] + r.sample([c for c in DECK if c.suit != suit], 6)
        rich.append([c.index for c in r.sample(pool, 9)])
    rows = np.concatenate([dealt, np.array(rich, dtype=np.intp)])
    got = bad_beat_lines(table, rows)
    want = [_settled_bad_beat_line(table, [DECK[i] for i in row]) for row in rows]
    assert got.tolist() == want
    assert len(set(want)) >= 5  # the check saw straight flushes, fours, full houses, flushes ...


def test_deal_is_uniform_and_distinct():
    rows = deal(np.random.default_rng(1), 52_000, 9)
    assert all(len(set(r)) == 9 for r in rows[:2000].tolist())
    first = np.bincount(rows[:, 0], minlength=52)
    assert first.min() > 800 and first.max() < 1200  # 1,000 expected per card


# -- exact: the RET better Run hand and the Envy Bonus ---------------------------------------------------


def test_ret_progressive_is_the_first_run_hand():
    # R29: the 1st Run hand, five cards: a royal flush in 4 of the C(52,5) hands
    r = analysis.analyze(RET, "progressive", "D")
    assert r["method"] == "exact" and r["space"] == comb(52, 5)
    assert r["losing_count"] + sum(x["count"] for x in r["lines"]) == r["space"]
    assert r["lines"][0] == {"line": "royal_flush", "pays": "100% of mega meter", "count": 4}


@pytest.mark.parametrize("game,letter", [(UTH, "B"), (HCF, "D"), (RET, "C")])
def test_envy_is_the_progressive_plus_other_seats_times_one_seat(game, letter):
    alone = analysis.analyze(game, "progressive", letter)
    none = analysis.analyze(game, "envy", letter, other_seats=0)
    three = analysis.analyze(game, "envy", letter, other_seats=3)
    assert none["return"] == alone["return"] and none["envy_return"] == 0
    assert Fraction(three["return_exact"]) - Fraction(alone["return_exact"]) == 3 * sum(
        x["count"] * Fraction(x["pays"].strip("$").replace(",", "")) for x in three["lines"]
    ) / three["space"]
    assert three["other_seats"] == 3 and three["progressive_paytable"] == letter


def test_uth_envy_per_other_seat():
    r = analysis.analyze(UTH, "envy", "A")  # five other seats by default
    assert [x["count"] for x in r["lines"]] == [4, 36]  # that seat's two cards and the flop (R24a)
    per_seat = Fraction(4 * 1000 + 36 * 300, comb(52, 5))
    assert r["other_seats"] == 5
    assert r["envy_per_other_seat"] == Decimal(round(per_seat * 10**6)) / 10**6


# -- readable output ---------------------------------------------------------------------------------------


def test_readable_simulation_and_envy():
    text = render(sim(UTH, "base", "B", 2000))
    assert "simulation, 2,000 rounds, seed 3" in text and "95% confidence interval" in text
    assert "Wizard of Odds" in text and "full_house" in text and "decisions:" in text
    text = render(analysis.analyze(HCF, "envy", "E"))
    assert "envy per other seat" in text and "straight_flush_7" in text
    code, out, _ = run("--game", HCF, "--wager", "base", "--rounds", "2000")
    assert code == 0 and "Mousseau" in out and "element of risk" in out


# -- published house edges -----------------------------------------------------------------------------------


def published_uth_house_edge_in_the_interval(rounds: int, widest: float, workers: int = 2) -> None:
    """Wizard of Odds, "Ultimate Texas Hold 'Em" (wizardofodds.com/games/ultimate-texas-hold-em/):
    house edge 2.185 % of the Ante under optimal strategy, for Blind paytable A (UTH ch.12 §B(1):
    500, 50, 10, 3, 3 to 2, 1, push).  The basic strategy played here is the Wizard's simplified
    one, a little worse than optimal; docs/analysis.md gives our 20-million-round figure.

    Tolerance: the standard deviation of a round is about 4.9 Antes, so n rounds give a 95 %
    half-width of 1.96 * 4.9 / sqrt(n) Antes; the check is that the interval reaches the published
    optimum, allowing the simplified strategy up to 0.5 % more.  `make soak` plays 400,000 rounds
    (tests/soak_long.py; interval narrower than 3.2 %: any error in a Blind line, flush 3 to 2 instead
    of 3 to 1 is 4 %, is outside it); `make test` plays none: the exact sheets (games/par, tests/test_par_*)
    carry the published comparisons there, and the simulation's counts and intervals are checked above.
    """
    r = sim(UTH, "base", "A", rounds, seed=2024, workers=workers)
    low, high = (float(x) for x in r["ci95"])
    assert high - low < widest
    assert low <= 0.02185 + 0.005 and high >= 0.02185


def published_hcf_house_edge_in_the_interval(rounds: int, widest: float, workers: int = 2) -> None:
    """Wizard of Odds, "High Card Flush Advanced Strategy" (wizardofodds.com/games/high-card-flush/
    advanced-strategy/): Gordon Michaels' strategy, which raises a few more ten-high three-card
    flushes than Mousseau's T-8-6 rule, has a house edge of 2.6855 %; the Wizard's High Card Flush
    page puts the Mousseau strategy played here 0.06 % above optimal.  The rules are the same as
    HCF ch.11-12 (dealer qualifies with a nine-high three-card flush, R15; raises per R16).

    Tolerance: the standard deviation of a round is about 1.6 Antes; n rounds give a 95 % half-width
    of 1.96 * 1.6 / sqrt(n); the interval must reach 2.6855 %, or the Mousseau figure at most 0.06 %
    above it.  `make soak` plays 400,000 rounds (tests/soak_long.py; half-width about 0.5 %); `make test`
    none (HCF's exact sheet, tests/test_par_hcf.py, is compared with the published figures).
    """
    r = sim(HCF, "base", None, rounds, seed=2025, workers=workers)
    low, high = (float(x) for x in r["ci95"])
    assert high - low < widest
    assert low <= 0.026855 + 0.0006 and high >= 0.026855


# No published house edge was found for the JHE base game (X-tra Bonus A), nor for Run 'Em Twice, nor
# for the UTH Bad Beat tables of these rules: their figures (docs/analysis.md) are checked above only
# by the counts, the intervals and the game's own settlement.

"""The base game combined with the side wagers the exact sheets leave out (games.par.combine, issue 27):
the stored figures' arithmetic and code version, UTH Ultimate Pairs' exact covariance against the game's
own settlement and against the stratified simulation, the rare hands drawn on purpose, and what
`tablectl analyze --wager base --json` reports.  The whole recomputation: tests/soak_par_combine.py."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from games import analysis, par
from games.cards import DECK
from games.par import combine, optimal_play
from games.paytables import letters
from games.registry import GAMES
from games.round import Decision, Round, Seat

UTH = "ultimate_texas_holdem"


@pytest.mark.parametrize(("game", "letter"), combine.SHEETS)
@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_figures_add_up(game: str, letter: str | None, strategy: str) -> None:
    stored = combine.stored(game, letter, strategy)
    assert stored is not None
    assert stored["computed"]["code_version"] == combine.code_version()  # recompute after changing the module
    base = par.stored(game, letter, strategy)
    assert stored["base_variance_per_ante"] == base["variance_per_ante"]
    wanted = {(w, x) for w in combine.SIDES[game] for x in letters(game, w)}
    assert {(c["side_wager"], c["paytable"]) for c in stored["combinations"]} == wanted
    for c in stored["combinations"]:
        exact = (game, c["side_wager"]) in combine.EXACT
        playable = strategy == "posted" or game in optimal_play.PLAYABLE
        expected = "exact" if exact else "simulation" if playable else "not computed"
        assert c["method"] == expected, c
        if expected == "exact":
            var = Fraction(base["variance_per_ante"]) + Fraction(c["side_variance_per_ante"]) \
                + 2 * Fraction(c["covariance"])
            assert Fraction(c["variance_per_ante"]) == var
        elif expected == "simulation":
            low, high = (float(x) for x in c["covariance_ci95"])
            assert low <= float(c["covariance_decimal"]) <= high
            fixed = float(Fraction(base["variance_per_ante"]) + Fraction(c["side_variance_per_ante"]))
            assert float(c["variance_per_ante_decimal"]) == pytest.approx(fixed + 2 * float(c["covariance_decimal"]))
            assert c["rounds"] == combine.ROUNDS and c["seed"] == combine.SEED
        if c["side_wager"] == "progressive":
            assert c["meters"] and c["meters_are"]


@pytest.mark.parametrize("blind", ["A", "B"])
def test_aces_against_aces_is_the_games_settlement(blind: str) -> None:
    """The showdown of AA against AA (Ultimate Pairs B's first line), vectorised, against the game's own
    settlement on 150 random boards, exactly."""
    rng = random.Random(5)
    aces = [c for c in DECK if c.rank == 14]
    rest = [c for c in DECK if c.rank != 14]
    boards = [rng.sample(rest, 5) for _ in range(150)]
    total = Decimal(0)
    for board in boards:
        seat = Seat(seat=1, cards=tuple(aces[:2]), wagers={"ante": Decimal(1), "blind": Decimal(1)},
                    decision=Decision(multiples=(4,)))
        rnd = Round(game=UTH, paytables={"blind": blind}, seats=(seat,), dealer=tuple(aces[2:]), community=tuple(board))
        total += GAMES[UTH].settle(rnd).seats[0].net
    vectorised = combine.aces_against_aces(blind, np.array([[c.index for c in b] for b in boards], dtype=np.int64))
    assert vectorised == Fraction(total) / len(boards)


def test_ultimate_pairs_exact_inside_the_simulation() -> None:
    """The stratified simulation (the method of the simulated figures) contains the exact covariance."""
    sheet = par.stored(UTH, "A", "posted")
    mean = Fraction(sheet["return_per_ante"]) - 1
    sides = {("ultimate_pairs", x): combine.side_moments(UTH, "ultimate_pairs", x)[0] for x in ("A", "D")}
    sim = combine.simulate_cross(UTH, "A", sheet, sides, 4_000, 11, forced=0)
    for key, (_, low, high) in sim.items():
        exact = combine.ultimate_pairs_cross(sheet, key[1]) - mean * sides[key]
        assert low <= exact <= high, (key, low, float(exact), high)


def test_rare_hands_drawn_on_purpose() -> None:
    five = combine.rare_groups(5)
    assert {k: len(v) for k, v in five.items()} == {
        "four_of_a_kind": 624, "straight_flush": 36, "royal_c": 1, "royal_d": 1, "royal_h": 1, "royal_s": 1}
    six = combine.rare_groups(6)
    assert len(six["four_of_a_kind"]) == 13 * comb(48, 2)
    assert all(len(six[f"super_royal_{s}"]) == 1 for s in "cdhs")
    assert all(len(six[f"royal_{s}"]) == 46 for s in "cdhs")  # a royal and any card but its suit's 9


def test_analyze_reports_each_combination_with_its_method() -> None:
    r = analysis.analyze(UTH, "base", "A", strategy="posted")
    by = {(c["side_wager"], c["paytable"]): c for c in r["combinations"]}
    assert by[("trips", "A")]["method"] == "exact" and by[("ultimate_pairs", "B")]["method"] == "exact"
    sim = by[("progressive", "A")]
    assert sim["method"] == "simulation" and len(sim["covariance_ci95"]) == 2 and sim["meters"]
    low, high = (float(x) for x in sim["std_dev_ci95"])
    assert low <= float(sim["std_dev"]) <= high
    optimal = analysis.analyze(UTH, "base", "A", strategy="optimal")["combinations"]
    assert {c["method"] for c in optimal if c["side_wager"] == "play_the_board"} == {"simulation"}
    # the Bad Beat (R24b: the losing hand of two) stratified on its exact count (games.par.bad_beat)
    bad_beat = [c for c in optimal if c["side_wager"] == "bad_beat"]
    assert [c["paytable"] for c in bad_beat] == ["A", "B", "C"]
    assert {c["method"] for c in bad_beat} == {"simulation"} and all(len(c["covariance_ci95"]) == 2 for c in bad_beat)
    jhe = analysis.analyze("jackpot_holdem", "base", "A", strategy="optimal")["combinations"]
    assert {c["method"] for c in jhe if c["side_wager"] == "progressive"} == {"simulation"}
    hcf = analysis.analyze("high_card_flush", "base", None, strategy="optimal")["combinations"]
    assert {c["method"] for c in hcf} == {"exact"} and len(hcf) == 22 + 5

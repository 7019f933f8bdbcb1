"""make soak: the base game combined with each side wager the exact sheets leave out (games.par.combine),
recomputed whole and compared with the stored figures, the time taken aside; and the stratified
simulation at its full length against UTH Ultimate Pairs' exact covariance; the optimal player's base
house edge against the exact one; the distributions of base + side with them (UTH's exact Trips and
Ultimate Pairs ones aside: they need its enumeration).  About forty minutes of one core, RET's Ultimate
Pairs joints included (the RET sheets' kernel pass, about 6 minutes of CPU, 2 threads).
"""

from __future__ import annotations

import math
import random
import statistics
from fractions import Fraction
from typing import Any

import pytest

from games import par
from games.par import combine

UTH = "ultimate_texas_holdem"


def _without_enumerated(sheet: dict[str, Any]) -> None:
    """UTH's exact distributions need its enumeration (python -m games.par.combine --uth-enumeration, 22
    minutes), which this recomputation does not run: those fields are left out of the comparison."""
    if sheet["game"] == UTH:
        for c in [*sheet["combinations"], *sheet["sheet_combinations"]]:
            if c["side_wager"] in ("trips", "ultimate_pairs"):
                for k in [k for k in c if k.startswith("distribution")]:
                    del c[k]


def test_recomputed_combinations_are_the_stored_ones() -> None:
    for fresh in combine.compute_all():
        kept = combine.stored(fresh["game"], fresh["paytable"], fresh["strategy"])
        assert kept is not None
        fresh.pop("computed")
        kept.pop("computed")
        _without_enumerated(fresh)
        _without_enumerated(kept)
        assert fresh == kept, (fresh["game"], fresh["paytable"], fresh["strategy"])


def test_ultimate_pairs_exact_inside_a_full_length_simulation() -> None:
    sheet = par.stored(UTH, "B", "posted")
    mean = Fraction(sheet["return_per_ante"]) - 1
    sides = {("ultimate_pairs", x): combine.side_moments(UTH, "ultimate_pairs", x)[0] for x in "ABCDEF"}
    sim = combine.simulate_cross(UTH, "B", sheet, sides, combine.ROUNDS, 28)
    for key, (_, low, high) in sim.items():
        exact = combine.ultimate_pairs_cross(sheet, key[1]) - mean * sides[key]
        assert low <= exact <= high, (key, low, float(exact), high)


@pytest.mark.parametrize("game", [UTH, "jackpot_holdem", "run_em_twice"])
def test_optimal_player_house_edge_inside_a_simulation(game: str) -> None:
    """The optimal player (games.par.optimal_play) over 100,000 rounds, settled by the game's own code: the
    exact optimal sheet's expected net per Ante lies inside the simulation's 95 % interval."""
    sheet = par.stored(game, "A", "optimal")
    wager = {UTH: "six_card_bonus", "jackpot_holdem": "progressive", "run_em_twice": "five_card_bonus"}[game]
    play = combine._player(game, "A", (wager,), "optimal")
    rng = random.Random(31)
    nets = [float(play(rng, None)[0]) for _ in range(100_000)]
    mean = statistics.fmean(nets)
    half = combine.Z95 * statistics.stdev(nets) / math.sqrt(len(nets))
    exact = float(Fraction(sheet["return_per_ante"]) - 1)
    assert mean - half <= exact <= mean + half, (game, mean, half, exact)

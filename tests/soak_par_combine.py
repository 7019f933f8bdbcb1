"""make soak: the base game combined with each side wager the exact sheets leave out (games.par.combine),
recomputed whole and compared with the stored figures, the time taken aside; and the stratified
simulation at its full length against UTH Ultimate Pairs' exact covariance.  About ten minutes of one core.
"""

from __future__ import annotations

from fractions import Fraction

from games import par
from games.par import combine

UTH = "ultimate_texas_holdem"


def test_recomputed_combinations_are_the_stored_ones() -> None:
    for fresh in combine.compute_all():
        kept = combine.stored(fresh["game"], fresh["paytable"], fresh["strategy"])
        assert kept is not None
        fresh.pop("computed")
        kept.pop("computed")
        assert fresh == kept, (fresh["game"], fresh["paytable"], fresh["strategy"])


def test_ultimate_pairs_exact_inside_a_full_length_simulation() -> None:
    sheet = par.stored(UTH, "B", "posted")
    mean = Fraction(sheet["return_per_ante"]) - 1
    sides = {("ultimate_pairs", x): combine.side_moments(UTH, "ultimate_pairs", x)[0] for x in "ABCDEF"}
    sim = combine.simulate_cross(UTH, "B", sheet, sides, combine.ROUNDS, 28)
    for key, (_, low, high) in sim.items():
        exact = combine.ultimate_pairs_cross(sheet, key[1]) - mean * sides[key]
        assert low <= exact <= high, (key, low, float(exact), high)

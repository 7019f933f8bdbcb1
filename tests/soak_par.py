"""The exact base-game sheets recomputed whole (make soak): every board, both passes, the four UTH sheets
compared with the stored ones, figure by figure (make test: flop samples and a 10-card deck,
tests/test_par_uth.py).  About five minutes of CPU on two cores; games/par/data/*.json "computed".
"""

from __future__ import annotations

from games.par import stored
from games.par.uth import compute_all

UTH = "ultimate_texas_holdem"


def test_uth_sheets_recomputed_equal_the_stored() -> None:
    for (letter, strategy), sheet in compute_all().items():
        kept = stored(UTH, letter, strategy)
        fresh = {k: v for k, v in sheet.items() if k != "computed"}
        assert fresh == {k: v for k, v in kept.items() if k != "computed"}, (letter, strategy)


def test_uth_posted_sheets_inside_a_simulation_interval() -> None:
    """The exact posted figures against the simulation of the same strategy settled by the game's own code."""
    from fractions import Fraction

    from games import analysis

    for letter, seed in (("A", 27), ("B", 28)):
        sim = analysis.analyze(UTH, "base", letter, rounds=400_000, seed=seed)
        low, high = (Fraction(x) for x in sim["ci95"])
        exact = Fraction(stored(UTH, letter, "posted")["house_edge_per_ante"])
        assert low <= exact <= high, (letter, low, exact, high)

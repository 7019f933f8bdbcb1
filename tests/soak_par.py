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


def test_bad_beat_recounted_equals_the_stored() -> None:
    """games.par.bad_beat's count of the losing hand (R24b) recounted over every deal (about a minute)."""
    from games.par import bad_beat

    fresh, kept = bad_beat.compute(), bad_beat.stored()
    assert {k: v for k, v in fresh.items() if k != "computed"} == {k: v for k, v in kept.items() if k != "computed"}


# The Wizard of Odds' two-player Texas Hold 'Em table (M. Shackleford, "Texas Hold 'Em: probabilities of the
# second player's hand given the first's", out of C(52,5) C(47,2) C(45,2) deals): its table for a first player
# with less than a pair, and its count of a full house beside four of a kind.  Counted independently of this
# project; the walk's ranking and its arithmetic of the cards two hands share are the Bad Beat count's.
PUBLISHED_LESS_THAN_A_PAIR = (164_934_908_760, 228_994_769_160, 43_652_558_880, 7_303_757_580, 26_248_866_180,
                              13_060_678_788, 0, 0, 85_751_460, 10_532_592)
PUBLISHED_FULL_HOUSE_BESIDE_FOUR_OF_A_KIND = 966_835_584


def test_the_two_hands_categories_equal_a_published_count() -> None:
    from games.par import bad_beat

    joint = bad_beat.categories()
    assert int(joint.sum()) == bad_beat.SPACE
    assert (joint == joint.T).all()  # the player's and the dealer's hands are dealt alike
    assert [int(n) for n in joint[0]] == list(PUBLISHED_LESS_THAN_A_PAIR)
    assert int(joint[6, 7]) == PUBLISHED_FULL_HOUSE_BESIDE_FOUR_OF_A_KIND

"""The progressive's long-run return under RULINGS R4 (issue 27): the meter's stationary chain
(games.meter_model) against a simulation of the meter wager by wager, and the par sheet's
``return_long_run`` beside ``return_with_contributions`` (docs/analysis.md "The long-run return").

The simulation here is cheap: a small meter that is hit every few wagers, where 400,000 wagers pin the
house's seeding to about 2 % (a 99.9 % interval: the seed is not chosen to pass).  make soak
(tests/soak_meter.py) checks UTH A, HCF A and RET A at a 5 % rate against two million hits each.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np

from games import analysis
from games.meter_model import house_seeding, simulate_seeding
from games.money import round_cents

UTH = "ultimate_texas_holdem"
# A meter at $100 fed $2 a wager, drawn on by a 50 % line one wager in 20 and a 10 % line one in 8: it sits
# near its reset, so R4's floor adds much (at the reset amount the two lines would cost 3.75 a wager).
RESET, FEED = Decimal(100), Decimal(2)
LINES = ((Fraction(1, 20), Decimal(50)), (Fraction(1, 8), Decimal(10)))


def wager_by_wager(wagers: int, seed: int, batches: int = 40) -> tuple[float, float]:
    """The house's seeding per wager and the half width of its 99.9 % interval (batch means): each wager
    adds its contribution, then its hand hits a line or none (R4: p x meter to the cent, the floor)."""
    rng = np.random.default_rng(seed)
    bounds = np.cumsum([float(q) for q, _ in LINES])
    hit = np.searchsorted(bounds, rng.random(wagers), side="right")
    meter, seeded, means = RESET, Decimal(0), []
    size = wagers // batches
    for i in range(wagers):
        meter += FEED
        if hit[i] < len(LINES):
            left = meter - round_cents(meter * LINES[hit[i]][1] / 100)
            if left < RESET:
                seeded += RESET - left
                left = RESET
            meter = left
        if (i + 1) % size == 0:
            means.append(float(seeded) / size)
            seeded = Decimal(0)
    a = np.array(means)
    return float(a.mean()), 3.29 * float(a.std(ddof=1)) / math.sqrt(len(a))


def test_the_stationary_chain_agrees_with_the_meter_played_wager_by_wager() -> None:
    model = house_seeding(RESET, FEED, LINES)
    assert model.exact is None and model.error < 1e-4
    mean, half = wager_by_wager(400_000, seed=27)
    assert half < 0.08 and abs(model.per_wager - mean) < half, (model.per_wager, mean, half)
    at_reset = float(sum(q * Fraction(round_cents(RESET * p / 100)) for q, p in LINES))
    assert at_reset - mean > 20 * half  # the reset-based figure is far outside: it is not the long run
    # The hit-by-hit simulation make soak relies on sees the same meter.
    sim = simulate_seeding(RESET, FEED, LINES, 100_000, seed=28)
    assert sim.ci95[0] < model.per_wager < sim.ci95[1], (model.per_wager, sim)


def test_exact_without_a_partial_line_or_a_contribution() -> None:
    # Only 100 % lines: every hit leaves the meter at its reset, so the house adds the reset each time.
    full = house_seeding(RESET, FEED, ((Fraction(1, 50), Decimal(100)),))
    assert full.exact == Fraction(2) and full.error == 0
    # No contribution: the meter never leaves its reset; a 50 % line costs the house half of it.
    still = house_seeding(RESET, Decimal(0), LINES)
    assert still.exact == Fraction(1, 20) * 50 + Fraction(1, 8) * 10


def test_par_sheet_long_run_equals_the_reset_figure_where_it_is_exact() -> None:
    plain = analysis.analyze(UTH, "progressive", "A")  # no rate: the meter stays at its reset
    assert plain["long_run"]["method"] == "exact"
    assert plain["long_run"]["return_exact"] == plain["return_with_contributions_exact"] == plain["return_exact"]
    b = analysis.analyze(UTH, "progressive", "B", rate_args=["major=0.04", "minor=0.01"])  # 100 % lines only
    assert b["long_run"]["return_exact"] == b["return_with_contributions_exact"]
    assert b["return_long_run"] == b["return_with_contributions"]


def test_uth_a_long_run_below_the_reset_figure_and_the_hidden_rate() -> None:
    # Issue 27: UTH A at a 5 % rate, 0.6385 at reset + rate, about 0.625 by a simulation of the meter.
    a = analysis.analyze(UTH, "progressive", "A", rate_args=["meter=0.05"])
    assert a["long_run"]["method"] == "meter chain" and a["long_run"]["grid_difference"] < Decimal("1e-6")
    assert abs(a["return_long_run"] - Decimal("0.625001")) <= Decimal("0.000002")
    assert a["return_with_contributions"] - a["return_long_run"] > Decimal("0.013")
    # A hidden rate reaches the players only as the resets it funds: the same as a lower rate.
    held = analysis.analyze(UTH, "progressive", "A", rate_args=["meter=0.05"], hidden_rate_args=["meter=0.01"])
    lower = analysis.analyze(UTH, "progressive", "A", rate_args=["meter=0.04"])
    assert held["return_long_run"] == lower["return_long_run"] < a["return_long_run"]
    assert held["long_run"]["seeding_per_unit"] == lower["long_run"]["seeding_per_unit"]

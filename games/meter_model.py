"""A meter's long run under RULINGS R4: what the house adds to keep it at its reset amount.

The model: one Progressive wager at a time; each adds ``contribution`` (the rate reaching the meter
x the unit) to the meter, then its hand hits line j paying p_j of the meter with probability q_j,
the lines' probabilities independent from wager to wager (R5: one line per wager).  A hit pays
p x meter rounded half up to the cent and leaves max(reset, meter - paid) (R4); the house's
**seeding** is what that floor adds: the whole reset after a 100 % line, max(0, reset - (meter -
paid)) after a p < 100 % line.  Every contribution is paid out in the long run, so the meter pays
per wager contribution + seeding (docs/analysis.md "The long-run return").

Only 100 % lines, or no contribution: the seeding is exact (a Fraction).  Otherwise it needs the
meter's stationary distribution: the chain of the meter just after each hit, on a grid of 8,192
points up to where the meter almost never goes (a step of whole contributions, or finer), the
wagers between hits geometric, each point a meter reaches split linearly between its two grid
points (the mean kept).  Power iteration to a change below 1e-14; the meter
seen at a hit has the distribution of the meter at any wager (Bernoulli hits see time averages).
The grid is then halved and the difference kept as the figure's ``error`` (float, dollars per
wager): the finer result is the one returned.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import numpy.typing as npt

#: Grid states of the coarse solution; the fine one has twice as many.
STATES = 1 << 13
#: The stationary mass allowed in the top tenth of the grid before the grid is widened.
TAIL = 1e-13
TOLERANCE = 1e-14
MAX_ITERATIONS = 20_000

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Seeding:
    """The house's seeding of one meter, in dollars per wager."""

    per_wager: float
    exact: Fraction | None  # when no stationary distribution was needed
    error: float  # the fine grid against the coarse one (0 when exact)
    step: float  # the fine grid's step, dollars of meter (0 when exact)
    states: int
    top: float  # dollars: the grid's top, where the meter is (almost) never


def _cents(x: Decimal) -> Decimal:
    return x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


@functools.cache
def house_seeding(reset: Decimal, contribution: Decimal, lines: tuple[tuple[Fraction, Decimal], ...]) -> Seeding:
    """The seeding per wager of a meter at ``reset`` fed ``contribution`` dollars per wager, paid by
    ``lines``: (probability per wager, percent of the meter) for every line paying from it."""
    full = sum((q for q, p in lines if p >= 100), Fraction(0))
    partial = [(q, p) for q, p in lines if p < 100 and q > 0]
    if not partial or contribution == 0:
        # The meter never leaves its reset (no contribution), or only 100 % lines draw on it.
        exact = full * Fraction(reset) + sum((q * Fraction(_cents(reset * p / 100)) for q, p in partial), Fraction(0))
        return Seeding(float(exact), exact, 0.0, 0.0, 0, float(reset))
    hits = float(sum((q for q, _ in lines), Fraction(0)))
    c = float(contribution)
    span = 40 * c / hits
    for _ in range(12):
        coarse, tail, _ = _solve(float(reset), c, lines, span, STATES)
        if tail <= TAIL:
            break
        span *= 2
    else:  # pragma: no cover - the meter's drift is down above contribution / (p x probability)
        raise ArithmeticError("the meter's stationary distribution has no bounded grid")
    fine, _, step = _solve(float(reset), c, lines, span, 2 * STATES)
    return Seeding(fine, None, abs(fine - coarse), step, 2 * STATES, float(reset) + span)


def _kernel(q: float, c: float, h: float, k: int) -> Floats:
    """P(the meter rises a steps of ``h`` before the next hit on it), a = 0 .. k-1: N ~ geometric(q)
    wagers of one contribution ``c`` each, N c / h split linearly between its two grid points."""
    log_t = math.log1p(-q)
    s = round(h / c)
    if s >= 1 and math.isclose(s * c, h):  # a step of s contributions: closed form by the rest of N / s
        r = np.arange(s, dtype=np.float64)
        u = q * np.exp((r - 1) * log_t)  # P(N = a s + r) / beta**a
        a_part = float(np.sum((1 - r / s) * u))
        b_part = float(np.sum((r / s) * u))
        beta = math.exp(s * log_t)
        a = np.arange(k, dtype=np.float64)
        w: Floats = np.power(beta, a) * a_part + np.power(beta, np.maximum(a - 1, 0)) * b_part
        w[0] = a_part - float(u[0])
        return w
    # A step finer than one contribution: N summed while below the grid's top and its law above e**-50.
    n = np.arange(1, min(math.ceil(50 / q), math.floor((k - 1) * h / c)) + 1, dtype=np.float64)
    prob = q * np.exp((n - 1) * log_t)
    x = np.minimum(n * c / h, k - 1)
    i0 = np.minimum(np.floor(x).astype(np.int64), k - 2)
    f = x - i0
    spread: Floats = np.bincount(i0, weights=prob * (1 - f), minlength=k).astype(np.float64)
    spread += np.bincount(i0 + 1, weights=prob * f, minlength=k)
    return spread[:k]


def _solve(
    reset: float, c: float, lines: Sequence[tuple[Fraction, Decimal]], span: float, states: int
) -> tuple[float, float, float]:
    """(seeding per wager, stationary mass in the top tenth, step) on a grid of ``states`` points over the
    meter's rise above its reset, 0 .. ``span`` (the rise, not the meter: a large reset loses no digits)."""
    hits = float(sum((q for q, _ in lines), Fraction(0)))
    k = states
    s = math.ceil(span / (c * (k - 1)))
    h = s * c if s > 1 else span / (k - 1)
    rise = h * np.arange(k, dtype=np.float64)
    size = 1 << (2 * k - 1).bit_length()
    kernel = np.fft.rfft(_kernel(hits, c, h, k), size)
    # After a hit of each line: where the meter lands (linear split) and what the house adds.
    maps: list[tuple[float, npt.NDArray[np.int64], Floats, Floats]] = []
    for q, p in lines:
        if p >= 100:
            seed, after = np.full(k, reset), np.zeros(k)
        else:
            paid = np.floor((reset + rise) * float(p) + 0.5) / 100  # p % of the meter, half up to the cent (R4)
            seed, after = np.maximum(0.0, paid - rise), np.maximum(0.0, rise - paid)
        x = np.minimum(after / h, k - 1)
        i0 = np.minimum(np.floor(x).astype(np.int64), k - 2)
        maps.append((float(q) / hits, i0, x - i0, seed))

    def at_hit(after: Floats) -> Floats:
        g = np.fft.irfft(np.fft.rfft(after, size) * kernel, size)[:k]
        g = np.maximum(g, 0.0)
        g[-1] += max(0.0, 1.0 - float(g.sum()))  # beyond the grid: kept at its top (measured as ``tail``)
        return g

    after = np.zeros(k)
    after[0] = 1.0
    for _ in range(MAX_ITERATIONS):
        g = at_hit(after)
        new = np.zeros(k)
        for share, i0, f, _ in maps:
            new += np.bincount(i0, weights=g * (1 - f) * share, minlength=k)
            new += np.bincount(i0 + 1, weights=g * f * share, minlength=k)
        new /= new.sum()
        change = float(np.abs(new - after).sum())
        after = new
        if change < TOLERANCE:
            break
    else:  # pragma: no cover
        raise ArithmeticError("the meter's chain did not settle")
    g = at_hit(after)
    seeding = hits * sum(share * float(np.dot(g, seed)) for share, _, _, seed in maps)
    return seeding, float(g[-(k // 10):].sum()), h


@dataclass(frozen=True)
class Simulated:
    """A direct simulation of a meter under R4: its seeding per wager, with a 95 % interval."""

    wagers: int
    hits: int
    per_wager: float
    ci95: tuple[float, float]


def simulate_seeding(
    reset: Decimal, contribution: Decimal, lines: Sequence[tuple[Fraction, Decimal]], hits: int, seed: int,
    batches: int = 50,
) -> Simulated:
    """The meter played hit after hit in Decimal, to the cent as the daemon pays (R4): the wagers between
    two hits drawn from their geometric law (each adds ``contribution``), the line by its share.  The
    interval: batch means over ``batches`` consecutive runs of hits (the meter carries from one to the
    next, so the batches are long)."""
    rng = np.random.default_rng(seed)
    q_all = sum((q for q, _ in lines), Fraction(0))
    gaps = rng.geometric(float(q_all), size=hits)
    shares = np.array([float(q / q_all) for q, _ in lines])
    which = rng.choice(len(lines), size=hits, p=shares / shares.sum())
    percents = [p for _, p in lines]
    meter = reset
    per_batch: list[tuple[int, Decimal]] = []
    wagers, seeded = 0, Decimal(0)
    size = hits // batches
    for i in range(hits):
        n = int(gaps[i])
        meter += contribution * n
        p = percents[which[i]]
        paid = meter if p >= 100 else _cents(meter * p / 100)
        left = meter - paid
        if left < reset:
            seeded += reset - left
            left = reset
        meter = left
        wagers += n
        if (i + 1) % size == 0:
            per_batch.append((wagers, seeded))
            wagers, seeded = 0, Decimal(0)
    rates = np.array([float(s) / w for w, s in per_batch])
    weights = np.array([w for w, _ in per_batch], dtype=np.float64)
    mean = float(np.sum(rates * weights) / weights.sum())
    half = 1.96 * float(np.std(rates, ddof=1)) / math.sqrt(len(rates))
    return Simulated(int(weights.sum()), len(per_batch) * size, mean, (mean - half, mean + half))


__all__ = ["Seeding", "Simulated", "house_seeding", "simulate_seeding"]

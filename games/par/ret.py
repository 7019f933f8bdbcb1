"""Run 'Em Twice's base game (two Antes, two Run wagers, the Center wager), exactly: every deal.

A round (RULINGS R25-R28): two cards; the 1st Run wager 1-3x or fold; the horizontal outside
cards (left, right); the 2nd Run wager 1-3x or fold; the vertical outside cards (top, bottom);
the Center wager 1-3x or fold; the center card.  No dealer hand.  Space: 1,326 hole pairs x
C(50,2) x C(48,2) x 46 centers = 84,284,272,800 equally likely outcomes, all counted.

Method (numba kernel, one starting hand at a time): a table of the Run result of the two cards
with every three other cards (52^3 entries, each order), then for each horizontal pair, vertical
pair and center the two Run results; the Center wins at the higher of the two (the Run
paytable rises with the hand, so that is the larger of the two results, R28).  The sums of the
Antes and Run wagers over the centers come from per-pair totals; only the Center's is summed
card by card.  A bet's return is linear in its size, so 1x and 3x are the only candidates
(RULINGS R26).  "optimal" decides each decision by the exact sums of what follows (ties: the
smaller bet, and folding); "posted" plays games.strategy.RetStrategy (its first decision taken
from it; its second in integer arithmetic, here; its Center decision is exact, as here).  A
second sweep, the decisions known, counts the distribution of the net result.  About a minute
on 2 cores (docs/analysis.md).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from games.cards import DECK
from games.paytables import letters, paytable
from games.strategy import FOLD, RetStrategy
from games.ultimate_pairs import ultimate_pairs_made

from . import _jret as j
from ._jret import rank_of as j_rank
from .jhe import HANDS, N_HOLES, RANK_NAMES

GAME = "run_em_twice"
PER_HOLE = comb(50, 2) * comb(48, 2) * 46
NET_OFFSET = 64  # index of a net of 0 in the histogram (the lowest net is -11 Antes)

Progress = Callable[[int, int], None]


@j.kernel
def _run_table(a: Any, b: Any, keys: Any, masks: Any, r5: Any, f5: Any, flush_rank: Any, run_pay: Any) -> Any:
    """Run result (the net of a 1-unit Run wager; -1 loses, 0 pushes) of a, b and each three other cards."""
    out = np.full((52, 52, 52), -2, dtype=np.int64)
    base_k = keys[a] + keys[b]
    base_m = masks[a] | masks[b]
    for x in range(52):
        for y in range(x + 1, 52):
            for z in range(y + 1, 52):
                if x == a or x == b or y == a or y == b or z == a or z == b:
                    continue
                r = run_pay[
                    j_rank(
                        base_k + keys[x] + keys[y] + keys[z],
                        base_m | masks[x] | masks[y] | masks[z],
                        r5,
                        f5,
                        flush_rank,
                    )
                ]
                out[x, y, z] = out[x, z, y] = out[y, x, z] = out[y, z, x] = out[z, x, y] = out[z, y, x] = r
    return out


@j.kernel_inline
def _sign(r: Any) -> Any:
    """The Ante follows its Run hand (RET ch.12 §A, R27): +1, 0 or -1."""
    return 1 if r > 0 else (0 if r == 0 else -1)


@j.kernel
def _center_choice(fixed_k: Any, center: Any, k1: Any, k2: Any) -> Any:
    """(Center multiple or 0 = fold, value) from the sums over the 46 centers (games.strategy's rule)."""
    k = 3 if center > 0 else 1
    v = fixed_k + k * center
    fold = -(2 + k1 + k2) * 46
    if v > fold:
        return k, v
    return 0, fold


@j.kernel_inline
def _second_posted(total: Any, k1: Any, er: Any, ea: Any, den: Any) -> Any:
    """RetStrategy.second in integers: total/48 + e_ante + k e_run + 1/2 > -(2 + k1), all times 96 den.

    total: the 1st Ante and k1 1st Run wagers summed over the 48 unseen center cards; e_run = er/den,
    e_ante = ea/den.  Returns the 2nd Run multiple, 0 = fold."""
    kk = 3 if er > 0 else 1
    if 2 * den * total + 96 * ea + 96 * kk * er + 48 * den > -96 * den * (2 + k1):
        return kk
    return 0


@j.kernel
def _hole(
    a: Any,
    b: Any,
    t3: Any,
    posted: Any,
    k1_posted: Any,
    er: Any,
    ea: Any,
    den: Any,
    hist: Any,
    paths: Any,
    parts: Any,
    outs: Any,
) -> Any:
    """One starting hand: the value of each decision, then (the decisions fixed) the distribution.

    t3: _run_table.  Posted: k1_posted (0 = fold), and RetStrategy's e_run = er/den, e_ante = ea/den.
    Returns (the hand's net summed over its PER_HOLE outcomes, the first decision, 0 = fold).
    Adds to hist (net + NET_OFFSET), paths[k1, k2, k3] (0: folded there; outcomes), parts (ante_1,
    ante_2, first_run, second_run, center, summed nets) and outs (folds at each decision, played).
    """
    rest = np.empty(50, dtype=np.int64)
    n = 0
    for c in range(52):
        if c != a and c != b:
            rest[n] = c
            n += 1
    # t1[x, y]: the Run results summed over the 48 cards c not a, b, x, y (hand x, c, y); a1: its Antes'
    t1 = np.zeros((52, 52), dtype=np.int64)
    a1 = np.zeros((52, 52), dtype=np.int64)
    for i in range(50):
        x = rest[i]
        for k in range(i + 1, 50):
            y = rest[k]
            s = 0
            sa = 0
            for m in range(50):
                c = rest[m]
                if c != x and c != y:
                    r = t3[x, c, y]
                    s += r
                    sa += _sign(r)
            t1[x, y] = t1[y, x] = s
            a1[x, y] = a1[y, x] = sa
    # first sweep: per horizontal pair, the value of each (k1, k2) summed over the vertical pairs
    acc = np.zeros((1225, 2, 2), dtype=np.int64)
    lr = 0
    for i in range(50):
        left = rest[i]
        for k in range(i + 1, 50):
            right = rest[k]
            for p in range(50):
                top = rest[p]
                if top == left or top == right:
                    continue
                for q in range(p + 1, 50):
                    bottom = rest[q]
                    if bottom == left or bottom == right:
                        continue
                    center = 0
                    for m in range(50):
                        c = rest[m]
                        if c == left or c == right or c == top or c == bottom:
                            continue
                        r1 = t3[left, c, right]
                        r2 = t3[top, c, bottom]
                        center += r1 if r1 > r2 else r2
                    # over the 46 centers: the 1st Run hand's total less top and bottom, the 2nd's less left, right
                    s1 = t1[left, right] - t3[left, top, right] - t3[left, bottom, right]
                    s1a = a1[left, right] - _sign(t3[left, top, right]) - _sign(t3[left, bottom, right])
                    s2 = t1[top, bottom] - t3[top, left, bottom] - t3[top, right, bottom]
                    s2a = a1[top, bottom] - _sign(t3[top, left, bottom]) - _sign(t3[top, right, bottom])
                    for ik1 in range(2):
                        for ik2 in range(2):
                            k1 = 1 + 2 * ik1
                            k2 = 1 + 2 * ik2
                            acc[lr, ik1, ik2] += _center_choice(s1a + k1 * s1 + s2a + k2 * s2, center, k1, k2)[1]
            lr += 1
    # the second decision for each first, then the first
    dec2 = np.zeros((1225, 2), dtype=np.int64)
    v1 = np.zeros(2, dtype=np.int64)
    lr = 0
    for i in range(50):
        for k in range(i + 1, 50):
            for ik1 in range(2):
                k1 = 1 + 2 * ik1
                fold = -(2 + k1) * 1128 * 46
                if posted:
                    k2 = _second_posted(a1[rest[i], rest[k]] + k1 * t1[rest[i], rest[k]], k1, er, ea, den)
                else:
                    k2 = 3 if acc[lr, ik1, 1] > acc[lr, ik1, 0] else 1
                    if acc[lr, ik1, (k2 - 1) // 2] <= fold:
                        k2 = 0
                dec2[lr, ik1] = k2
                v1[ik1] += acc[lr, ik1, (k2 - 1) // 2] if k2 else fold
            lr += 1
    fold1 = -2 * PER_HOLE
    if posted:
        k1 = k1_posted
    else:
        k1 = 3 if v1[1] > v1[0] else 1
        if v1[(k1 - 1) // 2] <= fold1:
            k1 = 0
    if k1 == 0:
        hist[NET_OFFSET - 2] += PER_HOLE
        paths[0, 0, 0] += PER_HOLE
        parts[0] -= PER_HOLE
        parts[1] -= PER_HOLE
        outs[0] += PER_HOLE
        return fold1, 0
    ik1 = (k1 - 1) // 2
    value = v1[ik1]
    # second sweep: the distribution, the decisions known
    lr = 0
    for i in range(50):
        left = rest[i]
        for k in range(i + 1, 50):
            right = rest[k]
            k2 = dec2[lr, ik1]
            lr += 1
            if k2 == 0:
                n2 = 1128 * 46
                hist[NET_OFFSET - 2 - k1] += n2
                paths[k1, 0, 0] += n2
                parts[0] -= n2
                parts[1] -= n2
                parts[2] -= k1 * n2
                outs[1] += n2
                continue
            for p in range(50):
                top = rest[p]
                if top == left or top == right:
                    continue
                for q in range(p + 1, 50):
                    bottom = rest[q]
                    if bottom == left or bottom == right:
                        continue
                    center = 0
                    for m in range(50):
                        c = rest[m]
                        if c == left or c == right or c == top or c == bottom:
                            continue
                        r1 = t3[left, c, right]
                        r2 = t3[top, c, bottom]
                        center += r1 if r1 > r2 else r2
                    s1 = t1[left, right] - t3[left, top, right] - t3[left, bottom, right]
                    s1a = a1[left, right] - _sign(t3[left, top, right]) - _sign(t3[left, bottom, right])
                    s2 = t1[top, bottom] - t3[top, left, bottom] - t3[top, right, bottom]
                    s2a = a1[top, bottom] - _sign(t3[top, left, bottom]) - _sign(t3[top, right, bottom])
                    k3 = _center_choice(s1a + k1 * s1 + s2a + k2 * s2, center, k1, k2)[0]
                    if k3 == 0:
                        hist[NET_OFFSET - 2 - k1 - k2] += 46
                        paths[k1, k2, 0] += 46
                        parts[0] -= 46
                        parts[1] -= 46
                        parts[2] -= k1 * 46
                        parts[3] -= k2 * 46
                        outs[2] += 46
                        continue
                    paths[k1, k2, k3] += 46
                    outs[3] += 46
                    for m in range(50):
                        c = rest[m]
                        if c == left or c == right or c == top or c == bottom:
                            continue
                        r1 = t3[left, c, right]
                        r2 = t3[top, c, bottom]
                        ce = r1 if r1 > r2 else r2
                        net = _sign(r1) + k1 * r1 + _sign(r2) + k2 * r2 + k3 * ce
                        hist[NET_OFFSET + net] += 1
                        parts[0] += _sign(r1)
                        parts[1] += _sign(r2)
                        parts[2] += k1 * r1
                        parts[3] += k2 * r2
                        parts[4] += k3 * ce
    return value, k1


# -- the driver ----------------------------------------------------------------------------------------------


def _posted_inputs(table_letter: str | None) -> tuple[list[int], list[tuple[int, int, int]]]:
    """RetStrategy's first decision (0 = fold) and (e_run, e_ante) as integers over one denominator."""
    strat = RetStrategy.for_table(paytable(GAME, "run", table_letter))
    firsts, returns = [], []
    for _, _, (a, b) in HANDS:
        hole = (DECK[a], DECK[b])
        k = strat.first(hole)
        firsts.append(0 if k == FOLD else k)
        e_run, e_ante = strat.hole_returns(hole)
        den = e_run.denominator * e_ante.denominator
        returns.append((int(e_run * den), int(e_ante * den), den))
    return firsts, returns


def compute(
    letter: str | None, strategy: str, progress: Progress | None = None, workers: int | None = None
) -> dict[str, object]:
    """The exact sheet of RET's base game (its one Run table), under "optimal" or "posted"."""
    if strategy not in ("optimal", "posted"):
        raise ValueError(f"strategy must be optimal or posted, got {strategy!r}")
    letter = letter or "A"
    began = time.monotonic()
    workers = workers or min(2, os.cpu_count() or 1)
    table = paytable(GAME, "run", letter)
    pays = j.pays_by_rank(table)
    assert all(p is None or p.denominator == 1 for p in pays), "Run paytable: whole odds"
    run_pay = np.array([-1 if p is None else int(p) for p in pays], dtype=np.int64)
    # R28's Center at "the larger result" needs a Run paytable that never pays less for a higher hand
    assert all(x <= y for x, y in zip(run_pay[:-1], run_pay[1:], strict=True)), "Run paytable not monotone"
    r5, f5 = j.tables(5)
    posted = strategy == "posted"
    firsts, returns = _posted_inputs(letter) if posted else ([0] * N_HOLES, [(0, 0, 1)] * N_HOLES)
    results: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = [None] * N_HOLES  # type: ignore[list-item]
    todo = iter(range(N_HOLES))
    lock = threading.Lock()
    done = [0]

    def work() -> None:
        while True:
            with lock:
                hid = next(todo, None)
            if hid is None:
                return
            a, b = HANDS[hid][2]
            t3 = _run_table(a, b, j.CARD_KEYS, j.CARD_MASKS, r5, f5, j.FLUSH_RANK, run_pay)
            hist = np.zeros(NET_OFFSET + 5000, dtype=np.int64)
            paths = np.zeros((4, 4, 4), dtype=np.int64)
            parts = np.zeros(5, dtype=np.int64)
            outs = np.zeros(4, dtype=np.int64)
            er, ea, den = returns[hid]
            value, k1 = _hole(a, b, t3, posted, firsts[hid], er, ea, den, hist, paths, parts, outs)
            results[hid] = (int(value), int(k1), hist, paths, parts, outs)
            if progress is not None:
                with lock:
                    done[0] += 1
                    progress(done[0], N_HOLES)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for f in [pool.submit(work) for _ in range(workers)]:
            f.result()
    return _sheet(letter, strategy, results, time.monotonic() - began, workers)


def _sheet(
    letter: str,
    strategy: str,
    results: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    seconds: float,
    workers: int,
) -> dict[str, object]:
    space = comb(52, 2) * PER_HOLE
    # weighted by the starting hands' weights, in Python integers (object arrays: no overflow)
    hist, paths, parts, outs = (
        np.sum([HANDS[h][1] * np.asarray(r[i]).astype(object) for h, r in enumerate(results)], axis=0)
        for i in range(2, 6)
    )
    net = {Fraction(i - NET_OFFSET): int(v) for i, v in enumerate(hist) if v}
    assert sum(net.values()) == space
    d = j.distribution_figures(net)
    mean, variance = d["mean"], d["variance"]
    assert isinstance(mean, Fraction) and isinstance(variance, Fraction)
    total = sum(HANDS[h][1] * r[0] for h, r in enumerate(results))
    assert Fraction(total, space) == mean, "the sweeps disagree"
    wagered = 2 + Fraction(
        sum(int(paths[k1, k2, k3]) * (k1 + k2 + k3) for k1 in range(4) for k2 in range(4) for k3 in range(4)), space
    )
    edge = -mean
    hands = []
    for h, (name, w, (a, b)) in enumerate(HANDS):
        v, k1 = results[h][0], results[h][1]
        hands.append(
            {
                "hand": name,
                "weight": w,
                "cards": DECK[a].text + DECK[b].text,
                "ev": j.frac(Fraction(v, PER_HOLE)),
                "ev_decimal": j.dec9(Fraction(v, PER_HOLE)),
                "decision": f"first_run_{k1}x" if k1 else "fold",
            }
        )
    decisions = []
    for k1 in (0, 1, 2, 3):
        for k2 in (0, 1, 2, 3):
            for k3 in (0, 1, 2, 3):
                n = int(paths[k1, k2, k3])
                if n:
                    steps = [f"{k}x" for k in (k1, k2, k3) if k] + (["fold"] if 0 in (k1, k2, k3) else [])
                    decisions.append(
                        {
                            "decision": "-".join(steps),
                            "street": ("first_run", "second_run", "center")[min(2, len(steps) - 1)],
                            "probability": j.frac(Fraction(n, space)),
                            "probability_decimal": j.dec9(Fraction(n, space)),
                        }
                    )
    part_names = ("ante_1", "ante_2", "first_run", "second_run", "center")
    out_names = ("fold_first", "fold_second", "fold_center", "played")
    # Ultimate Pairs (RET ch.7 §E, R29) depends on the two cards alone: its covariance with the base game
    # is exact from the per-hand values.  Every two-card hand by its own line, not its class's representative's:
    # C and D pay A♥A♦ apart from the other pairs of aces (R22), the representative of AA being A♣A♦
    classes = {name: h for h, (name, _, _) in enumerate(HANDS)}
    two_cards = [classes[_class_name(a, b)] for a, b in combinations(range(52), 2)]
    combos = []
    for up_letter in letters(GAME, "ultimate_pairs"):
        up = paytable(GAME, "ultimate_pairs", up_letter)
        e_xy = e_y = e_yy = Fraction(0)
        for (a, b), h in zip(combinations(range(52), 2), two_cards, strict=True):
            line = up.line_for(ultimate_pairs_made((DECK[a], DECK[b])))
            y = Fraction(-1) if line is None else j.pays_of_line(line)
            p = Fraction(1, comb(52, 2))
            e_xy += p * Fraction(results[h][0], PER_HOLE) * y
            e_y += p * y
            e_yy += p * y * y
        cov = e_xy - mean * e_y
        var_y = e_yy - e_y * e_y
        combos.append(
            {
                "side_wager": "ultimate_pairs",
                "paytable": up_letter,
                "side_wager_return": j.frac(1 + e_y),
                "side_wager_std_dev": j.sqrt_dec9(var_y),
                "covariance": j.frac(cov),
                "covariance_decimal": j.dec9(cov),
                "std_dev_per_ante": j.sqrt_dec9(variance + var_y + 2 * cov),
            }
        )
    return {
        "game": GAME,
        "paytable": letter,
        "strategy": strategy,
        "method": "exact",
        "space": space,
        "simulated_rounds": None,
        "return_per_ante": j.frac(1 + mean),
        "return_per_ante_decimal": j.dec9(1 + mean),
        "house_edge_per_ante": j.frac(edge),
        "house_edge_per_ante_decimal": j.dec9(edge),
        "house_edge_per_total_wagered": j.frac(edge / wagered),
        "house_edge_per_total_wagered_decimal": j.dec9(edge / wagered),
        "element_of_risk": j.frac(edge / wagered),
        "element_of_risk_decimal": j.dec9(edge / wagered),
        "average_total_wagered_per_ante": j.frac(wagered),
        "average_total_wagered_per_ante_decimal": j.dec9(wagered),
        "variance_per_ante": j.frac(variance),
        "std_dev_per_ante": d["std_dev"],
        "net": d["net"],
        "parts": {
            name: {
                "return_share": j.frac(Fraction(int(parts[i]), space)),
                "return_share_decimal": j.dec9(Fraction(int(parts[i]), space)),
            }
            for i, name in enumerate(part_names)
        },
        "decisions": decisions,
        "outcomes": [
            {
                "outcome": out_names[i],
                "probability": j.frac(Fraction(int(outs[i]), space)),
                "probability_decimal": j.dec9(Fraction(int(outs[i]), space)),
            }
            for i in range(4)
        ],
        "starting_hands": hands,
        "combinations": combos,
        "published": [],
        "computed": {
            "seconds": round(seconds),
            "cores": workers,
            "code_version": j.code_version([Path(__file__), Path(j.__file__)]),
        },
    }


def _class_name(a: int, b: int) -> str:
    """The starting hand's class of two card indices, as HANDS names it ("AA", "AKs", "AKo")."""
    hi, lo = sorted((DECK[a], DECK[b]), key=lambda c: c.rank, reverse=True)
    name = RANK_NAMES[hi.rank - 2] + RANK_NAMES[lo.rank - 2]
    return name if hi.rank == lo.rank else name + ("s" if hi.suit == lo.suit else "o")


def recount_hand(name: str, strategy: str, letter: str | None = "A") -> tuple[int, int]:
    """(summed net, first decision) of one starting hand, recounted by the kernel (make test)."""
    hid = [h[0] for h in HANDS].index(name)
    a, b = HANDS[hid][2]
    table = paytable(GAME, "run", letter)
    run_pay = np.array([-1 if p is None else int(p) for p in j.pays_by_rank(table)], dtype=np.int64)
    r5, f5 = j.tables(5)
    t3 = _run_table(a, b, j.CARD_KEYS, j.CARD_MASKS, r5, f5, j.FLUSH_RANK, run_pay)
    posted = strategy == "posted"
    firsts, returns = _posted_inputs(letter) if posted else ([0] * N_HOLES, [(0, 0, 1)] * N_HOLES)
    er, ea, den = returns[hid]
    out = _hole(
        a,
        b,
        t3,
        posted,
        firsts[hid],
        er,
        ea,
        den,
        np.zeros(NET_OFFSET + 5000, dtype=np.int64),
        np.zeros((4, 4, 4), dtype=np.int64),
        np.zeros(5, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
    )
    return int(out[0]), int(out[1])

"""High Card Flush, the base game exact, under the optimal and the posted strategy (issue 27).

The player holds seven of 52 cards and the dealer seven of the 45 left: C(52,7) x C(45,7) equally
likely deals, about 6.1e15, counted rather than visited (docs/analysis.md, HCF exact):

* The player's hands are taken up to a permutation of the suits (suits never rank, HCF ch.6 §B):
  four 13-bit rank masks with a weight, the number of suit permutations: 5.7 million classes.
* A hand's value is its longest flush, then its ranks highest first (HCF ch.6 §C-§D, R14), i.e. the
  best over the suits of (cards of the suit, the suit's rank mask as an integer).  A dealer hand is
  below a value T exactly when each of its suits is, so the dealer hands below T are the x^7
  coefficient of the product over the suits of sum_k N_s(k, T) x^k, N_s(k, T) the k-subsets of the
  suit's unseen ranks below T (all for k under T's length, none above, a combination's rank at it).
* Three such counts per class (the dealer's qualifying hand, R15; the player's hand, strictly and
  up to equal) give the dealer hands that do not qualify, that lose, tie and win against the player.

The Raise (R16) is then chosen on the exact expected values (``optimal``; on equal values the smaller
wager) or by ``games.strategy.hcf_raise`` (``posted``).  Everything is summed in integers by one serial
numba kernel over both strategies (3 s of CPU; pure Python would take an hour); ``compute`` turns the
sums into the stored sheet's fractions.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import time
from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache
from math import comb, floor
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from games.cards import NINE, RANK_CHARS
from games.paytable import Odds
from games.paytables import letters, paytable
from games.strategy import MOUSSEAU_THREE_CARD

GAME = "high_card_flush"
STRATEGIES = ("optimal", "posted")
Progress = Callable[[int, int], None]
I64 = npt.NDArray[np.int64]

FULL = (1 << 13) - 1  # bit r - 2: rank r of one suit
BELOW_NINE = (1 << (NINE - 2)) - 1  # ranks 2-8: a three-card flush of these does not qualify (R15)
QUALIFYING_THREE = 1 << (NINE - 2)  # a three-card flush whose mask reaches this is nine high or better
POSTED_THREE = sum(1 << (r - 2) for r in MOUSSEAU_THREE_CARD)  # T-8-6: equal lengths compare as masks
DEALER_HANDS = comb(45, 7)
PLAYER_HANDS = comb(52, 7)
SPACE = PLAYER_HANDS * DEALER_HANDS
NETS = tuple(range(-4, 5))  # a round's net in Antes: fold -1; a Raise r wins or loses 1 + r
DECISIONS = ("fold", "raise_1x", "raise_2x", "raise_3x")
OUTCOMES = ("fold", "dealer_not_qualified", "win", "push", "lose")
CHUNKS = 1  # the kernel's tallies are split by chunk so a parallel loop could fill them; one is serial

_COMB = np.array([[comb(n, k) for k in range(8)] for n in range(53)], dtype=np.int64)
_POP = np.array([m.bit_count() for m in range(1 << 13)], dtype=np.int64)


def _run_length(mask: int) -> int:
    """The longest run of consecutive ranks in a suit's mask, the ace also low (R17)."""
    m = mask << 1 | (mask >> 12 & 1)  # bit 0: the ace as 1, bit r - 1: rank r
    run = 0
    while m:
        run += 1
        m &= m >> 1
    return run


_RUN = np.array([_run_length(m) for m in range(1 << 13)], dtype=np.int64)


def _keys() -> tuple[list[str], I64]:
    """The per-hand classes stored: a flush of 2-4 cards by its ranks (where the Raise is decided), of 5-7
    cards by its length and highest card (always the largest Raise)."""
    names: list[str] = []
    index: dict[tuple[int, ...], int] = {}
    keyof = np.full(1 << 13, -1, dtype=np.int64)
    for mask in sorted(range(1 << 13), key=lambda m: (m.bit_count(), m)):
        n = mask.bit_count()
        if n < 2 or n > 7:
            continue
        ranks = [r for r in range(14, 1, -1) if mask >> (r - 2) & 1]
        key = tuple(ranks) if n <= 4 else (n, ranks[0])
        if key not in index:
            index[key] = len(names)
            text = "".join(RANK_CHARS[r - 2] for r in ranks)
            names.append(text if n <= 4 else text[0] + "x" * (n - 1))
        keyof[mask] = index[key]
    return names, keyof


KEY_NAMES, _KEYOF = _keys()


# -- the counting (numba) ---------------------------------------------------------------------------


@numba.njit(cache=True)
def _lex_below(avail: int, length: int, target: int, inclusive: bool) -> int:
    """The ``length``-subsets of ``avail`` below ``target`` (a mask of ``length`` ranks), compared highest
    rank first, i.e. as integers (HCF ch.6 §D(1)); with ``inclusive`` ``target`` itself counts if free."""
    total = 0
    need = length
    for b in range(12, -1, -1):
        if target >> b & 1:
            total += int(_COMB[_POP[avail & ((1 << b) - 1)], need])  # a lower rank here, the rest anywhere below
            if not avail >> b & 1:
                return total
            need -= 1
            if need == 0:
                return total + (1 if inclusive else 0)
    return total


@numba.njit(cache=True)
def _below(avail: I64, length: int, target: int, inclusive: bool, qualify: bool) -> int:
    """Dealer hands of 7 of the ``avail`` cards below a value: the x^7 coefficient of the suits' product.

    ``qualify``: below the dealer's qualifying hand (R15: two-card flushes, three-card under nine high);
    else below (``inclusive``: up to) the hand of ``length`` cards of ranks ``target``."""
    acc = np.zeros(8, dtype=np.int64)
    acc[0] = 1
    poly = np.zeros(8, dtype=np.int64)
    for s in range(4):
        n = _POP[avail[s]]
        for k in range(8):
            if qualify:
                poly[k] = _COMB[n, k] if k <= 2 else (_COMB[_POP[avail[s] & BELOW_NINE], 3] if k == 3 else 0)
            elif k < length:
                poly[k] = _COMB[n, k]
            elif k == length:
                poly[k] = _lex_below(avail[s], length, target, inclusive)
            else:
                poly[k] = 0
        for d in range(7, -1, -1):  # acc *= poly, in place, truncated at degree 7
            v = 0
            for k in range(d + 1):
                v += acc[d - k] * poly[k]
            acc[d] = v
    return int(acc[7])


@numba.njit(cache=True)
def _best(m: I64) -> tuple[int, int]:
    """The player's hand (R14): the suit with the most cards, of equal lengths the higher ranks."""
    best_n, best_m = -1, -1
    for s in range(4):
        n = _POP[m[s]]
        if n > best_n or (n == best_n and m[s] > best_m):
            best_n, best_m = n, m[s]
    return best_n, best_m


@numba.njit(cache=True)
def _counts(m: I64, avail: I64) -> tuple[int, int, int, int]:
    """(dealer not qualifying, player wins, ties, loses) over every dealer hand of 7 ``avail`` cards."""
    length, target = _best(m)
    total = 0
    for s in range(4):
        total += _POP[avail[s]]
    dealer = _COMB[total, 7]
    nq = _below(avail, 0, 0, False, True)
    if length >= 4 or (length == 3 and target >= QUALIFYING_THREE):
        lt = _below(avail, length, target, False, False)
        le = _below(avail, length, target, True, False)
        return nq, lt - nq, le - lt, dealer - le
    return nq, 0, 0, dealer - nq  # every dealer hand up to this one fails to qualify (R15)


@numba.njit(cache=True)
def _max_raise(length: int) -> int:
    return 3 if length >= 6 else (2 if length == 5 else 1)  # R16, games.high_card_flush.max_raise


@numba.njit(cache=True)
def _decide(length: int, target: int, nq: int, win: int, lose: int, dealer: int, strategy: int) -> int:
    """The Raise in Antes (0: fold).  0 optimal: a Raise r is worth nq + (1 + r)(win - lose), a fold -dealer;
    1 posted: games.strategy.hcf_raise."""
    if strategy == 1:
        if length >= 4:
            return _max_raise(length)
        return 1 if length == 3 and target >= POSTED_THREE else 0
    if win > lose:
        return _max_raise(length)
    return 1 if nq + 2 * (win - lose) > -dealer else 0


@numba.njit(cache=True)
def _classes_of(by_pop: I64, count: I64, fill: bool, out: I64, weights: I64) -> int:
    """The player's hands up to suit permutation: four masks, the suits' lengths non-increasing and equal
    lengths' masks non-increasing; weight 24 / the product of the factorials of equal masks' counts."""
    n = 0
    idx = np.zeros(4, dtype=np.int64)
    pops = np.zeros(4, dtype=np.int64)
    for a in range(7, -1, -1):
        for b in range(min(a, 7 - a), -1, -1):
            for c in range(min(b, 7 - a - b), -1, -1):
                d = 7 - a - b - c
                if d > c or d < 0:
                    continue
                pops[0], pops[1], pops[2], pops[3] = a, b, c, d
                for i0 in range(count[a]):
                    for i1 in range(i0 + 1 if b == a else count[b]):
                        for i2 in range(i1 + 1 if c == b else count[c]):
                            for i3 in range(i2 + 1 if d == c else count[d]):
                                if fill:
                                    idx[0], idx[1], idx[2], idx[3] = i0, i1, i2, i3
                                    w = 24
                                    run = 1
                                    for s in range(1, 4):
                                        if pops[s] == pops[s - 1] and idx[s] == idx[s - 1]:
                                            run += 1
                                            w //= run
                                        else:
                                            run = 1
                                    for s in range(4):
                                        out[n, s] = by_pop[pops[s], idx[s]]
                                    weights[n] = w
                                n += 1
    return n


@numba.njit(cache=True)
def _kernel(classes: I64, weights: I64, only_key: int, chunks: int) -> tuple[I64, I64, I64, I64, I64, I64]:
    """Sum every player class's dealer counts into both strategies' tallies (strategy 0 optimal, 1 posted);
    ``only_key`` >= 0: only the classes of that stored hand (the re-derivation in make test)."""
    n = classes.shape[0]
    nkeys = 0
    for i in range(_KEYOF.shape[0]):
        nkeys = max(nkeys, _KEYOF[i] + 1)
    net = np.zeros((chunks, 2, 9), dtype=np.int64)
    dec = np.zeros((chunks, 2, 4), dtype=np.int64)
    out = np.zeros((chunks, 2, 5), dtype=np.int64)  # fold, dealer not qualified, win, push, lose
    parts = np.zeros((chunks, 2, 3), dtype=np.int64)  # ante, raise, total wagered
    keys = np.zeros((chunks, nkeys, 2, 6), dtype=np.int64)  # weight, sum of weight x value, decisions
    joint = np.zeros((chunks, 2, 9, 8, 8, 2), dtype=np.int64)  # net, flush length, run length, four of a kind
    dealer = _COMB[45, 7]
    for c in range(chunks):
        avail = np.zeros(4, dtype=np.int64)
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            m = classes[i]
            length, target = _best(m)
            key = _KEYOF[target]
            if only_key >= 0 and key != only_key:
                continue
            for s in range(4):
                avail[s] = FULL & ~m[s]
            nq, win, tie, lose = _counts(m, avail)
            w = weights[i]
            run = 0
            for s in range(4):
                run = max(run, _RUN[m[s]])
            quad = 1 if (m[0] & m[1] & m[2] & m[3]) != 0 else 0
            for st in range(2):
                r = _decide(length, target, nq, win, lose, dealer, st)
                dec[c, st, r] += w
                keys[c, key, st, 0] += w
                keys[c, key, st, 2 + r] += w
                if r == 0:
                    net[c, st, 3] += w * dealer
                    out[c, st, 0] += w * dealer
                    parts[c, st, 0] -= w * dealer
                    parts[c, st, 2] += w * dealer
                    keys[c, key, st, 1] -= w * dealer
                    joint[c, st, 3, length, run, quad] += w * dealer
                    continue
                net[c, st, 5] += w * nq  # the dealer does not qualify: the Ante wins, the Raise pushes
                net[c, st, 5 + r] += w * win
                net[c, st, 4] += w * tie
                net[c, st, 3 - r] += w * lose
                out[c, st, 1] += w * nq
                out[c, st, 2] += w * win
                out[c, st, 3] += w * tie
                out[c, st, 4] += w * lose
                parts[c, st, 0] += w * (nq + win - lose)
                parts[c, st, 1] += w * r * (win - lose)
                parts[c, st, 2] += w * dealer * (1 + r)
                keys[c, key, st, 1] += w * (nq + (1 + r) * (win - lose))
                joint[c, st, 5, length, run, quad] += w * nq
                joint[c, st, 5 + r, length, run, quad] += w * win
                joint[c, st, 4, length, run, quad] += w * tie
                joint[c, st, 3 - r, length, run, quad] += w * lose
    return net.sum(0), dec.sum(0), out.sum(0), parts.sum(0), keys.sum(0), joint.sum(0)


# -- the Python side --------------------------------------------------------------------------------


@cache
def classes() -> tuple[I64, I64]:
    """Every player hand up to suit permutation: (masks n x 4, weights n); the weights sum to C(52,7)."""
    count = np.zeros(8, dtype=np.int64)
    by_pop = np.zeros((8, comb(13, 6)), dtype=np.int64)
    for m in range(1 << 13):
        p = m.bit_count()
        if p <= 7:
            by_pop[p, count[p]] = m
            count[p] += 1
    n = _classes_of(by_pop, count, False, np.zeros((1, 4), dtype=np.int64), np.zeros(1, dtype=np.int64))
    out = np.zeros((n, 4), dtype=np.int64)
    weights = np.zeros(n, dtype=np.int64)
    _classes_of(by_pop, count, True, out, weights)
    return out, weights


def masks_of(cards: Any) -> I64:
    """The four suits' 13-bit rank masks of some cards (suits in ``c d h s`` order)."""
    m = np.zeros(4, dtype=np.int64)
    for card in cards:
        m["cdhs".index(card.suit)] |= 1 << (card.rank - 2)
    return m


def hand_counts(player: I64, deck: I64 | None = None) -> tuple[int, int, int, int]:
    """(dealer not qualifying, player wins, ties, loses) for one player hand (masks), the dealer's seven
    cards drawn from ``deck`` (masks; default the full deck) less the player's."""
    full = np.full(4, FULL, dtype=np.int64) if deck is None else deck
    nq, win, tie, lose = _counts(player, full & ~player)
    return int(nq), int(win), int(tie), int(lose)


def decide(player: I64, strategy: str) -> int:
    """The Raise in Antes (0: fold) the kernel plays for one player hand (masks)."""
    nq, win, _, lose = hand_counts(player)
    length, target = _best(player)
    return int(_decide(length, target, nq, win, lose, DEALER_HANDS, STRATEGIES.index(strategy)))


def raise_value(player: I64, raise_: int) -> Fraction:
    """The exact expected net, in Antes, of the hand (masks) raised ``raise_`` (0: folded)."""
    if raise_ == 0:
        return Fraction(-1)
    nq, win, _, lose = hand_counts(player)
    return Fraction(nq + (1 + raise_) * (win - lose), DEALER_HANDS)


Tallies = tuple[I64, I64, I64, I64, I64, I64]


def tally(only_key: int = -1, progress: Progress | None = None) -> Tallies:
    """Run the kernel over every class (or one stored hand's), in batches so progress can be shown."""
    masks, weights = classes()
    batches = 1 if only_key >= 0 or progress is None else 20
    total: list[I64] | None = None
    n = masks.shape[0]
    for b in range(batches):
        lo, hi = b * n // batches, (b + 1) * n // batches
        part = _kernel(masks[lo:hi], weights[lo:hi], only_key, CHUNKS)
        total = list(part) if total is None else [t + p for t, p in zip(total, part, strict=True)]
        if progress is not None:
            progress(hi, n)
    assert total is not None
    return (total[0], total[1], total[2], total[3], total[4], total[5])


_computed: dict[str, tuple[Tallies, float]] = {}  # the whole tally, once per process (both strategies)


def _full_tally(progress: Progress | None) -> tuple[Tallies, float]:
    if "all" not in _computed:
        start = time.perf_counter()
        result = tally(progress=progress)
        _computed["all"] = (result, time.perf_counter() - start)
    return _computed["all"]


KERNEL = (_lex_below, _below, _best, _counts, _max_raise, _decide, _classes_of, _kernel)


def code_version() -> str:
    """A hash of the kernel's sources: the stored sheets name the code that computed them."""
    text = "".join(inspect.getsource(f.py_func) for f in KERNEL)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fraction_text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def decimal_text(x: Fraction, places: int = 9) -> str:
    """``x`` rounded half up to ``places`` decimals, exactly (never through float)."""
    return str(Decimal(floor(x * 10**places + Fraction(1, 2))).scaleb(-places))


def _sqrt_text(x: Fraction, places: int = 9) -> str:
    with localcontext() as ctx:
        ctx.prec = 50
        root = (Decimal(x.numerator) / Decimal(x.denominator)).sqrt()
    return decimal_text(Fraction(root), places)


def _figure(name: str, x: Fraction) -> dict[str, str]:
    return {name: fraction_text(x), f"{name}_decimal": decimal_text(x)}


def _side_nets(wager: str, letter: str) -> dict[tuple[int, int, int], int]:
    """The net of one unit of a side wager for each (flush length, run length, four of a kind) the
    seven cards make (HCF ch.7 §F(2)-(3), R5, R17, R19)."""
    table = paytable(GAME, wager, letter)
    nets: dict[tuple[int, int, int], int] = {}
    for length in range(2, 8):
        for run in range(8):
            for quad in (0, 1):
                if wager == "flush_bonus":
                    made = {f"flush_{k}" for k in range(4, length + 1)}
                else:
                    made = {f"straight_flush_{k}" for k in range(3, run + 1)} | ({"four_of_a_kind"} if quad else set())
                line = table.line_for(frozenset(made))
                if line is None:
                    nets[(length, run, quad)] = -1
                else:
                    assert isinstance(line.pays, Odds) and line.pays.word == "to", line
                    assert line.pays.denominator == 1, line
                    nets[(length, run, quad)] = line.pays.numerator
    return nets


def _combinations(joint: I64, base_mean: Fraction, base_var: Fraction) -> list[dict[str, Any]]:
    """The base game with one Ante-sized Flush Bonus or Straight Flush Bonus: both are functions of the
    player's seven cards, so the joint distribution is exact.  (The Progressive is left out: its pays
    depend on the meter.)"""
    out: list[dict[str, Any]] = []
    for wager in ("flush_bonus", "straight_flush_bonus"):
        for letter in letters(GAME, wager):
            nets = _side_nets(wager, letter)
            e_side = e_side2 = e_cross = 0
            for (length, run, quad), side in nets.items():
                col = joint[:, length, run, quad]
                mass = int(col.sum())
                e_side += side * mass
                e_side2 += side * side * mass
                e_cross += side * sum(int(col[i]) * NETS[i] for i in range(9))
            side_mean = Fraction(e_side, SPACE)
            side_var = Fraction(e_side2, SPACE) - side_mean**2
            cov = Fraction(e_cross, SPACE) - base_mean * side_mean
            var = base_var + side_var + 2 * cov
            out.append({
                "side_wager": wager, "paytable": letter,
                **_figure("side_return", 1 + side_mean),
                "side_std_dev": _sqrt_text(side_var),
                **_figure("covariance", cov),
                **_figure("expected_net_per_ante", base_mean + side_mean),
                "std_dev_per_ante": _sqrt_text(var),
            })
    return out


PUBLISHED: dict[str, list[dict[str, str]]] = {
    "optimal": [
        {"figure": "expected value of a Raise, Th-8h-6h Js-Ad-Qd-Jc", "value": "-0.86655",
         "source": "Gordon Michaels, High Card Flush Advanced Strategy, Wizard of Odds "
                   "(wizardofodds.com/games/high-card-flush/advanced-strategy/)"},
        {"figure": "expected value of a Raise, Th-8h-6h 7d-4d-2d-9c", "value": "-1.06993",
         "source": "Gordon Michaels, High Card Flush Advanced Strategy, Wizard of Odds "
                   "(wizardofodds.com/games/high-card-flush/advanced-strategy/)"},
        {"figure": "house edge per Ante, Michaels' strategy (near optimal)", "value": "0.026855",
         "source": "Wizard of Odds, High Card Flush Advanced Strategy "
                   "(wizardofodds.com/games/high-card-flush/advanced-strategy/)"},
    ],
    "posted": [
        {"figure": "house edge per Ante, Mousseau's strategy: 0.06 % above optimal", "value": "about 0.0274",
         "source": "Wizard of Odds, High Card Flush (wizardofodds.com/games/high-card-flush/)"},
    ],
}


def compute(letter: str | None, strategy: str, progress: Progress | None = None) -> dict[str, Any]:
    """The sheet of the base game under ``strategy`` ("optimal" or "posted"); HCF has no base paytable."""
    if letter is not None:
        raise ValueError(f"High Card Flush's base game has no paytable, not {letter!r}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}: one of {', '.join(STRATEGIES)}")
    result, seconds = _full_tally(progress)
    return sheet(result, strategy, seconds)


def sheet(result: Tallies, strategy: str, seconds: float) -> dict[str, Any]:
    st = STRATEGIES.index(strategy)
    net, dec, out, parts, joint = (result[i][st] for i in (0, 1, 2, 3, 5))
    keys = result[4][:, st]
    total = int(net.sum())
    assert total == SPACE, (total, SPACE)
    p = [Fraction(int(x), SPACE) for x in net]
    mean = sum((n * q for n, q in zip(NETS, p, strict=True)), Fraction(0))
    var = sum((n * n * q for n, q in zip(NETS, p, strict=True)), Fraction(0)) - mean**2
    wagered = Fraction(int(parts[2]), SPACE)
    per_hand = []
    for k, name in enumerate(KEY_NAMES):
        weight = int(keys[k, 0])
        if weight == 0:
            continue
        made = {DECISIONS[r]: int(keys[k, 2 + r]) for r in range(4) if keys[k, 2 + r]}
        per_hand.append({
            "hand": name, "length": len(name), "weight": weight,
            **_figure("ev", Fraction(int(keys[k, 1]), weight * DEALER_HANDS)),
            "decision": next(iter(made)) if len(made) == 1 else "mixed",
            **({"decisions": made} if len(made) > 1 else {}),
        })
    return {
        "game": GAME,
        "paytable": None,
        "strategy": strategy,
        "method": "exact",
        "space": SPACE,
        "simulated_rounds": None,
        **_figure("return_per_ante", 1 + mean),
        **_figure("expected_net_per_ante", mean),
        **_figure("house_edge_per_ante", -mean),
        **_figure("house_edge_per_total_wagered", -mean / wagered),
        **_figure("element_of_risk", -mean / wagered),
        **_figure("average_total_wagered_per_ante", wagered),
        **_figure("variance_per_ante", var),
        "std_dev_per_ante": _sqrt_text(var),
        "net": [{"net": str(n), **_figure("probability", q)} for n, q in zip(NETS, p, strict=True) if q],
        "parts": {
            "ante": _figure("return_share", Fraction(int(parts[0]), SPACE)),
            "raise": _figure("return_share", Fraction(int(parts[1]), SPACE)),
        },
        "decisions": [{"decision": d, "street": "raise", **_figure("probability", Fraction(int(dec[r]), PLAYER_HANDS))}
                      for r, d in enumerate(DECISIONS) if dec[r]],
        "outcomes": [{"outcome": o, **_figure("probability", Fraction(int(out[i]), SPACE))}
                     for i, o in enumerate(OUTCOMES)],
        "starting_hands": per_hand,
        "combinations": _combinations(joint, mean, var),
        "published": PUBLISHED[strategy],
        "computed": {"seconds": round(seconds, 1), "cores": 1,
                     "code_version": code_version()},
        "notes": {
            "return_per_ante": "1 + the expected net result of a round, in Antes",
            "element_of_risk": "the house edge per unit of the total wagered (Ante and Raise): the same figure",
            "return_share": "each wager's expected net per Ante; the two add up to the expected net",
            "starting_hands": "a flush of 2-4 cards by its ranks (e.g. T86), of 5-7 cards by length and "
                              "highest card (Axxxx); weight: the player's hands of it out of C(52,7); "
                              "ev: the expected net in Antes of its hands as played",
            "outcomes": "dealer_not_qualified: the Ante wins, the Raise pushes (HCF ch.11 §B(5)(c))",
            "combinations": "the base game plus one Ante-sized side wager; the Progressive is omitted "
                            "(its pays depend on the meter)",
            "optimal": "each hand's Raise by the exact expected values over the 45 unseen cards; "
                       "on equal values the smaller wager",
        },
    }


def data_path(strategy: str) -> Path:
    return Path(__file__).parent / "data" / f"{GAME}.base.{strategy}.json"


if __name__ == "__main__":  # python -m games.par.hcf: recompute and store both sheets
    import json
    import sys

    def _show(done: int, total: int) -> None:
        print(f"\r{done:,} / {total:,} player hand classes", end="", file=sys.stderr, flush=True)

    compute(None, "optimal", _show)
    print(file=sys.stderr)
    for name in STRATEGIES:
        data_path(name).parent.mkdir(exist_ok=True)
        data_path(name).write_text(json.dumps(compute(None, name), indent=1) + "\n")
        print(data_path(name), os.path.getsize(data_path(name)), file=sys.stderr)

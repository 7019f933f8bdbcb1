"""Jackpot Hold 'Em's base game (Ante, X-tra Bonus, Play), exactly: every deal, both strategies.

A round (RULINGS R11, R12): two hole cards; one community card shown, bet 3x or check; two more,
bet 2x or check; the last two, bet 1x or fold; the dealer's two cards decide.  Space: 1,326 hole
pairs x 50 shown cards x C(49,2) x C(47,2) x C(45,2) dealer pairs, all equally likely.

Method (numba kernel, ``_board``): for each of the C(52,5) boards, rank all C(47,2) two-card hands
on it (``games.batch`` tables), sort them, and count for each hand the dealer hands below, equal
and above by per-card prefix counts (inclusion-exclusion removes the dealer hands sharing a card),
split by the dealer's qualifying (a pair or better).  That gives, for each of the 169 starting
hands (one representative each) and board, the Play-independent part A and the per-Play-unit
part B of the sum over the 990 dealer hands: a Play of k returns A + kB.  These are summed per
(hand, three first community cards) F: the second decision compares 2x with checking on them;
then per (hand, first card): 3x against continuing.  A second pass, the decisions known, counts
the distribution of the net result and the Player Bonus covariance.

"optimal" decides by the exact sums; "posted" plays games.strategy's jhe_first, jhe_second
(uth_flop, here in numba) and jhe_third (uth_river: the dealer's outs counted from the sorted
six-card ranks of the board and each unseen card); tests/test_par_jhe.py checks them against
games.strategy.  One pass is about a minute or two on 2 cores (docs/analysis.md).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from games.cards import DECK, Card
from games.paytables import paytable
from games.poker import CATEGORY_NAMES, PAIR
from games.strategy import jhe_first

from . import _jret as j
from ._jret import rank_of as j_rank

GAME = "jackpot_holdem"
N_HOLES = 169
N_F = comb(52, 3)
DEALER = comb(45, 2)  # 990 dealer hands on each (hole, board)
PATHS = ("fold", "bet_1x", "bet_2x", "bet_3x")  # index = Play multiple (0 = fold)
TYPES = ("win_qualified", "win_not_qualified", "tie", "lose_qualified", "lose_not_qualified")
FIRST_PAIR_RANK = int(np.searchsorted(j.RANK_CATEGORY, PAIR))  # rank classes below it are high card
RANK_NAMES = "23456789TJQKA"

Progress = Callable[[int, int], None]


# -- the starting hands --------------------------------------------------------------------------------------


def starting_hands() -> list[tuple[str, int, tuple[int, int]]]:
    """(name as "AKs"/"AKo"/"AA", weight, the representative's two card indices) for the 169 classes."""
    out = []
    for hi in range(12, -1, -1):
        for lo in range(hi, -1, -1):
            if hi == lo:
                out.append((RANK_NAMES[hi] * 2, 6, (4 * lo, 4 * hi + 1)))
            else:
                out.append((RANK_NAMES[hi] + RANK_NAMES[lo] + "s", 4, (4 * lo, 4 * hi)))
                out.append((RANK_NAMES[hi] + RANK_NAMES[lo] + "o", 12, (4 * lo + 1, 4 * hi)))
    assert sum(w for _, w, _ in out) == comb(52, 2)
    return out


HANDS = starting_hands()


def _canon() -> tuple[np.ndarray, np.ndarray]:
    canon = np.full(52 * 52, -1, dtype=np.int32)
    weight = np.zeros(N_HOLES, dtype=np.int64)
    for i, (_, w, (a, b)) in enumerate(HANDS):
        canon[min(a, b) * 52 + max(a, b)] = i
        weight[i] = w
    return canon, weight


# -- the kernel ---------------------------------------------------------------------------------------------


@j.kernel
def _all_boards() -> np.ndarray:
    out = np.empty((2598960, 5), dtype=np.int8)
    n = 0
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        out[n, 0] = a
                        out[n, 1] = b
                        out[n, 2] = c
                        out[n, 3] = d
                        out[n, 4] = e
                        n += 1
    return out


@j.kernel_inline
def _c3(x: Any, y: Any, z: Any) -> int:
    return int(x + y * (y - 1) // 2 + z * (z - 1) * (z - 2) // 6)


@j.kernel
def _board(
    board: Any,
    keys: Any,
    masks: Any,
    r7: Any,
    f7: Any,
    r6: Any,
    f6: Any,
    r5: Any,
    f5: Any,
    flush_rank: Any,
    category: Any,
    ha: Any,
    hb: Any,
    hr: Any,
    less: Any,
    ties: Any,
    nqcnt: Any,
    r6card: Any,
    r6sorted: Any,
    hist: Any,
    order: Any,
) -> Any:
    """Rank the 1,081 hands on this board and count the dealer hands below / equal for each.

    Fills ha, hb (cards), hr (rank), less, ties; nqcnt[c]: high-card hands holding card c; r6card[c]:
    rank of board + c, r6sorted: those of the 47 unseen cards, sorted.  Returns (hands that are high
    card, board's five-card category).
    """
    used = np.zeros(52, dtype=np.bool_)
    bkey = 0
    bmask = 0
    for i in range(5):
        used[board[i]] = True
        bkey += keys[board[i]]
        bmask |= masks[board[i]]
    board_cat = category[j_rank(bkey, bmask, r5, f5, flush_rank)]
    rem = np.empty(47, dtype=np.int64)
    n = 0
    for c in range(52):
        if not used[c]:
            rem[n] = c
            n += 1
    for i in range(47):
        c = rem[i]
        r6card[c] = j_rank(bkey + keys[c], bmask | masks[c], r6, f6, flush_rank)
        r6sorted[i] = r6card[c]
    r6sorted.sort()
    m = 0
    for i in range(47):
        a = rem[i]
        for k in range(i + 1, 47):
            b = rem[k]
            ha[m] = a
            hb[m] = b
            hr[m] = j_rank(bkey + keys[a] + keys[b], bmask | masks[a] | masks[b], r7, f7, flush_rank)
            m += 1
    # a counting sort by rank class (7,462 of them): several times faster here than a comparison sort
    hist[:] = 0
    for h in range(m):
        hist[hr[h] + 1] += 1
    for r in range(1, hist.shape[0]):
        hist[r] += hist[r - 1]
    for h in range(m):
        order[hist[hr[h]]] = h
        hist[hr[h]] += 1
    cnt = np.zeros(52, dtype=np.int64)
    gcnt = np.zeros(52, dtype=np.int64)
    nqcnt[:] = 0
    nq_total = 0
    processed = 0
    s = 0
    while s < m:
        e = s
        r = hr[order[s]]
        while e < m and hr[order[e]] == r:
            gcnt[ha[order[e]]] += 1
            gcnt[hb[order[e]]] += 1
            e += 1
        size = e - s
        for t in range(s, e):
            h = order[t]
            less[h] = processed - cnt[ha[h]] - cnt[hb[h]]
            ties[h] = size - gcnt[ha[h]] - gcnt[hb[h]] + 1
        for t in range(s, e):
            h = order[t]
            gcnt[ha[h]] = 0
            gcnt[hb[h]] = 0
            cnt[ha[h]] += 1
            cnt[hb[h]] += 1
            if category[hr[h]] == 0:
                nqcnt[ha[h]] += 1
                nqcnt[hb[h]] += 1
        if category[r] == 0:
            nq_total += size
        processed += size
        s = e
    return nq_total, board_cat


@j.kernel_inline
def _outcomes(a: Any, b: Any, rp: Any, lo: Any, t: Any, nqcnt: Any, nq_total: Any, category: Any) -> Any:
    """(Wq, Wnq, T, Lq, Lnq) of the hand a, b (rank rp, lo dealer hands below, t equal) over the 990
    dealer hands not sharing its cards: wins / losses against a qualifying dealer or not, ties."""
    own_nq = 1 if category[rp] == 0 else 0  # the hand itself is among the high-card hands on its cards
    nq_avail = nq_total - nqcnt[a] - nqcnt[b] + own_nq
    lose = 990 - lo - t
    if own_nq:  # below a pair: every dealer hand it beats or ties is high card too
        return 0, lo, t, lose - (nq_avail - lo - t), nq_avail - lo - t
    return lo - nq_avail, nq_avail, t, lose, 0


@j.kernel
def _river_posted(a: Any, b: Any, rp: Any, board_cat: Any, category: Any, r6card: Any, r6sorted: Any) -> Any:
    """games.strategy.uth_river: a hidden pair or better, or fewer than 21 dealer outs."""
    pc = category[rp]
    if pc >= 1 and pc > board_cat:
        return True
    # unseen cards whose six-card hand with the board beats the player's seven
    above = 47 - np.searchsorted(r6sorted, rp, side="right")
    if r6card[a] > rp:
        above -= 1
    if r6card[b] > rp:
        above -= 1
    return above < 21


@j.kernel
def _flop_posted(
    a: Any,
    b: Any,
    x: Any,
    y: Any,
    z: Any,
    keys: Any,
    masks: Any,
    r5: Any,
    f5: Any,
    flush_rank: Any,
    category: Any,
) -> Any:
    """games.strategy.uth_flop on the hand a, b and the three cards x, y, z (JHE's second decision)."""
    cards = (a, b, x, y, z)
    key = keys[a] + keys[b] + keys[x] + keys[y] + keys[z]
    mask = masks[a] | masks[b] | masks[x] | masks[y] | masks[z]
    if category[j_rank(key, mask, r5, f5, flush_rank)] >= 2:  # two pair or better
        return True
    ra = a // 4
    rb = b // 4
    if ra == rb:
        if ra > 0:  # a pocket pair above deuces
            return True
    elif ra == x // 4 or ra == y // 4 or ra == z // 4 or rb == x // 4 or rb == y // 4 or rb == z // 4:
        return True
    for h in (a, b):
        if h // 4 >= 8:  # a ten or better of a suit held four times among the five
            n = 0
            for c in cards:
                if c % 4 == h % 4:
                    n += 1
            if n >= 4:
                return True
    return False


@j.kernel
def _triples() -> np.ndarray:
    out = np.empty((10, 3), dtype=np.int64)
    n = 0
    for p in range(5):
        for q in range(p + 1, 5):
            for r in range(q + 1, 5):
                out[n, 0] = p
                out[n, 1] = q
                out[n, 2] = r
                n += 1
    return out


@j.kernel
def _suit_perms() -> np.ndarray:
    out = np.empty((24, 4), dtype=np.int64)
    n = 0
    for p0 in range(4):
        for p1 in range(4):
            for p2 in range(4):
                for p3 in range(4):
                    if p0 != p1 and p0 != p2 and p0 != p3 and p1 != p2 and p1 != p3 and p2 != p3:
                        out[n, 0] = p0
                        out[n, 1] = p1
                        out[n, 2] = p2
                        out[n, 3] = p3
                        n += 1
    return out


@j.kernel
def _images(board: Any, perms: Any, imgs: Any, distinct: Any) -> Any:
    """The board's images under the 24 suit permutations (sorted, in imgs); distinct[s]: the first permutation
    giving that image.  Returns False unless the board is the smallest of its images (its class's representative).
    """
    codes = np.empty(24, dtype=np.int64)
    for s in range(24):
        for i in range(5):
            c = board[i]
            imgs[s, i] = c - c % 4 + perms[s, c % 4]
        imgs[s].sort()
        code = 0
        for i in range(5):
            code = code * 52 + imgs[s, i]
        codes[s] = code
    for s in range(24):
        if codes[s] < codes[0]:
            return False
    for s in range(24):
        distinct[s] = True
        for u in range(s):
            if codes[u] == codes[s]:
                distinct[s] = False
                break
    return True


@j.kernel
def _pass1(
    boards: Any,
    start: Any,
    stop: Any,
    canon: Any,
    keys: Any,
    masks: Any,
    r7: Any,
    f7: Any,
    r6: Any,
    f6: Any,
    r5: Any,
    f5: Any,
    flush_rank: Any,
    category: Any,
    xpay: Any,
    posted: Any,
    s3: Any,
) -> Any:
    """Sum A, B and the river's value R over the last two cards, per (first three cards, starting hand):
    s3[F, hand] = (A, B, R).  Only one board of each class under the suits' permutations is ranked; its
    values go to each distinct image (a hand and board relabelled alike keep their values)."""
    ids = np.empty(1081, dtype=np.int64)
    vals = np.empty((1081, 3), dtype=np.int64)
    allv = np.empty((1081, 3), dtype=np.int64)
    ha = np.empty(1081, dtype=np.int64)
    hb = np.empty(1081, dtype=np.int64)
    hr = np.empty(1081, dtype=np.int64)
    less = np.empty(1081, dtype=np.int64)
    ties = np.empty(1081, dtype=np.int64)
    nqcnt = np.zeros(52, dtype=np.int64)
    r6card = np.zeros(52, dtype=np.int64)
    r6sorted = np.empty(47, dtype=np.int64)
    hist = np.zeros(j.N_RANKS + 1, dtype=np.int64)
    order = np.empty(1081, dtype=np.int64)
    tri = _triples()
    perms = _suit_perms()
    imgs = np.empty((24, 5), dtype=np.int64)
    distinct = np.empty(24, dtype=np.bool_)
    fidx = np.empty(10, dtype=np.int64)
    for n in range(start, stop):
        board = boards[n]
        if not _images(board, perms, imgs, distinct):
            continue
        nq_total, board_cat = _board(
            board,
            keys,
            masks,
            r7,
            f7,
            r6,
            f6,
            r5,
            f5,
            flush_rank,
            category,
            ha,
            hb,
            hr,
            less,
            ties,
            nqcnt,
            r6card,
            r6sorted,
            hist,
            order,
        )
        for h in range(1081):
            wq, wnq, t, lq, lnq = _outcomes(ha[h], hb[h], hr[h], less[h], ties[h], nqcnt, nq_total, category)
            pay = xpay[hr[h]]
            big_a = wq * (1 + pay) + wnq * pay - 2 * lq - lnq
            big_b = wq + wnq - lq - lnq
            if posted:
                play = _river_posted(ha[h], hb[h], hr[h], board_cat, category, r6card, r6sorted)
            else:
                play = big_a + big_b > -2 * 990
            allv[h, 0] = big_a
            allv[h, 1] = big_b
            allv[h, 2] = big_a + big_b if play else -2 * 990
        for s in range(24):
            if not distinct[s]:
                continue
            m = 0
            for h in range(1081):
                x = ha[h] - ha[h] % 4 + perms[s, ha[h] % 4]
                y = hb[h] - hb[h] % 4 + perms[s, hb[h] % 4]
                hid = canon[min(x, y) * 52 + max(x, y)]
                if hid < 0:
                    continue
                ids[m] = hid
                vals[m, 0] = allv[h, 0]
                vals[m, 1] = allv[h, 1]
                vals[m, 2] = allv[h, 2]
                m += 1
            for f in range(10):
                fidx[f] = _c3(imgs[s, tri[f, 0]], imgs[s, tri[f, 1]], imgs[s, tri[f, 2]])
            # one (three cards) row after another: the 169 hands of a row lie together in memory
            for f in range(10):
                row = s3[fidx[f]]
                for i in range(m):
                    hid = ids[i]
                    row[hid, 0] += vals[i, 0]
                    row[hid, 1] += vals[i, 1]
                    row[hid, 2] += vals[i, 2]


@j.kernel
def _aggregate(
    s3: Any,
    holes: Any,
    posted: Any,
    keys: Any,
    masks: Any,
    r5: Any,
    f5: Any,
    flush_rank: Any,
    category: Any,
    dec2: Any,
    bet3: Any,
    cont: Any,
) -> Any:
    """The second decision per (hand, three cards) and, per (hand, first card), 3x's and continuing's sums."""
    for hid in range(holes.shape[0]):
        a = holes[hid, 0]
        b = holes[hid, 1]
        for z in range(52):
            for y in range(z):
                for x in range(y):
                    if x == a or x == b or y == a or y == b or z == a or z == b:
                        continue
                    idx = _c3(x, y, z)
                    sa = s3[idx, hid, 0]
                    sb = s3[idx, hid, 1]
                    bet2 = sa + 2 * sb
                    check = s3[idx, hid, 2]
                    if posted:
                        d = _flop_posted(a, b, x, y, z, keys, masks, r5, f5, flush_rank, category)
                    else:
                        d = bet2 > check
                    dec2[idx, hid] = d
                    v2 = bet2 if d else check
                    b3 = sa + 3 * sb
                    for c in (x, y, z):
                        bet3[hid, c] += b3
                        cont[hid, c] += v2


@j.kernel
def _pass2(
    boards: Any,
    start: Any,
    stop: Any,
    canon: Any,
    weight: Any,
    keys: Any,
    masks: Any,
    r7: Any,
    f7: Any,
    r6: Any,
    f6: Any,
    r5: Any,
    f5: Any,
    flush_rank: Any,
    category: Any,
    xpay: Any,
    pbpay: Any,
    posted: Any,
    dec1: Any,
    dec2: Any,
    counts: Any,
    decisions: Any,
    pbcat: Any,
    cov: Any,
) -> Any:
    """With the decisions known: count (path, outcome, player's category), the decisions, and the Player
    Bonus: its category counts and the sum of (Player Bonus net x the base game's net over the dealer).
    Boards by class, as _pass1."""
    ha = np.empty(1081, dtype=np.int64)
    hb = np.empty(1081, dtype=np.int64)
    hr = np.empty(1081, dtype=np.int64)
    less = np.empty(1081, dtype=np.int64)
    ties = np.empty(1081, dtype=np.int64)
    nqcnt = np.zeros(52, dtype=np.int64)
    r6card = np.zeros(52, dtype=np.int64)
    r6sorted = np.empty(47, dtype=np.int64)
    hist = np.zeros(j.N_RANKS + 1, dtype=np.int64)
    order = np.empty(1081, dtype=np.int64)
    tri = _triples()
    perms = _suit_perms()
    imgs = np.empty((24, 5), dtype=np.int64)
    distinct = np.empty(24, dtype=np.bool_)
    fidx = np.empty(10, dtype=np.int64)
    outc = np.empty((1081, 5), dtype=np.int64)
    ab = np.empty((1081, 2), dtype=np.int64)
    plays = np.empty(1081, dtype=np.bool_)
    for n in range(start, stop):
        board = boards[n]
        if not _images(board, perms, imgs, distinct):
            continue
        nq_total, board_cat = _board(
            board,
            keys,
            masks,
            r7,
            f7,
            r6,
            f6,
            r5,
            f5,
            flush_rank,
            category,
            ha,
            hb,
            hr,
            less,
            ties,
            nqcnt,
            r6card,
            r6sorted,
            hist,
            order,
        )
        for h in range(1081):
            wq, wnq, t, lq, lnq = _outcomes(ha[h], hb[h], hr[h], less[h], ties[h], nqcnt, nq_total, category)
            outc[h, 0] = wq
            outc[h, 1] = wnq
            outc[h, 2] = t
            outc[h, 3] = lq
            outc[h, 4] = lnq
            pay = xpay[hr[h]]
            ab[h, 0] = wq * (1 + pay) + wnq * pay - 2 * lq - lnq
            ab[h, 1] = wq + wnq - lq - lnq
            if posted:
                plays[h] = _river_posted(ha[h], hb[h], hr[h], board_cat, category, r6card, r6sorted)
            else:
                plays[h] = ab[h, 0] + ab[h, 1] > -2 * 990
        for s in range(24):
            if not distinct[s]:
                continue
            for f in range(10):
                fidx[f] = _c3(imgs[s, tri[f, 0]], imgs[s, tri[f, 1]], imgs[s, tri[f, 2]])
            for h in range(1081):
                x = ha[h] - ha[h] % 4 + perms[s, ha[h] % 4]
                y = hb[h] - hb[h] % 4 + perms[s, hb[h] % 4]
                hid = canon[min(x, y) * 52 + max(x, y)]
                if hid < 0:
                    continue
                w = weight[hid]
                cat = category[hr[h]]
                pb = pbpay[hr[h]]
                # the first card shown (c0) and the next two: 5 x 6 orders of the board, one triple F each
                for f in range(10):
                    for i in range(3):
                        c0 = imgs[s, tri[f, i]]
                        if dec1[hid, c0]:
                            k = 3
                        elif dec2[fidx[f], hid]:
                            k = 2
                        elif plays[h]:
                            k = 1
                        else:
                            k = 0
                        decisions[k] += w
                        pbcat[cat] += w
                        if k == 0:
                            counts[0, 0, cat] += w * 990
                            cov[0] += w * pb * (-2 * 990)
                        else:
                            for u in range(5):
                                counts[k, u, cat] += w * outc[h, u]
                            cov[0] += w * pb * (ab[h, 0] + k * ab[h, 1])


# -- the independent count of one state, for the tests -------------------------------------------------------


@j.kernel
def _state_brute(
    a: Any,
    b: Any,
    c0: Any,
    posted: Any,
    dec2_posted: Any,
    keys: Any,
    masks: Any,
    r7: Any,
    f7: Any,
    r6: Any,
    f6: Any,
    r5: Any,
    f5: Any,
    flush_rank: Any,
    category: Any,
    xpay: Any,
) -> Any:
    """(3x's sum, continuing's sum) of the state (hand a, b; first card c0), every dealer hand compared
    one by one (no sorting, no prefix counts) and the dealer's outs counted card by card."""
    sa = np.zeros(N_F, dtype=np.int64)
    sb = np.zeros(N_F, dtype=np.int64)
    sr = np.zeros(N_F, dtype=np.int64)
    seen = np.zeros(N_F, dtype=np.bool_)
    rest = np.empty(49, dtype=np.int64)
    n = 0
    for c in range(52):
        if c != a and c != b and c != c0:
            rest[n] = c
            n += 1
    for i1 in range(49):
        for i2 in range(i1 + 1, 49):
            for i3 in range(i2 + 1, 49):
                for i4 in range(i3 + 1, 49):
                    c1, c2, c3, c4 = rest[i1], rest[i2], rest[i3], rest[i4]
                    bkey = keys[c0] + keys[c1] + keys[c2] + keys[c3] + keys[c4]
                    bmask = masks[c0] | masks[c1] | masks[c2] | masks[c3] | masks[c4]
                    rp = j_rank(bkey + keys[a] + keys[b], bmask | masks[a] | masks[b], r7, f7, flush_rank)
                    pay = xpay[rp]
                    big_a = 0
                    big_b = 0
                    outs = 0
                    for d1 in range(52):
                        if d1 == a or d1 == b or d1 == c0 or d1 == c1 or d1 == c2 or d1 == c3 or d1 == c4:
                            continue
                        if j_rank(bkey + keys[d1], bmask | masks[d1], r6, f6, flush_rank) > rp:
                            outs += 1
                        for d2 in range(d1 + 1, 52):
                            if d2 == a or d2 == b or d2 == c0 or d2 == c1 or d2 == c2 or d2 == c3 or d2 == c4:
                                continue
                            rd = j_rank(bkey + keys[d1] + keys[d2], bmask | masks[d1] | masks[d2], r7, f7, flush_rank)
                            qualifies = category[rd] >= 1
                            if rp > rd:
                                big_a += pay + (1 if qualifies else 0)
                                big_b += 1
                            elif rp < rd:
                                big_a -= 2 if qualifies else 1
                                big_b -= 1
                    if posted:
                        pc = category[rp]
                        board_cat = category[j_rank(bkey, bmask, r5, f5, flush_rank)]
                        play = (pc >= 1 and pc > board_cat) or outs < 21
                    else:
                        play = big_a + big_b > -2 * 990
                    river = big_a + big_b if play else -2 * 990
                    # the board's five cards in four orders: c0 first, then two of c1..c4 (6 ways)
                    quad = (c1, c2, c3, c4)
                    for p in range(4):
                        for q in range(p + 1, 4):
                            x, y, z = c0, quad[p], quad[q]
                            if x > y:
                                x, y = y, x
                            if y > z:
                                y, z = z, y
                            if x > y:
                                x, y = y, x
                            idx = _c3(x, y, z)
                            sa[idx] += big_a
                            sb[idx] += big_b
                            sr[idx] += river
                            seen[idx] = True
    bet3 = 0
    cont = 0
    for idx in range(N_F):
        if not seen[idx]:
            continue
        bet2 = sa[idx] + 2 * sb[idx]
        d = dec2_posted[idx] if posted else bet2 > sr[idx]
        cont += bet2 if d else sr[idx]
        bet3 += sa[idx] + 3 * sb[idx]
    return bet3, cont


# -- the driver ----------------------------------------------------------------------------------------------


class _Arrays:
    """The kernel's read-only inputs, made once."""

    def __init__(self, letter: str | None) -> None:
        self.r7, self.f7 = j.tables(7)
        self.r6, self.f6 = j.tables(6)
        self.r5, self.f5 = j.tables(5)
        self.keys, self.masks, self.flush_rank, self.category = j.CARD_KEYS, j.CARD_MASKS, j.FLUSH_RANK, j.RANK_CATEGORY
        self.xtable = paytable(GAME, "xtra_bonus", letter)
        self.pbtable = paytable(GAME, "player_bonus", None)
        xp = j.pays_by_rank(self.xtable)
        assert all(p is not None and p.denominator == 1 for p in xp), "X-tra Bonus: whole odds or push on every hand"
        self.xpay = np.array([int(p or 0) for p in xp], dtype=np.int64)
        pb = j.pays_by_rank(self.pbtable)
        assert all(p is None or p.denominator == 1 for p in pb)
        self.pbpay = np.array([-1 if p is None else int(p) for p in pb], dtype=np.int64)
        self.canon, self.weight = _canon()
        self.holes = np.array([cards for _, _, cards in HANDS], dtype=np.int64)

    def common(self) -> Any:  # the kernels' common arguments, spread into their calls
        return (
            self.keys,
            self.masks,
            self.r7,
            self.f7,
            self.r6,
            self.f6,
            self.r5,
            self.f5,
            self.flush_rank,
            self.category,
        )


def first_posted() -> np.ndarray:
    """games.strategy.jhe_first for every starting hand's representative and shown card (169 x 52)."""
    out = np.zeros((N_HOLES, 52), dtype=np.bool_)
    for hid, (_, _, (a, b)) in enumerate(HANDS):
        hole = (DECK[a], DECK[b])
        for c in range(52):
            if c not in (a, b):
                out[hid, c] = jhe_first(hole, DECK[c]) == 3
    return out


def _threads(
    work: Callable[[int, int], None], total: int, progress: Progress | None, done0: int, grand: int, workers: int
) -> None:
    chunk = 20000
    starts = iter(range(0, total, chunk))
    lock = threading.Lock()
    done = [done0]

    def run() -> None:
        while True:
            with lock:
                s = next(starts, None)
            if s is None:
                return
            work(s, min(total, s + chunk))
            if progress is not None:
                with lock:
                    done[0] += min(total, s + chunk) - s
                    progress(done[0], grand)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for f in [pool.submit(run) for _ in range(workers)]:
            f.result()


def compute(
    letter: str | None, strategy: str, progress: Progress | None = None, workers: int | None = None
) -> dict[str, object]:
    """The exact sheet of JHE's base game with this X-tra Bonus paytable, under "optimal" or "posted"."""
    if strategy not in ("optimal", "posted"):
        raise ValueError(f"strategy must be optimal or posted, got {strategy!r}")
    letter = letter or "A"
    began = time.monotonic()
    workers = workers or min(2, os.cpu_count() or 1)
    arr = _Arrays(letter)
    posted = strategy == "posted"
    boards = _all_boards()
    nb = len(boards)
    sums = [np.zeros((N_F, N_HOLES, 3), dtype=np.int64) for _ in range(workers)]
    slot = threading.local()
    free = list(range(workers))
    lock = threading.Lock()

    def mine() -> np.ndarray:
        if not hasattr(slot, "i"):
            with lock:
                slot.i = free.pop()
        out: np.ndarray = sums[slot.i]
        return out

    def work1(s: int, e: int) -> None:
        _pass1(
            boards,
            s,
            e,
            arr.canon,
            arr.keys,
            arr.masks,
            arr.r7,
            arr.f7,
            arr.r6,
            arr.f6,
            arr.r5,
            arr.f5,
            arr.flush_rank,
            arr.category,
            arr.xpay,
            posted,
            mine(),
        )

    _threads(work1, nb, progress, 0, 2 * nb, workers)
    s3 = sums[0]
    for other in sums[1:]:
        s3 += other
    sums.clear()
    dec2 = np.zeros((N_F, N_HOLES), dtype=np.bool_)
    bet3 = np.zeros((N_HOLES, 52), dtype=np.int64)
    cont = np.zeros((N_HOLES, 52), dtype=np.int64)
    _aggregate(
        s3, arr.holes, posted, arr.keys, arr.masks, arr.r5, arr.f5, arr.flush_rank, arr.category, dec2, bet3, cont
    )
    del s3
    in_hole = np.zeros((N_HOLES, 52), dtype=np.bool_)
    in_hole[np.arange(N_HOLES), arr.holes[:, 0]] = True
    in_hole[np.arange(N_HOLES), arr.holes[:, 1]] = True
    dec1 = first_posted() if posted else (bet3 > cont) & ~in_hole

    parts2 = [
        (
            np.zeros((4, 5, 10), dtype=np.int64),
            np.zeros(4, dtype=np.int64),
            np.zeros(10, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
        )
        for _ in range(workers)
    ]
    slot2 = threading.local()
    free2 = list(range(workers))

    def work2(s: int, e: int) -> None:
        if not hasattr(slot2, "i"):
            with lock:
                slot2.i = free2.pop()
        counts, decisions, pbcat, cov = parts2[slot2.i]
        _pass2(
            boards,
            s,
            e,
            arr.canon,
            arr.weight,
            arr.keys,
            arr.masks,
            arr.r7,
            arr.f7,
            arr.r6,
            arr.f6,
            arr.r5,
            arr.f5,
            arr.flush_rank,
            arr.category,
            arr.xpay,
            arr.pbpay,
            posted,
            dec1,
            dec2,
            counts,
            decisions,
            pbcat,
            cov,
        )

    _threads(work2, nb, progress, nb, 2 * nb, workers)
    counts, decisions, pbcat = (np.sum([p[i] for p in parts2], axis=0) for i in range(3))
    cov = int(sum(int(p[3][0]) for p in parts2))
    seconds = time.monotonic() - began
    return _sheet(arr, letter, strategy, bet3, cont, dec1, counts, decisions, pbcat, cov, seconds, workers)


def _cat_pays(per_rank: np.ndarray) -> list[int]:
    """A paytable that pays by category alone, per category (checked)."""
    out = []
    for c in range(10):
        vals = set(per_rank[j.RANK_CATEGORY == c].tolist())
        assert len(vals) == 1, (c, vals)
        out.append(int(vals.pop()))
    return out


def state_space() -> int:
    return comb(52, 2) * 50 * comb(49, 2) * comb(47, 2) * DEALER


def _sheet(
    arr: _Arrays,
    letter: str,
    strategy: str,
    bet3: np.ndarray,
    cont: np.ndarray,
    dec1: np.ndarray,
    counts: np.ndarray,
    decisions: np.ndarray,
    pbcat: np.ndarray,
    cov: int,
    seconds: float,
    workers: int,
) -> dict[str, object]:
    space = state_space()
    per_hole = 50 * comb(49, 2) * comb(47, 2) * DEALER
    xcat = _cat_pays(arr.xpay)
    pbc = _cat_pays(arr.pbpay)
    net: dict[Fraction, int] = {}
    parts = {"ante": 0, "xtra_bonus": 0, "play": 0}
    outcome = {"win": 0, "push": 0, "lose": 0, "fold": 0, "dealer_not_qualifying": 0}
    c = counts.tolist()

    def add(value: int, n: int) -> None:
        if n:
            net[Fraction(value)] = net.get(Fraction(value), 0) + n

    for cat in range(10):
        n = c[0][0][cat]
        add(-2, n)
        outcome["fold"] += n
        parts["ante"] -= n
        parts["xtra_bonus"] -= n
        for k in (1, 2, 3):
            wq, wnq, t, lq, lnq = c[k][0][cat], c[k][1][cat], c[k][2][cat], c[k][3][cat], c[k][4][cat]
            pay = xcat[cat]
            add(1 + pay + k, wq)
            add(pay + k, wnq)
            add(0, t)
            add(-(2 + k), lq)
            add(-(1 + k), lnq)
            outcome["win"] += wq + wnq
            outcome["push"] += t
            outcome["lose"] += lq + lnq
            outcome["dealer_not_qualifying"] += wnq + lnq
            parts["ante"] += wq - lq
            parts["xtra_bonus"] += pay * (wq + wnq) - lq - lnq
            parts["play"] += k * (wq + wnq - lq - lnq)
    assert sum(net.values()) == space, (sum(net.values()), space)
    d = j.distribution_figures(net)
    mean, variance = d["mean"], d["variance"]
    assert isinstance(mean, Fraction) and isinstance(variance, Fraction)
    # the starting hands: per-hand EV from the first pass, checked against the second pass's mean
    hands = []
    total_ev = 0
    for hid, (name, w, (a, b)) in enumerate(HANDS):
        v = int(np.where(dec1[hid], bet3[hid], cont[hid]).sum())
        total_ev += w * v
        shown = [c0 for c0 in range(52) if c0 not in (a, b)]
        n3 = int(sum(bool(dec1[hid, c0]) for c0 in shown))
        hands.append(
            {
                "hand": name,
                "weight": w,
                "cards": DECK[a].text + DECK[b].text,
                "ev": j.frac(Fraction(v, per_hole)),
                "ev_decimal": j.dec9(Fraction(v, per_hole)),
                "decision": "bet_3x" if n3 == 50 else "check" if n3 == 0 else "bet_3x_on_some_cards",
                "bet_3x_shown_cards": "".join(DECK[c0].text for c0 in shown if dec1[hid, c0]),
            }
        )
    assert Fraction(total_ev, comb(52, 2) * per_hole) == mean, "the two passes disagree"
    decided = int(decisions.sum())
    wagered = Fraction(sum(k * int(decisions[k]) for k in (1, 2, 3)), decided) + 2
    edge = -mean
    pb_total = int(pbcat.sum())
    pb_mean = Fraction(sum(pbc[x] * int(pbcat[x]) for x in range(10)), pb_total)
    pb_var = Fraction(sum(pbc[x] ** 2 * int(pbcat[x]) for x in range(10)), pb_total) - pb_mean**2
    covariance = Fraction(cov, pb_total * DEALER) - mean * pb_mean
    combined_var = variance + pb_var + 2 * covariance
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
            k: {"return_share": j.frac(Fraction(v, space)), "return_share_decimal": j.dec9(Fraction(v, space))}
            for k, v in parts.items()
        },
        "decisions": [
            {
                "decision": PATHS[k],
                "street": ("five_cards_shown", "five_cards_shown", "three_cards_shown", "one_card_shown")[k],
                "probability": j.frac(Fraction(int(decisions[k]), decided)),
                "probability_decimal": j.dec9(Fraction(int(decisions[k]), decided)),
            }
            for k in (3, 2, 1, 0)
        ],
        "outcomes": [
            {"outcome": k, "probability": j.frac(Fraction(v, space)), "probability_decimal": j.dec9(Fraction(v, space))}
            for k, v in outcome.items()
        ],
        "starting_hands": hands,
        "sample_states": [_sample(arr, name, c0, bet3, cont, dec1) for name, c0 in SAMPLES],
        "combinations": [
            {
                "side_wager": "player_bonus",
                "paytable": arr.pbtable.letter,
                "side_wager_return": j.frac(1 + pb_mean),
                "side_wager_std_dev": j.sqrt_dec9(pb_var),
                "covariance": j.frac(covariance),
                "covariance_decimal": j.dec9(covariance),
                "std_dev_per_ante": j.sqrt_dec9(combined_var),
                "note": "a Player Bonus of one Ante beside the base game; the Progressive pays from meters "
                "and is left out (docs/analysis.md)",
            }
        ],
        "published": [],
        "categories": list(CATEGORY_NAMES),
        "computed": {
            "seconds": round(seconds),
            "cores": workers,
            "code_version": j.code_version([Path(__file__), Path(j.__file__)]),
        },
    }


#: the states (starting hand, first card shown) stored for make test to recount one by one
SAMPLES = (
    ("AKs", "2c"),
    ("AKo", "Kh"),
    ("72o", "7s"),
    ("QJs", "Tc"),
    ("55", "Ah"),
    ("K8o", "9d"),
    ("T9s", "Js"),
    ("22", "2h"),
)


def _sample(
    arr: _Arrays, name: str, shown: str, bet3: np.ndarray, cont: np.ndarray, dec1: np.ndarray
) -> dict[str, object]:
    hid = [h[0] for h in HANDS].index(name)
    c0 = next(c.index for c in DECK if c.text == shown)
    return {
        "hand": name,
        "cards": DECK[HANDS[hid][2][0]].text + DECK[HANDS[hid][2][1]].text,
        "shown": shown,
        "bet_3x_sum": str(int(bet3[hid, c0])),
        "continue_sum": str(int(cont[hid, c0])),
        "decision": "bet_3x" if dec1[hid, c0] else "check",
        "outcomes": comb(49, 2) * comb(47, 2) * DEALER,
    }


def recount_state(cards: str, shown: str, strategy: str) -> tuple[int, int]:
    """(3x's sum, continuing's sum) over the state's outcomes, counted one dealer hand at a time."""
    arr = _Arrays("A")
    a, b = (next(c.index for c in DECK if c.text == cards[i : i + 2]) for i in (0, 2))
    c0 = next(c.index for c in DECK if c.text == shown)
    dec2 = np.zeros(N_F, dtype=np.bool_)
    posted = strategy == "posted"
    if posted:
        for z in range(52):
            for y in range(z):
                for x in range(y):
                    if c0 in (x, y, z) and not {a, b} & {x, y, z}:
                        dec2[j.combo_index3(x, y, z)] = _flop_posted(
                            a, b, x, y, z, arr.keys, arr.masks, arr.r5, arr.f5, arr.flush_rank, arr.category
                        )
    bet3, cont = _state_brute(
        a,
        b,
        c0,
        posted,
        dec2,
        arr.keys,
        arr.masks,
        arr.r7,
        arr.f7,
        arr.r6,
        arr.f6,
        arr.r5,
        arr.f5,
        arr.flush_rank,
        arr.category,
        arr.xpay,
    )
    return int(bet3), int(cont)


def card(text: str) -> Card:
    return next(c for c in DECK if c.text == text)

"""The compiled passes of UTH's exact base-game sheet (games.par.uth drives them).

For one five-card board every two-card hand of the cards left is ranked with the board and sorted;
a walk over the sorted hands counts, for each hand, the hands below it and equal to it, and per card
the hands holding that card, so the dealer hands sharing a card with the player's are taken out by
inclusion-exclusion.  That gives, for each player hand tallied, the dealer hands it beats, ties and
loses to, split by the dealer qualifying (UTH ch.11 §H(1): a pair or better), in integers.  Pass 1
adds each board's river values into its ten flop states (player hand x flop: the board's 3-card
subsets); pass 2 tallies the outcomes under the decisions pass 1 led to.  Units: half-Antes (the
Blind pays 3 to 2 on a flush, UTH ch.12 §B) times dealer hands.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from games.par.kernel import PAIR_MIN, RANK_FIELD, SUIT_SHIFT, colex3, rank_of

# outcome columns of a (player hand, board): the dealer hands the player beats (dealer qualifying /
# not), ties, loses to (dealer qualifying / not)
WQ, WNQ, TIE, LQ, LNQ = range(5)
# actions of a round, in the histogram: the Play wager's size, or the fold
BET4, BET3, BET2, BET1, FOLD = range(5)
# pass 1 slots of a flop state
S_D, S_BASE_A, S_BASE_B, S_ROPT_A, S_ROPT_B, S_RPOST_A, S_RPOST_B = range(7)
SLOTS = 8
TEN_INDEX = 8  # rank index of a ten (card index // 4: 0 = deuce)


@njit(cache=True, nogil=True)
def _radix_order(rank: np.ndarray) -> np.ndarray:
    """The indices of ``rank`` (rank classes < 2**14) in ascending order: two counting passes of 7 bits
    (faster than a comparison sort on a thousand keys)."""
    n = len(rank)
    tmp = np.empty(n, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    count = np.zeros(129, dtype=np.int64)
    for i in range(n):
        count[(rank[i] & 127) + 1] += 1
    for b in range(128):
        count[b + 1] += count[b]
    for i in range(n):
        d = rank[i] & 127
        tmp[count[d]] = i
        count[d] += 1
    count[:] = 0
    for i in range(n):
        count[(rank[i] >> 7) + 1] += 1
    for b in range(128):
        count[b + 1] += count[b]
    for i in range(n):
        j = tmp[i]
        d = rank[j] >> 7
        out[count[d]] = j
        count[d] += 1
    return out


@njit(cache=True, nogil=True)
def board_results(board: Any, deck: Any, reps: Any, t7: Any, t6: Any, t5: Any, category: Any, hidx: Any, hi: Any,
                  hj: Any, valid: Any, rank_p: Any, counts: Any, post: Any) -> None:
    """Fill, for each tallied hand ``reps[r]`` not sharing a card with ``board``: ``valid[r]``, its rank
    class ``rank_p[r]``, ``counts[r]`` (WQ .. LNQ over the dealer hands of the cards left) and ``post[r]``
    (the posted river decision, games.strategy.uth_river: bet 1x)."""
    n_rest = len(deck) - 5
    rest = np.empty(n_rest, dtype=np.int64)
    pos = np.full(52, -1, dtype=np.int64)
    in_board = np.zeros(52, dtype=np.bool_)
    for i in range(5):
        in_board[board[i]] = True
    k = 0
    for c in deck:
        if not in_board[c]:
            rest[k] = c
            pos[c] = k
            k += 1
    keys7, rank7, fs7, frank = t7
    bkey = 0
    bm = np.zeros(4, dtype=np.int64)
    for i in range(5):
        bkey += keys7[board[i]]
        bm[board[i] % 4] |= 1 << (board[i] // 4)
    nh = n_rest * (n_rest - 1) // 2
    hand_rank = np.empty(nh, dtype=np.int64)
    pair_rank = np.full(169, -1, dtype=np.int64)
    for h in range(nh):
        a = rest[hi[h]]
        b = rest[hj[h]]
        key = bkey + keys7[a] + keys7[b]
        fs = fs7[key >> SUIT_SHIFT]
        if fs >= 0:
            m = bm[fs]
            if a % 4 == fs:
                m |= 1 << (a // 4)
            if b % 4 == fs:
                m |= 1 << (b // 4)
            hand_rank[h] = frank[m]
        else:
            # without a flush the rank depends on the two cards' ranks only: one table read per rank pair
            # and board (the 7-card table is 15 MB: a read of it is a cache miss)
            rp = (a // 4) * 13 + b // 4
            if pair_rank[rp] < 0:
                pair_rank[rp] = rank7[key & RANK_FIELD]
            hand_rank[h] = pair_rank[rp]
    order = _radix_order(hand_rank)
    less = np.empty(nh, dtype=np.int64)
    tie = np.empty(nh, dtype=np.int64)
    less_card = np.zeros(n_rest, dtype=np.int64)
    group_card = np.zeros(n_rest, dtype=np.int64)
    nq_card = np.zeros(n_rest, dtype=np.int64)
    less_total = 0
    nq_total = -1
    i = 0
    while i < nh:
        r = hand_rank[order[i]]
        j = i
        while j < nh and hand_rank[order[j]] == r:
            j += 1
        if nq_total < 0 and r >= PAIR_MIN:
            nq_card[:] = less_card
            nq_total = less_total
        for t in range(i, j):
            h = order[t]
            group_card[hi[h]] += 1
            group_card[hj[h]] += 1
        g = j - i
        for t in range(i, j):
            h = order[t]
            less[h] = less_total - less_card[hi[h]] - less_card[hj[h]]
            tie[h] = g - group_card[hi[h]] - group_card[hj[h]] + 1
        for t in range(i, j):
            h = order[t]
            less_card[hi[h]] += 1
            less_card[hj[h]] += 1
            group_card[hi[h]] = 0
            group_card[hj[h]] = 0
        less_total += g
        i = j
    if nq_total < 0:
        nq_card[:] = less_card
        nq_total = less_total
    # the posted river rule's pieces: the board's own category, each card's rank with the board
    cat_board = category[rank_of(board, 5, t5[0], t5[1], t5[2], t5[3])]
    six = np.empty(6, dtype=np.int64)
    for i in range(5):
        six[i] = board[i]
    r6 = np.empty(n_rest, dtype=np.int64)
    for p in range(n_rest):
        six[5] = rest[p]
        r6[p] = rank_of(six, 6, t6[0], t6[1], t6[2], t6[3])
    n_dealer = (n_rest - 2) * (n_rest - 3) // 2
    for q in range(len(reps)):
        pa = pos[reps[q, 0]]
        pb = pos[reps[q, 1]]
        if pa < 0 or pb < 0:
            valid[q] = False
            continue
        valid[q] = True
        h = hidx[min(pa, pb), max(pa, pb)]
        rp = hand_rank[h]
        rank_p[q] = rp
        lo = less[h]
        eq = tie[h]
        gt = n_dealer - lo - eq
        own_nq = 1 if rp < PAIR_MIN else 0
        nq = nq_total - nq_card[pa] - nq_card[pb] + own_nq
        if rp >= PAIR_MIN:
            counts[q, WQ] = lo - nq
            counts[q, WNQ] = nq
            counts[q, LQ] = gt
            counts[q, LNQ] = 0
        else:
            counts[q, WQ] = 0
            counts[q, WNQ] = lo
            counts[q, LNQ] = nq - lo - eq
            counts[q, LQ] = gt - (nq - lo - eq)
        counts[q, TIE] = eq
        # games.strategy.uth_river: a hidden pair or better, or fewer than 21 dealer outs
        cat_p = category[rp]
        hidden = cat_p >= 1 and cat_p > cat_board
        outs = 0
        for p in range(n_rest):
            if p != pa and p != pb and r6[p] > rp:
                outs += 1
        post[q] = hidden or outs < 21


@njit(cache=True, nogil=True)
def _base(counts: Any, bh: Any, cat: int) -> tuple[int, int]:
    """The Ante and Blind net of the hands counted (half-Antes x dealer hands), and W - L (the Play's
    multiplier): UTH ch.11 §H; a Blind that wins pays by its paytable (``bh``: half-Antes per category)."""
    w = counts[WQ] + counts[WNQ]
    lost = counts[LQ] + counts[LNQ]
    base = 2 * (counts[WQ] - counts[LQ]) + bh[cat] * w - 2 * lost
    return base, w - lost


@njit(cache=True, nogil=True)
def pass1(boards: Any, deck: Any, reps: Any, t7: Any, t6: Any, t5: Any, category: Any, hidx: Any, hi: Any, hj: Any,
          bh: Any, acc: Any) -> None:
    """Add each board's river values into ``acc[flop, rep, slot]`` (int32: every sum is below 2**31)."""
    nr = len(reps)
    valid = np.zeros(nr, dtype=np.bool_)
    rank_p = np.zeros(nr, dtype=np.int64)
    counts = np.zeros((nr, 5), dtype=np.int64)
    post = np.zeros(nr, dtype=np.bool_)
    n_rest = len(deck) - 5
    fold = -4 * ((n_rest - 2) * (n_rest - 3) // 2)
    flops = np.empty(10, dtype=np.int64)
    for bi in range(len(boards)):
        board = boards[bi]
        board_results(board, deck, reps, t7, t6, t5, category, hidx, hi, hj, valid, rank_p, counts, post)
        k = 0
        for x in range(5):
            for y in range(x + 1, 5):
                for z in range(y + 1, 5):
                    flops[k] = colex3(board[x], board[y], board[z])
                    k += 1
        for q in range(nr):
            if not valid[q]:
                continue
            cat = category[rank_p[q]]
            base_a, d = _base(counts[q], bh[0], cat)
            base_b, _ = _base(counts[q], bh[1], cat)
            play_a = base_a + 2 * d
            play_b = base_b + 2 * d
            ropt_a = play_a if play_a > fold else fold  # a tie: the smaller wager (docs/analysis.md)
            ropt_b = play_b if play_b > fold else fold
            rpost_a = play_a if post[q] else fold
            rpost_b = play_b if post[q] else fold
            for f in flops:
                acc[f, q, S_D] += d
                acc[f, q, S_BASE_A] += base_a
                acc[f, q, S_BASE_B] += base_b
                acc[f, q, S_ROPT_A] += ropt_a
                acc[f, q, S_ROPT_B] += ropt_b
                acc[f, q, S_RPOST_A] += rpost_a
                acc[f, q, S_RPOST_B] += rpost_b


@njit(cache=True, nogil=True)
def pass2(boards: Any, deck: Any, reps: Any, t7: Any, t6: Any, t5: Any, category: Any, hidx: Any, hi: Any, hj: Any,
          bh: Any, preflop: Any, flop2x: Any, hist: Any) -> None:
    """Tally ``hist[policy, rep, action, category, outcome]`` (dealer hands) under the decisions: policies
    0 optimal A, 1 optimal B, 2 posted; ``preflop[policy, rep]`` an action (BET4, BET3 or FOLD for a
    check), ``flop2x[flop, rep, policy]`` the flop decision after a check."""
    nr = len(reps)
    valid = np.zeros(nr, dtype=np.bool_)
    rank_p = np.zeros(nr, dtype=np.int64)
    counts = np.zeros((nr, 5), dtype=np.int64)
    post = np.zeros(nr, dtype=np.bool_)
    n_rest = len(deck) - 5
    fold = -4 * ((n_rest - 2) * (n_rest - 3) // 2)
    flops = np.empty(10, dtype=np.int64)
    for bi in range(len(boards)):
        board = boards[bi]
        board_results(board, deck, reps, t7, t6, t5, category, hidx, hi, hj, valid, rank_p, counts, post)
        k = 0
        for x in range(5):
            for y in range(x + 1, 5):
                for z in range(y + 1, 5):
                    flops[k] = colex3(board[x], board[y], board[z])
                    k += 1
        for q in range(nr):
            if not valid[q]:
                continue
            cat = category[rank_p[q]]
            base_a, d = _base(counts[q], bh[0], cat)
            base_b, _ = _base(counts[q], bh[1], cat)
            river = (base_a + 2 * d > fold, base_b + 2 * d > fold, post[q])
            for p in range(3):
                pre = preflop[p, q]
                if pre != FOLD:
                    for o in range(5):
                        hist[p, q, pre, cat, o] += 10 * counts[q, o]
                    continue
                n2 = 0
                for f in flops:
                    n2 += flop2x[f, q, p]
                last = BET1 if river[p] else FOLD
                for o in range(5):
                    hist[p, q, BET2, cat, o] += n2 * counts[q, o]
                    hist[p, q, last, cat, o] += (10 - n2) * counts[q, o]


@njit(cache=True, nogil=True)
def posted_flop(a: int, b: int, f0: int, f1: int, f2: int, t5: Any, category: Any) -> bool:
    """games.strategy.uth_flop, compiled: bet 2x (True) or check."""
    five = np.empty(5, dtype=np.int64)
    five[0] = a
    five[1] = b
    five[2] = f0
    five[3] = f1
    five[4] = f2
    if category[rank_of(five, 5, t5[0], t5[1], t5[2], t5[3])] >= 2:  # two pair or better
        return True
    ra = a // 4
    rb = b // 4
    if ra == rb:
        if ra > 0:  # a pair above deuces
            return True
    else:
        for h in (ra, rb):
            if h == f0 // 4 or h == f1 // 4 or h == f2 // 4:
                return True
    for h in (a, b):
        if h // 4 >= TEN_INDEX:
            n = 0
            for c in five:
                if c % 4 == h % 4:
                    n += 1
            if n >= 4:
                return True
    return False


@njit(cache=True)
def posted_flops(reps: Any, t5: Any, category: Any, out: Any) -> None:
    """``out[flop, rep]``: the posted flop decision (bet 2x) of every flop not sharing a card with the hand."""
    for c in range(2, 52):
        for b in range(1, c):
            for a in range(b):
                f = colex3(a, b, c)
                for q in range(len(reps)):
                    x = reps[q, 0]
                    y = reps[q, 1]
                    if x == a or x == b or x == c or y == a or y == b or y == c:
                        continue
                    out[f, q] = posted_flop(x, y, a, b, c, t5, category)

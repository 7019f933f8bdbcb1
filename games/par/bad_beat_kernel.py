"""The compiled walk of games.par.bad_beat: per board, the pairs of hands by the losing hand's category.

Kept apart from games.par.bad_beat so that reading the stored count imports no numba (games.analysis).
The ranking loop is uth_kernel.board_results' (its stored sheets name that file's code, so it is not
split out of it here).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from games import batch
from games.par.kernel import RANK_FIELD, SUIT_SHIFT
from games.par.uth_kernel import _radix_order

TIES = 10  # the tally's last slot: the ordered pairs of non-overlapping hands of equal rank
assert batch.RANK_CATEGORY.max() == TIES - 1  # ten categories, high card to royal flush


@njit(cache=True, nogil=True)
def _rank(board: Any, t7: Any, hi: Any, hj: Any, rest: Any, hand_rank: Any) -> None:
    """``rest``: the 47 cards not on ``board``; ``hand_rank[h]``: the rank class of two-card hand h (``rest[hi[h]]``,
    ``rest[hj[h]]``) with the board.  (uth_kernel.board_results ranks the same way; its stored sheets name that
    file's code, so it keeps its own loop until their next recount.)"""
    keys7, rank7, fs7, frank = t7
    in_board = np.zeros(52, dtype=np.bool_)
    bm = np.zeros(4, dtype=np.int64)
    bkey = 0
    for i in range(5):
        in_board[board[i]] = True
        bkey += keys7[board[i]]
        bm[board[i] % 4] |= 1 << (board[i] // 4)
    k = 0
    for c in range(52):
        if not in_board[c]:
            rest[k] = c
            k += 1
    for h in range(len(hi)):
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
            hand_rank[h] = rank7[key & RANK_FIELD]


@njit(cache=True, nogil=True)
def _board(board: Any, t7: Any, category: Any, hi: Any, hj: Any, rest: Any, hand_rank: Any, above_card: Any,
           group_card: Any, acc: Any) -> None:
    """Add one board's pairs into ``acc`` (losers' doc); the other arrays are scratch space of the caller."""
    nh = len(hi)
    _rank(board, t7, hi, hj, rest, hand_rank)
    order = _radix_order(hand_rank)
    above_card[:] = 0
    above = 0
    j = nh
    while j > 0:  # from the top: each group of equal rank, then the hands above it counted
        r = hand_rank[order[j - 1]]
        i = j
        while i > 0 and hand_rank[order[i - 1]] == r:
            i -= 1
        for t in range(i, j):
            h = order[t]
            group_card[hi[h]] += 1
            group_card[hj[h]] += 1
        cat = category[r]
        for t in range(i, j):
            h = order[t]
            acc[cat] += above - above_card[hi[h]] - above_card[hj[h]]
            # the equal hands sharing none of its cards; itself counted in both of its cards' groups
            acc[TIES] += (j - i) - group_card[hi[h]] - group_card[hj[h]] + 1
        for t in range(i, j):
            h = order[t]
            above_card[hi[h]] += 1
            above_card[hj[h]] += 1
            group_card[hi[h]] = 0
            group_card[hj[h]] = 0
        above += j - i
        j = i


@njit(cache=True, nogil=True)
def losers(boards: Any, t7: Any, category: Any, hi: Any, hj: Any, acc: Any) -> None:
    """Add, for each board of ``boards`` (n, 5 card indices of 0..51), ``acc[c]`` += the unordered pairs of
    two-card hands of the cards left, sharing no card, whose strictly lower hand is of category c, and
    ``acc[TIES]`` += the ordered pairs of equal rank (each hand counts its equals)."""
    rest = np.empty(47, dtype=np.int64)
    hand_rank = np.empty(len(hi), dtype=np.int64)
    above_card = np.zeros(47, dtype=np.int64)
    group_card = np.zeros(47, dtype=np.int64)
    for bi in range(len(boards)):
        _board(boards[bi], t7, category, hi, hj, rest, hand_rank, above_card, group_card, acc)


@njit(cache=True, nogil=True)
def per_board(boards: Any, t7: Any, category: Any, hi: Any, hj: Any, first: int, out: Any) -> None:
    """``out[b, c - first]``: board b's pairs (as losers counts them) whose lower hand is of category c, for
    the categories from ``first`` on: the weights that draw a deal of a rare losing hand (games.par.combine)."""
    rest = np.empty(47, dtype=np.int64)
    hand_rank = np.empty(len(hi), dtype=np.int64)
    above_card = np.zeros(47, dtype=np.int64)
    group_card = np.zeros(47, dtype=np.int64)
    acc = np.zeros(TIES + 1, dtype=np.int64)
    for bi in range(len(boards)):
        acc[:] = 0
        _board(boards[bi], t7, category, hi, hj, rest, hand_rank, above_card, group_card, acc)
        for c in range(first, TIES):
            out[bi, c - first] = acc[c]


@njit(cache=True, nogil=True)
def categories(boards: Any, t7: Any, category: Any, hi: Any, hj: Any, joint: Any) -> None:
    """``joint[c1, c2]`` += the ordered pairs of hands sharing no card whose categories are c1 and c2: the
    form published two-hand tables take (a check of the ranking and of the overlap arithmetic against
    them, make soak), from every hand's category and the hands of each category holding each card."""
    rest = np.empty(47, dtype=np.int64)
    nh = len(hi)
    hand_rank = np.empty(nh, dtype=np.int64)
    for bi in range(len(boards)):
        _rank(boards[bi], t7, hi, hj, rest, hand_rank)
        n_cat = np.zeros(TIES, dtype=np.int64)
        card_cat = np.zeros((47, TIES), dtype=np.int64)
        for h in range(nh):
            c1 = category[hand_rank[h]]
            n_cat[c1] += 1
            card_cat[hi[h], c1] += 1
            card_cat[hj[h], c1] += 1
        for h in range(nh):
            c1 = category[hand_rank[h]]
            for c2 in range(TIES):  # the hands of c2 less those holding either card; itself held both
                joint[c1, c2] += n_cat[c2] - card_cat[hi[h], c2] - card_cat[hj[h], c2] + (1 if c2 == c1 else 0)

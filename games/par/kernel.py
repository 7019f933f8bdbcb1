"""Compiled (numba) helpers the exact par sheets share: hand ranks from games.batch's tables, card subsets.

``games.batch`` builds its rank tables from the rules of ``games.poker`` as plain numpy arrays; this
module evaluates one hand at a time inside a compiled loop with the same tables (``rank_of``), so an
enumeration of billions of hands stays in machine code.  Everything here is integer arithmetic: a rank
class (0 .. 7,461, higher is better, equal ties) orders hands exactly as ``games.poker.value`` does.
The tables are passed as a ``Tables`` tuple so that one compiled function serves 5, 6 and 7 cards.
Why numba and not numpy: docs/analysis.md (the exact base games).
"""

from __future__ import annotations

import hashlib
from importlib import resources
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

from games import batch

SUIT_SHIFT = 23
RANK_FIELD = (1 << SUIT_SHIFT) - 1
#: the first rank class of a pair: below it, high-card hands (UTH ch.11 §H(1): the dealer does not qualify)
PAIR_MIN = int(np.searchsorted(batch.RANK_CATEGORY, 1))


class Tables(NamedTuple):
    """The rank tables of hands of ``k`` cards (games.batch), as the compiled functions take them."""

    keys: np.ndarray  # card index -> key (int64)
    rank: np.ndarray  # key rank field -> rank class (uint16)
    flush_suit: np.ndarray  # key suit field -> suit with five or more cards, -1 (int8)
    flush_rank: np.ndarray  # 13-bit mask of the flush suit's ranks -> rank class (uint16)


def tables(k: int) -> Tables:
    t = batch._tables(k)
    return Tables(batch.CARD_KEYS.astype(np.int64), t.rank, t.flush_suit, batch.FLUSH_RANK)


#: rank class -> category (games.poker numbering)
CATEGORY = batch.RANK_CATEGORY


@njit(cache=True, nogil=True)
def rank_of(cards: np.ndarray, n: int, keys: np.ndarray, rank: np.ndarray, flush_suit: np.ndarray,
            flush_rank: np.ndarray) -> int:
    """The rank class of the best five of ``cards[:n]`` (n = the k of the tables given)."""
    key = 0
    for i in range(n):
        key += keys[cards[i]]
    fs = flush_suit[key >> SUIT_SHIFT]
    if fs >= 0:
        mask = 0
        for i in range(n):
            if cards[i] % 4 == fs:
                mask |= 1 << (cards[i] // 4)
        return int(flush_rank[mask])
    return int(rank[key & RANK_FIELD])


@njit(cache=True, nogil=True)
def colex3(a: int, b: int, c: int) -> int:
    """The colexicographic index (0 .. C(52,3) - 1) of the three cards a < b < c."""
    return a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6


N_FLOPS = comb(52, 3)


@njit(cache=True)
def five_card_subsets(deck: np.ndarray) -> np.ndarray:
    """Every 5-card subset of ``deck`` (ascending card indices), one per row, lexicographic order."""
    n = len(deck)
    total = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) // 120
    out = np.empty((total, 5), dtype=np.int8)
    i = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    for e in range(d + 1, n):
                        out[i, 0] = deck[a]
                        out[i, 1] = deck[b]
                        out[i, 2] = deck[c]
                        out[i, 3] = deck[d]
                        out[i, 4] = deck[e]
                        i += 1
    return out


def code_version(*modules: str) -> str:
    """A hash of this module's source and of ``modules`` (file names in games/par): a stored sheet names the
    code it was computed by."""
    h = hashlib.sha256()
    for name in ("kernel.py", *modules):
        h.update(resources.files("games.par").joinpath(name).read_bytes())
    return h.hexdigest()[:16]

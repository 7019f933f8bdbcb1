"""Batch poker evaluation with NumPy, beside the clear single-hand ``games.poker``.

``games.poker`` evaluates one hand at a time and is the reference; this module
categorises whole arrays of 5- to 7-card hands at once, and counts the
categories over every hand of k cards of the deck (par sheets, ``games.analysis``).
Categories are those of ``games.poker`` (``HIGH_CARD`` 0 .. ``ROYAL_FLUSH`` 9).

How: each card is one 64-bit *key*; the key of a hand is the sum of its cards'
keys, and holds in 3-bit digits

* the count of each rank (digit ``r - 1`` for rank ``r`` = 2..14; digit 0 is
  left free for the ace playing low),
* the count of each suit (digits 14..17),

so that pairs, trips, quads are bit tests on the digits counted with
``np.bitwise_count``, a straight is five consecutive non-zero digits, and a
flush a suit digit of 5 or more.  Only the few hands with a flush need their
suited ranks (a second 64-bit *mask*: 14 bits per suit) to tell a straight
flush; a straight flush is looked up in a table of the 2**14 suit masks.

Enumeration (``count_categories``) fixes the two highest cards of the hand and
adds their keys to the precomputed keys of every (k-2)-card combination of the
lower cards: the combinations are stored in colexicographic order, so those
below card ``b`` are exactly the first C(b, k-2) of them.  The 1,326 chunks are
shared between threads (NumPy releases the GIL).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from math import comb

import numpy as np

from games.cards import ACE, Card
from games.poker import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
)

SUITS = 4
_SUIT_SHIFT = 42  # suit digits start after the 14 rank digits

# card index (0..51, rank-major as games.cards: (rank - 2) * 4 + suit) -> key / mask
_RANK_OF = np.arange(52) // 4 + 2
_SUIT_OF = np.arange(52) % 4
CARD_KEYS = (np.int64(1) << (3 * (_RANK_OF - 1)).astype(np.int64)) + (
    np.int64(1) << (_SUIT_SHIFT + 3 * _SUIT_OF).astype(np.int64)
)
CARD_MASKS = np.int64(1) << (14 * _SUIT_OF + (_RANK_OF - 1)).astype(np.int64)

_D0 = np.int64(sum(1 << (3 * i) for i in range(1, 14)))  # bit 0 of every rank digit
_S0 = np.int64(0b001001001001)  # bit 0 of every suit digit (after shifting)
_ACE_BIT = 3 * (ACE - 1)  # bit 39: the ace's digit


def _straight_table() -> np.ndarray:
    """For every 14-bit suit mask (bit r-1 = rank r, bit 0 unused): 0 none, 1 straight, 2 ace-high straight."""
    m = np.arange(1 << 14, dtype=np.int64)
    m = m | ((m >> 13) & 1)  # the ace also plays low
    run = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4)
    out = np.where(run != 0, 1, 0).astype(np.int8)
    out[(run & (1 << 9)) != 0] = 2  # 10-J-Q-K-A
    return out


STRAIGHT_TABLE = _straight_table()


def hand_indices(hands: Sequence[Sequence[Card]]) -> np.ndarray:
    """Hands of ``games.cards.Card`` as an (n, k) array of card indices."""
    return np.array([[c.index for c in h] for h in hands], dtype=np.int64)


# -- the features of hand keys ------------------------------------------------------------------


def _features(keys: np.ndarray) -> tuple[np.ndarray, ...]:
    """(quads, trips, pairs-or-better count, straight, flush) per hand key."""
    b0 = keys & _D0
    b1 = (keys >> 1) & _D0
    b2 = (keys >> 2) & _D0
    ge2 = b1 | b2  # count 2, 3 or 4
    ge3 = b2 | (b0 & b1)  # count 3 or 4
    present = b0 | ge2
    p = present | ((present >> _ACE_BIT) & 1)  # ace low in digit 0
    straight = (p & (p >> 3) & (p >> 6) & (p >> 9) & (p >> 12)) != 0
    s = keys >> _SUIT_SHIFT
    flush = ((s >> 2) & (s | (s >> 1)) & _S0) != 0  # a suit digit of 5, 6 or 7
    return np.bitwise_count(b2), np.bitwise_count(ge3), np.bitwise_count(ge2), straight, flush, ge2


def _suit_straights(masks: np.ndarray) -> np.ndarray:
    """0 no straight flush, 1 straight flush, 2 royal flush (best over the four suits) per hand mask."""
    best = np.zeros(masks.shape, dtype=np.int8)
    for s in range(SUITS):
        np.maximum(best, STRAIGHT_TABLE[(masks >> (14 * s)) & 0x3FFF], out=best)
    return best


def _bin_categories() -> np.ndarray:
    """Category of each feature bin ``nq*64 + n3*16 + n2*4 + straight*2 + flush`` (flush before straight flushes)."""
    out = np.zeros(128, dtype=np.int8)
    for nq in range(2):
        for n3 in range(4):
            for n2 in range(4):
                for st in range(2):
                    for fl in range(2):
                        if nq:
                            cat = FOUR_OF_A_KIND
                        elif n3 and n2 >= 2:
                            cat = FULL_HOUSE
                        elif fl:
                            cat = FLUSH
                        elif st:
                            cat = STRAIGHT
                        elif n3:
                            cat = THREE_OF_A_KIND
                        elif n2 >= 2:
                            cat = TWO_PAIR
                        elif n2 == 1:
                            cat = PAIR
                        else:
                            cat = HIGH_CARD
                        out[nq * 64 + n3 * 16 + n2 * 4 + st * 2 + fl] = cat
    return out


_BIN_CATEGORY = _bin_categories()


def _bins(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    nq, n3, n2, straight, flush, ge2 = _features(keys)
    b = (np.minimum(nq, 1).astype(np.int16) << 6) | (np.minimum(n3, 3).astype(np.int16) << 4)
    b |= np.minimum(n2, 3).astype(np.int16) << 2
    b |= straight.astype(np.int16) << 1
    b |= flush.astype(np.int16)
    return b, flush, ge2


def categorise(hands: np.ndarray) -> np.ndarray:
    """Category (``games.poker`` numbering) of each row of an (n, k) array of card indices, 5 <= k <= 7."""
    hands = np.asarray(hands, dtype=np.int64)
    if hands.ndim != 2 or not 5 <= hands.shape[1] <= 7:
        raise ValueError(f"hands must be an (n, 5..7) array of card indices, got shape {hands.shape}")
    keys = CARD_KEYS[hands].sum(axis=1)
    b, flush, _ = _bins(keys)
    cat = _BIN_CATEGORY[b]
    idx = np.flatnonzero(flush & (cat == FLUSH))
    if idx.size:
        sf = _suit_straights(np.bitwise_or.reduce(CARD_MASKS[hands[idx]], axis=1))
        cat[idx] = np.where(sf == 2, ROYAL_FLUSH, np.where(sf == 1, STRAIGHT_FLUSH, FLUSH))
    return cat


def pair_ranks(hands: np.ndarray) -> np.ndarray:
    """The rank of the highest pair of each hand (0 where no rank is held twice or more)."""
    keys = CARD_KEYS[np.asarray(hands, dtype=np.int64)].sum(axis=1)
    ge2 = _features(keys)[5]
    out = np.zeros(len(keys), dtype=np.int8)
    nz = ge2 != 0
    out[nz] = (np.frexp(ge2[nz].astype(np.float64))[1] - 1) // 3 + 1
    return out


# -- counting over every hand of k cards --------------------------------------------------------

_COMBO_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}
_COMBO_LOCK = threading.Lock()


def _colex_combinations(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys and masks of every m-card combination of the deck, colexicographic order (cached)."""
    with _COMBO_LOCK:
        if m not in _COMBO_CACHE:
            keys = np.zeros(1, dtype=np.int64)
            masks = np.zeros(1, dtype=np.int64)
            for size in range(1, m + 1):
                parts_k, parts_m = [], []
                for top in range(size - 1, 52):
                    n = comb(top, size - 1)
                    parts_k.append(keys[:n] + CARD_KEYS[top])
                    parts_m.append(masks[:n] | CARD_MASKS[top])
                keys, masks = np.concatenate(parts_k), np.concatenate(parts_m)
            _COMBO_CACHE[m] = (keys, masks)
        return _COMBO_CACHE[m]


class Counts:
    """Category counts over a set of hands, with the detail par sheets need.

    ``categories[c]``: hands of category c; ``royal_by_suit[s]``: royal flushes in
    suit s (c d h s order); ``pair_by_rank[r]``: one-pair hands whose pair is rank r.
    """

    def __init__(self) -> None:
        self.categories = np.zeros(10, dtype=np.int64)
        self.royal_by_suit = np.zeros(4, dtype=np.int64)
        self.pair_by_rank = np.zeros(15, dtype=np.int64)
        self.hands = 0

    def add(self, other: Counts) -> None:
        self.categories += other.categories
        self.royal_by_suit += other.royal_by_suit
        self.pair_by_rank += other.pair_by_rank
        self.hands += other.hands


_BLOCK = 1 << 18  # hands per NumPy pass: small enough to stay in cache


def _count_block(keys: np.ndarray, masks_of: Callable[[np.ndarray], np.ndarray], out: Counts) -> None:
    b, flush, ge2 = _bins(keys)
    hist = np.bincount(b, minlength=128)
    out.categories += np.bincount(_BIN_CATEGORY, weights=hist, minlength=10).astype(np.int64)
    out.hands += len(keys)
    # straight flushes among the flushes (never with quads or a full house in 7 cards or fewer,
    # but asked of the category anyway)
    idx = np.flatnonzero(flush & (_BIN_CATEGORY[b] == FLUSH))
    if idx.size:
        masks = masks_of(idx)
        sf = _suit_straights(masks)
        n_royal = int(np.count_nonzero(sf == 2))
        n_sf = int(np.count_nonzero(sf == 1))
        out.categories[FLUSH] -= n_royal + n_sf
        out.categories[ROYAL_FLUSH] += n_royal
        out.categories[STRAIGHT_FLUSH] += n_sf
        if n_royal:
            royal_masks = masks[sf == 2]
            for s in range(SUITS):
                m = (royal_masks >> (14 * s)) & 0x3FFF
                out.royal_by_suit[s] += int(np.count_nonzero(STRAIGHT_TABLE[m] == 2))
    pairs = np.flatnonzero(_BIN_CATEGORY[b] == PAIR)
    if pairs.size:
        r = (np.frexp(ge2[pairs].astype(np.float64))[1] - 1) // 3 + 1
        out.pair_by_rank += np.bincount(r, minlength=15)[:15].astype(np.int64)


def count_categories(
    k: int,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Counts:
    """Count every k-card hand of the deck (5 <= k <= 7) by category, exactly.

    ``progress(done, total)`` is called with the number of hands counted so far.
    """
    if not 5 <= k <= 7:
        raise ValueError(f"k must be 5, 6 or 7, got {k}")
    rest_keys, rest_masks = _colex_combinations(k - 2)
    total = comb(52, k)
    pairs = [(a, b) for a in range(51, 0, -1) for b in range(a - 1, k - 3, -1) if comb(b, k - 2)]
    workers = workers or min(2, os.cpu_count() or 1)
    lock = threading.Lock()
    done = [0]

    def work(pair: tuple[int, int]) -> Counts:
        a, b = pair
        n = comb(b, k - 2)
        top_key = CARD_KEYS[a] + CARD_KEYS[b]
        top_mask = CARD_MASKS[a] | CARD_MASKS[b]
        out = Counts()
        for start in range(0, n, _BLOCK):
            stop = min(n, start + _BLOCK)
            keys = rest_keys[start:stop] + top_key
            _count_block(keys, lambda idx, s=start: rest_masks[s + idx] | top_mask, out)
        if progress is not None:
            with lock:
                done[0] += n
                progress(done[0], total)
        return out

    result = Counts()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(work, pairs):
            result.add(part)
    assert result.hands == total, (result.hands, total)
    return result

"""Batch poker evaluation with NumPy, beside the clear single-hand ``games.poker``.

``games.poker`` evaluates one hand at a time and is the reference; this module evaluates whole arrays of
5- to 7-card hands at once (``categorise``, ``ranks``, ``values``) and counts every hand of k cards of the
deck (``count_categories``) for the par sheets (``games.analysis``).  Its tables are built from the rules of
``games.poker`` (not by calling it), so the tests comparing the two compare two implementations.  How the
keys, the tables and the enumeration work: docs/analysis.md (the batch evaluator).
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
RANKS = 13
N_RANKS = 7462  # distinct five-card poker hands: the rank classes 0 .. 7461

# -- card keys ------------------------------------------------------------------------------------

#: Weight of ranks 2..14 in a hand key: the sums over multisets of <= 7 ranks, each at most
#: four times, are all distinct (checked below when a table is built).
RANK_WEIGHTS = np.array(
    [0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181], dtype=np.uint32
)
_SUIT_WEIGHTS = np.array([0, 1, 8, 64], dtype=np.uint32)  # 3-bit digits of suits 1..3
_SUIT_SHIFT = 23
_RANK_FIELD = np.uint32((1 << _SUIT_SHIFT) - 1)

_CARD = np.arange(52)
_RANK_OF = _CARD // 4  # 0..12 for ranks 2..14
_SUIT_OF = _CARD % 4

#: card index -> 32-bit key (rank weight + suit digit)
CARD_KEYS = (RANK_WEIGHTS[_RANK_OF] + (_SUIT_WEIGHTS[_SUIT_OF] << _SUIT_SHIFT)).astype(np.uint32)
#: card index -> 64-bit mask, 16 bits per suit: bit 16 * suit + (rank - 2)
CARD_MASKS = np.int64(1) << (16 * _SUIT_OF + _RANK_OF).astype(np.int64)
_RANK_BIT = (1 << _RANK_OF).astype(np.uint16)  # card index -> bit (rank - 2) of a 13-bit rank mask
_CARD_SUIT = _SUIT_OF.astype(np.int8)

_BLOCK = 1 << 16  # hands per NumPy pass: their intermediates stay in the 1 MB L2 cache


def hand_indices(hands: Sequence[Sequence[Card]]) -> np.ndarray:
    """Hands of ``games.cards.Card`` as an (n, k) array of card indices."""
    return np.array([[c.index for c in h] for h in hands], dtype=np.int64)


# -- the values of rank sets, as games.poker packs them -------------------------------------------

_MASKS = np.arange(1 << RANKS, dtype=np.int64)  # 13-bit rank masks: bit i = rank i + 2
_POPCOUNT = np.bitwise_count(_MASKS).astype(np.int8)
_TOP_BIT = np.where(_MASKS > 0, np.frexp(_MASKS.astype(np.float64))[1] - 1, -1).astype(np.int8)


def _straight_tops() -> np.ndarray:
    """Top rank (5..14) of the highest five-card straight in each 13-bit rank mask, 0 if none."""
    m = _MASKS << 2  # bit r = rank r, as games.poker.straight_top
    m = m | (((m >> ACE) & 1) << 1)  # the ace also plays low
    out = np.zeros(len(m), dtype=np.int8)
    for top in range(ACE, 4, -1):
        out[(out == 0) & (((m >> (top - 4)) & 0x1F) == 0x1F)] = top
    return out


_STRAIGHT_TOP = _straight_tops()


def _pack(category: int, ranks: Sequence[np.ndarray | int]) -> np.ndarray:
    """``games.poker._pack``: the category, then up to five ranks in 4-bit digits."""
    value: np.ndarray | np.int64 = np.int64(category)
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return np.asarray(value)  # the callers pass arrays: already one, not copied


def _take_top(mask: np.ndarray, n: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The n highest ranks of each 13-bit mask (0 where there are fewer), and the mask without them."""
    ranks = []
    for _ in range(n):
        t = _TOP_BIT[mask].astype(np.int64)
        ranks.append(np.where(t >= 0, t + 2, 0))
        mask = mask & ~np.where(t >= 0, np.int64(1) << np.maximum(t, 0), 0)
    return ranks, mask


def _without(mask: np.ndarray, rank: np.ndarray) -> np.ndarray:
    return mask & ~np.where(rank > 0, np.int64(1) << np.maximum(rank - 2, 0), 0)


def _unsuited_values(counts: np.ndarray) -> np.ndarray:
    """``games.poker.value`` of hands with these rank counts ((m, 13), ranks 2..14) and no flush."""
    bits = np.int64(1) << np.arange(RANKS, dtype=np.int64)
    m1, m2, m3, m4 = (((counts >= n) * bits).sum(axis=1) for n in (1, 2, 3, 4))
    (q,), _ = _take_top(m4, 1)
    (q_kick,), _ = _take_top(_without(m1, q), 1)
    (t,), _ = _take_top(m3, 1)
    (fh_pair,), _ = _take_top(_without(m2, t), 1)
    st = _STRAIGHT_TOP[m1].astype(np.int64)
    t_kicks, _ = _take_top(_without(m1, t), 2)
    (p1, p2), _ = _take_top(m2, 2)
    (tp_kick,), _ = _take_top(_without(_without(m1, p1), p2), 1)
    p_kicks, _ = _take_top(_without(m1, p1), 3)
    high, _ = _take_top(m1, 5)
    n_pairs = _POPCOUNT[m2]  # ranks held twice or more
    return np.select(
        [m4 != 0, (m3 != 0) & (n_pairs >= 2), st != 0, m3 != 0, n_pairs >= 2, m2 != 0],
        [
            _pack(FOUR_OF_A_KIND, (q, q_kick)),
            _pack(FULL_HOUSE, (t, fh_pair)),
            _pack(STRAIGHT, (st,)),
            _pack(THREE_OF_A_KIND, [t, *t_kicks]),
            _pack(TWO_PAIR, (p1, p2, tp_kick)),
            _pack(PAIR, [p1, *p_kicks]),
        ],
        _pack(HIGH_CARD, high),
    )


def _flush_values() -> np.ndarray:
    """``games.poker.value`` of the best hand of each 13-bit mask of one suit's ranks (0 under 5 cards)."""
    st = _STRAIGHT_TOP.astype(np.int64)
    high, _ = _take_top(_MASKS, 5)
    sf = np.where(st == ACE, _pack(ROYAL_FLUSH, (st,)), _pack(STRAIGHT_FLUSH, (st,)))
    out = np.where(st != 0, sf, _pack(FLUSH, high))
    return np.where(_POPCOUNT >= 5, out, 0)


def _rank_multisets(k: int) -> np.ndarray:
    """Every multiset of k ranks with each rank at most four times, as an (m, 13) array of counts."""
    counts = np.zeros((1, 0), dtype=np.int8)
    for _ in range(RANKS):
        left = k - counts.sum(axis=1)
        parts = [np.hstack([counts[left >= c], np.full(((left >= c).sum(), 1), c, np.int8)]) for c in range(5)]
        counts = np.vstack(parts)
    multisets: np.ndarray = counts[counts.sum(axis=1) == k]
    return multisets


_FLUSH_VALUE = _flush_values()

#: rank class -> games.poker.value (int64), ascending: the 7,462 distinct five-card hands
RANK_VALUE = np.unique(
    np.concatenate([_unsuited_values(_rank_multisets(5)), _FLUSH_VALUE[_POPCOUNT == 5]])
)
assert len(RANK_VALUE) == N_RANKS, len(RANK_VALUE)
#: rank class -> category (games.poker numbering)
RANK_CATEGORY = (RANK_VALUE >> 20).astype(np.int8)
#: 13-bit mask of the flush suit's ranks (5 to 7 of them) -> rank class / category
FLUSH_RANK = np.searchsorted(RANK_VALUE, _FLUSH_VALUE).astype(np.uint16)
FLUSH_RANK[_POPCOUNT < 5] = 0
FLUSH_CATEGORY = RANK_CATEGORY[FLUSH_RANK]
_ROYAL_RANK = N_RANKS - 1


class _Tables:
    """The tables for hands of k cards: key rank field -> rank class / category, key suit field -> flush suit."""

    def __init__(self, k: int) -> None:
        counts = _rank_multisets(k)
        keys = counts.astype(np.int64) @ RANK_WEIGHTS.astype(np.int64)
        assert len(np.unique(keys)) == len(keys) and keys.max() < 1 << _SUIT_SHIFT, "rank weights collide"
        self.rank = np.zeros(int(keys.max()) + 1, dtype=np.uint16)
        self.rank[keys] = np.searchsorted(RANK_VALUE, _unsuited_values(counts))
        self.category = RANK_CATEGORY[self.rank]
        self.flush_suit = np.full(512, -1, dtype=np.int8)  # suit with 5 or more cards, -1 if none
        for field in range(512):
            n = (k - (field & 7) - ((field >> 3) & 7) - (field >> 6), field & 7, (field >> 3) & 7, field >> 6)
            if n[0] >= 0 and max(n) >= 5:
                self.flush_suit[field] = n.index(max(n))


_TABLES: dict[int, _Tables] = {}
_TABLES_LOCK = threading.Lock()


def _tables(k: int) -> _Tables:
    with _TABLES_LOCK:
        if k not in _TABLES:
            _TABLES[k] = _Tables(k)
        return _TABLES[k]


# -- evaluating arrays of hands -------------------------------------------------------------------


def _as_hands(hands: np.ndarray) -> np.ndarray:
    hands = np.asarray(hands, dtype=np.intp)
    if hands.ndim != 2 or not 5 <= hands.shape[1] <= 7:
        raise ValueError(f"hands must be an (n, 5..7) array of card indices, got shape {hands.shape}")
    return hands


def _keys(hands: np.ndarray) -> np.ndarray:
    """The 32-bit key of each hand (rows of card indices); an index past 51 raises IndexError."""
    g = np.take(CARD_KEYS, hands)
    key = np.add(g[:, 0], g[:, 1])
    for i in range(2, hands.shape[1]):
        key += g[:, i]
    return key


def _suited_ranks(hands: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """13-bit mask of the ranks each hand holds in ``suit`` (one suit per hand)."""
    bits = np.where(_CARD_SUIT[hands] == suit[:, None], _RANK_BIT[hands], np.uint16(0))
    mask: np.ndarray = np.bitwise_or.reduce(bits, axis=1)
    return mask


def _evaluate(hands: np.ndarray, table_of: Callable[[_Tables], np.ndarray], flush_table: np.ndarray) -> np.ndarray:
    hands = _as_hands(hands)
    t = _tables(hands.shape[1])
    table = table_of(t)
    n = len(hands)
    out = np.empty(n, dtype=table.dtype)
    flush_suit = np.empty(n, dtype=np.int8)
    for start in range(0, n, _BLOCK):
        stop = min(n, start + _BLOCK)
        key = _keys(hands[start:stop])
        np.take(t.flush_suit, key >> _SUIT_SHIFT, out=flush_suit[start:stop])
        key &= _RANK_FIELD
        np.take(table, key, out=out[start:stop])
    idx = np.flatnonzero(flush_suit >= 0)
    if idx.size:
        out[idx] = flush_table[_suited_ranks(hands[idx], flush_suit[idx])]
    return out


def categorise(hands: np.ndarray) -> np.ndarray:
    """Category (``games.poker`` numbering, int8) of each row of an (n, k) array of card indices, 5 <= k <= 7."""
    return _evaluate(hands, lambda t: t.category, FLUSH_CATEGORY)


def ranks(hands: np.ndarray) -> np.ndarray:
    """Rank class (uint16, 0 .. 7,461) of the best five cards of each row of an (n, k) array of card indices.

    Hands compare as ``games.poker.value`` compares them: a higher rank is a
    better hand, equal ranks tie.  ``RANK_VALUE[r]`` is the ``games.poker.value``
    of rank r and ``RANK_CATEGORY[r]`` its category.
    """
    return _evaluate(hands, lambda t: t.rank, FLUSH_RANK)


def values(hands: np.ndarray) -> np.ndarray:
    """``games.poker.value`` (int64) of each row of an (n, k) array of card indices."""
    out: np.ndarray = RANK_VALUE[ranks(hands)]
    return out


def pair_ranks(hands: np.ndarray) -> np.ndarray:
    """The rank of the highest pair of each hand (0 where no rank is held twice or more)."""
    rank_of = _as_hands(hands) // 4
    out = np.zeros(len(rank_of), dtype=np.int8)
    for r in range(RANKS):
        out[(rank_of == r).sum(axis=1) >= 2] = r + 2
    return out


# -- counting over every hand of k cards --------------------------------------------------------

_COMBO_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}
_COMBO_LOCK = threading.Lock()


def _colex_combinations(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys and masks of every m-card combination of the deck, colexicographic order (cached)."""
    with _COMBO_LOCK:
        if m not in _COMBO_CACHE:
            keys = np.zeros(1, dtype=np.uint32)
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
    suit s (c d h s order); ``pair_by_rank[r]``: one-pair hands whose pair is rank r;
    ``by_rank[r]``: hands of rank class r (see ``ranks``), when counted so.
    """

    def __init__(self) -> None:
        self.categories = np.zeros(10, dtype=np.int64)
        self.royal_by_suit = np.zeros(4, dtype=np.int64)
        self.pair_by_rank = np.zeros(15, dtype=np.int64)
        self.by_rank = np.zeros(N_RANKS, dtype=np.int64)
        self.hands = 0

    def add(self, other: Counts) -> None:
        self.categories += other.categories
        self.royal_by_suit += other.royal_by_suit
        self.pair_by_rank += other.pair_by_rank
        self.by_rank += other.by_rank
        self.hands += other.hands

    def _from_ranks(self) -> None:
        """Categories and pairs by rank from ``by_rank``."""
        self.categories = np.zeros(10, dtype=np.int64)
        np.add.at(self.categories, RANK_CATEGORY, self.by_rank)
        pairs = RANK_CATEGORY == PAIR
        self.pair_by_rank = np.zeros(15, dtype=np.int64)
        np.add.at(self.pair_by_rank, (RANK_VALUE[pairs] >> 16) & 0xF, self.by_rank[pairs])


def _count_block(key: np.ndarray, masks: np.ndarray, top_mask: np.int64, t: _Tables, out: Counts) -> None:
    """Add the hands of these keys (and ``masks | top_mask``) to ``out.by_rank`` and ``out.royal_by_suit``."""
    flush_suit = np.take(t.flush_suit, key >> _SUIT_SHIFT)
    rank = np.take(t.rank, key & _RANK_FIELD)
    out.by_rank += np.bincount(rank, minlength=N_RANKS)
    out.hands += len(key)
    idx = np.flatnonzero(flush_suit >= 0)
    if idx.size:
        suit = flush_suit[idx].astype(np.int64)
        flush = FLUSH_RANK[((masks[idx] | top_mask) >> (16 * suit)) & 0x1FFF]
        out.by_rank -= np.bincount(rank[idx], minlength=N_RANKS)
        out.by_rank += np.bincount(flush, minlength=N_RANKS)
        royal = flush == _ROYAL_RANK
        if royal.any():
            out.royal_by_suit += np.bincount(suit[royal], minlength=SUITS)


def count_categories(
    k: int,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Counts:
    """Count every k-card hand of the deck (5 <= k <= 7) by category and by rank class, exactly.

    ``progress(done, total)`` is called with the number of hands counted so far.
    """
    if not 5 <= k <= 7:
        raise ValueError(f"k must be 5, 6 or 7, got {k}")
    t = _tables(k)
    rest_keys, rest_masks = _colex_combinations(k - 2)
    total = comb(52, k)
    pairs = iter([(a, b) for a in range(51, 0, -1) for b in range(a - 1, k - 3, -1) if comb(b, k - 2)])
    workers = workers or min(2, os.cpu_count() or 1)
    lock = threading.Lock()
    done = [0]

    def work() -> Counts:
        out = Counts()
        while True:
            with lock:
                pair = next(pairs, None)
            if pair is None:
                return out
            a, b = pair
            n = comb(b, k - 2)
            top_key = CARD_KEYS[a] + CARD_KEYS[b]
            top_mask = CARD_MASKS[a] | CARD_MASKS[b]
            for start in range(0, n, _BLOCK):
                stop = min(n, start + _BLOCK)
                _count_block(rest_keys[start:stop] + top_key, rest_masks[start:stop], top_mask, t, out)
            if progress is not None:
                with lock:
                    done[0] += n
                    progress(done[0], total)

    result = Counts()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for part in [pool.submit(work) for _ in range(workers)]:
            result.add(part.result())
    result._from_ranks()
    assert result.hands == total, (result.hands, total)
    return result

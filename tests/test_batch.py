"""games.batch, the NumPy batch evaluator, against games.poker, the clear single-hand one.

Categories over every hand and the batch categories of random hands are also
checked in tests/test_analysis.py; here: the full hand ranks (``batch.ranks``,
``batch.values``), their order and ties, and the known counts of distinct hands.
"""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import batch
from games.cards import DECK, parse_card
from games.poker import value

FIVE = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]
# Distinct five-card hands per category, high card .. royal flush (7,462 in all).
CLASSES = [1277, 2860, 858, 858, 10, 1277, 156, 156, 9, 1]
# Distinct hand values met over every hand of k cards (the best five of them).
DISTINCT = {5: 7462, 6: 6075, 7: 4824}


def random_hands(seed: int, k: int, n: int) -> list:
    rng = random.Random(seed)
    return [rng.sample(DECK, k) for _ in range(n)]


@pytest.fixture(scope="module")
def seven():
    """100,000 random seven-card hands, their indices and their games.poker values."""
    hands = random_hands(7, 7, 100_000)
    return hands, batch.hand_indices(hands), np.array([value(h) for h in hands])


def all_hands(k: int) -> np.ndarray:
    """Every k-card hand of the deck as an (C(52, k), k) int8 array, colexicographic order."""
    combos = np.zeros((1, 0), dtype=np.int8)
    for size in range(1, k + 1):
        parts = []
        for top in range(size - 1, 52):
            head = combos[: comb(top, size - 1)]
            parts.append(np.hstack([head, np.full((len(head), 1), top, dtype=np.int8)]))
        combos = np.vstack(parts)
    return combos


# -- the rank table itself ----------------------------------------------------------------------


def test_rank_classes_are_the_7462_five_card_hands_in_order():
    assert len(batch.RANK_VALUE) == batch.N_RANKS == 7462
    assert np.all(np.diff(batch.RANK_VALUE) > 0)
    assert np.bincount(batch.RANK_CATEGORY, minlength=10).tolist() == CLASSES
    assert np.array_equal(batch.RANK_CATEGORY, batch.RANK_VALUE >> 20)
    worst = [parse_card(c) for c in ("7c", "5d", "4h", "3s", "2c")]
    best = [parse_card(c) for c in ("As", "Ks", "Qs", "Js", "Ts")]
    assert batch.RANK_VALUE[0] == value(worst) and batch.RANK_VALUE[-1] == value(best)


# -- random hands against games.poker -----------------------------------------------------------


def test_seven_card_values_equal_single_hand_evaluator(seven):
    hands, idx, want = seven
    r = batch.ranks(idx)
    assert r.dtype == np.uint16 and r.shape == (len(hands),)
    assert np.array_equal(batch.RANK_VALUE[r], want)
    assert np.array_equal(batch.values(idx), want)
    assert np.array_equal(batch.RANK_CATEGORY[r], want >> 20)
    assert np.array_equal(batch.categorise(idx), want >> 20)


def test_seven_card_ranks_order_and_tie_like_single_hand_evaluator(seven):
    _hands, idx, want = seven
    r = batch.ranks(idx).astype(np.int64)
    # random pairs: the same sign of difference, ties included
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, len(r), size=(2, 200_000))
    assert np.array_equal(np.sign(r[a] - r[b]), np.sign(want[a] - want[b]))
    # and every pair at once: sorted by games.poker, the ranks never go down, and they
    # take exactly as many distinct values (so equal ranks are equal values)
    order = np.argsort(want, kind="stable")
    assert np.all(np.diff(r[order]) >= 0)
    assert len(np.unique(r)) == len(np.unique(want)) == np.unique(np.stack([r, want]), axis=1).shape[1]
    # a hand and the same hand with its suits renamed tie
    perm = np.array(rng.permutation(4))
    renamed = (idx & ~3) | perm[idx & 3]
    assert np.array_equal(batch.ranks(renamed), batch.ranks(idx))


@pytest.mark.parametrize("k", [5, 6])
def test_five_and_six_card_values_equal_single_hand_evaluator(k):
    hands = random_hands(k, k, 30_000)
    idx = batch.hand_indices(hands)
    want = np.array([value(h) for h in hands])
    r = batch.ranks(idx)
    assert np.array_equal(batch.RANK_VALUE[r], want)
    assert np.array_equal(batch.categorise(idx), want >> 20)


SPECIAL = [
    "As 2d 3c 4h 5s 9d Kc",  # the wheel
    "As 2d 3c 4h 5s 6d Kc",  # six-high straight, not the wheel
    "Ah 2h 3h 4h 5h 6d 7c",  # steel wheel
    "Ah 2h 3h 4h 5h 6h Kc",  # six-high straight flush
    "As Ks Qs Js Ts 9s 8s",  # royal flush among seven suited cards
    "As Ks Qs Js Ts 9s",  # six-card royal
    "9s 8s 7s 6s 5s Td Jc",  # nine-high straight flush beside a jack-high straight
    "Ah Kh 2h 7h 9h Qc Jd",  # flush beside no straight
    "Ah Kh 2h 7h 9h Qc Td",  # ace-high flush beats the straight
    "Kd Kc Ks 7h 7d 7c 2s",  # two trips: kings full of sevens
    "Kd Kc 7s 7h 3d 3c Ad",  # three pairs: the ace kicks, not the threes
    "Kd Kc 7s 7h 3d 3c 2d",  # three pairs: the threes kick
    "9d 9c 9s 9h Ad Ac As",  # quads and trips: the ace kicks
    "2d 2c 2s 2h 3d 3c 4s",  # quads: the four kicks
    "Td Tc Ts 4h 8d Jc Ad",  # trips and kickers
    "Ad Kc Qs Jh 9d 8c 7s",  # high card
]


@pytest.mark.parametrize("text", SPECIAL)
def test_special_hands(text):
    hand = [parse_card(c) for c in text.split()]
    assert batch.values(batch.hand_indices([hand]))[0] == value(hand)


@settings(max_examples=200, deadline=None)
@given(st.integers(5, 7).flatmap(lambda k: st.lists(st.integers(0, 51), min_size=k, max_size=k, unique=True)))
def test_any_hand_like_single_hand_evaluator(indices):
    hand = [DECK[i] for i in indices]
    assert batch.values(np.array([indices]))[0] == value(hand)


# -- every hand ---------------------------------------------------------------------------------


def test_every_five_card_hand():
    hands = all_hands(5)
    assert len(hands) == 2_598_960
    r = np.concatenate([batch.ranks(hands[i : i + (1 << 19)]) for i in range(0, len(hands), 1 << 19)])
    assert len(np.unique(r)) == 7462
    assert np.bincount(batch.RANK_CATEGORY[r], minlength=10).tolist() == FIVE
    assert np.array_equal(np.bincount(r, minlength=batch.N_RANKS), batch.count_categories(5).by_rank)


@pytest.mark.parametrize("k", [5, 6, 7])
def test_distinct_values_over_every_hand(k):
    counts = batch.count_categories(k)
    assert counts.by_rank.sum() == counts.hands == comb(52, k)
    assert np.count_nonzero(counts.by_rank) == DISTINCT[k]
    assert np.array_equal(np.bincount(batch.RANK_CATEGORY, weights=counts.by_rank, minlength=10), counts.categories)


# -- the rest of the API ------------------------------------------------------------------------


def test_pair_ranks_count_trips_and_quads_as_held_twice():
    hands = random_hands(11, 7, 5000)
    got = batch.pair_ranks(batch.hand_indices(hands))
    for h, r in zip(hands, got, strict=True):
        held = [x for x in range(2, 15) if sum(c.rank == x for c in h) >= 2]
        assert r == (max(held) if held else 0)


def test_refusals_and_empty():
    with pytest.raises(ValueError):
        batch.ranks(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ValueError):
        batch.categorise(np.zeros(7, dtype=np.int64))
    with pytest.raises(IndexError):
        batch.ranks(np.array([[0, 1, 2, 3, 4, 5, 52]]))
    with pytest.raises(ValueError):
        batch.count_categories(8)
    assert batch.ranks(np.zeros((0, 7), dtype=np.int64)).shape == (0,)
    assert batch.categorise(np.zeros((0, 5), dtype=np.int64)).shape == (0,)

"""The long forms of checks that `make test` runs as a sample (issue 12: `make test` under five minutes
on two cores): `make soak`.

Not collected by `make test` (its name is not test_*).  Each test here is the whole of a check whose
test_* file runs a meaningful part of it; that test's docstring says what the sample still checks.
"""

from __future__ import annotations

import itertools
from collections import Counter

import test_analysis_sim as analysis_sim
from games.cards import DECK
from games.poker import CATEGORY_NAMES, value
from test_poker import DISTINCT_FIVE_CARD_RANKS, FIVE_CARD_COUNTS


def test_all_five_card_hands_category_counts_and_distinct_ranks():
    """Every one of the 2,598,960 five-card hands valued (make test: one of every rank pattern in every
    arrangement of its suits, test_poker.test_every_hand_up_to_the_naming_of_suits)."""
    counts: Counter[str] = Counter()
    values = set()
    for hand in itertools.combinations(DECK, 5):
        v = value(hand)
        counts[CATEGORY_NAMES[v >> 20]] += 1
        values.add(v)
    assert dict(counts) == FIVE_CARD_COUNTS
    assert sum(counts.values()) == 2_598_960
    assert len(values) == DISTINCT_FIVE_CARD_RANKS


def test_published_uth_house_edge_in_the_interval():
    """400,000 rounds, the interval narrower than 3.2 % of the Ante (make test: none, HCF's stands for it)."""
    analysis_sim.published_uth_house_edge_in_the_interval(rounds=400_000, widest=0.032)


def test_published_hcf_house_edge_in_the_interval():
    """400,000 rounds, the interval narrower than 1.2 % of the Ante (make test: 25,000)."""
    analysis_sim.published_hcf_house_edge_in_the_interval(rounds=400_000, widest=0.012)

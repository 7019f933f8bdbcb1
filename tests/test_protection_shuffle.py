"""The shuffle monitor (controller/protection/shuffle.py) and the simulated shuffles (simulators/shuffles.py).

Each statistic on constructed decks; the shelf shuffler's likelihood against brute-force enumeration of the
model; false alarms on 500 fair six-player decks bounded by a binomial tail; a 10-shelf one-pass shuffler
flagged within 20 decks (seeded); the state through JSON continues the same.  The 100,000-deck figures:
tests/bench/protection.py (``make bench``).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from controller.protection import shuffle as sh
from controller.protection.shuffle import DeckObservation, ShuffleMonitor
from simulators import shuffles

sys.path.insert(0, str(Path(__file__).parent / "bench"))
import protection as bench  # noqa: E402

DECK = bench.DECK


def test_shelf_likelihood_is_the_models_exactly() -> None:
    n, m, k = 6, 2, 4
    P = 2 * m
    dec = np.arange(P) % 2 == 0
    for stub in [(0, 2), (3, 5), None]:
        a, b = stub if stub else (n, n - 1)
        probs: dict[tuple[int, ...], float] = defaultdict(float)
        for labels in itertools.product(range(P), repeat=n):
            out = sorted(range(n), key=lambda i: (labels[i], -i if labels[i] % 2 == 0 else i))
            probs[tuple(-1 if a <= f <= b else f for f in out[:k])] += P ** -n
        assert math.isclose(sum(probs.values()), 1.0)
        for obs, p in probs.items():
            remaining = [f for f in range(n) if not a <= f <= b and f not in obs]
            fair = math.perm(b - a + 1, obs.count(-1)) / math.perm(n, k)
            assert math.isclose(sh.shelf_log_lr(list(obs), n, stub, remaining, dec), math.log(p / fair),
                                abs_tol=1e-9)


def test_simulated_shuffles() -> None:
    rng = random.Random(3)
    order = list(range(52))
    assert sorted(shuffles.fair(rng, order)) == order
    out = shuffles.shelf(rng, order, 10)
    descents = sum(1 for x, y in zip(out, out[1:], strict=False) if (x > y))
    assert sorted(out) == order and descents < 40  # at most 20 piles, each one way
    for passes in (1, 2, 3):
        out = shuffles.riffle(rng, order, passes)
        where = {c: i for i, c in enumerate(out)}
        rising = 1 + sum(1 for c in order[1:] if where[c] < where[c - 1])
        assert sorted(out) == order and rising <= 2 ** passes  # Bayer and Diaconis: at most 2^k rising sequences
    assert shuffles.shuffle("preset", rng, order, previous=out) == out


class _Scripted(random.Random):
    """Gives ``shelf`` the labels and the shelves' order to use, for enumerating the model."""

    def __init__(self, labels: tuple[int, ...], place: tuple[int, ...]) -> None:
        super().__init__(0)
        self.labels, self.place = iter(labels), list(place)

    def randrange(self, *args: object, **kwargs: object) -> int:  # type: ignore[override]
        return next(self.labels)

    def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
        x[:] = self.place


def test_shelves_assembled_in_a_random_order_give_every_order_the_same_chance() -> None:
    # the shelves' contents are exchangeable (each card's shelf uniform, independent): stacking them in a random
    # order leaves the deck's distribution as it is, so the monitor's likelihood ratio is exact for both (P123)
    n, m = 5, 3
    order = list(range(n))
    in_order: dict[tuple[int, ...], float] = defaultdict(float)
    shuffled: dict[tuple[int, ...], float] = defaultdict(float)
    perms = list(itertools.permutations(range(m)))
    for labels in itertools.product(range(2 * m), repeat=n):
        w = (2 * m) ** -n
        in_order[tuple(shuffles.shelf(_Scripted(labels, tuple(range(m))), order, m))] += w
        for place in perms:
            out = shuffles.shelf(_Scripted(labels, place), order, m, random_order=True)
            shuffled[tuple(out)] += w / len(perms)
    assert set(in_order) == set(shuffled) and len(in_order) > 60
    assert all(math.isclose(in_order[k], shuffled[k], rel_tol=1e-12) for k in in_order)
    rng = random.Random(4)
    assert shuffles.shuffle("shelf20", random.Random(4), DECK) == shuffles.shelf(rng, DECK, 20)  # as before
    assert sorted(shuffles.shuffle("shelf10r", rng, DECK)) == sorted(DECK)


def test_a_shoe_table_observes_a_replayed_deck_without_the_order_fed() -> None:
    # no shuffler (P124): the shoe reads the deck's prefix in dealt order; the order the cards went back is not
    # known, so only the tests that need none run (a replay, the card-by-position counts)
    monitor, rng = ShuffleMonitor(), random.Random(8)
    fair = [tuple(rng.sample(DECK, 19)) for _ in range(300)]
    assert [f for d in fair for f in monitor.observe(DeckObservation("shoe", d))] == []
    assert monitor.cusum == dict.fromkeys(monitor.cusum, 0.0) and monitor.fed == {}
    found = monitor.observe(DeckObservation("shoe", fair[17]))
    assert [(f.finding, f.evidence["decks_ago"]) for f in found] == [("replayed_deck", 283)]


def test_replayed_deck_at_its_first_repeat() -> None:
    monitor, rng = ShuffleMonitor(), random.Random(5)
    order = rng.sample(DECK, 52)
    assert monitor.observe(DeckObservation("A", tuple(rng.sample(DECK, 19)))) == []
    assert monitor.observe(DeckObservation("B", tuple(order[:19]))) == []
    found = monitor.observe(DeckObservation("A", tuple(order[:19])))
    assert [f.finding for f in found] == ["replayed_deck"]
    assert found[0].evidence["positions_same"] == 19 and found[0].evidence["decks_ago"] == 1
    assert found[0].p_value is not None and found[0].p_value < 1e-9
    near = order[:19]
    near[0], near[1] = near[1], near[0]  # nearly replayed: two cards swapped
    assert [f.finding for f in monitor.observe(DeckObservation("B", tuple(near)))] == ["replayed_deck"]


def test_rising_sequences_surviving_pairs_and_rank_correlation_on_an_unshuffled_deck() -> None:
    # the deck comes out as it went in: runs read in order, neighbours kept, positions correlated
    monitor = ShuffleMonitor()
    rng = random.Random(6)
    found: list[str] = []
    for _ in range(sh.WINDOW):
        order = rng.sample(DECK, 52)
        monitor.fed["A"] = list(order)
        found += [f.finding for f in monitor.observe(DeckObservation("A", tuple(order[20:39]) + (None,)))]
    assert {"rising_sequences", "surviving_pairs", "rank_correlation"} <= set(found)


def test_position_bias_over_a_block() -> None:
    monitor, rng = ShuffleMonitor(), random.Random(7)
    found: list[str] = []
    for _ in range(sh.BLOCK):  # the ace of spades always first, the rest fair: only the positions test sees it
        rest = rng.sample(DECK[:-1], 51)
        found += [f.finding for f in monitor.observe(DeckObservation("A", ("As", *rest[:5])))]
    assert found == ["position_bias"]


def test_fair_decks_rarely_alarm() -> None:
    # the stated rate is under 1e-5 a deck: two or more alarms in 500 decks has chance under 1.3e-5
    alarms, by, _ = bench.false_alarms(500, seed=11)
    assert alarms <= 1, by


def test_one_pass_of_ten_shelves_flagged() -> None:
    assert bench.decks_to_alarm("shelf10", 3, seed=4, limit=20) != [20, 20, 20]
    assert max(bench.decks_to_alarm("shelf10", 3, seed=4, limit=20)) < 20


def test_state_survives_a_restart() -> None:
    rng = random.Random(8)
    observations = list(bench.decks("shelf20", rng, 30))
    whole, first = ShuffleMonitor(), ShuffleMonitor()
    expected = [[(f.finding, f.evidence) for f in whole.observe(o)] for o in observations]
    for o in observations[:12]:
        first.observe(o)
    again = ShuffleMonitor.from_state(json.loads(json.dumps(first.state())))
    rest = [[(f.finding, f.evidence) for f in again.observe(o)] for o in observations[12:]]
    assert rest == expected[12:]
    assert again.state() == whole.state()

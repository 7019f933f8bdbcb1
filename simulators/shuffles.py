"""Simulated shuffles: pure functions of a random generator and the order the cards went in (issue 28).

The simulated shuffler (``simulators.shuffler --shuffle KIND``) and the shuffle monitor's measurements
(tests/bench/protection.py) use them, so that the monitor is measured against the attacks it names:

* ``fair``       every order equally likely;
* ``shelf``      one pass of a shelf shuffler with ``m`` shelves: each card, in the order fed, goes to a shelf
                 chosen at random, on top of it or under it, and the shelves are stacked in order, or in a random
                 order as the paper's machine assembles them (``shelf10r``, ``shelf20r``; Diaconis, Fulman and
                 Holmes, Ann. Appl. Probab. 23(4), 2013, §1: the two give every order the same chance, P123);
* ``riffle``     ``passes`` Gilbert-Shannon-Reeds riffles: a binomial cut, then cards drop from each half with
                 chance proportional to its size (Bayer and Diaconis, Ann. Appl. Probab. 2(2), 1992);
* ``preset``     the same order again (a replay), or a stacked order given.

Every function returns a new list, first card first; the input is not changed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

KINDS = ("fair", "shelf10", "shelf20", "shelf10r", "shelf20r", "riffle1", "riffle2", "riffle3", "preset")


def fair(rng: random.Random, order: Sequence[T]) -> list[T]:
    out = list(order)
    rng.shuffle(out)
    return out


def shelf(rng: random.Random, order: Sequence[T], shelves: int, random_order: bool = False) -> list[T]:
    # Each card's shelf and side is one of 2m equally likely labels; top placements end above every bottom
    # placement of their shelf, the later on top, the bottom ones in the order they came (the paper's §1).
    # ``random_order``: the shelves then stacked in a random order (a uniform permutation of the shelves).
    place = list(range(shelves))
    keyed = []
    for i, card in enumerate(order):
        label = rng.randrange(2 * shelves)
        keyed.append(((label // 2, label % 2, -i if label % 2 == 0 else i), card))
    if random_order:
        rng.shuffle(place)
    keyed.sort(key=lambda kc: (place[kc[0][0]], kc[0][1], kc[0][2]))
    return [card for _, card in keyed]


def riffle(rng: random.Random, order: Sequence[T], passes: int) -> list[T]:
    out = list(order)
    for _ in range(passes):
        cut = sum(rng.random() < 0.5 for _ in out)
        left, right = out[:cut], out[cut:]
        merged: list[T] = []
        i = j = 0
        while i < len(left) or j < len(right):
            a, b = len(left) - i, len(right) - j
            if rng.random() * (a + b) < a:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
        out = merged
    return out


def preset(previous: Sequence[T], stacked: Sequence[T] | None = None) -> list[T]:
    """The stacked order if one is given, else the previous delivery again."""
    return list(stacked if stacked is not None else previous)


def shuffle(kind: str, rng: random.Random, order: Sequence[T], previous: Sequence[T] | None = None) -> list[T]:
    """One shuffle of ``kind`` (``KINDS``): ``order`` is the order fed in, ``previous`` the deck's last delivery
    (a preset replays it; the first time, a preset shuffles fairly)."""
    if kind == "fair":
        return fair(rng, order)
    if kind.startswith("shelf"):
        return shelf(rng, order, int(kind[5:].rstrip("r")), random_order=kind.endswith("r"))
    if kind.startswith("riffle"):
        return riffle(rng, order, int(kind[6:]))
    if kind == "preset":
        return preset(previous) if previous is not None else fair(rng, order)
    raise ValueError(f"unknown shuffle {kind!r}; one of {', '.join(KINDS)}")

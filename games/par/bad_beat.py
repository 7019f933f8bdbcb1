"""UTH's Bad Beat counted exactly: the losing hand of the player's and the dealer's (R24b, UTH ch.12 §F).

The wager is paid by the category of the hand that loses, so its odds need both hands beside one
board, not one hand's (as Trips' do).  Every deal is counted: C(52,5) boards x C(47,2) player hands x
C(45,2) dealer hands.  For one board every two-card hand of the 47 cards left is ranked with it and
sorted; a walk from the top counts, for each hand, the hands ranked above it that share none of its
cards (all those above, less those holding either of its cards: a hand holding both is itself)
(games.par.bad_beat_kernel).  Summed by the hand's category, that is the number of (lower, higher)
pairs whose lower hand is of that category; each such pair is two deals (the player holding either).
Equal ranks are ties, which lose (R24b); they are counted too, and the whole adds up to the deals.
The count is stored (``data/ultimate_texas_holdem.bad_beat.json``, about a minute on 2 cores to
recount: ``make soak``); ``stored_classes`` gives games.analysis the (lines made, deals) classes of a
paytable, reading the file only (no numba).
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from importlib import resources
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from games.poker import CATEGORY_NAMES

GAME = "ultimate_texas_holdem"
FILE = "ultimate_texas_holdem.bad_beat.json"
Progress = Callable[[int, int], None]


def hand_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The two-card hands of ``n`` cards as positions (i < j), in the order the kernel walks them."""
    i, j = np.triu_indices(n, 1)
    return i.astype(np.int64), j.astype(np.int64)


def count(boards: np.ndarray | None = None, workers: int | None = None,
          progress: Progress | None = None) -> np.ndarray:
    """``losers`` over ``boards`` (default every board), on ``workers`` threads: 11 integers."""
    from games.par import kernel
    from games.par.bad_beat_kernel import TIES, losers
    from games.par.uth import _parallel

    if boards is None:
        boards = kernel.five_card_subsets(np.arange(52, dtype=np.int64))
    t7 = kernel.tables(7)
    category = kernel.CATEGORY.astype(np.int64)
    hi, hj = hand_pairs(47)

    def work(b: np.ndarray, acc: np.ndarray) -> None:
        losers(b, t7, category, hi, hj, acc)

    accs = _parallel(boards, work, lambda: np.zeros(TIES + 1, dtype=np.int64),
                     workers or min(2, os.cpu_count() or 1), progress, 0, len(boards))
    total: np.ndarray = sum(accs[1:], accs[0])
    return total


def categories(boards: np.ndarray | None = None, workers: int | None = None) -> np.ndarray:
    """(10, 10): the deals by the player's hand's category and the dealer's, every deal counted (about a
    minute on 2 cores): the form of published two-hand tables, against which make soak checks the walk's
    ranking and overlap arithmetic (tests/soak_par.py)."""
    from games.par import kernel
    from games.par.bad_beat_kernel import TIES
    from games.par.bad_beat_kernel import categories as tally
    from games.par.uth import _parallel

    if boards is None:
        boards = kernel.five_card_subsets(np.arange(52, dtype=np.int64))
    t7, category = kernel.tables(7), kernel.CATEGORY.astype(np.int64)
    hi, hj = hand_pairs(47)
    accs = _parallel(boards, lambda b, joint: tally(b, t7, category, hi, hj, joint),
                     lambda: np.zeros((TIES, TIES), dtype=np.int64), workers or min(2, os.cpu_count() or 1),
                     None, 0, len(boards))
    total: np.ndarray = sum(accs[1:], accs[0])
    return total


SPACE = comb(52, 5) * comb(47, 2) * comb(45, 2)


def code_version() -> str:
    from games.par import kernel

    return kernel.code_version("bad_beat.py", "bad_beat_kernel.py", "uth_kernel.py")


def compute(progress: Progress | None = None, workers: int | None = None) -> dict[str, Any]:
    """The stored count, recounted: per category of the losing hand the deals (player, dealer, board) in
    which it loses, and the deals that tie; they add up to ``space`` (asserted)."""
    from games.par.bad_beat_kernel import TIES

    start, cpu = time.monotonic(), time.process_time()
    acc = count(progress=progress, workers=workers)
    losing = [2 * int(n) for n in acc[:TIES]]  # each unordered pair: the player holding either hand
    ties = int(acc[TIES])  # ordered already: each hand counted its equals
    assert sum(losing) + ties == SPACE, (sum(losing), ties, SPACE)
    return {"game": GAME, "wager": "bad_beat", "space": SPACE,
            "what": "deals of the five community cards, the player's two cards and the dealer's two cards, by "
                    "the category of the hand that loses (R24b); ties lose the wager",
            "losing_hand": dict(zip(CATEGORY_NAMES, losing, strict=True)), "ties": ties,
            "computed": {"seconds": round(time.monotonic() - start), "cpu_seconds": round(time.process_time() - cpu),
                         "code_version": code_version()}}


#: the rare losing hands drawn on purpose (games.par.combine): four of a kind and better
RARE_FROM = 7
_weights: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def rare_weights(workers: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every board, and per board its pairs of hands whose lower hand is of each category from RARE_FROM
    (columns), as the count's kernel finds them: about a minute on 2 cores, once per process."""
    if "all" not in _weights:
        from games.par import kernel
        from games.par.bad_beat_kernel import TIES, per_board
        from games.par.uth import _parallel

        boards = kernel.five_card_subsets(np.arange(52, dtype=np.int64))
        t7, category = kernel.tables(7), kernel.CATEGORY.astype(np.int64)
        hi, hj = hand_pairs(47)
        out = np.zeros((len(boards), TIES - RARE_FROM), dtype=np.int64)
        chunks = np.arange(len(boards), dtype=np.int64)

        def work(idx: np.ndarray, _: None) -> None:
            per_board(boards[idx[0]:idx[-1] + 1], t7, category, hi, hj, RARE_FROM, out[idx[0]:idx[-1] + 1])

        _parallel(chunks, work, lambda: None, workers or min(2, os.cpu_count() or 1), None, 0, len(boards))
        _weights["all"] = (boards, out)
    return _weights["all"]


def draw(rng: Any, category: int, boards: np.ndarray, weights: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    """A deal (player's two cards, dealer's two, the five community cards in dealing order) drawn uniformly
    from those whose losing hand is of ``category`` (RARE_FROM on): a board by its weight, then one of its
    pairs of hands, found again here by games.batch (its number asserted equal to the kernel's), then
    which hand is the player's and the order of the community cards."""
    from games import batch

    key = f"cumulative {category}"
    if key not in _weights:
        _weights[key] = (np.cumsum(weights[:, category - RARE_FROM]), np.empty(0))
    column = _weights[key][0]
    b = int(np.searchsorted(column, rng.randrange(int(column[-1])), side="right"))
    board = [int(c) for c in boards[b]]
    rest = np.array([c for c in range(52) if c not in board], dtype=np.int64)
    i, j = hand_pairs(47)
    first, second = rest[i], rest[j]
    cards = np.column_stack([first, second, np.tile(board, (len(i), 1))])
    ranks = batch.ranks(cards)

    def above(lo: int) -> np.ndarray:  # the hands ranked above hand lo, sharing none of its cards
        a, c = first[lo], second[lo]
        out: np.ndarray = (ranks > ranks[lo]) & (first != a) & (first != c) & (second != a) & (second != c)
        return out

    lower = np.flatnonzero(batch.RANK_CATEGORY[ranks] == category)
    counts = np.cumsum([int(above(int(lo)).sum()) for lo in lower])
    assert counts[-1] == weights[b, category - RARE_FROM], (board, counts[-1])
    k = rng.randrange(int(counts[-1]))
    n = int(np.searchsorted(counts, k, side="right"))
    lo = int(lower[n])
    hi = int(np.flatnonzero(above(lo))[k - (int(counts[n - 1]) if n else 0)])
    hands = [[int(first[h]), int(second[h])] for h in (lo, hi)]
    player, dealer = hands if rng.random() < 0.5 else hands[::-1]
    rng.shuffle(board)
    return player, dealer, board


def stored() -> dict[str, Any]:
    out: dict[str, Any] = json.loads(resources.files("games.par").joinpath("data", FILE).read_text(encoding="utf-8"))
    return out


def store(result: dict[str, Any]) -> Path:
    path = Path(__file__).with_name("data") / FILE
    path.write_text(json.dumps(result, indent=1) + "\n")
    return path


def stored_classes(made_of: Callable[[int], frozenset[str]]) -> tuple[int, list[tuple[frozenset[str], int]]]:
    """(space, [(lines made, deals)]) from the stored count: each category's lines as ``made_of`` (a category
    -> the lines its hands make) says, and the ties making none."""
    s = stored()
    classes = [(made_of(c), int(s["losing_hand"][name])) for c, name in enumerate(CATEGORY_NAMES)]
    return int(s["space"]), [*classes, (frozenset(), int(s["ties"]))]

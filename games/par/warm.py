"""Compile the par sheets' numba kernels into numba's on-disk cache, once, at setup (issue 27; make setup).

A kernel compiles at its first call, 5 to 25 s of CPU each, and numba keeps the result in
games/par/__pycache__ keyed by the source file's stamp: a fresh clone has no cache, so make test's par tests
paid about a minute of CPU compiling before they counted anything.  Here each kernel is called once, with the
argument types its callers pass (the drivers' own entry points on their smallest input), in two processes
(UTH's kernels; the others'), so the cache holds what the tests and `tablectl analyze --recompute` call.  A
kernel whose source changes later simply compiles again at its next call; nothing here is a figure.

    python -m games.par.warm
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from multiprocessing import get_context

import numpy as np

from games.cards import DECK, parse_card

SMALL = ("As", "Ks", "Qs", "Js", "Ts", "Ah", "Kh", "5h", "5d", "2c")  # a deck small enough to enumerate at once


def uth() -> None:
    from games.par import uth as par_uth
    from games.par import uth_kernel as uk

    reps, _, _ = par_uth.starting_hands()
    full = par_uth.Setup(np.arange(52), reps)
    board = np.array([0, 9, 18, 27, 36], dtype=np.int64)
    full.board(board)
    uk.posted_flop(int(full.reps[0, 0]), int(full.reps[0, 1]), 5, 14, 23, full.t5, full.category)
    deck = np.array(sorted(parse_card(c).index for c in SMALL))
    small = par_uth.Setup(deck, np.array(list(combinations(deck, 2)), dtype=np.int64))
    par_uth.enumerate_all(small, workers=1)
    from games.par import bad_beat
    from games.par import bad_beat_kernel as bk

    i, j = bad_beat.hand_pairs(47)
    args = (board[None, :], full.t7, full.category, i, j)
    bk.losers(*args, np.zeros(bk.TIES + 1, dtype=np.int64))
    bk.per_board(*args, bad_beat.RARE_FROM, np.zeros((1, bk.TIES - bad_beat.RARE_FROM), dtype=np.int64))
    bk.categories(*args, np.zeros((bk.TIES, bk.TIES), dtype=np.int64))


def others() -> None:
    from games.par import hcf, jhe, ret

    reduced = [c for c in DECK if c.rank in (3, 7, 8, 9, 11, 14)]
    hcf.hand_counts(hcf.masks_of([parse_card(c) for c in "9c 8c 3c Jd 7d Ah 3s".split()]), hcf.masks_of(reduced))
    hcf.tally(only_key=hcf.KEY_NAMES.index("AKQJ"))
    jhe.recount_state("KcAc", "2c", "optimal")
    ret.recount_hand("QJs", "optimal")


def main() -> int:
    start = time.monotonic()
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        for job in [pool.submit(uth), pool.submit(others)]:
            job.result()
    print(f"the par kernels are compiled and cached ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover - make setup
    sys.exit(main())

"""Benchmark of the batch evaluator (games.batch), figures per shared/contracts/bench.md.

``run()`` is called by tests/bench/run.py.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games import batch  # noqa: E402  (importable once ROOT is on the path)
from games.cards import DECK  # noqa: E402


def run(hands: int = 1_000_000) -> list[dict[str, Any]]:
    batch.count_categories(5)  # warm up NumPy; the seven-card tables are built inside the timing
    t = time.perf_counter()
    counts = batch.count_categories(7)
    seconds = time.perf_counter() - t
    assert counts.hands == 133_784_560
    workers = min(2, os.cpu_count() or 1)

    rng = random.Random(1)
    arr = batch.hand_indices([rng.sample(DECK, 7) for _ in range(hands)])
    batch.categorise(arr[:1000])  # warm-up runs (the seven-card tables exist by now)
    batch.ranks(arr[:1000])
    best_cat = best_rank = 0.0
    for _ in range(5):
        t = time.perf_counter()
        batch.categorise(arr)
        best_cat = max(best_cat, hands / (time.perf_counter() - t))
        t = time.perf_counter()
        batch.ranks(arr)
        best_rank = max(best_rank, hands / (time.perf_counter() - t))
    numpy = f"NumPy {np.__version__}"
    return [*_exact_base(),
        {"name": "evaluator.all_seven_card_hands", "value": round(seconds, 2), "unit": "s",
         "what": f"games.batch.count_categories(7): every one of the 133,784,560 seven-card hands "
                 f"given its rank class and counted by category, building its tables included, {numpy}, "
                 f"{workers} threads"},
        {"name": "evaluator.seven_card.batch", "value": round(best_cat), "unit": "hands/s",
         "what": f"games.batch.categorise on an (n, 7) int64 array of {hands:,} random seven-card hands "
                 f"(from batch.hand_indices, outside the timing), category only, one thread, {numpy}, "
                 f"best of 5 runs"},
        {"name": "evaluator.seven_card.batch_ranks", "value": round(best_rank), "unit": "hands/s",
         "what": f"games.batch.ranks on the same array: the full hand value (rank class 0..7461, ordered "
                 f"as games.poker.value), one thread, {numpy}, best of 5 runs"},
    ]


def _exact_base() -> list[dict[str, Any]]:
    """analysis.exact_base.<game>: a whole exact base-game sheet recomputed (games.par), on 2 threads."""
    from games.par.uth import compute_all

    t, cpu = time.perf_counter(), time.process_time()
    compute_all(workers=2)
    seconds, cpu_seconds = time.perf_counter() - t, time.process_time() - cpu
    return [{"name": "analysis.exact_base.ultimate_texas_holdem", "value": round(seconds, 1), "unit": "s",
             "what": f"games.par.uth.compute_all: every UTH board, both passes, the four sheets (Blind A and B, "
                     f"optimal and posted), 2 threads, {cpu_seconds:,.0f} s of CPU, numba compiling included "
                     f"when its cache is cold"}]


if __name__ == "__main__":  # pragma: no cover
    for figure in run():
        print(figure)

"""Benchmark of the batch evaluator (games.batch), figures per shared/contracts/bench.md.

``run()`` is called by tests/bench/run.py.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games import batch
from games.cards import DECK


def run(hands: int = 1_000_000) -> list[dict]:
    batch.count_categories(5)  # warm up NumPy and the combination tables
    t = time.perf_counter()
    counts = batch.count_categories(7)
    seconds = time.perf_counter() - t
    assert counts.hands == 133_784_560
    workers = min(2, os.cpu_count() or 1)

    rng = random.Random(1)
    arr = batch.hand_indices([rng.sample(DECK, 7) for _ in range(hands)])
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        batch.categorise(arr)
        best = max(best, hands / (time.perf_counter() - t))
    return [
        {"name": "evaluator.all_seven_card_hands", "value": round(seconds, 2), "unit": "s",
         "what": f"games.batch.count_categories(7): every one of the 133,784,560 seven-card hands "
                 f"categorised, NumPy {__import__('numpy').__version__}, {workers} threads"},
        {"name": "evaluator.seven_card.batch", "value": round(best), "unit": "hands/s",
         "what": f"games.batch.categorise on an array of {hands:,} random seven-card hands, category only "
                 f"(no full rank), one thread, best of 3 runs"},
    ]


if __name__ == "__main__":  # pragma: no cover
    for figure in run():
        print(figure)

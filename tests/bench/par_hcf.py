"""Benchmark of High Card Flush's exact base-game sheet (games.par.hcf, issue 27).

``run()`` is called by tests/bench/run.py: the whole enumeration, both strategies in one pass.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.par import hcf  # noqa: E402  (importable once ROOT is on the path)


def run() -> list[dict[str, Any]]:
    hcf.tally(only_key=hcf.KEY_NAMES.index("AKQ"))  # compile (or load the cached kernel) outside the timing
    t = time.perf_counter()
    hcf.tally()
    seconds = time.perf_counter() - t
    return [
        {"name": "analysis.exact_base.high_card_flush", "value": round(seconds, 1), "unit": "s",
         "what": f"games.par.hcf.tally(): every player hand up to suit permutation ({len(hcf.classes()[1]):,} "
                 f"classes) against all C(45,7) dealer hands, counted suit by suit, both strategies, numba, "
                 f"one thread"},
    ]


if __name__ == "__main__":  # pragma: no cover
    for figure in run():
        print(figure)

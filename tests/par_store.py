"""Recompute the exact base-game sheets and store them in games/par/data (run by hand after a change to
games/par; make soak checks that a recomputation gives the stored figures).

    PYTHONPATH=. python tests/par_store.py ultimate_texas_holdem
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from games.par import file_name

DATA = Path(__file__).resolve().parent.parent / "games" / "par" / "data"


def main(game: str) -> None:
    if game != "ultimate_texas_holdem":
        raise SystemExit(f"par_store: {game}: its module stores its own sheets")
    from games.par.uth import compute_all

    start = time.monotonic()

    def progress(done: int, total: int) -> None:
        print(f"\r{done:,}/{total:,} boards, {time.monotonic() - start:,.0f} s", end="", file=sys.stderr, flush=True)

    sheets = compute_all(progress)
    print(file=sys.stderr)
    for (letter, strategy), sheet in sheets.items():
        path = DATA / file_name(game, letter, strategy)
        path.write_text(json.dumps(sheet, indent=1) + "\n", encoding="utf-8")
        print(path, sheet["house_edge_per_ante_decimal"], sheet["element_of_risk_decimal"],
              sheet["std_dev_per_ante"], file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])

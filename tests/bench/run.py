"""`make bench`: figures for people on standard output, and for machines in bench.json.

Format: shared/contracts/bench.md.  Every figure compared with a baseline has
the baseline measured in this same run (eval7 for the evaluator).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

import eval7  # noqa: E402

from games.cards import DECK  # noqa: E402
from games.contract import parse_round  # noqa: E402
from games.poker import value  # noqa: E402
from games.registry import GAMES  # noqa: E402
from roundgen import GAMES as GAME_NAMES  # noqa: E402
from roundgen import random_round  # noqa: E402


def bench_evaluator(n: int) -> list[dict[str, Any]]:
    rng = random.Random(1)
    hands = [rng.sample(DECK, 7) for _ in range(n)]
    ref_hands = [[eval7.Card(c.text) for c in h] for h in hands]  # conversion outside the timed loop
    best_ours = best_ref = 0.0
    for _ in range(3):
        t = time.perf_counter()
        for h in hands:
            value(h)
        best_ours = max(best_ours, n / (time.perf_counter() - t))
        t = time.perf_counter()
        for h in ref_hands:
            eval7.evaluate(h)
        best_ref = max(best_ref, n / (time.perf_counter() - t))
    what = f"{n} random seven-card hands, best of 3 runs, per-hand Python loop"
    return [
        {"name": "evaluator.seven_card.project", "value": round(best_ours), "unit": "hands/s", "what": what},
        {"name": "evaluator.seven_card.reference", "value": round(best_ref), "unit": "hands/s",
         "what": f"eval7 {getattr(eval7, '__version__', '')}".strip() + ", per-hand loop, same process; " + what},
    ]


def bench_settle(rounds: int) -> list[dict[str, Any]]:
    figures = []
    for name in GAME_NAMES:
        game = GAMES[name]
        rng = random.Random(2)
        parsed = [parse_round(random_round(rng, name, seats=6, all_wagers=True)) for _ in range(rounds)]
        times = []
        for r in parsed:
            t = time.perf_counter_ns()
            game.settle(r)
            times.append((time.perf_counter_ns() - t) / 1e6)
        times.sort()
        what = f"{rounds} random six-seat rounds with every wager offered, settle() on a parsed round"
        figures.append({"name": f"settle.{name}.six_seats", "value": round(statistics.median(times), 4),
                        "unit": "ms", "stat": "median", "what": what})
        figures.append({"name": f"settle.{name}.six_seats", "value": round(times[int(len(times) * 0.99) - 1], 4),
                        "unit": "ms", "stat": "p99", "what": what})
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="bench.json")
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=2_000)
    args = parser.parse_args()

    import analysis  # tests/bench/analysis.py: the NumPy batch evaluator over all seven-card hands
    import daemon_cpu  # tests/bench/daemon_cpu.py: the daemon's CPU, idle with the table open and per round
    import journal  # tests/bench/journal.py: one press, start-up, bytes and memory over a year's journal
    import link  # tests/bench/link.py: linked progressives, 50 tables on one PostgreSQL
    import lockout  # tests/bench/lockout.py: no more bets through the running daemon and the simulators
    import par_hcf  # tests/bench/par_hcf.py: High Card Flush's exact base game
    import pit  # tests/bench/pit.py: the pit's page with 50 tables publishing, a table's status to its frame
    import protection  # tests/bench/protection.py: the shuffle monitor, 100,000 fair decks and the attacks
    import screen  # tests/bench/screen.py: the dealer's screen in Chromium, daemon status to frame
    import signs  # tests/bench/signs.py: the progressive simulator's meter signs, real driver

    figures = (bench_evaluator(args.hands) + analysis.run() + bench_settle(args.rounds) + lockout.run()
               + signs.run() + screen.run() + journal.run() + link.run() + pit.run() + daemon_cpu.run()
               + par_hcf.run() + protection.run())
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version()}, "figures": figures}
    width = max(len(f["name"]) + len(f.get("stat", "")) for f in figures) + 3
    for f in figures:
        label = f["name"] + (f" ({f['stat']})" if "stat" in f else "")
        print(f"{label:<{width}} {f['value']:>14,} {f['unit']}")
    ours, ref = figures[0]["value"], figures[1]["value"]
    print(f"evaluator: the project's evaluator runs at {ours / ref:.2f}x eval7 (measured in this run)")
    by = {(f["name"], f.get("stat")): f["value"] for f in figures}
    batch = by.get(("evaluator.seven_card.batch", None))
    if batch:
        print(f"evaluator: the NumPy batch path runs at {batch / ref:.1f}x eval7's per-hand loop (categories only)")
    if ("lockout.no_more_bets", "median") in by:
        from drivers.panel import PanelDriver

        aim = PanelDriver.POLL_INTERVAL * 1000 + 2 * by[("modbus.round_trip", "median")]
        print(
            f"lock-out after no more bets: median {by[('lockout.no_more_bets', 'median')]} ms, "
            f"p99 {by[('lockout.no_more_bets', 'p99')]} ms; aim: one panel poll + two round trips = {aim:.2f} ms"
        )
    if ("signs.meter_update", "p99") in by:
        print(f"meter signs after a change: median {by[('signs.meter_update', 'median')]} ms, "
              f"p99 {by[('signs.meter_update', 'p99')]} ms; aim: within 1000 ms")
    if ("web.event_to_screen", "p99") in by:
        print(f"dealer's screen after a daemon event: median {by[('web.event_to_screen', 'median')]} ms, "
              f"p99 {by[('web.event_to_screen', 'p99')]} ms; aim: p99 under 100 ms (issue 25)")
    if ("link.contribution", "p99") in by:
        print(f"linked progressive, 50 tables: contribution median {by[('link.contribution', 'median')]} ms, "
              f"p99 {by[('link.contribution', 'p99')]} ms (aim: p99 under 20 ms); "
              f"{by[('link.contributions_per_s', None)]} contributions/s; hit to every other table's meters "
              f"p99 {by[('link.hit_to_signs', 'p99')]} ms (aim: under 1000 ms)")
    if ("pit.event_to_screen", "p99") in by:
        print(f"the pit, 50 tables: a table's status to the pit's page median {by[('pit.event_to_screen', 'median')]} "
              f"ms, p99 {by[('pit.event_to_screen', 'p99')]} ms (aim: p99 under 500 ms); page load p99 "
              f"{by[('pit.page_load', 'p99')]} ms")
    if ("daemon.cpu_idle", None) in by:
        print(f"daemon, table open and idle: {by[('daemon.cpu_idle', None)]} % of one core (aim: under 2 %; "
              f"the drivers' polls alone: {by[('daemon.cpu_idle_drivers', None)]} %); "
              f"{by[('daemon.cpu_per_round', 'mean')]} ms of CPU per six-seat UTH round")
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The shuffle monitor measured (issue 28): six players' reads of simulated shuffles through the pure monitor.

A six-player Ultimate Texas Hold 'Em table with a shuffler reads 19 cards a deck (the dealer's two, six hands,
five community cards); the 33 of the stub are never read and go back first (UTH ch.10 §C(4)), the read cards
after them in the order the procedure collects them (``COLLECTION``).  ``decks_to_alarm``: decks of one
shuffle kind, from a fresh monitor, until its first finding.  ``informed.rounds_to_alarm``: rounds until a player
who knows the order (``simulators.players``) raises the streak or hold alarm.
``python tests/bench/protection.py [--decks N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.protection import hold  # noqa: E402
from controller.protection.shuffle import DeckObservation, ShuffleMonitor  # noqa: E402
from simulators import shuffles  # noqa: E402
from simulators.players import UTH, informed_rounds  # noqa: E402

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
READ = 19  # six players: 2 + 6 x 2 + 5
# the read cards' positions in the order collected: the hands seat 6 to seat 1, the dealer's, the board
COLLECTION = [12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 16, 17, 18]


def decks(kind: str, rng: random.Random, count: int, read: int = READ) -> Any:
    """``count`` observations of one deck shuffled ``kind`` after each round."""
    order = list(DECK)
    rng.shuffle(order)
    previous: list[str] | None = None
    collection = [i for i in COLLECTION if i < read]
    for _ in range(count):
        out = shuffles.shuffle(kind, rng, order, previous)
        previous = out
        seen = out[:read]
        order = out[read:] + [seen[i] for i in collection]
        collected = tuple([None] * (len(out) - read) + [seen[i] for i in collection])
        yield DeckObservation("A", tuple(seen), collected)


def false_alarms(count: int, seed: int = 1) -> tuple[int, dict[str, int], float]:
    monitor, rng = ShuffleMonitor(), random.Random(seed)
    by: dict[str, int] = {}
    t = time.process_time()
    total = 0
    for obs in decks("fair", rng, count):
        for f in monitor.observe(obs):
            total += 1
            by[f.finding] = by.get(f.finding, 0) + 1
    return total, by, (time.process_time() - t) * 1000 / count


def decks_to_alarm(kind: str, trials: int, seed: int = 2, limit: int = 400, read: int = READ) -> list[int]:
    out = []
    for trial in range(trials):
        monitor, rng = ShuffleMonitor(), random.Random(seed * 100_003 + trial)
        n = limit
        for i, obs in enumerate(decks(kind, rng, limit, read), 1):
            if monitor.observe(obs):
                n = i
                break
        out.append(n)
    return out


def informed_to_alarm(trials: int, seed: int = 3, limit: int = 2000) -> tuple[list[int], dict[str, int]]:
    """Rounds of a six-seat UTH table with an informed player (``simulators.players``) until the daemon's hold and
    streak monitor (``hold.Streaks``, and ``hold.outside_band`` over the gaming day, as controller/service/
    protection.py runs them) raises its first alarm; and which test raised it, over the runs."""
    out: list[int] = []
    by: dict[str, int] = {}
    for trial in range(trials):
        streaks, today = hold.Streaks(UTH), hold.Tally()
        for n, bets in enumerate(informed_rounds(random.Random(seed * 100_003 + trial)), 1):
            results = [hold.Result(f"r{n}", "2026-11-27T12:00:00+00:00", b.seat, b.wager, "A", b.amount, b.net, b.won)
                       for b in bets]
            found = [hold.STREAK] * len(streaks.add(results))
            for r in results:
                today.add(r)
            if hold.outside_band(today, UTH, "trips") is not None:
                found.append(hold.HOLD)
            if found or n >= limit:
                for f in found:
                    by[f] = by.get(f, 0) + 1
                out.append(n)
                break
    return out, by


def p95(values: list[int]) -> int:
    s = sorted(values)
    return s[min(len(s) - 1, int(0.95 * len(s)))]


def run(fair_decks: int = 100_000, trials: int = 200) -> list[dict[str, Any]]:
    figures: list[dict[str, Any]] = []
    alarms, by, ms = false_alarms(fair_decks)
    rate = round(alarms * 100_000 / fair_decks, 2)
    what = f"{fair_decks} fair decks, six players (19 cards read); by test {by}"
    figures.append({"name": "protection.fair.false_alarms_per_100k_decks", "value": rate, "unit": "alarms",
                    "what": what})
    figures.append({"name": "protection.monitor_cost", "value": round(ms, 3), "unit": "ms CPU per deck",
                    "stat": "mean", "what": f"the pure monitor over {fair_decks} fair decks"})
    for kind, name in (("shelf10", "protection.shelf_one_pass.decks_to_alarm.shelves_10"),
                       ("shelf20", "protection.shelf_one_pass.decks_to_alarm.shelves_20"),
                       ("shelf10r", "protection.shelf_one_pass.decks_to_alarm.shelves_10_random_order"),
                       ("shelf20r", "protection.shelf_one_pass.decks_to_alarm.shelves_20_random_order"),
                       ("riffle1", "protection.riffle.decks_to_alarm.riffles_1"),
                       ("riffle2", "protection.riffle.decks_to_alarm.riffles_2"),
                       ("riffle3", "protection.riffle.decks_to_alarm.riffles_3"),
                       ("preset", "protection.preset.decks_to_alarm")):
        n = decks_to_alarm(kind, trials)
        what = f"{trials} runs from a fresh monitor, six players; 400 = not flagged within 400 decks"
        figures.append({"name": name, "value": statistics.median(n), "unit": "decks", "stat": "median", "what": what})
        figures.append({"name": name, "value": p95(n), "unit": "decks", "stat": "p95", "what": what})
    n, by = informed_to_alarm(trials)
    what = (f"{trials} runs, six-seat UTH: one seat bets the Trips ($100) only where the known order wins, five at $5 "
            f"on 3 rounds in 10; the first alarm of the streak and hold tests (by test {by}); 2000 = none")
    name = "protection.informed.rounds_to_alarm"
    figures.append({"name": name, "value": statistics.median(n), "unit": "rounds", "stat": "median", "what": what})
    figures.append({"name": name, "value": p95(n), "unit": "rounds", "stat": "p95", "what": what})
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--decks", type=int, default=100_000)
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args()
    for f in run(args.decks, args.trials):
        print(f"{f['name']:60} {f.get('stat', ''):7} {f['value']:>10} {f['unit']}  {f.get('what', '')}")

"""Linked progressives on one PostgreSQL (tests/pg.py's throwaway server, Debian's package): 50 simulated
tables in one process, each with its own connection pool (``controller.progressive.link.store.LinkStore``) as a
table PC has.

* ``link.contribution`` (median, p99, ms): one round's contributions written (1-4 seats x 2 meters,
  one statement, the meters moved) while the 50 tables each write a round every ``PACE_S`` on average
  (a real table writes one a minute or so: this is some 30 times a busy floor);
* ``link.contributions_per_s``: the seats' contributions confirmed per second with the 50 tables writing
  as fast as each can (the link saturated: every round moves the same two meter rows);
* ``link.hit_to_signs`` (median, p99, ms): from one table starting a hit to the last of the other 49
  having read the meter the hit left (LISTEN/NOTIFY, then the meters read: what the table sends its sign;
  the sign's own Modbus write is ``signs.meter_update``).

The tables share the machine's cores with the server: the figures are those of one 2-core box, not of
a floor with a server of its own.

    python tests/bench/link.py             # prints the figures
    from link import run; run()            # -> list of figures (shared/contracts/bench.md)
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import pg  # noqa: E402
from controller.progressive.link.migrate import migrate  # noqa: E402
from controller.progressive.link.store import Contribution, LinkStore  # noqa: E402
from games.money import round_cents  # noqa: E402

TABLES = 50
ROUNDS = 20  # per table, each phase
PACE_S = 0.5  # the latency phase: each table's mean interval between rounds
HITS = 20
METERS = {"major": (Decimal("10000.00"), Decimal("1000.00")), "minor": (Decimal("500.00"), Decimal("250.00"))}
PER_SEAT = {"major": Decimal("0.20"), "minor": Decimal("0.05")}
UNIT = Decimal("5")


def _p99(values: list[float]) -> float:
    s = sorted(values)
    return s[max(int(len(s) * 0.99) - 1, 0)]


async def _contributions(url: str) -> list[dict[str, Any]]:
    stores = [LinkStore(url, "bench", pool_size=1) for _ in range(TABLES)]
    await asyncio.gather(*(s.open() for s in stores))
    await stores[0].install(METERS)
    latencies: list[float] = []
    seats_confirmed = 0

    async def table(n: int, store: LinkStore, phase: str, pace: float | None) -> None:
        nonlocal seats_confirmed
        rng = random.Random(n)
        for k in range(ROUNDS):
            if pace is not None:
                await asyncio.sleep(rng.expovariate(1 / pace))  # the next round's no more bets, at random
            seats = sorted(rng.sample(range(1, 7), rng.randint(1, 4)))
            rows = [Contribution(s, m, PER_SEAT[m], UNIT) for s in seats for m in METERS]
            t = time.perf_counter()
            await store.contribute(f"T{n:02d}", f"{phase}{k}", rows)
            if pace is not None:
                latencies.append((time.perf_counter() - t) * 1000)
            seats_confirmed += len(seats)

    await asyncio.gather(*(table(n, s, "paced", PACE_S) for n, s in enumerate(stores)))
    seats_confirmed = 0
    start = time.perf_counter()
    await asyncio.gather(*(table(n, s, "flat", None) for n, s in enumerate(stores)))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(s.close() for s in stores))
    common = "1-4 seats x 2 meters per round, one statement; one PostgreSQL on the same 2-core machine as the tables"
    paced = (f"{TABLES} tables, {ROUNDS} rounds each, a round every {PACE_S} s per table on average "
             f"({TABLES / PACE_S:.0f} rounds/s offered); {common}")
    flat = (f"{TABLES} tables, {ROUNDS} rounds each, as fast as each can; one contribution = one seat's progressive "
            f"wager, every meter; {common}")
    return [
        {"name": "link.contribution", "value": round(statistics.median(latencies), 3), "unit": "ms",
         "stat": "median", "what": paced},
        {"name": "link.contribution", "value": round(_p99(latencies), 3), "unit": "ms", "stat": "p99", "what": paced},
        {"name": "link.contributions_per_s", "value": round(seats_confirmed / elapsed), "unit": "contributions/s",
         "what": flat},
    ]


async def _hit_to_signs(url: str) -> list[dict[str, Any]]:
    stores = [LinkStore(url, "bench-hits", pool_size=1) for _ in range(TABLES)]
    await asyncio.gather(*(s.open() for s in stores))
    await stores[0].install(METERS)
    seen: list[asyncio.Event] = [asyncio.Event() for _ in stores]
    expected: dict[str, Decimal] = {}
    listening = 0
    all_listening = asyncio.Event()

    def listener(i: int, store: LinkStore) -> asyncio.Task[None]:
        async def changed() -> None:
            values = await store.values()  # what the table shows its sign
            if expected and values.get("minor") == expected["minor"]:
                seen[i].set()

        def ready() -> None:
            nonlocal listening
            listening += 1
            if listening == TABLES - 1:
                all_listening.set()

        return asyncio.ensure_future(store.listen(changed, ready=ready))

    tasks = [listener(i, s) for i, s in enumerate(stores) if i > 0]
    await all_listening.wait()
    times: list[float] = []
    for k in range(HITS):
        await stores[0].contribute("T00", f"h{k}", [Contribution(1, "minor", Decimal("300.00"), UNIT)])
        for e in seen:
            e.clear()
        before = (await stores[0].values())["minor"]
        expected["minor"] = max(METERS["minor"][1], before - round_cents(Decimal("10") * before / 100))  # R4
        t = time.perf_counter()
        await stores[0].hit("T00", "A-00", f"h{k}", 0, 1, "straight_flush", "minor", Decimal("10"))
        await asyncio.wait_for(asyncio.gather(*(seen[i].wait() for i in range(1, TABLES))), 30)
        times.append((time.perf_counter() - t) * 1000)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*(s.close() for s in stores))
    what = (f"{HITS} hits at one of {TABLES} tables: from the hit's start to the last of the other "
            f"{TABLES - 1} having read the meter it left (LISTEN/NOTIFY, then the meters read)")
    return [
        {"name": "link.hit_to_signs", "value": round(statistics.median(times), 3), "unit": "ms", "stat": "median",
         "what": what},
        {"name": "link.hit_to_signs", "value": round(_p99(times), 3), "unit": "ms", "stat": "p99", "what": what},
    ]


def run() -> list[dict[str, Any]]:
    cluster = pg.cluster()
    url = cluster.new_database()
    migrate(url)
    return asyncio.run(_contributions(url)) + asyncio.run(_hit_to_signs(url))


if __name__ == "__main__":
    for f in run():
        print(f"{f['name']:<28} {f.get('stat', ''):<7} {f['value']:>10} {f['unit']}")

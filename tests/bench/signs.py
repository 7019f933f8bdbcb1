"""Meter signs: from a meter change to the progressive system's sign registers showing it.

The progressive simulator runs as its own process (Modbus TCP on loopback); the real
``ProgressiveDriver`` is started as the daemon starts it (its status poll running every
``poll_interval``).  Each sample changes five meters at once -- the most any table configures
(JHE Progressive E) and what the daemon writes after every change, all its meters in one call --
to new random amounts, at a random phase of the driver's poll cycle:

* ``signs.meter_update``: from ``set_meters()`` being called to the first read, by a second
  Modbus client on its own connection reading the sign registers back to back, that shows every
  new amount.  It includes up to one read of that client (an upper bound, never less than the
  truth).
* ``signs.set_meters``: from the call to its return: the write and the driver's own read-back
  that confirms what the signs show.
* ``signs.modbus_round_trip``: the baseline, one bare read of the same registers by the second
  client with nothing else on the bus, same run.

The requirement is "signs updated within one second of each change".

    python tests/bench/signs.py          # prints the figures
    from signs import run; run()         # -> list of figures (shared/contracts/bench.md)
"""

from __future__ import annotations

import asyncio
import logging
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from pymodbus.client import AsyncModbusTcpClient  # noqa: E402

from drivers.modbus import Health, parse_url  # noqa: E402
from drivers.progressive import ProgressiveDriver  # noqa: E402
from drivers.registers import PROG_METER_BASE, u32_to_regs  # noqa: E402
from modbus_helpers import start_sim  # noqa: E402

METERS_CHANGED = 5


def _p99(values: list[float]) -> float:
    s = sorted(values)
    return s[max(int(len(s) * 0.99) - 1, 0)]


async def _measure(samples: int) -> tuple[list[float], list[float], list[float], float]:
    sim = start_sim("simulators.progressive")
    try:
        prog = ProgressiveDriver(sim.url)
        await prog.start()
        await asyncio.wait_for(prog.wait_health(Health.ONLINE), 10)
        cfg = parse_url(sim.url)
        reader = AsyncModbusTcpClient(cfg.host, port=cfg.port, timeout=1, retries=0, reconnect_delay=0)
        await reader.connect()

        async def read_signs() -> list[int]:
            rr = await reader.read_holding_registers(PROG_METER_BASE, count=2 * METERS_CHANGED, device_id=1)
            assert not rr.isError(), rr
            return list(rr.registers)

        updates: list[float] = []
        calls: list[float] = []
        try:
            rng = random.Random(7)
            for _ in range(samples):
                amounts = {i: rng.randrange(25_000, 5_000_000_00) for i in range(METERS_CHANGED)}
                target = [r for i in range(METERS_CHANGED) for r in u32_to_regs(amounts[i])]
                await asyncio.sleep(rng.uniform(0, prog.poll_interval))  # a random phase of the driver's poll
                reading = asyncio.Event()

                async def watch(reading: asyncio.Event, target: list[int]) -> float:  # reads the signs back to back
                    while True:
                        regs = await read_signs()
                        seen = time.perf_counter()
                        reading.set()
                        if regs == target:
                            return seen

                watcher = asyncio.get_running_loop().create_task(watch(reading, target))
                await reading.wait()  # the watcher is reading before the change
                t0 = time.perf_counter()
                await prog.set_meters(amounts)
                calls.append((time.perf_counter() - t0) * 1000)
                seen = await asyncio.wait_for(watcher, 10)
                updates.append((seen - t0) * 1000)
        finally:
            await prog.close()
        poll = prog.poll_interval

        round_trips: list[float] = []
        try:
            for _ in range(samples):
                t = time.perf_counter()
                await read_signs()
                round_trips.append((time.perf_counter() - t) * 1000)
        finally:
            reader.close()
        return updates, calls, round_trips, poll
    finally:
        sim.stop()


def run(samples: int = 200) -> list[dict[str, Any]]:
    """Figures ``signs.meter_update``, ``signs.set_meters`` and ``signs.modbus_round_trip`` (median, p99, ms)."""
    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    try:
        updates, calls, round_trips, poll = asyncio.run(_measure(samples))
    finally:
        structlog.configure(**saved)
    setup = (f"{samples} changes of {METERS_CHANGED} meters at once to random amounts, at a random phase of the "
             f"driver's status poll (every {poll * 1000:.0f} ms); Modbus TCP on loopback, pymodbus both ends, "
             "the progressive simulator in its own process")
    what = {
        "signs.meter_update": "ProgressiveDriver.set_meters() called -> a second client reading the sign registers "
                              "back to back sees every new amount (upper bound: includes up to one of its reads); "
                              + setup,
        "signs.set_meters": "ProgressiveDriver.set_meters() call to return: one FC16 write and the driver's "
                            "read-back confirming the signs; " + setup,
        "signs.modbus_round_trip": f"{samples} reads of the {2 * METERS_CHANGED} sign registers, bare pymodbus "
                                   "AsyncModbusTcpClient to the progressive simulator process, nothing else on "
                                   "the bus, same run",
    }
    out = []
    for name, values in (("signs.meter_update", updates), ("signs.set_meters", calls),
                         ("signs.modbus_round_trip", round_trips)):
        out.append({"name": name, "value": round(statistics.median(values), 3), "unit": "ms", "stat": "median",
                    "what": what[name]})
        out.append({"name": name, "value": round(_p99(values), 3), "unit": "ms", "stat": "p99", "what": what[name]})
    return out


if __name__ == "__main__":
    for f in run():
        print(f"{f['name']} ({f['stat']}): {f['value']} {f['unit']}")

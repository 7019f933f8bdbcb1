"""Latency of "no more bets": from the press at the panel to the lock-out at the
progressive system, through a minimal controller loop, next to one bare Modbus
round trip measured in the same run.

Both simulators run as their own processes (Modbus TCP on loopback).  The
controller loop is the smallest one that does the job: panel driver event
``no_more_bets`` -> ``await prog.lock_out(True)`` (write + read-back).  The
latency is taken between two instants recorded by the simulators on the
host's CLOCK_MONOTONIC (shared by all processes): the panel firmware
registering the debounced press, and the progressive device applying the
lock-out coil.  It therefore includes the panel poll period (25 ms by default:
on average half of it is spent waiting for the next poll).

    python tests/bench/lockout.py          # prints the figures
    from lockout import run; run()         # -> list of figures (shared/contracts/bench.md)
"""

from __future__ import annotations

import asyncio
import logging
import random
import statistics
import sys
import time
from pathlib import Path

import structlog

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from modbus_helpers import Control, start_sim
from pymodbus.client import AsyncModbusTcpClient

from drivers.modbus import Health, parse_url
from drivers.panel import PanelDriver
from drivers.progressive import ProgressiveDriver


def _p99(values: list[float]) -> float:
    s = sorted(values)
    return s[max(int(len(s) * 0.99) - 1, 0)]


async def _measure(presses: int) -> tuple[list[float], list[float], float]:
    panel_sim = start_sim("simulators.panel")
    prog_sim = start_sim("simulators.progressive")
    pctl, gctl = Control(panel_sim.control), Control(prog_sim.control)
    try:
        panel = PanelDriver(panel_sim.url)
        prog = ProgressiveDriver(prog_sim.url)
        await panel.start()
        await prog.start()
        await asyncio.wait_for(asyncio.gather(panel.wait_health(Health.ONLINE),
                                              prog.wait_health(Health.ONLINE)), 10)
        locked: asyncio.Queue[None] = asyncio.Queue()

        async def controller() -> None:  # the minimal controller loop
            async for press in panel.presses():
                if press.button == "no_more_bets":
                    await prog.lock_out(True)
                    locked.put_nowait(None)

        task = asyncio.get_running_loop().create_task(controller())
        latencies: list[float] = []
        try:
            rng = random.Random(7)
            for _ in range(presses):
                await prog.lock_out(False)  # re-arm, outside the measured interval
                # press at a random phase of the panel's poll cycle, as a dealer would
                # (back to back, every press would land just after a poll)
                await asyncio.sleep(rng.uniform(0, panel.poll_interval))
                pressed = await pctl("press", button="no_more_bets")
                await asyncio.wait_for(locked.get(), 10)
                out = await gctl("outputs")
                latencies.append((out["lockout_on_at"] - pressed["at"]) * 1000)
        finally:
            task.cancel()
            await panel.close()
            await prog.close()
        poll = panel.poll_interval

        cfg = parse_url(prog_sim.url)
        client = AsyncModbusTcpClient(cfg.host, port=cfg.port, timeout=1, retries=0, reconnect_delay=0)
        await client.connect()
        round_trips: list[float] = []
        try:
            for _ in range(presses):
                t = time.perf_counter()
                rr = await client.read_input_registers(0, count=1, device_id=1)
                round_trips.append((time.perf_counter() - t) * 1000)
                assert not rr.isError()
        finally:
            client.close()
        return latencies, round_trips, poll
    finally:
        await pctl.close()
        await gctl.close()
        panel_sim.stop()
        prog_sim.stop()


def run(presses: int = 200) -> list[dict]:
    """Figures ``lockout.no_more_bets`` and ``modbus.round_trip`` (median, p99, ms)."""
    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    try:
        latencies, round_trips, poll = asyncio.run(_measure(presses))
    finally:
        structlog.configure(**saved)
    what_lock = (f"{presses} no_more_bets presses: panel simulator registers the press -> PanelDriver polls "
                 f"(every {poll * 1000:.0f} ms) -> controller loop -> ProgressiveDriver.lock_out(True) "
                 "-> progressive simulator applies the coil; presses at a random phase of the poll cycle; Modbus TCP on loopback, pymodbus both ends, "
                 "simulators in their own processes, CLOCK_MONOTONIC stamps")
    what_rt = (f"{presses} reads of one input register, bare pymodbus AsyncModbusTcpClient to the progressive "
               "simulator process over loopback, same run")
    out = []
    for name, values, what in (("lockout.no_more_bets", latencies, what_lock),
                               ("modbus.round_trip", round_trips, what_rt)):
        out.append({"name": name, "value": round(statistics.median(values), 3), "unit": "ms", "stat": "median",
                    "what": what})
        out.append({"name": name, "value": round(_p99(values), 3), "unit": "ms", "stat": "p99", "what": what})
    return out


if __name__ == "__main__":
    for f in run():
        print(f"{f['name']} ({f['stat']}): {f['value']} {f['unit']}")

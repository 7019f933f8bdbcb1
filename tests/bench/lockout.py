"""Latency of "no more bets" through the daemon: from the dealer's press at the panel to the lock-out
coil confirmed at the progressive system, next to one bare Modbus round trip measured in the same run.

The table is the example UTH table (config/ultimate_texas_holdem.toml): the daemon runs as
``tablectl run`` in its own process, as systemd runs it, against the simulated panel, progressive
system and shuffler in theirs (Modbus TCP and serial over loopback).  Each measured press is a real
round's no_more_bets: one player's Ante and Blind on the bet sensors, the press at a random phase of
the panel's poll cycle; the daemon's whole path runs (the deck checks, the bet sensors read, the
lock-out set and read back by ``WagerLockout.engage``, the accepted seats read).  The round is then
voided with the supervisor's key and confirmed (the lock-out released, the shuffler shuffles, the
next round opens), outside the measured interval.

The latency is taken between two instants the simulators record on the host's CLOCK_MONOTONIC
(shared by all processes): the panel firmware registering the debounced press, and the progressive
device applying the lock-out coil.  It includes the panel poll period (25 ms by default: on average
half of it is spent waiting for the next poll).  That is the panel's poll while the dealer is pressing
(the round's last press was moments before); ``--quiet`` waits past ``QUIET_AFTER`` before each press,
so each is taken at the quiet table's 50 ms polls, as a no more bets after a long wagering spell is.

    python tests/bench/lockout.py [N] [--quiet]   # prints the figures
    from lockout import run; run()         # -> list of figures (shared/contracts/bench.md)
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from pymodbus.client import AsyncModbusTcpClient  # noqa: E402

from daemon_harness import SimulatedTable, phase, simulated_table  # noqa: E402
from drivers.modbus import parse_url  # noqa: E402
from drivers.panel import QUIET_AFTER, QUIET_POLL_INTERVAL, PanelDriver  # noqa: E402

GAME = "ultimate_texas_holdem"


def _p99(values: list[float]) -> float:
    s = sorted(values)
    return s[max(int(len(s) * 0.99) - 1, 0)]


def _handled_after(before: int) -> Callable[[dict[str, Any]], bool]:
    """A status that has taken a press after the first ``before``."""
    return lambda s: bool(s["presses_handled"] > before)


def _wait(t: SimulatedTable, predicate: Callable[[dict[str, Any]], bool], what: str,
          timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = t.status()
        if s and predicate(s):
            return s
        time.sleep(0.005)
    raise TimeoutError(f"the daemon never reached {what}: {t.status()}")


def _measure_daemon(presses: int, state_dir: Path, quiet: bool = False) -> tuple[list[float], str]:
    mp = pytest.MonkeyPatch()
    try:
        with simulated_table(GAME, state_dir, mp) as t:
            t.start_daemon()
            with contextlib.redirect_stdout(io.StringIO()):  # the dealer's narration of the opening steps
                t.open_table()
            started = time.monotonic()
            panel, system = t.controls["panel"], t.controls["progressive"]
            areas = [w for w in t.cfg.game_rules.wagers if w != "progressive"]  # bet-sensor area i = wager i
            low = int(t.cfg.limits("ante")[0] * 100)
            bets = {"1": {str(areas.index(a)): low for a in t.cfg.game_rules.antes}}
            rng = random.Random(7)
            poll = QUIET_POLL_INTERVAL if quiet else PanelDriver.POLL_INTERVAL
            latencies: list[float] = []
            for _ in range(presses):
                s = _wait(t, lambda s: phase(s) == "wagers" and not s.get("next_step"), "a round taking wagers")
                system("set_bets", bets=bets)
                handled = s["presses_handled"]
                # press at a random phase of the panel's poll cycle, as a dealer would
                time.sleep((QUIET_AFTER if quiet else 0) + rng.uniform(0, poll))
                pressed = panel("press", button="no_more_bets")
                s = _wait(t, _handled_after(handled), "the no_more_bets press")
                if phase(s) != "no_more_bets":
                    raise RuntimeError(f"no more bets was not taken: {s.get('message')}")
                out = system("outputs")
                latencies.append((out["lockout_on_at"] - pressed["at"]) * 1000)
                t.press("void_round", key=True)  # outside the measured interval: the next round
                system("set_bets", bets={})
                t.press("confirm")
            print(f"lockout: {presses} rounds in {time.monotonic() - started:.0f} s", file=sys.stderr)
            return latencies, system.url or ""
    finally:
        mp.undo()


async def _round_trips(url: str, n: int) -> list[float]:
    cfg = parse_url(url)
    client = AsyncModbusTcpClient(cfg.host, port=cfg.port, timeout=1, retries=0, reconnect_delay=0)
    await client.connect()
    out: list[float] = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            rr = await client.read_input_registers(0, count=1, device_id=1)
            out.append((time.perf_counter() - t) * 1000)
            assert not rr.isError()
    finally:
        client.close()
    return out


def _measure(presses: int, quiet: bool = False) -> tuple[list[float], list[float]]:
    from controller.config.table import load_config
    from demo.run import simulator_options, start_simulator, stop_processes

    with tempfile.TemporaryDirectory() as tmp:
        latencies, _ = _measure_daemon(presses, Path(tmp), quiet)
        # the bare round trip, to a progressive simulator process of its own, in the same run
        procs: list[Any] = []
        try:
            cfg = load_config(ROOT / "config" / f"{GAME}.toml")
            sim = start_simulator("progressive", 0, procs, simulator_options("progressive", cfg))
            round_trips = asyncio.run(_round_trips(sim.url or "", presses))
        finally:
            stop_processes(procs)
    return latencies, round_trips


def run(presses: int = 200, quiet: bool = False) -> list[dict[str, Any]]:
    """Figures ``lockout.no_more_bets`` and ``modbus.round_trip`` (median, p99, ms)."""
    latencies, round_trips = _measure(presses, quiet)
    poll = QUIET_POLL_INTERVAL if quiet else PanelDriver.POLL_INTERVAL
    what_lock = (f"{presses} no_more_bets presses, each a real round of the example UTH table: panel simulator "
                 f"registers the press -> PanelDriver polls (every {poll * 1000:.0f} ms: "
                 f"{'the quiet table' if quiet else 'the dealer pressing'}) -> the daemon "
                 "(tablectl run, its own process) checks the decks, reads the bet sensors, WagerLockout.engage "
                 "-> the progressive simulator applies the coil (read back); presses at a random phase of the "
                 "poll cycle; Modbus TCP on loopback, simulators in their own processes, CLOCK_MONOTONIC stamps")
    what_rt = (f"{presses} reads of one input register, bare pymodbus AsyncModbusTcpClient to a progressive "
               "simulator process over loopback, same run")
    out = []
    for name, values, what in (("lockout.no_more_bets", latencies, what_lock),
                               ("modbus.round_trip", round_trips, what_rt)):
        out.append({"name": name, "value": round(statistics.median(values), 3), "unit": "ms", "stat": "median",
                    "what": what})
        out.append({"name": name, "value": round(_p99(values), 3), "unit": "ms", "stat": "p99", "what": what})
    return out


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quiet"]
    for f in run(int(args[0]) if args else 200, quiet="--quiet" in sys.argv[1:]):
        print(f"{f['name']} ({f['stat']}): {f['value']} {f['unit']}")

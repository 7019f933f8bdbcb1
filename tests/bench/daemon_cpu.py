"""The daemon's own CPU on the table PC (a small fanless box): idle with the table open, and per round.

The table is the example UTH table (config/ultimate_texas_holdem.toml): the daemon runs as
``tablectl run`` in its own process, as systemd runs it, against the simulated shuffler, progressive
system and panel in theirs.  Its CPU is read from ``/proc/<pid>/stat`` (user + system, the kernel's
clock ticks), so nothing the bench, the dealer or a simulator does is counted.

``daemon.cpu_idle`` (% of one core): the table open, the round taking wagers and nobody wagering; all
the daemon does is poll the panel (every 25 ms) and the progressive system and shuffler.  Its baseline,
measured in the same run against the same simulators, ``daemon.cpu_idle_drivers``: a bare process
running only the project's own drivers of those devices (``drivers/``, as the daemon builds them),
polling at the same intervals with no table behind them: the daemon's own cost is the difference.

``daemon.cpu_per_round`` (ms of CPU, mean): one six-seat round played by the simulated dealer, from
the first wager to the next round taking wagers (the Ante, Blind and a Progressive wager at every seat,
no more bets, the deal, the decisions, the settlement and its confirmation, the shuffle), less what the
idle polls cost over the round's wall time (the idle rate of this run).

    python tests/bench/daemon_cpu.py [--idle 30] [--rounds 20]   # prints the figures
    from daemon_cpu import run; run()                           # -> list of figures (shared/contracts/bench.md)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from daemon_harness import bet, confirm, deal, next_round, no_more_bets, phase, play_out, simulated_table  # noqa: E402

GAME = "ultimate_texas_holdem"
SEATS = (1, 2, 3, 4, 5, 6)
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` so far (``/proc/<pid>/stat``, utime and stime)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _idle_rate(pid: int, seconds: float) -> float:
    """Percent of one core process ``pid`` took over ``seconds`` of wall time."""
    cpu0, wall0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0) * 100


def _drivers_only(urls: dict[str, str], seconds: float) -> float:
    """The baseline: the devices' drivers alone in a process of their own, polling for ``seconds``; its
    percent of one core (measured once they all polled, as the daemon's is once the table is open)."""
    args = [f"{name}={url}" for name, url in urls.items()]
    proc = subprocess.Popen([sys.executable, __file__, "--drivers-only", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "polling":
            raise RuntimeError(f"the drivers did not start (exit {proc.wait(timeout=15)})")
        return _idle_rate(proc.pid, seconds)
    finally:
        proc.terminate()
        proc.wait(timeout=15)


async def _poll_forever(urls: dict[str, str]) -> None:
    from controller import logs
    from drivers.device import device_type

    logs.configure("json")  # as the daemon logs under the bench (TABLE_LOG_FORMAT=json), to stderr

    devices = [device_type(name).driver()(url) for name, url in urls.items()]
    for d in devices:
        await d.start()
    print("polling", flush=True)
    await asyncio.Event().wait()


def _measure(idle_s: float, rounds: int, state_dir: Path) -> dict[str, float]:
    mp = pytest.MonkeyPatch()
    try:
        with simulated_table(GAME, state_dir, mp) as t:
            t.start_daemon()
            with contextlib.redirect_stdout(io.StringIO()):  # the dealer's narration of the opening steps
                t.open_table()
            _, s = next_round(t, None, load_shoe=False)
            pid = t.daemon.pid
            idle = _idle_rate(pid, idle_s)
            gross: list[float] = []
            walls: list[float] = []
            for _ in range(rounds):
                cpu0, wall0 = cpu_seconds(pid), time.monotonic()
                rid = bet(t, s, seats=SEATS, progressive=SEATS)
                no_more_bets(t)
                deal(t)
                play_out(t)
                s = confirm(t)
                _, s = next_round(t, rid)
                assert phase(s) == "wagers"
                gross.append(cpu_seconds(pid) - cpu0)
                walls.append(time.monotonic() - wall0)
            urls = {name: c.url for name, c in t.controls.items() if c.url}
            t.daemon.terminate()
            t.daemon.wait(timeout=30)
            drivers = _drivers_only(urls, idle_s)
    finally:
        mp.undo()
    mean_gross = sum(gross) / rounds
    mean_wall = sum(walls) / rounds
    return {"idle": idle, "drivers": drivers, "per_round": (mean_gross - idle / 100 * mean_wall) * 1000,
            "gross": mean_gross * 1000, "wall": mean_wall}


def run(idle_s: float = 30.0, rounds: int = 20) -> list[dict]:
    """Figures ``daemon.cpu_idle`` and ``daemon.cpu_idle_drivers`` (% of one core) and
    ``daemon.cpu_per_round`` (ms, mean)."""
    with tempfile.TemporaryDirectory() as tmp:
        m = _measure(idle_s, rounds, Path(tmp))
    where = ("the example UTH table; the daemon is tablectl run in its own process, the simulated shuffler, "
             "progressive system and panel in theirs, on loopback; user + system CPU from /proc/<pid>/stat")
    return [
        {"name": "daemon.cpu_idle", "value": round(m["idle"], 2), "unit": "% of one core",
         "what": f"{idle_s:.0f} s with the table open and the round taking wagers, nobody wagering: the "
                 f"panel, progressive and shuffler polls; {where}"},
        {"name": "daemon.cpu_idle_drivers", "value": round(m["drivers"], 2), "unit": "% of one core",
         "what": f"baseline, same run: the project's drivers of the same devices alone in a process, polling "
                 f"the same simulators for {idle_s:.0f} s (no table behind them)"},
        {"name": "daemon.cpu_per_round", "value": round(m["per_round"], 1), "unit": "ms", "stat": "mean",
         "what": f"{rounds} six-seat rounds (Ante, Blind and a Progressive wager at every seat) played by the "
                 f"simulated dealer, first wager to the next round taking wagers: {m['gross']:.0f} ms of CPU "
                 f"in {m['wall']:.1f} s of wall time, less the idle rate over that time; {where}"},
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle table measured")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--drivers-only", nargs="+", metavar="DEVICE=URL",
                        help="(the baseline's process) run these devices' drivers, polling, until ended")
    args = parser.parse_args()
    if args.drivers_only:
        urls = dict(a.split("=", 1) for a in args.drivers_only)
        asyncio.run(_poll_forever(urls))
        return 0
    for f in run(args.idle, args.rounds):
        label = f["name"] + (f" ({f['stat']})" if "stat" in f else "")
        print(f"{label}: {f['value']} {f['unit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

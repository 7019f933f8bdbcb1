"""Test helpers: run a simulated device as a subprocess and talk to its control port.

Generic: any ``python -m simulators.<device>`` that prints one line
``listening <url> control tcp://<host>:<port>`` and serves the control protocol
of ``simulators.control`` works with it; the client is that module's
(``ControlError`` when a command is refused or the reply lacks ``"ok": true``).
The simulators' modules are in the device registry (``drivers.device``).

    proc, url, control_url = start_simulator("simulators.shuffler", "--seed", "7")
    ...
    stop_simulator(proc)

or, in a fixture (the finalizer kills the process whatever happens)::

    @pytest.fixture
    def sim():
        with simulator("simulators.shuffler", "--seed", "7") as s:
            yield s          # s.proc, s.url, s.control_url, s.control(cmd, **args)

Inside a test's event loop use ``await s.acontrol(...)``: a blocking call
there would stall the driver under test.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from drivers.device import DEVICES
from simulators.control import AsyncControlClient, ControlClient, ControlError, acontrol, control, parse_listening

__all__ = ["ROOT", "ControlError", "Simulator", "acontrol", "control", "run", "simulator", "simulator_of",
           "start_simulator", "stop_simulator"]

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def start_simulator(module: str, *args: str, timeout: float = 20.0) -> tuple[subprocess.Popen[bytes], str, str]:
    """Start ``python -m module *args``; return (process, listen url, control url).

    Waits for the "listening" line (not a sleep: a read with a deadline); if
    it does not come, kills the process and raises with what it printed.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    line = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while b"\n" not in line:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                break
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            line += chunk
    urls = parse_listening(line.decode(errors="replace"))
    if urls is None:
        stop_simulator(proc)
        raise RuntimeError(f"{module} did not say where it listens (exit {proc.returncode}): {line!r}")
    return proc, urls[0], urls[1]


def stop_simulator(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    if proc.stdout is not None:
        proc.stdout.close()


@dataclass
class Simulator:
    proc: subprocess.Popen[bytes]
    url: str
    control_url: str

    def control(self, cmd: str, **args: Any) -> dict[str, Any]:
        """One control command on a connection of its own (blocking)."""
        return control(self.control_url, cmd, **args)

    async def acontrol(self, cmd: str, **args: Any) -> dict[str, Any]:
        """One control command on a connection of its own, without blocking the event loop."""
        return await acontrol(self.control_url, cmd, **args)

    def client(self) -> ControlClient:
        """A blocking client keeping one connection (close it, or use it in a ``with``)."""
        return ControlClient(self.control_url)

    def aclient(self) -> AsyncControlClient:
        """An event-loop client keeping one connection (``await .close()``, or ``async with``)."""
        return AsyncControlClient(self.control_url)


@contextlib.contextmanager
def simulator(module: str, *args: str) -> Iterator[Simulator]:
    proc, url, control_url = start_simulator(module, *args)
    try:
        yield Simulator(proc, url, control_url)
    finally:
        stop_simulator(proc)


def simulator_of(device: str, *args: str) -> contextlib.AbstractContextManager[Simulator]:
    """:func:`simulator` for a device type of the registry, by its name ("shoe", "panel", ...)."""
    return simulator(DEVICES[device].simulator, *args)


def run(coro: Awaitable[T], timeout: float = 30.0) -> T:
    """Run one test coroutine with an overall deadline (a hung device fails the test, not the suite)."""

    async def main() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(main())

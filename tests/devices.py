"""Test helpers: run a simulated device as a subprocess and talk to its control port.

Generic: any ``python -m simulators.<device>`` that prints one line
``listening <url> control tcp://<host>:<port>`` and takes JSON-line control
commands (``{"cmd": ...}`` -> ``{"ok": true, ...}``) works with it.

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
import json
import os
import re
import selectors
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from collections.abc import Awaitable, Iterator

ROOT = Path(__file__).resolve().parent.parent
LISTENING = re.compile(r"^listening (\S+) control (\S+)\s*$")
T = TypeVar("T")


class ControlError(RuntimeError):
    """The simulator refused a control command."""


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
    match = LISTENING.match(line.decode(errors="replace").split("\n")[0])
    if match is None:
        stop_simulator(proc)
        raise RuntimeError(f"{module} did not say where it listens (exit {proc.returncode}): {line!r}")
    return proc, match.group(1), match.group(2)


def stop_simulator(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    if proc.stdout is not None:
        proc.stdout.close()


def _address(control_url: str) -> tuple[str, int]:
    host, _, port = control_url.removeprefix("tcp://").rpartition(":")
    return host, int(port)


def _reply(line: bytes, cmd: str) -> dict[str, Any]:
    if not line:
        raise ControlError(f"{cmd}: simulator closed the control connection")
    reply = json.loads(line)
    if not reply.pop("ok", False):
        raise ControlError(f"{cmd}: {reply.get('error')}")
    return reply


def control(control_url: str, cmd: str, **args: Any) -> dict[str, Any]:
    """Send one control command (blocking); return the reply without "ok", or raise ControlError."""
    with socket.create_connection(_address(control_url), timeout=10) as sock:
        sock.sendall(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
        with sock.makefile("rb") as f:
            return _reply(f.readline(), cmd)


async def acontrol(control_url: str, cmd: str, **args: Any) -> dict[str, Any]:
    """Same as :func:`control`, without blocking the event loop."""
    reader, writer = await asyncio.open_connection(*_address(control_url))
    try:
        writer.write(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
        await writer.drain()
        return _reply(await asyncio.wait_for(reader.readline(), 10), cmd)
    finally:
        writer.close()


@dataclass
class Simulator:
    proc: subprocess.Popen[bytes]
    url: str
    control_url: str

    def control(self, cmd: str, **args: Any) -> dict[str, Any]:
        return control(self.control_url, cmd, **args)

    async def acontrol(self, cmd: str, **args: Any) -> dict[str, Any]:
        return await acontrol(self.control_url, cmd, **args)


@contextlib.contextmanager
def simulator(module: str, *args: str) -> Iterator[Simulator]:
    proc, url, control_url = start_simulator(module, *args)
    try:
        yield Simulator(proc, url, control_url)
    finally:
        stop_simulator(proc)


def run(coro: Awaitable[T], timeout: float = 30.0) -> T:
    """Run one test coroutine with an overall deadline (a hung device fails the test, not the suite)."""

    async def main() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(main())

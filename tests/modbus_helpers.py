"""Helpers for the Modbus device tests: simulator processes, a persistent
control-port client (``simulators.control``'s), and a pymodbus-simulator peer
built from our register map.

Simulators are started by ``devices.start_simulator`` (shared with the serial
device tests).  Nothing here sleeps to wait for a device: waits are on the
process's output or on futures, with generous timeouts.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import urlsplit

from devices import start_simulator, stop_simulator
from drivers.registers import DeviceMap, Table
from simulators.control import AsyncControlClient

if TYPE_CHECKING:
    from pymodbus.datastore import ModbusSimulatorContext
    from pymodbus.datastore.simulator import Cell
    from pymodbus.server import ModbusTcpServer

    from drivers.modbus import ModbusDevice

STARTUP_TIMEOUT = 20.0  # seconds: importing pymodbus on a loaded 2-core machine
T = TypeVar("T")
D = TypeVar("D", bound="ModbusDevice")


@dataclass
class SimProcess:
    proc: subprocess.Popen[bytes]
    url: str  # Modbus URL for the driver
    control: tuple[str, int]

    def stop(self) -> None:
        stop_simulator(self.proc)


def start_sim(module: str, *args: str) -> SimProcess:
    """Start ``python -m module args`` (``devices.start_simulator``: waits for the
    listening line, not a sleep) and parse the control address."""
    proc, url, control_url = start_simulator(module, *args, timeout=STARTUP_TIMEOUT)
    ctl = urlsplit(control_url)
    return SimProcess(proc, url, (ctl.hostname or "127.0.0.1", ctl.port or 0))


class Control(AsyncControlClient):
    """The async control client of ``simulators.control``, made from a ``SimProcess.control`` address."""

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(f"tcp://{address[0]}:{address[1]}")


def run(coro_fn: Callable[[], Awaitable[T]], timeout: float = 30.0) -> T:
    """Run one async test body in a fresh event loop, with an overall timeout."""

    async def main() -> T:
        return await asyncio.wait_for(coro_fn(), timeout)

    return asyncio.run(main())


# --------------------------------------------------------------------------
# a peer we did not write: pymodbus's simulator datastore with our map
# --------------------------------------------------------------------------


def peer_config(regmap: DeviceMap, values: dict[str, int], *, heartbeat_increments: bool = True) -> dict[str, Any]:
    """A pymodbus ModbusSimulatorContext configuration holding ``regmap``.

    Layout of that simulator (non-shared blocks): cells of 16 bits; coils from
    cell 0, discrete inputs after them, then input registers, then holding
    registers; bit b of a coil/discrete-input cell is address 16*cell + b.
    """
    co = -(-regmap.span(Table.COIL) // 16)
    di = -(-regmap.span(Table.DISCRETE_INPUT) // 16)
    ir = regmap.span(Table.INPUT_REGISTER)
    hr = regmap.span(Table.HOLDING_REGISTER)
    base = {Table.INPUT_REGISTER: co + di, Table.HOLDING_REGISTER: co + di + ir}
    bit_cells = {Table.COIL: [0] * co, Table.DISCRETE_INPUT: [0] * di}
    u16: list[dict[str, object]] = []
    u32: list[dict[str, object]] = []
    for p in regmap.points:
        v = int(values.get(p.name, 0))
        if p.table.is_bits:
            if v:
                bit_cells[p.table][p.address // 16] |= 1 << (p.address % 16)
            continue
        cell = base[p.table] + p.address
        if p.kind == "u32":
            u32.append({"addr": [cell, cell + 1], "value": v})
        elif p.name == "heartbeat" and heartbeat_increments:
            u16.append({"addr": cell, "value": v, "action": "increment",
                        "parameters": {"minval": 0, "maxval": 65535}})
        else:
            u16.append({"addr": cell, "value": v})
    bits = [{"addr": i, "value": v} for i, v in enumerate(bit_cells[Table.COIL])]
    bits += [{"addr": co + i, "value": v} for i, v in enumerate(bit_cells[Table.DISCRETE_INPUT])]
    writable = list(range(co))
    writable += [base[Table.HOLDING_REGISTER] + a for p in regmap.in_table(Table.HOLDING_REGISTER)
                 for a in p.addresses]
    return {
        "setup": {
            "co size": co, "di size": di, "hr size": hr, "ir size": ir,
            "shared blocks": False, "type exception": False,
            "defaults": {
                "value": {"bits": 0, "uint16": 0, "uint32": 0, "float32": 0.0, "string": " "},
                "action": {"bits": None, "uint16": None, "uint32": None, "float32": None, "string": None},
            },
        },
        "invalid": [], "write": writable, "bits": bits, "uint16": u16, "uint32": u32, "repeat": [],
    }


async def start_peer(
    regmap: DeviceMap, values: dict[str, int], unit: int, *, heartbeat_increments: bool = True
) -> tuple[ModbusTcpServer, ModbusSimulatorContext, str]:
    """pymodbus's ModbusTcpServer over its ModbusSimulatorContext, in this loop."""
    from pymodbus.datastore import ModbusServerContext, ModbusSimulatorContext
    from pymodbus.server import ModbusTcpServer

    store = ModbusSimulatorContext(peer_config(regmap, values, heartbeat_increments=heartbeat_increments), None)
    server = ModbusTcpServer(ModbusServerContext(devices={unit: store}, single=False), address=("127.0.0.1", 0))
    await server.serve_forever(background=True)
    # pymodbus types its transport as a BaseTransport; a listening server's is the asyncio.Server
    port: int = cast(asyncio.Server, server.transport).sockets[0].getsockname()[1]
    return server, store, f"tcp://127.0.0.1:{port}"


def peer_cell(regmap: DeviceMap, store: ModbusSimulatorContext, name: str) -> Cell:
    """The ModbusSimulatorContext cell holding register point ``name``."""
    p = regmap[name]
    co = -(-regmap.span(Table.COIL) // 16)
    di = -(-regmap.span(Table.DISCRETE_INPUT) // 16)
    base = co + di + (regmap.span(Table.INPUT_REGISTER) if p.table is Table.HOLDING_REGISTER else 0)
    return store.registers[base + p.address]


WAIT = 5.0  # seconds: generous, these things take milliseconds


def sim_fixture(module: str, *args: str) -> object:
    """A module-scoped pytest fixture running one simulator process for the test file (a module's global)."""
    import pytest

    @pytest.fixture(scope="module")
    def fixture() -> Iterator[SimProcess]:
        p = start_sim(module, *args)
        yield p
        p.stop()

    return fixture


def with_driver(
    sim_proc: SimProcess,
    driver_cls: Callable[..., D],
    body: Callable[[D, Control], Awaitable[None]],
    **driver_kw: object,
) -> None:
    """Reset the simulator, connect a ``driver_cls`` driver, wait until ONLINE, run ``body(driver, ctl)``."""
    from drivers.modbus import Health

    async def main() -> None:
        ctl = Control(sim_proc.control)
        await ctl("reset")
        driver = driver_cls(sim_proc.url, **driver_kw)
        try:
            await driver.start()
            await driver.wait_health(Health.ONLINE, timeout=WAIT)
            await body(driver, ctl)
        finally:
            await driver.close()
            await ctl("reset")
            await ctl.close()

    run(main)

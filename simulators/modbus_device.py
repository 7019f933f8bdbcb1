"""Server side shared by the Modbus device simulators.

A simulated device is a register store laid out by the driver's own map (``drivers.registers``), served by
pymodbus's server over Modbus TCP on a loopback port (``--tcp``, the default) or Modbus RTU over a
pseudo-terminal (``--rtu``).  Every request goes through the device model's ``action`` hook, so the model,
not pymodbus's memory, is the truth.  A control port (``simulators.control``) drives the physical side and
injects faults; the commands every device takes, and the line it prints at start: docs/protocols-modbus.md §7.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import time
import tty
from typing import Any, cast

from pymodbus.constants import ExcCodes
from pymodbus.simulator import DataType, SimData, SimDevice

from drivers.registers import PROTOCOL_VERSION, DeviceMap, Point, Table, regs_to_u32, u32_to_regs
from simulators.control import ControlError, serve_control

# pymodbus.server's package imports its HTTP simulator, which takes aiohttp when it is installed (an
# optional dependency of pymodbus's, imported under suppress(ImportError)).  A device simulator serves
# Modbus only, and aiohttp's import (two SSL contexts, the CA store) was most of its start-up: 0.45 s
# of CPU of 0.8 at each of the ~90 simulator processes of `make test`.  So aiohttp is declined for this
# one import when it is not loaded yet: None in sys.modules is the import system's "not available"
# (Python reference, "The module cache"); the entry is removed again at once, so the tests' own
# process, which imports the simulators and also serves the web pages, can import aiohttp after it.
_AIOHTTP_LOADED = "aiohttp" in sys.modules
if not _AIOHTTP_LOADED:
    sys.modules["aiohttp"] = None  # type: ignore[assignment]  # typeshed: modules only, not the None marker
try:
    from pymodbus.server import ModbusSerialServer, ModbusTcpServer
finally:
    if not _AIOHTTP_LOADED:
        del sys.modules["aiohttp"]

logging.getLogger("pymodbus").setLevel(logging.CRITICAL)
log = logging.getLogger(__name__)

FC_TABLE = {1: Table.COIL, 5: Table.COIL, 15: Table.COIL, 2: Table.DISCRETE_INPUT,
            3: Table.HOLDING_REGISTER, 6: Table.HOLDING_REGISTER, 16: Table.HOLDING_REGISTER,
            22: Table.HOLDING_REGISTER, 23: Table.HOLDING_REGISTER, 4: Table.INPUT_REGISTER}
TUPLE_ORDER = (Table.COIL, Table.DISCRETE_INPUT, Table.HOLDING_REGISTER, Table.INPUT_REGISTER)


class RegisterStore:
    """The device's data tables, addressed like the wire, named like the map."""

    def __init__(self, regmap: DeviceMap) -> None:
        self.map = regmap
        self.bits: dict[Table, list[bool]] = {t: [False] * regmap.span(t) for t in (Table.COIL, Table.DISCRETE_INPUT)}
        self.regs: dict[Table, list[int]] = {t: [0] * regmap.span(t)
                                             for t in (Table.HOLDING_REGISTER, Table.INPUT_REGISTER)}

    def get(self, name: str) -> Any:
        p = self.map[name]
        if p.table.is_bits:
            return self.bits[p.table][p.address]
        r = self.regs[p.table]
        return regs_to_u32(r[p.address], r[p.address + 1]) if p.kind == "u32" else r[p.address]

    def set(self, name: str, value: Any) -> None:
        p = self.map[name]
        if p.table.is_bits:
            self.bits[p.table][p.address] = bool(value)
        elif p.kind == "u32":
            self.regs[p.table][p.address:p.address + 2] = u32_to_regs(int(value))
        else:
            if not 0 <= int(value) <= 0xFFFF:
                raise ControlError(f"{name}: {value} does not fit 16 bits")
            self.regs[p.table][p.address] = int(value)

    def as_dict(self) -> dict[str, Any]:
        return {p.name: self.get(p.name) for p in self.map.points}


def make_pty() -> tuple[int, int, str]:
    """A raw pseudo-terminal: (master fd, slave fd, slave path)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    return master, slave, os.ttyname(slave)


class ModbusDeviceSim:
    """A Modbus device: register store + behaviour + pymodbus server + control."""

    MAP: DeviceMap
    HEARTBEAT_PERIOD = 0.1

    def __init__(self, unit: int | None = None) -> None:
        self.unit = unit if unit is not None else self.MAP.default_unit
        self.store = RegisterStore(self.MAP)
        self.silent = False
        self.heartbeat_frozen = False
        self.requests = 0
        self._rtu = False
        self._foreign = False
        self._servers: list[Any] = []
        self._ptys: list[int] = []
        self.power_up()

    # ---- device behaviour (subclasses extend) ----------------------------

    def power_up(self) -> None:
        """State at power-up."""
        self.store = RegisterStore(self.MAP)
        self.store.set("version", PROTOCOL_VERSION)

    def on_write(self, table: Table, address: int, values: list[Any]) -> ExcCodes | None:
        """A master wrote ``values`` from ``address``; default: store them."""
        if table.is_bits:
            self.store.bits[table][address:address + len(values)] = [bool(v) for v in values]
        else:
            self.store.regs[table][address:address + len(values)] = [int(v) for v in values]
        return None

    async def control(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Handle one control command; subclasses handle theirs, then call this."""
        if name == "ping":
            return {}
        if name == "stop_answering":
            self.silent = True
            return {}
        if name == "resume":
            self.silent = False
            return {}
        if name == "freeze_heartbeat":
            self.heartbeat_frozen = bool(args.get("on", True))
            return {}
        if name == "state":
            return {"state": self.store.as_dict(), "silent": self.silent,
                    "heartbeat_frozen": self.heartbeat_frozen, "requests": self.requests}
        if name == "reset":
            self.silent = False
            self.heartbeat_frozen = False
            self.power_up()
            return {}
        raise ControlError(f"unknown command {name!r}")

    # ---- pymodbus glue ------------------------------------------------------

    def simdevice(self) -> SimDevice:
        def block(t: Table) -> list[SimData]:
            n = max(self.MAP.span(t), 1)
            if t.is_bits:
                return [SimData(0, count=n, values=False, datatype=DataType.BITS)]
            return [SimData(0, count=n, values=0, datatype=DataType.REGISTERS)]

        co, di, hr, ir = (block(t) for t in TUPLE_ORDER)
        return SimDevice(self.unit, simdata=(co, di, hr, ir), action=self._action)

    def _check_access(self, table: Table, address: int, count: int, write: bool) -> ExcCodes | None:
        if address < 0 or count < 1 or address + count > self.MAP.span(table):
            return ExcCodes.ILLEGAL_ADDRESS
        if write and not all(self.MAP.defined(table, a) for a in range(address, address + count)):
            return ExcCodes.ILLEGAL_ADDRESS
        return None

    async def _action(self, fc: int, start: int, address: int, count: int, registers: list[int],
                      values: list[Any] | None) -> ExcCodes | None:
        table = FC_TABLE.get(fc)
        if table is None:
            return ExcCodes.ILLEGAL_FUNCTION
        self.requests += 1
        if values is not None:
            if not table.writable:
                return ExcCodes.ILLEGAL_FUNCTION
            if err := self._check_access(table, address, len(values), True):
                return err
            # a silent device applies nothing
            if not self.silent and (err := self.on_write(table, address, list(values))):
                return err
        elif not table.is_bits:  # for bit reads pymodbus passes a register count, not a bit count
            if err := self._check_access(table, address, count, False):
                return err
        elif address >= self.MAP.span(table):
            return ExcCodes.ILLEGAL_ADDRESS
        self._sync(table, registers)
        return None

    def _sync(self, table: Table, registers: list[int]) -> None:
        """Copy the model into pymodbus's memory for ``table`` before it answers."""
        if table.is_bits:
            bits = self.store.bits[table]
            bits = bits + [False] * (-len(bits) % 16)
            packed = [sum(1 << j for j, b in enumerate(bits[i:i + 16]) if b) for i in range(0, len(bits), 16)]
            registers[:len(packed)] = packed
        else:
            regs = self.store.regs[table]
            registers[:len(regs)] = regs

    def _trace_packet(self, sending: bool, data: bytes) -> bytes:
        if not sending:
            # On an RTU line a request for another address is not ours to answer
            # (pymodbus would send an exception reply); the frame starts with the address.
            self._foreign = self._rtu and bool(data) and data[0] != self.unit
            return data
        if self.silent or self._foreign:
            return b""  # request received, answer dropped: the master sees a timeout
        return data

    async def serve_tcp(self, host: str = "127.0.0.1", port: int = 0) -> str:
        server = ModbusTcpServer(self.simdevice(), address=(host, port), trace_packet=self._trace_packet)
        await server.serve_forever(background=True)
        self._servers.append(server)
        # pymodbus types its transport as a BaseTransport; a listening server's is the asyncio.Server
        real_port = cast(asyncio.Server, server.transport).sockets[0].getsockname()[1]
        return f"tcp://{host}:{real_port}"

    async def serve_rtu(self, baud: int = 115200) -> str:
        """RTU over a pseudo-terminal pair.

        pymodbus's serial server needs a device path, and so does the driver;
        a pty has only one.  So: two ptys, pymodbus opens the first one's
        slave, the driver the second one's, and the bytes are copied between
        the two masters (a null-modem cable).
        """
        loop = asyncio.get_running_loop()
        self._rtu = True
        m_dev, s_dev, path_dev = make_pty()
        m_host, s_host, path_host = make_pty()
        self._ptys += [m_dev, s_dev, m_host, s_host]  # keep the slaves open: no EIO on the masters

        def pump(src: int, dst: int) -> None:
            try:
                data = os.read(src, 4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            try:
                os.write(dst, data)
            except OSError:
                pass  # nobody listening on the other side: bytes lost, as on a cable

        loop.add_reader(m_dev, pump, m_dev, m_host)
        loop.add_reader(m_host, pump, m_host, m_dev)
        server = ModbusSerialServer(self.simdevice(), port=path_dev, baudrate=baud,
                                    trace_packet=self._trace_packet)
        await server.serve_forever(background=True)
        self._servers.append(server)
        return f"rtu://{path_host}?baud={baud}"

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.HEARTBEAT_PERIOD)
            if not self.heartbeat_frozen:
                self.store.set("heartbeat", (self.store.get("heartbeat") + 1) & 0xFFFF)

    async def serve_control(self, host: str = "127.0.0.1", port: int = 0) -> str:
        server, url = await serve_control(self.control, host, port)
        self._servers.append(server)
        return url

    async def close(self) -> None:
        """Stop serving: every server this simulator started (pymodbus's, the control port's)."""
        servers, self._servers = self._servers, []
        for server in servers:
            if isinstance(server, asyncio.Server):
                server.close()
            else:
                await server.shutdown()

    # ---- process ------------------------------------------------------------

    async def run(self, args: argparse.Namespace) -> None:
        loop = asyncio.get_running_loop()
        stop: asyncio.Future[None] = loop.create_future()

        def on_signal() -> None:
            if not stop.done():
                stop.set_result(None)

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal)
        url = await (self.serve_rtu(args.baud) if args.rtu else self.serve_tcp(args.host, args.port))
        control = await self.serve_control(args.host, args.control_port)
        hb = loop.create_task(self._heartbeat())
        print(f"listening {url} control {control}", flush=True)
        await stop
        hb.cancel()

    @classmethod
    def main(cls, argv: list[str] | None = None) -> int:
        parser = argparse.ArgumentParser(prog=f"python -m {cls.__module__}", description=cls.__doc__)
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--tcp", action="store_true", help="Modbus TCP on a loopback port (default)")
        mode.add_argument("--rtu", action="store_true", help="Modbus RTU over a pseudo-terminal")
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=0, help="Modbus TCP port (0: any free port)")
        parser.add_argument("--control-port", type=int, default=0)
        parser.add_argument("--baud", type=int, default=115200)
        parser.add_argument("--unit", type=int, default=None, help=f"unit id (default {cls.MAP.default_unit})")
        args = parser.parse_args(argv)
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(levelname)s %(message)s")
        try:
            asyncio.run(cls(args.unit).run(args))
        except KeyboardInterrupt:
            pass
        return 0


def now() -> float:
    """Clock shared with other processes on the host (CLOCK_MONOTONIC)."""
    return time.monotonic()


def point_names(regmap: DeviceMap, prefix: str) -> list[Point]:
    return [p for p in regmap.points if p.name.startswith(prefix)]

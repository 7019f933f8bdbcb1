"""Modbus bus and device base shared by the progressive and panel drivers.

* :class:`ModbusBus` -- one connection (TCP socket or serial line) with one
  ``asyncio.Lock``: every transaction of every device on that bus goes through
  it, one at a time, as a Modbus master must.  Chosen by URL:

  ``tcp://HOST:PORT``                      Modbus TCP (MBAP framing)
  ``rtu:///dev/ttyUSB0?baud=115200``       Modbus RTU over a serial line
  ``/dev/ttyUSB0``                         same, default 115200 8N1

  Query parameters (both kinds): ``timeout`` (seconds per attempt, default
  0.3), ``retries`` (extra attempts, default 1); serial only: ``baud``,
  ``parity`` (N/E/O), ``stopbits``, ``bytesize``.  ``unit`` is read by the
  device drivers.  A transaction that gets no answer costs at most
  ``timeout * (retries + 1)`` (0.6 s by default), never pymodbus's 12 s.

* :class:`ModbusDevice` -- one unit id on a bus: a poll task, a heartbeat
  watch and a :class:`Health` state with change notification.  Subclasses add
  the device's commands.

Failures are logged once per outage, not per retry; a device that stops
answering is OFFLINE and its commands raise :class:`DeviceOffline`.  Nothing
is ever made up to fill a gap.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Self
from urllib.parse import parse_qs, urlsplit

import structlog
from pymodbus.client import AsyncModbusSerialClient, AsyncModbusTcpClient
from pymodbus.exceptions import ConnectionException, ModbusException
from pymodbus.framer import FramerType

# One health enum and one exception family for every device driver, serial or
# Modbus, so the controller watches and catches them the same way.
from drivers.health import DeviceError, DeviceHealth, DeviceOffline, Health, ProtocolError, stop_task
from drivers.registers import PROTOCOL_VERSION, DeviceMap, Point, Table, regs_to_u32, u32_to_regs

__all__ = ["BusConfig", "DeviceError", "DeviceOffline", "DeviceProtocolError", "Health", "ModbusBus",
           "ModbusDevice", "parse_url"]

log = structlog.get_logger(__name__)

# pymodbus logs every timed-out request at ERROR level, with frame dumps; this
# module reports a failure once per outage instead.  An operator who wants
# pymodbus's own log sets the "pymodbus" logger's level explicitly.
_pymodbus_logger = logging.getLogger("pymodbus")
if _pymodbus_logger.level == logging.NOTSET:
    _pymodbus_logger.setLevel(logging.CRITICAL)

DEFAULT_TIMEOUT = 0.3
DEFAULT_RETRIES = 1
DEFAULT_BAUD = 115200
MAX_READ_REGISTERS = 125
MAX_READ_BITS = 2000
# A poll that got no answer is tried again this soon, whatever the device's interval: OFFLINE is two
# transactions in a row without an answer (§6), not two of its slow polls.
RETRY_INTERVAL = 0.1
STALE_MARGIN = 0.005  # past the heartbeat's staleness deadline (stale is "unchanged for more than")


# --------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------


class DeviceProtocolError(ProtocolError):
    """The device answered, but with a Modbus exception reply, a short reply, or
    a value that does not read back as written."""


# --------------------------------------------------------------------------
# the bus
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class BusConfig:
    kind: str  # "tcp" | "rtu"
    host: str = ""
    port: int = 0
    device: str = ""
    baud: int = DEFAULT_BAUD
    parity: str = "N"
    stopbits: int = 1
    bytesize: int = 8
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    unit: int | None = None

    @property
    def key(self) -> str:
        return f"tcp://{self.host}:{self.port}" if self.kind == "tcp" else f"rtu://{self.device}"


def parse_url(url: str) -> BusConfig:
    """Parse a device URL (see the module docstring)."""
    if url.startswith("/"):
        url = "rtu://" + url
    parts = urlsplit(url)
    q = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    common: dict[str, Any] = {}
    try:
        if "timeout" in q:
            common["timeout"] = float(q["timeout"])
        if "retries" in q:
            common["retries"] = int(q["retries"])
        if "unit" in q:
            common["unit"] = int(q["unit"])
        if parts.scheme == "tcp":
            if not parts.hostname or not parts.port:
                raise ValueError("tcp URL needs host and port")
            return BusConfig("tcp", host=parts.hostname, port=parts.port, **common)
        if parts.scheme == "rtu":
            if not parts.path:
                raise ValueError("rtu URL needs a device path")
            parity = q.get("parity", "N").upper()
            if parity not in ("N", "E", "O"):
                raise ValueError(f"parity {parity!r}")
            return BusConfig("rtu", device=parts.path, baud=int(q.get("baud", DEFAULT_BAUD)), parity=parity,
                             stopbits=int(q.get("stopbits", 1)), bytesize=int(q.get("bytesize", 8)), **common)
    except ValueError as exc:
        raise ValueError(f"bad Modbus URL {url!r}: {exc}") from None
    raise ValueError(f"bad Modbus URL {url!r}: use tcp://host:port, rtu:///dev/tty...?baud=N or /dev/tty...")


class ModbusBus:
    """One Modbus connection, one lock, reconnect with backoff.

    Share a bus between the devices on one serial line with :meth:`shared`
    (same URL, same event loop -> same bus object).
    """

    BACKOFF_MIN = 0.1
    BACKOFF_MAX = 2.0

    _shared: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, ModbusBus]]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, url: str | BusConfig) -> None:
        self.config = parse_url(url) if isinstance(url, str) else url
        self.name = self.config.key
        self._lock = asyncio.Lock()
        self._client: AsyncModbusTcpClient | AsyncModbusSerialClient | None = None
        self._backoff = 0.0
        self._next_connect = 0.0
        self._down_logged = False
        self._users = 0
        self._closed = False

    @classmethod
    def shared(cls, url: str | BusConfig) -> ModbusBus:
        cfg = parse_url(url) if isinstance(url, str) else url
        buses = cls._shared.setdefault(asyncio.get_running_loop(), {})
        bus = buses.get(cfg.key)
        if bus is None or bus._closed:
            bus = buses[cfg.key] = cls(cfg)
        bus._users += 1
        return bus

    def release(self) -> None:
        """Drop one user of a shared bus; the last one closes it."""
        self._users -= 1
        if self._users <= 0:
            for buses in self._shared.values():
                if buses.get(self.name) is self:
                    del buses[self.name]
            self.close()

    def close(self) -> None:
        self._closed = True
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def deadline(self) -> float:
        """Longest a single transaction may take before it is given up."""
        return self.config.timeout * (self.config.retries + 1) + 0.5

    def _make_client(self) -> AsyncModbusTcpClient | AsyncModbusSerialClient:
        c = self.config
        if c.kind == "tcp":
            return AsyncModbusTcpClient(c.host, port=c.port, timeout=c.timeout, retries=c.retries,
                                        reconnect_delay=0, name=self.name)
        return AsyncModbusSerialClient(c.device, framer=FramerType.RTU, baudrate=c.baud, parity=c.parity,
                                       stopbits=c.stopbits, bytesize=c.bytesize, timeout=c.timeout,
                                       retries=c.retries, reconnect_delay=0, name=self.name)

    async def _ensure_connected(self) -> None:
        if self._closed:
            raise DeviceOffline(self.name, "bus closed")
        if self._client is not None and self._client.connected:
            return
        now = time.monotonic()
        if now < self._next_connect:
            raise DeviceOffline(self.name, f"not connected (next attempt in {self._next_connect - now:.1f} s)")
        if self._client is None:
            self._client = self._make_client()
        ok = False
        try:
            ok = await asyncio.wait_for(self._client.connect(), self.config.timeout + 1.0)
        except (TimeoutError, OSError, ModbusException) as exc:
            log.debug("modbus connect error", bus=self.name, error=str(exc))
        if not ok:
            self._backoff = min(max(self._backoff * 2, self.BACKOFF_MIN), self.BACKOFF_MAX)
            self._next_connect = time.monotonic() + self._backoff
            if not self._down_logged:
                self._down_logged = True
                log.warning("modbus bus cannot connect; retrying with backoff", bus=self.name)
            raise DeviceOffline(self.name, "cannot connect")
        self._backoff = 0.0
        if self._down_logged:
            self._down_logged = False
            log.info("modbus bus connected again", bus=self.name)

    async def request(self, what: str, fn: Callable[[Any], Awaitable[Any]]) -> Any:
        """Run ``fn(client)`` (one Modbus request) under the bus lock.

        Raises :class:`DeviceOffline` when there is no answer, and
        :class:`DeviceProtocolError` for an exception reply.
        """
        async with self._lock:
            await self._ensure_connected()
            assert self._client is not None
            try:
                # asyncio.timeout, not wait_for: wait_for (Python 3.11) runs the request in a task of its
                # own, two more turns of the event loop per request, the most of a poll's cost
                async with asyncio.timeout(self.deadline):
                    rr = await fn(self._client)
            except (TimeoutError, ConnectionException, OSError) as exc:
                raise DeviceOffline(self.name, f"no answer to {what}") from exc
            except ModbusException as exc:  # ModbusIOException: no response after the retries
                raise DeviceOffline(self.name, f"no answer to {what}: {exc}") from exc
        if rr.isError():
            code = getattr(rr, "exception_code", None)
            raise DeviceProtocolError(self.name, f"{what} refused with Modbus exception code {code}")
        return rr


# --------------------------------------------------------------------------
# a device on a bus
# --------------------------------------------------------------------------


class ModbusDevice(DeviceHealth):
    """Base of a polled Modbus device (one unit id on one bus).

    Life cycle: construct it inside the running event loop, ``await
    dev.start()`` (polls once, then keeps polling in its own task), ``await
    dev.close()``; or ``async with Driver(url) as dev``.  Drivers given the same
    URL share one :class:`ModbusBus`.  Health: :class:`drivers.health.DeviceHealth`.
    """

    MAP: DeviceMap
    POLL_INTERVAL = 0.1

    def __init__(self, target: str | ModbusBus, *, unit: int | None = None, poll_interval: float | None = None,
                 heartbeat_stale_after: float = 1.5, offline_after: int = 2, name: str | None = None) -> None:
        if isinstance(target, ModbusBus):
            self.bus = target
            self._owns_bus = False
        else:
            self.bus = ModbusBus.shared(target)
            self._owns_bus = True
        self.unit = unit if unit is not None else (self.bus.config.unit or self.MAP.default_unit)
        self.name = name or f"{self.MAP.name}@{self.bus.name}#{self.unit}"
        super().__init__()
        self.poll_interval = poll_interval if poll_interval is not None else self.POLL_INTERVAL
        self.heartbeat_stale_after = heartbeat_stale_after
        self.offline_after = offline_after
        self._failures = 0
        self._heartbeat: int | None = None
        self._heartbeat_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._log = log.bind(device=self.name)

    # ---- health (drivers.health.DeviceHealth) ---------------------------

    def _note_ok(self) -> None:
        self._failures = 0

    def _note_failure(self, exc: DeviceError) -> None:
        if isinstance(exc, DeviceOffline):
            self._failures += 1
            if self._failures >= self.offline_after:
                self._set_health(Health.OFFLINE, str(exc))
            elif self._health is Health.ONLINE:
                self._set_health(Health.DEGRADED, str(exc))
        elif self._health is Health.ONLINE:
            self._set_health(Health.DEGRADED, str(exc))
        else:
            self._set_health(self._health, str(exc))  # same state, better reason

    def _note_heartbeat(self, value: int, version: int | None = None) -> None:
        """Record a heartbeat reading (from a successful poll) and set health."""
        now = time.monotonic()
        if version is not None and version != PROTOCOL_VERSION:
            self._set_health(Health.OFFLINE, f"device speaks protocol version {version}, "
                                             f"driver expects {PROTOCOL_VERSION}")
            return
        if value != self._heartbeat:
            self._heartbeat = value
            self._heartbeat_at = now
        if now - self._heartbeat_at > self.heartbeat_stale_after:
            self._set_health(Health.OFFLINE, f"heartbeat stale (unchanged for {now - self._heartbeat_at:.1f} s)")
        else:
            self._set_health(Health.ONLINE, "answering, heartbeat running")

    def _require_online(self) -> None:
        if self._health is Health.OFFLINE:
            raise DeviceOffline(self.name, f"offline: {self._health_reason}")

    # ---- life cycle -----------------------------------------------------

    async def start(self) -> None:
        """Poll once (so health is known on return), then poll in a task."""
        if self._task is not None:
            return
        self._heartbeat_at = time.monotonic()
        await self._poll_safely()
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"poll {self.name}")

    async def close(self) -> None:
        if self._task is not None:
            await stop_task(self._task)
            self._task = None
        if self._owns_bus:
            self._owns_bus = False
            self.bus.release()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._interval())
            await self._poll_safely()

    def _poll_every(self) -> float:
        """The device's poll interval now (a subclass may choose it by the device's state)."""
        return self.poll_interval

    def _interval(self) -> float:
        """Seconds until the next poll: the device's interval, but sooner when the last poll got no answer
        or the heartbeat turns stale before then, so a device that stops answering or whose heartbeat
        freezes goes OFFLINE as soon as a slower poll allows (docs/protocols-modbus.md §3, §6)."""
        interval = self._poll_every()
        if self._failures:
            return min(interval, RETRY_INTERVAL)
        stale_in = self._heartbeat_at + self.heartbeat_stale_after - time.monotonic()
        if 0 <= stale_in < interval:
            return stale_in + STALE_MARGIN
        return interval

    async def _poll_safely(self) -> None:
        try:
            await self._poll()
        except DeviceError:
            pass  # recorded by _io
        except Exception:  # noqa: BLE001 - a driver bug must not end the poll task; logged
            self._log.exception("poll failed unexpectedly")
            self._set_health(Health.DEGRADED, "driver error while polling")

    async def identity(self) -> str:
        """Unit id, register map version and heartbeat, read now."""
        heartbeat, version = await self.read_regs(Table.INPUT_REGISTER, 0, 2, command=False)
        return f"Modbus unit {self.unit}, register map version {version}, heartbeat {heartbeat}"

    async def _poll(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---- I/O --------------------------------------------------------------

    async def _io(self, what: str, fn: Callable[[Any], Awaitable[Any]], *, command: bool) -> Any:
        """One transaction; ``command=True`` refuses up front when OFFLINE."""
        if command:
            self._require_online()
        try:
            rr = await self.bus.request(what, fn)
        except DeviceError as exc:
            self._note_failure(exc)
            raise
        self._note_ok()
        return rr

    async def read_bits(self, table: Table, address: int, count: int, *, command: bool = True) -> list[bool]:
        unit = self.unit
        if table is Table.COIL:
            rr = await self._io(f"read coils {address}+{count}",
                                lambda c: c.read_coils(address, count=count, device_id=unit), command=command)
        elif table is Table.DISCRETE_INPUT:
            rr = await self._io(f"read discrete inputs {address}+{count}",
                                lambda c: c.read_discrete_inputs(address, count=count, device_id=unit),
                                command=command)
        else:
            raise ValueError(table)
        bits = list(rr.bits[:count])
        if len(bits) != count:
            raise self._bad_reply(f"short reply: {len(bits)} of {count} bits")
        return bits

    async def read_regs(self, table: Table, address: int, count: int, *, command: bool = True) -> list[int]:
        unit = self.unit
        if table is Table.HOLDING_REGISTER:
            rr = await self._io(f"read holding registers {address}+{count}",
                                lambda c: c.read_holding_registers(address, count=count, device_id=unit),
                                command=command)
        elif table is Table.INPUT_REGISTER:
            rr = await self._io(f"read input registers {address}+{count}",
                                lambda c: c.read_input_registers(address, count=count, device_id=unit),
                                command=command)
        else:
            raise ValueError(table)
        regs = list(rr.registers)
        if len(regs) != count:
            raise self._bad_reply(f"short reply: {len(regs)} of {count} registers")
        return regs

    async def write_coils(self, address: int, values: list[bool]) -> None:
        unit = self.unit
        if len(values) == 1:
            await self._io(f"write coil {address}",
                           lambda c: c.write_coil(address, values[0], device_id=unit), command=True)
        else:
            await self._io(f"write coils {address}+{len(values)}",
                           lambda c: c.write_coils(address, values, device_id=unit), command=True)

    async def write_regs(self, address: int, values: list[int]) -> None:
        unit = self.unit
        if len(values) == 1:
            await self._io(f"write register {address}",
                           lambda c: c.write_register(address, values[0], device_id=unit), command=True)
        else:
            await self._io(f"write registers {address}+{len(values)}",
                           lambda c: c.write_registers(address, values, device_id=unit), command=True)

    async def read_point(self, name: str) -> int | bool:
        p: Point = self.MAP[name]
        if p.table.is_bits:
            return (await self.read_bits(p.table, p.address, 1))[0]
        regs = await self.read_regs(p.table, p.address, p.width)
        return regs_to_u32(*regs) if p.kind == "u32" else regs[0]

    async def write_point(self, name: str, value: int | bool) -> None:
        p: Point = self.MAP[name]
        if p.table is Table.COIL:
            await self.write_coils(p.address, [bool(value)])
        elif p.table is Table.HOLDING_REGISTER:
            await self.write_regs(p.address, u32_to_regs(int(value)) if p.kind == "u32" else [int(value)])
        else:
            raise ValueError(f"{name} is read-only ({p.table.value})")

    def _bad_reply(self, text: str) -> DeviceProtocolError:
        exc = DeviceProtocolError(self.name, text)
        self._note_failure(exc)
        return exc

"""The device seam: what every driver is (:class:`Device`) and which device types exist (:data:`DEVICE_TYPES`).

Adding a device type is three things (docs/new-device.md): its driver (a
subclass of ``drivers.serial_link.SerialDevice`` or ``drivers.modbus.ModbusDevice``,
so it is a :class:`Device` with the one health implementation of
``drivers.health``), its simulator (``simulators/NAME.py``, serving the control
protocol of ``simulators.control``), and one :class:`DeviceType` entry below.
``tablectl sim / watch / inject`` and ``tablectl check-config --devices``
read this registry; so do the tests' device helpers.

The registry names modules, not classes: reading it imports no device stack
(pymodbus, pyserial), so ``tablectl`` starts fast; :meth:`DeviceType.driver`
imports the driver when it is needed.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, Self, cast, runtime_checkable
from urllib.parse import urlsplit

from drivers.health import Health, HealthListener


@runtime_checkable
class Device(Protocol):
    """What the controller may rely on for any device: its life cycle, its health, who it is.

    Device-specific commands (deal a stack, set the lock-out, read presses)
    are the driver's own; this is the part every driver shares.
    """

    name: str

    async def start(self) -> None:
        """Begin talking to the device (returns at once; the health says when it answers)."""

    async def close(self) -> None:
        """Stop every task of the driver and release its port; the health ends OFFLINE."""

    @property
    def health(self) -> Health: ...

    @property
    def health_reason(self) -> str: ...

    def add_health_listener(self, callback: HealthListener) -> Callable[[], None]: ...

    async def wait_health(self, *states: Health, timeout: float | None = None) -> Health: ...

    async def identity(self) -> str:
        """Who the device says it is (kind, protocol or map version), asked now."""
        ...

    async def __aenter__(self) -> Self:
        """``async with driver:`` starts it and closes it at the end."""
        ...

    async def __aexit__(self, *exc: object) -> None: ...


class Link(enum.Enum):
    """How a device is reached, and so which URLs name it."""

    SERIAL = "serial"  # the framed serial link of docs/protocols-serial.md
    MODBUS = "modbus"  # Modbus RTU or TCP, docs/protocols-modbus.md

    @property
    def url_help(self) -> str:
        if self is Link.SERIAL:
            return "socket://HOST:PORT or /dev/tty..."
        return "tcp://HOST:PORT or rtu:///dev/tty...?baud=N"

    def endpoint(self, url: str) -> tuple[str, str]:
        """("device", path) for a serial port, ("host", name) for a network device."""
        if self is Link.SERIAL:
            return ("device", url) if url.startswith("/dev/") else ("host", urlsplit(url).hostname or "")
        from drivers.modbus import parse_url

        bus = parse_url(url)
        return ("device", bus.device) if bus.kind == "rtu" else ("host", bus.host)


@dataclass(frozen=True)
class DeviceType:
    """One kind of device the table can have."""

    name: str  # the word everywhere: `devices.NAME` in the configuration, `tablectl sim NAME`
    title: str  # how the dealer and the log name it ("dealer panel")
    link: Link
    driver_path: str  # "module:Class" of the driver
    simulator: str  # the simulator's module (`python -m simulators.NAME`)

    @property
    def config_key(self) -> str:
        """The configuration key holding the device's URL (env: ``TABLE_DEVICES__NAME``)."""
        return f"devices.{self.name}"

    def driver(self) -> Callable[..., Device]:
        """The driver class (imported now): ``driver()(url, **options)`` is a :class:`Device`."""
        module, _, cls = self.driver_path.partition(":")
        return cast("Callable[..., Device]", getattr(importlib.import_module(module), cls))


DEVICE_TYPES: tuple[DeviceType, ...] = (
    DeviceType("shuffler", "shuffler", Link.SERIAL, "drivers.shuffler:Shuffler", "simulators.shuffler"),
    DeviceType("shoe", "shoe", Link.SERIAL, "drivers.shoe:Shoe", "simulators.shoe"),
    DeviceType("progressive", "progressive system", Link.MODBUS, "drivers.progressive:ProgressiveDriver",
               "simulators.progressive"),
    DeviceType("panel", "dealer panel", Link.MODBUS, "drivers.panel:PanelDriver", "simulators.panel"),
)
DEVICES: dict[str, DeviceType] = {t.name: t for t in DEVICE_TYPES}
#: each device by its title (web/words.py): qualified, ``device.progressive`` (the wager is ``progressive``)
WORDS: dict[str, str] = {f"device.{t.name}": t.title[:1].upper() + t.title[1:] for t in DEVICE_TYPES}


def device_type(name: str) -> DeviceType:
    """The registry entry of ``name``; KeyError naming the known ones otherwise."""
    try:
        return DEVICES[name]
    except KeyError:
        raise KeyError(f"no device type {name!r}; known: {', '.join(DEVICES)}") from None

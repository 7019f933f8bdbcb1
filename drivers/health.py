"""What every device driver shares: its health, and the errors a command can fail with.

Every driver (serial: ``drivers.serial_link.SerialDevice``; Modbus:
``drivers.modbus.ModbusDevice``) offers the same watch API, so the daemon
watches all devices one way:

* ``health`` -- ONLINE, DEGRADED or OFFLINE; ``health_reason`` -- why, in words;
* ``add_health_listener(callback)`` -- ``callback(health, reason)`` on every
  change; returns a function that removes it;
* ``await wait_health(*states, timeout=None)`` -- until the health is one of ``states``.

Commands of an OFFLINE device raise ``DeviceOffline`` at once: nothing is
queued for later and nothing is invented.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable


class Health(enum.Enum):
    ONLINE = "online"  # answering, last exchange clean, no fault latched
    DEGRADED = "degraded"  # answering, but the last exchange needed a retry or a fault is latched
    OFFLINE = "offline"  # not answering / port closed; commands raise DeviceOffline


HealthListener = Callable[[Health, str], None]


class DeviceError(Exception):
    """Anything a device command can fail with."""

    def __init__(self, device: str, message: str) -> None:
        super().__init__(f"{device}: {message}")
        self.device = device


class DeviceOffline(DeviceError):
    """The device does not answer (or its port is closed): nothing was done or nothing is known."""


class ProtocolError(DeviceError):
    """The device sent something this driver cannot read (wrong kind, bad payload, bad card code)."""


async def stop_task(task: asyncio.Task) -> None:
    """Cancel a driver's task and wait until it has really ended.

    On Python 3.11 ``asyncio.wait_for`` can swallow a cancellation that arrives
    together with a reply (fixed in 3.12), so one ``cancel()`` may not end a poll
    loop: cancel again until the task is done.
    """
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=0.5)
    if not task.cancelled():
        task.exception()  # retrieved: a crash of the task is not reported as "never retrieved"

"""What every device driver shares: its health, the errors a command can fail with, stopping a task.

Every driver (serial: ``drivers.serial_link.SerialDevice``; Modbus:
``drivers.modbus.ModbusDevice``) is a :class:`DeviceHealth`, so the daemon
watches all devices one way (``drivers.device.Device`` is the whole seam):

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
from typing import Any

import structlog

log = structlog.get_logger(__name__)


class Health(enum.Enum):
    ONLINE = "online"  # answering, last exchange clean, no fault latched
    DEGRADED = "degraded"  # answering, but the last exchange needed a retry or a fault is latched
    OFFLINE = "offline"  # not answering / port closed; commands raise DeviceOffline


#: each health in a person's words (the screens' words, web/words.py)
WORDS: dict[str, str] = {
    Health.ONLINE.value: "Online", Health.DEGRADED.value: "Degraded", Health.OFFLINE.value: "Offline",
}

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


class DeviceHealth:
    """The one health implementation of every driver: the state, its reason, listeners, waiters.

    A driver base calls :meth:`_set_health` when it learns something; it
    overrides :meth:`_log_health` to say a change in its own words (once per
    change, never once per retry).  Listeners and waiters are told only of a
    change of state; a new reason for the same state is kept, not announced.
    """

    name: str

    def __init__(self, reason: str = "not started") -> None:
        self._health = Health.OFFLINE
        self._health_reason = reason
        self._health_listeners: list[HealthListener] = []
        self._health_waiters: list[tuple[frozenset[Health], asyncio.Future[Health]]] = []

    @property
    def health(self) -> Health:
        return self._health

    @property
    def health_reason(self) -> str:
        return self._health_reason

    def add_health_listener(self, callback: HealthListener) -> Callable[[], None]:
        """Call ``callback(health, reason)`` on every change of health; returns a function that removes it."""
        self._health_listeners.append(callback)

        def remove() -> None:
            if callback in self._health_listeners:
                self._health_listeners.remove(callback)

        return remove

    async def wait_health(self, *states: Health, timeout: float | None = None) -> Health:
        """Wait until the health is one of ``states``; return it (``TimeoutError`` after ``timeout`` s)."""
        if self._health in states:
            return self._health
        fut: asyncio.Future[Health] = asyncio.get_running_loop().create_future()
        entry = (frozenset(states), fut)
        self._health_waiters.append(entry)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            if entry in self._health_waiters:
                self._health_waiters.remove(entry)

    def _set_health(self, health: Health, reason: str) -> None:
        """Record ``health`` and why; on a change, log it and tell the listeners and waiters."""
        old = self._health
        self._health_reason = reason
        if health is old:
            return
        self._health = health
        self._log_health(old, health, reason)
        for callback in list(self._health_listeners):
            try:
                callback(health, reason)
            except Exception:  # a listener's bug must not take the driver down
                log.exception("health listener failed", device=self.name)
        for states, fut in list(self._health_waiters):
            if health in states and not fut.done():
                fut.set_result(health)

    def _log_health(self, old: Health, new: Health, reason: str) -> None:
        """Say a change of health (overridden by the bases to add what they know)."""
        if new is Health.ONLINE:
            log.info("device online", device=self.name, was=old.value)
        elif new is Health.DEGRADED:
            log.warning("device degraded", device=self.name, reason=reason)
        else:
            log.error("device offline", device=self.name, reason=reason)


async def stop_task(task: asyncio.Future[Any], *, cancel: bool = True, wait: float = 0.5,
                    attempts: int | None = None) -> bool:
    """Cancel ``task`` and wait until it has really ended; False if it did not within ``attempts`` waits.

    On Python 3.11 ``asyncio.wait_for`` can swallow a cancellation that arrives
    together with a reply (fixed in 3.12), and the drivers' I/O runs under it:
    one ``cancel()`` may not end a poll loop, so cancel again every ``wait``
    seconds while it lingers.  ``cancel=False`` first waits for a task that is
    ending by itself (a driver's ``close()``) and cancels only if it lingers.
    ``attempts=None`` waits as long as it takes.
    """
    if cancel:
        task.cancel()
    waited = 0
    while not task.done():
        if attempts is not None and waited >= attempts:
            return False
        await asyncio.wait({task}, timeout=wait)
        waited += 1
        if not task.done():
            task.cancel()
    if not task.cancelled():
        task.exception()  # retrieved: a crash of the task is not reported as "never retrieved"
    return True

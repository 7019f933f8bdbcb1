"""The ``[devices]`` section: which devices the table talks to, and where.

Owns the device addresses (serial: ``/dev/...`` or ``socket://HOST:PORT``; Modbus: checked by the
driver's own parser) and the check that the devices every round needs are configured (P46).
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, BeforeValidator
from pydantic_core import PydanticCustomError

from controller.config.values import STRICT, Add

_SERIAL_URL = re.compile(r"(/dev/[^\s?]+|socket://[^\s:/]+:\d{1,5})")


def _serial_url(value: object) -> str | None:
    """A serial device (shuffler, shoe): ``/dev/...`` or ``socket://HOST:PORT`` (docs/protocols-serial.md §1)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _SERIAL_URL.fullmatch(value) or not _port_ok(value):
        raise PydanticCustomError(
            "url",
            "must be a serial port such as /dev/ttyUSB0 or socket://HOST:PORT, not {value!r}",
            {"value!r": repr(value)},
        )
    return value


def _modbus_url(value: object) -> str | None:
    """A Modbus device (progressive, panel): ``tcp://HOST:PORT``, ``rtu:///dev/...`` or ``/dev/...``.

    Checked by the driver's own parser (docs/protocols-modbus.md §1), so that
    what loads here is what the driver opens.
    """
    if value is None:
        return None
    from drivers.modbus import parse_url  # the daemon imports the drivers anyway

    if not isinstance(value, str):
        raise PydanticCustomError("url", "must be a Modbus URL string")
    try:
        cfg = parse_url(value)
    except ValueError as exc:
        raise PydanticCustomError("url", "{msg}", {"msg": str(exc)}) from None
    if cfg.kind == "rtu" and not cfg.device.startswith("/dev/"):
        raise PydanticCustomError(
            "url", "bad Modbus URL {value!r}: the serial device must be under /dev/", {"value!r": repr(value)}
        )
    if cfg.kind == "tcp" and not 0 < cfg.port < 65536:  # pragma: no cover - urlsplit refuses these
        raise PydanticCustomError("url", "bad port in {value!r}", {"value!r": repr(value)})
    return value


def _port_ok(url: str) -> bool:
    if url.startswith("socket://"):
        return 0 < int(url.rsplit(":", 1)[1]) < 65536
    return True


SerialUrl = Annotated[str | None, BeforeValidator(_serial_url)]
ModbusUrl = Annotated[str | None, BeforeValidator(_modbus_url)]


class DevicesConfig(BaseModel):
    model_config = STRICT

    shuffler: SerialUrl = None
    shoe: SerialUrl = None
    progressive: ModbusUrl = None
    panel: ModbusUrl = None

    @property
    def automated_shuffler(self) -> bool:
        """An automated card shuffling device is used exactly when one is configured: the controller only
        knows the devices it talks to (docs/configuration.md)."""
        return self.shuffler is not None


def check_devices(devices: DevicesConfig, add: Add) -> None:
    """The devices every round needs (P46): the dealer drives the round from the panel; every wager is
    read from the bet sensors, which are on the progressive table game system's unit (P37)."""
    if devices.panel is None:
        add("devices.panel", "required: the dealer's button panel is how every round is driven (P46)")
    if devices.progressive is None:
        add("devices.progressive", "required: the bet sensors every wager is read from are on the progressive "
            "system's unit, with or without the Progressive wager (P37, P46)")

"""The messages of the serial devices (shuffler, dealing shoe): what both ends of the link say.

The frame types common to both devices (HELLO, STATUS, ERROR, the link's ACK and
NAK), the fault bits and error codes of their replies, the exceptions a driver
raises for them, and the checks on a reply's header (docs/protocols-serial.md).
No I/O: the link (:mod:`drivers.frame_link`), the driver base
(:mod:`drivers.serial_link`) and the simulators all read their words here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, Protocol

from drivers.framing import Frame
from drivers.health import DeviceError, ProtocolError

# Frame types and constants common to both serial devices (docs/protocols-serial.md)

PROTOCOL_VERSION = 1
BAUDRATE = 115200

ACK = 0x01
NAK = 0x02
HELLO = 0x10  # controller -> device: protocol version (1 byte)
STATUS_REQ = 0x11  # controller -> device: no payload
REPLY_FLAG = 0x80  # types >= 0x80 are replies; payload[0] is the SEQ of the command answered
HELLO_REPLY = 0x90  # ref, device kind, protocol version, boot id (u16)
STATUS_REPLY = 0x91  # ref, state, faults, device-specific bytes
ERROR_REPLY = 0x9F  # ref, error code, detail (u16)

KIND_SHUFFLER = 1
KIND_SHOE = 2
KIND_NAMES = {KIND_SHUFFLER: "shuffler", KIND_SHOE: "shoe"}


class ErrorCode(enum.IntEnum):
    JAM = 1  # detail: card position where the jam happened (0 = during a shuffle)
    SHUFFLE_INCOMPLETE = 2
    DOOR_OPEN = 3
    COUNT_WRONG = 4  # detail: number of cards counted
    EMPTY = 5  # detail: cards left
    UNREADABLE = 6  # detail: card position
    NOT_READY = 7  # the command needs a state the device is not in
    BAD_REQUEST = 8  # unknown command or malformed payload


class Fault(enum.IntFlag):
    """Fault bits of STATUS_REPLY."""

    NONE = 0
    JAM = 0x01
    DOOR_OPEN = 0x02
    COUNT_WRONG = 0x04
    EMPTY = 0x08


#: Faults that make a device DEGRADED: it answers but needs the dealer.
DEGRADING_FAULTS = Fault.JAM | Fault.DOOR_OPEN | Fault.COUNT_WRONG


# --------------------------------------------------------------------------
# The errors a serial device reports


class DeviceTimeout(DeviceError):
    """The device took the command but sent no reply in time."""


class DeviceFault(DeviceError):
    """An error the device reported (ERROR reply or fault report)."""

    code: ClassVar[ErrorCode | None] = None

    def __init__(self, device: str, message: str, detail: int = 0) -> None:
        super().__init__(device, message)
        self.detail = detail


class JamError(DeviceFault):
    code = ErrorCode.JAM

    @property
    def position(self) -> int:
        """Card position (in the deck or shoe) where the device jammed; 0 during a shuffle."""
        return self.detail


class ShuffleIncompleteError(DeviceFault):
    code = ErrorCode.SHUFFLE_INCOMPLETE


class DoorOpenError(DeviceFault):
    code = ErrorCode.DOOR_OPEN


class CardCountError(DeviceFault):
    """The device counted a number of cards other than a full deck."""

    code = ErrorCode.COUNT_WRONG

    def __init__(self, device: str, message: str, detail: int = 0, deck: str | None = None) -> None:
        super().__init__(device, message, detail)
        self.deck = deck

    @property
    def count(self) -> int:
        return self.detail


class EmptyError(DeviceFault):
    code = ErrorCode.EMPTY


class UnreadableCardError(DeviceFault):
    code = ErrorCode.UNREADABLE

    @property
    def position(self) -> int:
        return self.detail


class NotReadyError(DeviceFault):
    code = ErrorCode.NOT_READY


class BadRequestError(DeviceFault):
    code = ErrorCode.BAD_REQUEST


class DuplicateCardError(DeviceError):
    """A card came out twice from one deck: a card from another deck is in it."""

    def __init__(self, device: str, message: str, card: str, position: int, delivered: object = None) -> None:
        super().__init__(device, message)
        self.card = card
        self.position = position
        self.delivered = delivered  # what the device delivered (a Stack, a CardDrawn)


_FAULT_CLASSES: dict[int, type[DeviceFault]] = {
    cls.code: cls
    for cls in (
        JamError,
        ShuffleIncompleteError,
        DoorOpenError,
        CardCountError,
        EmptyError,
        UnreadableCardError,
        NotReadyError,
        BadRequestError,
    )
    if cls.code is not None
}


def fault_error(device: str, code: int, detail: int) -> DeviceFault:
    """The exception for an error code the device reported."""
    cls = _FAULT_CLASSES.get(code, DeviceFault)
    try:
        name = ErrorCode(code).name.lower().replace("_", " ")
    except ValueError:
        name = f"error code {code}"
    return cls(device, f"device reports {name} (detail {detail})", detail)


# --------------------------------------------------------------------------
# Replies


@dataclass(frozen=True, slots=True)
class HelloInfo:
    kind: int
    version: int
    boot_id: int  # changes each time the device powers up


class DeviceStatus(Protocol):
    """What every serial device's STATUS reply says: its state and its fault bits (each driver reads more)."""

    @property
    def state(self) -> int: ...

    @property
    def faults(self) -> Fault: ...


@dataclass(frozen=True, slots=True)
class StatusHeader:
    state: int
    faults: Fault


def parse_reply_header(device: str, frame: Frame, minimum: int) -> bytes:
    """The payload of a reply, checked to hold at least ``minimum`` bytes (ref included)."""
    if len(frame.payload) < minimum:
        raise ProtocolError(device, f"reply 0x{frame.type:02X} too short ({len(frame.payload)} < {minimum} bytes)")
    return frame.payload


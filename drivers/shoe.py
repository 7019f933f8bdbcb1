"""Driver of the card-reading dealing shoe.

The shoe reports each draw; the controller acknowledges every report and takes each report id once, so a
card drawn while the line was down is reported once it is back, and never twice (docs/protocols-serial.md
§7).  ``Shoe.cards()`` yields each ``CardDrawn``, raises ``JamError``, ``EmptyError``,
``UnreadableCardError`` or ``DuplicateCardError`` for the draws that produced them, and ``DeviceOffline``
when the shoe is offline with no report waiting: it never makes up a card.  The report encoders and decoders
here are ``simulators.shoe``'s too.
"""

from __future__ import annotations

import asyncio
import collections
import enum
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Unpack

import structlog

from drivers.frame_link import LinkClosed, LinkTimeout
from drivers.framing import CARD_FACE_UP, CARD_UNREADABLE, Frame, decode_card
from drivers.health import DeviceError, DeviceOffline, Health, ProtocolError
from drivers.serial_link import SerialDevice, SerialOptions
from drivers.serial_protocol import (
    KIND_SHOE,
    STATUS_REQ,
    DuplicateCardError,
    ErrorCode,
    Fault,
    HelloInfo,
    UnreadableCardError,
    fault_error,
    parse_reply_header,
)

log = structlog.get_logger(__name__)

REPORT_ACK = 0x30
CARD = 0x40
SHOE_FAULT = 0x41
SHOE_LOADED = 0x42


class ShoeState(enum.IntEnum):
    EMPTY = 0
    READY = 1
    FAULT = 2  # jammed: the dealer must clear it


# -- payloads (both ends)


def encode_card_report(rid: int, position: int, code: int, flags: int) -> bytes:
    return struct.pack(">HBBB", rid, position, code, flags)


def encode_fault_report(rid: int, position: int, code: int) -> bytes:
    return struct.pack(">HBB", rid, position, code)


def encode_loaded_report(rid: int, count: int) -> bytes:
    return struct.pack(">HB", rid, count)


def encode_status(state: int, faults: int, position: int, remaining: int) -> bytes:
    return bytes((state, faults, position, remaining))


# -- results


@dataclass(frozen=True, slots=True)
class CardDrawn:
    rank: str  # one of 23456789TJQKA
    suit: str  # one of cdhs
    face_up: bool  # the card came out of the shoe face up
    position: int  # 1-based position in the shoe since it was loaded

    @property
    def card(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:  # hole cards are secret: no value in reprs or logs
        return f"CardDrawn(position={self.position}, face_up={self.face_up})"


@dataclass(frozen=True, slots=True)
class ShoeStatus:
    state: ShoeState
    faults: Fault
    position: int  # cards drawn since loaded
    remaining: int


class Shoe(SerialDevice):
    """``async for card in shoe.cards()``; ``await shoe.next_card()``; ``await shoe.status()``."""

    KIND = KIND_SHOE

    def __init__(self, url: str, **kwargs: Unpack[SerialOptions]) -> None:
        super().__init__(url, **kwargs)
        self._reports: collections.deque[CardDrawn | DeviceError] = collections.deque()
        self._wake = asyncio.Event()
        self._boot_id: int | None = None
        self._last_rid: int | None = None
        self._seen: dict[str, int] = {}  # card -> position, since the shoe was loaded
        self._acks: set[asyncio.Task[None]] = set()
        self.loaded: int | None = None  # cards in the shoe at its last load
        self.loads = 0  # loads reported since the driver started: which deck the positions are of
        self.add_health_listener(lambda health, reason: self._notify())

    @property
    def pending(self) -> int:
        """Cards drawn and reported that nobody has taken yet."""
        return sum(isinstance(item, CardDrawn) for item in self._reports)

    def positions(self) -> dict[str, int]:
        """Each card drawn since the shoe was loaded (``loads``): its position (1-based), as read."""
        return dict(self._seen)

    def cards(self) -> AsyncIterator[CardDrawn]:
        """The cards as they are drawn (see the module docstring for errors)."""
        return _Cards(self)

    async def next_card(self) -> CardDrawn:
        """The next card drawn, waiting for it as long as the shoe is online."""
        while True:
            if self._reports:
                item = self._reports.popleft()
                if isinstance(item, DeviceError):
                    raise item
                return item
            if self.health is Health.OFFLINE:
                raise DeviceOffline(self.name, f"offline ({self.last_error or 'not connected'}): no card to report")
            wake = self._wake
            await wake.wait()

    async def status(self) -> ShoeStatus:
        frame = await self._exchange(STATUS_REQ)
        body = parse_reply_header(self.name, frame, 5)
        try:
            state = ShoeState(body[1])
        except ValueError:
            raise ProtocolError(self.name, f"unknown shoe state {body[1]}") from None
        return ShoeStatus(state, Fault(body[2]), body[3], body[4])

    async def close(self) -> None:
        for task in list(self._acks):
            task.cancel()
        await super().close()

    # -- internals

    def _notify(self) -> None:
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()

    def _put(self, item: CardDrawn | DeviceError) -> None:
        self._reports.append(item)
        self._notify()

    def _on_hello(self, hello: HelloInfo) -> None:
        if hello.boot_id != self._boot_id:
            if self._boot_id is not None:
                log.warning("shoe restarted: report ids start again", device=self.name)
            self._boot_id = hello.boot_id
            self._last_rid = None

    def _on_event(self, frame: Frame) -> None:
        minimum = {CARD: 5, SHOE_FAULT: 4, SHOE_LOADED: 3}.get(frame.type)
        if minimum is None:
            super()._on_event(frame)
            return
        if self._link is None or self._hello_link is not self._link:
            # sent before this session began: not acknowledged, so the shoe sends it again after HELLO
            log.debug("report before HELLO ignored", device=self.name, type=frame.type)
            return
        payload = frame.payload
        if len(payload) < minimum:
            log.warning("short report dropped", device=self.name, type=frame.type, length=len(payload))
            return
        rid = struct.unpack_from(">H", payload)[0]
        self._ack(rid)
        last = self._last_rid
        if last is not None:
            ahead = (rid - last) & 0xFFFF
            if ahead == 0 or ahead >= 0x8000:
                log.debug("repeated report dropped", device=self.name, rid=rid)
                return
            if ahead > 1:
                self._put(ProtocolError(self.name, f"{ahead - 1} report(s) lost before report {rid}"))
        self._last_rid = rid
        if frame.type == SHOE_LOADED:
            self.loaded = payload[2]
            self.loads += 1
            self._seen = {}
            # A new deck: cards of the old one that nobody took are not this deck's cards.
            stale = sum(isinstance(item, CardDrawn) for item in self._reports)
            self._reports = collections.deque(i for i in self._reports if not isinstance(i, CardDrawn))
            if stale:
                log.warning("cards of the previous deck dropped at reload", device=self.name, cards=stale)
            self._faults &= ~(Fault.JAM | Fault.EMPTY)
            self._update_health()
            log.info("shoe loaded", device=self.name, cards=self.loaded)
            return
        position = payload[2]
        if frame.type == SHOE_FAULT:
            code = payload[3]
            latched: dict[int, Fault] = {ErrorCode.JAM: Fault.JAM, ErrorCode.EMPTY: Fault.EMPTY}
            self._faults |= latched.get(code, Fault.NONE)
            self._update_health()
            err = fault_error(self.name, code, position)
            log.warning("shoe fault", device=self.name, error=str(err), position=position)
            self._put(err)
            return
        code, flags = payload[3], payload[4]
        if self._faults & Fault.JAM:  # a card came out: the jam is cleared
            self._faults &= ~Fault.JAM
            self._update_health()
        if flags & CARD_UNREADABLE:
            log.warning("unreadable card", device=self.name, position=position)
            self._put(UnreadableCardError(self.name, f"card at position {position} unreadable", position))
            return
        try:
            text = decode_card(code)
        except ValueError as exc:
            self._put(ProtocolError(self.name, f"position {position}: {exc}"))
            return
        drawn = CardDrawn(text[0], text[1], bool(flags & CARD_FACE_UP), position)
        # Card values are secret until the rules reveal them: never logged, not even at debug level.
        log.debug("card drawn", device=self.name, position=position, face_up=drawn.face_up)
        seen = self._seen.get(text)
        if seen is not None:
            self._put(
                DuplicateCardError(
                    self.name,
                    f"the card at position {position} was already drawn at position {seen}",
                    text,
                    position,
                    drawn,
                )
            )
            return
        self._seen[text] = position
        if drawn.face_up:
            log.info("card drawn face up", device=self.name, position=position)
        self._put(drawn)

    def _ack(self, rid: int) -> None:
        link = self._link
        if link is None:
            return

        async def send() -> None:
            try:
                await link.send(REPORT_ACK, struct.pack(">H", rid))
            except (LinkTimeout, LinkClosed) as exc:
                self._link_failed(link, f"device does not answer ({exc})")

        task = asyncio.get_running_loop().create_task(send())
        self._acks.add(task)
        task.add_done_callback(self._acks.discard)


class _Cards:
    def __init__(self, shoe: Shoe) -> None:
        self._shoe = shoe

    def __aiter__(self) -> _Cards:
        return self

    async def __anext__(self) -> CardDrawn:
        return await self._shoe.next_card()

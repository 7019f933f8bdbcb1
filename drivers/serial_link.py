"""The serial link shared by the shuffler and the dealing shoe.

Three layers, each usable on its own:

* :class:`FrameLink` -- an :class:`asyncio.Protocol` that turns a byte
  stream into reliable, in-order messages: stop-and-wait ARQ over the frames
  of :mod:`drivers.framing`.  Every data frame is acknowledged (ACK with the
  same sequence number); a frame with a plausible header but a bad CRC is
  answered with a NAK so the sender repeats at once; an unacknowledged frame
  is repeated after ``ack_timeout``, at most ``max_retries`` times, then the
  send fails with :class:`LinkTimeout`.  A repeated frame (same sequence
  number as the last one accepted) is acknowledged again but not delivered
  twice.  HELLO opens a new session: it is always delivered and resets the
  duplicate filter.  The simulators run the very same class on their side.
* the protocol constants common to both devices (HELLO, STATUS, ERROR,
  fault bits, error codes) and the exceptions a driver raises;
* :class:`SerialDevice` -- the driver base: one supervisor task per device
  that opens the port by URL, says HELLO, polls STATUS while idle, keeps a
  health state, and reconnects with exponential backoff.  Commands are
  request/reply: a reply carries the sequence number of the command it
  answers, so a late reply to an abandoned command is never taken for the
  answer to a new one.

Transport: ``serial_asyncio_fast`` (pyserial-asyncio-fast) on top of
pyserial's ``serial_for_url``.  It gives a proper asyncio transport for a
real port (non-blocking reads through the event loop's reader, buffered
non-blocking writes, the port opened and closed in an executor so the loop
never blocks) and for ``socket://`` URLs uses asyncio's own TCP transport, so
``connection_lost`` fires when the device goes away in both cases -- which
is what the reconnect logic needs.  Writing that transport again with
``loop.add_reader`` would duplicate a well-kept library used by Home
Assistant's Zigbee/Z-Wave stacks.
"""

from __future__ import annotations

import asyncio
import enum
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import structlog

from drivers.framing import BadFrame, Frame, FrameDecoder, encode_frame
from drivers.health import DeviceError as DeviceError  # re-exported: the serial drivers' users take them here
from drivers.health import DeviceHealth, stop_task
from drivers.health import DeviceOffline as DeviceOffline
from drivers.health import Health as Health
from drivers.health import ProtocolError as ProtocolError

log = structlog.get_logger(__name__)

# --------------------------------------------------------------------------
# Protocol constants common to both serial devices (docs/protocols-serial.md)

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
# Health and errors


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
# The link


class LinkClosed(ConnectionError):
    """The port is closed."""


class LinkTimeout(TimeoutError):
    """A frame was not acknowledged after all its retries."""


@dataclass(slots=True)
class LinkStats:
    frames_sent: int = 0  # data frames, first transmissions
    frames_received: int = 0  # data frames delivered
    retransmissions: int = 0
    naks_sent: int = 0
    naks_received: int = 0
    duplicates: int = 0  # repeated data frames dropped (and acknowledged again)
    send_failures: int = 0  # frames given up after all retries


class FrameLink(asyncio.Protocol):
    """Reliable messages over a byte stream (see the module docstring).

    ``on_frame(frame)`` is called, synchronously and in order, for every new
    data frame.  ``send()`` is a coroutine that returns once the frame is
    acknowledged.
    """

    def __init__(
        self,
        on_frame: Callable[[Frame], None],
        *,
        ack_timeout: float = 0.25,
        max_retries: int = 3,
        idle_flush: float = 0.1,
        name: str = "serial",
    ) -> None:
        self._on_frame = on_frame
        self.ack_timeout = ack_timeout
        self.max_retries = max_retries
        self.idle_flush = idle_flush
        self.name = name
        self.decoder = FrameDecoder()
        self.stats = LinkStats()
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.BaseTransport | None = None
        self.connected: asyncio.Future[None] = self._loop.create_future()
        self.lost: asyncio.Future[None] = self._loop.create_future()
        self._send_lock = asyncio.Lock()
        self._tx_seq = 0
        self._rx_last: int | None = None
        self._waiter: tuple[int, asyncio.Future[bool]] | None = None
        self._idle_timer: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        if not self.connected.done():
            self.connected.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        if self._waiter is not None and not self._waiter[1].done():
            self._waiter[1].set_exception(LinkClosed(f"{self.name}: port closed"))
        if not self.connected.done():
            self.connected.set_exception(LinkClosed(f"{self.name}: port closed"))
            self.connected.exception()  # consumed: nobody may be waiting
        if not self.lost.done():
            self.lost.set_result(None)

    def data_received(self, data: bytes) -> None:
        garbage = self.decoder.stats.garbage_bytes
        for item in self.decoder.feed(data):
            self._handle(item)
        self._after_input(garbage)

    # -- public

    @property
    def is_closed(self) -> bool:
        return self.lost.done()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    async def send(self, type_: int, payload: bytes = b"", on_seq: Callable[[int], None] | None = None) -> int:
        """Send one data frame and wait for its ACK; return its sequence number.

        ``on_seq(seq)`` is called before the first transmission, so a caller
        can expect a reply to this frame before it is even written.
        Raises :class:`LinkTimeout` after ``max_retries`` repeats without an
        ACK, :class:`LinkClosed` if the port is or gets closed.
        """
        async with self._send_lock:
            if self._transport is None:
                raise LinkClosed(f"{self.name}: port closed")
            seq = self._tx_seq
            self._tx_seq = (seq + 1) & 0xFF
            if on_seq is not None:
                on_seq(seq)
            frame = encode_frame(seq, type_, payload)
            self.stats.frames_sent += 1
            try:
                for attempt in range(self.max_retries + 1):
                    if self._transport is None:
                        raise LinkClosed(f"{self.name}: port closed")
                    fut: asyncio.Future[bool] = self._loop.create_future()
                    self._waiter = (seq, fut)
                    if attempt:
                        self.stats.retransmissions += 1
                        log.debug("retransmit", link=self.name, seq=seq, type=type_, attempt=attempt)
                    self.write_frame(frame, is_data=True)
                    try:
                        if await asyncio.wait_for(fut, self.ack_timeout):
                            return seq
                    except TimeoutError:
                        continue
                    # NAK: repeat at once
                self.stats.send_failures += 1
                raise LinkTimeout(f"{self.name}: no ACK for frame {seq} after {self.max_retries + 1} transmissions")
            finally:
                self._waiter = None

    # -- overridable: where a frame goes (the simulators inject faults here)

    def write_frame(self, frame: bytes, *, is_data: bool) -> None:
        """Write one encoded frame (``is_data``: a data frame, not an ACK/NAK)."""
        if self._transport is not None:
            self._transport.write(frame)  # type: ignore[attr-defined]

    # -- internals

    def _handle(self, item: Frame | BadFrame) -> None:
        if isinstance(item, BadFrame):
            self.stats.naks_sent += 1
            self.write_frame(encode_frame(item.seq, NAK), is_data=False)
            return
        if item.type == ACK or item.type == NAK:
            waiter = self._waiter
            if waiter is not None and waiter[0] == item.seq and not waiter[1].done():
                if item.type == NAK:
                    self.stats.naks_received += 1
                waiter[1].set_result(item.type == ACK)
            return
        self.write_frame(encode_frame(item.seq, ACK), is_data=False)
        if item.type == HELLO:
            self._rx_last = None
        if item.seq == self._rx_last:
            self.stats.duplicates += 1
            log.debug("duplicate frame dropped", link=self.name, seq=item.seq, type=item.type)
            return
        self._rx_last = item.seq
        self.stats.frames_received += 1
        self._on_frame(item)

    def _after_input(self, garbage_before: int) -> None:
        if self.decoder.stats.garbage_bytes != garbage_before:
            log.debug("bytes discarded", link=self.name, total=self.decoder.stats.garbage_bytes)
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        if self.decoder.pending and self._transport is not None:
            self._idle_timer = self._loop.call_later(self.idle_flush, self._on_idle)

    def _on_idle(self) -> None:
        self._idle_timer = None
        garbage = self.decoder.stats.garbage_bytes
        for item in self.decoder.flush():
            self._handle(item)
        self._after_input(garbage)


# --------------------------------------------------------------------------
# The driver base


@dataclass(frozen=True, slots=True)
class HelloInfo:
    kind: int
    version: int
    boot_id: int  # changes each time the device powers up


@dataclass(frozen=True, slots=True)
class StatusHeader:
    state: int
    faults: Fault


def parse_reply_header(device: str, frame: Frame, minimum: int) -> bytes:
    """The payload of a reply, checked to hold at least ``minimum`` bytes (ref included)."""
    if len(frame.payload) < minimum:
        raise ProtocolError(device, f"reply 0x{frame.type:02X} too short ({len(frame.payload)} < {minimum} bytes)")
    return frame.payload


class SerialDevice(DeviceHealth):
    """Base of the serial device drivers: connection, health (:class:`drivers.health.DeviceHealth`), request/reply.

    Use as ``async with Shuffler(url) as dev: await dev.wait_health(Health.ONLINE)``
    or call :meth:`start` / :meth:`close`.  One supervisor task per device
    owns the port: it connects, says HELLO, polls STATUS every
    ``poll_interval`` seconds of idleness, and when the device stops
    answering or the port closes, marks the device OFFLINE and reconnects
    with exponential backoff (``backoff_min`` doubling up to ``backoff_max``).

    Commands called while the device is OFFLINE raise :class:`DeviceOffline`
    at once; nothing is queued for later and nothing is invented.
    """

    KIND: ClassVar[int] = 0

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        baudrate: int = BAUDRATE,
        ack_timeout: float = 0.25,
        max_retries: int = 3,
        reply_timeout: float = 5.0,
        poll_interval: float = 1.0,
        backoff_min: float = 0.1,
        backoff_max: float = 5.0,
        open_timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.name = name or KIND_NAMES.get(self.KIND, "device")
        self.baudrate = baudrate
        self.ack_timeout = ack_timeout
        self.max_retries = max_retries
        self.reply_timeout = reply_timeout
        self.poll_interval = poll_interval
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.open_timeout = open_timeout
        self.hello: HelloInfo | None = None
        self._hello_link: FrameLink | None = None  # the connection on which HELLO was answered
        self.last_error: str | None = None
        super().__init__(reason="")
        self._link: FrameLink | None = None
        self._session_ready = False
        self._pending: dict[int, asyncio.Future[Frame]] = {}
        self._cmd_lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._faults = Fault.NONE
        self._link_trouble = False
        self._last_exchange = 0.0
        self._unreachable_logged = False

    # -- health (drivers.health.DeviceHealth; the reason is the last error, "" while ONLINE)

    @property
    def faults(self) -> Fault:
        """Fault bits from the last STATUS (or ERROR) the device sent."""
        return self._faults

    @property
    def link_stats(self) -> tuple[LinkStats, Any] | None:
        """(link stats, decoder stats) of the current connection, if any."""
        link = self._link
        return (link.stats, link.decoder.stats) if link is not None else None

    def _set_health(self, health: Health, reason: str | None = None) -> None:
        if reason:
            self.last_error = reason
        super()._set_health(health, "" if health is Health.ONLINE else (self.last_error or ""))

    def _log_health(self, old: Health, new: Health, reason: str) -> None:
        if new is Health.OFFLINE and self._closing:
            log.info("device closed", device=self.name)
        elif new is Health.OFFLINE:
            log.warning("device offline", device=self.name, url=self.url, reason=reason)
            self._unreachable_logged = True  # the reconnect attempts that follow log at debug level
        elif new is Health.DEGRADED:
            stats = self.link_stats
            log.warning(
                "device degraded",
                device=self.name,
                faults=self._faults.name,
                link_retries=self._link_trouble,
                retransmissions=stats[0].retransmissions if stats else None,
                crc_errors=stats[1].crc_errors if stats else None,
                garbage_bytes=stats[1].garbage_bytes if stats else None,
            )
        else:
            log.info("device online", device=self.name, url=self.url)

    def _update_health(self) -> None:
        if self._link is None or self._link.is_closed or not self._session_ready:
            self._set_health(Health.OFFLINE)
        elif self._link_trouble or self._faults & DEGRADING_FAULTS:
            self._set_health(Health.DEGRADED)
        else:
            self._set_health(Health.ONLINE)

    # -- life cycle

    async def start(self) -> None:
        if self._task is None:
            self._closing = False
            self._task = asyncio.create_task(self._supervise(), name=f"{self.name}-supervisor")

    async def close(self) -> None:
        self._closing = True
        task, self._task = self._task, None
        if task is not None:
            await stop_task(task)
        link = self._link
        if link is not None:
            await self._drop_link(link, "closed by the controller")

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _supervise(self) -> None:
        delay = self.backoff_min
        while not self._closing:
            try:
                link = await self._connect()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # OSError, SerialException, DeviceError, TimeoutError...
                reason = f"cannot connect to {self.url}: {exc or type(exc).__name__}"
                if not self._unreachable_logged:
                    log.warning("device unreachable, retrying with backoff", device=self.name, reason=reason)
                    self._unreachable_logged = True
                else:
                    log.debug("reconnect failed", device=self.name, reason=reason, next_try_s=delay)
                self._set_health(Health.OFFLINE, reason)
                await asyncio.sleep(delay * random.uniform(0.8, 1.0))
                delay = min(delay * 2, self.backoff_max)
                continue
            self._unreachable_logged = False
            self.last_error = None
            self._set_health(self.health)  # the reason follows: no error now
            delay = self.backoff_min
            reason = await self._serve(link)
            await self._drop_link(link, reason)

    async def _connect(self) -> FrameLink:
        import serial_asyncio_fast  # imported here: the simulators import this module without a port

        loop = asyncio.get_running_loop()
        link = FrameLink(self._on_frame, ack_timeout=self.ack_timeout, max_retries=self.max_retries, name=self.name)
        kwargs: dict[str, Any] = {"baudrate": self.baudrate}
        if not self.url.startswith("socket://"):
            kwargs["exclusive"] = True  # a second controller on the same port would garble both
        await asyncio.wait_for(
            serial_asyncio_fast.create_serial_connection(loop, lambda: link, self.url, **kwargs),
            self.open_timeout,
        )
        await asyncio.wait_for(link.connected, self.open_timeout)
        self._link = link
        try:
            frame = await self._exchange(HELLO, bytes((PROTOCOL_VERSION,)), session=False)
            if frame.type != HELLO_REPLY or self._hello_link is not link:
                raise ProtocolError(self.name, f"HELLO answered with type 0x{frame.type:02X}")
            self._session_ready = True
            await self.status()
        except BaseException:
            self._session_ready = False
            self._link = None
            link.close()
            raise
        self._update_health()
        return link

    async def _serve(self, link: FrameLink) -> str:
        """Poll while the link lives; return why it ended."""
        loop = asyncio.get_running_loop()
        while True:
            wait = self._last_exchange + self.poll_interval - loop.time()
            if wait > 0:
                await asyncio.wait([link.lost], timeout=wait)
            if link.is_closed or self._link is not link or not self._session_ready:
                return self.last_error or "port closed"
            if wait > 0:
                continue
            try:
                await self.status()
            except DeviceOffline as exc:
                return str(exc)
            except DeviceTimeout as exc:
                return str(exc)
            except DeviceError as exc:  # a malformed STATUS: keep the link, try again later
                log.warning("status poll failed", device=self.name, error=str(exc))
                self._last_exchange = loop.time()

    async def _drop_link(self, link: FrameLink, reason: str) -> None:
        self._session_ready = False
        if self._link is link:
            self._link = None
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(DeviceOffline(self.name, reason))
        link.close()
        try:
            await asyncio.wait_for(asyncio.shield(link.lost), self.open_timeout)
        except TimeoutError:
            log.debug("port close did not complete", device=self.name)
        self._set_health(Health.OFFLINE, reason)

    def _link_failed(self, link: FrameLink, reason: str) -> None:
        self._session_ready = False
        self._set_health(Health.OFFLINE, reason)
        link.close()

    # -- request / reply

    @staticmethod
    def _trouble(link: FrameLink) -> tuple[int, ...]:
        s, d = link.stats, link.decoder.stats
        return (s.retransmissions, s.naks_received, s.naks_sent, d.crc_errors, d.garbage_bytes)

    async def _exchange(
        self, type_: int, payload: bytes = b"", timeout: float | None = None, *, session: bool = True
    ) -> Frame:
        """Send a command and return its reply frame (an ERROR reply is raised)."""
        async with self._cmd_lock:
            link = self._link
            if link is None or link.is_closed or (session and not self._session_ready):
                raise DeviceOffline(self.name, f"offline ({self.last_error or 'not connected'})")
            loop = asyncio.get_running_loop()
            fut: asyncio.Future[Frame] = loop.create_future()
            seqs: list[int] = []

            def expect(seq: int) -> None:
                seqs.append(seq)
                self._pending[seq] = fut

            before = self._trouble(link)
            try:
                try:
                    await link.send(type_, payload, on_seq=expect)
                except (LinkTimeout, LinkClosed) as exc:
                    reason = f"device does not answer ({exc})"
                    self._link_failed(link, reason)
                    raise DeviceOffline(self.name, reason) from None
                try:
                    frame = await asyncio.wait_for(fut, timeout or self.reply_timeout)
                except TimeoutError:
                    self._link_trouble = True
                    self._update_health()
                    raise DeviceTimeout(
                        self.name,
                        f"command 0x{type_:02X} acknowledged but no reply within {timeout or self.reply_timeout:g} s",
                    ) from None
            finally:
                for seq in seqs:
                    self._pending.pop(seq, None)
            self._last_exchange = loop.time()
            self._link_trouble = self._trouble(link) != before
            if frame.type == STATUS_REPLY:
                self._faults = Fault(parse_reply_header(self.name, frame, 3)[2] & 0xFF)
            elif frame.type == ERROR_REPLY:
                body = parse_reply_header(self.name, frame, 4)
                code = body[1]
                detail = struct.unpack_from(">H", body, 2)[0] if len(body) >= 4 else 0
                latched = {ErrorCode.JAM: Fault.JAM, ErrorCode.DOOR_OPEN: Fault.DOOR_OPEN}
                self._faults |= latched.get(code, Fault.NONE)  # type: ignore[call-overload]
                self._update_health()
                raise self._error(code, detail)
            elif frame.type != HELLO_REPLY:
                self._faults &= ~(Fault.JAM | Fault.DOOR_OPEN)  # the command worked: not jammed, door shut
            self._update_health()
            return frame

    def _error(self, code: int, detail: int) -> DeviceFault:
        return fault_error(self.name, code, detail)

    def _on_frame(self, frame: Frame) -> None:
        if frame.type & REPLY_FLAG:
            if not frame.payload:
                log.debug("reply without reference dropped", device=self.name, type=frame.type)
                return
            fut = self._pending.get(frame.payload[0])
            if fut is not None and not fut.done():
                if frame.type == HELLO_REPLY:
                    try:
                        self._hello(frame)
                    except ProtocolError as exc:
                        fut.set_exception(exc)
                        return
                fut.set_result(frame)
            else:
                log.debug("stale reply dropped", device=self.name, type=frame.type, ref=frame.payload[0])
            return
        self._on_event(frame)

    def _hello(self, frame: Frame) -> None:
        """Take HELLO_REPLY at once, before any frame behind it (the shoe's reports) is handled."""
        payload = parse_reply_header(self.name, frame, 5)
        hello = HelloInfo(payload[1], payload[2], struct.unpack_from(">H", payload, 3)[0])
        if hello.kind != self.KIND:
            raise ProtocolError(self.name, f"wrong device on {self.url}: {KIND_NAMES.get(hello.kind, hello.kind)}")
        if hello.version != PROTOCOL_VERSION:
            raise ProtocolError(self.name, f"protocol version {hello.version}, expected {PROTOCOL_VERSION}")
        self.hello = hello
        self._hello_link = self._link
        self._on_hello(hello)

    # -- hooks for the device drivers

    def _on_hello(self, hello: HelloInfo) -> None:
        """A new session began (after every (re)connect); called before any later frame is handled."""

    def _on_event(self, frame: Frame) -> None:
        """An unsolicited message from the device."""
        log.debug("unexpected message dropped", device=self.name, type=frame.type)

    async def identity(self) -> str:
        """Who the device said it is in its HELLO reply (asked again at every connection)."""
        h = self.hello
        if h is None or self.health is Health.OFFLINE:
            raise DeviceOffline(self.name, f"offline ({self.last_error or 'not connected'})")
        return f"{KIND_NAMES.get(h.kind, h.kind)}, protocol version {h.version}, boot id {h.boot_id}"

    async def status(self) -> Any:
        """Ask the device for its status (also what the idle poll does)."""
        frame = await self._exchange(STATUS_REQ)
        body = parse_reply_header(self.name, frame, 3)
        return StatusHeader(body[1], Fault(body[2]))

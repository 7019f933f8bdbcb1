"""The driver base of the serial devices (shuffler, dealing shoe): request/reply over the serial link.

The serial side of the drivers, in layers, each a module holding the one below:

* :mod:`drivers.framing` -- frames on the wire: bytes in, CRC-checked frames out;
* :mod:`drivers.frame_link` -- :class:`~drivers.frame_link.FrameLink`, the link:
  the byte transport (a port or ``socket://`` URL) and a frame decoder, with
  stop-and-wait ARQ, so frames arrive once and in order;
* this module -- :class:`SerialDevice`, the driver base: one supervisor task
  per device that opens a link by URL, says HELLO, polls STATUS while idle,
  keeps a health state, and reconnects with exponential backoff.  Commands
  are request/reply: a reply carries the sequence number of the command it
  answers, so a late reply to an abandoned command is never taken for the
  answer to a new one.

Beside them, :mod:`drivers.serial_protocol`: the words both ends say (frame
types, fault bits, error codes, the exceptions a driver raises).  The device
drivers' users take those exceptions and fault bits here too: they are what a
:class:`SerialDevice`'s commands raise and report.
"""

from __future__ import annotations

import asyncio
import random
import struct
from typing import ClassVar, Self, TypedDict

import structlog

from drivers.frame_link import FrameLink, LinkClosed, LinkStats, LinkTimeout, open_link
from drivers.framing import DecoderStats, Frame
from drivers.health import DeviceError, DeviceHealth, DeviceOffline, Health, ProtocolError, stop_task
from drivers.serial_protocol import (
    BAUDRATE,
    DEGRADING_FAULTS,
    ERROR_REPLY,
    HELLO,
    HELLO_REPLY,
    KIND_NAMES,
    PROTOCOL_VERSION,
    REPLY_FLAG,
    STATUS_REPLY,
    STATUS_REQ,
    BadRequestError,
    CardCountError,
    DeviceFault,
    DeviceStatus,
    DeviceTimeout,
    DoorOpenError,
    DuplicateCardError,
    EmptyError,
    ErrorCode,
    Fault,
    HelloInfo,
    JamError,
    NotReadyError,
    ShuffleIncompleteError,
    StatusHeader,
    UnreadableCardError,
    fault_error,
    parse_reply_header,
)

__all__ = [
    # what a serial device's commands raise and report (drivers.health, drivers.serial_protocol)
    "DEGRADING_FAULTS",
    "BadRequestError",
    "CardCountError",
    "DeviceError",
    "DeviceFault",
    "DeviceOffline",
    "DeviceTimeout",
    "DoorOpenError",
    "DuplicateCardError",
    "EmptyError",
    "Fault",
    "Health",
    "JamError",
    "NotReadyError",
    "ProtocolError",
    "ShuffleIncompleteError",
    "UnreadableCardError",
    # this module's own
    "SerialDevice",
    "SerialOptions",
]

log = structlog.get_logger(__name__)


class SerialOptions(TypedDict, total=False):
    """The options of :class:`SerialDevice` after its URL: what a device driver passes on from its ``**kwargs``."""

    name: str | None
    baudrate: int
    ack_timeout: float
    max_retries: int
    reply_timeout: float
    poll_interval: float
    backoff_min: float
    backoff_max: float
    open_timeout: float


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
    def link_stats(self) -> tuple[LinkStats, DecoderStats] | None:
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
        link = await open_link(
            self.url,
            self._on_frame,
            baudrate=self.baudrate,
            open_timeout=self.open_timeout,
            ack_timeout=self.ack_timeout,
            max_retries=self.max_retries,
            name=self.name,
        )
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
                latched: dict[int, Fault] = {ErrorCode.JAM: Fault.JAM, ErrorCode.DOOR_OPEN: Fault.DOOR_OPEN}
                self._faults |= latched.get(code, Fault.NONE)
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

    async def status(self) -> DeviceStatus:
        """Ask the device for its status (also what the idle poll does)."""
        frame = await self._exchange(STATUS_REQ)
        body = parse_reply_header(self.name, frame, 3)
        return StatusHeader(body[1], Fault(body[2]))

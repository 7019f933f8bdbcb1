"""The serial link: reliable, in-order frames over a byte transport.

:class:`FrameLink` is an :class:`asyncio.Protocol` that holds the byte
transport and a :class:`drivers.framing.FrameDecoder`, and turns the byte
stream into messages: stop-and-wait ARQ over the frames of
:mod:`drivers.framing`.  Every data frame is acknowledged (ACK with the same
sequence number); a frame with a plausible header but a bad CRC is answered
with a NAK so the sender repeats at once; an unacknowledged frame is repeated
after ``ack_timeout``, at most ``max_retries`` times, then the send fails with
:class:`LinkTimeout`.  A repeated frame (same sequence number as the last one
accepted) is acknowledged again but not delivered twice.  HELLO opens a new
session: it is always delivered and resets the duplicate filter.  The
simulators run the very same class on their side.

The byte transport (:func:`open_link`): ``serial_asyncio_fast``
(pyserial-asyncio-fast) on top of pyserial's ``serial_for_url``.  It gives a
proper asyncio transport for a real port (non-blocking reads through the
event loop's reader, buffered non-blocking writes, the port opened and closed
in an executor so the loop never blocks) and for ``socket://`` URLs uses
asyncio's own TCP transport, so ``connection_lost`` fires when the device goes
away in both cases -- which is what the driver's reconnect logic needs.
Writing that transport again with ``loop.add_reader`` would duplicate a
well-kept library used by Home Assistant's Zigbee/Z-Wave stacks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import structlog

from drivers.framing import BadFrame, Frame, FrameDecoder, encode_frame
from drivers.serial_protocol import ACK, HELLO, NAK

log = structlog.get_logger(__name__)


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
        self._transport: asyncio.Transport | None = None
        self.connected: asyncio.Future[None] = self._loop.create_future()
        self.lost: asyncio.Future[None] = self._loop.create_future()
        self._send_lock = asyncio.Lock()
        self._tx_seq = 0
        self._rx_last: int | None = None
        self._waiter: tuple[int, asyncio.Future[bool]] | None = None
        self._idle_timer: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream protocol is always handed a full (read-write) Transport: pyserial-asyncio-fast's
        # SerialTransport, asyncio's TCP transport, the simulators' pty transport
        self._transport = cast(asyncio.Transport, transport)
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
            self._transport.write(frame)

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


async def open_link(
    url: str,
    on_frame: Callable[[Frame], None],
    *,
    baudrate: int,
    open_timeout: float,
    ack_timeout: float,
    max_retries: int,
    name: str,
) -> FrameLink:
    """Open the byte transport at ``url`` (a port or a pyserial URL) and return the link over it, connected.

    Raises what opening the port raises (OSError, SerialException) and TimeoutError after ``open_timeout``.
    """
    import serial_asyncio_fast  # imported here: the simulators import this module without a port

    loop = asyncio.get_running_loop()
    link = FrameLink(on_frame, ack_timeout=ack_timeout, max_retries=max_retries, name=name)
    kwargs: dict[str, object] = {"baudrate": baudrate}
    if not url.startswith("socket://"):
        kwargs["exclusive"] = True  # a second controller on the same port would garble both
    await asyncio.wait_for(
        serial_asyncio_fast.create_serial_connection(loop, lambda: link, url, **kwargs),
        open_timeout,
    )
    await asyncio.wait_for(link.connected, open_timeout)
    return link

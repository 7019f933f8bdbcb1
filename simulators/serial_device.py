"""The device side of the serial link, shared by the simulated shuffler and shoe.

A simulated device is a process that listens on a loopback TCP port (``socket://127.0.0.1:PORT``) or a
pseudo-terminal, speaks the wire protocol with the very ``drivers.frame_link.FrameLink`` the drivers use (one
framing, one ARQ at both ends), prints one ``listening ...`` line, and takes test commands on its control port
(``simulators.control``), among them the line faults common to both devices (docs/protocols-serial.md §9).
Card values are never logged; the deck order leaves the process only through the explicit ``peek`` command.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import logging
import os
import random
import sys
import tty
from typing import Any

import structlog

from drivers.frame_link import FrameLink, LinkClosed, LinkTimeout
from drivers.framing import Frame
from drivers.serial_protocol import (
    ERROR_REPLY,
    HELLO,
    HELLO_REPLY,
    PROTOCOL_VERSION,
    STATUS_REPLY,
    STATUS_REQ,
    ErrorCode,
)
from simulators.control import ControlError, serve_control

log = structlog.get_logger(__name__)


class Refuse(Exception):
    """A command the device answers with an ERROR reply."""

    def __init__(self, code: ErrorCode, detail: int = 0) -> None:
        super().__init__(f"{code.name} ({detail})")
        self.code = code
        self.detail = detail


class SimulatedDevice:
    """What a simulated device implements; the server does the rest."""

    kind: int = 0
    name: str = "device"
    server: SerialDeviceServer

    def attach(self, server: SerialDeviceServer) -> None:
        self.server = server

    def start(self) -> None:
        """Called once the event loop runs, before the device listens."""

    def status(self) -> bytes:
        """STATUS_REPLY body after the reference byte: state, faults, ..."""
        raise NotImplementedError

    async def command(self, frame: Frame) -> tuple[int, bytes]:
        """Do one command; return (reply type, reply body after the reference) or raise Refuse."""
        raise Refuse(ErrorCode.BAD_REQUEST, frame.type)

    def on_hello(self) -> None:
        """A controller opened a session."""

    def on_message(self, frame: Frame) -> bool:
        """A message that is not a command (gets no reply); return True if handled."""
        return False

    async def control(self, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        raise ControlError(f"unknown command {cmd!r}")


class LineFaults:
    """Faults on what the device sends."""

    KINDS = ("data", "ack", "any")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.garbage = bytearray()
        self.drop: collections.Counter[str] = collections.Counter()
        self.corrupt: collections.Counter[str] = collections.Counter()
        self.delay = 0.0
        self.silent = False

    def take(self, counter: collections.Counter[str], is_data: bool) -> bool:
        for kind in ("data" if is_data else "ack", "any"):
            if counter[kind] > 0:
                counter[kind] -= 1
                return True
        return False


class DeviceLink(FrameLink):
    """A FrameLink whose output passes through the line faults."""

    def __init__(self, server: SerialDeviceServer) -> None:
        self._server = server
        super().__init__(
            lambda frame: server.received(self, frame),
            ack_timeout=server.ack_timeout,
            max_retries=server.max_retries,
            name=server.device.name,
        )
        self._delayed: collections.deque[tuple[float, bytes]] = collections.deque()
        self._delay_timer: asyncio.TimerHandle | None = None
        self._last_due = 0.0

    @property
    def ack_timeout(self) -> float:
        """A slowed-down device also waits longer for the controller's ACK."""
        return self._ack_timeout + self._server.faults.delay

    @ack_timeout.setter
    def ack_timeout(self, value: float) -> None:
        self._ack_timeout = value

    def data_received(self, data: bytes) -> None:
        if self._server.faults.silent:
            return
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._delay_timer is not None:
            self._delay_timer.cancel()
        super().connection_lost(exc)
        self._server.link_lost(self)

    def write_frame(self, frame: bytes, *, is_data: bool) -> None:
        faults = self._server.faults
        if faults.silent:
            return
        if faults.take(faults.drop, is_data):
            log.info("fault: frame dropped", device=self.name, data=is_data)
            return
        if faults.take(faults.corrupt, is_data):
            log.info("fault: frame corrupted", device=self.name, data=is_data)
            frame = frame[:-1] + bytes((frame[-1] ^ 0xFF,))
        if faults.garbage:
            frame = bytes(faults.garbage) + frame
            faults.garbage.clear()
        if faults.delay <= 0 and not self._delayed:
            super().write_frame(frame, is_data=is_data)
            return
        now = self._loop.time()
        due = max(now + faults.delay, self._last_due)  # frames keep their order
        self._last_due = due
        self._delayed.append((due, frame))
        if self._delay_timer is None:
            self._delay_timer = self._loop.call_at(due, self._flush_delayed)

    def _flush_delayed(self) -> None:
        self._delay_timer = None
        now = self._loop.time()
        while self._delayed and self._delayed[0][0] <= now:
            _, frame = self._delayed.popleft()
            if not self._server.faults.silent:
                FrameLink.write_frame(self, frame, is_data=True)
        if self._delayed:
            self._delay_timer = self._loop.call_at(self._delayed[0][0], self._flush_delayed)

    def write_raw(self, data: bytes) -> None:
        FrameLink.write_frame(self, data, is_data=False)


class PtyTransport(asyncio.Transport):
    """The master side of a pseudo-terminal as an asyncio transport."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, protocol: asyncio.Protocol) -> None:
        super().__init__()
        self._loop = loop
        self._fd = fd
        self._protocol = protocol
        self._out = bytearray()
        os.set_blocking(fd, False)
        loop.add_reader(fd, self._read_ready)
        loop.call_soon(protocol.connection_made, self)

    def _read_ready(self) -> None:
        try:
            data = os.read(self._fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # EIO: nobody has the terminal open (we keep it open, so rare)
            return
        if data:
            self._protocol.data_received(data)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._out:
            self._out += data
            return
        try:
            n = os.write(self._fd, data)
        except (BlockingIOError, InterruptedError):
            n = 0
        if n < len(data):
            self._out += data[n:]
            self._loop.add_writer(self._fd, self._write_ready)

    def _write_ready(self) -> None:
        try:
            n = os.write(self._fd, self._out)
        except (BlockingIOError, InterruptedError):
            return
        del self._out[:n]
        if not self._out:
            self._loop.remove_writer(self._fd)

    def close(self) -> None:
        """The terminal stays: a controller closing its end does not unplug the device."""

    def is_closing(self) -> bool:
        return False


class SerialDeviceServer:
    def __init__(
        self,
        device: SimulatedDevice,
        *,
        transport: str = "socket",
        host: str = "127.0.0.1",
        port: int = 0,
        control_port: int = 0,
        seed: int = 0,
        ack_timeout: float = 0.25,
        max_retries: int = 3,
    ) -> None:
        self.device = device
        self.transport_kind = transport
        self.host = host
        self.port = port
        self.control_port = control_port
        self.ack_timeout = ack_timeout
        self.max_retries = max_retries
        self.faults = LineFaults(random.Random(seed ^ 0x5EED))
        self.boot_id = random.SystemRandom().randrange(0x10000)
        self.link: DeviceLink | None = None
        self.url = ""
        self._server: asyncio.base_events.Server | None = None
        self._inbox: asyncio.Queue[tuple[DeviceLink, Frame]] | None = None
        self._pty: tuple[int, int] | None = None
        self._worker: asyncio.Task[None] | None = None
        device.attach(self)

    # -- running

    async def run(self) -> None:
        control, control_url = await serve_control(self.control, "127.0.0.1", self.control_port)
        await self.start()
        assert self._worker is not None
        print(f"listening {self.url} control {control_url}", flush=True)
        async with control:
            await self._worker

    async def start(self) -> str:
        """Serve the device in the running event loop (not its control port: ``control()`` is the same
        commands, called directly by an in-process test table); returns its URL."""
        self._inbox = asyncio.Queue()
        self._worker = asyncio.create_task(self._work())
        if self.transport_kind == "pty":
            master, slave = os.openpty()
            tty.setraw(slave)  # binary: no echo, no line editing, no CR/LF translation
            self._pty = (master, slave)  # the slave stays open: the master never sees a hangup
            self.link = DeviceLink(self)
            PtyTransport(asyncio.get_running_loop(), master, self.link)
            self.url = os.ttyname(slave)
        else:
            await self._listen()
            self.url = f"socket://{self.host}:{self.port}"
        self.device.start()
        log.info("device ready", device=self.device.name, url=self.url, boot_id=self.boot_id)
        return self.url

    async def close(self) -> None:
        """Stop serving: no longer listening, the controller's connection closed, the worker stopped."""
        if self._server is not None:
            self._server.close()
            self._server = None
        if self.link is not None:
            self.link.close()
        if self._worker is not None:
            self._worker.cancel()

    async def _listen(self) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._accept, self.host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    def _accept(self) -> DeviceLink:
        old, self.link = self.link, DeviceLink(self)
        if old is not None:  # one controller at a time: the newest connection wins
            old.close()
        return self.link

    def link_lost(self, link: DeviceLink) -> None:
        if self.link is link:
            self.link = None

    def received(self, link: DeviceLink, frame: Frame) -> None:
        assert self._inbox is not None
        self._inbox.put_nowait((link, frame))

    async def _work(self) -> None:
        """Commands are done one at a time, in order, like a device's firmware."""
        assert self._inbox is not None
        while True:
            link, frame = await self._inbox.get()
            try:
                await self._do(link, frame)
            except Exception:
                log.exception("command failed", device=self.device.name, type=frame.type)

    async def _do(self, link: DeviceLink, frame: Frame) -> None:
        if frame.type == HELLO:
            body = bytes((self.device.kind, PROTOCOL_VERSION)) + self.boot_id.to_bytes(2, "big")
            if await self._send(link, HELLO_REPLY, bytes((frame.seq,)) + body):
                self.device.on_hello()
            return
        if frame.type == STATUS_REQ:
            await self._send(link, STATUS_REPLY, bytes((frame.seq,)) + self.device.status())
            return
        if self.device.on_message(frame):
            return
        try:
            reply_type, body = await self.device.command(frame)
        except Refuse as refuse:
            log.info("command refused", device=self.device.name, type=frame.type, error=str(refuse))
            reply_type, body = ERROR_REPLY, bytes((refuse.code,)) + refuse.detail.to_bytes(2, "big")
        await self._send(link, reply_type, bytes((frame.seq,)) + body)

    async def _send(self, link: DeviceLink | None, type_: int, payload: bytes) -> bool:
        if link is None or link.is_closed:
            return False
        try:
            await link.send(type_, payload)
        except (LinkTimeout, LinkClosed) as exc:
            log.warning("controller does not answer", device=self.device.name, error=str(exc))
            return False
        return True

    async def send(self, type_: int, payload: bytes) -> bool:
        """Send an unsolicited message to whoever is connected; False if it did not get through."""
        return await self._send(self.link, type_, payload)

    # -- unplug / plug

    async def unplug(self, mode: str) -> None:
        if mode not in ("silent", "close"):
            raise ControlError("mode is 'silent' or 'close'")
        self.faults.silent = True
        if mode == "close" and self.transport_kind == "socket":
            if self._server is not None:
                self._server.close()
                self._server = None
            if self.link is not None:
                self.link.close()
        log.info("unplugged", device=self.device.name, mode=mode)

    async def plug(self) -> None:
        self.faults.silent = False
        if self.transport_kind == "socket" and self._server is None:
            await self._listen()
        log.info("plugged in", device=self.device.name)

    # -- control port

    async def control(self, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        faults = self.faults
        if cmd == "ping":
            return {}
        if cmd == "garbage":
            data = bytes.fromhex(args["hex"]) if "hex" in args else faults.rng.randbytes(int(args.get("n", 32)))
            if args.get("now"):
                if self.link is not None:
                    self.link.write_raw(data)
            else:
                faults.garbage += data
            return {"bytes": len(data)}
        if cmd in ("drop", "corrupt"):
            kind = args.get("frames", "data")
            if kind not in LineFaults.KINDS:
                raise ControlError(f"frames is one of {LineFaults.KINDS}")
            getattr(faults, cmd)[kind] += int(args.get("count", 1))
            return {}
        if cmd == "delay":
            faults.delay = max(0.0, float(args["ms"]) / 1000)
            return {}
        if cmd == "unplug":
            await self.unplug(args.get("mode", "silent"))
            return {}
        if cmd == "plug":
            await self.plug()
            return {}
        if cmd == "stats":
            link = self.link
            if link is None:
                return {"connected": False}
            return {
                "connected": True,
                "link": dataclasses.asdict(link.stats),
                "decoder": dataclasses.asdict(link.decoder.stats),
            }
        return await self.device.control(cmd, args)


def arguments(device: SimulatedDevice, argv: list[str] | None = None, *, description: str = "") -> argparse.Namespace:
    """The simulator's command-line options (the server's and the device's own), parsed from ``argv``."""
    parser = argparse.ArgumentParser(prog=f"python -m simulators.{device.name}", description=description)
    parser.add_argument("--transport", choices=("socket", "pty"), default="socket")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="TCP port for socket:// (0: any free port)")
    parser.add_argument("--control-port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0, help="seeds the deck order and the garbage bytes")
    parser.add_argument("--ack-timeout", type=float, default=0.25)
    parser.add_argument("--log-level", default="INFO")
    add = getattr(device, "add_arguments", None)
    if add is not None:
        add(parser)
    return parser.parse_args(argv)


def main(device: SimulatedDevice, argv: list[str] | None = None, *, description: str = "") -> None:
    args = arguments(device, argv, description=description)
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, args.log_level.upper())),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),  # stdout carries only the "listening" line
    )
    configure = getattr(device, "configure", None)
    if configure is not None:
        configure(args)
    server = SerialDeviceServer(
        device,
        transport=args.transport,
        host=args.host,
        port=args.port,
        control_port=args.control_port,
        seed=args.seed,
        ack_timeout=args.ack_timeout,
    )
    try:
        asyncio.run(server.run())
    except KeyboardInterrupt:
        pass

"""The simulators' control protocol: one server loop, one client, one error.

Every simulator (serial or Modbus) prints one line when it is ready::

    listening URL control tcp://HOST:PORT

and takes test commands on that control port as JSON lines, one object per
line, one reply per line:

* request: ``{"cmd": "NAME", ...arguments}``
* reply: ``{"ok": true, ...results}`` or ``{"ok": false, "error": "Kind: why"}``.

A reply without ``"ok": true`` is a refusal: a missing ``"ok"`` is an error,
never a success.  The devices' own commands are listed in
docs/protocols-serial.md §9 and docs/protocols-modbus.md §7.

:func:`serve_control` is the server side (every simulator), :class:`ControlClient`
and :class:`AsyncControlClient` the client side (``tablectl inject``, the tests,
the demo).  Only the standard library: a client does not load a device stack.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

#: What a simulator prints on its first line of standard output.
LISTENING = re.compile(r"^listening (\S+) control (\S+)\s*$")
TIMEOUT = 10.0  # seconds a client waits for a reply by default

#: A simulator's handler: ``await handler(cmd, args)`` -> the reply's fields; raises ControlError to refuse.
Handler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


class ControlError(Exception):
    """A control command that was not done.

    On the simulator's side, raised to refuse a command (its message is the
    reply's ``error``).  On the client's side, ``refused`` is True when the
    simulator answered with a refusal (or without ``"ok": true``), False when
    no usable reply came (unreachable, closed, not JSON, timed out).
    """

    def __init__(self, message: str, *, refused: bool = True) -> None:
        super().__init__(message)
        self.refused = refused


def parse_listening(line: str) -> tuple[str, str] | None:
    """(device URL, control URL) from a simulator's "listening" line, or None if it is not one."""
    match = LISTENING.match(line.split("\n")[0])
    return (match.group(1), match.group(2)) if match else None


# --------------------------------------------------------------------------
# server side


def _request(line: bytes) -> tuple[str, dict[str, Any]]:
    args = json.loads(line)
    if not isinstance(args, dict) or not isinstance(args.get("cmd"), str):
        raise ControlError('a command is a JSON object with a "cmd" string')
    return args.pop("cmd"), args


async def serve_control(handler: Handler, host: str = "127.0.0.1", port: int = 0) -> tuple[asyncio.Server, str]:
    """Serve the control protocol with ``handler``; return the server and its ``tcp://HOST:PORT``.

    Bad arguments (``ValueError``, ``KeyError``, ``TypeError`` raised by the
    handler) are refusals like ``ControlError``: the reply names the kind.
    """

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                try:
                    cmd, args = _request(line)
                    reply = {"ok": True, **await handler(cmd, args)}
                except (ControlError, ValueError, KeyError, TypeError) as exc:
                    reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                writer.write(json.dumps(reply).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(client, host, port)
    return server, f"tcp://{host}:{server.sockets[0].getsockname()[1]}"


# --------------------------------------------------------------------------
# client side


def control_address(url: str) -> tuple[str, int]:
    """``tcp://HOST:PORT``, ``HOST:PORT`` or ``PORT`` (on 127.0.0.1); ControlError otherwise."""
    rest = url.removeprefix("tcp://").rstrip("/")
    host, sep, port = rest.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", rest
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 < number < 65536 or "/" in rest:
        raise ControlError(f"{url}: not a control URL (tcp://HOST:PORT, as the simulator printed it)", refused=False)
    return host.strip("[]") or "127.0.0.1", number


def _command(cmd: str, args: dict[str, Any]) -> bytes:
    if "cmd" in args:
        raise ControlError("cmd: the command is given once", refused=False)
    return json.dumps({"cmd": cmd, **args}).encode() + b"\n"


def read_reply(url: str, cmd: str, line: bytes) -> dict[str, Any]:
    """The fields of a reply line without ``"ok"``; ControlError unless it says ``"ok": true``."""
    if not line:
        raise ControlError(f"{url}: the simulator closed the connection without a reply", refused=False)
    try:
        reply = json.loads(line)
    except ValueError:
        raise ControlError(f"{url}: the reply is not JSON: {line[:80]!r}", refused=False) from None
    if not isinstance(reply, dict):
        raise ControlError(f"{url}: the reply is not a JSON object: {line[:80]!r}", refused=False)
    if reply.pop("ok", None) is not True:
        raise ControlError(f"{cmd} refused: {reply.get('error', 'no reason given')}")
    return reply


class ControlClient:
    """A blocking client of one simulator's control port; one connection, opened on first use.

    ``client("fault", fault="jam", at=3)`` returns the reply's fields (without
    ``"ok"``) or raises :class:`ControlError`.  Not for an event loop's thread:
    use :class:`AsyncControlClient` there.
    """

    def __init__(self, url: str, *, timeout: float = TIMEOUT) -> None:
        self.url = url
        self.address = control_address(url)
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._file: Any = None

    def __call__(self, cmd: str, **args: Any) -> dict[str, Any]:
        data = _command(cmd, args)
        try:
            if self._sock is None:
                self._sock = socket.create_connection(self.address, timeout=self.timeout)
                self._file = self._sock.makefile("rb")
            self._sock.sendall(data)
            line = self._file.readline()
        except TimeoutError:
            self.close()
            raise ControlError(f"{self.url}: no reply within {self.timeout:g} s", refused=False) from None
        except OSError as e:
            self.close()
            raise ControlError(f"cannot reach {self.url}: {e.strerror or e}", refused=False) from None
        if not line:
            self.close()
        return read_reply(self.url, cmd, line)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class AsyncControlClient:
    """The same client for an event loop's thread: ``await client("draw", n=3)``."""

    def __init__(self, url: str, *, timeout: float = TIMEOUT) -> None:
        self.url = url
        self.address = control_address(url)
        self.timeout = timeout
        self._rw: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def __call__(self, cmd: str, **args: Any) -> dict[str, Any]:
        data = _command(cmd, args)
        try:
            if self._rw is None:
                self._rw = await asyncio.wait_for(asyncio.open_connection(*self.address), self.timeout)
            reader, writer = self._rw
            writer.write(data)
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), self.timeout)
        except TimeoutError:
            await self.close()
            raise ControlError(f"{self.url}: no reply within {self.timeout:g} s", refused=False) from None
        except OSError as e:
            await self.close()
            raise ControlError(f"cannot reach {self.url}: {e.strerror or e}", refused=False) from None
        if not line:
            await self.close()
        return read_reply(self.url, cmd, line)

    async def close(self) -> None:
        if self._rw is not None:
            self._rw[1].close()
            self._rw = None

    async def __aenter__(self) -> AsyncControlClient:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


def control(url: str, cmd: str, **args: Any) -> dict[str, Any]:
    """One command on a connection of its own (blocking); the reply's fields or ControlError."""
    with ControlClient(url) as client:
        return client(cmd, **args)


async def acontrol(url: str, cmd: str, **args: Any) -> dict[str, Any]:
    """One command on a connection of its own, in an event loop."""
    async with AsyncControlClient(url) as client:
        return await client(cmd, **args)

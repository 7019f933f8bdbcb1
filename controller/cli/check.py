"""``tablectl check-config``: is a table's configuration usable, before the daemon is started?

Every problem at once, each naming its key (controller/config/table.py), exit 0 or 2; several files or
tables in one process, each with its own line (or its problems), exit 2 if any is refused; no device is
touched unless ``--devices`` is given: then each configured port is opened and each device asked
who it is (its driver's ``identity()``: the serial HELLO of docs/protocols-serial.md §4, the Modbus
heartbeat and map version of docs/protocols-modbus.md), one line per device.  Which devices there are
and how each is reached comes from the device registry (``drivers.device``).  ``--dropin`` prints
the systemd drop-in that opens to the unit only what this configuration names (the installer writes
it, docs/install.md; for several tables each drop-in begins with its line naming the table, which the
installer splits on).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import fcntl
import ipaddress
import os
import socket
from typing import TextIO
from urllib.parse import urlsplit

from controller.config.table import ConfigError, TableConfig
from controller.paths import load_table
from drivers.device import DEVICES, Link
from drivers.modbus import parse_url

EXIT_OK, EXIT_REFUSED = 0, 2
DEVICE_TIMEOUT = 5.0  # seconds each device has to answer


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check-config", help="check a table's configuration (and, with --devices, its devices)",
                       description="Check a configuration without starting the daemon: every problem, each "
                       "with its key, exit status 2; exit 0 when it can be used.  No device is touched "
                       "unless --devices is given.")
    p.add_argument("file", nargs="*", metavar="FILE", help="the configuration file(s) (or --table ID); several: "
                   "each checked in turn, one line each, exit status 2 if any is refused")
    p.add_argument("--table", metavar="ID", action="append", default=[], help="the table's id on the table PC "
                   "(/etc/table-controller/ID.toml); repeat it for several tables")
    p.add_argument("--devices", action="store_true", help="also open each configured port and ask each device "
                   f"who it is ({DEVICE_TIMEOUT:g} s at most per device), one line per device; exit 2 if one "
                   "does not answer")
    p.add_argument("--dropin", action="store_true", help="print the systemd drop-in for this table's unit: "
                   "DeviceAllow= for each serial port, IPAddressAllow= for each network device (several "
                   "tables: each drop-in in turn, each beginning with its line naming the table)")
    p.set_defaults(handler=cmd_check_config)


def cmd_check_config(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """Each FILE, then each --table ID, in one process (the installer checks every table of the PC at once)."""
    if not args.file and not args.table:
        print("tablectl check-config: give FILE or --table ID (one or several)", file=stderr)
        return EXIT_REFUSED
    checks = [(f, argparse.Namespace(table=None, config=f)) for f in args.file]
    checks += [(t, argparse.Namespace(table=t, config=None)) for t in args.table]
    status = EXIT_OK
    for where, which in checks:
        if check_one(where, which, args, stdout, stderr) != EXIT_OK:
            status = EXIT_REFUSED
    return status


def check_one(where: str, which: argparse.Namespace, args: argparse.Namespace, stdout: TextIO,
              stderr: TextIO) -> int:
    """One configuration: its line (or its drop-in), its devices when asked; its problems on stderr."""
    try:
        cfg = load_table(which)
    except ConfigError as e:
        print(f"tablectl check-config: {e}", file=stderr)
        return EXIT_REFUSED
    if args.dropin:
        try:
            stdout.write(dropin(cfg))
        except ValueError as e:
            print(f"tablectl check-config: {where}: {e}", file=stderr)
            return EXIT_REFUSED
        return EXIT_OK
    stdout.write(f"{where}: ok (table {cfg.id}, {cfg.game}, journal {cfg.journal})\n")
    if not args.devices:
        return EXIT_OK
    answers = asyncio.run(ask_devices(cfg))
    for device, (url, ok, what) in answers.items():
        stdout.write(f"{device:<12} {url}: {'ok' if ok else 'NOT ANSWERING'}: {what}\n")
    return EXIT_OK if all(ok for _, ok, _ in answers.values()) else EXIT_REFUSED


def _configured(cfg: TableConfig) -> dict[str, str]:
    """Each device type of the registry the configuration names, with its URL, in the registry's order."""
    urls = cfg.devices.model_dump()
    return {name: urls[name] for name in DEVICES if urls.get(name)}


async def ask_devices(cfg: TableConfig) -> dict[str, tuple[str, bool, str]]:
    """Each configured device: (url, answered, who it says it is or why not), in the registry's order.

    All are asked at once: a table whose devices are all silent answers in one device timeout, not
    one per device (devices on one Modbus line still take turns: one lock per bus, drivers.modbus)."""

    async def ask(name: str, url: str) -> tuple[str, bool, str]:
        why = await asyncio.to_thread(reach, name, url)  # absent, no permission, held by another program
        if why is not None:
            return url, False, why
        try:
            return url, True, await asyncio.wait_for(_identity(name, url), DEVICE_TIMEOUT + 1)
        except TimeoutError:  # the port opened: the device is there and said nothing
            return url, False, f"silent: the port opens but the device did not answer in {DEVICE_TIMEOUT:g} s"
        except Exception as e:  # a device that is not there is the answer we are asked for
            return url, False, str(e) or type(e).__name__

    configured = _configured(cfg)
    answers = await asyncio.gather(*(ask(name, url) for name, url in configured.items()))
    return dict(zip(configured, answers, strict=True))


def reach(name: str, url: str) -> str | None:
    """Why the device's port cannot be reached, or None when it can: ``absent`` (no such serial device,
    nothing listening at the address), ``permission`` (the user is not in the serial devices' group,
    docs/install.md), ``busy`` (another program, the running daemon say, holds the port: the drivers lock
    it exclusively).  A driver alone would only time out, whatever the reason (issue 30)."""
    kind, where = DEVICES[name].link.endpoint(url)
    if kind == "device":
        return _device_problem(where)
    port = parse_url(url).port if DEVICES[name].link is not Link.SERIAL else urlsplit(url).port
    try:
        with socket.create_connection((where, port or 0), timeout=DEVICE_TIMEOUT):
            return None
    except ConnectionRefusedError:
        return f"absent: nothing listens at {where}:{port}"
    except OSError as e:  # unreachable, a name that does not resolve, no answer to the connection
        return f"absent: {where}:{port} cannot be reached ({e.strerror or type(e).__name__})"


def _device_problem(path: str) -> str | None:
    """A serial device: opened and locked as the driver would (and released at once)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except FileNotFoundError:
        return f"absent: there is no {path} (is the device plugged in?)"
    except PermissionError:
        return f"permission: this user may not open {path} (the dialout group, docs/install.md)"
    except OSError as e:
        if e.errno == errno.EBUSY:
            return f"busy: {path} is held by another program (the running daemon?)"
        return f"absent: {path} cannot be opened ({e.strerror})"
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return f"busy: {path} is held by another program (the running daemon?)"
    except OSError:  # a device without locks: the driver opens it the same way
        pass
    finally:
        os.close(fd)
    return None


async def _identity(name: str, url: str) -> str:
    from drivers.health import Health

    async with DEVICES[name].driver()(url) as dev:
        await dev.wait_health(Health.ONLINE, Health.DEGRADED, timeout=DEVICE_TIMEOUT)
        return await dev.identity()


def dropin(cfg: TableConfig) -> str:
    """What the unit may reach for this table: its serial ports and its devices' addresses, nothing else."""
    devices: list[str] = []
    addresses: list[str] = []
    for name, url in _configured(cfg).items():
        kind, where = DEVICES[name].link.endpoint(url)
        (devices if kind == "device" else addresses).append(where)
    lines = [f"# generated from the configuration of table {cfg.id} by `tablectl check-config --dropin`",
             "[Service]"]
    lines += [f"DeviceAllow={d} rw" for d in sorted(set(devices))]
    lines += [f"IPAddressAllow={a}" for a in sorted({_address(h) for h in addresses})]
    return "\n".join(lines) + "\n"


def _address(host: str) -> str:
    """IPAddressAllow= takes addresses, not names: a name is resolved now, at install."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError as e:
        raise ValueError(f"cannot resolve the device host {host!r} for IPAddressAllow= ({e})") from None
    return " ".join(sorted({str(i[4][0]) for i in infos}))

"""``tablectl sim``, ``tablectl inject``, ``tablectl watch``: the table's devices by hand.

* ``sim DEVICE [ARGS...]`` runs a simulated device in the foreground
  (``python -m simulators.DEVICE ARGS...``); it prints
  ``listening URL control tcp://HOST:PORT``.
* ``inject CONTROL_URL COMMAND [key=value ...]`` sends one control command to a
  simulator's control port (``simulators.control``; the commands:
  docs/protocols-serial.md §9, docs/protocols-modbus.md §7) and prints the reply.
* ``watch DEVICE URL`` connects the real driver, prints one line per thing it
  reports (health changes, cards, faults, presses, wagers) and takes commands
  on standard input, one per line.

Card values are secret in production (hole cards, the undealt order): ``watch``
prints them as ``**`` unless ``--show-cards`` is given, which is for
simulators and bench tests only.  Only the drivers' public API is used.

The device types, their drivers and simulators come from the registry
(``drivers.device``); a device type without commands of its own here is
watched for its health alone.

The watch itself is controller/cli/watch.py; this module registers the three subcommands
and runs ``sim`` and ``inject``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from controller.cli.watch import (
    COMMANDS,
    COMMON_COMMANDS,
    EXIT_STUCK,
    LOG_LEVELS,
    MASK,
    SHOW_CARDS_HELP,
    SLOW,
    STOP_ATTEMPTS,
    STOP_WAIT,
    TERMINATED,
    Command,
    Usage,
    Watcher,
    cmd_watch,
)
from drivers.device import DEVICES as DEVICE_TYPES
from drivers.device import Link
from simulators.control import ControlClient, ControlError

EXIT_OK = 0
EXIT_REFUSED = 2

DEVICES = tuple(DEVICE_TYPES)


def register(sub: Any) -> None:
    """Add ``sim``, ``inject`` and ``watch`` to the ``tablectl`` subcommands."""
    p = sub.add_parser(
        "sim",
        help="run a simulated device in the foreground",
        description="Run python -m simulators.DEVICE ARGS... in the foreground. It prints "
        "'listening URL control tcp://HOST:PORT': give URL to 'tablectl watch' and the control URL to "
        "'tablectl inject'. 'tablectl sim DEVICE --help' lists the simulator's options "
        "(--port and --control-port choose fixed ports).",
    )
    p.add_argument("device", choices=DEVICES, metavar="DEVICE", help="one of: " + ", ".join(DEVICES))
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="options passed to the simulator")
    p.set_defaults(handler=cmd_sim)

    p = sub.add_parser(
        "inject",
        help="send one control command (a fault, a draw, a press...) to a simulator",
        description="Send one control command to a simulator's control port and print its reply. "
        "Each key=value becomes a field of the JSON command; a value that parses as JSON is taken as "
        "JSON (at=3, on=true, at='[2,4]', cards='[\"As\",\"Kd\"]'), anything else as a string "
        "(fault=jam). Example: tablectl inject tcp://127.0.0.1:5021 fault fault=jam at=3. "
        "Exit status 2 when the simulator refuses the command or cannot be reached.",
    )
    p.add_argument("control_url", metavar="CONTROL_URL", help="tcp://HOST:PORT as the simulator printed it")
    p.add_argument("cmd", metavar="COMMAND", help="the control command: fault, unplug, plug, draw, wager, press...")
    p.add_argument("fields", nargs="*", metavar="key=value", help="the command's arguments")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the reply (default 10)")
    p.set_defaults(handler=cmd_inject)

    commands = "; ".join(
        f"{device}: " + ", ".join(name for name, _ in COMMANDS[device]) for device in DEVICES
    )
    p = sub.add_parser(
        "watch",
        help="connect a device's driver and print what it reports; commands on standard input",
        description="Connect the real driver of DEVICE at URL and print one line per event: every health "
        "change (ONLINE / DEGRADED / OFFLINE with the reason), and per device the cards drawn and the "
        "faults (shoe), button presses and key-switch changes (panel), lock-out, accepted seats and late "
        "wager attempts (progressive). Standard input takes one command per line and prints its result "
        f"or the driver's error. Commands: {commands}; all: help, quit. Ctrl-C or the end of input closes "
        "the driver and exits.",
    )
    p.add_argument("device", choices=DEVICES, metavar="DEVICE", help="one of: " + ", ".join(DEVICES))
    p.add_argument(
        "url",
        metavar="URL",
        help=_url_help(),
    )
    p.add_argument("--show-cards", action="store_true", help=SHOW_CARDS_HELP)
    p.add_argument(
        "--log-level",
        default="off",
        choices=("off", "error", "warning", "info", "debug"),
        help="the drivers' own log, on standard error (default off: the event lines already say what it "
        "would); debug logs card values, so it needs --show-cards",
    )
    p.set_defaults(handler=cmd_watch)


def _url_help() -> str:
    """Each kind of link, its URLs and the device types it reaches."""
    kinds: dict[Link, list[str]] = {}
    for t in DEVICE_TYPES.values():
        kinds.setdefault(t.link, []).append(t.name)
    return "the device: " + "; ".join(f"{link.url_help} ({', '.join(names)})" for link, names in kinds.items())


# --------------------------------------------------------------------------
# sim


def _project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def cmd_sim(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_project_root()), env.get("PYTHONPATH")]))
    argv = [sys.executable, "-m", DEVICE_TYPES[args.device].simulator, *args.args]
    stdout.flush()
    stderr.flush()
    try:
        os.execve(sys.executable, argv, env)
    except OSError as e:
        print(f"tablectl sim: cannot run {sys.executable}: {e.strerror}", file=stderr)
    return EXIT_REFUSED


# --------------------------------------------------------------------------
# inject


def parse_fields(cmd: str, fields: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"cmd": cmd}
    for field in fields:
        key, sep, text = field.partition("=")
        if not sep or not key:
            raise ControlError(f"{field!r}: arguments are key=value", refused=False)
        if key in out:
            raise ControlError(f"{key}: given twice" if key != "cmd" else "cmd: the command is the COMMAND argument",
                               refused=False)
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text
        out[key] = value
    return out


def cmd_inject(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    try:
        command = parse_fields(args.cmd, args.fields)
        with ControlClient(args.control_url, timeout=args.timeout) as client:
            reply = client(command.pop("cmd"), **command)
    except ControlError as e:  # refused, or no usable reply: one line, exit 2
        print(f"tablectl inject: {e}", file=stderr)
        return EXIT_REFUSED
    print(json.dumps({"ok": True, **reply}), file=stdout)
    return EXIT_OK


__all__ = [
    "COMMANDS",
    "COMMON_COMMANDS",
    "DEVICES",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_STUCK",
    "LOG_LEVELS",
    "MASK",
    "SHOW_CARDS_HELP",
    "SLOW",
    "STOP_ATTEMPTS",
    "STOP_WAIT",
    "TERMINATED",
    "Command",
    "Usage",
    "Watcher",
    "cmd_inject",
    "cmd_sim",
    "cmd_watch",
    "parse_fields",
    "register",
]

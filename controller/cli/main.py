"""``tablectl``: the command line of the table controller.

Subcommands:

* ``settle [FILE]``: one round (or JSON Lines of rounds) in, settlement out
  (shared/contracts/settle.md);
* ``analyze``: the par sheet of one wager (shared/contracts/analyze.md; controller/cli/analyze.py);
* ``run``, ``status``, ``recall``, ``progressive``: the daemon and its journal (controller/cli/table.py);
* ``supervisor hash``: an entry of the floor supervisors' allow-list (controller/cli/supervisor.py);
* ``check-config``: a configuration, and with ``--devices`` its devices (controller/cli/check.py);
* ``sim``, ``inject``, ``watch``: the devices by hand (controller/cli/device.py, docs/devices.md);
* ``web``: the dealer's screen and the floor's pages (web/);
* ``parameters change``, ``meters propose / approve``: changes under control (controller/cli/control.py).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

EXIT_OK = 0
EXIT_REFUSED = 2
EXIT_PROGRAM_ERROR = 3  # not the input: the program failed (the last-resort guard in main)

#: the modules that add the other subcommands (each by its ``register``), in the order ``--help`` lists them,
#: with the subcommands each adds.  Only the module of the subcommand given is imported: ``tablectl run``
#: (every daemon) does not load the par sheets, the devices by hand or the web service, nor ``settle`` the
#: configuration's models (issue 12).  tests/test_tablectl_pc.py checks each module adds exactly these.
SUBCOMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("controller.cli.device", ("sim", "inject", "watch")),  # the devices by hand
    ("web.cli", ("web",)),  # the dealer's screen and the floor's pages (web/)
    ("web.pit.cli", ("pit",)),  # every table of the pit on one page (web/pit/, docs/pit.md)
    ("controller.cli.table", ("run", "status", "recall", "progressive")),  # the daemon, its rounds and meters
    ("controller.cli.journal", ("journal",)),  # the journal as a file: its chain, identity, key, meters restored
    ("controller.cli.analyze", ("analyze",)),  # par sheets
    ("controller.cli.check", ("check-config",)),  # a configuration (and its devices) before the daemon starts
    ("controller.cli.supervisor", ("supervisor",)),  # an entry of the supervisors' allow-list
    ("controller.cli.link", ("link",)),  # the linked progressive's database (controller/link)
    ("controller.cli.protection", ("protection",)),  # game protection's findings and hold (issue 28)
    ("controller.cli.control", ("parameters", "meters")),  # changes under control, dual control (P114)
    ("controller.cli.program", ("verify-program",)),  # the installed program against its manifest (P115)
)


class InputError(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(f"{key}: appears twice in one JSON object")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise InputError(f"{name} is not an amount")


def load_json(text: str) -> Any:
    """JSON with exact numbers: decimals become ``Decimal``, never float; duplicate keys are refused; nesting
    and the length of a number are bounded (games.contract: past them the reader would stop with a traceback)."""
    from games.contract import check_json_depth, json_number_hooks
    from games.round import RoundError

    try:
        check_json_depth(text)
        return json.loads(text, parse_constant=_constant, object_pairs_hook=_pairs, **json_number_hooks())
    except json.JSONDecodeError as e:
        raise InputError(f"input: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RoundError as e:
        raise InputError(str(e)) from None


def _is_json_lines(text: str) -> bool:
    """JSON Lines when there are two or more non-empty lines and the first is a whole JSON object."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return False
    try:
        return isinstance(load_json(lines[0]), dict)
    except InputError:
        return False


def _settle_one(obj: Any) -> dict[str, Any]:
    from games.contract import settle, settlement_json

    if not isinstance(obj, dict):
        raise InputError(f"input: a round is a JSON object, not {type(obj).__name__}")
    return settlement_json(settle(obj))


MAX_ERROR = 300  # characters of one error line: a refusal never echoes a huge input whole


def one_line(error: Exception) -> str:
    """The error as one readable line."""
    text = " ".join(str(error).split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 1] + "…"


def _quiet(stream: TextIO) -> None:
    """After a broken pipe: point the real stdout at /dev/null so that its flush at exit cannot fail."""
    if stream is sys.stdout:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def cmd_settle(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from games.contract import dumps
    from games.round import RoundError

    try:
        if args.file and args.file != "-":
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        else:
            text = stdin.read()
    except OSError as e:
        print(f"tablectl settle: {args.file!r}: {e.strerror}", file=stderr)
        return EXIT_REFUSED
    except ValueError as e:  # a NUL in the name no file system takes
        if isinstance(e, UnicodeDecodeError):  # the contract's JSON is UTF-8 text
            print(f"tablectl settle: {args.file or 'input'}: not UTF-8 text (byte {e.start})", file=stderr)
        else:
            print(f"tablectl settle: {args.file!r}: not a file name ({e})", file=stderr)
        return EXIT_REFUSED

    if _is_json_lines(text):
        status = EXIT_OK
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                out = _settle_one(load_json(line))
            except (RoundError, InputError) as e:
                out = {"line": number, "error": one_line(e)}
                status = EXIT_REFUSED
            stdout.write(dumps(out) + "\n")
        return status

    try:
        out = _settle_one(load_json(text))
    except (RoundError, InputError) as e:
        print(f"tablectl settle: {one_line(e)}", file=stderr)
        return EXIT_REFUSED
    stdout.write(dumps(out, indent=2) + "\n")
    return EXIT_OK


class Parser(argparse.ArgumentParser):
    """A parser whose refusal is one line naming the command (``tablectl recall: argument N: ...``), exit 2,
    not a usage block: the operator sees what was wrong, ``--help`` shows the usage (issue 30).  Every
    subcommand's parser is one (argparse makes a subparser of its parent's class)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: {one_line(ValueError(message))}\n")
        sys.exit(EXIT_REFUSED)


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``; anything else is refused in one line
    (a negative count, a count past what any journal holds, that SQLite could not even take)."""

    def parse(text: str) -> int:
        try:
            value = int(text) if len(text) <= 20 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text[:40]!r}: a whole number from {low} to {high:,}")
        return value

    return parse


class _Version(argparse._VersionAction):
    """``--version``, its line made when it is asked for: not by every command (it runs git in a source tree)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from controller.version import describe

        self.version = describe()
        super().__call__(parser, namespace, values, option_string)


def _command(argv: Sequence[str] | None) -> str | None:
    """The subcommand ``argv`` begins with (``settle`` or one of ``SUBCOMMANDS``); else None, and every
    subcommand is registered (``--help``, ``--version``, a misspelt command that argparse refuses)."""
    args = sys.argv[1:] if argv is None else argv
    known = {name for _, names in SUBCOMMANDS for name in names} | {"settle"}
    return args[0] if args and args[0] in known else None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; with ``command``, of that one only (the others' modules are not
    imported, their handlers would not run)."""
    parser = Parser(prog="tablectl", description="Casino card table controller")
    parser.add_argument("--version", action=_Version,
                        help="the version and the git commit this copy was built from, then exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser(
        "settle",
        help="settle one round (JSON) or a day's rounds (JSON Lines) by the rules",
        description="Read one round as JSON (or JSON Lines, one round per line) from FILE or standard input "
        "and write what every wager pays (shared/contracts/settle.md).",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="the round(s); standard input when omitted or '-'")
    p.set_defaults(handler=cmd_settle)
    for module, names in SUBCOMMANDS:
        if command is None or command in names:
            importlib.import_module(module).register(sub)
    return parser


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    args = build_parser(_command(argv)).parse_args(argv)
    out = stdout or sys.stdout
    try:
        return int(args.handler(args, stdin or sys.stdin, out, stderr or sys.stderr))
    except BrokenPipeError:
        # the reader went away (``tablectl recall | head``): nothing more to write, and no traceback
        _quiet(out)
        return EXIT_REFUSED
    except Exception as e:  # noqa: BLE001 - the last resort: each command refuses its bad input itself
        print(f"tablectl {args.command}: program error, not a refusal of the input ({type(e).__name__}: "
              f"{one_line(e)}); please report it", file=stderr or sys.stderr)
        return EXIT_PROGRAM_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``tablectl analyze``: the par sheet of one wager (shared/contracts/analyze.md)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, TextIO

from games.analysis import AnalysisError, analyze
from games.contract import dumps

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze",
        help="the par sheet of one wager: exact counts, return and house edge",
        description="Count every equally likely outcome of the cards a wager depends on and give the "
        "count of each paytable line, the return and the house edge (shared/contracts/analyze.md). "
        "--rounds and --seed are for simulated wagers; exact wagers ignore them.",
    )
    # Everything is read as text and checked here, so that a bad value is refused in one line.
    p.add_argument("--game", metavar="GAME")
    p.add_argument("--wager", metavar="WAGER")
    p.add_argument("--paytable", metavar="LETTER")
    p.add_argument("--json", action="store_true", help="one JSON object on standard output")
    p.add_argument("--rounds", metavar="N", help="rounds to simulate (simulated wagers only)")
    p.add_argument("--seed", metavar="S", help="random seed (simulated wagers only)")
    p.add_argument("--meter", action="append", default=[], metavar="NAME=AMOUNT",
                   help="a progressive meter amount (default: the rules' minimum reset)")
    p.set_defaults(handler=cmd_analyze)

    def one_line_error(message: str) -> None:  # an unknown option: one line, exit 2, not a usage block
        sys.stderr.write(f"tablectl analyze: {message}\n")
        sys.exit(EXIT_REFUSED)

    p.error = one_line_error  # type: ignore[method-assign]


def _check_int(name: str, text: str | None, minimum: int) -> None:
    if text is None:
        return
    try:
        value = int(text)
    except ValueError:
        raise AnalysisError(name, f"{text!r} is not a whole number") from None
    if value < minimum:
        raise AnalysisError(name, f"{text!r}: at least {minimum}")


class _Bar:
    """A progress bar on standard error, shown once a run has taken more than a second."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.start = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.shown and time.monotonic() - self.start < 1:
            return
        width = 30
        filled = width * done // total
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} hands")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def render(result: dict[str, Any]) -> str:
    """The par sheet as a readable table."""
    space = result["space"]
    rows = [(line["line"], line["pays"], line["count"]) for line in result["lines"]]
    rows.append(("(losing)", "", result["losing_count"]))
    w_line = max(len(r[0]) for r in rows)
    w_pays = max(len("pays"), *(len(r[1]) for r in rows))
    w_count = max(len(f"{r[2]:,}") for r in rows)
    out = [
        (
            f"{result['game']} {result['wager']} paytable {result['paytable']}: "
            f"{result['method']}, {space:,} equally likely outcomes"
        ),
        "",
        f"{'line':<{w_line}}  {'pays':<{w_pays}}  {'count':>{w_count}}  probability",
    ]
    for line, pays, count in rows:
        out.append(f"{line:<{w_line}}  {pays:<{w_pays}}  {count:>{w_count},}  {count / space:.8f}")
    out.append("")
    if "meters" in result:
        meters = ", ".join(f"{k} {v}" for k, v in result["meters"].items())
        out.append(f"meters: {meters} (progressive unit {result['progressive_unit']})")
    out.append(f"return      {result['return']}  ({result['return_exact']})")
    out.append(f"house edge  {result['house_edge']}")
    return "\n".join(out) + "\n"


def cmd_analyze(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    bar = None if args.json else _Bar(stderr)
    try:
        _check_int("--rounds", args.rounds, 1)
        _check_int("--seed", args.seed, 0)
        result = analyze(args.game, args.wager, args.paytable, args.meter, progress=bar)
    except AnalysisError as e:
        if bar is not None:
            bar.close()
        print(f"tablectl analyze: {e}", file=stderr)
        return EXIT_REFUSED
    if bar is not None:
        bar.close()
    stdout.write(dumps(result, indent=2) + "\n" if args.json else render(result))
    return EXIT_OK

"""``tablectl analyze``: the par sheet of one wager (shared/contracts/analyze.md)."""

from __future__ import annotations

import argparse
import time
from decimal import Decimal, InvalidOperation
from typing import Any, TextIO

from games.contract import dumps
from games.money import MAX_AMOUNT

# games.analysis (and numpy, which its simulation uses) is imported when a par sheet is asked for, not
# with the command line: every other tablectl command, the daemon's `run` among them, would pay about
# 0.2 s of CPU at each start to load it.

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "analyze",
        help="the par sheet of one wager: line counts, return and house edge",
        description="Count every equally likely outcome of the cards a wager depends on (exact), or, for "
        "the base games played with their documented strategy (--wager base) and the UTH Bad Beat, "
        "simulate rounds settled by the game's own code (simulation, with a 95 percent confidence interval); "
        "give the count of each paytable line, the return and the house edge "
        "(shared/contracts/analyze.md, docs/analysis.md). A base game with a stored exact sheet (games/par) is "
        "answered from it (--strategy optimal or posted, --recompute to recompute it); --rounds simulates it. "
        "--rounds and --seed are for simulated wagers, "
        "--other-seats for the Envy Bonus, --unit and --rate for the Progressive wager and its Envy Bonus; "
        "other wagers ignore them.",
    )
    # Everything is read as text and checked here, so that a bad value is refused in one line.
    p.add_argument("--game", metavar="GAME", help="the game, e.g. ultimate_texas_holdem, high_card_flush")
    p.add_argument("--wager", metavar="WAGER", help="the wager, by the settle contract's name, e.g. trips, base")
    p.add_argument("--paytable", metavar="LETTER", help="the rules' paytable letter, e.g. A")
    p.add_argument("--json", action="store_true", help="one JSON object on standard output")
    p.add_argument("--rounds", metavar="N", help="rounds to simulate (simulated wagers only; default per wager)")
    p.add_argument("--seed", metavar="S", help="random seed: the same seed gives the same result (default 1)")
    p.add_argument(
        "--other-seats", metavar="N", help="Envy Bonus: other seats with a Progressive wager (0-5, default 5)"
    )
    p.add_argument("--meter", action="append", default=[], metavar="NAME=AMOUNT",
                   help="a progressive meter's reset amount (default: the rules' minimum reset)")
    p.add_argument("--unit", metavar="AMOUNT",
                   help="Progressive and Envy: the table's Progressive unit in dollars (default 1, RULINGS R3)")
    p.add_argument("--rate", action="append", default=[], metavar="NAME=FRACTION",
                   help="Progressive and Envy: the fraction of each wager added to a meter (default 0)")
    p.add_argument("--hidden-rate", action="append", default=[], metavar="NAME=FRACTION",
                   help="Progressive and Envy: the part of a meter's rate held in reserve for the next reset "
                   "(default 0; the return with contributions counts the rate less it)")
    p.add_argument("--strategy", metavar="STRATEGY",
                   help="--wager base: optimal (each decision by the exact expected values) or posted (the "
                   "documented strategy, the default); answered from the stored exact sheet")
    p.add_argument("--recompute", action="store_true",
                   help="--wager base: recompute the exact sheet instead of reading the stored one (minutes)")
    p.set_defaults(handler=cmd_analyze)  # a bad option: one line, exit 2 (controller.cli.main.Parser)


#: Bounds on what the options may ask for (issue 30): past them a run would not end in a working day, or
#: Decimal and Fraction arithmetic would fail (an exponent past the context, a 4,300-digit integer) and the
#: command would stop with a traceback.  Twenty times the longest default run; a seed of 64 bits.
MAX_ROUNDS = 1_000_000_000
MAX_SEED = 2**64 - 1
MAX_TEXT = 40  # characters of one number
MAX_RATE_DECIMALS = 12  # a contribution rate such as 0.0125: far finer than any meter counts


def _check_int(name: str, text: str | None, minimum: int, maximum: int | None = None) -> int | None:
    from games.analysis import AnalysisError

    if text is None:
        return None
    try:
        if len(text) > MAX_TEXT:
            raise ValueError(text)
        value = int(text)
    except ValueError:
        raise AnalysisError(name, f"{text[:MAX_TEXT]!r} is not a whole number") from None
    if value < minimum:
        raise AnalysisError(name, f"{text!r}: at least {minimum}")
    if maximum is not None and value > maximum:
        raise AnalysisError(name, f"{text!r}: at most {maximum}")
    return value


def _number(name: str, item: str, text: str) -> Decimal | None:
    """The number in an option's ``text`` if it is one (else None: games.analysis says what it expected)."""
    from games.analysis import AnalysisError

    if len(text) > MAX_TEXT:
        raise AnalysisError(name, f"{item[:MAX_TEXT]!r}…: a number of at most {MAX_TEXT} characters")
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _check_amounts(args: argparse.Namespace) -> None:
    """--unit and each --meter at most games.money.MAX_AMOUNT; each --rate at most MAX_RATE_DECIMALS
    decimals: what games.analysis computes with them stays exact and small."""
    from games.analysis import AnalysisError

    amounts = [("--unit", args.unit, args.unit)] if args.unit is not None else []
    amounts += [("--meter", item, item.partition("=")[2]) for item in args.meter]
    for name, item, text in amounts:
        value = _number(name, item, text)
        if value is not None and value.copy_abs() > MAX_AMOUNT:
            raise AnalysisError(name, f"{item!r}: at most {MAX_AMOUNT:,} dollars")
    for item in (*args.rate, *args.hidden_rate):
        value = _number("--rate", item, item.partition("=")[2])
        if value is not None and -int(value.as_tuple().exponent) > MAX_RATE_DECIMALS:
            raise AnalysisError("--rate", f"{item!r}: a fraction with at most {MAX_RATE_DECIMALS} decimals")


class _Bar:
    """Progress on standard error once a run has taken more than a second, with how long it will take
    (the rate measured over that first second).  On a terminal a bar redrawn in place; elsewhere (a
    log, a pipe) one line when the run starts to take time and one when it ends: no carriage returns."""

    def __init__(self, stream: TextIO, unit: str = "outcomes"):
        self.stream = stream
        self.unit = unit
        self.start = time.monotonic()
        self.shown = False
        self.tty = stream.isatty()

    def _left(self, done: int, total: int) -> str:
        elapsed = time.monotonic() - self.start
        rate = done / elapsed if elapsed > 0 else 0
        left = f"about {(total - done) / rate:,.0f} s left" if rate else "time left unknown"
        return f"{rate:,.0f} {self.unit}/s, {left}"

    def __call__(self, done: int, total: int) -> None:
        if not self.shown and time.monotonic() - self.start < 1:
            return
        if self.tty:
            width = 30
            filled = width * done // total
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} {self.unit}, "
                              f"{self._left(done, total)}   ")
        elif not self.shown:
            self.stream.write(f"tablectl analyze: {total:,} {self.unit}, {self._left(done, total)}\n")
        else:
            return
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            took = f"done in {time.monotonic() - self.start:,.0f} s"
            self.stream.write(f" {took}\n" if self.tty else f"tablectl analyze: {took}\n")
            self.stream.flush()


def render(result: dict[str, Any]) -> str:
    """The par sheet as a readable table."""
    if result["method"] == "simulation":
        return _render_simulation(result)
    if result["wager"] == "base":
        return _render_exact_base(result)
    space = result["space"]
    rows = [(line["line"], line["pays"], line["count"]) for line in result["lines"]]
    rows.append(("(losing)", "", result["losing_count"]))
    out = [
        (
            f"{result['game']} {result['wager']} paytable {result['paytable']}: "
            f"{result['method']}, {space:,} equally likely outcomes"
            + (" (the hand of one other seat)" if result["wager"] == "envy" else "")
        ),
        "",
        *_table(rows, space, "probability"),
        "",
    ]
    if "meters" in result:
        meters = ", ".join(f"{k} {v}" for k, v in result["meters"].items())
        out.append(f"meters at reset: {meters} (progressive unit ${result['progressive_unit']})")
    if "meter_hits" in result:
        out += _render_hits(result)
    if result["wager"] == "envy":
        out.append(
            f"envy per other seat {result['envy_per_other_seat']} x {result['other_seats']} other seats "
            f"= {result['envy_return']}"
        )
        out.append(f"progressive {result['progressive_paytable']} return {result['progressive_return']}")
        out.append("return (the Progressive wager with its Envy Bonus):")
    out.append(f"return      {result['return']}  ({result['return_exact']})")
    out.append(f"house edge  {result['house_edge']}")
    if "contribution_rate" in result:
        rates = ", ".join(f"{k} {v}" for k, v in result["rates"].items())
        out.append(
            f"return at reset + contribution rate {result['contribution_rate']} ({rates})"
            f" = {result['return_with_contributions']}"
        )
        how = "exact" if result["long_run"]["method"] == "exact" else "the meter's stationary chain"
        out.append(f"long-run return (the meters under R4, {how}) = {result['return_long_run']}")
        be = result["break_even_meter"]
        if be["amount"] is None:
            out.append(f"break-even {be['meter']} meter: none, the return is 100% or more at the reset amounts")
        else:
            out.append(
                f"break-even {be['meter']} meter (the return reaches 100%, other meters at reset): {be['amount']:,}"
            )
    return "\n".join(out) + "\n"


def _render_exact_base(result: dict[str, Any]) -> str:
    """A base game's exact sheet (games.par): the figures a game-math lab signs."""
    paytable = f" paytable {result['paytable']}" if result["paytable"] else ""
    out = [
        f"{result['game']} base{paytable}: {result['method']}, {result['space']:,} equally likely outcomes",
        f"strategy: {result['strategy']} ({result['strategy_played']})",
        f"per unit of {result['unit']}",
        "",
        *_table([(line["line"], line["pays"], line["count"]) for line in result["lines"]], result["space"],
                "probability"),
        "",
        "decisions: " + ", ".join(f"{k} {v}" for k, v in result["decisions"].items()),
        "outcomes: " + ", ".join(f"{k} {v}" for k, v in result["outcomes"].items()),
        "net per round, by wager: " + ", ".join(f"{k} {v}" for k, v in result["wagers"].items()),
        "",
        f"return      {result['return']}  ({result['return_exact']})",
        f"house edge  {result['house_edge_per_ante']} per Ante",
        f"element of risk  {result['element_of_risk']}  (average wagered {result['average_wagered']} units)",
        f"standard deviation of a round  {result['std_dev']} units",
    ]
    for p in result["published"]:
        out.append(f"published: {p['figure']} {p['value']} ({p['source']})")
    return "\n".join(out) + "\n"


def _one_in(hits: dict[str, Any]) -> str:
    return "never" if hits["one_in"] is None else f"1 in {hits['one_in']:,}"


def _render_hits(result: dict[str, Any]) -> list[str]:
    """Hit frequencies: any paying line, each line (in the table above), each meter."""
    out = [f"hit frequency (any paying line): {_one_in(result['hit_frequency'])}"]
    for m in result["meter_hits"]:
        out.append(f"{m['meter']} meter ({', '.join(m['lines'])}): {_one_in(m)}")
    return out


def _table(rows: list[tuple[str, str, int]], total: int, last: str) -> list[str]:
    w_line = max([len("line"), *(len(r[0]) for r in rows)])
    w_pays = max([len("pays"), *(len(r[1]) for r in rows)])
    w_count = max([len("count"), *(len(f"{r[2]:,}") for r in rows)])
    out = [f"{'line':<{w_line}}  {'pays':<{w_pays}}  {'count':>{w_count}}  {last}"]
    for line, pays, count in rows:
        out.append(f"{line:<{w_line}}  {pays:<{w_pays}}  {count:>{w_count},}  {count / total:.8f}")
    return out


def _render_simulation(result: dict[str, Any]) -> str:
    rounds = result["rounds"]
    paytable = f" paytable {result['paytable']}" if result["paytable"] else ""
    out = [
        f"{result['game']} {result['wager']}{paytable}: simulation, {rounds:,} rounds, seed {result['seed']}",
    ]
    if "strategy" in result:
        out.append(f"strategy: {result['strategy']}")
        out.append(f"per unit of {result['unit']}")
    out.append("")
    rows = [(line["line"], line["pays"], line["count"]) for line in result["lines"]]
    if rows:
        if "line_counts" in result:
            out.append(f"counts: {result['line_counts']}")
        out += _table(rows, rounds, "per round")
        out.append("")
    for key in ("decisions", "outcomes"):
        if key in result:
            items = ", ".join(f"{k} {v:,} ({v / rounds:.2%})" for k, v in result[key].items())
            out.append(f"{key}: {items}")
    if "wagers" in result:
        out.append("net per round, by wager: " + ", ".join(f"{k} {v}" for k, v in result["wagers"].items()))
    if "losing_count" in result:
        out.append(f"losing: {result['losing_count']:,}")
    out.append("")
    low, high = result["ci95"]
    out.append(f"return      {result['return']}")
    out.append(f"house edge  {result['house_edge']}  (95% confidence interval {low} to {high})")
    if "house_edge_per_initial_wagers" in result:
        out.append(f"house edge per initial wagers  {result['house_edge_per_initial_wagers']}")
        out.append(
            f"element of risk  {result['element_of_risk']}  (average wagered {result['average_wagered']} units)"
        )
    return "\n".join(out) + "\n"


def cmd_analyze(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from games.analysis import AnalysisError, analyze, simulated

    simulate = simulated(args.game, args.wager, args.rounds)
    unit = "boards" if args.recompute else "rounds" if simulate else "outcomes"
    # --recompute shows its progress line even with --json: minutes of work (on standard error)
    bar = None if args.json and not args.recompute else _Bar(stderr, unit)
    try:
        rounds = _check_int("--rounds", args.rounds, 1, MAX_ROUNDS)
        seed = _check_int("--seed", args.seed, 0, MAX_SEED)
        _check_amounts(args)
        other_seats = _check_int("--other-seats", args.other_seats, 0, 5)
        result = analyze(
            args.game, args.wager, args.paytable, args.meter, progress=bar,
            rounds=rounds, seed=seed, other_seats=other_seats, unit=args.unit, rate_args=args.rate,
            hidden_rate_args=args.hidden_rate,
            strategy=args.strategy, recompute=args.recompute,
        )
    except AnalysisError as e:
        if bar is not None:
            bar.close()
        print(f"tablectl analyze: {e}", file=stderr)
        return EXIT_REFUSED
    if bar is not None:
        bar.close()
    stdout.write(dumps(result, indent=2) + "\n" if args.json else render(result))
    return EXIT_OK

"""``tablectl run``, ``status``, ``recall`` and ``progressive``: the daemon and what it kept."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any, TextIO

from controller.config import ConfigError
from controller.journal import Journal, JournalError
from controller.paths import add_table_options, load_table

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the table daemon", description="Run the table daemon for one table "
                       "(what the unit table-controller@ID runs: `tablectl run --table ID`).")
    add_table_options(p)
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser("status", help="the table, its round and devices, as the daemon last published them",
                       description="The table's state, its devices, meters and the open round's public view, "
                       "from the status file the daemon keeps beside its journal (no hole card is in it).")
    add_table_options(p)
    p.add_argument("--json", action="store_true", help="the status file as it is, JSON")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("recall", help="the last rounds, card by card, from the journal",
                       description="The last N rounds (or one round), event by event, as the journal kept them.")
    p.add_argument("last", nargs="?", type=int, default=10, metavar="N", help="how many rounds (default 10)")
    add_table_options(p)
    p.add_argument("--round", metavar="ID", help="one round, by its round id")
    p.add_argument("--steps", action="store_true", help="with --round: the round step by step as the table saw "
                   "it (cards dealt, decisions, reveals, the order of payment)")
    p.add_argument("--json", action="store_true", help="with --round: the round as `tablectl settle` input; "
                   "with --steps: the steps")
    p.set_defaults(handler=cmd_recall)

    p = sub.add_parser("progressive", help="the progressive system: validated hits and the meters' report",
                       description="What the journal kept of the progressive: `history` (the last hits, with "
                       "the supervisor who validated each) and `report` (per meter: coin-in, contributions, "
                       "hits, paid, current value).")
    p.add_argument("what", choices=["history", "report"], help="history: the last hits; report: per meter")
    add_table_options(p)
    p.add_argument("--last", type=int, default=25, metavar="N", help="history: how many hits (default 25)")
    p.add_argument("--since", metavar="WHEN", help="report: only what was journaled from WHEN on (an ISO date "
                   "YYYY-MM-DD or date-time YYYY-MM-DDTHH:MM[:SS][+HH:MM]; UTC when no offset)")
    p.add_argument("--until", metavar="WHEN", help="report: only what was journaled before WHEN (a date alone: "
                   "to the end of that day, UTC)")
    p.add_argument("--json", action="store_true", help="the history or report as JSON")
    p.set_defaults(handler=cmd_progressive)


def _config(args: argparse.Namespace, stderr: TextIO):
    try:
        return load_table(args)
    except ConfigError as e:
        print(f"tablectl {args.command}: {e}", file=stderr)
        return None


def _config_with_journal(args: argparse.Namespace, stderr: TextIO):
    """The configuration of a table whose journal exists (a read-only command never creates one)."""
    cfg = _config(args, stderr)
    if cfg is None:
        return None
    if not Path(cfg.journal).exists():
        print(f"tablectl {args.command}: no journal at {cfg.journal}", file=stderr)
        return None
    return cfg


def cmd_run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from controller import logs
    from controller.daemon import TableDaemon

    cfg = _config(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    logs.configure(cfg.log_format)
    unusable: list[str] = []

    async def main() -> None:
        try:  # a journal that cannot be opened or written: one line naming it and why, no traceback (P97)
            Path(cfg.journal).parent.mkdir(parents=True, exist_ok=True)
            daemon = TableDaemon(cfg)
        except JournalError as e:
            unusable.append(str(e))
            return
        except (OSError, sqlite3.Error) as e:
            unusable.append(f"the journal {cfg.journal} is not usable: {e}")
            return
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, daemon.stop)
        await daemon.run()

    asyncio.run(main())
    if unusable:
        print(f"tablectl run: {cfg.id}: {unusable[0]}", file=stderr)
        return EXIT_REFUSED
    return EXIT_OK


def cmd_status(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    cfg = _config(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    path = Path(cfg.journal).with_suffix(".status.json")
    if not path.exists():
        print(f"tablectl status: {cfg.id}: no status at {path} (is the daemon running?)", file=stderr)
        return EXIT_REFUSED
    status = json.loads(path.read_text())
    if args.json:
        stdout.write(json.dumps(status, indent=2) + "\n")
        return EXIT_OK
    r = status.get("round") or {}
    stdout.write(f"table {status['table']} ({status['game']}): {status['state']}\n")
    stdout.write(f"devices: {', '.join(f'{k} {v}' for k, v in status['devices'].items())}\n")
    if status["meters"]:
        stdout.write(f"meters: {', '.join(f'{k} {v}' for k, v in status['meters'].items())}\n")
    if r:
        stdout.write(f"round {r['round_id']}: {r['phase']}\n")
        for seat, s in sorted(r["seats"].items(), key=lambda x: int(x[0])):
            cards = s["cards"] if isinstance(s["cards"], list) else f"{s['cards']} cards"
            stdout.write(f"  seat {seat}: {s['wagers']} {cards}{' folded' if s['folded'] else ''}\n")
    if status.get("message"):
        stdout.write(f"dealer: {status['message']}\n")
    return EXIT_OK


def cmd_progressive(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from controller import progressive as prog

    period = {}
    for option in ("since", "until"):
        text = getattr(args, option)
        if text is None:
            continue
        if args.what != "report":
            print(f"tablectl progressive: --{option} applies to the report only", file=stderr)
            return EXIT_REFUSED
        try:
            period[option] = prog.parse_when(text, end=option == "until")
        except ValueError as e:
            print(f"tablectl progressive: --{option}: {e}", file=stderr)
            return EXIT_REFUSED
    if "since" in period and "until" in period and period["since"] >= period["until"]:
        print(f"tablectl progressive: --since ({period['since'].isoformat()}) must be before --until "
              f"({period['until'].isoformat()})", file=stderr)
        return EXIT_REFUSED
    cfg = _config_with_journal(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    with Journal(cfg.journal) as journal:
        if args.what == "history":
            rows = prog.history(journal, args.last)
            if args.json:
                stdout.write(json.dumps(rows, indent=2, default=str) + "\n")
                return EXIT_OK
            if not rows:
                stdout.write("no progressive hits\n")
            for h in rows:
                source = h.get("meter") or "fixed"
                stdout.write(f"{h['at']}  {source:<8} {h['amount']:>12}  seat {h['seat']}  {h['wager']} "
                             f"{h['line']}  round {h['round']}  validated by {h['validated_by']}\n")
            return EXIT_OK
        rep = prog.report(journal, cfg.progressive.meters, **period)
    if args.json:
        stdout.write(json.dumps(rep, indent=2, default=str) + "\n")
        return EXIT_OK
    if period:
        since, until = rep["period"]["since"] or "the first event", rep["period"]["until"] or "now"
        stdout.write(f"period: from {since} to {until} (UTC; current: the meters now)\n")
    stdout.write(f"progressive wagers: {rep['progressive_wagers']}\n")
    stdout.write(f"{'meter':<10} {'coin-in':>12} {'contributions':>14} {'hits':>5} {'paid':>12} {'current':>12}\n")
    for m, row in rep["meters"].items():
        stdout.write(f"{m:<10} {row['coin_in']:>12} {row['contributions']:>14} {row['hits']:>5} "
                     f"{row['paid']:>12} {row['current']:>12}\n")
    stdout.write(f"{'fixed':<10} {'':>12} {'':>14} {rep['fixed']['hits']:>5} {rep['fixed']['paid']:>12}\n")
    return EXIT_OK


def cmd_recall(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from controller import replay
    from controller.round import RoundController
    from controller.table import setup_from_journal
    from games.contract import dumps

    if args.steps and not args.round:
        print("tablectl recall: --steps replays one round: give --round ID", file=stderr)
        return EXIT_REFUSED
    cfg = _config_with_journal(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    with Journal(cfg.journal) as journal:
        if args.round:
            events = journal.events(args.round)
            if not events:
                print(f"tablectl recall: no round {args.round} in the journal", file=stderr)
                return EXIT_REFUSED
            if args.steps:
                steps = replay.replay(args.round, events)
                if args.json:
                    stdout.write(json.dumps(steps, indent=2, default=str) + "\n")
                else:
                    stdout.write("\n".join(replay.lines(steps)) + "\n")
                return EXIT_OK
            if args.json:
                if replay.in_play(events):
                    # the settle input holds every card: not before the round is closed (secrets)
                    print(f"tablectl recall: round {args.round} is still in play: its cards are not shown "
                          "until it is closed (--steps shows what is face up)", file=stderr)
                    return EXIT_REFUSED
                r = asyncio.run(RoundController.restore(args.round, setup_from_journal(events[0].data),
                                                        [(e.kind, e.data) for e in events]))
                stdout.write(dumps(r.settle_input(), indent=2) + "\n")
                return EXIT_OK
            _print_round(events, stdout)
            return EXIT_OK
        for summary in journal.rounds(last=args.last):
            stdout.write(f"round {summary.round_id}  {summary.started_at}  {summary.closed_by or 'OPEN'}\n")
            _print_round(journal.events(summary.round_id), stdout)
    return EXIT_OK


def _print_round(events: list[Any], out: TextIO) -> None:
    """Card by card, as the journal has it: a closed round whole (the record); a round still in play
    without the cards that are not face up (hole cards, the dealer's, community cards before their reveal)."""
    from controller.replay import in_play

    secret = in_play(events)
    for e in events:
        d = e.data
        if e.kind == "card":
            line = f"{d['place']} <- {'face down' if secret else d['card']}"
        elif e.kind == "seat_skipped" and secret:
            line = f"seat {d['seat']} skipped, by {d['by']}"
        elif e.kind == "revealed":
            line = f"{d['what']} {' '.join(d['cards'])} ({d['clause']})"
        elif e.kind == "wager":
            line = f"seat {d['seat']} {d['wager']} {d['amount']}"
        elif e.kind == "decision":
            what = "fold" if d["fold"] else "check" if d["check"] else f"{d['multiple']}x"
            line = f"seat {d['seat']} {what}"
        else:
            line = json.dumps(d, default=str) if d else ""
        out.write(f"  {e.seq:>6} {e.kind:<16} {line}\n")


__all__ = ["register"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)

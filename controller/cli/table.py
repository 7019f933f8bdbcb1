"""``tablectl run``, ``status``, ``recall`` and ``progressive``: the daemon and what it kept."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from controller import liveness
from controller.cli.main import whole_number
from controller.config.table import ConfigError, TableConfig
from controller.journal.store import Journal, JournalError
from controller.paths import add_table_options, config_file, heartbeat_file, load_table, status_file

EXIT_OK, EXIT_REFUSED = 0, 2
STALE_BEATS = 3  # a status older than this many of its rewrites: the daemon is not running (the status's own age)
MAX_LAST = 1_000_000  # rounds or hits one command lists: more than a table plays in years


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run the table daemon", description="Run the table daemon for one table "
                       "(what the unit table-controller@ID runs: `tablectl run --table ID`).")
    add_table_options(p)
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser("status", help="the table, its round and devices, as the daemon last published them",
                       description="The table's state, its devices, meters and the open round's public view, "
                       "from the status file the daemon keeps beside its journal (no hole card is in it).")
    add_table_options(p)
    p.add_argument("--json", action="store_true", help="the status file as it is, JSON, with `running` (as the "
                   "dealer's screen says it: the daemon's heartbeat), `heartbeat` (its last, epoch seconds, or null) "
                   "and `heartbeat_age` (seconds since the daemon last beat or wrote its status)")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("recall", help="the last rounds, card by card, from the journal",
                       description="The last N rounds (or one round), event by event, as the journal kept them.")
    p.add_argument("last", nargs="?", type=whole_number(0, MAX_LAST), default=10, metavar="N",
                   help="how many rounds (default 10)")
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
    p.add_argument("--last", type=whole_number(0, MAX_LAST), default=25, metavar="N",
                   help="history: how many hits (default 25)")
    p.add_argument("--since", metavar="WHEN", help="report: only what was journaled from WHEN on (an ISO date "
                   "YYYY-MM-DD or date-time YYYY-MM-DDTHH:MM[:SS][+HH:MM]; UTC when no offset)")
    p.add_argument("--until", metavar="WHEN", help="report: only what was journaled before WHEN (a date alone: "
                   "to the end of that day, UTC)")
    p.add_argument("--json", action="store_true", help="the history or report as JSON")
    p.add_argument("--link", action="store_true", help="report: the linked meters per table from the link's "
                   "database, this table's journal reconciled with it to the cent (docs/linked-progressive.md)")
    p.set_defaults(handler=cmd_progressive)



def _config(args: argparse.Namespace, stderr: TextIO) -> TableConfig | None:
    try:
        return load_table(args)
    except ConfigError as e:
        one = f"{e.source}: {e.problems[0]}" if len(e.problems) == 1 else str(e)  # one problem: one line
        print(f"tablectl {args.command}: {one}", file=stderr)
        return None


def _refuse(args: argparse.Namespace, error: Exception | str, stderr: TextIO) -> int:
    from controller.cli.main import one_line

    text = one_line(error) if isinstance(error, Exception) else error
    print(f"tablectl {args.command}: {text}", file=stderr)
    return EXIT_REFUSED


def _config_with_journal(args: argparse.Namespace, stderr: TextIO) -> TableConfig | None:
    """The configuration of a table whose journal exists (a read-only command never creates one)."""
    cfg = _config(args, stderr)
    if cfg is None:
        return None
    if not Path(cfg.journal).is_file():
        _refuse(args, f"no journal at {cfg.journal}", stderr)
        return None
    return cfg


def _open_journal(args: argparse.Namespace, cfg: Any, stderr: TextIO, *, full: bool,
                  segments: bool = True, remembered: bool = False, whole: bool = False) -> Journal | None:
    """The table's journal, read-only (nothing is written into it, not even a schema), once its chain
    verifies and it is this table's and game's (P90); None after one line on stderr.  ``remembered``:
    each file from the point an earlier call verified it through (P79), every row the first time."""
    from controller.journal.segments import SegmentedJournal, open_for_reading, verify_remembered

    try:  # across its sealed segments when it has any (P61), those archived too; else the open file
        journal = open_for_reading(cfg.journal, cfg.journal_options.archive_dir) if segments else \
            Journal.read_only(cfg.journal)
    except (JournalError, sqlite3.Error) as e:
        _refuse(args, e, stderr)
        return None
    try:
        if remembered:
            verify_remembered(journal)
        elif isinstance(journal, SegmentedJournal):
            journal.verify(full=full, whole=whole)
        else:
            journal.verify(full=full)
        journal.check_owner(cfg.id, cfg.game)
    except JournalError as e:
        journal.close()
        _refuse(args, f"{cfg.journal}: {e}", stderr)
        return None
    return journal


def cmd_run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from controller import logs
    from controller.daemon import TableDaemon

    cfg = _config(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    kept = cfg.logs  # (a directory that cannot be written loses the files' lines, not the stream's: P116)
    logs.configure(cfg.log_format, files=logs.LogFiles(logs.logs_dir(cfg.journal), keep_days=kept.keep_days,
                                                       max_bytes=kept.max_mb * 2**20, file_bytes=kept.file_mb * 2**20))

    async def main() -> None:
        daemon = TableDaemon(cfg, config_path=config_file(args.table) if getattr(args, "table", None)
                             else Path(args.config) if getattr(args, "config", None) else None)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, daemon.stop)
        await daemon.run()

    from controller.journal.trust import key_file

    if getattr(args, "table", None) and not key_file(cfg.journal).is_file():  # a table PC's table is keyed (P100)
        return _refuse(args, f"the key {key_file(cfg.journal)} of table {cfg.id} is missing (made at install: "
                       f"tablectl journal key --table {cfg.id}; docs/journal.md)", stderr)
    try:
        Path(cfg.journal).parent.mkdir(parents=True, exist_ok=True)
        asyncio.run(main())
    except (JournalError, OSError, sqlite3.Error) as e:
        # a broken, foreign or unusable journal, an unwritable path: one line naming it, not a traceback (P97)
        return _refuse(args, e, stderr)
    return EXIT_OK


def cmd_status(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    cfg = _config(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    path = status_file(cfg.journal)
    if not path.exists():
        print(f"tablectl status: {cfg.id}: no status at {path} (is the daemon running?)", file=stderr)
        return EXIT_REFUSED
    try:
        status = json.loads(path.read_text())
        if not isinstance(status, dict) or not isinstance(status.get("updated"), (int, float)):
            raise ValueError("no heartbeat in it")
    except (OSError, ValueError) as e:  # truncated, unreadable: the daemon's file is not what it should be
        return _refuse(args, f"{cfg.id}: the status file {path} is not readable: {e}", stderr)
    if (status.get("table"), status.get("game")) != (cfg.id, cfg.game):
        return _refuse(args, f"{cfg.id}: the status file {path} is table {status.get('table')}'s "
                       f"({status.get('game')}), not table {cfg.id}'s ({cfg.game})", stderr)
    if Path(cfg.journal).exists():  # what the status shows came from the journal: it must verify (P90)
        journal = _open_journal(args, cfg, stderr, full=False, segments=False)  # what the status came from
        if journal is None:
            return EXIT_REFUSED
        journal.close()
    # running as the screens say it (controller/liveness.py): the heartbeat fresh, a stopped daemon's status
    # may be seconds old, a frozen one's too
    now = time.time()
    alive = liveness.read(heartbeat_file(cfg.journal), now)
    age = max(0.0, now - max(status["updated"], alive.heartbeat or 0.0))
    running = alive.running
    if args.json:
        stdout.write(json.dumps({**status, "running": running, "heartbeat": alive.heartbeat,
                                 "heartbeat_age": round(age, 1)}, indent=2) + "\n")
        return EXIT_OK
    seen = dt.datetime.fromtimestamp(now - age, dt.UTC).isoformat(timespec="seconds")
    if not running:
        # a stopped daemon's last words are not the table now: no devices, no watchdog, no round shown as live
        stdout.write(f"table {status['table']} ({status['game']}): not running (last seen {seen}, {age:.0f} s ago; "
                     f"it last said {status.get('state')})\n")
        return EXIT_OK
    r = status.get("round") or {}
    stdout.write(f"table {status['table']} ({status['game']}): {status['state']} (heartbeat {age:.0f} s ago)\n")
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
    from controller.progressive import hits as prog
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
    journal = _open_journal(args, cfg, stderr, full=True, remembered=True)  # each row rehashed once (P79)
    if journal is None:
        return EXIT_REFUSED
    if args.link:  # the linked meters, the table's journal reconciled with the link's database
        from controller.cli.link import report_command

        if args.what != "report" or period:
            journal.close()
            return _refuse(args, "--link applies to the report, without --since/--until", stderr)
        with journal:
            return report_command(cfg.progressive.link, cfg.progressive.link_id, {cfg.id: journal}, args.json,
                                  stdout, stderr)
    with journal:
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
        rep = prog.report(journal, cfg.progressive.meters, **period, link=prog.linked(cfg.progressive),
                          parameters=cfg.progressive.meters, table=cfg.id)
    if args.json:
        stdout.write(json.dumps(rep, indent=2, default=str) + "\n")
        return EXIT_OK
    if period:
        since, until = rep["period"]["since"] or "the first event", rep["period"]["until"] or "now"
        stdout.write(f"period: from {since} to {until} (UTC; current: the meters now)\n")
    stdout.write(f"progressive wagers: {rep['progressive_wagers']}\n")
    if rep.get("meters_on_link"):
        stdout.write(f"this table's own wagers; the meters are on link '{rep['meters_on_link']}': "
                     "tablectl progressive report --link\n")
    _write_regulated(rep, stdout)
    stdout.write(f"{'meter':<10} {'coin-in':>12} {'contributions':>14} {'hits':>5} {'paid':>12} {'current':>12}\n")
    for m, row in rep["meters"].items():
        stdout.write(f"{m:<10} {row['coin_in']:>12} {row['contributions']:>14} {row['hits']:>5} "
                     f"{row['paid']:>12} {'on link' if row['current'] is None else row['current']:>12}\n")
    stdout.write(f"{'fixed':<10} {'':>12} {'':>14} {rep['fixed']['hits']:>5} {rep['fixed']['paid']:>12}\n")
    return EXIT_OK


def _write_regulated(rep: dict[str, Any], stdout: TextIO) -> None:
    """The meters and parameters as regulators name them (N.J.A.C. 13:69E-1.39A; NY 9 NYCRR 5320.8(b); P114)."""
    def shown(v: object) -> str:
        return "on link" if v is None else str(v)

    stdout.write(f"{'meter':<10} {'in':>12} {'current':>12} {'hits':>5} {'wins':>12} {'overflow':>10} "
                 f"{'reserve':>10}\n")
    for m, row in rep["meters"].items():
        stdout.write(f"{m:<10} {row['in']:>12} {shown(row['current']):>12} {row['hits']:>5} {row['wins']:>12} "
                     f"{shown(row['overflow']):>10} {shown(row['reserve']):>10}\n")
    for m, row in rep["meters"].items():
        p = row.get("parameters")
        if p is not None:
            stdout.write(f"{m}: base {p['base']}, reset {p['reset']}, rate {p['rate']}, hidden rate "
                         f"{p['hidden_rate']}, limit {p['limit'] or 'none'}, unreasonable above "
                         f"{p['unreasonable'] or 'none'}\n")
    stdout.write(f"last {len(rep['last_hits'])} hits (newest first):\n")
    for h in rep["last_hits"]:
        stdout.write(f"  {h['at']}  {h['amount']:>12}  table {h['table']}  {h['meter'] or 'fixed'}  seat {h['seat']}\n")
    stdout.write("\n")


def cmd_recall(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from controller import replay
    from controller.round.machine import RoundController
    from controller.table import setup_from_journal
    from games.contract import dumps

    if args.steps and not args.round:
        print("tablectl recall: --steps replays one round: give --round ID", file=stderr)
        return EXIT_REFUSED
    cfg = _config_with_journal(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    journal = _open_journal(args, cfg, stderr, full=True, remembered=True)  # each row rehashed once (P79)
    if journal is None:
        return EXIT_REFUSED
    with journal:
        if args.round:
            events = journal.events(args.round)
            if not events:
                print(f"tablectl recall: no round {args.round[:100]!r} in the journal", file=stderr)
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

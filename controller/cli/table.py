"""``tablectl run``, ``status``, ``recall`` and ``progressive``: the daemon and what it kept."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from controller.cli.main import whole_number
from controller.config.table import ConfigError, TableConfig
from controller.journal.store import Journal, JournalError
from controller.paths import add_table_options, load_table, status_file

EXIT_OK, EXIT_REFUSED = 0, 2
STALE_BEATS = 3  # a status older than this many heartbeats: the daemon is not running
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
    p.add_argument("--json", action="store_true", help="the status file as it is, JSON, with `running` and "
                   "`heartbeat_age` (seconds since the daemon last wrote it)")
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

    p = sub.add_parser("journal", help="the journal itself: `journal verify` checks its hash chain",
                       description="The table's journal as a file.")
    jsub = p.add_subparsers(dest="journal_command", required=True, metavar="WHAT")
    v = jsub.add_parser("verify", help="check the hash chain (exit 0; 2 names the first bad event)",
                        description="Check the journal's hash chain read-only: exit 0, or 2 with the first bad "
                        "sequence number and what is wrong (edited, deleted, reordered, unreadable), or when the "
                        "journal is another table's or game's.  Without --full the contents are rehashed from "
                        "the point the daemon last verified at its start (every row's place in the chain is "
                        "checked either way); --full rehashes every row (P90).")
    add_table_options(v)
    v.add_argument("--full", action="store_true", help="rehash every row, not only those after the last "
                   "verified point")
    v.add_argument("--partial", action="store_true", help="an auditor's copy of some segments: the chain may begin "
                   "after its first event (said, not refused); without it a missing oldest segment is refused (P101)")
    v.set_defaults(handler=cmd_journal_verify)
    i = jsub.add_parser("init", help="begin the table's journal again, or take it as it is, on purpose (journaled)",
                        description="A keyed table refuses to start on a journal missing, empty, behind its anchor "
                        "or not the anchored chain (P99).  With the daemon stopped: on a missing or empty journal, "
                        "begin a new one (its first event names the table, who and why, and the head of the chain "
                        "it replaces); with --keep, take the journal there as the table's chain from here on (an "
                        "older copy put back, an anchor lost), after every row is checked.  Journaled with who "
                        "and why; the anchor is made anew.")
    add_table_options(i)
    i.add_argument("--reason", required=True, help="why the journal is begun again or taken as it is")
    i.add_argument("--by", help="who does it (default: the login running the command)")
    i.add_argument("--keep", action="store_true", help="take the journal there (it must verify every row and be "
                   "this table's) instead of beginning a new one")
    i.set_defaults(handler=cmd_journal_init)
    k = jsub.add_parser("key", help="make the table's journal key (at install; never replaced)",
                        description="Make the table's secret key beside its journal (<journal>.key, mode 0600: run "
                        "as the daemon's user, or chown it to that user): the daemon seals its journal's head under "
                        "it (P100).  Refused when the table has a key.  docs/journal.md: key custody and rotation.")
    add_table_options(k)
    k.add_argument("--if-missing", action="store_true", help="a table that has a key keeps it: its path is said, "
                   "exit 0 (the installer)")
    k.add_argument("--rotate", action="store_true", help="replace the key, the daemon stopped: every row is "
                   "checked and the head's seal under the old key, then the journal is sealed under a new one "
                   "(journaled with --by and --reason); run again, it finishes a rotation cut short")
    k.add_argument("--reason", help="with --rotate: why")
    k.add_argument("--by", help="with --rotate: who (default: the login running the command)")
    k.set_defaults(handler=cmd_journal_key)


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
    logs.configure(cfg.log_format)

    async def main() -> None:
        daemon = TableDaemon(cfg)
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


def cmd_journal_verify(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    cfg = _config_with_journal(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    journal = _open_journal(args, cfg, stderr, full=args.full, whole=not args.partial)
    if journal is None:
        return EXIT_REFUSED
    from controller.journal.segments import SegmentedJournal

    with journal:
        n, owner = journal.last_seq(), journal.owner()
        begins = journal.begins() if isinstance(journal, SegmentedJournal) else None
        try:
            keyed = _keyed_check(cfg, journal)
        except JournalError as e:
            return _refuse(args, f"{cfg.journal}: {e}", stderr)
    label = f"table {owner[0]} ({owner[1]})" if owner else "unlabelled (begun before journals named their table)"
    stdout.write(f"{cfg.journal}: {n} events verified ({'every row' if args.full else 'from the last verified point'})"
                 f"; {label}\n")
    stdout.write(f"{keyed}\n")
    if isinstance(journal, SegmentedJournal) and begins is not None:
        whole = "from the first event" if begins[0] == 0 else \
            f"from seq {begins[0] + 1}, after the hash {begins[1]} (the segments before it are not here)"
        stdout.write(f"{len(journal.segments)} sealed segments and the open one, {whole}\n")
    return EXIT_OK


def _keyed_check(cfg: TableConfig, journal: Journal) -> str:
    """Which chain ``journal verify`` checked (P100): the keyed one where the table's key is readable (the head's
    seal, and that the journal is not behind its anchor), else the unkeyed one, said so; raises ``JournalError``."""
    from controller.journal import trust

    key_path = trust.key_file(cfg.journal)
    key = trust.read_key(key_path) if os.access(key_path, os.R_OK) else None  # an auditor: no key, said so
    rows = journal._query("SELECT value FROM meta WHERE key = 'seal'")
    if key is None:
        what = "sealed under a key not read here" if rows else "not sealed (begun before keys, or unkeyed)"
        return f"unkeyed chain checked (SHA-256 only: the key {key_path} is not readable here); its head is {what}"
    head = journal.head()
    if not rows:
        if trust.anchor_file(cfg.journal).exists():
            raise trust.JournalTrustError("the journal is anchored and its head is not sealed: its seal was removed")
        return "unkeyed chain checked: its head is not sealed yet (begun before keys; sealed at its first keyed start)"
    held = trust.check_seal(key, str(rows[0][0]))
    if held is None:
        raise trust.JournalTrustError(f"its head is not sealed under this table's key {key_path}: rewritten, or "
                                      "another table's journal")
    if held != head:
        raise trust.JournalTrustError(f"it ends at seq {head[0]} with a head its seal (seq {held[0]}) does not hold: "
                                      "rewritten without the key")
    anchor = trust.read_anchor(trust.anchor_file(cfg.journal), key)
    if anchor is not None and anchor.seq > head[0]:
        raise trust.JournalTrustError(f"it ends at seq {head[0]}, behind its anchor at seq {anchor.seq}: an older "
                                      "copy put back?")
    return f"keyed chain checked: its head (seq {head[0]}) is sealed under the table's key {key_path}"


def cmd_journal_init(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """``tablectl journal init``: begin again, or take the journal as it is, on purpose (P99)."""
    import getpass

    from controller.journal import trust
    from controller.journal.segments import open_for_reading

    cfg = _config(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    by = args.by or getpass.getuser()
    if not args.reason.strip():
        return _refuse(args, "--reason: say why", stderr)
    try:
        key = trust.read_key(trust.key_file(cfg.journal))
        if key is None:
            return _refuse(args, f"the table has no key ({trust.key_file(cfg.journal)}): tablectl journal key "
                           "first", stderr)
        try:
            old = trust.read_anchor(trust.anchor_file(cfg.journal), key)
        except trust.JournalTrustError:
            old = None  # an anchor that does not read: replaced, and said so by the reason
        was = f"{old.seq}:{old.hash}" if old is not None else None
        exists = Path(cfg.journal).is_file() and Path(cfg.journal).stat().st_size > 0
        if exists and args.keep:
            with open_for_reading(cfg.journal, cfg.journal_options.archive_dir) as r:
                from controller.journal.segments import SegmentedJournal

                if isinstance(r, SegmentedJournal):
                    r.verify(full=True, whole=True)
                else:
                    r.verify(full=True)
                r.check_owner(cfg.id, cfg.game)
        with Journal(cfg.journal) as journal:
            head = journal.head()
            sealed = journal._query("SELECT value FROM meta WHERE key = 'seal'")
            journal._anchor = None  # made anew below, from the journal there
            if head[0] == 0:
                journal.claim(cfg.id, cfg.game)
                journal.record(trust.JournalBegun(table=cfg.id, game=cfg.game, by=by, reason=args.reason,
                                                  replaces=was), who=by)
                said = "begun"
            elif not args.keep:
                return _refuse(args, f"the journal {cfg.journal} holds {head[0]} events: move it aside to begin "
                               "again, or --keep to take it as it is", stderr)
            else:
                held = trust.check_seal(key, str(sealed[0][0])) if sealed else None
                if sealed and (held is None or journal._hash_at(held[0], cfg.journal_options.archive_dir) != held[1]):
                    # (a seal behind the head whose row is in the chain: rows appended by a release before keys,
                    # after a rollback; taken on purpose, P102)
                    return _refuse(args, f"the journal {cfg.journal} is not the chain sealed under this table's key: "
                                   "rewritten or another table's; it cannot be kept", stderr)
                journal._unsealed_ok = True
                journal.record(trust.JournalAnchored(table=cfg.id, game=cfg.game, by=by, reason=args.reason,
                                                     was=was), who=by)
                said = "taken as it is"
            head = journal.head()
            trust.write_anchor(trust.anchor_file(cfg.journal), trust.Anchor(cfg.id, cfg.game, *head), key)
    except (JournalError, sqlite3.Error, OSError) as e:
        return _refuse(args, e, stderr)
    stdout.write(f"{cfg.journal}: {said} by {by} at seq {head[0]}; anchored ({trust.anchor_file(cfg.journal)})\n")
    return EXIT_OK


def cmd_journal_key(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """``tablectl journal key``: the table's key, made once (P100)."""
    from controller.journal import trust

    cfg = _config(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    if args.rotate:
        return _rotate_key(args, cfg, stdout, stderr)
    try:
        Path(cfg.journal).parent.mkdir(parents=True, exist_ok=True)
        path = trust.key_file(cfg.journal)
        if not (args.if_missing and path.exists()):
            trust.create_key(path)
    except (JournalError, OSError) as e:
        return _refuse(args, e, stderr)
    stdout.write(f"{path}\n")
    return EXIT_OK


def _rotate_key(args: argparse.Namespace, cfg: TableConfig, stdout: TextIO, stderr: TextIO) -> int:
    """``journal key --rotate`` (P100): the next key is made beside the key (``.new``), the journal checked whole
    and its seal under the old key, ``journal_rekeyed`` journaled (sealed under the old key), the head sealed
    again under the new key and the anchor made under it, then the new key renamed over the old.  Cut short
    anywhere, the same command finishes it: a seal that holds under the ``.new`` key is the rotation's."""
    import getpass

    from controller.journal import trust
    from controller.journal.segments import SegmentedJournal, open_for_reading

    if not (args.reason or "").strip():
        return _refuse(args, "--rotate needs --reason", stderr)
    by = args.by or getpass.getuser()
    key_path = trust.key_file(cfg.journal)
    new_path = trust.new_key_file(key_path)
    try:
        old = trust.read_key(key_path)
        if old is None:
            return _refuse(args, f"the table has no key ({key_path}) to rotate", stderr)
        if not new_path.exists():
            trust.create_key(new_path)
        new = trust.read_key(new_path)
        assert new is not None
        with open_for_reading(cfg.journal, cfg.journal_options.archive_dir) as r:
            if isinstance(r, SegmentedJournal):
                r.verify(full=True, whole=True)
            else:
                r.verify(full=True)
            r.check_owner(cfg.id, cfg.game)
        with Journal(cfg.journal) as journal:
            seal = journal._query("SELECT value FROM meta WHERE key = 'seal'")
            head = journal.head()
            if not seal or trust.check_seal(new, str(seal[0][0])) != head:  # not yet sealed under the new key
                if trust.check_seal(old, str(seal[0][0]) if seal else "") != head:
                    return _refuse(args, f"the journal {cfg.journal} is not sealed under the table's key: "
                                   "`tablectl journal verify` says why; nothing rotated", stderr)
                journal.record(trust.JournalRekeyed(by=by, reason=args.reason), who=by)
                head = journal.head()
                with journal._lock:
                    journal._db.execute("UPDATE meta SET value = ? WHERE key = 'seal'",
                                        (trust.seal_of(new, *head),))
            trust.write_anchor(trust.anchor_file(cfg.journal), trust.Anchor(cfg.id, cfg.game, *head), new)
        os.replace(new_path, key_path)
    except (JournalError, sqlite3.Error, OSError) as e:
        return _refuse(args, e, stderr)
    stdout.write(f"{key_path}: rotated by {by} at seq {head[0]}\n")
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
    age = max(0.0, time.time() - status["updated"])
    every = status.get("heartbeat_every")
    running = age <= STALE_BEATS * (every if isinstance(every, (int, float)) and every > 0 else 5.0)
    if args.json:
        stdout.write(json.dumps({**status, "running": running, "heartbeat_age": round(age, 1)}, indent=2) + "\n")
        return EXIT_OK
    seen = dt.datetime.fromtimestamp(status["updated"], dt.UTC).isoformat(timespec="seconds")
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
        rep = prog.report(journal, cfg.progressive.meters, **period, link=prog.linked(cfg.progressive))
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
    stdout.write(f"{'meter':<10} {'coin-in':>12} {'contributions':>14} {'hits':>5} {'paid':>12} {'current':>12}\n")
    for m, row in rep["meters"].items():
        stdout.write(f"{m:<10} {row['coin_in']:>12} {row['contributions']:>14} {row['hits']:>5} "
                     f"{row['paid']:>12} {'on link' if row['current'] is None else row['current']:>12}\n")
    stdout.write(f"{'fixed':<10} {'':>12} {'':>14} {rep['fixed']['hits']:>5} {rep['fixed']['paid']:>12}\n")
    return EXIT_OK


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

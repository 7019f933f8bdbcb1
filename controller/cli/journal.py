"""``tablectl journal``: the table's journal as a file: verify its chain, begin it again or take it as it is,
its key, and the progressive meters restored by two supervisors (P99-P103; docs/journal.md)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from controller import events as ev
from controller.cli.table import (
    EXIT_OK,
    EXIT_REFUSED,
    STALE_BEATS,
    _config,
    _config_with_journal,
    _open_journal,
    _refuse,
)
from controller.config.table import TableConfig
from controller.journal import trust
from controller.journal.store import Journal, JournalError
from controller.paths import add_table_options, status_file
from controller.supervisors import SupervisorList

if TYPE_CHECKING:
    from controller.progressive.link.store import LinkAnchor  # psycopg only on a linked table


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    r = jsub.add_parser("restore-meters", help="set the progressive meters back, by two supervisors (journaled)",
                        description="After the journal was begun again (tablectl journal init), the meters stand at "
                        "their configured amounts.  With the daemon stopped, two different floor supervisors on the "
                        "table's allow-list restore them to what they were (the last report, the meter signs): one "
                        "journaled entry names both, who ran it and why (P103).  No meter below its reset amount.")
    add_table_options(r)
    r.add_argument("--meter", action="append", required=True, metavar="NAME=AMOUNT",
                   help="a configured meter and its amount (repeat for each meter)")
    r.add_argument("--supervisor", action="append", required=True, type=int, metavar="ID",
                   help="a floor supervisor's ID on the allow-list; give it twice, two different supervisors")
    r.add_argument("--reason", required=True, help="why (e.g. the journal begun again after a disk failure)")
    r.add_argument("--by", help="who runs the command (default: the login running it)")
    r.set_defaults(handler=cmd_journal_restore_meters)


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



def _verify_whole(cfg: TableConfig) -> None:
    """Every row of the table's chain, every segment included, rehashed, and the journal the table's (raises
    ``JournalError``): before the journal is taken as it is or sealed under a new key."""
    from controller.journal.segments import SegmentedJournal, open_for_reading

    with open_for_reading(cfg.journal, cfg.journal_options.archive_dir) as r:
        if isinstance(r, SegmentedJournal):
            r.verify(full=True, whole=True)
        else:
            r.verify(full=True)
        r.check_owner(cfg.id, cfg.game)

def cmd_journal_init(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """``tablectl journal init``: begin again, or take the journal as it is, on purpose (P99)."""
    import getpass

    from controller.journal import trust

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
        link = _link_head(cfg)  # the link's database reached first: nothing is done on a link that does not answer
        if isinstance(link, str):
            return _refuse(args, link, stderr)
        link_was = f"{link[0].seq}:{link[0].hash}" if link and link[0] is not None else None
        exists = Path(cfg.journal).is_file() and Path(cfg.journal).stat().st_size > 0
        if exists and args.keep:
            _verify_whole(cfg)
        with Journal(cfg.journal) as journal:
            head = journal.head()
            sealed = journal._query("SELECT value FROM meta WHERE key = 'seal'")
            journal._anchor = None  # made anew below, from the journal there
            if head[0] == 0:
                journal.claim(cfg.id, cfg.game)
                journal.record(trust.JournalBegun(table=cfg.id, game=cfg.game, by=by, reason=args.reason,
                                                  replaces=was, link_was=link_was), who=by)
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
                                                     was=was, link_was=link_was), who=by)
                said = "taken as it is"
            head = journal.head()
            anchor = trust.Anchor(cfg.id, cfg.game, *head)
            trust.write_anchor(trust.anchor_file(cfg.journal), anchor, key)
    except (JournalError, sqlite3.Error, OSError) as e:
        return _refuse(args, e, stderr)
    also = ""
    if link is not None:  # the link's head set anew, with who and why (P121)
        from controller.progressive.link.anchor import INIT_DEADLINE_S, reset_now
        from controller.progressive.link.store import LinkError

        p = cfg.progressive
        assert p.link is not None and p.link_id is not None
        try:
            reset_now(p.link, p.link_id, anchor, by, args.reason, INIT_DEADLINE_S)
        except LinkError as e:
            return _refuse(args, f"{cfg.journal}: {said} at seq {head[0]} and anchored here, but the link's anchor "
                           f"was not set ({type(e).__name__}): run tablectl journal init --table {cfg.id} --keep "
                           "--reason TEXT when the link answers", stderr)
        also = f" and on link '{p.link_id}'"
    stdout.write(f"{cfg.journal}: {said} by {by} at seq {head[0]}; anchored ({trust.anchor_file(cfg.journal)})"
                 f"{also}\n")
    return EXIT_OK


def _link_head(cfg: TableConfig) -> tuple[LinkAnchor | None] | str | None:
    """On a linked table, ``(the link's head of the table or None,)``; None off a link; why not when the link's
    database does not answer (``journal init`` then does nothing: the start would refuse the new journal)."""
    from controller.progressive.hits import linked

    if linked(cfg.progressive) is None:
        return None
    from controller.progressive.link.anchor import INIT_DEADLINE_S, read_now
    from controller.progressive.link.store import LinkError

    p = cfg.progressive
    assert p.link is not None and p.link_id is not None
    try:
        return (read_now(p.link, p.link_id, cfg.id, INIT_DEADLINE_S),)
    except LinkError as e:
        return (f"the link's database (link '{p.link_id}') does not answer ({type(e).__name__}): its anchor of table "
                f"{cfg.id} could not be set anew, so nothing was done (the table would refuse the journal at start)")


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
        _verify_whole(cfg)
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


def _meters_given(cfg: TableConfig, given: list[str]) -> dict[str, Decimal] | str:
    """NAME=AMOUNT for each configured meter named once, at least its reset amount; else why not."""
    out: dict[str, Decimal] = {}
    for item in given:
        name, sep, text = item.partition("=")
        meter = cfg.progressive.meters.get(name)
        if not sep or meter is None:
            return f"--meter {item[:40]!r}: NAME=AMOUNT of a configured meter ({', '.join(cfg.progressive.meters)})"
        if name in out:
            return f"--meter {name}: given twice"
        try:
            amount = Decimal(text) if len(text) <= 20 else Decimal("NaN")
        except InvalidOperation:
            amount = Decimal("NaN")
        if not amount.is_finite() or amount != amount.quantize(Decimal("0.01")) or amount > Decimal("1e9"):
            return f"--meter {name}: {text[:40]!r} is not an amount in cents"
        if amount < meter.reset:  # a meter never stands below its reset amount (R4)
            return f"--meter {name}: {amount} is below its reset amount {meter.reset} (R4)"
        out[name] = amount
    return out


def cmd_journal_restore_meters(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """``tablectl journal restore-meters``: two different allow-listed supervisors set the meters back (P103)."""
    import getpass

    cfg = _config_with_journal(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    if not args.reason.strip():
        return _refuse(args, "--reason: say why", stderr)
    ids = args.supervisor
    if len(ids) != 2 or ids[0] == ids[1]:
        return _refuse(args, "--supervisor: two different floor supervisors, each once (P103)", stderr)
    known = SupervisorList(cfg.supervisors.ids)
    for sid in ids:
        if not asyncio.run(known.known(sid)):
            return _refuse(args, f"--supervisor {sid}: not a supervisor on the table's allow-list (P93)", stderr)
    meters = _meters_given(cfg, args.meter)
    if isinstance(meters, str):
        return _refuse(args, meters, stderr)
    status = status_file(cfg.journal)
    try:
        if time.time() - status.stat().st_mtime < STALE_BEATS * 5.0:
            return _refuse(args, f"the daemon of table {cfg.id} is running (its status {status} is fresh): stop it "
                           "first, the journal has one writer", stderr)
    except FileNotFoundError:
        pass
    journal = _open_journal(args, cfg, stderr, full=True, segments=False)  # every row checked first
    if journal is None:
        return EXIT_REFUSED
    journal.close()
    by = args.by or getpass.getuser()
    who = f"supervisor {ids[0]} and supervisor {ids[1]}"
    try:
        with Journal(cfg.journal) as j:
            j.record_many([trust.MetersRestored(supervisors=list(ids), by=by, reason=args.reason),
                           ev.MeterSet(meters=meters)], who=who)
            head = j.head()
    except (JournalError, sqlite3.Error, OSError) as e:
        return _refuse(args, e, stderr)
    shown = ", ".join(f"{n} {a}" for n, a in meters.items())
    stdout.write(f"{cfg.journal}: meters restored ({shown}) by {who}, run by {by}, at seq {head[0]}\n")
    return EXIT_OK

"""``tablectl parameters change`` and ``tablectl meters propose / approve``: changes under control (P114).

``parameters change --by NAME --approval REF``: the configuration's progressive and paytable parameters
recorded as the approved ones, while the table is closed (``controller.progressive.control``); the daemon
refuses to start on parameters not recorded so.  On a linked table the change is made on the link first,
every table of the link closed (P120).  ``meters propose --supervisor A --meter NAME=AMOUNT
--reason WHY`` then ``meters approve --proposal SEQ --supervisor B``: a meter reset or correction by two
different supervisors of the allow-list (dual control).  Every refusal is journaled.  The daemon is
stopped first: the journal has one writer.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import TextIO

from controller.cli.journal import _meters_given
from controller.cli.table import EXIT_OK, EXIT_REFUSED, STALE_BEATS, _config_with_journal, _refuse
from controller.config.table import TableConfig
from controller.journal.store import Journal, JournalError
from controller.paths import add_table_options, status_file
from controller.progressive import control
from controller.supervisors import SupervisorList, check_id
from controller.table import TableLife


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("parameters", help="the progressive's and paytables' parameters: `parameters change`",
                       description="Record the configuration's progressive and paytable parameters as approved, "
                       "while the table is closed (COMAR 36.05.03.24 C; journaled with who and the approval).")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    c = actions.add_parser("change", help="record the configuration's parameters with their approval")
    add_table_options(c)
    c.add_argument("--by", required=True, help="who makes the change")
    c.add_argument("--approval", required=True, help="the approval's reference (the regulator's letter)")
    c.set_defaults(handler=cmd_change)

    p = sub.add_parser("meters", help="a meter reset or correction by two supervisors: `meters propose / approve`",
                       description="Dual control: one supervisor proposes the meters, a second approves (P114).")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    a = actions.add_parser("propose", help="the first supervisor proposes the meters")
    add_table_options(a)
    a.add_argument("--supervisor", required=True, help="the proposer's supervisor ID (on the allow-list)")
    a.add_argument("--meter", action="append", default=[], metavar="NAME=AMOUNT", required=True,
                   help="a meter and the amount proposed for it (one --meter per meter)")
    a.add_argument("--reason", required=True, help="why")
    a.set_defaults(handler=cmd_propose)
    b = actions.add_parser("approve", help="a second, different supervisor approves a proposal")
    add_table_options(b)
    b.add_argument("--proposal", required=True, type=int, help="the proposal's seq (printed by propose)")
    b.add_argument("--supervisor", required=True, help="the approver's supervisor ID (on the allow-list)")
    b.set_defaults(handler=cmd_approve)


def _stopped(args: argparse.Namespace, cfg: TableConfig, stderr: TextIO) -> bool:
    """True when the daemon is not running (its status is stale or absent); else said and False."""
    status = status_file(cfg.journal)
    try:
        if time.time() - status.stat().st_mtime < STALE_BEATS * 5.0:
            _refuse(args, f"the daemon of table {cfg.id} is running (its status {status} is fresh): stop it "
                    "first, the journal has one writer", stderr)
            return False
    except FileNotFoundError:
        pass
    return True


def _supervisor(args: argparse.Namespace, cfg: TableConfig, stderr: TextIO) -> int | None:
    try:
        sid = check_id(args.supervisor)
    except ValueError as e:
        _refuse(args, f"--supervisor: {e}", stderr)
        return None
    if not asyncio.run(SupervisorList(cfg.supervisors.ids).known(sid)):
        _refuse(args, f"--supervisor {sid}: not a supervisor on the table's allow-list (P93)", stderr)
        return None
    return sid


def cmd_change(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    cfg = _config_with_journal(args, stderr)
    if cfg is None or not _stopped(args, cfg, stderr):
        return EXIT_REFUSED
    try:
        with Journal(cfg.journal) as j:
            state = TableLife(cfg, j).state
            control.change(j, cfg, state, args.by, args.approval, on_link=lambda: _on_link(cfg, args))
            seq = j.head()[0]
    except JournalError as e:  # ParametersRefused: journaled already
        return _refuse(args, e, stderr)
    stdout.write(f"{cfg.journal}: parameters changed by {args.by}, approval {args.approval}, at seq {seq}\n")
    return EXIT_OK


def _on_link(cfg: TableConfig, args: argparse.Namespace) -> str | None:
    """The change made on the table's link, every table of it closed (P120): None when made, else why not."""
    from controller.progressive.link.store import REGULATED, change_from_table  # psycopg on a linked table only

    p = cfg.progressive
    assert p.link is not None and p.link_id is not None
    new = {m: {k: getattr(c, k) for k in REGULATED} for m, c in p.meters.items()}
    return asyncio.run(change_from_table(p.link, p.link_id, cfg.id, args.by, args.approval, new))


def _stopped_table_and_supervisor(args: argparse.Namespace, stderr: TextIO) -> tuple[TableConfig, int] | None:
    """The table's configuration (its daemon stopped) and the allow-listed supervisor naming themselves, or None
    once the refusal is said: what a meter correction's proposal and its approval both need first (dual control)."""
    cfg = _config_with_journal(args, stderr)
    if cfg is None or not _stopped(args, cfg, stderr):
        return None
    sid = _supervisor(args, cfg, stderr)
    return None if sid is None else (cfg, sid)


def cmd_propose(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    found = _stopped_table_and_supervisor(args, stderr)
    if found is None:
        return EXIT_REFUSED
    cfg, sid = found
    if not args.reason.strip():
        return _refuse(args, "--reason: say why", stderr)
    meters = _meters_given(cfg, args.meter)
    if isinstance(meters, str):
        return _refuse(args, meters, stderr)
    try:
        with Journal(cfg.journal) as j:
            seq = control.propose(j, sid, meters, args.reason)
    except JournalError as e:
        return _refuse(args, e, stderr)
    stdout.write(f"{cfg.journal}: meter correction proposed at seq {seq} by supervisor {sid}; a second "
                 f"supervisor approves it: tablectl meters approve --proposal {seq}\n")
    return EXIT_OK


def cmd_approve(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    found = _stopped_table_and_supervisor(args, stderr)
    if found is None:
        return EXIT_REFUSED
    cfg, sid = found
    try:
        with Journal(cfg.journal) as j:
            meters = control.approve(j, args.proposal, sid)
            seq = j.head()[0]
    except JournalError as e:  # ParametersRefused: journaled already
        return _refuse(args, e, stderr)
    shown = ", ".join(f"{m} {v}" for m, v in meters.items())
    stdout.write(f"{cfg.journal}: meters set ({shown}), approved by supervisor {sid}, at seq {seq}\n")
    return EXIT_OK

"""``tablectl protection report [--json]``: the game-protection findings and the hold against theoretical.

Read from the table's journal only (read-only, its chain verified as ``recall`` does): docs/protection.md.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from controller.paths import add_table_options

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("protection", help="game protection: `protection report` (findings, hold against theoretical)",
                       description="The table's game-protection findings and hold against theoretical, from its "
                       "journal (issue 28).")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    r = actions.add_parser("report", help="every finding and its alarm, and each wager's hold against its band",
                           description="Every protection finding (kind, round, evidence, p-value, who acknowledged "
                           "its alarm) and each wager's hold against theoretical, per table, gaming day and shift.")
    add_table_options(r)
    r.add_argument("--json", action="store_true", help="the report as one JSON object")
    r.set_defaults(handler=cmd_report, command="protection report")


def cmd_report(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from controller.cli.table import _config_with_journal, _open_journal
    from controller.protection.hold import Calendar
    from controller.protection.report import lines, report

    cfg = _config_with_journal(args, stderr)
    if cfg is None:
        return EXIT_REFUSED
    journal = _open_journal(args, cfg, stderr, full=True, remembered=True)
    if journal is None:
        return EXIT_REFUSED
    with journal:
        r = report(journal.iter_events(), cfg.game, calendar=Calendar.of(cfg.protection))
    if args.json:
        stdout.write(json.dumps(r, indent=2, default=str) + "\n")
    else:
        stdout.write("\n".join(lines(r)) + "\n")
    return EXIT_OK

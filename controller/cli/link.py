"""``tablectl link migrate``: the link's schema applied to its PostgreSQL database; and the
``--link`` form of ``tablectl progressive report`` (``report_command``)."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from controller.journal.store import Journal

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("link", help="linked progressives: the shared meters' database",
                       description="The PostgreSQL database of a linked progressive "
                       "(docs/linked-progressive.md): `migrate` applies the schema's SQL files it lacks, in order.")
    p.add_argument("what", choices=["migrate"], help="migrate: apply the schema's migrations")
    p.add_argument("--link", required=True, metavar="URL", help="the link's database, postgresql://...")
    p.set_defaults(handler=cmd_link)


def cmd_link(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    # psycopg is loaded by the link's commands only: every other tablectl command (and the daemon of a
    # table of its own) starts without it
    from controller.progressive.link.migrate import migrate, version
    from controller.progressive.link.store import LinkError

    try:
        applied = migrate(args.link)
        now = version(args.link)
    except LinkError as e:
        print(f"tablectl link migrate: {type(e).__name__}: {str(e).strip().splitlines()[0]}", file=stderr)
        return EXIT_REFUSED
    said = f"applied {', '.join(f'{n:03d}' for n in applied)}" if applied else "nothing to apply"
    stdout.write(f"{said}; schema version {now}\n")
    return EXIT_OK


def report_command(cfg_link: str | None, link_id: str | None, journals: dict[str, Journal], as_json: bool,
                   stdout: TextIO, stderr: TextIO) -> int:
    """``tablectl progressive report --link``: the table's configured link, its journal reconciled."""
    from controller.progressive.link.report import link_report, write_text
    from controller.progressive.link.store import LinkError

    if cfg_link is None or link_id is None:
        print("tablectl progressive: --link: this table has no [progressive] link and link_id", file=stderr)
        return EXIT_REFUSED
    try:
        rep = asyncio.run(link_report(cfg_link, link_id, journals))
    except LinkError as e:
        print(f"tablectl progressive: --link: the link is not answering ({type(e).__name__})", file=stderr)
        return EXIT_REFUSED
    if as_json:
        stdout.write(json.dumps(rep, indent=2, default=str) + "\n")
    else:
        write_text(rep, stdout)
    return EXIT_OK

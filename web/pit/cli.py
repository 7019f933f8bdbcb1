"""``tablectl pit --config pit.toml``: the pit's server (docs/pit.md); ``--migrate`` sets up its database."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TextIO

from controller.config.table import ConfigError

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "pit",
        help="every table of the pit on one page, behind one login (a service of its own)",
        description="Serve the pit: every table's summary as its web service publishes it to the pit's "
        "database, alarms first, live; a supervisor acknowledges an alarm there. The schema is applied "
        "at start (as --migrate does).",
    )
    p.add_argument("--config", required=True, type=Path, help="the pit's configuration (pit.toml)")
    p.add_argument("--migrate", action="store_true", help="apply the pit's schema to its database, then stop")
    p.set_defaults(handler=cmd_pit)


def cmd_pit(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    import psycopg

    from web.auth import UsersError
    from web.pit.config import load_pit_config
    from web.pit.server import serve
    from web.pit.store import migrate

    try:
        cfg = load_pit_config(args.config)
    except ConfigError as e:
        print(f"tablectl pit: {e}", file=stderr)
        return EXIT_REFUSED
    try:
        migrate(cfg.database)
    except psycopg.Error as e:
        print(f"tablectl pit: the pit's database {cfg.database}: {e}".strip(), file=stderr)
        return EXIT_REFUSED
    if args.migrate:
        return EXIT_OK
    try:
        asyncio.run(serve(cfg, stdout))
    except UsersError as e:
        print(f"tablectl pit: {e}", file=stderr)
        return EXIT_REFUSED
    return EXIT_OK

"""``tablectl web``: serve the dealer's screen and the floor's pages; ``--add-user`` makes a floor account."""

from __future__ import annotations

import argparse
import asyncio
import getpass
from typing import TextIO

from controller.config.table import ConfigError
from controller.paths import add_table_options, load_table

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "web",
        help="the dealer's screen and the floor's pages (a service of its own)",
        description="Serve the dealer's screen (read-only, the daemon's public state) and the floor's "
        "pages (login: supervisor or auditor). With --add-user: add or replace a floor account in the "
        "users file the configuration names ([web] users), the password read from standard input.",
    )
    add_table_options(p)  # --table ID on the table PC (the unit table-web@ID), --config FILE in development
    p.add_argument("--add-user", metavar="NAME", help="add or replace this floor account, then stop")
    p.add_argument("--role", choices=["supervisor", "auditor"], help="with --add-user: the account's role")
    p.set_defaults(handler=cmd_web)


def cmd_web(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from web.auth import UsersError, add_user

    try:
        cfg = load_table(args)
    except ConfigError as e:
        print(f"tablectl web: {e}", file=stderr)
        return EXIT_REFUSED
    if args.add_user:
        if cfg.web.users is None or args.role is None:
            print(
                "tablectl web: --add-user needs --role and a users file in the configuration ([web] users)", file=stderr
            )
            return EXIT_REFUSED
        password = getpass.getpass("password: ") if stdin.isatty() else stdin.readline().rstrip("\n")
        try:
            add_user(cfg.web.users, args.add_user, args.role, password)
        except UsersError as e:
            print(f"tablectl web: {e}", file=stderr)
            return EXIT_REFUSED
        return EXIT_OK
    from web.app import serve
    from web.auth import UsersError as _UsersError

    try:
        asyncio.run(serve(cfg, stdout))
    except _UsersError as e:
        print(f"tablectl web: {e}", file=stderr)
        return EXIT_REFUSED
    return EXIT_OK

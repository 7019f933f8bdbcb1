"""``tablectl web``: serve the dealer's screen and the floor's pages; ``--add-user`` makes a floor account,
``--disable``, ``--enable`` and ``--unlock`` change one (the service reads the users file again at once)."""

from __future__ import annotations

import argparse
import asyncio
import getpass
from pathlib import Path
from typing import TextIO

from controller.config.table import ConfigError
from controller.paths import add_table_options, config_file, load_table

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "web",
        help="the dealer's screen and the floor's pages (a service of its own)",
        description="Serve the dealer's screen (read-only, the daemon's public state) and the floor's "
        "pages (login: supervisor, auditor or technician). With --add-user: add or replace a floor account in "
        "the users file the configuration names ([web] users), the password read from standard input; "
        "--disable, --enable, --unlock: change an account (a running service applies it at once).",
    )
    add_table_options(p)  # --table ID on the table PC (the unit table-web@ID), --config FILE in development
    p.add_argument("--add-user", metavar="NAME", help="add or replace this floor account, then stop")
    p.add_argument("--role", choices=["supervisor", "auditor", "technician"],
                   help="with --add-user: the account's role")
    p.add_argument("--disable", metavar="NAME", help="disable this account (its logins end), then stop")
    p.add_argument("--enable", metavar="NAME", help="enable this account again, then stop")
    p.add_argument("--unlock", metavar="NAME", help="unlock this account, locked by wrong passwords, then stop")
    p.set_defaults(handler=cmd_web)


def config_path(args: argparse.Namespace) -> Path:
    """The file ``--config`` or ``--table`` named (the technician's page shows it and its digest)."""
    return Path(args.config) if args.config else config_file(args.table)


def cmd_web(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from web.auth import UsersError, add_user, load_users, set_flag

    try:
        cfg = load_table(args)
    except ConfigError as e:
        print(f"tablectl web: {e}", file=stderr)
        return EXIT_REFUSED
    change = [(n, flag, on) for n, flag, on in ((args.disable, "disabled", True), (args.enable, "disabled", False),
                                                (args.unlock, "locked", False)) if n]
    if change:
        name, flag, on = change[0]
        if cfg.web.users is None or len(change) > 1 or args.add_user:
            print("tablectl web: one of --add-user, --disable, --enable, --unlock at a time, with a users file in "
                  "the configuration ([web] users)", file=stderr)
            return EXIT_REFUSED
        try:
            if name not in load_users(cfg.web.users):
                print(f"tablectl web: no account {name!r} in {cfg.web.users}", file=stderr)
                return EXIT_REFUSED
            set_flag(cfg.web.users, name, flag, on)  # unchanged already: nothing to do, not an error
        except UsersError as e:
            print(f"tablectl web: {e}", file=stderr)
            return EXIT_REFUSED
        return EXIT_OK
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
        asyncio.run(serve(cfg, stdout, config_path(args)))
    except _UsersError as e:
        print(f"tablectl web: {e}", file=stderr)
        return EXIT_REFUSED
    return EXIT_OK

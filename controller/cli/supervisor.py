"""``tablectl supervisor hash``: the allow-list entry of a floor supervisor's ID (P93).

The ID is read from standard input (not the command line, where it would stay in the shell's
history and the process list); the entry, salted, goes to standard output, for ``[supervisors] ids``.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from controller.supervisors import check_id, hash_id

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("supervisor", help="the floor supervisors' allow-list: `supervisor hash` < ID",
                       description="The floor supervisors whose key the table takes (P93).")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    h = actions.add_parser("hash", help="print the [supervisors] ids entry of the ID read from standard input",
                           description="Read one supervisor ID (1-65535) from standard input and print its "
                           "salted hash, an entry of [supervisors] ids.")
    h.set_defaults(handler=cmd_hash)


def cmd_hash(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    try:
        supervisor_id = check_id(stdin.readline(100))
    except ValueError as e:
        print(f"tablectl supervisor hash: {e}", file=stderr)
        return EXIT_REFUSED
    stdout.write(hash_id(supervisor_id) + "\n")
    return EXIT_OK

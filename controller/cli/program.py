"""``tablectl verify-program``: the installed program against its release's manifest (controller/program.py, P115).

Prints the release, its digest and (``--table``/``--config``) the configuration's digest; with ``--seed HEX``
also HMAC-SHA256 keyed by the seed over the manifest's files in its order, the algorithm docs/compliance.md
gives, so that a regulator's own tool can compute the same.  Exit 0 when the program verifies, 2 when not.

``--clear --by NAME --reason TEXT`` (a technician, the table named) clears a refusal the daemon kept: only
when the program verifies now; the daemon journals the clearance, with who, at its next start.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, TextIO

from controller import program

EXIT_OK, EXIT_REFUSED = 0, 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("verify-program", help="check the installed program against its release's manifest",
                       description="Check every file of the installed program against the release's manifest; "
                       "print the release's digest (and with --seed an HMAC-SHA256 keyed by the seed).")
    # controller.paths's options, without importing it (it imports the configuration, the games: P115 above)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--table", metavar="ID", help="the table on this PC: also its configuration's digest")
    g.add_argument("--config", metavar="FILE", help="a configuration file (development)")
    p.add_argument("--seed", metavar="HEX", help="a regulator's seed, hexadecimal (1-64 bytes)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--clear", action="store_true", help="clear the table's refusal (the program must verify)")
    p.add_argument("--by", metavar="NAME", help="the technician clearing it (with --clear)")
    p.add_argument("--reason", metavar="TEXT", help="why it may be cleared (with --clear)")
    p.set_defaults(handler=cmd_verify_program)


def _refuse(text: str, stderr: TextIO) -> int:
    print(f"tablectl verify-program: {text}", file=stderr)
    return EXIT_REFUSED


def cmd_verify_program(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    seed: bytes | None = None
    if args.seed is not None:
        try:
            seed = bytes.fromhex(args.seed)
        except ValueError:
            return _refuse("--seed: not hexadecimal", stderr)
        if not 1 <= len(seed) <= 64:
            return _refuse("--seed: 1 to 64 bytes", stderr)
    cfg = None
    if args.table or args.config:  # the rest of the program is imported only then: a tampered module cannot stop
        from controller.config.table import ConfigError  # the check of the others (P115)
        from controller.paths import config_file, load_table

        try:
            cfg = load_table(args)
        except ConfigError as e:
            return _refuse(f"{e.source}: {e.problems[0]}", stderr)
    if args.clear and (cfg is None or not (args.by or "").strip() or not (args.reason or "").strip()):
        return _refuse("--clear needs the table (--table), --by NAME and --reason TEXT", stderr)
    release = program.installed()
    c = program.check(release, seed)
    out: dict[str, Any] = {"state": c.state, "release": c.release, "digest": c.digest, "files": c.files,
                           "distributions": c.distributions, "dependency_files": c.dependency_files,
                           "problems": list(c.problems), "manifest": str(release.manifest)}
    if cfg is not None:
        out["config_digest"] = program.config_digest(config_file(args.table) if args.table else
                                                     Path(args.config))
        out["refused"] = program.read_refusal(cfg.journal)
    if seed is not None:
        out["seed"] = seed.hex()
        out["seeded"] = c.seeded if c.state == program.VERIFIED else None
    if args.clear:
        assert cfg is not None
        kept = out["refused"]
        if kept is None:
            return _refuse(f"table {cfg.id}: no refusal to clear", stderr)
        if c.state != program.VERIFIED:
            return _refuse(f"the program does not verify ({c.state}): the refusal stays", stderr)
        kept["cleared"] = {"by": args.by.strip(), "reason": args.reason.strip(),
                           "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        program.write_refusal(cfg.journal, kept)
        out["refused"] = kept
    if args.json:
        stdout.write(json.dumps(out, indent=1) + "\n")
    else:
        stdout.write(f"release {c.release or '-'}: {program.WORDS[c.state]}\n"
                     f"digest (SHA-256, {c.files} files, {c.distributions} dependencies' "
                     f"{c.dependency_files} files): {c.digest or '-'}\n")
        if "config_digest" in out:
            stdout.write(f"configuration digest (SHA-256): {out['config_digest'] or '-'}\n")
        if seed is not None:
            stdout.write(f"seeded digest (HMAC-SHA256, seed {seed.hex()}): {out['seeded'] or '-'}\n")
        for problem in c.problems[:50]:
            stdout.write(f"  {problem}\n")
        if args.clear:
            stdout.write("refusal cleared: the daemon journals it at its next start (restart it)\n")
    return EXIT_OK if c.state == program.VERIFIED else EXIT_REFUSED

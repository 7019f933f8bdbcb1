"""``tablectl``'s entry point: for ``run``, the program checked before any of its modules is imported (P122).

A module changed so that it no longer imports would otherwise stop the daemon before its own check (P115),
with a traceback and nothing kept.  Here the check runs first, with the standard library and
``controller.program`` only.  When the program verifies (or is a development copy) nothing changes: the
daemon takes this check for its first one (the files are read once).  When it does not, the daemon's modules
(and each one the check names) are imported to see whether it can start: if they do, it starts refused as
P115 has it (the dealer and the floor told, the check journaled); if not, one line on stderr, exit 2, and
the refusal is kept beside the journal marked not journaled: it refuses every later start until a technician
clears it, and the first start that can journal journals it (``program_checked`` with ``refused_at``, ``not_started``).

The journal is found as the configuration names it (``TABLE_JOURNAL``, else its ``journal`` key, relative to
the file) with ``tomllib``: the configuration's own module is not imported.  Any other command goes straight to
``controller.cli.main``.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import tomllib
from pathlib import Path

from controller import program

EXIT_REFUSED = 2
#: what ``tablectl run`` imports before the daemon starts: a release whose modules do not import cannot start
RUN_MODULES = ("controller.cli.main", "controller.cli.table", "controller.daemon")


def journal_of(argv: list[str]) -> Path | None:
    """The journal ``run --table ID`` or ``--config FILE`` names, or None (not found: nothing can be kept)."""
    table = config = None
    for i, a in enumerate(argv):
        for opt in ("--table", "--config"):
            if a == opt and i + 1 < len(argv):
                table, config = (argv[i + 1], config) if opt == "--table" else (table, argv[i + 1])
            elif a.startswith(opt + "="):
                table, config = (a.split("=", 1)[1], config) if opt == "--table" else (table, a.split("=", 1)[1])
    if table:  # controller/paths.py's config_file, without importing it
        path = Path(os.environ.get("TABLECTL_ETC_DIR") or "/etc/table-controller") / f"{table}.toml"
    elif config:
        path = Path(config)
    else:
        return None
    journal = os.environ.get("TABLE_JOURNAL")
    if not journal:
        try:
            journal = tomllib.loads(path.read_text(encoding="utf-8")).get("journal")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None
    if not isinstance(journal, str) or not journal:
        return None
    j = Path(journal)
    return j if j.is_absolute() else Path(os.path.normpath(path.resolve().parent / j))


def changed_modules(problems: tuple[str, ...]) -> list[str]:
    """The program's modules the check names changed or added (a path ``games/cards.py``: ``games.cards``): the
    daemon may import one only later (a game's rules at the configuration), so each is tried here."""
    out = []
    for problem in problems:
        what, _, path = problem.partition(": ")
        parts = path.removesuffix(".py").split("/")
        if what in ("changed", "unexpected") and path.endswith(".py") and parts[0] in program.PACKAGES \
                and parts[-1] != "__main__":
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _one_line(e: BaseException) -> str:
    return " ".join(f"{type(e).__name__}: {e}".split())[:200]


def before_run(argv: list[str]) -> int | None:
    """The check before ``run``: None to go on, or the exit status of a program that cannot start."""
    release = program.installed()
    c = program.check(release)
    program.keep_boot_check(release, c)
    if not c.refuses:
        return None
    try:
        for module in (*RUN_MODULES, *changed_modules(c.problems)):
            importlib.import_module(module)
    except Exception as e:  # noqa: BLE001 - whatever a changed module raises as it is imported
        why = _one_line(e)
    else:
        return None  # it starts, refused: P115 (the dealer and the floor told, the check journaled)
    journal = journal_of(argv)
    kept = "the refusal is not kept (no journal found)"
    if journal is not None:
        try:
            if program.read_refusal(journal) is None:
                program.write_refusal(journal, {
                    "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "state": c.state,
                    "release": c.release, "digest": c.digest, "problems": list(c.problems[:50]),
                    "not_started": why, "journaled": False})
            kept = f"kept in {program.refusal_file(journal)}"
        except OSError as e:
            kept = f"the refusal is not kept ({e.strerror})"
    first = c.problems[0] if c.problems else c.state
    print(f"tablectl run: the program does not match its release ({first}; {len(c.problems)} problem(s)) and "
          f"does not start ({why}): play refused, {kept} -- call a technician (P122)",
          file=sys.stderr)
    return EXIT_REFUSED


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["run"]:
        status = before_run(args[1:])
        if status is not None:
            return status
    from controller.cli.main import main as tablectl

    return tablectl(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

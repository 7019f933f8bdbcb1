"""Where a table's files live on the table PC, by its id (docs/install.md).

``tablectl <command> --table ID`` and the unit ``table-controller@ID.service`` find everything
here, so the technician's command reads what the daemon writes:

* the configuration: ``/etc/table-controller/ID.toml``;
* the journal: where that file's ``journal`` key says, which must be in
  ``/var/lib/table-controller/`` (the unit's StateDirectory, the only directory it may write:
  ``ProtectSystem=strict``); its status beside it (``ID.status.json``: ``status_file``), and the
  daemon's heartbeat (``ID.heartbeat``: ``heartbeat_file``, controller/liveness.py).

``TABLECTL_ETC_DIR`` and ``TABLECTL_STATE_DIR`` move both (an install under another prefix sets
them in its unit).  ``--config FILE`` (development) reads any file, its journal anywhere.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from controller.config.table import ConfigError, TableConfig, load_config

ETC_DIR = Path("/etc/table-controller")
STATE_DIR = Path("/var/lib/table-controller")
ETC_ENV, STATE_ENV = "TABLECTL_ETC_DIR", "TABLECTL_STATE_DIR"


def etc_dir() -> Path:
    return Path(os.environ.get(ETC_ENV) or ETC_DIR)


def state_dir() -> Path:
    return Path(os.environ.get(STATE_ENV) or STATE_DIR)


def config_file(table: str) -> Path:
    return etc_dir() / f"{table}.toml"


def status_file(journal: Path) -> Path:
    """Where the daemon publishes its status, beside its journal (``<journal>.status.json``): the daemon
    writes it, ``tablectl status``, the web pages and the demo's dealer read it; this is the one place
    that names it."""
    return Path(journal).with_suffix(".status.json")


def heartbeat_file(journal: Path) -> Path:
    """The daemon's heartbeat, beside its journal (``<journal>.heartbeat``): touched by the running daemon,
    deleted when it stops (``controller.liveness``); the web service and ``tablectl status`` read its age."""
    return Path(journal).with_suffix(".heartbeat")


def add_table_options(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """``--table ID`` (on the table PC) or ``--config FILE`` (development): exactly one of them."""
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--table", metavar="ID", help=f"the table's id on the table PC: reads {ETC_DIR}/ID.toml "
                   "and the journal it names, as its unit table-controller@ID does")
    g.add_argument("--config", metavar="FILE", help="a configuration file (development: the journal is "
                   "the file's own `journal` key)")


def load_table(args: argparse.Namespace) -> TableConfig:
    """The configuration named by ``--table`` or ``--config``; raises ConfigError."""
    cfg = _load_table(args)
    if cfg.journal.is_dir():  # e.g. TABLE_JOURNAL set empty: the path names the configuration's directory
        raise ConfigError(str(args.config or config_file(args.table)),
                          [f"journal: {cfg.journal} is a directory, not a journal file (is TABLE_JOURNAL empty?)"])
    return cfg


def _load_table(args: argparse.Namespace) -> TableConfig:
    if getattr(args, "table", None):
        cfg = load_config(config_file(args.table))
        if cfg.id != args.table:
            raise ConfigError(str(config_file(args.table)), [f"id: is {cfg.id!r}, but the file is named for "
                                                           f"table {args.table!r}"])
        state = state_dir()
        if not cfg.journal.is_relative_to(state):
            raise ConfigError(str(config_file(args.table)), [f"journal: {cfg.journal} is not in {state}, the only "
                                                           "directory the unit may write (ProtectSystem=strict)"])
        return cfg
    return load_config(args.config)

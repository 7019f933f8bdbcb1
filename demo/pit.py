"""``make run PIT=N``: N simulated tables (the four games in turn) and the pit that shows them all.

    python -m demo.pit --tables 10 [--rounds N] [--pace table|fast] [--pit postgresql://...]

Without ``--pit`` a throwaway PostgreSQL server (``demo.cluster``, as ``make run LINK=1``) holds the pit's
database, deleted at the end.  Each table is the whole demo of ``make run`` (``demo.run``: simulators on free
ports, the daemon, ``tablectl web``, the scripted dealer) with the id ``<game's id>-NN``, its journal under
``var/pit-demo/NN``, its web service publishing to the pit (``TABLE_WEB__PIT``).  Then ``tablectl pit``
serves the pit; its address and the demo's account are printed.  Only each table's addresses and problems
are printed (20 tables' dealers would fill the terminal).  Ctrl-C stops everything.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from demo.cluster import Cluster, start
from demo.run import DEMO_SUPERVISOR
from web.pit.store import migrate

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("ultimate_texas_holdem", "high_card_flush", "jackpot_holdem", "run_em_twice")
MOST = 20  # tables this machine runs (each is six or seven processes)
SHOWN = ("dealer's screen", "floor's pages", "demo:", "Traceback", "stopping")


def _relay(name: str, stream: Iterable[str]) -> None:
    for line in stream:
        if line.startswith(SHOWN):
            print(f"[{name}] {line}", end="", flush=True)


def _table_id(n: int) -> str:
    import tomllib

    game = GAMES[(n - 1) % len(GAMES)]
    return f"{tomllib.loads((ROOT / 'config' / f'{game}.toml').read_text())['id']}-{n:02d}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo.pit")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=0, help="0: until Ctrl-C")
    parser.add_argument("--pace", choices=("fast", "table"), default="table", help="each table's dealer (demo.run)")
    parser.add_argument("--pit", default="1", help="1: a throwaway PostgreSQL server; or a postgresql:// URL")
    args = parser.parse_args(argv)
    if not 1 <= args.tables <= MOST:
        raise SystemExit(f"demo: PIT is a number of tables from 1 to {MOST}, not {args.tables}")
    from web.auth import add_user

    state = ROOT / "var" / "pit-demo"
    state.mkdir(parents=True, exist_ok=True)
    cluster: Cluster | None = None
    procs: list[subprocess.Popen[str]] = []
    try:
        if args.pit == "1":
            cluster = start(prefix="pit-demo-pg-")
            url = cluster.new_database()
        else:
            url = args.pit
        migrate(url)
        users = state / "pit-users"
        users.unlink(missing_ok=True)
        add_user(users, DEMO_SUPERVISOR[0], "supervisor", DEMO_SUPERVISOR[1])
        config = state / "pit.toml"
        config.write_text(f'database = "{url}"\nport = 0\nusers = "{users}"\nstate_dir = "{state / "server"}"\n')
        for n in range(1, args.tables + 1):
            game, name = GAMES[(n - 1) % len(GAMES)], _table_id(n)
            env = {**os.environ, "TABLE_ID": name, "TABLE_WEB__PIT": url}
            proc = subprocess.Popen(
                [sys.executable, "-m", "demo.run", "--config", str(ROOT / "config" / f"{game}.toml"),
                 "--rounds", str(args.rounds), "--state-dir", str(state / f"{n:02d}"), "--free-ports",
                 "--seed", str(n), "--pace", args.pace],
                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            procs.append(proc)
            threading.Thread(target=_relay, args=(name, proc.stdout), daemon=True).start()
        pit = subprocess.Popen([sys.executable, "-m", "controller.cli", "pit", "--config", str(config)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
        procs.append(pit)
        line = pit.stdout.readline() if pit.stdout else ""
        if not line:
            raise SystemExit(f"demo: tablectl pit stopped (exit {pit.wait()})")
        print(f"[pit] the pit: {json.loads(line)['pit']}  (user {DEMO_SUPERVISOR[0]}, password "
              f"{DEMO_SUPERVISOR[1]}); {args.tables} tables, database {url}", flush=True)
        for proc in procs[:-1]:
            proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        if cluster is not None:
            cluster.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())

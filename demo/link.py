"""``make run LINK=1``: two tables on one linked progressive, each the demo of ``make run``.

    python -m demo.link --config config/ultimate_texas_holdem.toml --link 1 [--rounds N]
    python -m demo.link --link postgresql://user@host/db ...   # an existing database

``--link 1`` starts a throwaway PostgreSQL server (``demo.cluster``; Debian's ``postgresql``,
which ``make setup`` installs) and deletes it at the end; a URL uses that database (the schema is
migrated).  Two tables (ids ``<id>-a`` and ``<id>-b``, assets ``A-1`` and ``A-2``) each run the whole demo
(simulators on free ports, the daemon, the web service, the scripted dealer) with their journals under
``var/link-demo/``.  Each line they print is prefixed with the table; a ``link`` line shows, after every
change on the link, the linked meters and what each table's sign shows (its daemon's status), so a
contribution at one table is seen on the other's sign.  Ctrl-C stops everything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

import psycopg

from controller.config.table import load_config
from controller.paths import status_file
from controller.progressive.link.migrate import migrate
from controller.progressive.link.store import LinkStore
from demo.cluster import Cluster, start
from demo.run import demo_journal

ROOT = Path(__file__).resolve().parents[1]
LINK_ID = "demo"


def _relay(name: str, stream: Iterable[str]) -> None:
    for line in stream:
        print(f"[{name}] {line}", end="", flush=True)


def _signs(status_files: dict[str, Path]) -> str:
    shown = []
    for name, path in status_files.items():
        try:
            meters = json.loads(path.read_text()).get("meters") or {}
        except (OSError, ValueError):
            meters = {}
        shown.append(f"{name}: " + " ".join(f"{m} {v}" for m, v in meters.items()))
    return " | ".join(shown)


async def _watch(url: str, status_files: dict[str, Path]) -> None:
    store = LinkStore(url, LINK_ID, pool_size=1)
    await store.open()

    async def changed() -> None:
        values = await store.values()
        await asyncio.sleep(0.2)  # the tables' daemons write their status after reading the change
        print(f"[link] meters {' '.join(f'{m} {v}' for m, v in values.items())}  signs  {_signs(status_files)}",
              flush=True)

    while True:
        try:
            await store.listen(changed)
        except (OSError, psycopg.Error):  # the server restarted, or stopped at the demo's end: listen again
            await asyncio.sleep(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo.link")
    parser.add_argument("--config", default=str(ROOT / "config" / "ultimate_texas_holdem.toml"))
    parser.add_argument("--rounds", type=int, default=0, help="0: until Ctrl-C")
    parser.add_argument("--pace", choices=("fast", "table"), default="fast", help="each table's dealer (demo.run)")
    parser.add_argument("--link", default="1", help="1: a throwaway PostgreSQL server; or a postgresql:// URL")
    args = parser.parse_args(argv)
    cfg = load_config(Path(args.config))
    if not cfg.progressive.enabled:
        raise SystemExit(f"{args.config}: the linked demo needs a table with the Progressive wager")
    cluster: Cluster | None = None
    if args.link == "1":
        cluster = start(prefix="link-demo-pg-")
        url = cluster.new_database()
    else:
        url = args.link
    migrate(url)
    print(f"[link] {url} (link id {LINK_ID!r})", flush=True)
    procs: list[subprocess.Popen[str]] = []
    status_files: dict[str, Path] = {}
    try:
        for n, name in enumerate(("a", "b"), start=1):
            state = ROOT / "var" / "link-demo" / name
            env = {**os.environ, "TABLE_ID": f"{cfg.id}-{name}", "TABLE_PROGRESSIVE__LINK": url,
                   "TABLE_PROGRESSIVE__LINK_ID": LINK_ID, "TABLE_PROGRESSIVE__ASSET": f"A-{n}"}
            status_files[f"{cfg.id}-{name}"] = status_file(demo_journal(state, f"{cfg.id}-{name}"))
            proc = subprocess.Popen(
                [sys.executable, "-m", "demo.run", "--config", args.config, "--rounds", str(args.rounds),
                 "--state-dir", str(state), "--free-ports", "--seed", str(n), "--pace", args.pace],
                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            procs.append(proc)
            threading.Thread(target=_relay, args=(f"{cfg.id}-{name}", proc.stdout), daemon=True).start()
        watcher = threading.Thread(target=lambda: asyncio.run(_watch(url, status_files)), daemon=True)
        watcher.start()
        for proc in procs:
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

"""A throwaway PostgreSQL server from Debian's ``postgresql`` package: the tests' and ``make run LINK=1``'s.

``initdb`` in a temporary directory, ``pg_ctl`` on a free port of 127.0.0.1 with a temporary socket
directory, one database per use (``new_database()``).  The server binaries are in
/usr/lib/postgresql/<version>/bin (not on PATH).  ``initdb`` and ``postgres`` refuse to run as root, and
CI runs as root: then they run as the unprivileged user ``nobody``, which owns the cluster's directory.
Never a casino's server: durability is off (fsync), the data is thrown away.

``make setup`` installs the package when it is absent (as root).

A cluster never outlives the process that started it (its owner): a watchdog process, in a session of
its own (a Ctrl-C at the terminal does not reach it), holds the read end of a pipe whose write end only
the owner holds; when the owner ends however it ends (an exit, SIGKILL of a test worker), the pipe
closes and the watchdog stops the server and deletes its directory.  Should a watchdog die too, the
next ``start`` of the same prefix finds the cluster by its ``owner`` file (the owner's pid and start
time: a reused pid is not the owner) and removes it (``reap``).
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg

OWNER = "owner"  # in the cluster's directory: "<pid> <start time>" of the process that started it
# the watchdog: waits for the end of its stdin (the owner gone), then runs the stop command and removes
# the directory; nothing of the project imported (it must start fast and depend on nothing)
_WATCHDOG = ("import shutil, subprocess, sys\n"
             "sys.stdin.buffer.read()\n"
             "stop, root = __import__('json').loads(sys.argv[1]), sys.argv[2]\n"
             "subprocess.run(stop, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, "
             "stderr=subprocess.DEVNULL, cwd='/')\n"
             "shutil.rmtree(root, ignore_errors=True)\n")


def start(prefix: str = "pg-") -> Cluster:
    """A new cluster in a new temporary directory, started, tied to this process (its watchdog); the
    clusters of the same prefix whose owner is gone are removed first (``reap``)."""
    reap(prefix)
    root = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(root, 0o755)
    (root / OWNER).write_text(_identity(os.getpid()))
    c = Cluster(root, _free_port(), bin_dir())
    c.watch()
    c.init()
    c.start()
    return c


def _identity(pid: int) -> str:
    """``pid`` and its start time (clock ticks after boot, /proc/<pid>/stat field 22); "" when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return f"{pid} {stat.rsplit(')', 1)[1].split()[19]}"


def reap(prefix: str = "pg-") -> list[Path]:
    """Stop and remove every cluster of ``prefix`` in the temporary directory whose owner is gone (a test
    process killed with its watchdog); the clusters removed.  Another live process's clusters stay."""
    gone = []
    for root in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        try:
            owner = (root / OWNER).read_text()
        except OSError:
            continue  # not a cluster of ours (or one being created: its owner file comes first)
        if owner and _identity(int(owner.split()[0])) == owner:
            continue
        subprocess.run(Cluster(root, 0, bin_dir()).stop_command(), stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
        shutil.rmtree(root, ignore_errors=True)
        gone.append(root)
    return gone


def bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise RuntimeError("PostgreSQL's server is not installed: make setup installs it as root "
                           "(apt-get install -y postgresql)")
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    root: Path
    port: int
    bin: Path
    watchdog: subprocess.Popen[bytes] | None = None
    _tie: int | None = None  # the write end of the watchdog's pipe: only this process holds it

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def sockets(self) -> Path:
        return self.root / "run"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _as_owner(self, args: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return args
        # initdb and postgres refuse root: run them as nobody (the owner of the cluster's directory)
        return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *args]

    def _run(self, *args: str) -> None:
        # no pipe to the server: pg_ctl's postgres would keep it open (and run() waiting) while it lives
        with tempfile.TemporaryFile(mode="w+") as err:
            done = subprocess.run(self._as_owner([str(self.bin / args[0]), *args[1:]]), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=err, text=True, cwd=self.root)
            err.seek(0)
            stderr = err.read()
        if done.returncode != 0:
            log = (self.root / "server.log").read_text() if (self.root / "server.log").exists() else ""
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {stderr.strip()} {log[-2000:]}")

    def init(self) -> None:
        self.sockets.mkdir()
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            for p in (self.root, self.sockets):
                os.chown(p, nobody.pw_uid, nobody.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")

    def start(self) -> None:
        # fsync off: a test cluster is thrown away (a restart by pg_ctl still shuts down cleanly)
        options = (f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options, "-w",
                  "-t", "60", "start")

    def restart(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "restart")

    def _stop_args(self) -> list[str]:
        return ["pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop"]

    def stop(self) -> None:
        self._run(*self._stop_args())

    def stop_command(self) -> list[str]:
        """The stop as a command line (for the watchdog and ``reap``, which run it without this process)."""
        program, *args = self._stop_args()
        return self._as_owner([str(self.bin / program), *args])

    def watch(self) -> None:
        """Start the watchdog that stops and removes this cluster when this process ends."""
        read, self._tie = os.pipe()  # both ends not inherited by any later child (PEP 446)
        try:
            self.watchdog = subprocess.Popen(
                [sys.executable, "-c", _WATCHDOG, json.dumps(self.stop_command()), str(self.root)],
                stdin=read, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, cwd="/")
        finally:
            os.close(read)

    def remove(self) -> None:
        """Stop the server and delete its directory (its watchdog, told by the pipe closing, does it)."""
        if self.watchdog is None:
            try:
                self.stop()
            finally:
                shutil.rmtree(self.root, ignore_errors=True)
            return
        if self._tie is not None:
            os.close(self._tie)
            self._tie = None
        self.watchdog.wait(60)

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def terminate(self, database_url: str) -> int:
        """Cut every connection to ``database_url``'s database (pg_terminate_backend); how many."""
        name = database_url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            rows = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE datname = %s AND pid <> pg_backend_pid()", (name,)).fetchall()
        return len(rows)

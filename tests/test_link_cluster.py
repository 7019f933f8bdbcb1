"""The tests' throwaway PostgreSQL (demo.cluster, tests/pg.py) never outlives its test process:
its watchdog stops the server and deletes its directory when the process that started it is SIGKILLed
(a killed pytest worker); a cluster whose owner and watchdog are both gone is removed by the next start
of its prefix (``reap``), never one whose owner lives.  Waits are on the processes' ends (pidfd), no sleep."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

from demo.cluster import OWNER, _identity, reap

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "pg-cleanup-test-"
# a test process of its own: starts a cluster, says where, then waits to be killed
OWNER_PROCESS = """
import json, sys
from demo.cluster import start
c = start(prefix=sys.argv[1])
postmaster = int((c.data / "postmaster.pid").read_text().split()[0])
print(json.dumps({"root": str(c.root), "postmaster": postmaster, "watchdog": c.watchdog.pid}), flush=True)
sys.stdin.read()
"""


def ended(pidfd: int, timeout: float = 60) -> bool:
    """Whether the process of ``pidfd`` ended within ``timeout`` (its pidfd becomes readable then)."""
    return bool(select.select([pidfd], [], [], timeout)[0])


def pidfd(pid: int) -> int | None:
    with contextlib.suppress(ProcessLookupError):
        return os.pidfd_open(pid)
    return None  # already gone


def test_a_sigkilled_test_process_leaves_no_server_behind():
    proc = subprocess.Popen([sys.executable, "-c", OWNER_PROCESS, PREFIX], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        started = json.loads(proc.stdout.readline())
        fds = {what: pidfd(started[what]) for what in ("postmaster", "watchdog")}
        assert None not in fds.values() and Path(started["root"], "data").is_dir()
    finally:
        proc.kill()  # SIGKILL: no atexit, no finally in the owner
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    try:
        assert ended(fds["watchdog"])  # it stopped the server and removed the directory, then ended
        assert ended(fds["postmaster"], 0)
        assert not Path(started["root"]).exists()
    finally:
        for fd in fds.values():
            if fd is not None:
                os.close(fd)


def test_reap_removes_clusters_whose_owner_is_gone_and_only_those():
    gone = subprocess.Popen(["cat"], stdin=subprocess.PIPE)  # an owner that will have ended
    dead = _identity(gone.pid)
    gone.stdin.close()
    gone.wait()
    me = _identity(os.getpid())
    owners = {"dead": dead, "alive": me, "pid reused": f"{os.getpid()} 1"}  # same pid, another start time
    roots = {}
    for what, owner in owners.items():
        roots[what] = Path(tempfile.mkdtemp(prefix=PREFIX))
        (roots[what] / OWNER).write_text(owner)
    try:
        removed = set(reap(PREFIX))
        assert {roots["dead"], roots["pid reused"]} <= removed and roots["alive"] not in removed
        assert not roots["dead"].exists() and not roots["pid reused"].exists() and roots["alive"].is_dir()
    finally:
        for root in roots.values():
            with contextlib.suppress(FileNotFoundError):
                (root / OWNER).unlink()
                root.rmdir()

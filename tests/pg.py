"""The linked-progressive tests' PostgreSQL server: one per test process, started on first use, stopped
and deleted when the process ends (``demo.cluster``: initdb in a temporary directory, pg_ctl
on a free port, as ``nobody`` when run as root).  One database per test (``cluster().new_database()``).

However the process ends: at exit (``atexit``) or killed (SIGKILL of a worker, a Ctrl-C that never
reached the exit), the cluster's watchdog stops the server and deletes it; a cluster left by a run whose
watchdog was killed too is removed at the next run's start (``cluster.reap``; tests/test_link_cluster.py).

Without Debian's ``postgresql`` package the linked tests fail saying how to install it (never skipped);
``make setup`` installs it as root.
"""

from __future__ import annotations

import atexit

from demo.cluster import Cluster, start

_cluster: Cluster | None = None


def cluster() -> Cluster:
    """The test process's PostgreSQL server."""
    global _cluster
    if _cluster is None:
        _cluster = start()
        atexit.register(_cluster.remove)
    return _cluster

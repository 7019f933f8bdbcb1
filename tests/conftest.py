import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

# The suite runs against the source tree (also before `pip install -e .`).
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# ast.parse on CPython 3.11 before 3.11.8 may raise a spurious SystemError ("AST constructor recursion depth
# mismatch") when another thread of the process parses at the same moment (CPython gh-106905: one state for all
# threads); Debian's 3.11.2 has it.  The tests that read the tree's sources
# parse again: the error says nothing of the source.
import ast  # noqa: E402

_parse = ast.parse


def _parse_again(*args, **kwargs):  # type: ignore[no-untyped-def]
    for _ in range(4):
        try:
            return _parse(*args, **kwargs)
        except SystemError as e:
            if "recursion depth mismatch" not in str(e):
                raise
    return _parse(*args, **kwargs)


ast.parse = _parse_again

# The daemons' clock reads as synchronised (controller/service/clock.py; journaled as the environment's): the
# machine running the tests may keep none, and an open table on such a clock is an alarm (P109, test_clock.py)
os.environ.setdefault("TABLECTL_CLOCK", "synchronised")

# A supervisor's ID is checked by scrypt (controller/supervisors.py, P93: tens of milliseconds of CPU by design),
# once per daemon: every in-process daemon a test starts, and every restart of a kill sweep, checked the same ID
# against the same entry anew.  The same ID, salt and cost give the same hash: each worker keeps those it made.
# The check itself is unchanged (matches() still compares the entry's hash).
import functools  # noqa: E402

import controller.supervisors  # noqa: E402

controller.supervisors._scrypt = functools.lru_cache(maxsize=256)(controller.supervisors._scrypt)

# The browser tests' Chromium (tests/web_harness.py), one fixture for every module.
from web_harness import browser  # noqa: E402,F401

# --- the longest tests first (issue 12) -----------------------------------------------------------------
# `make test` (pytest -n 4 --maxschedchunk=1) hands each worker a test as it finishes one, in this order: the
# tests that run longest start first, so that the run does not end with one worker alone on a long test
# while the others wait.  Longest first by what they took (CPU_REPORT below, and their wall time when they
# wait on daemons); node-id prefixes, in that order; every other test keeps its place after them.  (A
# module-scoped fixture may then be made once on each of several workers: a simulator, 100,000 hands;
# --dist loadgroup would keep such a module on one worker, but does not group under pytest 9.)
LONGEST_FIRST = (
    "tests/test_dist.py::",
    "tests/test_kill_sweep.py::test_kill_point_sweep_in_process[",
    "tests/test_dealer_screen.py::",
    "tests/test_par_uth.py::test_kernel_against_independent_counts",  # numba's compile of UTH's kernel (cold)
    "tests/test_web_recall.py::test_the_floor_searches",
    "tests/test_web_floor_pages.py::test_every_page_in_words",
    "tests/test_pit.py::",
    "tests/test_daemon_crash.py::test_sigkill_at_random_points",
    "tests/test_par_hcf.py::test_classes_and_stored_hands_re_enumerated",
    "tests/test_progressive_meters.py::",
    "tests/test_shuffle_watch.py::",
    "tests/test_program.py::",
    "tests/test_web_technician.py::",
    "tests/test_web_floor.py::test_progressive_win_held",
    "tests/test_kill_points.py::test_kill_point_sweep[",
    "tests/test_daemon_e2e.py::",
    "tests/test_web_dealer.py::",
    "tests/test_analysis_sim.py::test_same_seed_same_json_whatever",
    "tests/test_link_daemon.py::",
    "tests/test_config_matrix.py::test_every_refusal_cites",
    "tests/test_web_secrets.py::",
    "tests/test_link_kill.py::",
    "tests/test_daemon_segments.py::test_a_daemon_killed_during_a_roll_over",
    "tests/test_progressive_system.py::test_sigkill",
    "tests/test_kill_points.py::",
    "tests/test_link_faults.py::",
    "tests/test_storage_faults.py::",
    "tests/test_operator_tools.py::test_the_demo_stops",
    "tests/test_docstrings.py::",
)


def pytest_collection_modifyitems(session, config, items):
    def rank(item) -> int:
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)),
                    len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: the order within a rank, and of all the rest, is pytest's


# --- where the suite's CPU goes (issue 12: make test on two shared cores) ----------------------------
# CPU_REPORT=path: every test appends one JSON line {nodeid, wall, cpu, children} to path: wall seconds,
# this process's CPU seconds and its child processes' (daemons, builds, pip, Chromium), each for
# setup + call + teardown. CPU does not grow when the machine is loaded, so it ranks the tests
# fairly on a shared machine; `python tests/cpu_report.py path` prints the ranking.
_CPU_REPORT = os.environ.get("CPU_REPORT")


def _children_cpu() -> float:
    """CPU seconds of this process's children: those waited for (getrusage) plus those still running
    (a session's Chromium, a module's daemon), read from /proc with their own waited-for children."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = kids.ru_utime + kids.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)] = int(fields[1])
        times[int(entry)] = sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
    me = os.getpid()
    for pid in times:
        p = parent.get(pid)
        while p and p != me:
            p = parent.get(p)
        if p == me:
            total += times[pid]
    return total


if _CPU_REPORT:

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        start, wall0, cpu0, kids0 = time.time(), time.perf_counter(), time.process_time(), _children_cpu()
        yield
        row = {
            "nodeid": item.nodeid,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", ""),
            "start": round(start, 3),
            "wall": round(time.perf_counter() - wall0, 3),
            "cpu": round(time.process_time() - cpu0, 3),
            "children": round(_children_cpu() - kids0, 3),
        }
        with open(_CPU_REPORT, "a") as f:
            f.write(json.dumps(row) + "\n")


# --- a configuration read from its file alone ----------------------------------------------------------------
@pytest.fixture
def no_table_env(monkeypatch):
    """No TABLE_* variable of the environment running the tests reaches the configuration a test loads
    (pydantic-settings reads them over the TOML file)."""
    for name in list(os.environ):
        if name.upper().startswith("TABLE_"):
            monkeypatch.delenv(name)


# --- one compile of each par kernel (issue 27's numba kernels) ----------------------------------------------
# numba compiles a kernel at its first call and caches it on disk (games/par/__pycache__); on a fresh clone two
# workers starting the same module's tests at once each compiled it (5 to 25 s of CPU each).  A module's first
# test on each worker runs under a lock shared by the workers: the first compiles and caches, the others then
# load the cache.
_PAR_COMPILED: set[str] = set()


@pytest.fixture(autouse=True)
def _par_compiled_once(request, tmp_path_factory):
    module = request.node.module.__name__ if request.node.module else ""
    if not module.startswith("test_par_") or module in _PAR_COMPILED:
        yield
        return
    import fcntl

    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root  # the workers' common directory
    with open(root / f"{module}.compile.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            _PAR_COMPILED.add(module)
            fcntl.flock(lock, fcntl.LOCK_UN)

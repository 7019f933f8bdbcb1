"""What this copy of the program is: its version and the git commit it was built from.

``make dist`` writes ``controller/_build.py`` (``COMMIT = "..."``) into the copy it builds the
wheel from, so an installed copy names its commit without git.  A source checkout asks git.
"""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata
from pathlib import Path

DIST_NAME = "table-controller"


def version() -> str:
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


@functools.cache  # a process's own commit does not change while it runs: git is asked once, not per parser
def commit() -> str:
    try:
        from controller import _build  # type: ignore[attr-defined]  # written by make dist only

        return str(_build.COMMIT)
    except ImportError:
        pass
    source = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "-C", str(source), "describe", "--always", "--dirty", "--abbrev=12",
                              "--match=NO-TAGS"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "unknown"


def describe() -> str:
    """One line: ``table-controller 0.1.0 (commit 1a2b3c4d5e6f)``."""
    return f"{DIST_NAME} {version()} (commit {commit()})"

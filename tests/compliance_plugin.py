"""A pytest plugin for ``make compliance`` (tests/compliance.py): each test's requirement ids and its outcome.

Each test carrying ``@pytest.mark.requirement("<id>")`` sends its ids with its reports (``user_properties``:
they cross from xdist's workers to the main process); the main process writes, at the end, one JSON object
{node id: {"requirements": [...], "outcome": "passed" | "failed" | "skipped"}} to ``$COMPLIANCE_OUT``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

_RESULTS: dict[str, dict[str, Any]] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("requirement"):
        item.user_properties.append(("requirement", str(mark.args[0])))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    ids = sorted({str(v) for k, v in report.user_properties if k == "requirement"})
    row = _RESULTS.setdefault(report.nodeid, {"requirements": ids, "outcome": "passed"})
    row["requirements"] = sorted(set(row["requirements"]) | set(ids))
    if report.failed:
        row["outcome"] = "failed"
    elif report.skipped and row["outcome"] == "passed":
        row["outcome"] = "skipped"


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("COMPLIANCE_OUT")
    if out and not hasattr(session.config, "workerinput"):  # the main process (xdist's workers send reports)
        with open(out, "w", encoding="utf-8") as f:
            json.dump(_RESULTS, f, indent=1)

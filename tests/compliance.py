"""``make compliance``: run exactly the tests that prove a regulator's requirement and print the matrix.

The matrix is docs/compliance.md's table (and docs/compliance-progressive.md's, when it exists): one row per
requirement id, what the product does, the tests (node ids in backticks).  The tests run are those carrying
``@pytest.mark.requirement(id)`` (``-m requirement``; their outcomes through tests/compliance_plugin.py).
A row passes when every test it names ran and passed.  Exit 1 when a row fails or names no test, a test a row
names lacks that row's marker or did not run, or a marked test's id has no row or the row does not name it.

    python tests/compliance.py [-n N] [--no-run RESULTS.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "docs" / "compliance.md", ROOT / "docs" / "compliance-progressive.md")
_ROW = re.compile(r"^\|\s*(?P<id>[^|]+?)\s*\|\s*(?P<what>[^|]+?)\s*\|\s*(?P<tests>[^|]*?)\s*\|\s*$")
_TEST = re.compile(r"`(tests/[^`]+::[^`]+)`")


def matrix(paths: tuple[Path, ...] = DOCS) -> list[dict[str, Any]]:
    """Every row of the matrices: {"id", "what", "tests", "where"}; a row is a table line whose third cell
    names tests or is empty (a header or the rule line is not)."""
    rows = []
    for path in paths:
        if not path.exists():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = _ROW.match(line)
            if not m or set(m["id"]) <= set("-: ") or m["id"].lower() == "requirement":
                continue
            rows.append({"id": m["id"], "what": m["what"], "tests": _TEST.findall(m["tests"]),
                         "where": f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{n}"})
    return rows


def judge(rows: list[dict[str, Any]], results: dict[str, dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(the matrix's lines, the problems)."""
    problems: list[str] = []
    base: dict[str, list[dict[str, Any]]] = {}
    for nodeid, r in results.items():
        base.setdefault(nodeid.split("[")[0], []).append(r)
    named = {(row["id"], t) for row in rows for t in row["tests"]}
    for nodeid, rs in base.items():
        for req in sorted({i for r in rs for i in r["requirements"]}):
            if (req, nodeid) not in named:
                problems.append(f"{nodeid}: marked {req!r}, but no row of the matrix for {req!r} names it")
    lines = []
    for row in rows:
        verdicts: list[str] = []
        if not row["tests"]:
            problems.append(f"{row['where']}: {row['id']}: no test proves it")
        for t in row["tests"]:
            rs = base.get(t) or []
            if not rs:
                problems.append(f"{row['where']}: {t}: did not run (no such test, or no requirement marker)")
                verdicts.append("missing")
            elif not any(row["id"] in r["requirements"] for r in rs):
                problems.append(f"{row['where']}: {t}: lacks @pytest.mark.requirement({row['id']!r})")
                verdicts.append("unmarked")
            else:
                verdicts.append("passed" if all(r["outcome"] == "passed" for r in rs) else "failed")
        ok = bool(verdicts) and all(v == "passed" for v in verdicts)
        failed = [t for t, v in zip(row["tests"], verdicts, strict=True) if v == "failed"]
        if failed:
            problems.append(f"{row['where']}: {row['id']}: failed: " + ", ".join(failed))
        lines.append(f"{'PASS' if ok else 'FAIL'}  {row['id']:<32} {len(row['tests'])} test(s)  {row['what']}")
    return lines, problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", default="2", help="pytest-xdist workers (0: none)")
    p.add_argument("--no-run", type=Path, metavar="RESULTS", help="judge a results file instead of running")
    args = p.parse_args(argv)
    rows = matrix()
    if args.no_run is not None:
        results = json.loads(args.no_run.read_text())
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "results.json"
            # (no PYTHONPATH: the install's test runs an installed tablectl, which must not import this tree)
            env = {**os.environ, "COMPLIANCE_OUT": str(out)}
            cmd = [sys.executable, "-m", "pytest", "-q", "-m", "requirement", "-p", "tests.compliance_plugin",
                   "-p", "no:cacheprovider", *(["-n", args.n] if args.n != "0" else [])]
            subprocess.run(cmd, cwd=ROOT, env=env)
            results = json.loads(out.read_text()) if out.exists() else {}
    lines, problems = judge(rows, results)
    print("\nThe compliance matrix (docs/compliance.md):")
    print("\n".join(lines))
    for problem in problems:
        print(f"  problem: {problem}")
    print(f"{sum(1 for ln in lines if ln.startswith('PASS'))} of {len(rows)} requirements pass"
          + (f"; {len(problems)} problem(s)" if problems else ""))
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main())

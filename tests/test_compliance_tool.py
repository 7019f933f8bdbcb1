"""``make compliance``'s judge (tests/compliance.py): the matrix read from docs/compliance.md, each row's result
from its tests' outcomes, and every disagreement between the matrix and the markers a problem."""

from __future__ import annotations

import compliance

A, B = "tests/test_a.py::test_one", "tests/test_b.py::test_two"


def test_the_matrix_has_a_row_per_requirement_each_with_tests():
    rows = compliance.matrix()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) >= 9 and "NY 9 NYCRR 5321.18(b)(3)(iv)" in ids
    assert all(r["tests"] and all("::test_" in t for t in r["tests"]) for r in rows)


def test_a_row_passes_only_when_each_of_its_tests_ran_marked_and_passed(tmp_path):
    page = tmp_path / "m.md"
    page.write_text("| requirement | what | tests |\n|---|---|---|\n"
                    f"| X 1 | does x | `{A}` `{B}` |\n| Y 2 | does y | |\n")
    rows = compliance.matrix((page,))
    results = {A: {"requirements": ["X 1"], "outcome": "passed"},
               B + "[p1]": {"requirements": ["X 1"], "outcome": "passed"},
               "tests/test_c.py::test_three": {"requirements": ["Z 3"], "outcome": "passed"}}
    lines, problems = compliance.judge(rows, results)
    assert [ln.split()[0] for ln in lines] == ["PASS", "FAIL"]
    assert any("Y 2: no test proves it" in p for p in problems)
    assert any("test_three: marked 'Z 3'" in p for p in problems)
    results[B + "[p2]"] = {"requirements": ["X 1"], "outcome": "failed"}
    lines, problems = compliance.judge(rows, results)
    assert lines[0].startswith("FAIL") and any("failed: " + B in p for p in problems)
    results = {A: {"requirements": ["Q"], "outcome": "passed"}}
    _, problems = compliance.judge(rows[:1], results)
    assert any("lacks @pytest.mark.requirement('X 1')" in p for p in problems)
    assert any(B + ": did not run" in p for p in problems)

"""`tablectl analyze --wager base` from the stored exact sheets (games.par): --strategy, --recompute, the
contract's fields, refusals naming the option; the registry's errors."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest

from controller.cli.main import main
from games import analysis, par

UTH = "ultimate_texas_holdem"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["analyze", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_base_answers_from_the_stored_sheet(strategy: str) -> None:
    code, out, _ = run("--game", UTH, "--wager", "base", "--paytable", "A", "--strategy", strategy, "--json")
    assert code == 0
    r = json.loads(out)
    sheet = par.stored(UTH, "A", strategy)
    assert (r["method"], r["space"], r["strategy"], r["wager"]) == ("exact", sheet["space"], strategy, "base")
    assert Fraction(r["return_exact"]) == 1 - Fraction(sheet["house_edge_per_ante"])
    assert r["losing_count"] + sum(line["count"] for line in r["lines"]) == r["space"]
    assert r["std_dev"] == sheet["std_dev_per_ante"] and r["element_of_risk"] == sheet["element_of_risk_decimal"]


def test_posted_is_the_default_and_the_text_names_the_strategy() -> None:
    assert analysis.analyze(UTH, "base", "B")["strategy"] == "posted"
    code, out, _ = run("--game", UTH, "--wager", "base", "--paytable", "B")
    assert code == 0 and "strategy: posted" in out and "exact" in out


def test_optimal_beats_posted_and_the_published_edge_is_matched() -> None:
    optimal, posted = (Fraction(par.stored(UTH, "A", s)["house_edge_per_ante"]) for s in ("optimal", "posted"))
    assert optimal < posted
    published = par.stored(UTH, "A", "optimal")["published"][0]
    assert round(optimal, 5) == Fraction(published["value"])  # 2.185 %, its printed precision


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--wager", "base", "--paytable", "A", "--strategy", "best"], "--strategy"),
        (["--wager", "base", "--paytable", "A", "--strategy", "optimal", "--rounds", "100"], "--strategy"),
        (["--wager", "base", "--paytable", "A", "--recompute", "--rounds", "100"], "--recompute"),
        (["--wager", "trips", "--paytable", "A", "--strategy", "optimal"], "--strategy"),
        (["--wager", "trips", "--paytable", "A", "--recompute"], "--recompute"),
    ],
)
def test_refusals_name_the_option(argv: list[str], named: str) -> None:
    code, out, err = run("--game", UTH, *argv)
    assert code == 2 and out == "" and err.startswith(f"tablectl analyze: {named}") and err.count("\n") == 1


def test_registry_names_what_is_missing() -> None:
    with pytest.raises(par.ParError, match="strategy"):
        par.stored(UTH, "A", "best")
    with pytest.raises(par.ParError, match="no exact base-game sheet"):
        par.stored("baccarat", None, "optimal")
    with pytest.raises(par.ParError, match="ultimate_texas_holdem.C.optimal.json"):
        par.stored(UTH, "C", "optimal")
    assert par.file_name(UTH, None, "posted") == "ultimate_texas_holdem.base.posted.json"

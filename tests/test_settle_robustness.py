"""`tablectl settle` never answers bad input with a traceback (issue: trust in what comes in).

Every refusal is one line naming the field, exit 2 (shared/contracts/settle.md); amounts are bounded
(games.money.MAX_AMOUNT, games.contract.MAX_WAGER) so that no Decimal operation can fail on them; an
error never echoes a huge value whole; a reader that goes away is no crash.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import controller.cli.main
from controller.cli.main import MAX_ERROR, main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [
    json.loads((ROOT / "docs/examples/settle-uth.json").read_text()),
    {"game": "run_em_twice", "paytables": {"progressive": "A"},
     "progressive": {"unit": 1, "meters": {"meter": 12000}, "reset": {"meter": 10000}, "envy": "A"},
     "community": {"left": "Qs", "center": "Js", "right": "Ts", "top": "2c", "bottom": "3d"},
     "seats": [{"seat": 1, "cards": ["As", "Ks"], "wagers": {"ante_1": 5, "ante_2": 5, "progressive": 1},
                "bets": [3, 1, 2]}]},
    {"game": "high_card_flush", "dealer": ["2c", "3c", "4c", "5d", "7h", "9s", "Jd"],
     "seats": [{"seat": 2, "cards": ["Ah", "Kh", "Qh", "2s", "3s", "4s", "6d"], "wagers": {"ante": 10},
                "raise": 1}]},
]
ODD_VALUES = [None, [], {}, "", "x", True, False, 0, -1, 10**26, -(10**26), Decimal("1E+999"), Decimal("0.001"),
              Decimal("-0.01"), "NaN", "5s", [1, 2], {"a": 1}, 99999999999, "ultimate_texas_holdem"]


def paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, (*prefix, i))


@st.composite
def mutated(draw):
    obj = copy.deepcopy(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from([p for p in paths(obj) if p]))
        parent = obj
        for k in where[:-1]:
            parent = parent[k]
        if draw(st.booleans()):
            parent[where[-1]] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES) | st.integers() | st.text(max_size=5)))
        elif isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent.pop(where[-1])
        if not obj:
            break
    return obj


@pytest.fixture(scope="module", autouse=True)
def one_parser():
    """`main` builds the whole command line's parser at every call (about 0.1 s of CPU: every
    sub-command's help, the version); built once here, so that the 600 examples below cost what
    settling them costs.  `main`'s own code, the parse and the settlement run as at every call."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(controller.cli.main, "build_parser", functools.cache(controller.cli.main.build_parser))
        yield


def run(text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["settle"], stdin=io.StringIO(text), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_rounds_are_settled_or_refused_in_one_line_never_a_traceback(obj):
    code, out, err = run(json.dumps(obj, default=str))  # any exception escaping main fails the test
    if code == 0:
        json.loads(out)
    else:
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("tablectl settle: ")
        assert len(err) <= len("tablectl settle: ") + MAX_ERROR + 1


def test_an_amount_of_ten_to_the_26_is_refused_naming_the_field():
    r = copy.deepcopy(EXAMPLES[0])
    r["seats"][0]["wagers"]["trips"] = 10**26
    code, _, err = run(json.dumps(r))
    assert code == 2 and err.startswith("tablectl settle: seats[0].wagers.trips: ")


def test_a_wager_over_ten_million_is_refused_and_a_meter_may_be_larger():
    r = copy.deepcopy(EXAMPLES[0])
    r["seats"][0]["wagers"].update(ante=10_000_001, blind=10_000_001)
    assert run(json.dumps(r))[2].startswith("tablectl settle: seats[0].wagers.ante: ")
    r = copy.deepcopy(EXAMPLES[0])
    r["progressive"]["meters"]["major"] = 25_000_000
    assert run(json.dumps(r))[0] == 0


def test_a_ten_megabyte_value_is_not_echoed_whole():
    r = copy.deepcopy(EXAMPLES[0])
    r["seats"][0]["cards"][0] = "x" * 10_000_000
    code, _, err = run(json.dumps(r))
    assert code == 2 and len(err) <= len("tablectl settle: ") + MAX_ERROR + 1


def test_a_reader_that_goes_away_is_no_crash(tmp_path):
    """`tablectl settle day.jsonl | head -1`: the closed pipe ends the command quietly (no traceback)."""
    line = json.dumps(EXAMPLES[0])
    day = tmp_path / "day.jsonl"
    day.write_text("\n".join([line] * 3000) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "settle", str(day)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()  # the reader goes away after one line
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert proc.wait(timeout=60) == 2
    assert "Traceback" not in err and err == ""

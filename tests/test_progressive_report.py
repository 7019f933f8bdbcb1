"""``tablectl progressive report --since/--until``: the meters' report over a period.

The journal is written here event by event, in the shapes the daemon journals them (round_opened
with the progressive unit, no_more_bets with the accepted progressive seats, meter_add, voided with
the wagers kept, meter_paid, progressive_hit), on a clock this test sets, so that every event falls
on a known side of each bound.  The daemon end to end is in tests/test_progressive_system.py.

What a period counts: progressive wagers (coin-in) and their contributions when they were accepted
at no more bets; taken back when their round is voided and they are returned (R7a), at that time;
hits and payouts when the supervisor validated them.  ``--since`` is inclusive, ``--until``
exclusive; a date alone is a whole UTC day (``--until 2024-05-31``: to the end of May 31).
"""

from __future__ import annotations

import datetime as real_dt
import io
import json
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest

import controller.journal.store as journal_module
from controller.cli.main import main as tablectl
from controller.journal.store import Journal
from controller.progressive.hits import parse_when, report

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "config" / "ultimate_texas_holdem.toml")  # meters major and minor
UTC = real_dt.UTC


class Clock:
    """The journal's clock, set by the test."""

    now_at = real_dt.datetime(2024, 1, 1, tzinfo=UTC)

    @classmethod
    def now(cls, tz=None):
        return cls.now_at


def at(text: str) -> None:
    Clock.now_at = real_dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def play(j: Journal, round_id: str, when: str, seats: list[int], unit: str = "1") -> None:
    """A round opened and its progressive wagers accepted at ``when``: contributions 0.04 / 0.01 each."""
    at(when)
    j.append(round_id, "round_opened", {"game": "ultimate_texas_holdem",
                                        "progressive": {"unit": unit, "meters": {}, "reset": {}}})
    j.append(round_id, "no_more_bets", {"progressive_seats": seats})
    if seats:
        n = Decimal(len(seats)) * Decimal(unit)
        j.append(round_id, "meter_add", {"meters": {"major": Decimal("0.04") * n, "minor": Decimal("0.01") * n}})


def void(j: Journal, round_id: str, when: str, seats: int, keep: list[str], unit: str = "1") -> None:
    at(when)
    j.append(round_id, "voided", {"reason": "test", "keep": keep})
    if seats and "progressive" not in keep:
        n = Decimal(seats) * Decimal(unit)
        j.append(round_id, "meter_add", {"meters": {"major": Decimal("-0.04") * n, "minor": Decimal("-0.01") * n}})
    j.append(round_id, "round_voided", {})


def validate(j: Journal, round_id: str, when: str, hits: list[dict]) -> None:
    at(when)
    for i, h in enumerate(hits):
        if "meter" in h:
            j.append(round_id, "meter_paid", {"meter": h["meter"], "paid": h["amount"], "after": h["after"],
                                              "hit": i, "seat": h["seat"]}, who="supervisor 4711")
        data = {"round": round_id, "hit": i, "seat": h["seat"], "wager": h["wager"], "line": h["line"],
                "amount": h["amount"]}
        if "meter" in h:
            data["meter"] = h["meter"]
        j.append(None, "progressive_hit", data, who="supervisor 4711")
    j.append(round_id, "round_closed", {})


@pytest.fixture
def journal(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "_dt", SimpleNamespace(datetime=Clock, timezone=real_dt.timezone))
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "table.journal"))
    with Journal(tmp_path / "table.journal") as j:
        at("2024-04-30T08:00:00")
        j.append(None, "meter_set", {"meters": {"major": "10000.00", "minor": "500.00"}})
        # May
        play(j, "r1", "2024-05-01T00:00:00", [1, 2])  # on the bound: since is inclusive
        validate(j, "r1", "2024-05-01T00:05:00", [
            {"seat": 1, "wager": "progressive", "line": "royal_flush", "amount": "10000.08", "meter": "major",
             "after": "1000.00"},
            {"seat": 2, "wager": "envy", "line": "envy from seats 1", "amount": "1000"}])
        play(j, "r2", "2024-05-31T23:59:59.999999", [3])  # the last instant of May
        play(j, "r3", "2024-05-31T23:00:00", [1, 4])  # accepted in May, returned in June (R7a)
        void(j, "r3", "2024-06-01T00:30:00", 2, keep=[])
        # June
        play(j, "r4", "2024-06-01T00:00:00", [1, 2, 3])
        void(j, "r4", "2024-06-01T00:10:00", 3, keep=[])  # returned: counts nothing
        play(j, "r5", "2024-06-02T12:00:00", [2, 5])
        void(j, "r5", "2024-06-02T12:10:00", 2, keep=["progressive"])  # the progressive wagers stand
        play(j, "r6", "2024-06-03T09:00:00", [6], unit="5")
        validate(j, "r6", "2024-06-03T09:02:00", [
            {"seat": 6, "wager": "progressive", "line": "straight_flush", "amount": "500.50", "meter": "minor",
             "after": "250.00"},
        ])
        play(j, "r7", "2024-06-03T10:00:00", [6], unit="5")
        validate(j, "r7", "2024-06-03T10:01:00", [
            {"seat": 6, "wager": "progressive", "line": "four_of_a_kind", "amount": "1500"}])
        yield j


def figures(rep: dict) -> tuple:
    """(wagers, coin-in, major (contributions, hits, paid), minor (...), fixed (hits, paid))."""
    m = rep["meters"]
    return (rep["progressive_wagers"], Decimal(m["major"]["coin_in"]),
            tuple(Decimal(str(m["major"][k])) for k in ("contributions", "hits", "paid")),
            tuple(Decimal(str(m["minor"][k])) for k in ("contributions", "hits", "paid")),
            (rep["fixed"]["hits"], Decimal(str(rep["fixed"]["paid"]))))


D = Decimal
MAY = (5, D(5), (D("0.20"), 1, D("10000.08")), (D("0.05"), 0, D(0)), (1, D(1000)))
# June: r3 returned (-2), r4 accepted and returned (+3 -3), r5 kept (+2), r6 and r7 at $5 (+1 +1)
JUNE = (2, D(10), (D("0.40"), 0, D(0)), (D("0.10"), 1, D("500.50")), (1, D(1500)))
WHOLE = (7, D(15), (D("0.60"), 1, D("10000.08")), (D("0.15"), 1, D("500.50")), (2, D(2500)))


def since_until(since: str | None, until: str | None) -> dict:
    return {"since": parse_when(since) if since else None, "until": parse_when(until, end=True) if until else None}


def test_the_whole_journal_and_its_two_halves(journal):
    whole = figures(report(journal, ["major", "minor"]))
    assert whole == WHOLE
    assert figures(report(journal, ["major", "minor"], **since_until("2024-05-01", "2024-05-31"))) == MAY
    assert figures(report(journal, ["major", "minor"], **since_until("2024-06-01", None))) == JUNE
    # the two periods add up to the whole (nothing counted twice, nothing lost at the bound)
    assert tuple(a + b if not isinstance(a, tuple) else tuple(x + y for x, y in zip(a, b, strict=True))
                 for a, b in zip(MAY, JUNE, strict=True)) == WHOLE
    # before anything, and a period with nothing in it
    empty = (0, D(0), (D(0), 0, D(0)), (D(0), 0, D(0)), (0, D(0)))
    assert figures(report(journal, ["major", "minor"], **since_until(None, "2024-04-30"))) == empty
    assert figures(report(journal, ["major", "minor"], **since_until("2024-07-01", None))) == empty
    rep = report(journal, ["major", "minor"], **since_until("2024-06-01", None))
    assert Decimal(rep["meters"]["minor"]["current"]) == journal.meter_values()["minor"]  # the meter now
    assert rep["period"] == {"since": "2024-06-01T00:00:00+00:00", "until": None}


def test_date_times_and_offsets():
    assert parse_when("2024-06-01") == real_dt.datetime(2024, 6, 1, tzinfo=UTC)
    assert parse_when("2024-06-01", end=True) == real_dt.datetime(2024, 6, 2, tzinfo=UTC)
    assert parse_when("2024-06-01T02:30:00+02:00") == real_dt.datetime(2024, 6, 1, 0, 30, tzinfo=UTC)
    assert parse_when("2024-06-01T00:30Z", end=True) == real_dt.datetime(2024, 6, 1, 0, 30, tzinfo=UTC)
    assert parse_when("2024-06-01 00:30") == real_dt.datetime(2024, 6, 1, 0, 30, tzinfo=UTC)
    for bad in ("yesterday", "2024-13-01", "2024-06-31", "01/06/2024", ""):
        with pytest.raises(ValueError, match="not an ISO date"):
            parse_when(bad)


def test_a_bound_inside_a_day(journal):
    # r6 (09:00) in, r7 (10:00) out; r6's payout at 09:02 in
    rep = report(
        journal, ["major", "minor"], since=parse_when("2024-06-03T08:00"), until=parse_when("2024-06-03T09:30")
    )
    assert figures(rep) == (1, D(5), (D("0.20"), 0, D(0)), (D("0.05"), 1, D("500.50")), (0, D(0)))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = tablectl(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_tablectl_progressive_report_period(journal):
    code, out, err = run("progressive", "report", "--config", CONFIG, "--since", "2024-05-01", "--until",
                         "2024-05-31", "--json")
    assert code == 0, err
    assert figures(json.loads(out)) == MAY
    code, out, err = run("progressive", "report", "--config", CONFIG, "--since", "2024-06-01T02:00:00+02:00")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "period: from 2024-06-01T00:00:00+00:00 to now (UTC; current: the meters now)"
    assert lines[1] == "progressive wagers: 2"
    assert lines[-1].split() == ["fixed", "1", "1500"]
    code, out, err = run("progressive", "report", "--config", CONFIG)  # no period: as before
    assert code == 0 and not out.startswith("period") and "progressive wagers: 7" in out


@pytest.mark.parametrize("argv,message", [
    (["--since", "yesterday"], "tablectl progressive: --since: 'yesterday' is not an ISO date"),
    (["--until", "2024-02-30"], "tablectl progressive: --until: '2024-02-30' is not an ISO date"),
    (["--since", "2024-06-02", "--until", "2024-06-01"], "tablectl progressive: --since (2024-06-02T00:00:00+00:00) "
                                                          "must be before --until (2024-06-02T00:00:00+00:00)"),
])
def test_bad_period_refused_naming_the_option(journal, argv, message):
    code, out, err = run("progressive", "report", "--config", CONFIG, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_period_with_history_refused(journal):
    code, out, err = run("progressive", "history", "--config", CONFIG, "--since", "2024-06-01")
    assert (code, out, err) == (2, "", "tablectl progressive: --since applies to the report only\n")

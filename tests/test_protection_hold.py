"""Hold against theoretical and streaks (controller/protection/hold.py, issue 28; docs/protection.md).

The figures per unit: a side wager's mean and standard deviation exact from its stored line counts (HCF's
Straight Flush Bonus counted again here, cheaply, from games.analysis; UTH Trips A against its published return),
the base game's from its par sheet through one function (a stub sheet here; no sheet: "no figures").  The hold
per wager from journal rows of settlements: a fair run is within its band, a run that wins every hand is outside
it.  Streaks: the binomial tail exact, a seat winning most of its last hands is found with its probability in
words, fair hands raise none, and a replay of the same settlements (a restart) finds the same.  The daemon's part
over a real journal: a streak and a hold outside its band journaled and latched, rebuilt after a restart.
"""

from __future__ import annotations

import random
import sys
import types
from decimal import Decimal
from fractions import Fraction
from math import comb
from types import SimpleNamespace

import pytest
import structlog

from controller import events as ev
from controller.config.protection import ProtectionConfig
from controller.journal.rows import Event
from controller.journal.store import Journal
from controller.protection import hold
from controller.protection.report import lines, report
from games import analysis
from games.paytables import PAYTABLES
from part_fakes import Alarms, Settling

UTH = "ultimate_texas_holdem"
TRIPS = hold.side_figures(UTH, "trips", "A")


def test_side_wager_figures_are_exact_from_their_line_counts():
    assert TRIPS is not None
    assert 1 + TRIPS.mean == Fraction(33144511, 33446140)  # the published 0.990982 of UTH Trips A
    assert 0 < TRIPS.p_win < 1 and TRIPS.sd > 1
    for key, c in hold._side_counts().items():
        assert sum(c["counts"]) + c["losing"] == c["space"], key
    for (game, wager, letter), table in PAYTABLES.items():  # HCF's counts are cheap to count again
        if game == "high_card_flush" and wager == "straight_flush_bonus":
            space, counts, losing = analysis._line_counts(table, None)
            assert hold._side_counts()[f"{game}/{wager}/{letter}"] == {"space": space, "counts": counts,
                                                                       "losing": losing}
    assert hold.figures(UTH, "progressive", "A") is None  # the meters' return: no figures
    bad_beat = hold.side_figures(UTH, "bad_beat", "A")  # R24b: the losing hand of two, counted exactly
    assert bad_beat is not None and 1 + bad_beat.mean == Fraction(1797346909, 2257614450)


def test_the_base_game_figures_come_from_its_par_sheet_or_there_are_none(monkeypatch):
    sheet = types.ModuleType("games.par")
    sheet.stored = lambda game, letter, strategy: (  # type: ignore[attr-defined]
        {"return_per_ante": "489/500", "std_dev_per_ante": "4.9"} if (game, letter, strategy) == (UTH, "A", "posted")
        else None)
    monkeypatch.setitem(sys.modules, "games.par", sheet)
    f = hold.base_figures(UTH, "A")
    assert f is not None and f.mean == Fraction(-11, 500) and f.sd == pytest.approx(4.9)
    assert hold.base_figures(UTH, "B") is None
    monkeypatch.setitem(sys.modules, "games.par", None)  # no sheets at all: no figures, no error
    assert hold.base_figures(UTH, "A") is None


def _rows(outcomes: list[str]) -> list[Event]:
    """One UTH round per outcome as journal rows, seat 1 with a $5 Ante, Blind and Trips: the Trips wins at
    ``outcome``'s line ("lose": it loses); the Ante, Blind and Play lose $15 a round."""
    pays = {line.key: line.pays for line in PAYTABLES[(UTH, "trips", "A")].lines}
    out: list[Event] = []

    def row(rid: str, e: ev.JournalEvent) -> None:
        out.append(Event(len(out) + 1, "2026-11-27T12:00:00+00:00", rid, e.kind, None, e.to_data()))

    for n, outcome in enumerate(outcomes):
        rid = f"r{n}"
        row(rid, ev.RoundOpened(game=UTH, paytables={"blind": "A", "trips": "A"}))
        for wager in ("ante", "blind", "trips"):
            row(rid, ev.WagerPlaced(seat=1, wager=wager, amount=Decimal(5)))
        trips = (ev.PaidWager("trips", "lose", Decimal(-5)) if outcome == "lose" else
                 ev.PaidWager("trips", "win", Decimal(5) * pays[outcome].numerator, line=outcome))
        base = tuple(ev.PaidWager(w, "lose", Decimal(-5)) for w in ("ante", "blind", "play"))
        row(rid, ev.Settled(meters={}, nets={"1": trips.net - 15},
                            order=(ev.PaymentStep(1, "UTH ch.11 §H", True, (*base, trips)),)))
        row(rid, ev.RoundClosed())
    return out


def _fair(n: int, seed: int) -> list[str]:
    c = hold._side_counts()[f"{UTH}/trips/A"]
    keys = [line.key for line in PAYTABLES[(UTH, "trips", "A")].lines]
    return random.Random(seed).choices([*keys, "lose"], weights=[*c["counts"], c["losing"]], k=n)


def test_hold_is_within_its_band_for_a_fair_run_and_outside_for_a_run_that_always_wins():
    r = report(_rows(_fair(200, 3)), UTH)
    rows = {row["wager"]: row for row in r["hold"]["table"]}
    trips = rows["trips"]
    assert trips["rounds"] == 200 and trips["wagered"] == "1000" and trips["state"] == "within", trips
    low, high = (Decimal(x) for x in trips["band"])
    assert low < Decimal(trips["expected"]) < high and Decimal(trips["expected"]) == Decimal("9.02")
    # the base game against its exact par sheet (games/par, posted strategy): shown, never a finding (P112)
    assert rows["base"]["actual"] == "3000" and rows["base"]["state"] in ("within", "outside")
    assert Decimal(rows["base"]["expected"]) > 0  # the house's expected result on 200 Antes lost
    assert list(r["hold"]["days"]) and list(r["hold"]["shifts"])  # the same rounds per gaming day and shift
    assert r["alarms"] == [] and any("trips" in line for line in lines(r))
    rigged = {row["wager"]: row for row in report(_rows(["three_of_a_kind"] * 40), UTH)["hold"]["table"]}["trips"]
    assert rigged["state"] == "outside" and Decimal(rigged["actual"]) == -600


def test_gaming_days_and_shifts_begin_at_their_hours():
    assert hold.periods("2026-11-27T05:59:59+00:00") == ("2026-11-26", "2026-11-26/3")
    assert hold.periods("2026-11-27T06:00:00+00:00") == ("2026-11-27", "2026-11-27/1")
    assert hold.periods("2026-11-27T22:30:00Z") == ("2026-11-27", "2026-11-27/3")


def test_the_gaming_day_and_shifts_come_from_the_configuration(tmp_path, monkeypatch, no_table_env):
    from controller.config.table import ConfigError, load_config
    from daemon_harness import ROOT

    cal = hold.Calendar.of(ProtectionConfig(gaming_day_starts="04:30", shift_hours=12))
    assert hold.periods("2026-11-27T04:29:59Z", cal) == ("2026-11-26", "2026-11-26/2")
    assert hold.periods("2026-11-27T04:30:00Z", cal) == ("2026-11-27", "2026-11-27/1")
    assert hold.periods("2026-11-27T16:30:00Z", cal) == ("2026-11-27", "2026-11-27/2")
    r = report(_rows(_fair(10, 1)), UTH, calendar=cal)["hold"]
    assert (r["gaming_day_starts"], r["shift_hours"]) == ("04:30", 12) and list(r["shifts"]) == ["2026-11-27/1"]
    base = (ROOT / "config" / "high_card_flush.toml").read_text()
    path = tmp_path / "t.toml"
    path.write_text(base + '\n[protection]\ngaming_day_starts = "05:15"\nshift_hours = 6\n')
    assert load_config(path).protection == ProtectionConfig(gaming_day_starts="05:15", shift_hours=6)
    path.write_text(base)
    assert hold.Calendar.of(load_config(path).protection) == hold.DEFAULT_CALENDAR  # absent: 06:00, 8 hours
    for section, key in (('gaming_day_starts = "24:00"', "protection.gaming_day_starts"),
                         ("shift_hours = 7", "protection.shift_hours"), ("shift_hours = 0", "protection.shift_hours"),
                         ("shifts = 3", "protection.shifts")):
        path.write_text(base + f"\n[protection]\n{section}\n")
        with pytest.raises(ConfigError) as e:
            load_config(path)
        assert any(p.startswith(key) for p in e.value.problems), e.value.problems


def test_the_band_is_computed_in_decimal_money():
    f = hold.Figures(Fraction(-1, 3), 2.5, 0.5, "test")
    tally = hold.Tally()
    for n in range(3):
        tally.add(hold.Result(f"r{n}", "2026-11-27T12:00:00Z", 1, "trips", "A", Decimal("5.00"), Decimal(0), False))
    row = tally.row(UTH, "trips", lambda game, wager, letter: f)
    # expected 15/3 = 5.00 exactly; half-width 3 x 2.5 x sqrt(75) = 64.951905283832898...
    assert row["expected"] == "5.00" and row["band"] == ["-59.95", "69.95"] and row["state"] == "within"
    tally.add(hold.Result("r3", "2026-11-27T12:00:00Z", 1, "trips", "A", Decimal("0.10"), Decimal(0), False))
    row = tally.row(UTH, "trips", lambda game, wager, letter: hold.Figures(Fraction(-1, 30), 0.0, 0.5, "test"))
    # 15.10 / 30 = 0.50333...: rounded to the cent, and a house result of 0 is outside a band of width 0
    assert row["expected"] == "0.50" and row["band"] == ["0.50", "0.50"] and row["state"] == "outside"


def test_the_binomial_tail_is_exact():
    p = 0.15
    for k in (0, 1, 7, 40):
        want = sum(comb(40, i) * p ** i * (1 - p) ** (40 - i) for i in range(k, 41))
        assert hold.binomial_tail(k, 40, p) == pytest.approx(want, rel=1e-12)


def _trips_hands(won: list[bool]) -> list[hold.Result]:
    return [hold.Result(f"r{n}", "2026-11-27T12:00:00+00:00", 4, "trips", "A", Decimal(5), Decimal(15 if w else -5), w)
            for n, w in enumerate(won)]


def test_a_streak_is_found_with_its_probability_in_words_and_fair_hands_raise_none():
    streaks = hold.Streaks(UTH)
    won = [n % 3 != 2 for n in range(40)]  # two wins in three hands at about 15%: found, then found again
    found = streaks.add(_trips_hands(won))
    assert len(found) == 2 and all(f.p_value < hold.STREAK_ALPHA for f in found), found
    s = found[0]
    assert s.seat == 4 and s.wager == "trips" and s.p_value < hold.STREAK_ALPHA
    assert s.evidence()["once_in"] == round(1 / s.p_value) and s.evidence()["hands"] == s.hands
    assert s.words().startswith(f"seat 4 won Trips {s.wins} times in {s.hands} hands; a fair game does that about")
    # a replay of the same hands (the daemon restarted) finds the same streaks at the same hands
    assert hold.Streaks(UTH).add(_trips_hands(won)) == found
    # 20,000 fair hands: at most STREAK_ALPHA a hand, so none expected (0.02 on average)
    assert TRIPS is not None and TRIPS.p_win is not None
    rng = random.Random(5)
    assert hold.Streaks(UTH).add(_trips_hands([rng.random() < TRIPS.p_win for _ in range(20_000)])) == []


def test_the_daemon_part_journals_a_streak_latches_its_alarm_and_rebuilds_from_the_journal(tmp_path):
    """controller/service/protection.py over a real journal: each settlement to the streaks; a streak journaled as a
    finding with its p-value and words and latched as ``protection:<seq>``; a restart replays the settlements (the
    windows restart where they did) and raises nothing again."""
    from controller.service.protection import Protection

    path = tmp_path / "t.journal"
    won = [n % 3 != 2 for n in range(24)]
    outcomes = ["three_of_a_kind" if w else "lose" for w in won]

    def part(j: Journal) -> tuple[Protection, Settling, Alarms]:
        s = SimpleNamespace(journal=j, game=SimpleNamespace(name=UTH), log=structlog.get_logger("test"),
                            life=SimpleNamespace(last_shuffled="A"), cfg=SimpleNamespace(automated_shuffler=True),
                            base_cfg=SimpleNamespace(protection=ProtectionConfig()))
        settling, alarms = Settling(), Alarms()
        return Protection(s, settling, alarms, None), settling, alarms  # type: ignore[arg-type]

    with Journal(path) as j:
        protection, settling, alarms = part(j)
        rows = _rows(outcomes)
        for n in range(len(outcomes)):
            rid = f"r{n}"
            j.record_many([e.typed for e in rows if e.round_id == rid], rid)
            settling.settled(rid)
        findings = [e for e in j.events_of(ev.ProtectionFinding.kind)]
        assert [e.data["finding"] for e in findings] == [hold.STREAK] * len(findings) and findings
        first = findings[0].data
        assert first["seat"] == 1 and first["wager"] == "trips" and Decimal(first["p_value"]) < Decimal("1e-6")
        assert first["evidence"]["words"].startswith("seat 1 won Trips")
        assert set(alarms.latched) == {f"protection:{e.seq}" for e in findings}
        assert {c.kind for c in alarms.latched.values()} == {"protection_streak"}
        # a restart: the same windows rebuilt from the journal; the next fair hand raises nothing
        again, settling, alarms = part(j)
        assert again.streaks.hands == protection.streaks.hands
        j.record_many([e.typed for e in _rows(["lose"]) if e.round_id == "r0"], "r99")
        settling.settled("r99")
        assert alarms.latched == {}


def test_the_daemon_part_finds_a_hold_outside_its_band_once_a_gaming_day(tmp_path):
    from controller.service.protection import Protection

    with Journal(tmp_path / "t.journal") as j:
        s = SimpleNamespace(journal=j, game=SimpleNamespace(name=UTH), log=structlog.get_logger("test"),
                            life=SimpleNamespace(last_shuffled=None), cfg=SimpleNamespace(automated_shuffler=False),
                            base_cfg=SimpleNamespace(protection=ProtectionConfig()))
        settling, alarms = Settling(), Alarms()
        Protection(s, settling, alarms, None)  # type: ignore[arg-type]
        rows = _rows(["three_of_a_kind"] * (hold.MIN_ROUNDS + 5))
        for n in range(hold.MIN_ROUNDS + 5):
            j.record_many([e.typed for e in rows if e.round_id == f"r{n}"], f"r{n}")
            settling.settled(f"r{n}")
        held = [e.data for e in j.events_of(ev.ProtectionFinding.kind) if e.data["finding"] == hold.HOLD]
    assert len(held) == 1 and held[0]["wager"] == "trips" and held[0]["round"] == f"r{hold.MIN_ROUNDS - 1}"
    assert held[0]["evidence"]["state"] == "outside" and Decimal(held[0]["p_value"]) < Decimal("0.001")
    assert "protection_hold" in {c.kind for c in alarms.latched.values()}



def test_two_royal_flushes_put_a_fair_day_outside_its_band_but_are_no_finding(tmp_path):
    """The pays are heavy-tailed: two royals in 30 hands at Trips are outside the normal band, but two wins in 30
    hands are nothing a fair game does not do (P112: the count of wins decides)."""
    from controller.service.protection import Protection

    outcomes = ["royal_flush", "royal_flush"] + ["lose"] * (hold.MIN_ROUNDS - 2)
    assert {r["wager"]: r for r in report(_rows(outcomes), UTH)["hold"]["table"]}["trips"]["state"] == "outside"
    with Journal(tmp_path / "t.journal") as j:
        s = SimpleNamespace(journal=j, game=SimpleNamespace(name=UTH), log=structlog.get_logger("test"),
                            life=SimpleNamespace(last_shuffled=None), cfg=SimpleNamespace(automated_shuffler=False),
                            base_cfg=SimpleNamespace(protection=ProtectionConfig()))
        settling, alarms = Settling(), Alarms()
        Protection(s, settling, alarms, None)  # type: ignore[arg-type]
        rows = _rows(outcomes)
        for n in range(len(outcomes)):
            j.record_many([e.typed for e in rows if e.round_id == f"r{n}"], f"r{n}")
            settling.settled(f"r{n}")
        assert j.events_of(ev.ProtectionFinding.kind) == [] and alarms.latched == {}


def test_the_report_names_who_acknowledged_each_findings_alarm_whichever_part_raised_it():
    """The witnesses', hold's and streaks' alarms are keyed ``protection:<seq>``, the shuffle watch's
    ``<alarm>:<round>:<finding>``: the report joins both to their finding."""
    rows: list[Event] = []

    def row(e: ev.JournalEvent, who: str | None = None) -> None:
        rows.append(Event(len(rows) + 1, "2026-11-27T12:00:00+00:00", None, e.kind, who, e.to_data()))

    row(ev.ProtectionFinding(finding="card_switched", round="r1", evidence={}))
    row(ev.ProtectionFinding(finding="position_bias", round="r2", evidence={"chi_square": 1}, p_value=Decimal("1e-9")))
    at = Decimal("1795745160.2")
    row(ev.AlarmAcknowledged(id="protection:1@1795745153.048", alarm="protection_card_switched", priority="high",
                             by="supervisor 1", at=at))
    row(ev.AlarmAcknowledged(id="protection_shuffle:r2:position_bias@1795745153.1", alarm="protection_shuffle",
                             priority="high", by="supervisor 2", at=at))
    found = report(rows, UTH)["alarms"]
    assert [(a["kind"], a["round_id"], a["acknowledged_by"], a["p_value"]) for a in found] == [
        ("card_switched", "r1", "supervisor 1", None), ("position_bias", "r2", "supervisor 2", 1e-9)]

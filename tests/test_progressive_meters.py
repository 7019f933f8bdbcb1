"""The progressive's parameters and meters as regulators name them (P114, docs/progressive-meters.md).

N.J.A.C. 13:69E-1.39A (parameters: base, reset, rate, limit, hidden rate, unreasonable contribution; meters:
in, current, hits, wins, overflow, reserve), NY 9 NYCRR 5320.8(b) (the same, and the last 25 hits), N.J.A.C.
13:69D-1.52(e)4 (no award rarer than one in 100 million).  The configuration's checks, the split of a
contribution (meter, reserve, overflow) and its taking back (R7a), the journal's state across a checkpoint,
then one round through the daemon: a royal flush on a meter at its limit, the reserve funding the reset,
everything in the journal, the report and the floor's page; and an unreasonable contribution refused.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal as D
from pathlib import Path

import pytest

from controller import events as ev
from controller.config.progressive import LONGEST_ODDS, odds_problem, rarest_award
from controller.config.table import ConfigError, load_config
from controller.journal.state import JournalState
from controller.journal.store import Journal
from controller.progressive import hits as prog
from controller.table import Meters
from daemon_harness import phase, table_in_process
from games.paytable import FixedPerUnit, Line
from games.registry import GAMES
from test_progressive_system import bets, order, start, tablectl_out

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "config" / "ultimate_texas_holdem.toml").read_text()
NJ_PARAMS = "N.J.A.C. 13:69E-1.39A"
NY_METERS = "NY 9 NYCRR 5320.8(b)"
ODDS = "N.J.A.C. 13:69D-1.52"


pytestmark = pytest.mark.usefixtures("no_table_env")


def uth(tmp_path: Path, major: str = "", minor: str = "", top: str = "") -> Path:
    """The UTH example with lines added to the major and the minor meter (``top``: after [progressive])."""
    text = EXAMPLE.replace('[progressive.meters.major]', f'[progressive.meters.major]\n{major}')
    text = text.replace('[progressive.meters.minor]', f'[progressive.meters.minor]\n{minor}')
    text = text.replace('[progressive]\n', f'[progressive]\n{top}\n')
    path = tmp_path / "uth.toml"
    path.write_text(text)
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value.problems


# -- the configuration -----------------------------------------------------------------------------


@pytest.mark.requirement(NJ_PARAMS)
def test_the_parameters_load_and_are_checked(tmp_path: Path) -> None:
    cfg = load_config(uth(tmp_path, 'hidden_rate = 0.01\nlimit = "20000.00"', 'unreasonable = "5.00"'))
    major, minor = cfg.progressive.meters["major"], cfg.progressive.meters["minor"]
    assert (major.hidden_rate, major.limit, major.unreasonable) == (D("0.01"), D("20000.00"), None)
    assert (minor.hidden_rate, minor.limit, minor.unreasonable) == (D(0), None, D("5.00"))
    found = problems(uth(tmp_path, 'hidden_rate = 0.05\nlimit = "9999.99"', 'unreasonable = "0"'))
    assert any(p.startswith("progressive.meters.major.hidden_rate:") for p in found), found
    assert any(p.startswith("progressive.meters.major.limit:") for p in found), found
    assert any(p.startswith("progressive.meters.minor.unreasonable:") for p in found), found
    # a linked table: the link holds them (P120), checked alike
    cfg = load_config(uth(tmp_path, 'hidden_rate = 0.01\nlimit = "20000.00"',
                          top='link = "postgresql://h/db"\nlink_id = "bank"'))
    assert (cfg.progressive.meters["major"].hidden_rate, cfg.progressive.meters["major"].limit) == (
        D("0.01"), D("20000.00"))


@pytest.mark.requirement(ODDS)
def test_an_award_rarer_than_one_in_100_million_is_refused() -> None:
    lines = [Line("top", FixedPerUnit(D(1000)), "test"), Line("next", FixedPerUnit(D(10)), "test")]
    assert odds_problem(lines, LONGEST_ODDS, [1, 50]) is None  # exactly one in 100 million: allowed
    refused = odds_problem(lines, LONGEST_ODDS + 1, [1, 50])
    assert refused is not None and refused.startswith("top ") and "13:69D-1.52" in refused
    assert odds_problem(lines, 10, [1, 0]) is not None  # never won: refused too
    for game in GAMES.values():  # every Progressive paytable the rules give is within the odds
        for letter in game.letters("progressive"):
            assert rarest_award(game.name, letter) is None, (game.name, letter)


# -- a contribution as it goes ---------------------------------------------------------------------


@pytest.mark.requirement(NJ_PARAMS)
def test_a_contribution_goes_to_the_meter_the_reserve_and_beyond_the_limit_the_overflow(tmp_path: Path) -> None:
    cfg = load_config(uth(tmp_path, 'hidden_rate = 0.01\nlimit = "10000.05"', 'limit = "600.00"'))
    with Journal(tmp_path / "j.sqlite") as j:
        meters = Meters(cfg, j)  # the initial amounts journaled: major 10000.00, minor 500.00
        split = meters.split(3)  # 3 x $1: major 0.12 (0.03 hidden), minor 0.03
        assert split.meters == {"major": D("0.05"), "minor": D("0.03")}
        assert split.reserve == {"major": D("0.03"), "minor": D("0.00")}
        assert split.overflow == {"major": D("0.04"), "minor": D("0.00")}
        assert split.total("major") == D("0.12")  # the whole rate of progression, nothing lost
        j.record(split.event(), "r1")
        assert meters.values() == {"major": D("10000.05"), "minor": D("500.03")}
        assert meters.accounts() == {"reserve": {"major": D("0.03")}, "overflow": {"major": D("0.04")}}
        # one wager returned (R7a): its hidden share from the reserve, the rest from the overflow first
        back = meters.take_back(j.events("r1"), 1)
        assert (back.meters["major"], back.reserve["major"], back.overflow["major"]) == (D(0), D("-0.01"), D("-0.03"))
        j.record(back.event(), "r1")
        # the other two (the round voided): the overflow has 0.01 left of this round, the meter gives the rest
        back = meters.take_back(j.events("r1"), 2)
        assert (back.meters["major"], back.reserve["major"], back.overflow["major"]) == (
            D("-0.05"), D("-0.02"), D("-0.01"))
        j.record(back.event(), "r1")
        assert meters.values()["major"] == D("10000.00")
        assert meters.accounts() == {"reserve": {"major": D(0)}, "overflow": {"major": D(0)}}


def test_without_the_new_parameters_a_contribution_is_journaled_as_before(tmp_path: Path) -> None:
    cfg = load_config(uth(tmp_path))
    with Journal(tmp_path / "j.sqlite") as j:
        meters = Meters(cfg, j)
        split = meters.split(2)
        assert split.meters == meters.contributions(2)
        assert split.event().to_data() == ev.MeterAdd(meters=meters.contributions(2)).to_data()  # no new keys


def test_reserve_and_overflow_survive_a_checkpoint() -> None:
    st = JournalState()
    st.apply(1, None, ev.MeterSet.kind, {"meters": {"major": "10000.00"}})
    st.apply(2, "r1", ev.MeterAdd.kind, {"meters": {"major": "0.02"}, "reserve": {"major": "0.01"},
                                          "overflow": {"major": "0.01"}})
    cp = st.checkpoint("rounds", {})
    again = JournalState()
    again.apply(3, None, ev.Checkpoint.kind, cp.to_data())
    assert (again.meters, again.reserve, again.overflow) == (
        {"major": D("10000.02")}, {"major": D("0.01")}, {"major": D("0.01")})
    again.apply(4, "r2", ev.MeterPaid.kind, {"meter": "major", "paid": "10000.02", "after": "1000.00",
                                             "reserve": "0.00"})
    assert again.reserve == {"major": D("0.00")}
    old = JournalState()  # a journal of before P114: no reserve, no overflow
    old.apply(1, None, ev.Checkpoint.kind, {k: v for k, v in cp.to_data().items() if k not in ("reserve", "overflow")})
    assert old.reserve == {} and old.overflow == {}


# -- through the daemon ------------------------------------------------------------------------------


@pytest.mark.requirement(NJ_PARAMS)
@pytest.mark.requirement(NY_METERS)
@pytest.mark.requirement("58 Pa. Code 605a.7")
def test_a_hit_at_the_limit_the_six_meters_in_the_journal_the_report_and_the_floor(tmp_path, monkeypatch):
    from web.floor import regulated_meters

    config = uth(tmp_path, 'hidden_rate = 0.01\nlimit = "10000.02"')
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch, config=config) as t:
        s = start(t, order(["Ts", "Js", "Qs", "7d", "2d"], ["As", "Ks"]))
        round_id = s["round"]["round_id"]
        bets(t, {1: 10}, [1])
        t.press("no_more_bets")
        s = t.press("confirm")
        s = t.press("bet_4x")
        assert phase(s) == "settled", s
        assert s["validation"][0]["amount"] == "10000.02"  # the meter at its limit: 0.03 on it, 0.01 beyond
        s = t.dealer.with_key(s, "confirm")
        assert D(s["meters"]["major"]) == D("1000.00")
        with Journal(t.journal_path) as j:
            added = [e.data for e in j.events(round_id) if e.kind == "meter_add"]
            assert added == [{"meters": {"major": "0.02", "minor": "0.01"}, "reserve": {"major": "0.01"},
                              "overflow": {"major": "0.01"}}]
            paid = [e.data for e in j.events(round_id) if e.kind == "meter_paid"]
            # the reset floor kept 1000.00 on the meter: the reserve (0.01) funded what it could
            assert [(p["paid"], p["after"], p["reserve"]) for p in paid] == [("10000.02", "1000.00", "0.00")]
        rep = json.loads(tablectl_out("progressive", "report", "--config", str(config), "--json"))
        major = rep["meters"]["major"]
        assert {k: major[k] for k in ("in", "current", "hits", "wins", "overflow", "reserve")} == {
            "in": "0.04", "current": "1000.00", "hits": 1, "wins": "10000.02", "overflow": "0.01", "reserve": "0.00"}
        assert major["parameters"] == {"base": "10000.00", "reset": "1000.00", "rate": "0.04", "hidden_rate": "0.01",
                                       "limit": "10000.02", "unreasonable": None}
        assert [(h["amount"], h["table"], h["meter"]) for h in rep["last_hits"]] == [
            ("10000.02", t.cfg.id, "major")]
        text = tablectl_out("progressive", "report", "--config", str(config))
        assert re.search(r"^major\s+0\.04\s+1000\.00\s+1\s+10000\.02\s+0\.01\s+0\.00$", text, re.M), text
        with Journal(t.journal_path) as j:
            page = regulated_meters(prog.report(j, t.cfg.progressive.meters), t.cfg.progressive)
        row = re.search(r'<tr data-meter="major">(.*?)</tr>', page)
        assert row is not None
        values = dict(re.findall(r'data-field="(\w+)" data-value="([^"]*)"', row.group(1)))
        assert values == {"in": "0.04", "current": "1000.00", "hits": "1", "wins": "10000.02", "overflow": "0.01",
                          "reserve": "0.00", "initial": "10000.00", "reset": "1000.00", "rate": "0.04",
                          "hidden_rate": "0.01", "limit": "10000.02", "unreasonable": ""}


@pytest.mark.requirement(NJ_PARAMS)
def test_an_unreasonable_contribution_is_refused_and_journaled(tmp_path, monkeypatch):
    config = uth(tmp_path, minor='unreasonable = "0.01"')  # one wager gives the minor 0.01: two are too many
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch, config=config) as t:
        s = start(t)
        bets(t, {1: 10, 2: 10}, [1, 2])
        s = t.press_refused("no_more_bets")
        assert phase(s) == "wagers"
        with Journal(t.journal_path) as j:
            refused = [e.data for e in j.events_of(ev.ContributionRefused.kind)]
            assert refused == [{"round": s["round"]["round_id"], "meter": "minor", "amount": "0.02",
                                "unreasonable": "0.01"}]
            assert not [e for e in j.events(s["round"]["round_id"]) if e.kind in ("meter_add", "no_more_bets")]
        # the floor's alarm, high, until a named supervisor acknowledges it (P120); refused again: the same one
        [alarm] = [a for a in s["alarms"] if a["kind"] == "contribution_unreasonable"]
        assert alarm["priority"] == "high" and alarm["acknowledged"] is None, s["alarms"]
        s = t.press_refused("no_more_bets")
        assert [a["id"] for a in s["alarms"] if a["kind"] == "contribution_unreasonable"] == [alarm["id"]]
        t.controls["panel"]("key", on=True, supervisor=4711)
        s = t.until(lambda s: not [a for a in s["alarms"] if a["kind"] == "contribution_unreasonable"],
                    "the alarm acknowledged and cleared")
        t.controls["panel"]("key", on=False)
        with Journal(t.journal_path) as j:
            [acked] = [e.data for e in j.events_of(ev.AlarmAcknowledged.kind)
                       if e.data["alarm"] == "contribution_unreasonable"]
            assert acked["by"] == "supervisor 4711" and acked["priority"] == "high"


@pytest.mark.requirement(NJ_PARAMS)
def test_the_par_sheet_counts_the_rate_less_the_hidden_rate() -> None:
    from games.analysis import AnalysisError, analyze

    rates = ["major=0.04", "minor=0.01"]
    plain = analyze("ultimate_texas_holdem", "progressive", "B", (), rate_args=rates)
    held = analyze("ultimate_texas_holdem", "progressive", "B", (), rate_args=rates, hidden_rate_args=["major=0.01"])
    assert "hidden_rates" not in plain  # as before without a hidden rate
    assert held["return"] == plain["return"]  # the return at the reset amounts: the reserve funds those
    assert D(plain["return_with_contributions"]) - D(held["return_with_contributions"]) == D("0.01")
    assert held["meter_rate"] == D("0.04") and held["hidden_rates"]["major"] == D("0.01")
    with pytest.raises(AnalysisError):
        analyze("ultimate_texas_holdem", "progressive", "B", (), rate_args=rates, hidden_rate_args=["minor=0.02"])


# -- changes under control, dual control -------------------------------------------------------------------

CHANGES = "COMAR 36.05.03.24"
NO_CHANGE_ON_LINK = "NY 9 NYCRR 5321.18(b)(4)"


def table_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, major: str = "", supervisors: str = "") -> Path:
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "table.journal"))
    path = uth(tmp_path, major)
    if supervisors:
        path.write_text(path.read_text().replace("ids = [\n", f"ids = [\n    {supervisors},\n"))
    return path


def run_cli(*argv: str) -> tuple[int, str, str]:
    import io

    from controller.cli.main import main as tablectl

    out, err = io.StringIO(), io.StringIO()
    code = tablectl(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def kinds(path: Path, *wanted: str) -> list[dict]:
    with Journal(path) as j:
        return [{"kind": e.kind, "who": e.who, **e.data} for e in j.iter_events() if e.kind in wanted]


@pytest.mark.requirement(CHANGES)
def test_parameters_change_only_recorded_with_approval_on_a_closed_table(tmp_path, monkeypatch):
    from controller.progressive import control
    from controller.service.session import Session
    from controller.table import TableState

    journal = tmp_path / "table.journal"
    Session(load_config(table_at(tmp_path, monkeypatch))).journal.close()  # first start: recorded as installed
    Session(load_config(table_at(tmp_path, monkeypatch))).journal.close()  # the same: nothing more
    [installed] = kinds(journal, "parameters_changed")
    assert installed["by"] == "installed" and installed["new"]["progressive"]["meters"]["major"]["rate"] == "0.04"

    changed = table_at(tmp_path, monkeypatch, "hidden_rate = 0.01")
    with pytest.raises(control.ParametersRefused):  # the daemon does not start on unapproved parameters
        Session(load_config(changed))
    [refused] = kinds(journal, "parameters_change_refused")
    assert refused["old"] == installed["new"] and refused["new"]["progressive"]["meters"]["major"]["hidden_rate"] == \
        "0.01"

    cfg = load_config(changed)
    with Journal(journal) as j:  # an open table: refused, journaled with who and the approval
        with pytest.raises(control.ParametersRefused):
            control.change(j, cfg, TableState.OPEN, "tech 12", "MLGCA-2026-041")
    last = kinds(journal, "parameters_change_refused")[-1]
    assert (last["by"], last["approval"], last["who"]) == ("tech 12", "MLGCA-2026-041", "tech 12")
    assert "open" in last["reason"]
    s = Session(load_config(table_at(tmp_path, monkeypatch)))  # the table opened (its journal says so) ...
    s.life.record(ev.TableOpened())
    s.journal.close()
    code, _, err = run_cli("parameters", "change", "--config", str(changed), "--by", "tech 12", "--approval",
                           "MLGCA-2026-041")  # ... the command refuses too, and journals it
    assert code == 2 and "open" in err
    assert len(kinds(journal, "parameters_change_refused")) == 3
    s = Session(load_config(table_at(tmp_path, monkeypatch)))
    s.life.record(ev.TableClosed())
    s.journal.close()
    changed = table_at(tmp_path, monkeypatch, "hidden_rate = 0.01")  # (the same file, written again)

    code, out, err = run_cli("parameters", "change", "--config", str(changed), "--by", "tech 12", "--approval",
                             "MLGCA-2026-041")
    assert code == 0, err
    last = kinds(journal, "parameters_changed")[-1]
    assert (last["by"], last["approval"]) == ("tech 12", "MLGCA-2026-041")
    assert last["old"]["progressive"]["meters"]["major"]["hidden_rate"] == "0"
    assert last["new"]["progressive"]["meters"]["major"]["hidden_rate"] == "0.01"
    Session(cfg).journal.close()  # approved: the daemon starts on them


@pytest.mark.requirement(CHANGES)
def test_a_limit_only_above_the_meter_now(tmp_path, monkeypatch):
    from controller.progressive import control
    from controller.service.session import Session
    from controller.table import TableState

    Session(load_config(table_at(tmp_path, monkeypatch))).journal.close()  # major at 10000.00
    with Journal(tmp_path / "table.journal") as j:
        for limit, ok in (("10000.00", False), ("10000.01", True)):
            cfg = load_config(table_at(tmp_path, monkeypatch, f'limit = "{limit}"'))
            if ok:
                control.change(j, cfg, TableState.CLOSED, "tech 12", "MLGCA-2026-042")
            else:
                with pytest.raises(control.ParametersRefused, match="above the meter"):
                    control.change(j, cfg, TableState.CLOSED, "tech 12", "MLGCA-2026-042")


@pytest.mark.requirement(NO_CHANGE_ON_LINK)
@pytest.mark.requirement("N.J.A.C. 13:69E-1.39C(b)(6), (c)")
def test_a_linked_tables_parameters_change_only_through_its_link(tmp_path, monkeypatch):
    from controller.progressive import control
    from controller.table import TableState

    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "table.journal"))
    cfg = load_config(uth(tmp_path, top='link = "postgresql://h/db"\nlink_id = "bank"'))
    with Journal(tmp_path / "table.journal") as j:
        with pytest.raises(control.ParametersRefused, match="link"):
            control.change(j, cfg, TableState.CLOSED, "tech 12", "NYSGC-7")
    assert kinds(tmp_path / "table.journal", "parameters_change_refused")


@pytest.mark.requirement(CHANGES)
@pytest.mark.requirement("N.J.A.C. 13:69E-1.39C(d)")
def test_a_meter_correction_needs_two_different_supervisors(tmp_path, monkeypatch):
    from controller.service.session import Session
    from controller.supervisors import hash_id

    config = str(table_at(tmp_path, monkeypatch, supervisors=f'"{hash_id(4712)}"'))
    journal = tmp_path / "table.journal"
    Session(load_config(config)).journal.close()
    code, out, err = run_cli("meters", "propose", "--config", config, "--supervisor", "4711", "--meter",
                             "major=12000.00", "--reason", "sign fault: meter read from the controller's log")
    assert code == 0, err
    [proposed] = kinds(journal, "meter_correction_proposed")
    seq = re.search(r"at seq (\d+)", out)
    assert seq is not None
    # the proposer again: refused, journaled, the meter unchanged
    code, out, err = run_cli("meters", "approve", "--config", config, "--proposal", seq.group(1), "--supervisor",
                             "4711")
    assert code == 2 and "different" in err
    assert [r["supervisor"] for r in kinds(journal, "meter_correction_refused")] == [4711]
    code, _, err = run_cli("meters", "approve", "--config", config, "--proposal", seq.group(1), "--supervisor", "999")
    assert code == 2 and "allow-list" in err
    with Journal(journal) as j:
        assert j.meter_values()["major"] == D("10000.00")
    code, out, err = run_cli("meters", "approve", "--config", config, "--proposal", seq.group(1), "--supervisor",
                             "4712")
    assert code == 0, err
    [approved] = kinds(journal, "meter_correction_approved")
    assert (approved["proposed_by"], approved["supervisor"], approved["who"]) == (
        4711, 4712, "supervisor 4711 and supervisor 4712")
    with Journal(journal) as j:
        assert j.meter_values()["major"] == D("12000.00")
    assert proposed["old"] == {"major": "10000.00"}
    code, _, err = run_cli("meters", "approve", "--config", config, "--proposal", seq.group(1), "--supervisor", "4712")
    assert code == 2 and "already" in err  # once


# -- on a link: the link's one row per meter is every table's meters -------------------------------------


@pytest.mark.requirement(NJ_PARAMS)
@pytest.mark.requirement(NY_METERS)
@pytest.mark.requirement("N.J.A.C. 13:69E-1.39C(b)")
def test_a_linked_hit_keeps_the_meters_the_same_at_every_table():
    import asyncio

    import pg
    from controller.progressive.link.migrate import migrate
    from controller.progressive.link.report import link_report
    from controller.progressive.link.store import Contribution, LinkStore

    url = pg.cluster().new_database()
    migrate(url)

    async def play() -> tuple[dict, dict]:
        stores = {t: LinkStore(url, "bank", pool_size=1) for t in ("t1", "t2")}
        for s in stores.values():
            await s.open()
        try:
            await stores["t1"].install({"major": (D("10000.00"), D("1000.00"))})
            await stores["t1"].contribute("t1", "r1", [Contribution(1, "major", D("0.20"), D(5))])
            await stores["t2"].contribute("t2", "r9", [Contribution(2, "major", D("0.20"), D(5)),
                                                      Contribution(3, "major", D("0.20"), D(5))])
            hit = await stores["t2"].hit("t2", "asset-2", "r9", 0, 2, "royal_flush", "major", D(100))
            await stores["t2"].validate("t2", "r9", 0, "supervisor 4711")
            assert hit.paid == D("10000.60")
        finally:
            for s in stores.values():
                await s.close()
        return await link_report(url, "bank", {}), await link_report(url, "bank", {})

    seen_by_t1, seen_by_t2 = asyncio.run(play())
    assert seen_by_t1["meters"]["major"]["regulated"] == seen_by_t2["meters"]["major"]["regulated"] == {
        "in": D("0.60"), "current": D("1000.00"), "hits": 1, "wins": D("10000.60"), "overflow": D(0),
        "reserve": D(0)}
    [last] = seen_by_t1["last_hits"]
    assert (last["table"], last["asset"], last["amount"], last["meter"]) == ("t2", "asset-2", D("10000.60"), "major")


@pytest.mark.requirement(CHANGES)
def test_the_approved_parameters_survive_a_roll_over(tmp_path, monkeypatch):
    from controller.journal import segments
    from controller.progressive import control
    from controller.service.session import Session

    s = Session(load_config(table_at(tmp_path, monkeypatch)))  # installed
    segments.roll_over(s.journal)  # the record sealed away: the new segment's checkpoint carries it
    assert not s.journal.events_of(ev.ParametersChanged.kind)
    assert control.last_parameters(s.journal) == control.parameters(s.cfg)
    s.journal.close()
    Session(load_config(table_at(tmp_path, monkeypatch))).journal.close()  # the same: starts, nothing recorded
    with pytest.raises(control.ParametersRefused):  # a change is still refused after it
        Session(load_config(table_at(tmp_path, monkeypatch, 'limit = "20000.00"')))

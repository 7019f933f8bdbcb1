"""``LinkedMeters`` against a real PostgreSQL (tests/pg.py): each table's journal stays the record; the
link gets every journaled contribution exactly once, whatever failed in between; every table hears of a
change within a second.

The invariant after each case, per meter, to the cent: meter = initial + contributions - taken by hits,
with the contributions summed from the database and, separately, from the tables' journals."""

from __future__ import annotations

import asyncio
import io
import json
from collections import defaultdict
from decimal import Decimal as D
from pathlib import Path

import pytest

import pg
from controller import events as ev
from controller.cli.main import main as tablectl
from controller.config.table import ConfigError, TableConfig, load_config
from controller.journal.store import Journal
from controller.progressive.link import table_meters
from controller.progressive.link.meters import LinkedMeters, round_rows
from controller.progressive.link.migrate import migrate
from controller.progressive.link.store import invariant
from controller.table import Meters

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def link_url() -> str:
    url = pg.cluster().new_database()
    migrate(url)
    return url


def linked_cfg(tmp_path: Path, monkeypatch, table: str, url: str | None) -> TableConfig:
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / f"{table}.journal"))
    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    p = cfg.progressive.model_copy(update={"link": url, "link_id": "floor" if url else None, "asset": f"A-{table}"})
    return cfg.model_copy(update={"id": table, "progressive": p, "journal": tmp_path / f"{table}.journal"})


def no_more_bets(meters: LinkedMeters, journal: Journal, round_id: str, seats: list[int]) -> None:
    """What the table journals at no more bets: one fact, the contributions with it (round.close_wagers)."""
    contributions = meters.contributions(len(seats))
    journal.append_many([
        (round_id, "no_more_bets", ev.NoMoreBets(progressive_seats=tuple(seats), meters=None).to_data(), None),
        (round_id, "meter_add", {"meters": contributions}, None)])


def journal_contributions(journals: list[Journal]) -> dict[str, D]:
    total: dict[str, D] = defaultdict(D)
    for j in journals:
        for e in j.iter_events():
            if e.kind == "meter_add" and e.round_id is not None:
                for m, v in e.data["meters"].items():
                    total[m] += D(str(v))
    return dict(total)


async def died_after_journaling(cfg: TableConfig, j: Journal) -> None:
    """A table confirms round r1 (seats 1, 2), journals round r2 (seat 3) and dies before its link write."""
    m = LinkedMeters(cfg, j)
    assert await m.connect() is None
    no_more_bets(m, j, "r1", [1, 2])
    assert await m.sync("r1") is None
    no_more_bets(m, j, "r2", [3])  # journaled; the process is killed here: no link write
    await m.close()


async def check_invariant(m: LinkedMeters, journals: list[Journal]) -> None:
    initial = {name: c.initial for name, c in m.cfg.progressive.meters.items()}
    values = await m.store.values()
    totals = await m.store.totals()
    db = {name: sum((t["contributions"] for t in by.values()), D(0)) for name, by in totals.items()}
    taken = {name: sum((t["taken"] for t in by.values()), D(0)) for name, by in totals.items()}
    zero = {name: D(0) for name in initial}
    assert invariant(initial, values, db, taken) == zero
    assert invariant(initial, values, journal_contributions(journals), taken) == zero


def test_a_table_without_link_keeps_its_own_meters(tmp_path, monkeypatch):
    cfg = linked_cfg(tmp_path, monkeypatch, "T0", None)
    with Journal(cfg.journal) as j:
        m = table_meters(cfg, j)
        assert type(m) is Meters
        assert m.values() == {name: c.initial for name, c in cfg.progressive.meters.items()}


def test_split_to_the_cent():
    """A round's meter_add is split over its seats to the cent; a taking back is keyed -1, -2, ... (R7a)."""
    class E:
        def __init__(self, kind, data):
            self.kind, self.data = kind, data
    rows = round_rows([E("no_more_bets", {"progressive_seats": [2, 5, 6]}), E("meter_add", {"meters": {"m": "0.10"}}),
                       E("meter_add", {"meters": {"m": "-0.03"}})], D(1))
    assert [(r.seat, r.amount, r.kind) for r in rows] == [
        (2, D("0.04"), "wager"), (5, D("0.03"), "wager"), (6, D("0.03"), "wager"), (-1, D("-0.03"), "returned")]
    assert sum(r.amount for r in rows) == D("0.07")


def test_crash_between_the_journal_and_the_link_then_restart(tmp_path, monkeypatch, link_url):
    """The table journaled no more bets with its contributions and died before the link write: at restart
    the journal's contributions the link lacks are sent, once; a second restart sends nothing."""
    cfg = linked_cfg(tmp_path, monkeypatch, "T1", link_url)

    async def main() -> None:
        with Journal(cfg.journal) as j:
            await died_after_journaling(cfg, j)
            again = LinkedMeters(cfg, j)  # the restart
            assert await again.connect() is None
            held = await again.store.confirmed("T1")
            assert {r for r, *_ in held} == {"r1", "r2"}
            await check_invariant(again, [j])
            third = LinkedMeters(cfg, j)
            before = await third.store.values() if await third.connect() is None else None
            assert before == await again.store.values()
            await check_invariant(third, [j])
            for x in (again, third):
                await x.close()

    asyncio.run(main())


def test_tables_share_the_meters_and_hear_of_a_change_within_a_second(tmp_path, monkeypatch, link_url):
    cfgs = [linked_cfg(tmp_path, monkeypatch, f"T{n}", link_url) for n in (1, 2)]

    async def main() -> None:
        with Journal(cfgs[0].journal) as j1, Journal(cfgs[1].journal) as j2:
            m1, m2 = LinkedMeters(cfgs[0], j1), LinkedMeters(cfgs[1], j2)
            heard = asyncio.Event()

            async def changed() -> None:
                heard.set()

            assert await m1.connect() is None and await m2.connect() is None
            await asyncio.sleep(0)  # the listeners start
            await asyncio.wait_for(_listening(m2), 5)
            heard.clear()
            m2.on_change = changed
            no_more_bets(m1, j1, "r1", [1, 2, 3])
            assert await m1.sync("r1") is None
            async def until_it_shows() -> None:  # a notice of an earlier change may come first: wait for this one
                while True:
                    heard.clear()
                    if m2.values() == m1.values():
                        return
                    await heard.wait()

            await asyncio.wait_for(until_it_shows(), 1.0)  # within a second
            assert m2.values() == m1.values()
            assert m2.values()["major"] == D("10000.00") + 3 * D("0.04")
            # a hit at table 2 shows at table 1, with the pending hit
            taken = await m2.claim("r7", 0, 4, "royal_flush", "major", D("100"))
            assert taken.asset == "A-T2" and taken.paid == D("10000.12")
            for _ in range(100):
                if m1.values()["major"] == D("1000.00") and m1.pending:
                    break
                await asyncio.sleep(0.01)
            assert m1.values()["major"] == D("1000.00") and [h.seq for h in m1.pending] == [taken.seq]
            await check_invariant(m1, [j1, j2])
            await m1.close()
            await m2.close()

    asyncio.run(main())


async def _listening(m: LinkedMeters) -> None:
    """Until the table's listening connection is up (it reads the meters once it is)."""
    while True:
        async with m.store.pool.connection() as conn:
            row = await (await conn.execute(
                # this database's listeners only: the cluster is the worker's, shared with other tests (the pit's)
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%%' AND datname = current_database()"
            )).fetchone()
        if row and row[0] >= 1:
            return
        await asyncio.sleep(0.02)


@pytest.mark.requirement("NY 9 NYCRR 5321.18(b)(3)(iii)")
def test_two_hits_at_once_each_journals_what_the_link_paid_and_the_difference_is_named(tmp_path, monkeypatch,
                                                                                       link_url):
    """P68, P80: two tables settle a royal flush (100% of the major meter, UTH ch.12 §D(3)(b)) from the
    same meter and ask the link at once.  The first in the database's order is paid the meter, the second
    what the first left (R4).  Each table journals what the link paid (``meter_paid.paid``); the second's
    settlement figure is journaled beside it (``settled``) and ``report --link`` names the difference to
    the cent, while paid and contributions reconcile exactly."""
    from controller.progressive import hits as prog
    from controller.progressive.link.report import link_report

    cfgs = {t: linked_cfg(tmp_path, monkeypatch, t, link_url) for t in ("T1", "T2")}

    async def main() -> dict:
        with Journal(cfgs["T1"].journal) as j1, Journal(cfgs["T2"].journal) as j2:
            tables = {"T1": (LinkedMeters(cfgs["T1"], j1), j1), "T2": (LinkedMeters(cfgs["T2"], j2), j2)}
            for t, (m, j) in tables.items():
                assert await m.connect() is None
                no_more_bets(m, j, f"{t}-r1", [1])
                assert await m.sync(f"{t}-r1") is None
            meter = await tables["T1"][0].store.values()
            # what each table's settlement computed from the meter (prog.hits): 100% of it, the reset after
            reset = cfgs["T1"].progressive.meters["major"].reset
            settled = prog.Hit(0, 1, "progressive", "royal_flush", meter["major"], "major", reset)
            taken = await asyncio.gather(*(m.claim(f"{t}-r1", 0, 1, "royal_flush", "major", D("100"))
                                           for t, (m, _) in tables.items()))
            for (t, (m, j)), link_hit in zip(tables.items(), taken, strict=True):
                paid = prog.taken_by_link(settled, link_hit.paid, link_hit.after)
                assert prog.taken_by_link(paid, link_hit.paid, link_hit.after) == paid  # asked again: the same
                prog.record_validation(j, f"{t}-r1", [paid], "supervisor 1")
                await m.validated(f"{t}-r1", 0, "supervisor 1")
            first, second = sorted(taken, key=lambda h: h.seq)
            assert first.paid == meter["major"] and second.before == first.after and second.paid == reset  # R4
            journaled = {t: [e.data for e in j.events(f"{t}-r1") if e.kind == "meter_paid"]
                         for t, (_, j) in tables.items()}
            assert journaled[first.table_id] == [{"meter": "major", "paid": str(first.paid), "after": str(reset),
                                                  "hit": 0, "seat": 1}]
            assert journaled[second.table_id] == [{"meter": "major", "paid": str(second.paid), "after": str(reset),
                                                   "hit": 0, "seat": 1, "settled": str(meter["major"])}]
            rep = await link_report(link_url, "floor", {t: j for t, (_, j) in tables.items()})
            for m, _ in tables.values():
                await m.close()
            return {"first": first.table_id, "second": second.table_id, "meter": meter["major"], "rep": rep}

    got = asyncio.run(main())
    rec = {t: {(r["meter"], r["what"]): r["difference"] for r in rows}
           for t, rows in got["rep"]["reconciliation"].items()}
    reset = cfgs["T1"].progressive.meters["major"].reset
    assert rec[got["first"]][("major", "settled")] == D(0)
    assert rec[got["second"]][("major", "settled")] == got["meter"] - reset  # named to the cent
    for t in cfgs:
        assert {k: v for k, v in rec[t].items() if k[1] != "settled"} == {
            (m, w): D(0) for m in cfgs[t].progressive.meters for w in ("contributions", "paid")}
    assert all(row["invariant_difference"] == 0 for row in got["rep"]["meters"].values())


def test_link_lost_then_back(tmp_path, monkeypatch, link_url):
    """The connections cut, PostgreSQL restarted, then stopped for a while: the table knows when it is lost
    (its progressive wagers are disabled at the next no more bets, controller.service.progressive); what it
    journals meanwhile is sent when the link is back."""
    cfg = linked_cfg(tmp_path, monkeypatch, "T1", link_url)
    cluster = pg.cluster()

    async def main() -> None:
        with Journal(cfg.journal) as j:
            m = LinkedMeters(cfg, j)
            assert await m.connect() is None
            await asyncio.wait_for(_listening(m), 5)
            await asyncio.to_thread(cluster.terminate, link_url)
            for _ in range(200):  # the listener hears its connection go
                if m.down is not None:
                    break
                await asyncio.sleep(0.01)
            assert m.down is not None
            no_more_bets(m, j, "r1", [1])  # the round was journaled; its contributions not confirmed
            why = await m.sync("r1")
            assert why is None  # reconnects at once: the server is up, only the connections were cut
            assert m.down is None and {r for r, *_ in await m.store.confirmed("T1")} == {"r1"}
            await check_invariant(m, [j])
            # PostgreSQL restarted between two rounds: the next round's write finds its connections gone,
            # makes new ones and is confirmed; a round journaled while the server is down waits for it
            await asyncio.to_thread(cluster.restart)
            no_more_bets(m, j, "r2", [2, 3])
            assert await m.sync("r2") is None
            await asyncio.to_thread(cluster.stop)
            no_more_bets(m, j, "r3", [5])
            assert await m.sync("r3") is not None and m.down is not None  # lost: progressive wagers disabled
            await asyncio.to_thread(cluster.start)
            assert await m.sync() is None  # the next no more bets: reached, r3 sent from the journal
            assert {r for r, *_ in await m.store.confirmed("T1")} == {"r1", "r2", "r3"}
            await check_invariant(m, [j])
            await m.close()

    asyncio.run(main())


def test_report_names_the_difference_to_the_cent_until_the_table_reconciles(tmp_path, monkeypatch, link_url):
    """`tablectl progressive report --link`: a round journaled but not confirmed by the link is named per
    meter, to the cent; once the table reached the link again, the journal and the link agree."""
    cfg = linked_cfg(tmp_path, monkeypatch, "T1", link_url)
    for key, value in (("TABLE_ID", "T1"), ("TABLE_PROGRESSIVE__LINK", link_url),
                       ("TABLE_PROGRESSIVE__LINK_ID", "floor")):
        monkeypatch.setenv(key, value)

    def report() -> dict:
        out, err = io.StringIO(), io.StringIO()
        argv = ["progressive", "report", "--link", "--json", "--config",
                str(ROOT / "config" / "ultimate_texas_holdem.toml")]
        assert tablectl(argv, stdout=out, stderr=err) == 0, err.getvalue()
        return json.loads(out.getvalue())

    async def main() -> None:
        with Journal(cfg.journal) as j:
            await died_after_journaling(cfg, j)
        rep = await asyncio.to_thread(report)
        diff = {(r["meter"], r["what"]): D(r["difference"]) for r in rep["reconciliation"]["T1"]}
        assert diff == {("major", "contributions"): D("0.04"), ("minor", "contributions"): D("0.01"),
                        ("major", "paid"): D(0), ("minor", "paid"): D(0),
                        ("major", "settled"): D(0), ("minor", "settled"): D(0)}
        assert D(rep["meters"]["major"]["tables"]["T1"]["coin_in"]) == 2 * cfg.progressive.unit
        assert all(D(row["invariant_difference"]) == 0 for row in rep["meters"].values())
        with Journal(cfg.journal) as j:
            again = LinkedMeters(cfg, j)
            assert await again.connect() is None
            await again.close()
        rep = await asyncio.to_thread(report)
        assert all(D(r["difference"]) == 0 for r in rep["reconciliation"]["T1"])
        # without --link: the table's own wagers, and no meter value replayed from its journal alone
        out, err = io.StringIO(), io.StringIO()
        argv = ["progressive", "report", "--json", "--config", str(ROOT / "config" / "ultimate_texas_holdem.toml")]
        assert await asyncio.to_thread(tablectl, argv, stdout=out, stderr=err) == 0, err.getvalue()
        own = json.loads(out.getvalue())
        assert own["meters_on_link"] == "floor" and all(row["current"] is None for row in own["meters"].values())

    asyncio.run(main())


def test_a_link_needs_its_id_and_a_postgresql_url(tmp_path, monkeypatch):
    """Start-up errors name the key: a link without link_id, a link that is not a PostgreSQL URL."""
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "c.journal"))
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK", "postgresql://db/link")
    with pytest.raises(ConfigError) as e:
        load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    assert [p.split(":")[0] for p in e.value.problems] == ["progressive.link_id"]
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK", "mysql://db/link")
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK_ID", "floor")
    with pytest.raises(ConfigError) as e:
        load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    assert [p.split(":")[0].split(" (")[0] for p in e.value.problems] == ["progressive.link"]


@pytest.mark.requirement("NY 9 NYCRR 5321.18(b)(2)")
def test_a_table_configured_with_other_meter_amounts_takes_no_progressive_wager_on_the_link(
        tmp_path, monkeypatch, link_url):
    """The first table installs the link's meters; a second whose configuration gives a meter another reset
    amount is refused the link (named by the key), and its meters stay the configured stand-ins: no
    progressive wager is taken on a meter its players were not offered (R4; fail closed)."""
    first = linked_cfg(tmp_path, monkeypatch, "T1", link_url)
    other = linked_cfg(tmp_path, monkeypatch, "T2", link_url)
    major = other.progressive.meters["major"]
    meters = {**other.progressive.meters, "major": major.model_copy(update={"reset": major.reset + D("1.00")})}
    other = other.model_copy(update={"progressive": other.progressive.model_copy(update={"meters": meters})})

    async def main() -> None:
        with Journal(first.journal) as j1, Journal(other.journal) as j2:
            m1, m2 = LinkedMeters(first, j1), LinkedMeters(other, j2)
            assert await m1.connect() is None
            why = await m2.connect()
            assert why is not None and why.startswith("progressive.meters.major: ")
            assert m2.down == why and await m2.sync() == why  # stays refused: not taken at no more bets
            assert await m1.store.resets() == {name: (c.initial, c.reset)
                                               for name, c in first.progressive.meters.items()}  # untouched
            await m1.close()
            await m2.close()

    asyncio.run(main())

"""A linked progressive's regulated parameters on a real PostgreSQL server (tests/pg.py; P114, P120).

The link splits each contribution as a stand-alone table does, to the cent: the SQL's ``link_split`` and
``link_take_back`` against ``controller.table.split_one`` / ``take_back_one`` over a grid of cases, then a
table on a link against the same table on its own over rounds that pass the limit and a voided round's
taking back (R7a); a hit's reset floor drawn on the reserve.  Changing the link's parameters by
``tablectl parameters change``: refused naming a table of the link that is not closed, journaled; with every
table closed, set on the link, recorded there (who, approval, old and new) and journaled on the table; a
table of the link configured otherwise is refused the link's meters (no progressive wager on them).
"""

from __future__ import annotations

import asyncio
import itertools
from decimal import Decimal as D
from pathlib import Path

import psycopg
import pytest

import pg
from controller import events as ev
from controller.config.table import TableConfig, load_config
from controller.journal.store import Journal
from controller.progressive.hits import reserve_drawn
from controller.progressive.link.meters import LinkedMeters
from controller.progressive.link.migrate import migrate
from controller.progressive.link.store import LinkStore
from controller.table import Meters, split_one, take_back_one
from test_progressive_meters import kinds, run_cli, uth

ROOT = Path(__file__).resolve().parent.parent
NJ_PARAMS = "N.J.A.C. 13:69E-1.39A"
NO_CHANGE_ON_LINK = "NY 9 NYCRR 5321.18(b)(4)"
CHANGES = "COMAR 36.05.03.24"


pytestmark = pytest.mark.usefixtures("no_table_env")


@pytest.fixture
def link_url() -> str:
    url = pg.cluster().new_database()
    migrate(url)
    return url


@pytest.mark.requirement(NJ_PARAMS)
def test_the_links_split_is_the_tables_to_the_cent(link_url):
    """Every case of a grid: given, hidden share, meter now, limit (none, below, at, above the meter)."""
    amounts = [D("0"), D("0.01"), D("0.04"), D("0.05"), D("1.37")]
    values = [D("9999.96"), D("10000.00"), D("10000.03")]
    limits = [None, D("9999.00"), D("10000.00"), D("10000.02"), D("10000.05"), D("20000.00")]
    split_cases = [(g, h, v, lim) for g, h, v, lim in itertools.product(amounts, amounts, values, limits) if h <= g]
    back_cases = [(g, h, o) for g, h in itertools.product(amounts, amounts) if h <= g
                  for o in (D("0"), D("0.01"), D("0.03"), D("2.00"), D("-0.01"))]
    with psycopg.connect(link_url) as conn:
        got = conn.execute(
            "SELECT (link_split(g, h, v, l)).* FROM unnest(%s::numeric[], %s::numeric[], %s::numeric[], "
            "%s::numeric[]) WITH ORDINALITY AS u(g, h, v, l, n) ORDER BY n",
            [list(c) for c in zip(*split_cases, strict=True)]).fetchall()
        back = conn.execute(
            "SELECT (link_take_back(-g, -h, o)).* FROM unnest(%s::numeric[], %s::numeric[], %s::numeric[]) "
            "WITH ORDINALITY AS u(g, h, o, n) ORDER BY n", [list(c) for c in zip(*back_cases, strict=True)]).fetchall()
    assert [tuple(r) for r in got] == [split_one(*c) for c in split_cases]
    assert [tuple(r) for r in back] == [take_back_one(*c) for c in back_cases]
    assert any(r[2] > 0 for r in got) and any(r[1] > 0 for r in got)  # the grid reaches overflow and reserve


def linked_cfg(tmp_path: Path, monkeypatch, table: str, url: str | None, **major: object) -> TableConfig:
    """The UTH example as ``table``, linked to ``url`` (or on its own), its major meter's ``major`` parameters."""
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / f"{table}.journal"))
    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    meters = dict(cfg.progressive.meters)
    meters["major"] = meters["major"].model_copy(update=major)
    p = cfg.progressive.model_copy(update={"link": url, "link_id": "floor" if url else None, "asset": f"A-{table}",
                                           "meters": meters})
    return cfg.model_copy(update={"id": table, "progressive": p, "journal": tmp_path / f"{table}.journal"})


def no_more_bets(meters: Meters, journal: Journal, round_id: str, seats: list[int]) -> None:
    """What the daemon journals at no more bets (service/wagers.py): the round's contributions as they split."""
    split = meters.split(len(seats))
    journal.append_many([
        (round_id, "no_more_bets", ev.NoMoreBets(progressive_seats=tuple(seats), meters=None).to_data(), None),
        (round_id, "meter_add", split.event().to_data(), None)])


def returned(meters: Meters, journal: Journal, round_id: str, wagers: int) -> None:
    """A voided round's wagers returned (service/progressive.py take_back_all, R7a)."""
    journal.append_many([(round_id, "meter_add", meters.take_back(journal.events(round_id), wagers).event().to_data(),
                          None)])


@pytest.mark.requirement(NJ_PARAMS)
def test_a_linked_table_splits_as_a_table_of_its_own(tmp_path, monkeypatch, link_url):
    """The same rounds at a table of its own and at a table alone on a link with the same parameters: the same
    meter, reserve and overflow to the cent (the limit passed mid-round, a round's wagers returned); then a hit
    whose reset floor the reserve funds."""
    limit = D("10000.15")  # the major's initial 10,000.00 + 0.15: its 0.03 a wager (0.04 less 0.01 hidden) passes it
    own = linked_cfg(tmp_path, monkeypatch, "own", None, hidden_rate=D("0.01"), limit=limit)
    linked = linked_cfg(tmp_path, monkeypatch, "lk", link_url, hidden_rate=D("0.01"), limit=limit)

    async def play() -> None:
        with Journal(own.journal) as j0, Journal(linked.journal) as j1:
            m0, m1 = Meters(own, j0), LinkedMeters(linked, j1)
            assert await m1.connect() is None
            for rid, seats in (("r1", [1, 2, 3]), ("r2", [2, 4]), ("r3", [1, 2, 3, 5, 6]), ("r4", [1, 6])):
                no_more_bets(m0, j0, rid, seats)
                no_more_bets(m1, j1, rid, seats)
                assert await m1.sync(rid) is None
            returned(m0, j0, "r4", 2)  # r4 voided: its two wagers back, from the overflow first
            returned(m1, j1, "r4", 2)
            assert await m1.sync("r4") is None
            def held(accounts: dict[str, dict[str, D]]) -> dict[str, dict[str, D]]:
                return {k: {m: v for m, v in by.items() if v} for k, by in accounts.items()}

            # major: 12 wagers of 0.03 onto the meter up to 0.15 (5), 0.01 each to the reserve; r4's two returned
            assert await m1.store.values() == m0.values() == {"major": limit, "minor": D("500.10")}
            assert held(await m1.store.accounts()) == held(m0.accounts()) == {"reserve": {"major": D("0.10")},
                                                                              "overflow": {"major": D("0.15")}}
            # a hit of the whole major: the reset floor (1,000.00) is what the reserve funds, as far as it holds
            hit = await m1.store.hit("lk", "A-lk", "r9", 0, 1, "royal_flush", "major", D(100))
            assert (hit.paid, hit.after, hit.drawn) == (limit, D("1000.00"), reserve_drawn(D("0.10"), D("1000.00")))
            assert (await m1.store.accounts())["reserve"]["major"] == D(0)
            await m1.close()

    asyncio.run(play())


def linked_file(tmp_path: Path, url: str, major: str = "") -> Path:
    path = uth(tmp_path, major, top=f'link = "{url}"\nlink_id = "floor"')
    path.write_text(path.read_text().replace('id = "uth-01"', 'id = "t1"'))
    return path


@pytest.mark.requirement(NO_CHANGE_ON_LINK)
@pytest.mark.requirement(CHANGES)
@pytest.mark.requirement("N.J.A.C. 13:69E-1.39C(b)(6), (c)")
def test_a_links_parameters_change_with_every_table_closed(tmp_path, monkeypatch, link_url):
    journal = tmp_path / "t1.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(journal))
    from controller.service.session import Session

    Session(load_config(linked_file(tmp_path, link_url))).journal.close()  # t1 installed: its parameters journaled
    changed = linked_file(tmp_path, link_url, 'hidden_rate = 0.01\nlimit = "20000.00"')
    (tmp_path / "t2").mkdir()
    other = linked_cfg(tmp_path / "t2", monkeypatch, "t2", link_url)
    monkeypatch.setenv("TABLE_JOURNAL", str(journal))

    def change() -> tuple[int, str]:
        code, _, err = run_cli("parameters", "change", "--config", str(changed), "--by", "tech 12", "--approval",
                               "NYSGC-7")
        return code, err

    async def other_table(state: str, then: str | None = None) -> str | None:
        """Table t2 tells the link its state; ``then``: the change made meanwhile, and what t2 is told."""
        with Journal(other.journal) as j:
            m = LinkedMeters(other, j)
            m.table_state = lambda: state
            listening = asyncio.Event()
            listen = m.store.listen

            async def listen_and_say(changed, ready=None, reparameterised=None):  # type: ignore[no-untyped-def]
                def said() -> None:
                    listening.set()
                    if ready is not None:
                        ready()
                await listen(changed, ready=said, reparameterised=reparameterised)

            m.store.listen = listen_and_say  # type: ignore[method-assign]
            assert await m.connect() is None
            await asyncio.wait_for(listening.wait(), 10)
            why: str | None = None
            if then is not None:
                told = asyncio.Event()

                async def on_change() -> None:
                    if m.down is not None:
                        told.set()

                m.on_change = on_change
                code, err = await asyncio.to_thread(change)
                assert code == 0, err
                await asyncio.wait_for(told.wait(), 10)  # the link's notification, not a sleep
                why = m.down
            await m.close()
            return why

    asyncio.run(other_table("open"))
    code, err = change()
    assert code == 2 and "table t2" in err and "open" in err and len(err.strip().splitlines()) == 1, err
    [refused] = kinds(journal, "parameters_change_refused")
    assert "table t2" in refused["reason"] and refused["by"] == "tech 12"
    assert [c["by"] for c in kinds(journal, "parameters_changed")] == ["installed"]

    why = asyncio.run(other_table("closed", then="change"))  # t2 closed: the change is made
    assert why is not None and why.startswith("progressive.meters.major.hidden_rate: ")  # t2 configured otherwise
    done = kinds(journal, "parameters_changed")[-1]
    assert (done["by"], done["approval"]) == ("tech 12", "NYSGC-7")
    assert done["old"]["progressive"]["meters"]["major"]["hidden_rate"] == "0"
    assert done["new"]["progressive"]["meters"]["major"]["hidden_rate"] == "0.01"

    async def on_link() -> tuple[dict, list[dict]]:
        store = LinkStore(link_url, "floor", pool_size=1)
        await store.open()
        try:
            return await store.parameters(), await store.parameter_changes()
        finally:
            await store.close()

    params, changes = asyncio.run(on_link())
    assert (params["major"]["hidden_rate"], params["major"]["limit"]) == (D("0.01"), D("20000.00"))
    [row] = changes
    assert (row["meter"], row["table_id"], row["by"], row["approval"]) == ("major", "t1", "tech 12", "NYSGC-7")
    assert (row["old"]["hidden_rate"], row["old"]["limit"]) == ("0", None)
    assert (row["new"]["hidden_rate"], row["new"]["limit"]) == ("0.01", "20000.00")

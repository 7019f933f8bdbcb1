"""The linked meters on a real PostgreSQL server (tests/pg.py): migrations, contributions exactly once,
hits in the database's order (R4), the connection cut and the server restarted.

After each: the invariant, per meter, to the cent: meter = initial + contributions - taken by hits, in the
database and in what the tables themselves recorded (their own ledger here, their journals in
tests/test_link_meters.py)."""

from __future__ import annotations

import asyncio
import io
import random
from collections import defaultdict
from decimal import Decimal as D

import psycopg
import pytest

import pg
from controller.cli.main import main as tablectl
from controller.progressive.link.migrate import migrate, migrations, version
from controller.progressive.link.store import Contribution, LinkStore, invariant
from games.money import round_cents

METERS = {"major": (D("10000.00"), D("1000.00")), "minor": (D("500.00"), D("250.00"))}
RATE = {"major": D("0.04"), "minor": D("0.01")}
UNIT = D("5")


@pytest.fixture
def link_url() -> str:
    url = pg.cluster().new_database()
    migrate(url)
    return url


def rows(seats: list[int]) -> list[Contribution]:
    return [Contribution(seat, m, round_cents(RATE[m] * UNIT), UNIT) for seat in seats for m in METERS]


class Ledger:
    """What the tables recorded themselves: contributions confirmed and hits taken."""

    def __init__(self) -> None:
        self.contributed: dict[str, D] = defaultdict(D)
        self.taken: dict[str, D] = defaultdict(D)

    def add(self, new_rows: list[Contribution]) -> None:
        for r in new_rows:
            self.contributed[r.meter] += r.amount


async def check_invariant(store: LinkStore, ledger: Ledger) -> None:
    values = await store.values()
    totals = await store.totals()
    initial = {m: i for m, (i, _) in METERS.items()}
    db_contributed = {m: sum((t["contributions"] for t in by.values()), D(0)) for m, by in totals.items()}
    db_taken = {m: sum((t["taken"] for t in by.values()), D(0)) for m, by in totals.items()}
    assert invariant(initial, values, db_contributed, db_taken) == {m: D(0) for m in METERS}
    assert invariant(initial, values, ledger.contributed, ledger.taken) == {m: D(0) for m in METERS}


def test_migrate_applies_each_file_once_in_order(link_url):
    assert version(link_url) == max(n for n, _ in migrations())
    assert migrate(link_url) == []  # nothing again
    fresh = pg.cluster().new_database()
    assert version(fresh) is None
    out, err = io.StringIO(), io.StringIO()
    assert tablectl(["link", "migrate", "--link", fresh], stdout=out, stderr=err) == 0, err.getvalue()
    assert version(fresh) == max(n for n, _ in migrations())
    assert migrate(fresh) == []
    unreachable = f"postgresql://postgres@127.0.0.1:{pg.cluster().port}/no_such_database"
    assert tablectl(["link", "migrate", "--link", unreachable], stdout=out, stderr=err) == 2


@pytest.mark.requirement("NY 9 NYCRR 5321.18(b)(1)")
def test_eight_tables_contribute_and_hit_concurrently(link_url):
    """Eight tables, rounds at once; two of them hit the same meter at the same moment: the database orders
    them, the first is paid the meter, the second what the first left (R4)."""
    ledger = Ledger()

    async def main() -> None:
        stores = [LinkStore(link_url, "floor") for _ in range(8)]
        await asyncio.gather(*(s.open() for s in stores))
        await stores[0].install(METERS)

        async def table(n: int, store: LinkStore) -> None:
            rng = random.Random(n)
            for k in range(6):
                new = rows(sorted(rng.sample(range(1, 7), rng.randint(1, 4))))
                assert await store.contribute(f"T{n}", f"r{k}", new) == len(new)
                ledger.add(new)
                if k == 3 and n % 3 == 0:  # a 10% hit of the minor meter now and then
                    h = await store.hit(f"T{n}", f"A-{n}", f"r{k}", 0, 1, "straight_flush", "minor", D("10"))
                    ledger.taken["minor"] += h.taken

        await asyncio.gather(*(table(n, s) for n, s in enumerate(stores)))
        # two tables hit the major meter within the same instant
        first, second = await asyncio.gather(
            stores[1].hit("T1", "A-1", "r9", 0, 2, "royal_flush", "major", D("100")),
            stores[2].hit("T2", "A-2", "r9", 0, 5, "royal_flush", "major", D("100")))
        a, b = sorted((first, second), key=lambda h: h.seq)
        assert b.seq > a.seq
        assert a.paid == a.before and a.after == D("1000.00")  # 100% of the meter; reset (R4)
        assert b.before == a.after and b.paid == D("1000.00")  # what the first left
        assert b.taken == D(0)  # the reset floor: nothing more left the meter (R4)
        assert {a.asset, b.asset} == {"A-1", "A-2"}  # COMAR 36.05.03.24 F(3)(c)
        ledger.taken["major"] += a.taken + b.taken
        pending = await stores[0].hits("pending")
        assert [h.seq for h in pending] == sorted(h.seq for h in pending)
        await check_invariant(stores[0], ledger)
        await asyncio.gather(*(s.close() for s in stores))

    asyncio.run(main())


def test_a_replayed_round_adds_nothing_and_a_replayed_hit_is_the_same_hit(link_url):
    ledger = Ledger()

    async def main() -> None:
        store = LinkStore(link_url, "floor")
        await store.open()
        await store.install(METERS)
        new = rows([1, 3])
        assert await store.contribute("T1", "r1", new) == 4
        ledger.add(new)
        before = await store.values()
        assert await store.contribute("T1", "r1", new) == 0  # the table replays after a restart
        assert await store.contribute("T1", "r1", new[:1] + rows([4])) == 2  # only seat 4 is new
        ledger.add(rows([4]))
        assert (await store.values())["major"] == before["major"] + round_cents(RATE["major"] * UNIT)
        h1 = await store.hit("T1", "A-1", "r1", 0, 3, "straight_flush", "major", D("10"))
        h2 = await store.hit("T1", "A-1", "r1", 0, 3, "straight_flush", "major", D("10"))
        assert h1 == h2
        ledger.taken["major"] += h1.taken
        await check_invariant(store, ledger)
        # a contribution to a meter the link does not have writes nothing of the round
        with pytest.raises(psycopg.Error):
            await store.contribute("T1", "r2", rows([1]) + [Contribution(1, "mega", D("1"), UNIT)])
        await check_invariant(store, ledger)
        await store.close()

    asyncio.run(main())


def test_connection_cut_and_server_restarted(link_url):
    """pg_terminate_backend cuts every connection, then pg_ctl restarts the server: the write in flight
    either committed or did not; sent again, it is counted once."""
    ledger = Ledger()
    cluster = pg.cluster()

    async def send(store: LinkStore, rid: str, new: list[Contribution]) -> None:
        for _ in range(20):
            try:
                if await store.contribute("T1", rid, new):
                    ledger.add(new)
                return
            except (psycopg.Error, TimeoutError, OSError):
                await store.close()
                await asyncio.sleep(0.1)  # the server is coming back: try again
                try:
                    await store.open()
                except (psycopg.Error, TimeoutError, OSError):
                    pass
        raise AssertionError("the link never came back")

    async def main() -> None:
        store = LinkStore(link_url, "floor")
        await store.open()
        await store.install(METERS)
        await send(store, "r1", rows([1, 2]))
        assert await asyncio.to_thread(cluster.terminate, link_url) >= 1
        await send(store, "r2", rows([3]))
        await send(store, "r1", rows([1, 2]))  # the replay of r1 adds nothing
        await asyncio.to_thread(cluster.restart)
        await send(store, "r3", rows([1, 2, 3, 4]))
        await send(store, "r2", rows([3]))
        await check_invariant(store, ledger)
        assert ledger.contributed["minor"] == 7 * round_cents(RATE["minor"] * UNIT)
        await store.close()

    asyncio.run(main())

"""The floor's progressive page of a linked table (docs/linked-progressive.md), in process, against a real
PostgreSQL (tests/pg.py): the meters now are the link's, read from its database, never a replay of the
table's own journal (which holds only its own wagers, contributions and hits); the link not answering,
they are shown "on link", never guessed.  The rule is ``controller.progressive.hits.report``'s (``link``),
shared with ``tablectl progressive report``.

And the dealer's screen of a linked table in a real browser (Debian's Chromium, tests/web_harness.py):
another table's hit awaiting validation is shown (``link_pending``) with the meter as reset."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal as D
from pathlib import Path

import pg
from controller.journal.store import Journal
from controller.paths import status_file
from controller.progressive import hits as prog
from controller.progressive.link.meters import LinkedMeters
from controller.progressive.link.migrate import migrate
from controller.progressive.link.store import LinkStore
from daemon_harness import free_port, table_in_process
from test_link_meters import linked_cfg, no_more_bets
from web import keys
from web.app import floor_app
from web.audit import Audit, audit_dir
from web.auth import COOKIE, Account
from web.feed import StatusFeed
from web_harness import SUPERVISOR, floor_accounts, shown, web_service


async def progressive_page(cfg) -> str:
    """GET /progressive of ``cfg``'s floor application, served in this process, as a logged-in supervisor."""
    from aiohttp.test_utils import TestClient, TestServer

    audit = Audit(audit_dir(Path(cfg.journal)))
    users = Path(cfg.journal).parent / "users"  # the account the login is of: the floor reads it at each request
    floor_accounts(users)
    app = floor_app(cfg.model_copy(update={"web": cfg.web.model_copy(update={"users": users})}),
                    StatusFeed(status_file(cfg.journal)), audit)
    token = app[keys.SESSIONS].start(Account(SUPERVISOR, "supervisor", "-"))
    try:
        async with TestClient(TestServer(app)) as client:
            resp = await client.get("/progressive", cookies={COOKIE: token}, allow_redirects=False)
            assert resp.status == 200
            return await resp.text()
    finally:
        audit.close()


def report_cells(html: str) -> tuple[dict[str, str], dict[str, str] | None]:
    """Each meter's ``data-current`` in the report table ("" = on link), and the link note's attributes."""
    current = dict(re.findall(r'<tr data-meter="([^"]+)">.*?data-current="([^"]*)"', html))
    note = re.search(r'<p id=link data-link="([^"]*)" data-reached="([^"]*)"', html)
    return current, ({"link": note[1], "reached": note[2]} if note else None)


def charts(html: str) -> dict[str, tuple[int, D]]:
    """Each meter's chart: (how many points, the last value)."""
    found = re.findall(r'<svg class="chart" data-meter="([^"]+)" data-points="(\d+)" data-now="([^"]+)"', html)
    return {m: (int(n), D(now)) for m, n, now in found}


def test_the_floor_page_of_a_linked_table_shows_the_links_meters(tmp_path, monkeypatch):
    url = pg.cluster().new_database()
    migrate(url)
    a, b = (linked_cfg(tmp_path, monkeypatch, t, url) for t in ("A", "B"))

    async def main() -> None:
        with Journal(a.journal) as ja, Journal(b.journal) as jb:
            at_a, at_b = LinkedMeters(a, ja), LinkedMeters(b, jb)
            assert await at_a.connect() is None and await at_b.connect() is None
            no_more_bets(at_a, ja, "a1", [1])
            no_more_bets(at_b, jb, "b1", [1, 2, 3])  # the other table's wagers move the same meters
            assert await at_a.sync("a1") is None and await at_b.sync("b1") is None
            on_link = await at_a.store.values()
            for m in (at_a, at_b):
                await m.close()
            replay = ja.meter_values()
            # the one rule: a linked table's report gives no current value from its journal
            own = prog.report(ja, a.progressive.meters, link=prog.linked(a.progressive))
            assert own["meters_on_link"] == "floor" and {r["current"] for r in own["meters"].values()} == {None}
        assert any(on_link[m] != replay.get(m, D(0)) for m in on_link)  # a replay would show other amounts

        html = await progressive_page(a)
        current, note = report_cells(html)
        assert note == {"link": "floor", "reached": "yes"}
        assert {m: D(v) for m, v in current.items()} == on_link
        # each meter charted from the link's rows (installed, then the 1 + 3 seats' contributions), never
        # from this journal's replay: it ends at the link's meter
        assert charts(html) == {m: (1 + 4, on_link[m]) for m in a.progressive.meters}

        # the link's server not answering (a port nothing listens on): "on link", no amount guessed
        gone = a.progressive.model_copy(update={"link": f"postgresql://postgres@127.0.0.1:{free_port()}/x"})
        html = await progressive_page(a.model_copy(update={"progressive": gone}))
        current, note = report_cells(html)
        assert note == {"link": "floor", "reached": "no"} and set(current.values()) == {""}
        assert set(current) == set(a.progressive.meters) and charts(html) == {}

    asyncio.run(main())


def test_the_floor_page_of_a_table_of_its_own_shows_its_journals_meters(tmp_path, monkeypatch):
    cfg = linked_cfg(tmp_path, monkeypatch, "S", None)
    with Journal(cfg.journal) as j:
        j.append(None, "meter_set", {"meters": {m: c.initial for m, c in cfg.progressive.meters.items()}})
        j.append("r1", "meter_add", {"meters": {m: D("0.25") for m in cfg.progressive.meters}})
        rep = prog.report(j, cfg.progressive.meters, link=prog.linked(cfg.progressive))
        values = j.meter_values()
    assert rep["meters_on_link"] is None and {m: r["current"] for m, r in rep["meters"].items()} == values
    html = asyncio.run(progressive_page(cfg))
    current, note = report_cells(html)
    assert note is None and {m: D(v) for m, v in current.items()} == values
    assert charts(html) == {m: (2, values[m]) for m in cfg.progressive.meters}  # installed, contributed


def test_the_dealers_screen_shows_another_tables_hit_awaiting_validation(tmp_path, monkeypatch, browser):
    url = pg.cluster().new_database()
    migrate(url)
    for key, value in (("TABLE_PROGRESSIVE__LINK", url), ("TABLE_PROGRESSIVE__LINK_ID", "floor"),
                       ("TABLE_ID", "uth-a")):
        monkeypatch.setenv(key, value)

    async def hit_at_the_other_table():  # a royal flush at table uth-b, 100% of the major meter (R4)
        store = LinkStore(url, "floor", pool_size=1)
        await store.open()
        try:
            return await store.hit("uth-b", "A-200", "b1", 0, 3, "royal_flush", "major", D("100"))
        finally:
            await store.close()

    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()  # it reaches the link at start (its meters installed), open or not
        s = t.until(lambda s: "link_pending" in s, "the daemon's first status")
        with web_service(t, tmp_path, monkeypatch) as w:
            dealer = browser.new_page()
            dealer.goto(w.dealer)
            assert shown(dealer, s, timeout=30_000)["link_pending"] == []  # before: none pending
            with ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
                hit = pool.submit(asyncio.run, hit_at_the_other_table()).result(timeout=30)
            # the page draws every status anew (a handle to the element drawn before is detached): by its selector
            dealer.wait_for_selector(f'.alert.pending[data-link-hit="{hit.seq}"]')
            assert dealer.locator(f'.alert.pending[data-link-hit="{hit.seq}"]').is_visible()
            assert dealer.evaluate("window.__status")["link_pending"] == [
                {"seq": hit.seq, "meter": "major", "table": "uth-b", "asset": "A-200", "seat": 3,
                 "paid": str(hit.paid), "after": str(hit.after)}]
            dealer.close()

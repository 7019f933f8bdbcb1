"""The pit (web/pit/, docs/pit.md): ten tables publishing to the pit's PostgreSQL, the pit's page in Chromium.

The ten tables are ten publishers (web/pit/publish.py, as ``tablectl web`` runs one) on status files written
from the daemon's own statuses (tests/screen_corpus.py); one real daemon with its ``tablectl web`` proves the
path end to end.  The pit is ``tablectl pit`` in its own process.  Every wait is on the page's data-* attributes
or on the database.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import psycopg
import pytest

import pg
from daemon_harness import simulated_table
from pit_harness import Tables, pit_server, table_id
from screen_corpus import corpus
from unsaid import unsaid_identifiers
from web.pit.publish import alarm_events
from web.pit.store import migrate
from web_harness import AUDITOR, SUPERVISOR, login, web_service

# PIT_SCREENSHOT=FILE: the first test also saves the page with 20 tables there (docs/screens/, the README).
# make test: six tables (every kind of first status with alarms among them); make soak: 20 (PIT_TABLES=20)
SCREENSHOT = os.environ.get("PIT_SCREENSHOT")
N = 20 if SCREENSHOT else int(os.environ.get("PIT_TABLES", "6"))
# the status each table shows first: six with no alarm, four with alarms (a held win's six lines, an
# irregularity, a halt, a device offline with its halt)
FIRST = ("settled_held", "irregularity_menu", "halted", "device_offline", "wagers", "decisions", "settled",
         "complete", "reveal", "no_more_bets")
ORDER = ("high", "medium", "low")


@pytest.fixture(scope="module")
def pit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Tables, str, str]]:
    directory = tmp_path_factory.mktemp("pit")
    url = pg.cluster().new_database()
    migrate(url)
    with Tables(url, directory, N) as tables, pit_server(url, directory) as address:
        yield tables, address, url


def statuses() -> dict[str, dict[str, Any]]:
    return dict(corpus("ultimate_texas_holdem"))


def first_statuses(tables: Tables) -> dict[str, dict[str, Any]]:
    by_name = statuses()
    return {table_id(i): tables.write(i, by_name[FIRST[(i - 1) % len(FIRST)]]) for i in range(1, N + 1)}


def rows(page: Any, part: str) -> list[dict[str, str]]:
    return list(page.evaluate(f"() => [...document.querySelectorAll('#{part} tr[data-table]')]"
                              ".map(r => Object.assign({}, r.dataset))"))


def shows(page: Any, table: str, attribute: str, value: str, timeout: float = 10_000) -> None:
    page.wait_for_function(
        "([t, a, v]) => { const r = document.querySelector(`#tables tr[data-table='${t}']`);"
        " return r !== null && r.dataset[a] === v; }", arg=[table, attribute, value], timeout=timeout)


def first_message(page: Any, drawn: str) -> dict[str, Any]:
    """The pit's first server-sent message to a page drawn at ``drawn`` (its ``data-drawn``)."""
    text = page.evaluate("""async drawn => {
        const r = await fetch('/events?drawn=' + encodeURIComponent(drawn)), reader = r.body.getReader();
        let t = '';
        while (!t.includes('\\n\\n')) t += new TextDecoder().decode((await reader.read()).value);
        reader.cancel();
        return t; }""", drawn)
    return dict(json.loads(text.split("data: ", 1)[1].split("\n", 1)[0]))


def the_pit_shows_every_table_and_the_alarms_first(pit: tuple[Tables, str, str], browser: Any) -> None:
    tables, address, _ = pit
    written = first_statuses(tables)
    page = login(browser.new_page(), address)
    page.goto(address)
    page.wait_for_function("n => document.querySelectorAll('#tables tr[data-table]').length === n", arg=N)
    for table, s in written.items():
        shows(page, table, "round", s["round"]["round_id"])
    want = sum(len(s["alarms"]) for s in written.values())
    assert want >= 10
    page.wait_for_function("n => document.querySelectorAll('#alarms tr[data-alarm]').length === n", arg=want)
    # the alarms before the tables on the page, highest priority first, then the oldest
    assert page.evaluate("() => !!(document.getElementById('alarms').compareDocumentPosition("
                         "document.getElementById('tables')) & Node.DOCUMENT_POSITION_FOLLOWING)")
    since = {(t, a["id"]): a["since"] for t, s in written.items() for a in s["alarms"]}
    shown = [(r["table"], r["alarm"]) for r in rows(page, "alarms")]
    assert set(shown) == set(since)
    priority = {(r["table"], r["alarm"]): r["priority"] for r in rows(page, "alarms")}
    assert shown == sorted(shown, key=lambda k: (ORDER.index(priority[k]), since[k], k[0]))
    by_table = {r["table"]: r for r in rows(page, "tables")}
    for table, s in written.items():
        row = by_table[table]
        assert (row["state"], row["phase"], row["running"]) == (s["state"], s["round"]["phase"], "yes")
        assert int(row["held"]) == len(s["validation"]) and int(row["alarms"]) == len(s["alarms"])
        assert int(row["faults"]) == sum(1 for v in s["devices"].values() if v != "online")
        link = page.get_attribute(f"#tables tr[data-table='{table}'] a", "href")
        assert link == f"http://127.0.0.1:1/{table}/"  # the table's own floor pages, from its summary
    assert by_table[table_id(4)]["faults"] == "1"  # the shuffler offline
    assert unsaid_identifiers(page) == []
    assert "card" not in json.dumps(page.evaluate("() => document.body.innerHTML")).lower()  # no card reaches it
    # a page drawn at the pit's version now is sent the counts at connect, not its whole self again
    assert "tables_html" in first_message(page, "elsewhere.1")
    for _ in range(5):  # (a table publishing between the two requests draws a new version: asked again)
        drawn = re.search(r'data-drawn="([^"]+)"', page.request.get(address).text()).group(1)
        message = first_message(page, drawn)
        if f"{drawn.split('.')[0]}.{message['version']}" == drawn:
            break
    assert "tables_html" not in message and "alarms_html" not in message and message["tables"] == N
    if SCREENSHOT:
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.screenshot(path=SCREENSHOT, full_page=True)


def a_change_at_a_table_is_redrawn_and_a_stopped_daemon_said(pit: tuple[Tables, str, str], browser: Any) -> None:
    tables, address, _ = pit
    first_statuses(tables)
    page = login(browser.new_page(), address)
    page.goto(address)
    page.wait_for_function("n => document.querySelectorAll('#tables tr[data-table]').length === n", arg=N)
    took = []
    for n, name in ((2, "no_more_bets"), (5, "halted"), (6, "complete")):
        s = statuses()[name]
        start = time.monotonic()
        tables.write(n, s)
        shows(page, table_id(n), "phase", s["round"]["phase"])
        took.append(time.monotonic() - start)
    # the aim is half a second (make bench measures its p99 with 50 tables); a busy test machine gets slack
    assert max(took) < 3.0, took
    shows(page, table_id(5), "alarms", "1")
    tables.stop_daemon(4)
    shows(page, table_id(4), "running", "no")


def a_supervisor_acknowledges_an_alarm_with_the_name_recorded(pit: tuple[Tables, str, str], browser: Any) -> None:
    tables, address, url = pit
    written = first_statuses(tables)
    alarm = written[table_id(3)]["alarms"][0]["id"]
    page = login(browser.new_page(), address)
    page.goto(address)
    selector = f"#alarms tr[data-table='{table_id(3)}'][data-alarm='{alarm}']"
    page.wait_for_selector(selector)
    before = time.time()
    with page.expect_navigation():
        page.click(f"{selector} button")
    page.wait_for_function("s => document.querySelector(s)?.dataset.acknowledgedBy === 'sam'", arg=selector)
    assert SUPERVISOR == "sam"
    with psycopg.connect(url) as conn:
        by, at = conn.execute("SELECT by, at FROM pit_acknowledgement WHERE table_id = %s AND alarm_id = %s",
                              (table_id(3), alarm)).fetchone()
    assert by == SUPERVISOR and at.timestamp() >= before - 1
    # an alarm that is not open at that table is not acknowledged
    token = page.eval_on_selector('meta[name="csrf-token"]', "e => e.content")  # the login's (web/guard.py)
    assert page.request.post(address + "acknowledge", form={"table": table_id(2), "alarm": "nope"}).status == 403
    assert page.request.post(address + "acknowledge",
                             form={"table": table_id(2), "alarm": "nope", "csrf": token}).status == 404
    # an auditor sees the pit and acknowledges nothing (the same browser: the auditor's login replaces sam's)
    other = login(browser.new_page(), address, AUDITOR)
    other.goto(address)
    alarm2 = written[table_id(2)]["alarms"][0]["id"]
    token = other.eval_on_selector('meta[name="csrf-token"]', "e => e.content")
    refused = other.request.post(address + "acknowledge", form={"table": table_id(2), "alarm": alarm2, "csrf": token})
    assert refused.status == 403
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM pit_acknowledgement WHERE table_id = %s",
                            (table_id(2),)).fetchone() == (0,)


def the_tables_catch_up_when_the_pit_server_returns(pit: tuple[Tables, str, str], browser: Any) -> None:
    tables, address, _ = pit
    first_statuses(tables)
    page = login(browser.new_page(), address)
    page.goto(address)
    shows(page, table_id(1), "phase", "settled")
    cluster = pg.cluster()
    by_name = statuses()
    cluster.stop()
    try:
        page.wait_for_function("() => document.body.dataset.database === 'no'")
        latest = {}
        for i in range(1, N + 1):  # two statuses each while the server is away: the latest wins
            tables.write(i, by_name["decisions"])
            latest[table_id(i)] = tables.write(i, by_name["reveal" if i % 2 else "complete"])
        deadline = time.monotonic() + 10
        while not all(p.failures for p in tables.publishers) and time.monotonic() < deadline:
            time.sleep(0.1)  # the publishers try, in vain, while the tables play on
        assert all(p.failures for p in tables.publishers)
    finally:
        cluster.start()
    for table, s in latest.items():
        shows(page, table, "phase", s["round"]["phase"], timeout=20_000)
        shows(page, table, "updated", str(s["updated"]))


def test_the_pit_of_many_tables(pit, browser):
    """The four parts above in turn on one pit of ``N`` tables (six; make soak 20), each leaving its pages
    closed.  One test, not four: xdist hands each test to whichever worker is free, so four tests made the
    tables and the pit's server (a module fixture) once on each worker that ran one, up to four times."""
    for part in (the_pit_shows_every_table_and_the_alarms_first,
                 a_change_at_a_table_is_redrawn_and_a_stopped_daemon_said,
                 a_supervisor_acknowledges_an_alarm_with_the_name_recorded,
                 the_tables_catch_up_when_the_pit_server_returns):
        part(pit, browser)
        for page in browser.pages:
            page.close()

def test_alarm_events_raised_acknowledged_cleared():
    a = {"id": "x@1", "since": 1.0, "acknowledged": None}
    acked = {**a, "acknowledged": {"by": "supervisor 4711", "at": 2.0}}
    assert [(e.alarm_id, e.event) for e in alarm_events({}, [a], 5.0)] == [("x@1", "raised")]
    assert [(e.event, e.at) for e in alarm_events({"x@1": a}, [acked], 5.0)] == [("acknowledged", 2.0)]
    assert [(e.event, e.at) for e in alarm_events({"x@1": acked}, [], 5.0)] == [("cleared", 5.0)]


def test_a_real_table_publishes_through_tablectl_web_and_catches_up(tmp_path, monkeypatch):
    """The daemon on simulated devices, its ``tablectl web`` publishing to the pit: its summary arrives
    with its round; with the pit's server stopped the table plays a round on, and the pit has it once back."""
    url = pg.cluster().new_database()
    migrate(url)
    monkeypatch.setenv("TABLE_WEB__PIT", url)

    async def summary() -> dict[str, Any] | None:
        async with await psycopg.AsyncConnection.connect(url) as conn:
            row = await (await conn.execute("SELECT summary FROM pit_table")).fetchone()
        return None if row is None else dict(row[0])

    def arrived(round_id: str) -> dict[str, Any]:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            s = asyncio.run(summary())
            if s and (s.get("round") or {}).get("round_id") == round_id and s["verification"]:
                return s
            time.sleep(0.1)
        raise AssertionError(f"the pit never had round {round_id}: {s}")

    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        t.start_daemon()
        with web_service(t, tmp_path, monkeypatch) as w:
            t.open_table()
            s = arrived(t.status()["round"]["round_id"])
            assert s["table"] == t.cfg.id and s["running"] and s["floor_url"] == w.floor
            assert s["verification"]["ok"]
            cluster = pg.cluster()
            cluster.stop()
            try:
                closed = len(t.dealer.closed)
                while len(t.dealer.closed) == closed:  # the table plays on without the pit
                    t.dealer.step()
            finally:
                cluster.start()
            s = arrived(t.status()["round"]["round_id"])
            assert s["hands_per_hour"] >= 1


def test_alarms_journaled_while_the_pit_was_down_reach_it_after_the_table_restarted(tmp_path):
    """The pit's server down, an alarm raised and cleared and another raised and acknowledged at the table, the
    table's publisher (its web service) restarted meanwhile: its outbox is gone, the second status shows only the
    open alarm; once the pit is back every one of the four events is there, from the journal, once each."""
    from controller import events as ev
    from controller.journal.store import Journal
    from controller.paths import status_file
    from controller.service.status import write_status
    from web.feed import StatusFeed
    from web.pit.publish import Publisher
    from web.pit.store import PitStore

    url = pg.cluster().new_database()
    migrate(url)
    with psycopg.connect(url, autocommit=True) as conn:  # the schema on disk: the test server commits lazily and
        conn.execute("CHECKPOINT")                      # its stop is immediate (demo/cluster.py)
    journal = tmp_path / "t.journal"
    with Journal(journal) as j:
        j.claim("T99", "ultimate_texas_holdem")

    def alarm(n: int, acknowledged: bool) -> dict[str, Any]:
        return {"id": f"device_offline:shoe@{n}", "priority": "high", "kind": "device_offline", "since": float(n),
                "seat": None, "device": "shoe", "clauses": ["UTH ch.13 §J"],
                "acknowledged": {"by": "supervisor 4711", "at": n + 0.5} if acknowledged else None}

    def show(*alarms: dict[str, Any]) -> None:
        write_status(status_file(journal), json.dumps({"table": "T99", "updated": time.time(), "alarms": alarms}))

    async def publish_until(feed: StatusFeed, done: Any) -> Publisher:
        p = Publisher(PitStore(url), "T99", feed, journal=journal)
        p.poll = 0.05
        task = asyncio.create_task(p.run())
        try:
            async with asyncio.timeout(20):
                while not done(p):
                    feed.look()
                    p.wake.set()
                    await asyncio.sleep(0.05)
        finally:
            task.cancel()
            # not waited on without end: twice in CI the cancelled publisher, its server stopped and started,
            # did not end (not yet explained; the session note says so); the alarms it sent are checked below
            await asyncio.wait({task}, timeout=5)
        return p

    async def main() -> list[tuple[str, str]]:
        feed = StatusFeed(status_file(journal))
        cluster = pg.cluster()
        cluster.stop()
        try:
            first, second = alarm(1, False), alarm(2, False)
            with Journal(journal) as j:  # as the daemon journals them (controller/service/alarms.py)
                for a in (first, second):
                    j.record(ev.AlarmRaised(id=a["id"], alarm=a["kind"], priority="high", since=Decimal(a["since"]),
                                            clauses=tuple(a["clauses"]), device="shoe"))
            show(first, second)
            away = await publish_until(feed, lambda p: p.failures >= 1 and len(p.outbox) >= 2)
            assert away.published == 0
            with Journal(journal) as j:
                j.record(ev.AlarmCleared(id=first["id"], alarm=first["kind"], priority="high"))
                j.record(ev.AlarmAcknowledged(id=second["id"], alarm=second["kind"], priority="high",
                                              by="supervisor 4711", at=Decimal("2.5")))
        finally:
            cluster.start()
        show(alarm(2, True))  # the restarted table's status: the open alarm, acknowledged
        back = await publish_until(feed, lambda p: p.published >= 1 and not p.behind)
        assert back.published >= 1
        store = PitStore(url)
        try:
            await store.open()
            return [(e["alarm_id"], e["event"]) for e in await store.alarm_events("T99")]
        finally:
            await store.close()

    got = asyncio.run(main())
    assert sorted(got) == sorted([("device_offline:shoe@1", "raised"), ("device_offline:shoe@1", "cleared"),
                                  ("device_offline:shoe@2", "raised"), ("device_offline:shoe@2", "acknowledged")])

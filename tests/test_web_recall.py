"""Recall of any hand (issue 26): the search of the whole journal across its segments, and a round's page.

A journal of 40 rounds an hour apart (rolled over into a sealed segment after the 16th, an open round at
its end) with a seat, a wager, an amount and an outcome each round can be found by: the index
(web/search.py) finds each criterion's rounds and no other, never the open round, catches up with rows
appended since, and is built again when it is not its journal's; the browser finds them through the
form, page by page.  A round the daemon played (the simulated table) has its page: the cards in the
order dealt, the order of payment beside a fresh re-settlement, each press (a refused one too, P118) with
its local time and zone, the clock's state before the round; the open round is neither found nor served.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.journal import Clock
from controller import events as ev
from controller.journal.segments import open_for_reading, roll_over
from controller.journal.store import Journal
from controller.table import TableLife
from daemon_harness import confirm, deal_a_round, journal, phase, play_out, table_in_process
from unsaid import unsaid_identifiers
from web.search import Index, Query
from web.search import confirm as confirmed
from web_harness import login, screenshot, web_service

GAME = "ultimate_texas_holdem"
START = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
N = 40
ROLL_AFTER = 15


def the_round(i: int) -> tuple[int, list[ev.JournalEvent], list[ev.JournalEvent]]:
    """Round i: its seat, its events, the table's events after it.  Seat 1 + i % 6, an Ante of 5 * (1 + i % 4)
    (the Blind alike), Trips of 5 in every fifth; round 3 a progressive hit, 4 a void, 5 a halt (an
    irregularity), 6 the payout limit; the seat's net is +Ante on odd rounds, -2 Antes on even ones."""
    seat, ante = 1 + i % 6, 5 * (1 + i % 4)
    out: list[ev.JournalEvent] = [ev.RoundOpened(game=GAME, paytables={"blind": "A", "trips": "A"}),
                                  ev.WagerPlaced(seat=seat, wager="ante", amount=ante),
                                  ev.WagerPlaced(seat=seat, wager="blind", amount=ante)]
    if i % 5 == 0:
        out.append(ev.WagerPlaced(seat=seat, wager="trips", amount=5))
    out.append(ev.NoMoreBets(progressive_seats=()))
    if i == 5:
        out += [ev.Halted(reason="device_offline: shuffler", phase="dealing"), ev.Resumed(by="supervisor 4711")]
    table: list[ev.JournalEvent] = []
    if i == 4:
        return seat, [*out, ev.Voided(reason="irregularity: misdeal", keep=()), ev.RoundVoided()], table
    net = ante if i % 2 else -2 * ante
    paid = [ev.PaidWager(wager="ante", result="win" if net > 0 else "lose", net=net // 2 if net > 0 else -ante),
            ev.PaidWager(wager="blind", result="win" if net > 0 else "lose", net=net - net // 2 if net > 0 else -ante)]
    if i == 6:  # the wagers' nets before the limit are above the seat's net (R6)
        paid = [ev.PaidWager(wager="ante", result="win", net=100_000),
                ev.PaidWager(wager="blind", result="push", net=0)]
        net = 50_000
    step = ev.PaymentStep(seat=seat, clause="UTH ch.11 §H-§J", shows_hand=True, wagers=tuple(paid))
    out += [ev.Settled(meters={}, nets={str(seat): net}, order=(step,)),
            ev.RoundClosed()]
    if i == 3:
        table.append(ev.ProgressiveHit(round=f"s{i:03d}", hit=1, seat=seat, wager="progressive", line="royal_flush",
                                       amount=1000))
    return seat, out, table


def build(path: Path, cfg, first: int, last: int, roll: int | None = None) -> None:
    clock = Clock(START + timedelta(hours=first))
    with Journal(path) as j:
        TableLife(cfg.model_copy(update={"journal": path}), j)  # its part in every checkpoint (a roll-over needs it)
        with clock.installed():
            for i in range(first, last):
                _, events, table = the_round(i)
                j.record_many(events, f"s{i:03d}")
                clock.now += timedelta(hours=1)
                if table:
                    j.record_many(table, who="supervisor 4711")
                if i == roll:
                    roll_over(j)
            if last == N:
                j.record_many([ev.RoundOpened(game=GAME, paytables={}), ev.WagerPlaced(seat=1, wager="ante", amount=5)],
                              "open")


def rids(found) -> list[str]:
    return sorted(f.rid for f in found)


def search(index: Index, **q) -> list[str]:
    total, found = index.search(Query(**q))
    assert total == len(found) or total > 25
    return rids(found)


def test_the_index_finds_each_criterion_across_segments(tmp_path, monkeypatch):
    from daemon_harness import ROOT, table_config

    cfg = table_config(ROOT / "config" / f"{GAME}.toml")
    path = tmp_path / "t.journal"
    build(path, cfg, 0, N - 5, roll=ROLL_AFTER)
    index = Index(path)
    assert index.update() > 0 and (tmp_path / "t.journal.segments").is_dir()
    every = [f"s{i:03d}" for i in range(N - 5)]
    total, found = index.search(Query())
    assert total == N - 5 and [f.rid for f in found] == every[::-1][:25]  # the latest first, 25 a page
    assert rids(index.search(Query(page=2))[1]) == every[:10]
    assert search(index, round="s00") == every[:10]
    assert search(index, round="s012") == ["s012"]
    assert search(index, seat=3) == [r for i, r in enumerate(every) if 1 + i % 6 == 3]
    assert search(index, wager="trips") == [r for i, r in enumerate(every) if i % 5 == 0]
    assert search(index, wager="ante", on="wager", at_least=2000) == [r for i, r in enumerate(every) if i % 4 == 3]
    assert search(index, seat=2, at_least=1500, at_most=1500) == [r for i, r in enumerate(every)
                                                                  if i % 6 == 1 and i % 4 == 2]
    assert search(index, on="net", at_most=-3000) == [r for i, r in enumerate(every) if i % 2 == 0 and i not in (4, 6)
                                                      and 2 * 5 * (1 + i % 4) >= 30]
    assert search(index, outcome="hit") == ["s003"]
    assert search(index, outcome="void") == ["s004"]
    assert search(index, outcome="irregularity") == ["s005"]
    assert search(index, outcome="limit") == ["s006"]
    t = (START + timedelta(hours=20)).timestamp()
    assert search(index, since=t - 1, until=t + 2 * 3600 + 1) == ["s020", "s021", "s022"]  # rounds 20-22, both ends
    # rows appended since (the open round too: never found) are indexed at the next update
    build(path, cfg, N - 5, N)
    assert 0 < index.update() < 200
    assert search(index, round="s03") == [f"s{i:03d}" for i in range(30, 40)]
    assert search(index, round="open") == []
    with open_for_reading(path) as j:
        assert confirmed(j, index.search(Query(round="s01"))[1]) == []
        db = sqlite3.connect(index.path)  # an index that lies about a round: the journal refuses it
        with db:
            db.execute("UPDATE rounds SET first = first + 1 WHERE rid = 's011'")
        db.close()
        assert confirmed(j, index.search(Query(round="s01"))[1]) == ["s011"]
    # another journal in this one's place: the index is built again from it
    other = tmp_path / "o.journal"
    build(other, cfg, 0, 3)
    for p in tmp_path.glob("t.journal*"):
        if p.is_file() and not p.name.endswith(".recall"):
            p.unlink()
    for p in (tmp_path / "t.journal.segments").iterdir():
        p.unlink()
    (tmp_path / "t.journal.segments").rmdir()
    other.rename(path)
    index.update()
    assert search(index) == ["s000", "s001", "s002"]


def test_the_floor_searches_by_each_criterion_page_by_page(tmp_path, monkeypatch, browser):
    from axe_playwright_python.sync_playwright import Axe

    from test_dealer_screen import AXE

    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        build(t.journal_path, t.cfg, 0, N, roll=ROLL_AFTER)
        with web_service(t, tmp_path, monkeypatch) as w:
            page = browser.new_page()
            login(page, w.floor)

            def found(**form: str) -> tuple[list[str], dict[str, str]]:
                page.goto(w.floor + "rounds")
                for name, value in form.items():
                    if page.locator(f"select[name={name}]").count():
                        page.select_option(f"select[name={name}]", value)
                    else:
                        page.fill(f"input[name={name}]", value)
                with page.expect_navigation():
                    page.click("form.search button[type=submit]")
                shown = page.eval_on_selector_all("tr[data-round]", "rows => rows.map(r => r.dataset.round)")
                return sorted(shown), page.eval_on_selector("p.pages", "p => ({...p.dataset})")

            every = [f"s{i:03d}" for i in range(N)]
            shown, pages = found()
            assert pages == {"total": str(N), "page": "1", "pages": "2"} and shown == every[N - 25:]
            assert "open" not in shown  # the open round is never found
            assert unsaid_identifiers(page) == []
            page.evaluate(Axe().axe_script)
            assert page.evaluate(AXE) == []
            assert page.is_visible("[data-zone]") and page.get_attribute(".zone", "data-zone")
            screenshot(page, "floor-recall-search")
            with page.expect_navigation():
                page.click("a[rel=next]")
            assert sorted(page.eval_on_selector_all("tr[data-round]", "rows => rows.map(r => r.dataset.round)")) \
                == every[:N - 25] and page.get_attribute("p.pages", "data-page") == "2"
            with page.expect_navigation():
                page.click("a[rel=prev]")
            assert page.get_attribute("p.pages", "data-page") == "1"
            assert found(round="s02")[0] == every[20:30]
            assert found(seat="4", wager="trips")[0] == [r for i, r in enumerate(every) if i % 6 == 3 and i % 5 == 0]
            assert found(on="net", at_least="15")[0] == [r for i, r in enumerate(every) if i % 2 and 5 * (1 + i % 4)
                                                         >= 15 or i == 6]
            assert found(wager="ante", at_most="5.00")[0] == [r for i, r in enumerate(every) if i % 4 == 0]
            assert found(outcome="hit")[0] == ["s003"]  # through the form; the other outcomes by their address
            for outcome, rid in (("void", "s004"), ("irregularity", "s005"), ("limit", "s006")):
                html = page.request.get(w.floor + f"rounds?outcome={outcome}").text()
                assert re.findall(r'<tr[^>]* data-round="([^"]+)"', html) == [rid], outcome
            local = (START + timedelta(hours=30)).astimezone()  # the form's times are the table's local time
            assert found(**{"from": local.strftime("%Y-%m-%dT%H:%M"),
                            "to": (local + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")})[0] == ["s030", "s031"]
            page.goto(w.floor + "rounds?seat=9")  # a field it cannot read: named, nothing found
            assert page.is_visible("#problem") and page.locator("tr[data-round]").count() == 0
            page.close()


def test_a_played_round_page_shows_each_press_with_its_time_and_zone(tmp_path, monkeypatch, browser):
    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        rid, s = deal_a_round(t)
        with web_service(t, tmp_path, monkeypatch) as w:
            page = browser.new_page()
            login(page, w.floor)
            if phase(s) == "decisions":  # the round in play: neither found nor served, no card of it shown
                page.goto(w.floor + f"rounds?round={rid}")
                assert page.get_attribute("p.pages", "data-total") == "0"
                assert page.goto(w.floor + f"rounds/{rid}").status == 404
            refused = t.press_refused("no_more_bets")  # a press the table refuses: journaled too (P118)
            assert refused["told"]["kind"] == "refused"
            play_out(t)
            confirm(t)
            page.goto(w.floor + f"rounds?round={rid}")
            assert page.eval_on_selector_all("tr[data-round]", "rows => rows.map(r => r.dataset.round)") == [rid]
            with page.expect_navigation():
                page.click(f'tr[data-round="{rid}"] a')
            assert page.is_visible("#resettle.ok") and page.locator("#order tr[data-step]").count() >= 2
            assert page.locator("#order tr.diff").count() == 0
            kinds = page.eval_on_selector_all("#presses tr[data-kind]", "rows => rows.map(r => r.dataset.kind)")
            assert kinds[0] == "no_more_bets" and kinds[-1] == "round_closed" and "count_confirmed" in kinds
            no = page.eval_on_selector_all("#presses tr[data-refused=yes]", "rows => rows.map(r => ({...r.dataset}))")
            assert [(r["button"], r["code"]) for r in no] == [("no_more_bets", refused["told"]["cause"])]
            assert int(no[0]["seq"]) > min(int(x) for x in page.eval_on_selector_all(
                "#presses tr[data-kind=no_more_bets]", "rows => rows.map(r => r.dataset.seq)"))  # in its place
            zone = page.get_attribute(".zone", "data-zone").split(",")[0]
            times = page.eval_on_selector_all("#presses tr[data-kind] td:first-child",
                                              "cs => cs.map(c => c.textContent)")
            assert all(re.fullmatch(rf"\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{{3}} {re.escape(zone)}", x) for x in times)
            # journaled at the daemon's start, before the round
            assert page.get_attribute("#clock", "data-clock") in ("synchronised", "unsynchronised")
            drawn = page.eval_on_selector_all("#drawn tr[data-n]", "rows => rows.map(r => r.dataset.place)")
            events, _ = journal(t, rid)
            assert drawn == [x.data["place"] for x in events if x.kind == "card"]  # every card, in the order dealt
            assert page.is_visible("#procedure")
            assert unsaid_identifiers(page) == []
            page.close()

"""Every floor page in words, accessible, with its navigation, and never a 500 (issue 26).

The browser test serves the journal of the screens' corpus (tests/screen_corpus.py: a daemon's own rounds with a
Progressive win, an irregularity and its void, a halt, a device that stopped answering, their alarms) and visits
every page as a supervisor and as an auditor by following the navigation: each shows the links, the user's name
and role and Log out (data-* attributes), no snake_case code in its text (tests/unsaid.py), and no serious or
critical axe-core violation; the login page too; Log out ends the login.  The other tests serve the floor's app in
process on small journals of three sealed segments (tests/test_journal_segments.py) damaged four ways: a row cut
short, a byte flipped in a sealed segment, a segment deleted, another table's journal; every page answers 200 or
503 naming the file, the seq and what is wrong.  The verification keeps what it verified (web/verified.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import sqlite3
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from aiohttp.test_utils import TestClient, TestServer

from controller import events as ev
from controller.journal import segments as segs
from controller.journal.store import Journal
from screen_corpus import build as play_corpus
from screen_corpus import config_file
from test_dealer_screen import AXE
from test_journal_checkpoints import UTH, play
from test_journal_segments import daemons
from unsaid import unsaid_identifiers
from web import keys
from web.verified import OPEN, JournalCheck
from web.words import words
from web_harness import AUDITOR, PASSWORD, SUPERVISOR, floor_accounts, login, web_service

GAME = "ultimate_texas_holdem"
TABLE = "uth-01"


def test_every_journal_kind_and_field_has_words():
    import controller.journal.trust  # noqa: F401  (their kinds declared)
    import web.audit  # noqa: F401

    w = words()
    missing = [k for k in ev.EVENTS if f"event.{k}" not in w]
    missing += sorted({f.name for c in ev.EVENTS.values() for f in dataclasses.fields(c) if f"field.{f.name}" not in w})
    assert missing == []


def _visit(page, floor: str, user: str, role: str, axe_script: str, skip_axe: tuple[str, ...] = ()) -> list[str]:
    """Every page the navigation links, followed from the glance page; the pages visited.  axe-core (about a
    second of CPU a page) is not run again on ``skip_axe``: the same page for another role."""
    login(page, floor, user, PASSWORD)
    links = page.eval_on_selector_all("nav a[data-page]", "els => els.map(e => e.dataset.page)")
    assert links[0] == "/" and ("/audit" in links) == (role == "auditor")
    for href in links:
        with page.expect_navigation():
            page.click(f'nav a[data-page="{href}"]')
        where = f"{href} as {role}"
        assert page.eval_on_selector("nav .who", "e => [e.dataset.user, e.dataset.role]") == [user, role], where
        assert page.is_visible("form.logout button[data-logout]"), where
        assert page.eval_on_selector("nav a[aria-current=page]", "e => e.dataset.page") == href, where
        assert page.locator("#journal-broken").count() == 0, where  # the corpus's journal verifies
        assert unsaid_identifiers(page) == [], where
        if href not in skip_axe:
            page.evaluate(axe_script)
            assert page.evaluate(AXE) == [], where
    with page.expect_navigation():
        page.click("button[data-logout]")
    assert page.url.endswith("/login")
    page.goto(floor)
    assert page.url.endswith("/login")  # logged out: every page asks for the login again
    return links


def test_every_page_in_words_accessible_with_its_navigation(tmp_path, monkeypatch, browser):
    from axe_playwright_python.sync_playwright import Axe

    play_corpus(GAME, tmp_path)  # the daemon's journal: a win, an irregularity, a void, a halt, a device down
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "table.journal"))
    axe = Axe().axe_script
    with web_service(SimpleNamespace(config_path=config_file(GAME, tmp_path)), tmp_path, monkeypatch) as w:
        page = browser.new_page()
        page.goto(w.floor + "login")
        page.evaluate(axe)
        assert page.evaluate(AXE) == [] and unsaid_identifiers(page) == []
        seen = _visit(page, w.floor, SUPERVISOR, "supervisor", axe)
        login(page, w.floor)
        page.goto(w.floor + "irregularities")  # the corpus's trouble is on it, each kind in words
        kinds = set(page.eval_on_selector_all("tr[data-kind]", "els => els.map(e => e.dataset.kind)"))
        assert {"voided", "halted", "device_fault"} & kinds, kinds
        assert "/accounts" in seen  # a supervisor unlocks accounts (P107); an auditor reads the access log
        assert _visit(page, w.floor, AUDITOR, "auditor", axe, skip_axe=tuple(seen)) == [
            *(p for p in seen if p != "/accounts"), "/audit"]
        page.close()


# -- damaged journals, in process ------------------------------------------------------------------


def journal_of(path: Path, table: str = TABLE) -> list[str]:
    """A journal labelled for ``table`` with two rounds in each of three sealed segments and one in the open file."""
    rids = []
    with Journal(path) as j:
        j.claim(table, GAME)  # labelled as the daemon labels a new journal (P90)
    with daemons(path) as j:
        j.record(ev.MeterSet(meters={"major": Decimal("1000.00")}))
        for n in range(4):
            for i in range(2 if n < 3 else 1):
                rids.append(f"r{n}-{i}")
                play(j, rids[-1])
            if n < 3:
                segs.roll_over(j)
    return rids


async def _get_all(path: Path, tmp: Path, paths: list[str]) -> dict[str, tuple[int, str]]:
    from controller.config.table import load_config
    from controller.paths import heartbeat_file, status_file
    from web.app import floor_app
    from web.audit import Audit, audit_dir
    from web.auth import Account
    from web.feed import StatusFeed

    users = tmp / "users"  # the auditor's account: a login of no account is ended at once (web/guard.py)
    floor_accounts(users)
    cfg = load_config(UTH).model_copy(update={"journal": path})
    cfg = cfg.model_copy(update={"web": cfg.web.model_copy(update={"users": users})})
    audit = Audit(audit_dir(path))
    app = floor_app(cfg, StatusFeed(status_file(path), heartbeat_file(path)), audit)
    token = app[keys.SESSIONS].start(Account(AUDITOR, "auditor", "-"))
    out = {}
    async with TestClient(TestServer(app)) as client:
        for p in paths:
            r = await client.get(p, cookies={"floor_session": token}, allow_redirects=False)
            out[p] = (r.status, await r.text())
    audit.close()
    return out


def _damage(path: Path, how: str) -> tuple[str, str]:
    """Damage the journal at ``path``; (the file a page must name, what is wrong)."""
    first, second, third = segs.sealed(path)
    if how == "row_cut":  # the open file's last wager's data cut short
        with sqlite3.connect(path) as db:
            seq = db.execute("SELECT MAX(seq) FROM events WHERE kind = 'wager'").fetchone()[0]
            db.execute("UPDATE events SET data = substr(data, 1, length(data) - 3) WHERE seq = ?", (seq,))
        return OPEN, "unreadable"
    if how == "byte_flipped":
        data = bytearray(second.path.read_bytes())
        data[len(data) // 2] ^= 0x40
        second.path.write_bytes(bytes(data))
        return second.path.name, ""
    if how == "segment_deleted":
        second.path.unlink()
        return third.path.name, "deleted"
    return OPEN, "foreign"


@pytest.mark.parametrize("how", ["row_cut", "byte_flipped", "segment_deleted", "another_tables"])
def test_no_page_answers_500_on_a_damaged_journal_and_each_names_what_is_wrong(tmp_path, how):
    path = tmp_path / "t.journal"
    rids = journal_of(path, "uth-09" if how == "another_tables" else TABLE)
    file, what = _damage(path, how)
    pages = ["/", "/rounds", f"/rounds/{rids[0]}", f"/rounds/{rids[-1]}", "/progressive", "/irregularities", "/audit",
             "/protection"]
    got = asyncio.run(_get_all(path, tmp_path, pages))
    for p, (status, text) in got.items():
        assert status in (200, 503, 404), (p, status)  # 404: a round the damaged journal no longer holds
        assert "Traceback" not in text, p
        if status != 404:
            found = re.search(r'<p id="(?:verify|journal-broken)"[^>]*>', text)
            assert found is not None, (p, text[:2000])
            tag = found[0]
            assert 'data-ok="no"' in tag and f'data-file="{file}"' in tag, (p, tag)
            assert what == "" or f'data-what="{what}"' in tag, (p, tag)
            assert re.search(r'data-seq="\d+"', tag), (p, tag)  # the first seq that does not check
    assert got["/"][0] == 200  # the glance page shows the table's state with the verdict


def test_a_whole_journal_verifies_on_every_page_without_a_banner(tmp_path):
    path = tmp_path / "t.journal"
    rids = journal_of(path)
    got = asyncio.run(_get_all(path, tmp_path, ["/", f"/rounds/{rids[0]}", "/progressive", "/irregularities"]))
    assert {p: s for p, (s, _) in got.items()} == dict.fromkeys(got, 200)
    assert all("journal-broken" not in text for _, text in got.values())
    assert 'data-ok="yes"' in got["/"][1]


def test_the_verification_rehashes_only_new_rows_and_a_changed_sealed_file(tmp_path):
    path = tmp_path / "t.journal"
    journal_of(path)
    check = JournalCheck(path, TABLE, GAME)
    first = check.check()
    assert first.ok and check.whole_checks == 3 and check.rehashed_after == 0
    with daemons(path) as j:
        play(j, "later")
    again = check.check()
    assert again.ok and again.events > first.events
    assert check.whole_checks == 3 and check.rehashed_after == first.events  # only the rows after the last check
    sealed = segs.sealed(path)[1].path
    os.utime(sealed, ns=(sealed.stat().st_atime_ns, sealed.stat().st_mtime_ns + 1_000_000))
    assert check.check().ok and check.whole_checks == 4  # that file verified whole again, the others not

"""The floor's pages in a real browser, and a progressive win held on the dealer's screen until validated.

High Card Flush with a scripted shoe: seat 1 holds a seven-card straight flush (HCF ch.12 §E(1)(d)(i)).
The dealer's screen shows the win "awaiting supervisor" until the floor supervisor's key validates it;
then a supervisor logs in, recalls the hand (cards drawn, the journal's settlement beside a fresh
re-settlement), finds the hit in the progressive history with who validated it and each meter's chart.
A wrong password is refused; every login and hand-history page is in the audit journal with who.
"""

from __future__ import annotations

from pathlib import Path

from controller.journal.store import Journal
from daemon_harness import phase, table_in_process
from test_progressive_each_game import CASES, deal_order
from test_web_dealer import check_screen
from unsaid import unsaid_identifiers
from web import audit
from web.auth import Account, Sessions, check_password, hash_password
from web_harness import AUDITOR, PASSWORD, SUPERVISOR, login, screenshot, shown, web_service

GAME = "high_card_flush"


def test_progressive_win_held_then_the_floor_recalls_it(tmp_path, monkeypatch, browser):
    procedure, wanted, line, meter = CASES[GAME]
    deck = deal_order(GAME, procedure, wanted)
    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        t.start_daemon()
        with web_service(t, tmp_path, monkeypatch) as w:
            dealer = browser.new_page()
            dealer.goto(w.dealer)
            t.open_table()
            s = t.until(lambda s: phase(s) == "wagers", "the first round")
            round_id = s["round"]["round_id"]
            t.controls["shoe"]("load", cards=deck)
            low = int(t.cfg.limits(t.cfg.game_rules.antes[0])[0] * 100)
            t.controls["progressive"]("set_bets", bets={"1": {str(i): low for i in range(len(t.cfg.game_rules.antes))}})
            assert t.controls["progressive"]("wager", seat=1)["accepted"]
            t.press("no_more_bets")
            t.press("confirm")
            s = t.until(lambda s: phase(s) in ("decisions", "settled"), "the deal")
            while phase(s) == "decisions":
                to_act = s["round"]["to_act"]
                s = t.press(f"bet_{min(to_act['multiples'])}x" if not to_act["check"] else "check")
                s = t.until(
                    lambda s, before=to_act: phase(s) != "decisions" or s["round"]["to_act"] != before,
                    "the next decision",
                )
            assert phase(s) == "settled" and s["validation"]
            held = s["validation"]  # the alert's amounts are the amounts the dealer pays (round.chips)
            assert [s["round"]["chips"][str(h["seat"])]["wagers"][h["wager"]]["amount"] for h in held] == [
                h["amount"] for h in held]
            seen = shown(dealer, s)
            check_screen(dealer, seen)  # the hit listed awaiting supervisor, by its index
            assert dealer.eval_on_selector_all("[data-hit]", "els => els.length") == len(s["validation"])
            screenshot(dealer, "dealer-progressive-awaiting-supervisor")
            s = t.dealer.with_key(s, "confirm")  # the floor supervisor validates
            check_screen(dealer, shown(dealer, s))
            assert dealer.eval_on_selector_all("[data-hit]", "els => els.length") == 0
            s = t.press("confirm")  # paid and collected: the round closes
            dealer.close()

            floor = browser.new_page()
            login(floor, w.floor, SUPERVISOR, "not the password")
            assert floor.is_visible("#refused") and "/login" in floor.url
            login(floor, w.floor)
            assert floor.is_visible("#verify.ok")  # the journal's hash chain verified
            assert unsaid_identifiers(floor) == []  # every code in words (web/words.py)
            screenshot(floor, "floor-table")
            floor.goto(w.floor + "rounds")
            assert unsaid_identifiers(floor) == []
            with floor.expect_navigation():
                floor.click(f'a[href="/rounds/{round_id}"]')
            assert floor.is_visible("#resettle.ok")  # the journal and the rules engine agree
            paid = floor.eval_on_selector_all(
                "#chips tr", "rows => rows.slice(1).map(r => [...r.cells].map(c => c.textContent))")
            assert [r[3] for r in paid if r[0] == "1" and r[1] == "progressive"] == [h["amount"] for h in held]
            drawn = floor.eval_on_selector_all(".card svg[data-text]", "els => els.map(e => e.dataset.text)")
            assert set(wanted.values()) <= set(drawn)  # every card of the round drawn
            screenshot(floor, "floor-recall")
            floor.goto(w.floor + "progressive")
            hit = floor.eval_on_selector_all(
                "#hits tr", "rows => rows.slice(1).map(r => [...r.cells].map(c => c.dataset.code || c.textContent))"
            )
            assert [round_id, "supervisor 4711"] == hit[0][5:7] and hit[0][1] == meter
            points = floor.eval_on_selector(
                f'svg.chart[data-meter="{meter}"] polyline', "e => e.getAttribute('points')"
            )
            assert len(points.split()) >= 3  # installed, the round's contribution, the payout
            assert unsaid_identifiers(floor) == []
            screenshot(floor, "floor-progressive")
            floor.close()
            auditor = browser.new_page()
            login(auditor, w.floor, AUDITOR)
            auditor.goto(w.floor + "audit")
            assert auditor.is_visible("table")
            auditor.close()
    with Journal(sorted(audit.audit_dir(Path(t.cfg.journal)).glob("audit-*.journal"))[-1]) as j:
        j.verify()
        seen = [(e.kind, e.who, e.data.get("round")) for e in j.events(None)]
    assert (audit.LOGIN_REFUSED, SUPERVISOR, None) in seen
    assert (audit.LOGIN, SUPERVISOR, None) in seen and (audit.LOGIN, AUDITOR, None) in seen
    assert (audit.HAND_HISTORY, SUPERVISOR, round_id) in seen


def test_passwords_are_scrypt_hashed_and_logins_expire():
    stored = hash_password(PASSWORD)
    assert stored.startswith("scrypt$") and PASSWORD not in stored
    assert stored != hash_password(PASSWORD)  # salted
    assert check_password(PASSWORD, stored) and not check_password(PASSWORD + "x", stored)
    now = [1000.0]
    sessions = Sessions(minutes=30, clock=lambda: now[0])
    token = sessions.start(Account("sam", "supervisor", stored))
    now[0] += 30 * 60 - 1
    assert sessions.get(token).user == "sam"
    now[0] += 1
    assert sessions.get(token) is None  # expired: the next page asks for the password again


def test_web_settings_out_of_range_or_unknown_stop_start_up(monkeypatch):
    from controller.config.table import ConfigError, load_config
    from daemon_harness import ROOT

    for name in ("PANEL", "SHUFFLER", "SHOE", "PROGRESSIVE"):  # the example table's devices, wherever
        monkeypatch.setenv(
            f"TABLE_DEVICES__{name}",
            "null"
            if name == "SHOE"
            else {"PANEL": "tcp://127.0.0.1:1", "PROGRESSIVE": "tcp://127.0.0.1:2"}.get(name, "socket://127.0.0.1:3"),
        )
    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    assert (cfg.web.dealer_host, cfg.web.session_minutes) == ("127.0.0.1", 30)  # the dealer's screen: this machine
    for key, value in (("DEALER_PORT", "70000"), ("SESSION_MINUTES", "0"), ("THEME", "dark")):
        monkeypatch.setenv(f"TABLE_WEB__{key}", value)
        try:
            load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
        except ConfigError as exc:
            assert f"web.{key.lower()}" in [p.split(" ")[0] for p in exc.problems]  # the key named
        else:
            raise AssertionError(f"TABLE_WEB__{key}={value} was accepted")
        monkeypatch.delenv(f"TABLE_WEB__{key}")


def test_the_web_service_reads_the_journal_without_writing_it(tmp_path):
    import sqlite3

    import pytest

    from controller.journal.store import JournalError

    path = tmp_path / "t.journal"
    with Journal(path) as j:
        j.append(None, "meter_set", {"meters": {"major": "10000.00"}})
    before = path.read_bytes()
    with Journal.read_only(path) as ro:
        assert [e.kind for e in ro.events(None)] == ["meter_set"] and ro.verify() == 1
        with pytest.raises((sqlite3.OperationalError, JournalError)):
            ro.append(None, "meter_set", {"meters": {"major": "1.00"}})
    assert path.read_bytes() == before
    with pytest.raises(JournalError):
        Journal.read_only(tmp_path / "none.journal")
    assert not (tmp_path / "none.journal").exists()  # nothing created

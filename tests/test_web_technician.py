"""The technician's page (web/technician.py, issue 26): the devices' health and last faults, the configuration in
use (its file, its SHA-256 then and now, the file checked again, its values with the secrets left out), in words and
accessible; no hand history for the technician.  ``tablectl web`` serves a small journal with a device's fault and
a status file written here: no daemon is needed to draw it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

from controller import events as ev
from controller.journal.store import Journal
from controller.paths import status_file
from test_dealer_screen import AXE
from unsaid import unsaid_identifiers
from web import auth
from web.technician import masked
from web_harness import PASSWORD, login, screenshot, web_service

ROOT = Path(__file__).resolve().parent.parent
TECHNICIAN = "tess"
GAME = "ultimate_texas_holdem"


def test_masked_hides_an_address_password_only():
    assert masked("postgresql://pit:hunter2@db.example/pit") == "postgresql://pit:•••@db.example/pit"
    assert masked("tcp://127.0.0.1:7103") == "tcp://127.0.0.1:7103"
    assert masked("socket://127.0.0.1:7101") == "socket://127.0.0.1:7101"


def test_the_technicians_page_shows_devices_and_the_configuration(tmp_path_factory, monkeypatch, browser):
    from axe_playwright_python.sync_playwright import Axe

    where = tmp_path_factory.mktemp("tech")  # no code-like name in the paths the page shows
    config = where / "table.toml"
    config.write_text((ROOT / "config" / f"{GAME}.toml").read_text())
    journal = where / "table.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(journal))
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK", "postgresql://link:hunter2@127.0.0.1:1/link")
    monkeypatch.setenv("TABLE_PROGRESSIVE__LINK_ID", "bank")
    with Journal(journal) as j:
        j.claim("uth-01", GAME)
        j.record(ev.DeviceFault(device="shuffler", fault="jam", reason="the shuffle jammed"))
        j.record(ev.DeviceFaultEnded(device="shuffler", fault="jam", count=2))
        j.record(ev.DeviceFault(device="panel", fault="no_answer", reason="no answer"))
    status_file(journal).write_text(json.dumps({
        "table": "uth-01", "game": GAME, "state": "open", "devices": {"shuffler": "online", "panel": "offline",
                                                                     "progressive": "degraded"},
        "out_of_order": ["panel"]}))
    with web_service(SimpleNamespace(config_path=config), where, monkeypatch) as w:
        users = where / "users"  # an account added takes effect at once (web/auth.py)
        with users.open("a") as f:
            f.write(auth.Account(TECHNICIAN, "technician", auth.hash_password(PASSWORD, n=2**10)).line())
        page = browser.new_page()
        login(page, w.floor, TECHNICIAN, PASSWORD)
        links = page.eval_on_selector_all("nav a[data-page]", "els => els.map(e => e.dataset.page)")
        assert links == ["/", "/technician"]  # no hand history
        with page.expect_navigation():
            page.click('nav a[data-page="/technician"]')
        conf = page.eval_on_selector("#configuration", "e => ({...e.dataset})")
        digest = hashlib.sha256(config.read_bytes()).hexdigest()
        assert conf == {"file": str(config), "sha256": digest, "sha256Now": digest, "changed": "no", "check": "ok"}
        devices = {r["device"]: r for r in page.eval_on_selector_all("#devices tr[data-device]",
                                                                     "rs => rs.map(r => ({...r.dataset}))")}
        assert {d: (r["health"], r["outOfOrder"], r["lastFault"]) for d, r in devices.items()} == {
            "shuffler": ("online", "no", "jam"), "panel": ("offline", "yes", "no_answer"),
            "progressive": ("degraded", "no", "")}
        keys = page.eval_on_selector_all("tr[data-key]", "rs => rs.map(r => r.dataset.key)")
        assert {"table.game", "web.floor_port", "dealing.procedure", "progressive.link", "supervisors.ids"} <= set(keys)
        text = page.content()
        assert "hunter2" not in text and "scrypt$" not in text  # the secrets left out
        assert unsaid_identifiers(page) == []
        page.evaluate(Axe().axe_script)
        assert page.evaluate(AXE) == []
        screenshot(page, "floor-technician")
        assert page.goto(w.floor + "rounds").status == 403  # never a hand
        config.write_text(config.read_text().replace("seats = 6", "seats = 9"))  # changed, and invalid now
        page.goto(w.floor + "technician")
        conf = page.eval_on_selector("#configuration", "e => ({...e.dataset})")
        assert (conf["changed"], conf["check"], conf["sha256"]) == ("yes", "problems", digest)
        assert page.locator("#problems li").count() >= 1
        page.close()

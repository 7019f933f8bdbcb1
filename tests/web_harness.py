"""The web service beside a simulated table, and a real browser (Debian's Chromium) to look at it.

    with simulated_table(game, tmp_path, monkeypatch) as t, web_service(t, tmp_path, monkeypatch) as w:
        page = browser.new_page(); page.goto(w.dealer) ...

``tablectl web`` runs in its own process, as systemd would run it, with free ports it picks itself
(the addresses come on its first line of output).  Playwright drives /usr/bin/chromium: Playwright's
own browser download is not used (nor reachable on a table PC).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from daemon_harness import ROOT, SimulatedTable
from web.auth import add_user

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SUPERVISOR, AUDITOR, PASSWORD = "sam", "alex", "correct horse battery"
# WEB_SCREENSHOTS=docs/screens: the browser tests also save a screenshot of each screen there (for the README)
SCREENS = os.environ.get("WEB_SCREENSHOTS")


@dataclass
class WebService:
    dealer: str
    floor: str
    proc: subprocess.Popen


@contextlib.contextmanager
def web_service(t: SimulatedTable, state_dir: Path, monkeypatch, timeout: float = 30.0) -> Iterator[WebService]:
    users = state_dir / "users"
    add_user(users, SUPERVISOR, "supervisor", PASSWORD)
    add_user(users, AUDITOR, "auditor", PASSWORD)
    monkeypatch.setenv("TABLE_WEB__DEALER_PORT", "0")
    monkeypatch.setenv("TABLE_WEB__FLOOR_PORT", "0")
    monkeypatch.setenv("TABLE_WEB__USERS", str(users))
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "web", "--config", str(t.config_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
        text=True,
    )
    try:
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise AssertionError(f"tablectl web printed no address in {timeout:.0f} s")
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"tablectl web stopped (exit {proc.wait()}) before it served")
        urls = json.loads(line)
        yield WebService(urls["dealer"], urls["floor"], proc)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def launch(playwright):
    """Debian's Chromium, headless, with a fresh profile of its own."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 800}
    )
    return context, profile


@pytest.fixture
def browser() -> Iterator[Any]:
    """Chromium with a fresh user-data dir, for one test: Playwright's sync API keeps an event loop running
    in its thread while it is open, and a later test's asyncio.run() in the same process would refuse."""
    with chromium() as context:
        yield context


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Chromium with a fresh user-data dir, open until the block ends (about 2 s of CPU to start: a module
    none of whose tests runs an event loop in the test's thread may share one, see test_web_dealer)."""
    if not Path(CHROMIUM).exists():
        raise AssertionError(
            f"{CHROMIUM} is missing: `make setup` installs Debian's chromium when run as root "
            "(apt-get install chromium)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context, profile = launch(p)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def shown(page, s: dict, timeout: float = 10_000) -> dict:
    """Wait until the dealer's screen shows the status ``s`` or a later one (its ``updated`` stamp is on
    the page); return the status the page shows."""
    page.wait_for_function("u => Number(document.body.dataset.shown) >= u", arg=s["updated"], timeout=timeout)
    return page.evaluate("window.__status")


def screenshot(page, name: str) -> None:
    if SCREENS:
        Path(SCREENS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENS) / f"{name}.png"))


def login(page, floor: str, user: str = SUPERVISOR, password: str = PASSWORD):
    page.goto(floor + "login")
    page.fill("input[name=user]", user)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("button[type=submit]")
    return page

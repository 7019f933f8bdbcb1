"""The web service beside a simulated table, and a real browser (Debian's Chromium) to look at it.

    with simulated_table(game, tmp_path, monkeypatch) as t, web_service(t, tmp_path, monkeypatch) as w:
        page = browser.new_page(); page.goto(w.dealer) ...

``tablectl web`` runs in its own process, as systemd would run it, with free ports it picks itself
(the addresses come on its first line of output).  Playwright drives /usr/bin/chromium: Playwright's
own browser download is not used (nor reachable on a table PC).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from daemon_harness import ROOT, SimulatedTable
from web.auth import Account, hash_password

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Playwright, ViewportSize

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
    proc: subprocess.Popen[str]


_accounts: str | None = None  # the users file floor_accounts() made first in this process
# scrypt's cost for the floor's two accounts: their hash is not what the browser tests measure.  Every login
# checks the password at the stored hash's cost, in the service's process (web/auth.py N = 2**15: about 0.15 s
# of CPU a login, by design); the product's cost is tested by test_web_floor and test_web_security.
CHEAP = 2**10


def floor_accounts(users: Path) -> None:
    """The users file of the floor's two accounts (SUPERVISOR, AUDITOR with PASSWORD), hashed at the cost
    ``CHEAP``, private as ``tablectl web --add-user`` makes it; made once in this process, then copied."""
    global _accounts
    if _accounts is None:
        _accounts = "".join(Account(name, role, hash_password(PASSWORD, n=CHEAP)).line()
                            for name, role in ((SUPERVISOR, "supervisor"), (AUDITOR, "auditor")))
    with os.fdopen(os.open(users, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600), "w") as f:
        f.write(_accounts)


@contextlib.contextmanager
def web_service(t: SimulatedTable, state_dir: Path, monkeypatch: pytest.MonkeyPatch,
                timeout: float = 30.0) -> Iterator[WebService]:
    users = state_dir / "users"
    floor_accounts(users)
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
        urls = addresses(proc, "tablectl web", timeout)
        yield WebService(urls["dealer"], urls["floor"], proc)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def addresses(proc: subprocess.Popen[str], what: str, timeout: float) -> dict[str, str]:
    """The one JSON line a service (``tablectl web``, ``tablectl pit``) prints once it listens: its addresses."""
    assert proc.stdout is not None  # stdout=PIPE
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    if not sel.select(timeout):
        raise AssertionError(f"{what} printed no address in {timeout:.0f} s")
    line = proc.stdout.readline()
    if not line:
        raise AssertionError(f"{what} stopped (exit {proc.wait()}) before it served")
    found: dict[str, str] = json.loads(line)
    return found


VIEWPORT: ViewportSize = {"width": 1280, "height": 800}


def launch(playwright: Playwright) -> tuple[BrowserContext, str]:
    """Debian's Chromium, headless, with a fresh profile of its own."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, viewport=VIEWPORT
    )
    return context, profile


class _Chromium:
    """One Chromium and one Playwright driver for this pytest process (each xdist worker has its own),
    started by the first test that asks for a browser and stopped when the session ends: starting them
    costs about 2.5 s of CPU, a browser context per test next to nothing.

    Playwright's sync API runs its event loop in this thread (in a greenlet) and marks it the thread's
    running loop from its start to its stop; a test's asyncio.run() would then refuse to start.  So the
    mark is set only while a test holds a browser context (``resume``) and cleared after (``park``): in
    between the loop is not run at all (nothing is asked of the driver), and Playwright's own calls set
    the mark again on each return (playwright/_impl/_greenlets.py, wait_for_future)."""

    def __init__(self) -> None:
        if not Path(CHROMIUM).exists():
            raise AssertionError(
                f"{CHROMIUM} is missing: `make setup` installs Debian's chromium when run as root "
                "(apt-get install chromium)"
            )
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        try:
            self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        except BaseException:
            self.playwright.stop()
            raise
        self.loop = asyncio._get_running_loop()
        assert self.loop is not None, "Playwright's sync API no longer marks its loop running between calls"

    def resume(self) -> None:
        running = asyncio._get_running_loop()
        assert running in (None, self.loop), "a browser test must not run inside an event loop of its own"
        asyncio._set_running_loop(self.loop)

    def park(self) -> None:
        if asyncio._get_running_loop() is self.loop:
            asyncio._set_running_loop(None)

    def stop(self) -> None:
        self.resume()
        try:
            self.browser.close()
        finally:
            self.playwright.stop()  # its loop stops, and with it the mark


_chromium: _Chromium | None = None


def _shared_chromium(config: pytest.Config) -> _Chromium:
    global _chromium
    if _chromium is not None:
        _chromium.resume()
        if _chromium.browser.is_connected():
            return _chromium
        _stop_chromium()  # it went away (a crash): a new one for this test
    _chromium = _Chromium()
    config.add_cleanup(_stop_chromium)  # at the end of the session (of this xdist worker)
    return _chromium


def _stop_chromium() -> None:
    global _chromium
    if _chromium is not None:
        chromium, _chromium = _chromium, None
        chromium.stop()


@pytest.fixture
def browser(request: pytest.FixtureRequest) -> Iterator[BrowserContext]:
    """A fresh browser context (its own cookies, storage and cache, nothing kept from another test) in
    this process's one Chromium (``_Chromium``): ``browser.new_page()`` opens a page in it."""
    chromium = _shared_chromium(request.config)
    try:
        context = chromium.browser.new_context(viewport=VIEWPORT)
        try:
            yield context
        finally:
            context.close()
    finally:
        chromium.park()


def shown(page: Page, s: dict[str, Any], timeout: float = 10_000) -> dict[str, Any]:
    """Wait until the dealer's screen shows the status ``s`` or a later one (its ``updated`` stamp is on
    the page); return the status the page shows."""
    page.wait_for_function("u => Number(document.body.dataset.shown) >= u", arg=s["updated"], timeout=timeout)
    status: dict[str, Any] = page.evaluate("window.__status")
    return status


def screenshot(page: Page, name: str) -> None:
    if SCREENS:
        Path(SCREENS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENS) / f"{name}.png"))


def form_token(html: str) -> str:
    """The CSRF token of a page's form (its hidden ``csrf`` field, web/guard.py): a POST without it is refused."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has no form token"
    return found[1]


def login(page: Page, floor: str, user: str = SUPERVISOR, password: str = PASSWORD) -> Page:
    """Log in through the login form (its hidden token posted with it, as a browser posts it)."""
    page.goto(floor + "login")
    page.fill("input[name=user]", user)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("button[type=submit]")
    return page

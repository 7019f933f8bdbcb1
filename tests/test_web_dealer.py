"""The dealer's screen in a real browser: a whole round of each game against the simulated table.

At every status the daemon publishes, the page (Debian's Chromium, driven by Playwright) must show it:
the phase, the seats' wagers and lit progressive seats, each card as the rules reveal it (a face-down
card while hidden: the dealer's hand until UTH ch.11 §G's reveal, players' hands until settlement), and
once settled the table the dealer pays from, seat by seat in settlement order (R1: the highest seat first),
each wager's pay or take and amount, and a progressive win held "awaiting supervisor".
"""

from __future__ import annotations

import os
from decimal import Decimal

import pytest

from daemon_harness import phase, table_in_process
from games.registry import GAMES as REGISTRY
from web_harness import screenshot, shown, web_service

# a shuffler's game and a shoe's in make test; every game in make soak (WEB_DEALER_GAMES=all): the screen of every
# game at every phase is the layout test's (tests/test_dealer_screen.py), on the daemon's own statuses
GAMES = list(REGISTRY) if os.environ.get("WEB_DEALER_GAMES") == "all" else ["ultimate_texas_holdem", "high_card_flush"]
REVEALED = {"reveal", "settled", "complete"}


SCREEN = """() => {
  const cards = (sel) => [...document.querySelectorAll(sel + " [data-card]")].map(e => e.dataset.card);
  const seats = {};
  for (const e of document.querySelectorAll("#seats thead .seat[data-seat]"))
    seats[e.dataset.seat] = {cards: cards('#seats thead .seat[data-seat="' + e.dataset.seat + '"]'),
                             lit: e.classList.contains("progressive")};
  return {
    phase: document.body.dataset.phase, dealer: cards("#dealer"), seats,
    settlement: document.querySelectorAll("#seats tfoot td.total").length > 0,
    rows: [...document.querySelectorAll("#seats td.pw[data-wager]")]
      .sort((a, b) => Number(a.dataset.order) - Number(b.dataset.order)).map(
      e => [Number(e.dataset.seat), e.dataset.wager, e.className.replace("pw ", "").replace(" won", ""),
            e.querySelector(".amt").textContent]),
    totals: Object.fromEntries([...document.querySelectorAll("#seats tfoot td.total")].map(
      e => [e.dataset.seat, e.dataset.total])),
    pending: [...document.querySelectorAll("[data-hit]")].map(e => Number(e.dataset.hit)),
    devices: [...document.querySelectorAll("#devices .device[data-device]")].map(e => e.dataset.device),
  };
}"""


def check_screen(page, s: dict) -> None:
    """The page against the status it shows: structured fields (data-* attributes, card texts), not words."""
    r = s.get("round") or {}
    screen = page.evaluate(SCREEN)
    assert screen["phase"] == (r.get("phase") or s["state"])
    if isinstance(r.get("dealer"), list):
        assert r["phase"] in REVEALED and screen["dealer"] == r["dealer"]
    else:  # hidden: as many backs as the dealer holds, no face
        assert screen["dealer"] == ["back"] * (r.get("dealer") or 0)
    for seat, view in (r.get("seats") or {}).items():
        box = screen["seats"][seat]
        assert box["cards"] == (view["cards"] if isinstance(view["cards"], list) else ["back"] * view["cards"]), seat
        assert box["lit"] == ("progressive" in view["wagers"]), seat
    rows = screen["rows"]
    if r.get("settlement"):
        assert screen["settlement"]
        if r.get("payment_order"):  # the dealer's order of payment, as journaled (P65)
            assert [(a, b) for a, b, _, _ in rows] == [
                (p["seat"], w) for p in r["payment_order"] for w in p["wagers"] if w in r["settlement"][str(p["seat"])]
            ]
        else:
            seats = [row[0] for row in rows]
            assert seats == sorted(seats, reverse=True)  # R1: counterclockwise from the dealer's right
        chips = r.get("chips")  # what the dealer pays, takes or returns (round.chips), when the daemon says it
        want = [
            (int(seat), w, v["net"])
            for seat in sorted(r["settlement"], key=int, reverse=True)
            for w, v in r["settlement"][seat].items()
        ]
        nets = {(a, b): net for a, b, net in want}
        assert sorted((a, b) for a, b, _, _ in rows) == sorted(nets)  # every wager of every seat, once
        for seat, wager, what, amount in rows:
            shown_amount = Decimal(amount.lstrip("$").replace(",", "")) if amount else Decimal(0)
            if chips:
                c = chips[str(seat)]["wagers"][wager]
                assert what == c["do"], (seat, wager)
                assert shown_amount == (Decimal(c["amount"]) if c["do"] != "none" else 0), (seat, wager)
                continue
            net = Decimal(nets[seat, wager])
            assert what == ("pay" if net > 0 else "take" if net < 0 else what)
            if net:
                assert shown_amount == abs(net)
        for seat, total in screen["totals"].items():  # each seat's balance: paid less taken
            want_total = Decimal(chips[seat]["balance"]) if chips else sum(
                (Decimal(v["net"]) for v in r["settlement"][seat].values()), Decimal(0))
            assert Decimal(total) == want_total, seat
        assert sorted(screen["totals"], key=int) == sorted(r["settlement"], key=int)
    else:
        assert not screen["settlement"]
    # each held win once: on its alarm's line (or an alert of its own without one)
    assert sorted(screen["pending"]) == sorted(h["hit"] for h in s.get("validation") or [])
    # every device not online named (ISA-101: the normal state in two words, "All online")
    trouble = sorted(d for d, health in s["devices"].items() if health != "online")
    assert sorted(screen["devices"]) == (trouble or ["all"])


@pytest.mark.parametrize("game", GAMES)
def test_a_round_on_the_dealers_screen(game, tmp_path, monkeypatch, browser):
    with table_in_process(game, tmp_path, monkeypatch, seed=3) as t:
        t.start_daemon()  # the daemon and the web service start side by side
        with web_service(t, tmp_path, monkeypatch) as w:
            watch_a_round(t, w, browser, game)


def watch_a_round(t, w, browser, game: str) -> None:
    page = browser.new_page()
    try:
        page.goto(w.dealer)
        t.open_table()
        check_screen(page, shown(page, t.status()))
        phases = []
        while not t.dealer.closed:
            t.dealer.step()
            seen = shown(page, t.status())
            check_screen(page, seen)
            p = phase(seen) or seen["state"]
            if p not in phases:  # a screenshot of each phase (WEB_SCREENSHOTS)
                phases.append(p)
                screenshot(page, f"dealer-{game}-{p}")
        # the whole round was watched: bets, the deal, (decisions,) the reveal or settlement
        assert {"wagers", "settled"} <= set(phases), phases
    finally:
        page.close()

"""The demo's (and the tests') dealer: it draws the cards the daemon asks for once per request; its pace.

The daemon republishes its status while the cards are on their way (the heartbeat, a device's health);
a dealer that drew again for every new status drew a second hand's worth, and the stub count then voided
the round (UTH ch.8 §E-§G, HCF ch.8 §G-§J): seen under load in the suite.
"""

from __future__ import annotations

import json
import random
import time

from controller.config.table import load_config
from daemon_harness import ROOT
from demo.dealer import TABLE_PACE, Dealer
from games.registry import GAMES


def test_a_republished_request_is_not_drawn_again_and_a_new_one_is(tmp_path):
    cfg = load_config(ROOT / "config" / "high_card_flush.toml")
    draws: list[int] = []
    controls = {"panel": lambda *a, **k: {}, "shoe": lambda cmd, n: draws.append(n) or {"drawn": n}}
    path = tmp_path / "table.status.json"
    dealer = Dealer(cfg, path, controls, random.Random(1))

    def status(updated: float, request: str | None, expecting: int) -> dict:
        s = {"updated": updated, "card_request": request, "expecting_cards": expecting}
        path.write_text(json.dumps(s))
        return s

    dealer.draw_requested(status(1.0, "a-1", 7))
    dealer.draw_requested(status(2.0, "a-1", 7))  # the heartbeat: the same request, cards still in flight
    dealer.draw_requested(status(3.0, "a-1", 4))  # three taken, four in flight
    assert draws == [7]
    dealer.draw_requested(status(4.0, "a-2", 7))  # the next request (the dealer's cards)
    dealer.draw_requested(status(5.0, "b-1", 7))  # a daemon restarted: its requests are new ones
    assert draws == [7, 7, 7]


def test_the_table_pace_fits_the_longest_round_of_every_game_in_its_time():
    """``make run``'s pace (demo.dealer.TABLE_PACE): a round every 10-20 s.  The most actions a round of
    each game can take (six seats, each betting and deciding on every street, no more bets, the count, a
    validation) at the shortest wait, with the payment, fit in the longest round; a round's time is
    shared among the actions left (a slow deal leaves the decisions less), within the bounds."""
    pace = TABLE_PACE
    low, high = pace.action_s
    for game in GAMES.values():
        most = 6 * (1 + len(game.streets)) + 3
        assert most * low + pace.pay_s <= pace.round_s[1], game.name
    assert pace.wait(pace.pay_s + 10.0, 10) == 1.0  # ten seconds left before the payment, ten actions
    assert pace.wait(pace.pay_s + 10.0, 1) == high  # few actions: the rest is waited at the payment
    assert pace.wait(0.0, 10) == low  # late: every action at its quickest


def test_the_dealer_without_a_pace_waits_for_nothing(tmp_path):
    """The tests' and the benchmarks' dealer (the default) never sleeps between its actions."""
    cfg = load_config(ROOT / "config" / "high_card_flush.toml")
    dealer = Dealer(cfg, tmp_path / "table.status.json", {"panel": lambda *a, **k: {}}, random.Random(1))
    assert dealer.pace is None
    started = time.monotonic()
    for _ in range(100):
        dealer.pause()
    dealer.pause_for_payment()
    assert time.monotonic() - started < 0.5

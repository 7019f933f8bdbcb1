"""The demo's (and the tests') dealer draws the cards the daemon asks for once per request.

The daemon republishes its status while the cards are on their way (the heartbeat, a device's health);
a dealer that drew again for every new status drew a second hand's worth, and the stub count then voided
the round (UTH ch.8 §E-§G, HCF ch.8 §G-§J): seen under load in the suite.
"""

from __future__ import annotations

import json
import random

from controller.config.table import load_config
from daemon_harness import ROOT
from demo.dealer import Dealer


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

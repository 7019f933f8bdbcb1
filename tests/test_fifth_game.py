"""A fifth game, registered for this test only (tests/fifth_game.py), played through the daemon to settlement.

What a new game takes is its module and its registration (docs/new-game.md): no file of the controller
knows One Card High, yet the daemon opens the table, takes the Antes, deals one card to each player and
one to the dealer from the shoe, asks each player's decision, reveals the dealer's card and settles
each wager 1 to 1 against it, as the game's own ``settle`` says.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from daemon_harness import ROOT, SEAT, confirm, deal, first_round, journal, phase, table_in_process
from fifth_game import GAME, registered
from games.contract import settle, settlement_json
from games.registry import GAMES

# The example HCF table's supervisors (the simulated panel's 4711) and devices: a shoe, the progressive
# system (its bet sensors read the wagers) and the panel.
SUPERVISORS = (ROOT / "config" / "high_card_flush.toml").read_text().split("[supervisors]", 1)[1]
CONFIG = f"""
id = "och-01"
name = "One Card High 1"
game = "one_card_high"
seats = 6
adjacent_boxes = 1
payout_limit = 50000
journal = "table.journal"

[dealing]
procedure = "automated_shoe"
decks = 1
deck_change_hours = 8
stub_count_rounds = 5

[wagers.ante]
min = 10
max = 500

[devices]
shoe = "socket://127.0.0.1:7102"
progressive = "tcp://127.0.0.1:7103"
panel = "tcp://127.0.0.1:7104"

[supervisors]{SUPERVISORS}"""

SEATS = (1, SEAT, 5)
DECISIONS = {1: "bet_1x", SEAT: "fold", 5: "bet_1x"}  # the buttons the seats press, asked in seat order


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "one_card_high.toml"
    path.write_text(CONFIG)
    return path


def test_one_card_high_settles_by_its_own_rules():
    """The game alone, through the settle contract: a higher card wins 1 to 1, a fold loses the Ante,
    equal ranks push."""
    with registered():
        out = settlement_json(settle({
            "game": "one_card_high", "paytables": {}, "dealer": ["9h"],
            "seats": [{"seat": 1, "cards": ["Ks"], "wagers": {"ante": 10}, "play": 1},
                      {"seat": 2, "cards": ["As"], "wagers": {"ante": 10}, "fold": True},
                      {"seat": 3, "cards": ["9c"], "wagers": {"ante": 25}, "play": 1},
                      {"seat": 4, "cards": ["2d"], "wagers": {"ante": 5}, "play": 1}]}))
    nets = {s["seat"]: {w: r["net"] for w, r in s["wagers"].items()} for s in out["seats"]}
    assert [s["seat"] for s in out["seats"]] == [4, 3, 2, 1]  # highest seat first (R1)
    assert nets == {1: {"ante": 10, "play": 10}, 2: {"ante": -10}, 3: {"ante": 0, "play": 0},
                    4: {"ante": -5, "play": -5}}
    assert GAME.name not in GAMES  # gone after the block: no other test sees a fifth game


def test_one_card_high_through_the_daemon(tmp_path, monkeypatch, config):
    with registered(), table_in_process(GAME.name, tmp_path, monkeypatch, config=config) as t:
        s = first_round(t)
        rid = s["round"]["round_id"]
        cents = int(t.cfg.limits("ante")[0] * 100)
        t.controls["progressive"]("set_bets", bets={str(n): {"0": cents} for n in SEATS})  # area 0: the Ante
        t.dealer.bets_for = rid
        s = t.press("no_more_bets")
        assert phase(s) == "no_more_bets", s["message"]
        assert {n: {w: Decimal(a) for w, a in seat["wagers"].items()} for n, seat in s["round"]["seats"].items()} == {
            str(n): {"ante": Decimal(10)} for n in SEATS}
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        assert {n: w["cards"] for n, w in s["round"]["seats"].items()} == {str(n): 1 for n in SEATS}  # face down
        assert s["round"]["dealer"] == 1
        asked = []
        while phase(s) == "decisions":
            seat = s["round"]["to_act"]["seat"]
            asked.append(seat)
            s = t.press(DECISIONS[seat])
        assert asked == list(SEATS)  # clockwise from seat 1 (R1)
        s = t.until(lambda s: phase(s) == "settled", "the settlement")
        confirm(t)
        t.until(lambda s: phase(s) != "settled", "the round closed")

    events, _ = journal(t, rid)
    dealt = {e.data["place"]: e.data["card"] for e in events if e.kind == "card"}
    places = [e.data["place"] for e in events if e.kind == "card"]
    assert sorted(places) == sorted(["dealer", *(f"seat:{n}" for n in SEATS)])  # one card to each place, no more
    settled = next(e.data for e in events if e.kind == "settled")
    # The settlement is the game's own, on the cards the shoe dealt: settled again here from the journal.
    with registered():
        expected = settlement_json(settle({
            "game": GAME.name, "paytables": {}, "dealer": [dealt["dealer"]],
            "seats": [{"seat": n, "cards": [dealt[f"seat:{n}"]], "wagers": {"ante": 10},
                       **({"fold": True} if DECISIONS[n] == "fold" else {"play": 1})} for n in SEATS]}))
    assert {n: Decimal(v) for n, v in settled["nets"].items()} == {
        str(s["seat"]): Decimal(str(s["net"])) for s in expected["seats"]}
    assert Decimal(settled["nets"][str(SEAT)]) == -10  # the fold lost its Ante (OCH ch.11 §B)

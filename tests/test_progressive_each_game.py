"""The top progressive line of JHE, HCF and RET end to end (UTH: tests/test_progressive_system.py).

Each example table (config/) deals a scripted deck -- put in the shuffler (JHE, dealt by hand
from it) or in the shoe (HCF automated shoe, RET manual shoe) in the order games.dealing says
the cards go -- so that seat 1 holds the hand of the Progressive paytable's top line.  Then:
lock-out and contribution, the win held with the winner light until the floor supervisor
validates it, the payout from the meter journaled with the supervisor, the meter back to its
reset (R4), the sign showing it, the history recording it.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from controller.journal.store import Journal
from daemon_harness import phase, table_in_process
from games.cards import DECK
from games.dealing import Procedure, initial_deal, stacks
from games.paytables import paytable
from games.registry import GAMES

CASES = {
    # game: (procedure, cards for places, the top line, its meter)
    "jackpot_holdem": (  # JHE ch.12 §D(6)(a): royal flush of diamonds -> 100% of the Star meter (R13)
        Procedure.HAND,
        {("seat", 1, 0): "Ad", ("seat", 1, 1): "Kd", ("community", 0): "Qd", ("community", 1): "Jd",
         ("community", 2): "Td", ("community", 3): "2s", ("community", 4): "3c",
         ("dealer", 0): "7h", ("dealer", 1): "7c"},
        "royal_flush_diamonds", "star"),
    "high_card_flush": (  # HCF ch.12 §E(1)(d)(i): seven-card straight flush -> 100% of the meter
        Procedure.AUTOMATED,
        {**{("seat", 1, i): c for i, c in enumerate(["2h", "3h", "4h", "5h", "6h", "7h", "8h"])},
         **{("dealer", i): c for i, c in enumerate(["2c", "5d", "9s", "Jc", "Kd", "4s", "7d"])}},
        "straight_flush_7", "meter"),
    "run_em_twice": (  # RET ch.12 §F(4)(a): royal flush -> 100% of the Mega meter
        Procedure.MANUAL_SHOE,
        {("seat", 1, 0): "As", ("seat", 1, 1): "Ks", ("community", "left"): "Qs", ("community", "center"): "Js",
         ("community", "right"): "Ts", ("community", "top"): "2d", ("community", "bottom"): "3c"},
        "royal_flush", "mega"),
}


def deal_order(game: str, procedure: Procedure, wanted: dict) -> list[str]:
    """The deck that puts ``wanted`` cards on their places, in the order the procedure deals them."""
    g = GAMES[game]
    if procedure is Procedure.AUTOMATED:
        places = [p for stack in stacks(g, [1]) for p in stack.places]
    else:
        places = initial_deal(g, procedure, [1])
    rest = [c.text for c in DECK if c.text not in wanted.values()]
    return [wanted[p] if p in wanted else rest.pop(0) for p in places] + rest



@pytest.mark.parametrize("game", sorted(CASES))
def test_top_progressive_line_through_the_daemon(game, tmp_path, monkeypatch):
    procedure, wanted, line, meter = CASES[game]
    g = GAMES[game]
    deck = deal_order(game, procedure, wanted)
    with table_in_process(game, tmp_path, monkeypatch) as t:
        cfg = t.cfg
        assert paytable(game, "progressive", cfg.progressive.paytable).lines[0].key == line
        if "shuffler" in t.controls:
            t.controls["shuffler"]("set_deck", cards=deck)
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        if "shoe" in t.controls:
            t.controls["shoe"]("load", cards=deck)
        low = int(cfg.limits(g.antes[0])[0] * 100)
        t.controls["progressive"]("set_bets", bets={"1": {str(i): low for i in range(len(g.antes))}})
        assert t.controls["progressive"]("wager", seat=1)["accepted"]
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) in ("decisions", "settled"), "the deal")
        while phase(s) == "decisions":  # seat 1 stays in with the smallest wager each time
            to_act = s["round"]["to_act"]
            s = t.press(f"bet_{min(to_act['multiples'])}x" if not to_act["check"] else "check")
            s = t.until(
                lambda s, to_act=to_act: phase(s) != "decisions" or s["round"]["to_act"] != to_act, "the next decision"
            )
        assert phase(s) == "settled" and s["validation"], s["message"]
        chips = s["round"]["chips"]  # the held win is what the dealer's row pays (UTH ch.8 §C(3) and twins)
        assert [(h["seat"], h["wager"], chips[str(h["seat"])]["wagers"][h["wager"]]["amount"])
                for h in s["validation"]] == [(h["seat"], h["wager"], h["amount"]) for h in s["validation"]]
        assert s["next_action"]["action"] == "validate_progressive" and s["next_action"]["key"]
        assert t.controls["progressive"]("outputs")["lights"]["winner"] == [1]  # the winner light is lit
        s = t.dealer.with_key(s, "confirm")  # the floor supervisor validates
        assert not s.get("validation")
        sign = t.controls["progressive"]("outputs")["meters"]
    reset = cfg.progressive.meters[meter].reset
    with Journal(t.journal_path) as j:
        events = j.events(round_id)
        nmb = next(e.data for e in events if e.kind == "no_more_bets")
        before = Decimal(nmb["meters"][meter])  # with this round's contribution (R4)
        paid = next(e for e in events if e.kind == "meter_paid")
        assert paid.data["meter"] == meter and Decimal(paid.data["paid"]) == before  # 100% of the meter
        assert paid.who == "supervisor 4711"
        assert Decimal(paid.data["after"]) == j.meter_values()[meter] == max(reset, before - before)
        hits = [e for e in j.events(None) if e.kind == "progressive_hit"]
        assert hits and hits[-1].data.get("round") == round_id
        # the journal agrees with the dealer's chips: each seat's settled net is what was paid less what was
        # taken and collected, and the validated payout is the progressive row's amount
        nets = next(e.data["nets"] for e in events if e.kind == "settled")
        for seat, c in chips.items():
            collected = sum(Decimal(w["collected"] or 0) for w in c["wagers"].values())
            assert Decimal(c["pay"]) - Decimal(c["take"]) - collected == Decimal(str(nets[seat]))
        assert Decimal(str(hits[-1].data["amount"])) == Decimal(chips["1"]["wagers"]["progressive"]["amount"])
    index = list(cfg.progressive.meters).index(meter)  # sign i shows the configuration's meter i
    assert sign[index] == int(reset * 100)

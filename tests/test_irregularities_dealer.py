"""Irregularities only a person sees, reported on the dealer's panel (P41), end to end through the daemon.

The dealer opens the ``irregularity`` menu, picks the option with a seat button
(and the seat, when asked), and a floor supervisor confirms with the key.  The
remedy comes from the games package (games.void, RULINGS R7a) and the journal
keeps enough to re-settle the round.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from controller.journal.store import Journal
from controller.round.machine import RoundController
from controller.table import setup_from_journal
from daemon_harness import phase, table_in_process, told
from games.cards import DECK
from games.dealing import Procedure
from games.paytables import paytable
from test_progressive_each_game import deal_order

# UTH ch.10 §B stacks: Six Card Bonus box, community, the dealer's two (held), two per player (R1)
BONUS = ["2c", "3c", "4c", "5c"]
COMMUNITY = ["Ts", "Js", "Qs", "7d", "2d"]
DEALER = ["8h", "8d"]
SEAT_1 = ["As", "Ks"]  # royal flush in spades with the community
SEAT_2 = ["9c", "9h"]  # a pair of nines: no Trips line
FIRST = BONUS + COMMUNITY + DEALER + SEAT_1 + SEAT_2
ORDER = FIRST + [c.text for c in DECK if c.text not in FIRST]



def _restored(journal_path, round_id: str) -> RoundController:
    with Journal(journal_path) as j:
        events = j.events(round_id)
    setup = setup_from_journal(events[0].data)
    return asyncio.run(RoundController.restore(round_id, setup, [(e.kind, e.data) for e in events]))


def _uth_round(t, bets: dict) -> dict:
    for deck in ("A", "B"):
        t.controls["shuffler"]("set_deck", cards=ORDER, deck=deck)
    t.start_daemon()
    t.open_table()
    s = t.until(lambda s: phase(s) == "wagers", "the first round")
    t.controls["progressive"]("set_bets", bets=bets)
    t.press("no_more_bets")
    s = t.press("confirm")
    assert phase(s) == "decisions", s["message"]
    return s


def _report(t, option: str, seat: int | None = None) -> dict:
    """Open the menu, pick ``option`` by its label, the seat if asked; return the status before the key."""
    s = t.press("irregularity")
    menu = s["irregularity_menu"]
    assert menu, s["message"]
    n = next(i for i, label in enumerate(menu, 1) if option in label)
    s = t.press(f"seat_{n}")
    if seat is not None:
        s = t.press(f"seat_{seat}")
    return s


def test_a_dealer_card_exposed_early_keeps_the_trips_wager_alive(tmp_path, monkeypatch):
    """UTH ch.13 §F-§G (RULINGS R7a): all hands void, Ante/Blind/Play returned; the Trips wagers are
    settled on the community cards."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        # areas: 0 ante, 1 blind, 2 trips
        s = _uth_round(t, {"1": {"0": 1000, "1": 1000, "2": 1000}, "2": {"0": 1000, "1": 1000, "2": 500}})
        round_id = s["round"]["round_id"]
        s = t.press("bet_4x")  # seat 1 has played: seat 2 has not
        s = _report(t, "dealer card exposed")
        na = s["next_action"]
        assert {k: na[k] for k in ("action", "button", "key", "why", "seat")} == {
            "action": "confirm_irregularity", "button": "confirm", "key": True, "why": "UTH ch.13 §F-§G", "seat": None}
        # the remedy before the key: the Trips kept alive and settled on the cards, every other wager returned
        assert na["steps"] == [
            {"n": 1, "do": "supervisor_confirms", "clause": "UTH ch.13 §F-§G", "button": "confirm", "key": True},
            {"n": 2, "do": "deal_remaining_cards", "clause": "UTH ch.13 §G"},
            {"n": 3, "do": "settle_kept_wagers", "clause": "UTH ch.13 §G", "wagers": ["trips"]},
            {"n": 4, "do": "return_other_wagers", "clause": "R7a"},
            {"n": 5, "do": "reshuffle", "clause": "UTH ch.13 §F-§G"}]
        s = t.press_refused("confirm")  # not without the key
        assert phase(s) == "decisions"
        s = t.dealer.with_key(s, "confirm")
        assert phase(s) == "voided", s["message"]
        assert told(s)["kind"] == "irregularity" and told(s)["cause"] == "dealer_card_exposed", s["message"]
        assert told(s)["wagers"] == ["trips"] and told(s)["clauses"] == ["UTH ch.13 §F-§G"], s["message"]
        assert [(st["do"], st["clause"], st.get("wagers")) for st in s["next_action"]["steps"]] == [
            ("deal_remaining_cards", "UTH ch.13 §G", None), ("settle_kept_wagers", "UTH ch.13 §G", ["trips"]),
            ("return_other_wagers", "R7a", None), ("reshuffle", "UTH ch.13 §F-§G", None)]
        shown = s["round"]["settlement"]  # what the dealer pays and returns, on the status
        assert shown["1"]["trips"]["result"] == "win" and shown["1"]["ante"] == {"result": "push", "net": "0"}
        assert shown["2"]["trips"] == {"result": "lose", "net": "-5"}
        s = t.press("confirm")
        assert phase(s) != "voided"
    r = _restored(t.journal_path, round_id)
    by_seat = {seat.seat: seat.wagers for seat in r.settlement.seats}
    trips = paytable("ultimate_texas_holdem", "trips", t.cfg.wagers["trips"].paytable)
    royal = trips.line_for({"royal_flush"})  # UTH ch.12 §C: the Trips paytable's royal flush line
    assert by_seat[1]["trips"].result == "win" and by_seat[1]["trips"].line == royal.key
    assert royal.pays.word == "to"
    assert by_seat[1]["trips"].net == Decimal(10) * royal.pays.numerator / royal.pays.denominator
    assert by_seat[2]["trips"].result == "lose" and by_seat[2]["trips"].net == Decimal(-5)
    for seat in (1, 2):
        for name in ("ante", "blind"):
            assert by_seat[seat][name].result == "push" and by_seat[seat][name].net == 0
    assert by_seat[1]["play"].result == "push"  # the 4x Play wager is returned too (§F)
    with Journal(t.journal_path) as j:
        voided = [e.data for e in j.events(round_id) if e.kind == "voided"]
    assert len(voided) == 1 and voided[0]["keep"] == ["trips"] and "supervisor 4711" in voided[0]["reason"]
    assert [p["seat"] for p in voided[0]["order"]] == [2, 1]  # the kept Trips paid from the dealer's right (P65, R1)


def test_cards_exposed_after_the_initial_deal_and_no_trips_wager_return_everything(tmp_path, monkeypatch):
    """UTH ch.13 §C: with no Trips wager on the layout nothing is kept alive: every wager returned."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        s = _uth_round(t, {"1": {"0": 1000, "1": 1000}})
        round_id = s["round"]["round_id"]
        _report(t, "face up after the initial")
        s = t.dealer.with_key(t.status(), "confirm")
        assert phase(s) == "voided" and told(s)["clauses"] == ["UTH ch.13 §C"], s["message"]
    r = _restored(t.journal_path, round_id)
    assert all(w.result == "push" and w.net == 0 for seat in r.settlement.seats for w in seat.wagers.values())


@pytest.mark.parametrize("treatment", ["losing", "returned"])
def test_a_player_who_leaves_and_the_others_play_on(treatment, tmp_path, monkeypatch):
    """ch.7 §C(2) (P42): the facility treats the seat's abandoned wagers as losing (the default) or returns
    them (configuration ``abandoned_wagers``); a returned progressive wager takes its contribution back (R7a)."""
    monkeypatch.setenv("TABLE_ABANDONED_WAGERS", treatment)
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        s = _uth_round(t, {"1": {"0": 1000, "1": 1000}, "2": {"0": 1000, "1": 1000, "2": 500}})
        round_id = s["round"]["round_id"]
        s = t.press("check")  # seat 1 checks before the flop
        assert s["round"]["to_act"]["seat"] == 2
        s = _report(t, "player left", seat=2)
        assert told(s)["kind"] == "menu_confirm" and told(s)["seats"] == [2], s["message"]
        s = t.dealer.with_key(s, "confirm")
        assert s["round"]["seats"]["2"].get("left") is True
        assert s["round"]["to_act"]["seat"] == 1  # seat 2 is asked nothing more: the flop, seat 1
        s = t.press("bet_2x")
        assert phase(s) == "settled", s["message"]
        events = Journal(t.journal_path).events(round_id)
        nets = {int(k): Decimal(v) for k, v in next(e.data for e in events if e.kind == "settled")["nets"].items()}
        left = next(e.data for e in events if e.kind == "seat_abandoned")
    assert left["wagers"] == treatment  # the journal keeps the treatment applied, whatever the configuration later
    # Ante 10, Blind 10, Trips 5: all lost (although a pair of nines) or all returned
    assert nets[2] == (Decimal(-25) if treatment == "losing" else Decimal(0))
    assert nets[1] > 0  # the royal flush is paid as usual
    r = _restored(t.journal_path, round_id)
    assert {s.seat for s in r.settlement.seats} == {1, 2}
    assert r.settlement.seats[0].net == nets[2]  # R1: seat 2 is settled first, and a replay agrees


def test_a_returned_progressive_wager_of_a_player_who_left_takes_its_contribution_back(tmp_path, monkeypatch):
    """P42 "returned", R7a: the abandoned progressive wager is returned and its meter contribution taken back."""
    monkeypatch.setenv("TABLE_ABANDONED_WAGERS", "returned")
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        for deck in ("A", "B"):
            t.controls["shuffler"]("set_deck", cards=ORDER, deck=deck)
        t.start_daemon()
        t.open_table()
        t.until(lambda s: phase(s) == "wagers", "the first round")
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}, "2": {"0": 1000, "1": 1000}})
        assert t.controls["progressive"]("wager", seat=2)["accepted"]
        t.press("no_more_bets")
        t.press("confirm")  # the progressive chip count (ch.8 §C(3))
        s = t.until(lambda s: phase(s) == "decisions", "the deal")
        round_id = s["round"]["round_id"]
        t.press("check")
        s = _report(t, "player left", seat=2)
        s = t.dealer.with_key(s, "confirm")
        s = t.press("bet_2x")
        assert phase(s) == "settled", s["message"]
        events = Journal(t.journal_path).events(round_id)
    added = [e.data["meters"] for e in events if e.kind == "meter_add"]
    assert len(added) == 2  # the contribution at no more bets, then taken back
    assert all(Decimal(added[0][m]) == -Decimal(added[1][m]) and Decimal(added[0][m]) > 0 for m in added[0])
    nets = next(e.data for e in events if e.kind == "settled")["nets"]
    assert Decimal(nets["2"]) == 0


def test_a_wrong_number_of_cards_voids_the_run_em_twice_round(tmp_path, monkeypatch):
    """RET ch.13 §C, §F: all hands void, every wager returned, the cards reshuffled (by hand here)."""
    with table_in_process("run_em_twice", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        t.controls["shoe"]("load", seed=3)
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
        t.dealer.bets_for = round_id
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "decisions" and not s["expecting_cards"], "the deal")
        s = _report(t, "wrong number of cards")
        s = t.dealer.with_key(s, "confirm")
        assert phase(s) == "voided" and told(s)["clauses"] == ["RET ch.13 §C, §F"], s["message"]
        s = t.press("confirm")
        assert s["next_step"]["step"] == "shuffled"  # reshuffled (by hand: no shuffler at this table)
    r = _restored(t.journal_path, round_id)
    assert all(w.result == "push" for seat in r.settlement.seats for w in seat.wagers.values())


def test_high_card_flush_dealer_card_exposed_keeps_the_bonus_wagers(tmp_path, monkeypatch):
    """HCF ch.13 §E-§F: every hand void, the Flush Bonus (and Straight Flush Bonus, Progressive)
    settled on the player's seven cards."""
    wanted = {**{("seat", 1, i): c for i, c in enumerate(["2h", "3h", "4h", "5h", "6h", "9h", "Kh"])},
              **{("dealer", i): c for i, c in enumerate(["2c", "5d", "9s", "Jc", "Kd", "4s", "7d"])}}
    with table_in_process("high_card_flush", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        t.controls["shoe"]("load", cards=deal_order("high_card_flush", Procedure.AUTOMATED, wanted))
        areas = [w for w in t.cfg.game_rules.wagers if w != "progressive"]
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, str(areas.index("flush_bonus")): 500}})
        t.dealer.bets_for = round_id
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "decisions" and not s["expecting_cards"], "the deal")
        _report(t, "dealer card exposed")
        s = t.dealer.with_key(t.status(), "confirm")
        assert phase(s) == "voided" and told(s)["clauses"] == ["HCF ch.13 §E-§F"], s["message"]
    r = _restored(t.journal_path, round_id)
    (seat,) = r.settlement.seats
    assert seat.wagers["flush_bonus"].result == "win", seat.wagers  # a seven-card flush (HCF ch.12 §C)
    assert seat.wagers["flush_bonus"].net > 0
    assert seat.wagers["ante"].result == "push" and seat.wagers["ante"].net == 0


def test_a_shuffler_out_of_order_moves_the_table_to_the_card_reading_shoe_and_back(tmp_path, monkeypatch):
    """JHE ch.13 §J (P43): the shuffler is covered or signed out of order (journaled with the supervisor);
    the cards are then shuffled and cut by hand and dealt from the card-reading shoe; a dead shuffler no
    longer stops the table; back in service, the shuffler shuffles again before the next deal."""
    with table_in_process("jackpot_holdem", tmp_path, monkeypatch, add_devices=("shoe",)) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        assert s["dealing"] == "hand"
        t.controls["shuffler"]("unplug", mode="silent")
        s = _report(t, "shuffler is out of order")
        s = t.dealer.with_key(s, "confirm")
        assert s["out_of_order"] == ["shuffler"] and s["dealing"] == "manual_shoe", s["message"]
        assert told(s)["kind"] == "device_service" and told(s)["cause"] == "out_of_order", s["message"]
        assert told(s)["device"] == "shuffler" and told(s)["clauses"][0] == "JHE ch.13 §J", s["message"]
        assert s["next_step"]["step"] == "shuffled"  # by hand now, then cut (ch.5 §D(2), §F)
        closed = len(t.dealer.closed)
        while len(t.dealer.closed) < closed + 1:  # a whole round from the shoe
            t.dealer.step()
        t.controls["shuffler"]("plug")
        t.until(lambda s: s["devices"].get("shoe") == "online", "the shoe")
        while phase(t.status()) != "wagers" or t.status().get("next_step"):
            t.dealer.step()
        s = _report(t, "shuffler is back in service")
        s = t.dealer.with_key(s, "confirm")
        assert s["out_of_order"] == [] and s["dealing"] == "hand"
        assert s["next_step"]["step"] == "shuffled"  # the shuffler shuffles before it deals again
    with Journal(t.journal_path) as j:
        table = [e for e in j.events(None) if e.kind in ("device_out_of_order", "device_in_service")]
        shoe_round = t.dealer.closed[closed]
        cards = [e for e in j.events(shoe_round) if e.kind == "card"]
    assert [(e.kind, e.data["device"], e.who) for e in table] == [
        ("device_out_of_order", "shuffler", "supervisor 4711"), ("device_in_service", "shuffler", "supervisor 4711")]
    assert cards  # dealt from the shoe while the shuffler was out of order


def test_with_its_only_card_reader_out_of_order_the_table_deals_nothing(tmp_path, monkeypatch):
    """RET ch.13 §E (P43): no device can read the cards: no round is dealt (fail closed)."""
    with table_in_process("run_em_twice", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        s = _report(t, "shoe is out of order")
        s = t.dealer.with_key(s, "confirm")
        assert s["dealing"].startswith("none"), s
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
        s = t.press_refused("no_more_bets")
        assert s["next_action"] == {"action": "device_in_service", "button": "irregularity", "key": True,
                                    "why": "RET ch.13 §E"}  # what is to be done before a deal: a card reader
        assert phase(s) == "wagers"


def test_the_menu_is_cancelled_with_undo_and_refuses_other_buttons(tmp_path, monkeypatch):
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        before = _uth_round(t, {"1": {"0": 1000, "1": 1000}})
        s = t.press("irregularity")
        assert s["irregularity_menu"] and s["next_action"]["action"] == "pick_irregularity"
        s = t.press_refused("check")
        assert s["round"]["to_act"]["seat"] == 1
        options = s["next_action"]["options"]
        assert options < 6 and len(s["irregularity_menu"]) == options  # no option 6
        s = t.press_refused("seat_6")
        s = t.press("undo")
        assert s["irregularity_menu"] is None and s["round"] == before["round"]  # nothing changed
        assert s["next_action"] == before["next_action"]
        s = t.press("check")  # the menu closed: the decision is taken again
        assert s["round"]["to_act"]["seat"] == 1 and s["round"]["to_act"]["street"] != "before_the_flop"
    with Journal(t.journal_path) as j:
        decisions = [e.data for e in j.events(before["round"]["round_id"]) if e.kind == "decision"]
    assert [(d["seat"], d["check"]) for d in decisions] == [(1, True)]  # seat 1 checked, once


def test_a_skipped_run_em_twice_player_plays_the_next_hand(tmp_path, monkeypatch):
    """RET ch.13 §G (P44): seat 2 got no card; reported during the deal, the cards already dealt are
    re-placed in the dealing order without seat 2 (ch.8 §D: the cross, then one card at a time to each
    player), seat 2's wagers are returned and it plays the next hand; the others play on."""
    deck = [c.text for c in DECK]
    with table_in_process("run_em_twice", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        t.controls["shoe"]("load", cards=deck)
        t.controls["progressive"]("set_bets", bets={str(n): {"0": 1000, "1": 1000} for n in (1, 2, 3)})
        t.dealer.bets_for = round_id
        shoe, t.dealer.shoe = t.dealer.shoe, None  # this dealer draws by hand below, card by card
        t.press("no_more_bets")
        t.controls["panel"]("press", button="confirm")  # taken once the deal is done: do not wait for it
        s = t.until(lambda s: s.get("expecting_cards"), "the deal")
        assert s["next_card_to"] == "community:left", s
        t.controls["shoe"]("draw", n=7)  # the cross, seat 1, and the card seat 2 should have had: seat 3 has it
        s = t.until(lambda s: s.get("next_card_to") == "seat:3", "seven cards taken")
        s = _report(t, "skipped", seat=2)
        s = t.dealer.with_key(s, "confirm")
        assert told(s)["kind"] == "seat_skipped" and told(s)["seats"] == [2], s["message"]
        assert told(s)["clauses"] == ["RET ch.13 §G"], s["message"]
        assert s["round"]["seats"]["2"].get("skipped") is True and s["next_card_to"] == "seat:1"
        t.dealer.shoe = shoe  # the dealer draws the two cards still asked for
        s = t.until(lambda s: phase(s) == "decisions" and not s["expecting_cards"], "the rest of the deal")
        while phase(t.status()) == "decisions":
            s = t.press("check" if t.status()["round"]["to_act"]["check"] else "bet_1x")
        s = t.status()
        assert phase(s) == "settled", s["message"]
    r = _restored(t.journal_path, round_id)
    assert [c.text for c in r.seats[1].cards] == [deck[5], deck[7]]
    assert [c.text for c in r.seats[3].cards] == [deck[6], deck[8]]  # the card seat 2 was skipped for
    assert r.seats[2].cards == [] and r.seats[2].skipped
    by_seat = {seat.seat: seat for seat in r.settlement.seats}
    assert all(w.result == "push" and w.net == 0 for w in by_seat[2].wagers.values())
    assert set(by_seat) == {1, 2, 3}

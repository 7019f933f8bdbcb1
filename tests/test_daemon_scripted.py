"""Scripted rounds through the daemon: the cards are set in the simulated shuffler, every press is scripted.

UTH with the example table (config/ultimate_texas_holdem.toml: Blind A, Trips A,
Ultimate Pairs A, Progressive B with Envy B, payout limit $75,000, the
dealer's cards left in the shuffler).  Seat 1 makes a royal flush with the
largest bets the table allows, seat 2 folds with a side wager still working:

* the payout limit (R6; UTH ch.12 §F) takes what the covered wagers win above $75,000;
* the progressive royal is paid 100% of the Major meter, including this round's
  contribution (UTH ch.12 §D(1)(b)(i), R4), and the meter goes back to its reset;
* a fold loses Ante and Blind and still settles Ultimate Pairs (R7).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

import controller.service.devices
from controller.journal.store import Journal
from daemon_harness import phase, table_in_process, told
from games.cards import DECK

# UTH ch.10 §B: the Six Card Bonus stack, the community stack, the dealer's two (held, §B(4)),
# then two cards for each player from the dealer's left (R1).
BONUS = ["2c", "3c", "4c", "5c"]
COMMUNITY = ["Ts", "Js", "Qs", "7d", "2d"]
DEALER = ["8h", "8d"]  # a pair of eights: the dealer qualifies (UTH ch.11 §H(2))
SEAT_1 = ["As", "Ks"]  # royal flush in spades
SEAT_2 = ["9c", "9h"]  # a pair of nines
FIRST = BONUS + COMMUNITY + DEALER + SEAT_1 + SEAT_2
ORDER = FIRST + [c.text for c in DECK if c.text not in FIRST]


def test_royal_flush_payout_limit_progressive_and_fold(tmp_path, monkeypatch):
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        for deck in ("A", "B"):  # the opening shuffles both decks (ch.4 §E); either deals this order
            t.controls["shuffler"]("set_deck", cards=ORDER, deck=deck)
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: (s.get("round") or {}).get("phase") == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        assert s["next_action"]["button"] == "no_more_bets" and not s["next_action"]["key"]
        # bet-sensor areas follow the game's wagers: 0 ante, 1 blind, 2 trips, 3 six card, 4 ultimate pairs
        t.controls["progressive"]("set_bets", bets={"1": {"0": 50000, "1": 50000, "2": 10000},
                                                    "2": {"0": 1000, "1": 1000, "4": 500}})
        t.controls["progressive"]("wager", seat=1)
        t.press("no_more_bets")
        s = t.status()
        assert s["round"]["phase"] == "no_more_bets"
        assert s["round"]["seats"]["1"]["wagers"]["progressive"] == "1.00"
        assert s["next_action"]["action"] == "confirm_progressive_count" and s["next_action"]["button"] == "confirm"
        t.press("confirm")  # one progressive chip, one accepted wager (ch.10 §A(2)(b)(ii))
        s = t.status()
        assert s["round"]["phase"] == "decisions" and s["round"]["to_act"]["seat"] == 1
        assert s["round"]["seats"]["1"]["cards"] == 2  # hole cards hidden
        assert s["round"]["dealer"] == 0  # still in the shuffler
        assert s["next_action"]["action"] == "decide" and s["next_action"]["seat"] == 1
        assert "bet_4x" in s["next_action"]["buttons"] and not s["next_action"]["key"]
        t.press("bet_4x")  # seat 1: 4x before the flop
        t.press("check")  # seat 2
        t.press("check")  # seat 2 after the flop
        s = t.press("fold")  # seat 2 after the river
        assert s["round"]["phase"] == "settled", s
        assert s["validation"] and told(s)["kind"] == "progressive_win"  # held (UTH ch.11 §J(2)(c))
        assert told(s)["clauses"] == ["UTH ch.11 §J(2)(c)"] and told(s)["seats"] == [1], s["message"]
        na = s["next_action"]
        assert {k: na[k] for k in ("action", "button", "key", "why")} == {
            "action": "validate_progressive", "button": "confirm", "key": True, "why": "UTH ch.11 §J(2)(c)"}
        assert na["hits"] == s["validation"] and na["steps"][2]["do"] == "supervisor_validates"
        t.press_refused("confirm")  # not without the supervisor's key
        s = t.dealer.with_key(t.status(), "confirm")
        assert not s.get("validation")
        assert s["next_action"]["action"] == "pay_and_collect" and not s["next_action"]["key"]

    with Journal(t.journal_path) as j:
        events = j.events(round_id)
        nets = next(e.data for e in events if e.kind == "settled")["nets"]
        paid = next(e for e in events if e.kind == "meter_paid")
        no_more_bets = next(e.data for e in events if e.kind == "no_more_bets")
        meters_now = j.meter_values()

    # Seat 1, from the rules' odds: Ante 1 to 1 (ch.12 §A), Blind royal 500 to 1 (§B(1)(a)),
    # Play 4 x 500 at 1 to 1, Trips royal 50 to 1 (§C(1)(a)).
    covered = Decimal(500) + 500 * 500 + 4 * 500 + 100 * 50
    limited_by = covered - 75000  # R6
    major = Decimal("10000.00") + Decimal("0.04") * 1  # initial + the rate x unit of this round's wager
    assert Decimal(no_more_bets["meters"]["major"]) == major
    progressive = major - 1  # 100% of the Major meter; the $1 wager was collected (R3)
    assert Decimal(nets["1"]) == covered - limited_by + progressive
    assert paid.data["meter"] == "major" and Decimal(paid.data["paid"]) == major
    assert paid.who == "supervisor 4711"  # validated by the floor supervisor
    assert Decimal(paid.data["after"]) == meters_now["major"] == Decimal("1000.00")  # back to its reset (R4)
    assert meters_now["minor"] == Decimal("500.00") + Decimal("0.01")
    # Seat 2 folded: Ante and Blind lost; Ultimate Pairs A, pair of tens or less, 3 to 1 (ch.12 §E(1)(g), R7, R22)
    assert Decimal(nets["2"]) == -10 - 10 + 5 * 3


def test_progressive_count_mismatch_stops_the_round_until_the_supervisor_resolves_it(tmp_path, monkeypatch):
    """ch.8 §C(3) / ch.10 §A(2)(b)(ii): the chips must match the wagers the system accepted."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        t.until(lambda s: (s.get("round") or {}).get("phase") == "wagers", "the first round")
        t.controls["progressive"]("set_bets", bets={"3": {"0": 1000, "1": 1000}})
        t.controls["progressive"]("wager", seat=3)
        t.press("no_more_bets")
        s = t.press("undo")  # the dealer counts no chip on the layout for the accepted wager
        assert s["round"]["phase"] == "halted" and "do not match" in s["round"]["halted"]["reason"]
        assert s["next_action"]["button"] == "confirm" and s["next_action"]["key"]  # the supervisor resolves it
        s = t.press_refused("confirm")  # without the supervisor's key: refused, still halted
        assert s["round"]["phase"] == "halted"
        s = t.dealer.with_key(s, "confirm")  # the supervisor resolved it
        assert s["round"]["phase"] == "no_more_bets"
        s = t.press("confirm")
        assert s["round"]["phase"] == "decisions"
        assert t.controls["panel"]("outputs")["buzz_count"] >= 1  # the refused press buzzed



def _table_steps(t) -> list[str]:
    """The table steps the daemon asks for, each done by the dealer, until none is left."""
    steps = []
    while t.status()["next_step"]:
        steps.append(t.status()["next_step"]["step"])
        t.dealer.step()
    return steps


def test_table_life_opening_idle_reopening_and_closing(tmp_path, monkeypatch):
    """ch.4 §A-§E opening (two decks with the shuffler, each inspected and verified), ch.5 §H no play."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        s = t.until(lambda s: s.get("next_step"), "the daemon's first status")
        assert s["state"] == "closed" and s["round"] is None
        s = t.press_refused("no_more_bets")  # no round on a table that has not completed opening
        assert s["round"] is None and s["next_step"]["step"] == "decks_inspected:A"
        steps = _table_steps(t)
        assert steps == [f"{step}:{deck}" for deck in "AB" for step in
                         ("decks_inspected", "inspection_verified", "cards_spread_washed_stacked", "shuffled")]
        s = t.status()
        assert s["state"] == "open" and phase(s) == "wagers"

        s = t.press("shuffle")  # nobody plays: the table goes idle (ch.5 §H)
        assert s["state"] == "idle" and s["round"] is None
        s = t.press_refused("shuffle")  # the round cannot start before the ch.4 steps (ch.5 §H(2), P67)
        assert s["round"] is None and s["next_step"]["step"] == "cards_spread_for_the_first_player:A"
        steps = _table_steps(t)
        # each deck spread for the first player, turned face down, washed and stacked, shuffled (ch.4 §C-§E)
        assert steps == [f"{step}:{deck}" for deck in "AB" for step in
                         ("cards_spread_for_the_first_player", "cards_turned_down_washed_stacked", "shuffled")]
        s = t.status()
        assert s["state"] == "open" and phase(s) == "wagers"

        s = t.dealer.with_key(s, "shuffle")  # the supervisor closes the table
        assert s["state"] == "closed" and s["next_step"]["step"] == "decks_inspected:A"

    with Journal(t.journal_path) as j:
        table_events = [(e.kind, e.who, e.data.get("step")) for e in j.events(None)]
    assert ("step_done", "supervisor 4711", "inspection_verified:A") in table_events  # who verified (ch.4 §A)
    assert [k for k, _, _ in table_events].count("table_opened") == 2


def test_recut_required_by_the_supervisor(tmp_path, monkeypatch):
    """ch.5 §F-§G: a hand-shuffled deck is cut; a floor supervisor may require a recut before dealing."""
    with table_in_process("run_em_twice", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.status()
        assert phase(s) == "wagers"
        s = t.dealer.with_key(s, "undo")
        assert s["next_step"]["step"] == "cards_cut" and told(s)["kind"] == "recut", s["message"]
        assert told(s)["clauses"] == ["RET ch.5 §E"], s["message"]
        s = t.press_refused("no_more_bets")
        assert s["next_step"]["step"] == "cards_cut"
        s = t.press("deal")
        assert s["next_step"] is None and phase(s) == "wagers"
        s = t.press_refused("undo")  # without the key: refused
        assert s["next_step"] is None


def test_the_supervisor_key_of_an_unknown_or_zero_id_is_refused_and_journaled(tmp_path, monkeypatch):
    """P93: only a supervisor on the configured allow-list: an unknown ID or 0 does nothing and is journaled
    with what it tried; the known supervisor (4711, the example tables' list) is taken and named."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.until(lambda s: s.get("next_step"), "the daemon's first status")
        while (t.status()["next_step"] or {}).get("step") != "inspection_verified:A":  # ch.4 §A: the supervisor's
            t.dealer.step()
        s = t.status()
        button = s["next_step"]["button"]
        for unknown in (812, 0):
            s = t.press_refused(button, supervisor=unknown)
            assert s["next_step"]["step"] == "inspection_verified:A"
        s = t.dealer.with_key(s, button)  # supervisor 4711, on the list
        assert s["next_step"]["step"] != "inspection_verified:A"
        t.open_table()
        s = t.status()
        assert phase(s) == "wagers"
        round_id = s["round"]["round_id"]
        s = t.press_refused("void_round", supervisor=65535)  # R7a: a void is the supervisor's; not by an unknown ID
        assert phase(s) == "wagers"
    with Journal(t.journal_path) as j:
        table = j.events(None)
        refused = [(e.data["action"], e.data["supervisor_id"], e.data.get("round")) for e in table
                   if e.kind == "supervisor_refused"]
        assert refused == [("inspection_verified:A", 812, None), ("inspection_verified:A", 0, None),
                           ("void_round", 65535, round_id)]
        verified = [e.who for e in table if e.kind == "step_done" and e.data["step"] == "inspection_verified:A"]
        assert verified == ["supervisor 4711"]
        assert not [e for e in j.events(round_id) if e.kind in ("round_voided", "voided")]


def test_the_watchdog_pings_while_a_device_is_offline(tmp_path, monkeypatch):
    """systemd Type=notify: READY=1 once started; WATCHDOG=1 while the daemon is healthy, a device offline
    or not (P94): the rules handle a silent progressive system (its wagers disabled, NJAC 13:69E-1.39B), a
    restart by the watchdog would not make it answer."""
    import socket

    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(10)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify.sock"))
    monkeypatch.setenv("WATCHDOG_USEC", "400000")  # a ping every 0.2 s
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        assert notify.recv(64) == b"READY=1"
        assert notify.recv(64) == b"WATCHDOG=1"
        t.controls["progressive"]("stop_answering")
        s = t.until(lambda s: s.get("devices", {}).get("progressive") == "offline", "the progressive system offline")
        assert s["progressive_wagers"].startswith("disabled") and s["watchdog"] == "pinging"
        notify.settimeout(0)
        while True:  # what was sent before it went offline
            try:
                notify.recv(64)
            except BlockingIOError:
                break
        notify.settimeout(2.0)
        for _ in range(3):  # pings go on while it is offline
            assert notify.recv(64) == b"WATCHDOG=1"
        assert t.status()["devices"]["progressive"] == "offline"
        t.controls["progressive"]("resume")
        s = t.until(lambda s: s["devices"]["progressive"] != "offline", "the progressive system back")
        assert s["progressive_wagers"] == "enabled" and s["watchdog"] == "pinging"
    notify.close()


def test_a_face_up_card_from_the_shoe_is_discarded_and_dealing_continues(tmp_path, monkeypatch):
    """HCF ch.13 §A: a card found face up is not used, goes to the discard rack (journaled), dealing goes on."""
    with table_in_process("high_card_flush", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        t.controls["shoe"]("load", seed=5)
        t.controls["shoe"]("fault", fault="face_up", at=3)
        t.controls["progressive"]("set_bets", bets={"2": {"0": 1000}})
        t.dealer.bets_for = round_id  # the bets are on the layout: the dealer goes on from here
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "halted" or (phase(s) == "decisions" and not s["expecting_cards"]),
                    "the whole deal")
        assert phase(s) == "decisions", s["message"]
        # seven cards all the same (HCF ch.10 §B(1))
        assert s["round"]["seats"]["2"]["cards"] == 7 and s["round"]["dealer"] == 7
    with Journal(t.journal_path) as j:
        kinds = [e.kind for e in j.events(round_id)]
        cards = [e.data["card"] for e in j.events(round_id) if e.kind in ("card", "card_discarded")]
    assert kinds.count("card_discarded") == 1
    assert len(cards) == 15 and len(set(cards)) == 15  # 7 + 7 dealt, 1 discarded, none twice


def test_a_shuffler_count_other_than_52_removes_the_deck(tmp_path, monkeypatch):
    """ch.5 §E: the shuffler counts after each shuffle; a wrong count removes the deck from the table."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.status()
        assert phase(s) == "wagers"
        t.controls["shuffler"]("fault", fault="count", count=51)  # the shuffle after this round
        while phase(t.status()) not in ("settled",):  # play the round out
            t.dealer.step()
        while t.status().get("validation"):
            t.dealer.step()
        t.controls["progressive"]("set_bets", bets={})
        s = t.press("confirm")  # the round closes; the shuffler shuffles and counts 51
        assert s["round"] is None and s["next_step"]["step"] == "decks_inspected:A", s["message"]
        assert told(s)["kind"] == "deck_count" and told(s)["counts"] == {"deck": 51}, s["message"]
        assert told(s)["clauses"] == ["UTH ch.5 §E"] and told(s)["remove_deck"], s["message"]
        s = t.press_refused("no_more_bets")  # no round on the removed deck
        assert s["next_step"]["step"] == "decks_inspected:A"
    with Journal(t.journal_path) as j:
        removed = [e.data for e in j.events(None) if e.kind == "deck_removed"]
    assert removed and removed[0]["count"] == 51


@pytest.mark.parametrize("fault", ["a card drawn and never dealt", "a deck of 51 cards"])
def test_the_shoe_counts_the_stub_every_round(fault, tmp_path, monkeypatch):
    """ch.8 §E-§G (HCF ch.8 §G, ch.10 §C-§E): the card-reading shoe counts the stub each round; a
    count that disagrees with the cards the round took, or a deck that is not 52 cards, stops the round."""
    with table_in_process("high_card_flush", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        deck = [c.text for c in DECK]
        t.controls["shoe"]("load", cards=deck[:51] if fault == "a deck of 51 cards" else deck)
        t.controls["progressive"]("set_bets", bets={"2": {"0": 1000}})
        round_id = t.dealer.bets_for = s["round"]["round_id"]
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "decisions" and not s["expecting_cards"], "the whole deal")
        if fault == "a card drawn and never dealt":
            t.controls["shoe"]("draw", n=1)  # a card leaves the shoe after the deal
        to_act = s["round"]["to_act"]
        s = t.press(f"bet_{min(to_act['multiples'])}x")
        # P40: the remedy is applied at once -- all hands void (§G(1)); a deck that is not 52 cards
        # is also removed from the table (§G(2))
        assert phase(s) == "voided" and told(s)["cause"] == "stub_count", s["message"]
        assert told(s)["remove_deck"] == (fault == "a deck of 51 cards"), s["message"]
        s = t.press("confirm")
        if fault == "a deck of 51 cards":
            assert s["round"] is None and s["next_step"]["step"] == "decks_inspected", s["message"]
        else:
            assert phase(s) == "wagers" or s["next_step"]["step"] == "shuffled", s["message"]
    with Journal(t.journal_path) as j:
        voided = [e.data for e in j.events(round_id) if e.kind == "voided"]
        removed = [e.data for e in j.events(None) if e.kind == "deck_removed"]
    assert len(voided) == 1 and "HCF ch.8" in voided[0]["reason"]
    assert len(removed) == (fault == "a deck of 51 cards")


def test_envy_bonus_is_held_and_paid_with_the_royal(tmp_path, monkeypatch):
    """UTH ch.11 §J(2)(e), ch.12 §D(5)-(6)(b), R24: seat 2's progressive wager receives the Envy Bonus
    for seat 1's royal flush ($1,000 for a $1 wager), validated with the progressive win."""
    first = BONUS + COMMUNITY + DEALER + SEAT_1 + ["4h", "4d"]
    order = first + [c.text for c in DECK if c.text not in first]
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        for deck in ("A", "B"):
            t.controls["shuffler"]("set_deck", cards=order, deck=deck)
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        round_id = s["round"]["round_id"]
        t.controls["progressive"]("set_bets", bets={"1": {"0": 500, "1": 500}, "2": {"0": 500, "1": 500}})
        for seat in (1, 2):
            t.controls["progressive"]("wager", seat=seat)
        t.press("no_more_bets")
        t.press("confirm")
        t.press("bet_4x")  # seat 1
        t.press("bet_4x")  # seat 2
        s = t.status()
        assert phase(s) == "settled", s["message"]
        held = {(h["seat"], h["wager"]) for h in s["validation"]}
        assert held == {(1, "progressive"), (2, "envy")}
        envy = next(h for h in s["validation"] if h["wager"] == "envy")
        assert Decimal(envy["amount"]) == 1000 * Decimal(1)  # Envy B royal flush $1,000 x the $1 unit (R3)
        t.dealer.with_key(s, "confirm")
    with Journal(t.journal_path) as j:
        hits = [e for e in j.events(None) if e.kind == "progressive_hit" and e.data.get("round") == round_id]
    assert sorted(h.data["wager"] for h in hits) == ["envy", "progressive"]
    assert all(h.who == "supervisor 4711" for h in hits)


def test_two_decks_alternate_even_after_a_failed_shuffle(tmp_path, monkeypatch):
    """ch.3 §B: with two decks each is used every other round.  A shuffle that jams (UTH ch.13 §H) and
    is repeated brings the deck the last round used back into play: no round is dealt from it."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        while phase(t.status()) != "settled":  # the first round, played out
            t.dealer.step()
        while t.status().get("validation"):
            t.dealer.step()
        with Journal(t.journal_path) as j:
            first = [e.data["deck"] for e in j.events(None) if e.kind == "deck_dealt"]
        t.controls["shuffler"]("fault", fault="jam")  # the shuffle after this round jams
        t.controls["progressive"]("set_bets", bets={})
        s = t.press("confirm")
        assert s["next_step"]["step"] == "shuffled" and told(s)["kind"] == "shuffle_failed", s["message"]
        assert "UTH ch.13 §H" in told(s)["clauses"], s["message"]
        t.controls["shuffler"]("clear")
        s = t.press("shuffle")  # the repeated shuffle brings the deck of the first round back
        s = t.until(lambda s: phase(s) == "wagers", "the next round")
        t.controls["progressive"]("set_bets", bets={"1": {"0": 1000, "1": 1000}})
        s = t.press_refused("no_more_bets", changes=("next_step", "next_action"))  # it asks for a shuffle
        assert told(s)["cause"] == "decks_alternate", s["message"]  # why: the deck the last round used
        assert told(s)["clauses"] == ["UTH ch.3 §B"], s["message"]
        assert phase(s) == "wagers" and s["next_step"]["step"] == "shuffled"
        s = t.press("shuffle")
        s = t.press("no_more_bets")
        assert phase(s) == "no_more_bets", s["message"]
        s = t.press("confirm")
    with Journal(t.journal_path) as j:
        dealt = [e.data["deck"] for e in j.events(None) if e.kind == "deck_dealt"]
    assert len(first) == 1 and len(dealt) == 2 and dealt[0] != dealt[1]


def test_a_shuffler_count_of_52_the_shoe_disagrees_with_removes_the_deck(tmp_path, monkeypatch):
    """A known real-world failure: the shuffler counts 52, but the deck it shuffled into the card-reading
    shoe is not a whole deck.  The shoe's stub count at the end of the round finds it (HCF ch.10 §C-§E,
    ch.8 §G(2)): all hands void and the deck removed; the reason names both counts (P40)."""
    with table_in_process("high_card_flush", tmp_path, monkeypatch, add_devices=("shuffler",)) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        round_id = t.dealer.bets_for = s["round"]["round_id"]
        t.controls["shoe"]("load", cards=[c.text for c in DECK][:51])  # one card lost between the two
        t.controls["progressive"]("set_bets", bets={"2": {"0": 1000}})
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "decisions" and not s["expecting_cards"], "the whole deal")
        s = t.press(f"bet_{min(s['round']['to_act']['multiples'])}x")
        assert phase(s) == "voided", s["message"]
        assert told(s)["cause"] == "stub_count" and told(s)["remove_deck"], s["message"]
        assert told(s)["counts"]["shuffler"] == 52 and told(s)["counts"]["drawn"] + told(s)["counts"]["left"] == 51
        s = t.press("confirm")
        assert s["round"] is None and s["next_step"]["step"].startswith("decks_inspected")
    with Journal(t.journal_path) as j:
        assert [e.kind for e in j.events(round_id)].count("voided") == 1
        assert [e.data["reason"] for e in j.events(None) if e.kind == "deck_removed"] == ["51 cards in it"]


def test_the_daemon_starts_with_a_silent_progressive_system_and_takes_it_when_it_answers(tmp_path, monkeypatch):
    """P94 (NJAC 13:69E-1.39B): a silent progressive system does not stop start-up: the daemon comes up
    (READY=1), its wagers disabled and said so; no round is dealt meanwhile (its unit holds the bet sensors,
    P37); once it answers progressive wagers are enabled again."""
    import socket

    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(60)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify.sock"))
    # the start waits this long for the silent system (10 s in the product): the same start, 8 s less waited
    monkeypatch.setattr(controller.service.devices, "DEVICE_START_TIMEOUT", 2.0)
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        t.controls["progressive"]("stop_answering")
        t.start_daemon()
        assert notify.recv(64) == b"READY=1"
        s = t.until(lambda s: s.get("devices"), "the daemon's first status")
        assert s["devices"]["progressive"] == "offline" and s["devices"]["panel"] == "online"
        assert s["progressive_wagers"] == "disabled: the progressive system is not answering"
        t.open_table()  # the opening steps need no progressive system
        s = t.press_refused("no_more_bets")
        assert phase(s) == "wagers"
        assert t.daemon.poll() is None
        t.controls["progressive"]("resume")
        s = t.until(lambda s: s["devices"]["progressive"] != "offline", "the progressive system answering")
        assert s["progressive_wagers"] == "enabled"
    with Journal(t.journal_path) as j:
        kinds = [e.kind for e in j.events(None) if e.kind.startswith("progressive_")]
    assert kinds == ["progressive_disabled", "progressive_enabled"]
    notify.close()

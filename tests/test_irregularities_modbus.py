"""Every fault the simulated panel and progressive system can inject, end to end through the daemon, per game.

The shoe's and the shuffler's faults are in tests/test_irregularities_devices.py; this file does the
same for the two Modbus devices (docs/protocols-modbus.md; simulators/panel.py,
simulators/progressive.py, simulators/modbus_device.py), for each example table (config/: every one
has a panel and a progressive system).  One simulated table per test (tests/daemon_harness.py, in
process: the daemon, the simulators over their real protocols, a scripted dealer).

The dealer's panel (docs/protocols-modbus.md §5: the panel debounces and counts, the driver reads the
counters; a press is neither lost nor doubled):

* a contact that bounces is one press; a touch shorter than the debounce is none;
* a burst of presses between two polls is taken in press order (the ring), and a burst longer than
  the ring is taken press for press (the counters);
* a power cycle (``reboot``: new ``boot_id``, counters from 0; the common ``reset`` is the same
  power-up) invents no press and loses none made after it;
* a panel whose heartbeat stops is OFFLINE although it answers (§3, §6): it reports no press while
  OFFLINE, and a press made meanwhile is refused once it is back (§5(5), as for a panel that does
  not answer at all).

The progressive system (ch.2 §C, ch.8 §C(2)-(3): the bet sensors, the wagering devices and the
lock-out are on it), for the phases tests/test_irregularities_devices.py (decisions) and
tests/test_progressive_system.py (UTH: wagers, between rounds, lock-out not confirmed, a late wager
at no more bets) do not cover already:

* heartbeat frozen / not answering while wagers are taken, and after the lock-out;
* a power cycle (``reset``) that loses the wager it accepted: nothing made up, the dealer's count;
* the lock-out that cannot be confirmed (``stick_lockout``): the round without progressive wagers,
  enabled again once the lock-out is confirmed; wagers tried after the lock-out, journaled once
  each, their lights off, the flags cleared after the round;
* not answering while a progressive win is held for validation (ch.11: the sign is updated before
  any wager is taken on it again).

A press is "taken" once the status's ``presses_handled`` counts it; "nothing else happened" is shown
by a known press made afterwards (the daemon takes presses one at a time, in order).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from controller.journal.store import Journal
from daemon_harness import (
    SEAT,
    at_rest,
    bet,
    clause_id,
    confirm,
    deal,
    deal_a_round,
    first_round,
    meter_sum,
    next_round,
    no_more_bets,
    phase,
    play_out,
    quick_faults,
    smallest_decision,
    table_in_process,
    told,
)
from daemon_harness import journal as _journal
from daemon_harness import round_id as _round_id
from games.cards import DECK
from games.dealing import Procedure, initial_deal, stacks
from games.registry import GAMES as RULES

GAMES = {g.short: g.name for g in RULES.values()}  # every game the table runs, by its short name
KEY = "supervisor 4711"  # Dealer.with_key turns the key of supervisor 4711


@pytest.fixture(autouse=True)
def _quick_faults(monkeypatch):
    """The Modbus devices' faults found in a third of the product's time (daemon_harness.quick_faults)."""
    quick_faults(monkeypatch)
NOT_ANSWERING = "the progressive system is not answering"  # controller.daemon.NOT_ANSWERING
# the lock-out, each game's own clause (HCF ch.8 §C numbers it (1): its "no more bets" is §C itself)
LOCKOUT = {"UTH": "UTH ch.8 §C(2)", "JHE": "JHE ch.8 §C(2)", "HCF": "HCF ch.8 §C(1)", "RET": "RET ch.8 §C(2)"}
# the progressive chips counted against the wagers the system accepted, each game's own clause
COUNT = {"UTH": "UTH ch.8 §C(3)", "JHE": "JHE ch.8 §C(3)", "HCF": "HCF ch.8 §C(2)(b)", "RET": "RET ch.8 §C(3)"}
VALIDATION = {"UTH": "UTH ch.11 §J(2)(c)", "JHE": "JHE ch.11 §K(2)(c)", "HCF": "HCF ch.11 §B(9)(c)",
              "RET": "RET ch.12 §F"}  # the games' TableClauses.progressive_validation


# ---------------------------------------------------------------------------------------------- helpers


def _marker(t, button: str, expected: int) -> dict:
    """Press ``button`` where it does nothing and wait until the daemon refused it: every press made
    before it has been taken by then, so ``presses_handled`` is exactly ``expected``."""
    t.controls["panel"]("press", button=button)
    s = t.until(lambda s: told(s)["kind"] == "refused" and told(s)["cause"] == "does_nothing"
                and s["presses_handled"] >= expected, f"{button} refused")
    assert s["presses_handled"] == expected, (s["presses_handled"], expected, s["message"])
    return s


def _until_device(t, device: str, offline: bool) -> dict:
    return t.until(lambda s: (s["devices"][device] == "offline") == offline,
                   f"the {device} {'offline' if offline else 'back'}")


def _kinds(events) -> list[str]:
    return [e.kind for e in events]


def _decisions(events) -> list[tuple[int, str]]:
    return [(e.data["seat"], f"{e.data['multiple']}x" if e.data["multiple"] else
             "check" if e.data["check"] else "fold") for e in events if e.kind == "decision"]


def _progressive_events(table) -> list[tuple[str, dict]]:
    return [(e.kind, e.data) for e in table if e.kind in ("progressive_disabled", "progressive_enabled",
                                                         "late_progressive_wager")]


# ------------------------------------------------------------------------ the panel: bounce and touch


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-panel-bounce-and-touch(modbus-5)" for g in GAMES])
def test_a_bouncing_contact_is_one_press_and_a_touch_none(game, tmp_path, monkeypatch):
    """docs/protocols-modbus.md §5: the panel counts a change of the contact once it held still for
    5 ms.  A touch of 2 ms on no more bets is no press (the round stays open for wagers); no more bets
    whose contact bounces five times on closing and opening is taken once (one ``no_more_bets``
    journaled, the progressive lock-out set once); a decision that bounces is one decision."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t, shoe_seed=7)
        round_id = bet(t, s)
        n = s["presses_handled"]
        assert t.controls["panel"]("press", button="no_more_bets", hold_ms=2)["registered"] == 0
        s = _marker(t, "deal", n + 1)  # only the known press after it was taken
        assert phase(s) == "wagers" and _round_id(s) == round_id
        writes = t.controls["progressive"]("outputs")["lockout_writes"]
        assert t.controls["panel"]("press", button="no_more_bets", bounce=5)["registered"] == 1
        s = _marker(t, "deal", n + 3)
        assert phase(s) == "no_more_bets" and "progressive" in s["round"]["seats"][str(SEAT)]["wagers"]
        out = t.controls["progressive"]("outputs")
        assert out["lockout"] and out["lockout_writes"] == writes + 1  # locked out once
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        n = s["presses_handled"]
        assert t.controls["panel"]("press", button=smallest_decision(s["round"]["to_act"]), bounce=5)["registered"] == 1
        s = _marker(t, "deal", n + 2)
    events, _ = _journal(t, round_id)
    assert _kinds(events).count("no_more_bets") == 1
    assert len(_decisions(events)) == 1, _decisions(events)


# ------------------------------------------------------------------------ the panel: bursts


# One decision per seat (1, 2, 3) at the first street, in one burst; none in the order of the
# buttons' indexes (what the counters alone would give), so the order taken shows it is the ring's.
BURSTS = {
    "UTH": (["bet_4x", "check", "bet_3x"], [(1, "4x"), (2, "check"), (3, "3x")]),  # UTH ch.11 §B(1)
    # a button once per poll (docs/protocols-modbus.md §5 (6)): JHE and HCF offer two choices, so two seats
    "JHE": (["check", "bet_3x"], [(1, "check"), (2, "3x")]),  # JHE ch.11 §C(1)
    "HCF": (["fold", "bet_1x"], [(1, "fold"), (2, "1x")]),  # HCF ch.11 §B
    "RET": (["bet_3x", "fold", "bet_1x"], [(1, "3x"), (2, "fold"), (3, "1x")]),  # RET ch.11 §B(1)
}


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-panel-burst(modbus-5)" for g in GAMES])
def test_a_burst_of_presses_between_two_polls_is_taken_in_order(game, tmp_path, monkeypatch):
    """docs/protocols-modbus.md §5 (3): the presses between two polls are read from the ring, in press
    order, none lost or doubled; one button counted twice between two polls is no finger's (issue 30: a
    glitch made decisions), a fault, §5 (6).  64 presses of one button at once: the dealer told, none taken,
    then the next press is.  Seats' decisions pressed in one burst, each on its own button: each seat gets
    its own, in order (R1)."""
    buttons, decided = BURSTS[game]
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t, shoe_seed=7)
        n = s["presses_handled"]
        assert t.controls["panel"]("press", button="deal", count=64)["registered"] == 64
        t.until(lambda s: told(s)["kind"] == "panel_fault", "the fault told")
        s = _marker(t, "seat_6", n + 1)
        assert phase(s) == "wagers"
        round_id = bet(t, s, seats=(1, 2, 3))
        no_more_bets(t)
        s = deal(t)
        assert phase(s) == "decisions" and s["round"]["to_act"]["seat"] == 1, s["message"]
        n = s["presses_handled"]
        assert t.controls["panel"]("press", buttons=buttons)["registered"] == len(buttons)
        s = t.until(lambda s: s["presses_handled"] >= n + len(buttons) and at_rest(s), "the decisions")
        assert s["presses_handled"] == n + len(buttons) and told(s)["kind"] != "refused", s["message"]
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
    events, _ = _journal(t, round_id)
    assert _decisions(events)[:len(decided)] == decided


# ------------------------------------------------------------------------ the panel: power cycle


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-panel-reboot(modbus-5-4)" for g in GAMES])
def test_a_panel_power_cycle_invents_no_press_and_loses_none(game, tmp_path, monkeypatch):
    """docs/protocols-modbus.md §5 (4): after a power cycle (new ``boot_id``, the counters from 0) the
    driver reports the presses made since, and makes up nothing from the jump of the counters.  A
    reboot alone: nothing taken (a known press after it is the only one); a reboot and a decision
    pressed right after it: the decision is taken once."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        round_id, s = deal_a_round(t, shoe_seed=7)
        assert phase(s) == "decisions", s["message"]
        to_act = s["round"]["to_act"]
        n = s["presses_handled"]
        boot = t.controls["panel"]("state")["state"]["boot_id"]
        assert t.controls["panel"]("reboot")["boot_id"] != boot
        s = _marker(t, "deal", n + 1)
        assert phase(s) == "decisions" and s["round"]["to_act"] == to_act
        t.controls["panel"]("reboot")
        t.controls["panel"]("press", button=smallest_decision(to_act))
        s = _marker(t, "deal", n + 3)
        assert s["round"].get("to_act") != to_act, s["message"]  # the decision was taken
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
    events, _ = _journal(t, round_id)
    decisions = _decisions(events)
    assert decisions[0] == (SEAT, smallest_decision(to_act).removeprefix("bet_")), decisions


@pytest.mark.parametrize("button,jump", [("fold", 40000), ("check", 30), ("check", 2)])
def test_a_glitched_panel_counter_is_a_fault_not_presses(button, jump, tmp_path, monkeypatch):
    """Device input is checked, not believed: one counter register jumping (noise: by 40,000; issue 30 (4):
    by +30 on the check counter, which made 8 decisions and revealed the board; by 2) queues no press; it
    is journaled (``device_input_refused``) and the dealer told; the next real press is one press
    (docs/protocols-modbus.md §5 (6))."""
    with table_in_process(GAMES["UTH"], tmp_path, monkeypatch) as t:
        s = first_round(t, shoe_seed=7)
        bet(t, s)
        no_more_bets(t)
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        to_act = s["round"]["to_act"]
        n = s["presses_handled"]
        for glitch in (1, 2):  # twice: journaled once, with its count when the panel works again (issue 30 (10))
            count = t.controls["panel"]("state")["state"][f"count.{button}"]
            told_before = told(s)["n"]
            t.controls["panel"]("glitch", point=f"count.{button}", value=count + jump)
            s = t.until(lambda s, before=told_before: told(s)["kind"] == "panel_fault" and told(s)["n"] > before,
                        f"fault {glitch} told")
        s = _marker(t, "deal", n + 1)  # nothing but the marker was taken: no fold
        assert phase(s) == "decisions" and s["round"]["to_act"] == to_act
    with Journal(t.journal_path) as j:
        table = j.events(None)
    refused = [e.data for e in table if e.kind == "device_input_refused"]
    assert [(r["device"], r["fault"]) for r in refused] == [("dealer panel", "counter_jump")]
    ended = [e.data for e in table if e.kind == "device_fault_ended"]
    assert ended == [{"device": "dealer panel", "fault": "counter_jump", "count": 2}]


# ------------------------------------------------------------------------ the panel: heartbeat frozen


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-panel-freeze_heartbeat(modbus-3-6)" for g in GAMES])
def test_a_panel_whose_heartbeat_stops_reports_no_press_until_it_runs_again(game, tmp_path, monkeypatch):
    """docs/protocols-modbus.md §3, §6: a heartbeat unchanged for 1.5 s makes the panel OFFLINE even
    though it still answers, and an OFFLINE panel reports no press until it is reached again (§6);
    a press made meanwhile is reported once it is back, flagged as made during the outage (§5 (5)),
    and the daemon refuses it ("press it again"), as for a panel that does not answer at all.  The
    daemon's watchdog pings go on: the panel's fault is handled by the rules, not by a restart (P94)."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        round_id, s = deal_a_round(t, shoe_seed=7)
        assert phase(s) == "decisions", s["message"]
        to_act = s["round"]["to_act"]
        n = s["presses_handled"]
        t.controls["panel"]("freeze_heartbeat", on=True)
        s = _until_device(t, "panel", True)
        assert s["watchdog"] == "pinging", s["watchdog"]  # a device's fault is not the daemon's (P94)
        t.controls["panel"]("press", button=smallest_decision(to_act))
        t.controls["panel"]("freeze_heartbeat", on=False)
        s = t.until(lambda s: s["devices"]["panel"] != "offline" and s["presses_handled"] >= n + 1,
                    "the panel back and the press taken")
        assert s["presses_handled"] == n + 1
        assert told(s)["kind"] == "refused" and told(s)["cause"] == "panel_unreachable", s["message"]
        assert phase(s) == "decisions" and s["round"]["to_act"] == to_act
        assert s["watchdog"] == "pinging"
        s = t.press(smallest_decision(to_act))  # pressed again: taken
        assert s["round"].get("to_act") != to_act, s["message"]
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
    events, _ = _journal(t, round_id)
    assert _decisions(events)[0] == (SEAT, smallest_decision(to_act).removeprefix("bet_"))
    assert "halted" not in _kinds(events)


# ------------------------------------------------------------------------ the progressive system: outages


def _fault(t, fault: str, on: bool) -> None:
    if fault == "freeze_heartbeat":
        t.controls["progressive"]("freeze_heartbeat", on=on)
    else:
        t.controls["progressive"]("stop_answering" if on else "resume")


# UTH's stop_answering while wagers are taken: tests/test_progressive_system.py
AT_WAGERS = [(g, "freeze_heartbeat") for g in GAMES] + [(g, "stop_answering") for g in ("JHE", "HCF", "RET")]


@pytest.mark.parametrize("game,fault", AT_WAGERS, ids=[f"{g}-progressive-{f}-at-wagers(ch8-C2)" for g, f in AT_WAGERS])
def test_the_progressive_system_out_while_wagers_are_taken(game, fault, tmp_path, monkeypatch):
    """ch.8 §C(2): no more bets needs the bet sensors and the lock-out, both on the progressive
    system.  While it is OFFLINE (silent, or answering with its heartbeat stopped, docs/protocols-
    modbus.md §3) progressive wagers are disabled (journaled, the dealer told) and no more bets is
    refused -- the round stays open for wagers, nothing of it journaled; once it is back they are
    enabled again and no more bets takes the wager accepted before the outage."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t, shoe_seed=7)
        round_id = bet(t, s)
        _fault(t, fault, True)
        s = _until_device(t, "progressive", True)
        assert s["progressive_wagers"] == f"disabled: {NOT_ANSWERING}", s["progressive_wagers"]
        assert told(s)["kind"] == "progressive_disabled" and told(s)["cause"] == "not_answering", s["message"]
        s = t.press_refused("no_more_bets")
        assert phase(s) == "wagers" and _round_id(s) == round_id, s["message"]
        assert s["progressive_wagers"] == f"disabled: {NOT_ANSWERING}", s["message"]
        _fault(t, fault, False)
        s = t.until(lambda s: s["progressive_wagers"] == "enabled", "progressive wagers enabled again")
        assert told(s)["kind"] == "progressive_enabled", s["message"]
        s = no_more_bets(t)
        assert _round_id(s) == round_id
        out = t.controls["progressive"]("outputs")
        assert out["lockout"] and out["lights"]["accepted"] == [SEAT], out
    events, table = _journal(t, round_id)
    kinds = _kinds(events)
    assert kinds.count("no_more_bets") == 1 and kinds.count("meter_add") == 1 and "halted" not in kinds, kinds
    assert _progressive_events(table) == [("progressive_disabled", {"round": round_id, "reason": NOT_ANSWERING}),
                                          ("progressive_enabled", {"round": round_id})]


AFTER_LOCKOUT = [(g, f) for g in GAMES for f in ("stop_answering", "freeze_heartbeat")]


@pytest.mark.parametrize("game,fault", AFTER_LOCKOUT,
                         ids=[f"{g}-progressive-{f}-after-the-lock-out(ch8-C2-C3)" for g, f in AFTER_LOCKOUT])
def test_the_progressive_system_out_after_the_lock_out(game, fault, tmp_path, monkeypatch):
    """ch.8 §C(2)-(3): the lock-out was confirmed and the wagers counted, then the progressive system
    goes OFFLINE before the dealer confirms the count.  The round's progressive wager stands (its
    contribution stays on the meters) and the round is dealt and played out; the next round's no
    more bets is refused until the system is back; its flags, lights and lock-out are then reset
    before no more bets reads them: the last round's wager is not taken a second time."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t, shoe_seed=7)
        round_id = bet(t, s)
        no_more_bets(t)
        _fault(t, fault, True)
        s = _until_device(t, "progressive", True)
        assert s["progressive_wagers"] == f"disabled: {NOT_ANSWERING}"
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        assert s["round"]["seats"][str(SEAT)]["wagers"]["progressive"] == "1.00"
        confirm(t)
        _, s = next_round(t, round_id)
        second = bet(t, s, progressive=())  # the player does not make the progressive wager again
        s = t.press_refused("no_more_bets")
        assert phase(s) == "wagers" and s["progressive_wagers"].startswith("disabled: "), s["message"]
        _fault(t, fault, False)
        t.until(lambda s: s["progressive_wagers"] == "enabled", "progressive wagers enabled again")
        no_more_bets(t, progressive=False)
        out = t.controls["progressive"]("outputs")
        assert out["lockout"] and out["accepted"] == [] and out["lights"] == {"accepted": [], "winner": []}, out
    events, table = _journal(t, round_id)
    kinds = _kinds(events)
    assert "halted" not in kinds and "voided" not in kinds and kinds[-1] == "round_closed", kinds
    contribution = next(e for e in events if e.kind == "meter_add").data["meters"]
    assert meter_sum(events) == {m: Decimal(str(v)) for m, v in contribution.items()}  # the wager stood
    assert [k for k, _ in _progressive_events(table)] == ["progressive_disabled", "progressive_enabled"]
    second_events, _ = _journal(t, second)
    assert "meter_add" not in _kinds(second_events)


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-progressive-reset-at-wagers(ch8-C3)" for g in GAMES])
def test_a_progressive_power_cycle_while_wagers_are_taken_loses_the_wager_it_accepted(game, tmp_path, monkeypatch):
    """The progressive system powers up again (``reset``) after it accepted seat 2's wager: the
    device no longer holds it, and nothing is made up -- no more bets counts no progressive wager
    (ch.8 §C(2)).  The dealer's count of the chips disagrees (ch.8 §C(3)): ``undo`` stops the
    round, the floor supervisor voids it with the key, every wager returned, nothing on the meters."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t, shoe_seed=7)
        round_id = bet(t, s)
        t.controls["progressive"]("reset")
        assert t.controls["progressive"]("outputs")["accepted"] == []
        bet(t, s, progressive=())  # the chips still lie on the layout: the bet sensors read them again
        s = no_more_bets(t, progressive=False)
        assert s["progressive_wagers"] == "enabled" and told(s)["kind"] == "wagers_closed", s["message"]
        assert told(s)["counts"]["progressive_accepted"] == 0, s["message"]
        s = t.press("undo")  # one progressive chip on the layout, none accepted
        assert phase(s) == "halted" and COUNT[game] in s["round"]["halted"]["reason"], s["message"]
        s = t.dealer.with_key(s, "void_round")
        assert phase(s) == "voided", s["message"]
        confirm(t)
        next_round(t, round_id)
    events, _ = _journal(t, round_id)
    kinds = _kinds(events)
    assert kinds.count("halted") == 1 and kinds.count("voided") == 1 and "meter_add" not in kinds, kinds
    assert kinds[-1] == "round_voided", kinds


# ------------------------------------------------------------------------ the lock-out and late wagers


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-progressive-stick_lockout-then-late-wagers(ch8-C2)"
                                                  for g in GAMES])
def test_a_lock_out_not_confirmed_and_wagers_after_the_lock_out(game, tmp_path, monkeypatch):
    """ch.8 §C(2) (docs/protocols-modbus.md §4 (1)-(4)).

    The lock-out relay is stuck: it cannot be confirmed, so the round is taken without progressive
    wagers (journaled, the dealer told to return the progressive chips, no contribution, no light);
    a chip on a wagering device after no more bets is then accepted by the device -- and never
    counted: the flags are cleared at the round's close.  Next round, the lock-out confirmed:
    progressive wagers are enabled again.  Wagers tried after the lock-out (at the count, and while
    the decisions are entered) are not recognised: their lights stay off, each seat is journaled
    once with the round, and the late flags are cleared after it."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        prog = t.controls["progressive"]
        s = first_round(t, shoe_seed=7)
        first = bet(t, s)
        prog("stick_lockout", on=True)
        s = no_more_bets(t, progressive=False)
        said = told(s)  # no more bets, taken without progressive wagers: the dealer returns their chips
        assert said["kind"] == "wagers_closed" and said["also"] == ["progressive_disabled"], s["message"]
        assert said["cause"] == "lockout_not_confirmed" and said["clauses"] == [LOCKOUT[game]], s["message"]
        assert s["progressive_wagers"].startswith("disabled: ") and "lock-out" in s["progressive_wagers"]
        out = prog("outputs")
        assert not out["lockout"] and out["lights"]["accepted"] == [], out
        assert prog("wager", seat=4)["accepted"]  # the device is not locked out
        s = deal(t)
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        confirm(t)
        assert prog("outputs")["accepted"] == []  # cleared at the close (seat 2's chip and seat 4's)
        prog("stick_lockout", on=False)
        _, s = next_round(t, first)
        second = bet(t, s)
        s = no_more_bets(t)
        assert s["progressive_wagers"] == "enabled", s["progressive_wagers"]
        assert prog("wager", seat=3) == {"accepted": False, "late": True}
        out = prog("outputs")
        assert out["lockout"] and out["lights"]["accepted"] == [SEAT] and out["late"] == [3], out
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        assert prog("wager", seat=3)["late"] and prog("wager", seat=4)["late"]
        s = play_out(t)
        assert prog("outputs")["lights"]["accepted"] == [SEAT]
        confirm(t)
        out = prog("outputs")
        assert not out["lockout"] and out["late"] == [] and out["accepted"] == [], out
    first_events, table = _journal(t, first)
    second_events, _ = _journal(t, second)
    assert "meter_add" not in _kinds(first_events)
    assert _kinds(second_events).count("meter_add") == 1
    assert [(k, d.get("round"), d.get("seats")) for k, d in _progressive_events(table)] == [
        ("progressive_disabled", first, None), ("progressive_enabled", second, None),
        ("late_progressive_wager", second, [3]), ("late_progressive_wager", second, [4])]
    disabled = next(d for k, d in _progressive_events(table) if k == "progressive_disabled")
    assert LOCKOUT[game] in disabled["reason"]


# ------------------------------------------------------------------------ a progressive win held


# The top line of each Progressive paytable at seat 1 (tests/test_progressive_each_game.py,
# tests/test_progressive_system.py): the cards by place, the meter it pays.
WINS = {
    "UTH": ({("seat", 1, 0): "As", ("seat", 1, 1): "Ks", ("community", 0): "Ts", ("community", 1): "Js",
             ("community", 2): "Qs", ("community", 3): "7d", ("community", 4): "2d",
             ("dealer", 0): "8h", ("dealer", 1): "8d"}, "major"),  # UTH ch.12 §D(3)(b)(ii)
    "JHE": ({("seat", 1, 0): "Ad", ("seat", 1, 1): "Kd", ("community", 0): "Qd", ("community", 1): "Jd",
             ("community", 2): "Td", ("community", 3): "2s", ("community", 4): "3c",
             ("dealer", 0): "7h", ("dealer", 1): "7c"}, "star"),  # JHE ch.12 §D(6)(a)
    "HCF": ({**{("seat", 1, i): c for i, c in enumerate(["2h", "3h", "4h", "5h", "6h", "7h", "8h"])},
             **{("dealer", i): c for i, c in enumerate(["2c", "5d", "9s", "Jc", "Kd", "4s", "7d"])}},
            "meter"),  # HCF ch.12 §E(1)(d)(i)
    "RET": ({("seat", 1, 0): "As", ("seat", 1, 1): "Ks", ("community", "left"): "Qs",
             ("community", "center"): "Js", ("community", "right"): "Ts", ("community", "top"): "2d",
             ("community", "bottom"): "3c"}, "mega"),  # RET ch.12 §F(4)(a)
}
PROCEDURE = {"UTH": Procedure.AUTOMATED, "JHE": Procedure.HAND, "HCF": Procedure.AUTOMATED,
             "RET": Procedure.MANUAL_SHOE}


def _winning_deck(game: str) -> list[str]:
    """The deck that deals WINS[game] in the order the game's procedure deals (games.dealing)."""
    wanted, _ = WINS[game]
    rules = RULES[GAMES[game]]
    if PROCEDURE[game] is Procedure.AUTOMATED:
        places = [p for stack in stacks(rules, [1]) for p in stack.places]
    else:
        places = initial_deal(rules, PROCEDURE[game], [1])
    rest = [c.text for c in DECK if c.text not in wanted.values()]
    return [wanted[p] if p in wanted else rest.pop(0) for p in places] + rest


@pytest.mark.parametrize("game", list(GAMES),
                         ids=[f"{g}-progressive-stop_answering-win-held({clause_id(VALIDATION[g])})" for g in GAMES])
def test_the_progressive_system_out_while_a_win_is_held(game, tmp_path, monkeypatch):
    """A progressive win is held until a floor supervisor validates it (UTH ch.11 §J(2)(c), JHE ch.11
    §K(2)(c), HCF ch.11 §B(9)(c), RET ch.12 §F); the progressive system stops answering meanwhile.
    The validation is the supervisor's and the journal's: it is taken, the meter paid back to its
    reset (R4).  The sign that could not be updated is updated before the next no more bets takes a
    wager on it, once the system is back; the winner light is off by then."""
    wanted, meter = WINS[game]
    deck = _winning_deck(game)
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        reset = t.cfg.progressive.meters[meter].reset
        index = list(t.cfg.progressive.meters).index(meter)  # sign i shows the configuration's meter i
        if "shuffler" in t.controls:
            for d in ("A", "B") if game == "UTH" else ("A",):
                t.controls["shuffler"]("set_deck", cards=deck, deck=d)
        s = first_round(t)
        if "shoe" in t.controls:
            t.controls["shoe"]("load", cards=deck)
        round_id = bet(t, s, seats=(1,), progressive=(1,))
        t.press("no_more_bets")
        s = deal(t)
        s = play_out(t)
        assert phase(s) == "settled" and [(h["seat"], h.get("meter")) for h in s["validation"]][:1] == [(1, meter)], \
            s["message"]
        assert t.controls["progressive"]("outputs")["lights"]["winner"] == [1]
        t.controls["progressive"]("stop_answering")
        s = _until_device(t, "progressive", True)
        s = t.dealer.with_key(s, "confirm")  # the floor supervisor validates
        assert s["validation"] == [] and told(s)["kind"] == "progressive_validated", s["message"]
        assert Decimal(s["meters"][meter]) == reset
        confirm(t)
        _, s = next_round(t, round_id)
        second = bet(t, s, progressive=())
        s = t.press_refused("no_more_bets")
        assert phase(s) == "wagers" and s["progressive_wagers"].startswith("disabled: "), s["message"]
        t.controls["progressive"]("resume")
        t.until(lambda s: s["progressive_wagers"] == "enabled", "progressive wagers enabled again")
        s = no_more_bets(t, progressive=False)
        assert _round_id(s) == second
        out = t.controls["progressive"]("outputs")
        assert out["meters"][index] == int(reset * 100), out["meters"]  # the sign shows the meter paid
        assert out["lights"]["winner"] == [] and out["lockout"], out
    events, table = _journal(t, round_id)
    paid = [e for e in events if e.kind == "meter_paid"]
    assert len(paid) == 1 and paid[0].data["meter"] == meter and paid[0].who == KEY
    assert Decimal(paid[0].data["after"]) == reset
    assert _kinds(events)[-1] == "round_closed"
    assert [k for k, _ in _progressive_events(table)] == ["progressive_disabled", "progressive_enabled"]

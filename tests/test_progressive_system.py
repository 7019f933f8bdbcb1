"""The progressive system through the daemon and the simulators (issue: the progressive system).

UTH with the example table (config/ultimate_texas_holdem.toml: Progressive B, Envy B, meters
Major $10,000 / reset $1,000 and Minor $500 / reset $250, unit $1).  The shuffler deals the
order set with ``set_deck`` (UTH ch.10 §B: the Six Card Bonus stack, the community stack, the
dealer's two held in the shuffler, then two cards per player from seat 1, R1).

* a progressive win is held: winner light on, the dealer told, nothing paid from the meter until
  a floor supervisor validates with the key (UTH ch.11 §J(2)(a)-(c)); then ``meter_paid``
  with the supervisor, the meter back to its reset (R4), the sign updated, the history;
* a SIGKILL between the win and the validation: the restarted daemon waits again; paid once;
* two winners of one meter in one round: the second from the meter as the first left it (R4);
* the progressive system not answering / its lock-out not confirmed: progressive wagers
  disabled, the dealer told, journaled, enabled again when it is back (ch.8 §C(2));
* a wager tried after the lock-out is journaled (``late_progressive_wager``).
"""

from __future__ import annotations

import io
import signal
from decimal import Decimal

import pytest

from controller.cli.main import main as tablectl
from controller.journal.store import Journal
from daemon_harness import phase, simulated_table, table_in_process, told
from games.cards import DECK

BONUS = ["2c", "3c", "4c", "5c"]
DEALER = ["8h", "8d"]


def order(community: list[str], *seats: list[str]) -> list[str]:
    first = BONUS + community + DEALER + [c for s in seats for c in s]
    return first + [c.text for c in DECK if c.text not in first]



def start(t, cards: list[str] | None = None) -> dict:
    if cards is not None:
        for deck in ("A", "B"):  # the opening shuffles both decks (ch.4 §E); either deals this order
            t.controls["shuffler"]("set_deck", cards=cards, deck=deck)
    t.start_daemon()
    t.open_table()
    return t.until(lambda s: phase(s) == "wagers", "the first round")


def bets(t, seats: dict[int, int], progressive: list[int]) -> None:
    """Ante and Blind of ``seats[n]`` dollars; a progressive wager at each of ``progressive``."""
    t.controls["progressive"]("set_bets", bets={str(n): {"0": d * 100, "1": d * 100} for n, d in seats.items()})
    for n in progressive:
        assert t.controls["progressive"]("wager", seat=n)["accepted"]


def tablectl_out(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert tablectl(list(argv), stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


def royal_round(t) -> str:
    """Seat 1 makes a royal flush with a progressive wager, bets 4x; the round settles."""
    s = start(t, order(["Ts", "Js", "Qs", "7d", "2d"], ["As", "Ks"]))
    round_id = s["round"]["round_id"]
    bets(t, {1: 10}, [1])
    t.press("no_more_bets")
    s = t.press("confirm")
    assert phase(s) == "decisions"
    s = t.press("bet_4x")
    assert phase(s) == "settled", s
    return round_id


def test_royal_flush_held_until_the_supervisor_validates(tmp_path, monkeypatch):
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        round_id = royal_round(t)
        major = Decimal("10000.04")  # initial + this round's contribution (R4)
        s = t.status()
        assert s["validation"] == [{"hit": 0, "seat": 1, "wager": "progressive", "line": "royal_flush",
                                    "amount": str(major), "meter": "major"}]
        na = s["next_action"]
        assert {k: na[k] for k in ("action", "button", "key", "why")} == {
            "action": "validate_progressive", "button": "confirm", "key": True, "why": "UTH ch.11 §J(2)(c)"}
        assert na["hits"] == s["validation"]  # seat 1's win, held (its validation above)
        assert [(st["do"], st["clause"]) for st in na["steps"]] == [
            ("verify_hand", "UTH ch.11 §J(2)(a)"), ("verify_light", "UTH ch.11 §J(2)(b)"),
            ("supervisor_validates", "UTH ch.11 §J(2)(c)"), ("pay_progressive", "UTH ch.11 §J(2)(d)")]
        assert t.controls["progressive"]("outputs")["lights"]["winner"] == [1]
        assert Decimal(s["meters"]["major"]) == major  # not paid yet
        with Journal(t.journal_path) as j:
            assert not [e for e in j.events(round_id) if e.kind in ("meter_paid", "meter_set")]

        s = t.press_refused("confirm")  # the dealer alone cannot release it
        assert s["validation"] and phase(s) == "settled"
        s = t.dealer.with_key(s, "confirm")
        assert s["validation"] == [] and phase(s) == "settled"  # validated (by whom: the journal, below)
        assert s["next_action"]["action"] == "pay_and_collect"
        assert Decimal(s["meters"]["major"]) == Decimal("1000.00")  # back to its reset (R4)
        outputs = t.controls["progressive"]("outputs")
        assert outputs["meters"][:2] == [100000, 50001]  # the signs: major, minor in cents
        s = t.press("confirm")  # paid and collected
        assert phase(s) == "wagers" and s["round"]["round_id"] != round_id
        assert t.controls["progressive"]("outputs")["lights"]["winner"] == []

        with Journal(t.journal_path) as j:
            paid = [e for e in j.events(round_id) if e.kind == "meter_paid"]
            assert [(e.data["meter"], e.data["paid"], e.data["after"], e.who) for e in paid] == [
                ("major", str(major), "1000.00", "supervisor 4711")]
            hit = [e for e in j.events(None) if e.kind == "progressive_hit"]
            assert len(hit) == 1 and hit[0].data["round"] == round_id and hit[0].who == "supervisor 4711"

        config = str(t.config_path)
        history = tablectl_out("progressive", "history", "--config", config)
        assert "major" in history and str(major) in history and "seat 1" in history and "royal_flush" in history
        assert "supervisor 4711" in history
        report = tablectl_out("progressive", "report", "--config", config, "--json")
        import json

        rep = json.loads(report)
        assert rep["meters"]["major"]["hits"] == 1 and Decimal(rep["meters"]["major"]["paid"]) == major
        assert Decimal(rep["meters"]["major"]["coin_in"]) == 1 and Decimal(rep["meters"]["major"]["current"]) == 1000
        assert Decimal(rep["meters"]["minor"]["contributions"]) == Decimal("0.01")


@pytest.mark.requirement("NY 9 NYCRR 5321.18(b)(3)(i)")
def test_sigkill_between_the_win_and_the_validation(tmp_path, monkeypatch):
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        round_id = royal_round(t)
        t.daemon.send_signal(signal.SIGKILL)
        t.daemon.wait(timeout=30)
        before = t.status()
        t.start_daemon()
        s = t.dealer.wait_change(before, "restart", timeout=60)
        s = t.until(lambda s: told(s)["cause"] == "restarted", "the restart")
        assert phase(s) == "settled" and s["round"]["round_id"] == round_id
        assert [h["seat"] for h in s["validation"]] == [1] and told(s)["kind"] == "progressive_win", s["message"]
        assert told(s)["seats"] == [1], s["message"]
        assert t.controls["progressive"]("outputs")["lights"]["winner"] == [1]
        s = t.dealer.with_key(s, "confirm")
        assert s["validation"] == []
        s = t.press("confirm")
        assert phase(s) == "wagers"
        with Journal(t.journal_path) as j:
            assert [e.kind for e in j.events(round_id)].count("meter_paid") == 1
            assert len([e for e in j.events(None) if e.kind == "progressive_hit"]) == 1
            assert j.meter_values()["major"] == Decimal("1000.00")


def test_two_winners_of_one_meter_in_one_round(tmp_path, monkeypatch):
    """Two straight flushes on the Minor meter: seat 2 is settled first (R1) and takes the meter,
    seat 1 is paid from the meter as seat 2 left it, its reset (R4); each gets the other's Envy."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        s = start(t, order(["5s", "6s", "7s", "Kd", "2d"], ["3s", "4s"], ["8s", "9s"]))
        round_id = s["round"]["round_id"]
        bets(t, {1: 10, 2: 10}, [1, 2])
        t.press("no_more_bets")
        t.press("confirm")
        t.press("bet_4x")  # seat 1
        s = t.press("bet_4x")  # seat 2
        assert phase(s) == "settled"
        minor = Decimal("500.00") + Decimal("0.02")
        held = [(h["seat"], h["wager"], h.get("meter"), Decimal(h["amount"])) for h in s["validation"]]
        envy = Decimal(300)  # Envy B straight flush, $300 for $1 (UTH ch.12 §D(6)(b))
        assert held == [(2, "progressive", "minor", minor), (2, "envy", None, envy),
                        (1, "progressive", "minor", Decimal("250.00")), (1, "envy", None, envy)]
        assert t.controls["progressive"]("outputs")["lights"]["winner"] == [1, 2]
        s = t.dealer.with_key(s, "confirm")
        assert Decimal(s["meters"]["minor"]) == Decimal("250.00")
        with Journal(t.journal_path) as j:
            paid = [(e.data["seat"], e.data["paid"], e.data["after"]) for e in j.events(round_id)
                    if e.kind == "meter_paid"]
            assert paid == [(2, str(minor), "250.00"), (1, "250.00", "250.00")]
            assert len([e for e in j.events(None) if e.kind == "progressive_hit"]) == 4


@pytest.mark.requirement("NY 9 NYCRR 5321.18(c)")
def test_progressive_system_not_answering_disables_progressive_wagers(tmp_path, monkeypatch):
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        start(t)
        # the lock-out cannot be confirmed: the round is taken without progressive wagers (ch.8 §C(2))
        t.controls["progressive"]("stick_lockout", on=True)
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")
        assert phase(s) == "no_more_bets", s
        assert "progressive" not in s["round"]["seats"]["1"]["wagers"]
        assert told(s)["also"] == ["progressive_disabled"] and told(s)["cause"] == "lockout_not_confirmed", s["message"]
        meters = dict(s["meters"])
        t.press("confirm")
        s = t.press("bet_4x")
        assert phase(s) == "settled" and not s["validation"] and s["meters"] == meters  # no contribution
        t.controls["progressive"]("stick_lockout", on=False)
        t.controls["progressive"]("set_bets", bets={})
        s = t.press("confirm")
        assert phase(s) == "wagers"
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")
        assert s["round"]["seats"]["1"]["wagers"]["progressive"] == "1.00" and s["progressive_wagers"] == "enabled"
        # a wager tried after the lock-out is not recognised and is journaled (ch.8 §C(2))
        late_round = s["round"]["round_id"]
        reply = t.controls["progressive"]("wager", seat=2)
        assert reply["accepted"] is False and reply["late"] is True
        # each player sees the wager accepted; the late attempt's light stays off (ch.8 §C(2))
        assert t.controls["progressive"]("outputs")["lights"]["accepted"] == [1]
        s = t.press("confirm")
        assert phase(s) == "decisions"
        s = t.press("fold")
        # the progressive system stops answering: the bet sensors are on it too, so no more bets waits
        t.controls["progressive"]("stop_answering")
        s = t.until(lambda s: s.get("devices", {}).get("progressive") == "offline", "the progressive system offline")
        assert s["progressive_wagers"].startswith("disabled: the progressive system is not answering")
        assert told(s)["kind"] == "progressive_disabled" and told(s)["cause"] == "not_answering", s["message"]
        t.controls["progressive"]("resume")
        s = t.until(lambda s: s["progressive_wagers"] == "enabled", "progressive wagers enabled again")
        assert told(s)["kind"] == "progressive_enabled", s["message"]

    with Journal(t.journal_path) as j:
        table = [(e.kind, e.data) for e in j.events(None)]
    kinds = [k for k, _ in table]
    assert kinds.count("progressive_disabled") == 2 and kinds.count("progressive_enabled") == 2
    late = [d for k, d in table if k == "late_progressive_wager"]
    assert late == [{"round": late_round, "seats": [2]}]


def test_no_more_bets_while_the_progressive_system_is_silent(tmp_path, monkeypatch):
    """Nothing is lost: the press is refused (not a halted round), the round stays open for wagers."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        s = start(t)
        round_id = s["round"]["round_id"]
        t.controls["progressive"]("stop_answering")
        t.until(lambda s: s.get("devices", {}).get("progressive") == "offline", "offline")
        s = t.press("no_more_bets")
        assert phase(s) == "wagers" and told(s)["kind"] == "refused", s["message"]
        assert told(s)["cause"] == "not_answering", s["message"]
        t.controls["progressive"]("resume")
        t.until(lambda s: s["progressive_wagers"] == "enabled", "enabled again")
        bets(t, {3: 10}, [3])
        s = t.press("no_more_bets")
        assert phase(s) == "no_more_bets" and s["round"]["round_id"] == round_id
        assert s["round"]["seats"]["3"]["wagers"]["progressive"] == "1.00"


@pytest.mark.requirement("AGCO error conditions")
def test_disabled_progressive_wagers_stay_disabled_across_a_restart(tmp_path, monkeypatch):
    """The disabled state is the journal's: a daemon killed while progressive wagers are disabled
    (the lock-out could not be confirmed, ch.8 §C(2)) comes back with them disabled, and enables
    them only once the lock-out is confirmed again."""
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch, simulators="in_process") as t:
        start(t)
        t.controls["progressive"]("stick_lockout", on=True)
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")
        assert s["progressive_wagers"].startswith("disabled: ") and "lock-out" in s["progressive_wagers"]
        t.daemon.send_signal(signal.SIGKILL)
        t.daemon.wait(timeout=30)
        before = t.status()
        t.start_daemon()
        t.dealer.wait_change(before, "restart", timeout=60)
        s = t.until(lambda s: told(s)["cause"] == "restarted", "the restart")
        assert s["progressive_wagers"].startswith("disabled: ") and "lock-out" in s["progressive_wagers"]
        t.controls["progressive"]("stick_lockout", on=False)
        s = t.press("confirm")  # the round resumed at no more bets: dealt without progressive wagers
        while phase(t.status()) != "wagers":
            t.dealer.step()
        assert t.status()["progressive_wagers"].startswith("disabled: ")
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")
        assert s["progressive_wagers"] == "enabled" and s["round"]["seats"]["1"]["wagers"]["progressive"] == "1.00"


def _play_out(t) -> dict:
    """Fold every seat still to act; confirm the settlement: the next round opens."""
    s = t.status()
    for _ in range(20):
        if phase(s) != "decisions":
            break
        s = t.press("fold" if s["round"]["to_act"]["fold"] else "check")
    assert phase(s) == "settled", s["message"]
    t.controls["progressive"]("set_bets", bets={})
    return t.press("confirm")


@pytest.mark.requirement("58 Pa. Code 605a.7")
def test_a_meter_sign_that_disappears_disables_progressive_wagers_until_it_is_back(tmp_path, monkeypatch):
    """The signs show every meter (UTH ch.12 §D); a sign that stops taking the amounts disables
    progressive wagers for the following rounds, the dealer told and the journal saying why, until it
    shows the meters again; nothing is lost: the sign then shows the journal's meters."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        start(t)
        t.controls["progressive"]("sign", on=False)
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")  # accepted; its contribution cannot be shown
        assert s["round"]["seats"]["1"]["wagers"]["progressive"] == "1.00"
        t.press("confirm")
        s = _play_out(t)
        assert phase(s) == "wagers"
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")  # the next round: no progressive wager on meters nobody can see
        assert "progressive" not in s["round"]["seats"]["1"]["wagers"]
        assert s["progressive_wagers"].startswith("disabled: the meter signs are not answering"), s
        assert told(s)["also"] == ["progressive_disabled"] and told(s)["cause"] == "signs_not_ready", s["message"]
        assert t.controls["progressive"]("outputs")["lights"]["accepted"] == []
        t.press("confirm")
        s = _play_out(t)
        t.controls["progressive"]("sign", on=True)
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")
        assert s["progressive_wagers"] == "enabled" and s["round"]["seats"]["1"]["wagers"]["progressive"] == "1.00"
        shown = t.controls["progressive"]("outputs")["meters"]
    with Journal(t.journal_path) as j:
        meters = j.meter_values()
        kinds = [e.kind for e in j.events(None)]
    assert shown[:2] == [int(meters["major"] * 100), int(meters["minor"] * 100)]
    assert kinds.count("progressive_disabled") == 1 and kinds.count("progressive_enabled") == 1


def test_a_lock_out_lost_mid_round_is_set_again_and_the_wager_taken_meanwhile_does_not_count(tmp_path, monkeypatch):
    """ch.8 §C(2): wagers are locked out from no more bets to the end of the round.  A progressive
    system power cycled mid-round comes back unlocked with dark signs: the daemon finds it, journals
    it, locks out again and shows the meters again; a wager the system took meanwhile is not counted."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        start(t)
        bets(t, {1: 10}, [1])
        s = t.press("no_more_bets")
        round_id = s["round"]["round_id"]
        t.controls["progressive"]("reset")  # power cycle: lock-out released, flags and signs cleared
        assert t.controls["progressive"]("wager", seat=2)["accepted"] is True  # taken by the device
        s = t.press("confirm")  # the count: the daemon reads the system again
        assert phase(s) == "decisions" and s["notice_told"]["kind"] == "lockout_lost", s
        assert s["notice_told"]["clauses"] == ["UTH ch.8 §C(2)"], s["notice"]
        out = t.controls["progressive"]("outputs")
        assert out["lockout"] is True and out["lights"]["accepted"] == [1]
        assert "progressive" not in s["round"]["seats"].get("2", {}).get("wagers", {})
    with Journal(t.journal_path) as j:
        table = [(e.kind, e.data) for e in j.events(None)]
        meters = j.meter_values()
    assert ("progressive_lockout_lost", {"round": round_id}) in table
    assert ("late_progressive_wager", {"round": round_id, "seats": [2]}) in table
    assert out["meters"][:2] == [int(meters["major"] * 100), int(meters["minor"] * 100)]
